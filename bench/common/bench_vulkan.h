/* The Vulkan peer's setup shared by the benchmarks: an instance, the first
 * CPU Vulkan 1.2 device (lavapipe) with timeline semaphores and up to
 * `queue_count` queues of its first compute family, host-visible storage
 * buffers, and one compute pipeline whose set 0 holds `binding_count` storage
 * buffers plus push constants. Built only where the Vulkan headers exist
 * (BENCH_HAVE_VULKAN); the peer's shaders are GLSL compiled by glslangValidator.
 *
 * Header-only C11; include after bench_common.h. Any failing call after the
 * device exists exits the process. Thread-compatible. */
#ifndef XGPU_BENCH_VULKAN_H_
#define XGPU_BENCH_VULKAN_H_

#include <vulkan/vulkan.h>

#include "bench_common.h"

#define BENCH_VCHECK(call)                                                                      \
  do {                                                                                          \
    VkResult bench_vk_result_ = (call);                                                         \
    if (bench_vk_result_ != VK_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)bench_vk_result_); \
      exit(EXIT_FAILURE);                                                                       \
    }                                                                                           \
  } while (0)

enum { BENCH_VK_MAX_QUEUES = 4, BENCH_VK_MAX_BINDINGS = 4 };

typedef struct bench_vk {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  uint32_t family;                      /* the compute queue family used */
  uint32_t family_queue_count;          /* queues that family offers */
  VkQueue queues[BENCH_VK_MAX_QUEUES];  /* queue i of the family */
  uint32_t queue_count;                 /* queues created */
  VkPhysicalDeviceMemoryProperties memory;
  char device_name[256];
} bench_vk_t;

/* False, with a line on stderr, when there is no CPU Vulkan 1.2 device. */
static inline bool bench_vk_create(bench_vk_t* v, uint32_t queue_count) {
  memset(v, 0, sizeof *v);
  const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
  const VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  if (vkCreateInstance(&instance_info, NULL, &v->instance) != VK_SUCCESS) {
    fprintf(stderr, "vulkan: no Vulkan instance (install mesa-vulkan-drivers for lavapipe)\n");
    return false;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(v->instance, &count, NULL);
  VkPhysicalDevice devices[16];
  if (count > 16) count = 16;
  vkEnumeratePhysicalDevices(v->instance, &count, devices);
  VkPhysicalDeviceProperties properties;
  for (uint32_t i = 0; i < count && v->physical == VK_NULL_HANDLE; ++i) {
    vkGetPhysicalDeviceProperties(devices[i], &properties);
    if (properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && properties.apiVersion >= VK_API_VERSION_1_2)
      v->physical = devices[i];
  }
  if (v->physical == VK_NULL_HANDLE) {
    fprintf(stderr, "vulkan: no CPU Vulkan 1.2 device (install mesa-vulkan-drivers for lavapipe)\n");
    vkDestroyInstance(v->instance, NULL);
    return false;
  }
  snprintf(v->device_name, sizeof v->device_name, "%.200s", properties.deviceName);
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(v->physical, &family_count, NULL);
  VkQueueFamilyProperties families[16];
  if (family_count > 16) family_count = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(v->physical, &family_count, families);
  v->family = UINT32_MAX;
  for (uint32_t i = 0; i < family_count && v->family == UINT32_MAX; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) v->family = i;
  if (v->family == UINT32_MAX) {
    fprintf(stderr, "vulkan: no compute queue family\n");
    vkDestroyInstance(v->instance, NULL);
    return false;
  }
  v->family_queue_count = families[v->family].queueCount;
  if (queue_count > BENCH_VK_MAX_QUEUES) queue_count = BENCH_VK_MAX_QUEUES;
  if (queue_count > v->family_queue_count) queue_count = v->family_queue_count;
  v->queue_count = queue_count;
  const float priorities[BENCH_VK_MAX_QUEUES] = {1.0f, 1.0f, 1.0f, 1.0f};
  const VkDeviceQueueCreateInfo queue_info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = v->family, .queueCount = queue_count,
      .pQueuePriorities = priorities};
  const VkPhysicalDeviceVulkan12Features features12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = VK_TRUE};
  const VkDeviceCreateInfo device_info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &features12, .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue_info};
  BENCH_VCHECK(vkCreateDevice(v->physical, &device_info, NULL, &v->device));
  for (uint32_t i = 0; i < queue_count; ++i) vkGetDeviceQueue(v->device, v->family, i, &v->queues[i]);
  vkGetPhysicalDeviceMemoryProperties(v->physical, &v->memory);
  return true;
}

static inline void bench_vk_destroy(bench_vk_t* v) {
  vkDestroyDevice(v->device, NULL);
  vkDestroyInstance(v->instance, NULL);
}

static inline VkSemaphore bench_vk_timeline(bench_vk_t* v) {
  const VkSemaphoreTypeCreateInfo type_info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
  const VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type_info};
  VkSemaphore semaphore;
  BENCH_VCHECK(vkCreateSemaphore(v->device, &info, NULL, &semaphore));
  return semaphore;
}

static inline void bench_vk_wait(bench_vk_t* v, VkSemaphore semaphore, uint64_t value) {
  const VkSemaphoreWaitInfo wait = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &semaphore,
      .pValues = &value};
  BENCH_VCHECK(vkWaitSemaphores(v->device, &wait, UINT64_MAX));
}

static inline void bench_vk_signal(bench_vk_t* v, VkSemaphore semaphore, uint64_t value) {
  const VkSemaphoreSignalInfo signal = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = semaphore, .value = value};
  BENCH_VCHECK(vkSignalSemaphore(v->device, &signal));
}

/* Submits `cb` (VK_NULL_HANDLE: none) to `queue`, waiting for `wait` >=
 * wait_value first (when `wait` is not null) and signalling `signal` =
 * signal_value at completion. */
static inline void bench_vk_submit(VkQueue queue, VkCommandBuffer cb, VkSemaphore wait, uint64_t wait_value,
                                   VkSemaphore signal, uint64_t signal_value) {
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  const VkTimelineSemaphoreSubmitInfo timeline = {
      .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
      .waitSemaphoreValueCount = wait ? 1u : 0u, .pWaitSemaphoreValues = wait ? &wait_value : NULL,
      .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &signal_value};
  const VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &timeline,
      .waitSemaphoreCount = wait ? 1u : 0u, .pWaitSemaphores = wait ? &wait : NULL,
      .pWaitDstStageMask = wait ? &stage : NULL,
      .commandBufferCount = cb ? 1u : 0u, .pCommandBuffers = cb ? &cb : NULL,
      .signalSemaphoreCount = 1, .pSignalSemaphores = &signal};
  BENCH_VCHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
}

/* A host-visible coherent storage buffer with its memory, mapped. */
typedef struct bench_vk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void* mapped;
} bench_vk_buffer_t;

static inline bench_vk_buffer_t bench_vk_buffer(bench_vk_t* v, uint64_t size) {
  bench_vk_buffer_t b;
  const VkBufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  BENCH_VCHECK(vkCreateBuffer(v->device, &info, NULL, &b.buffer));
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(v->device, b.buffer, &requirements);
  const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < v->memory.memoryTypeCount && type == UINT32_MAX; ++i)
    if ((requirements.memoryTypeBits & (1u << i)) && (v->memory.memoryTypes[i].propertyFlags & wanted) == wanted)
      type = i;
  const VkMemoryAllocateInfo allocate = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = requirements.size, .memoryTypeIndex = type};
  BENCH_VCHECK(vkAllocateMemory(v->device, &allocate, NULL, &b.memory));
  BENCH_VCHECK(vkBindBufferMemory(v->device, b.buffer, b.memory, 0));
  BENCH_VCHECK(vkMapMemory(v->device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
  return b;
}

static inline void bench_vk_destroy_buffer(bench_vk_t* v, bench_vk_buffer_t* b) {
  vkUnmapMemory(v->device, b->memory);
  vkDestroyBuffer(v->device, b->buffer, NULL);
  vkFreeMemory(v->device, b->memory, NULL);
}

/* A compute pipeline, its layout and one descriptor set binding `buffers`. */
typedef struct bench_vk_pipeline {
  VkShaderModule shader;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorPool pool;
  VkDescriptorSet set;
} bench_vk_pipeline_t;

static inline bench_vk_pipeline_t bench_vk_pipeline(bench_vk_t* v, const uint32_t* spirv, size_t spirv_size,
                                                    uint32_t push_size, uint32_t binding_count,
                                                    const VkBuffer* buffers) {
  bench_vk_pipeline_t p;
  VkDescriptorSetLayoutBinding bindings[BENCH_VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < binding_count; ++i)
    bindings[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                 .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  const VkDescriptorSetLayoutCreateInfo set_layout_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = binding_count,
      .pBindings = bindings};
  BENCH_VCHECK(vkCreateDescriptorSetLayout(v->device, &set_layout_info, NULL, &p.set_layout));
  const VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = push_size};
  const VkPipelineLayoutCreateInfo layout_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &p.set_layout,
      .pushConstantRangeCount = push_size ? 1u : 0u, .pPushConstantRanges = push_size ? &range : NULL};
  BENCH_VCHECK(vkCreatePipelineLayout(v->device, &layout_info, NULL, &p.layout));
  const VkShaderModuleCreateInfo shader_info = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spirv_size, .pCode = spirv};
  BENCH_VCHECK(vkCreateShaderModule(v->device, &shader_info, NULL, &p.shader));
  const VkComputePipelineCreateInfo pipeline_info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = p.shader, .pName = "main"},
      .layout = p.layout};
  BENCH_VCHECK(vkCreateComputePipelines(v->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &p.pipeline));
  const VkDescriptorPoolSize pool_size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = binding_count};
  const VkDescriptorPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1,
      .pPoolSizes = &pool_size};
  BENCH_VCHECK(vkCreateDescriptorPool(v->device, &pool_info, NULL, &p.pool));
  const VkDescriptorSetAllocateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = p.pool, .descriptorSetCount = 1,
      .pSetLayouts = &p.set_layout};
  BENCH_VCHECK(vkAllocateDescriptorSets(v->device, &set_info, &p.set));
  VkDescriptorBufferInfo descriptors[BENCH_VK_MAX_BINDINGS];
  VkWriteDescriptorSet writes[BENCH_VK_MAX_BINDINGS];
  for (uint32_t i = 0; i < binding_count; ++i) {
    descriptors[i] = (VkDescriptorBufferInfo){.buffer = buffers[i], .offset = 0, .range = VK_WHOLE_SIZE};
    writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p.set,
                                       .dstBinding = i, .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &descriptors[i]};
  }
  vkUpdateDescriptorSets(v->device, binding_count, writes, 0, NULL);
  return p;
}

static inline void bench_vk_destroy_pipeline(bench_vk_t* v, bench_vk_pipeline_t* p) {
  vkDestroyPipeline(v->device, p->pipeline, NULL);
  vkDestroyPipelineLayout(v->device, p->layout, NULL);
  vkDestroyShaderModule(v->device, p->shader, NULL);
  vkDestroyDescriptorPool(v->device, p->pool, NULL);
  vkDestroyDescriptorSetLayout(v->device, p->set_layout, NULL);
}

/* A command pool of the device's family and one primary command buffer. */
static inline VkCommandBuffer bench_vk_command_buffer(bench_vk_t* v, VkCommandPool* out_pool) {
  const VkCommandPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = v->family};
  BENCH_VCHECK(vkCreateCommandPool(v->device, &pool_info, NULL, out_pool));
  const VkCommandBufferAllocateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = *out_pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
  VkCommandBuffer cb;
  BENCH_VCHECK(vkAllocateCommandBuffers(v->device, &info, &cb));
  return cb;
}

#endif
