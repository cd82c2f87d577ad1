/* The Vulkan peer of the recording benchmark: the same work on the first
 * CPU Vulkan device (Mesa's lavapipe), with the same counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "bump_spirv.h" /* bump.comp compiled by glslangValidator (const uint32_t bump_spirv[]) */
#include "recording_bench.h"

#define VCHECK(call)                                                                    \
  do {                                                                                  \
    VkResult check_result_ = (call);                                                    \
    if (check_result_ != VK_SUCCESS) {                                                  \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)check_result_); \
      exit(EXIT_FAILURE);                                                               \
    }                                                                                   \
  } while (0)

static const uint64_t WAIT_TIMEOUT_NS = 120ull * 1000 * 1000 * 1000;

typedef struct vulkan_state {
  VkInstance instance;
  VkDevice device;
  VkQueue queue;
  VkBuffer counters;
  VkDeviceMemory memory;
  uint32_t* mapped;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout pipeline_layout;
  VkShaderModule shader;
  VkPipeline pipeline;
  VkDescriptorPool descriptor_pool;
  VkDescriptorSet set;
  VkCommandPool pool;
  VkCommandBuffer scratch, replay, one;
  VkSemaphore timeline;
  uint64_t timeline_value;
} vulkan_state_t;

static void begin(vulkan_state_t* s, VkCommandBuffer cb) {
  const VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VCHECK(vkBeginCommandBuffer(cb, &info));  /* resets it (pool made with RESET_COMMAND_BUFFER) */
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline_layout, 0, 1, &s->set, 0, NULL);
}

static void record_dispatches(vulkan_state_t* s, VkCommandBuffer cb, uint32_t count, bool barriers) {
  const VkMemoryBarrier barrier = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
  };
  for (uint32_t i = 0; i < count; ++i) {
    const recording_constants_t c = bench_constants(i);
    vkCmdPushConstants(cb, s->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof c, &c);
    vkCmdDispatch(cb, 1, 1, 1);
    if (barriers)
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                           &barrier, 0, NULL, 0, NULL);
  }
}

static uint64_t v_record(void* state, uint32_t count, bool barriers) {
  vulkan_state_t* s = state;
  const uint64_t start = bench_now_ns();
  begin(s, s->scratch);
  record_dispatches(s, s->scratch, count, barriers);
  VCHECK(vkEndCommandBuffer(s->scratch));
  return bench_now_ns() - start;
}

static uint64_t v_record_one(void* state) { return v_record(state, 1, false); }

static void v_prepare_replay(void* state, uint32_t count) {
  vulkan_state_t* s = state;
  begin(s, s->replay);
  record_dispatches(s, s->replay, count, false);
  VCHECK(vkEndCommandBuffer(s->replay));
  begin(s, s->one);
  record_dispatches(s, s->one, 1, false);
  VCHECK(vkEndCommandBuffer(s->one));
}

/* Submits `cb` (VK_NULL_HANDLE: no command buffer) signalling the timeline's next value, and waits. */
static uint64_t submit_and_wait(vulkan_state_t* s, VkCommandBuffer cb) {
  const uint64_t value = ++s->timeline_value;
  const VkTimelineSemaphoreSubmitInfo timeline_info = {
      .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
      .signalSemaphoreValueCount = 1,
      .pSignalSemaphoreValues = &value,
  };
  const VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .pNext = &timeline_info,
      .commandBufferCount = cb != VK_NULL_HANDLE ? 1u : 0u,
      .pCommandBuffers = &cb,
      .signalSemaphoreCount = 1,
      .pSignalSemaphores = &s->timeline,
  };
  const VkSemaphoreWaitInfo wait = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &s->timeline,
      .pValues = &value,
  };
  const uint64_t start = bench_now_ns();
  VCHECK(vkQueueSubmit(s->queue, 1, &submit, VK_NULL_HANDLE));
  VCHECK(vkWaitSemaphores(s->device, &wait, WAIT_TIMEOUT_NS));
  return bench_now_ns() - start;
}

static uint64_t v_replay(void* state) { return submit_and_wait(state, ((vulkan_state_t*)state)->replay); }
static uint64_t v_submit_one(void* state) { return submit_and_wait(state, ((vulkan_state_t*)state)->one); }
static uint64_t v_empty_submit(void* state) { return submit_and_wait(state, VK_NULL_HANDLE); }

static void v_reset_counters(void* state) {
  vulkan_state_t* s = state;
  memset(s->mapped, 0, RECORDING_COUNTER_COUNT * sizeof(uint32_t));
}

static void v_read_counters(void* state, uint32_t out[RECORDING_COUNTER_COUNT]) {
  vulkan_state_t* s = state;
  memcpy(out, s->mapped, RECORDING_COUNTER_COUNT * sizeof(uint32_t));
}

static void v_destroy(void* state) {
  vulkan_state_t* s = state;
  vkDeviceWaitIdle(s->device);
  vkDestroySemaphore(s->device, s->timeline, NULL);
  vkDestroyCommandPool(s->device, s->pool, NULL);
  vkDestroyDescriptorPool(s->device, s->descriptor_pool, NULL);
  vkDestroyPipeline(s->device, s->pipeline, NULL);
  vkDestroyShaderModule(s->device, s->shader, NULL);
  vkDestroyPipelineLayout(s->device, s->pipeline_layout, NULL);
  vkDestroyDescriptorSetLayout(s->device, s->set_layout, NULL);
  vkUnmapMemory(s->device, s->memory);
  vkDestroyBuffer(s->device, s->counters, NULL);
  vkFreeMemory(s->device, s->memory, NULL);
  vkDestroyDevice(s->device, NULL);
  vkDestroyInstance(s->instance, NULL);
  free(s);
}

bool vulkan_side_create(bench_side_t* out_side) {
  vulkan_state_t* s = calloc(1, sizeof *s);
  if (!s) return false;
  const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
  const VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  if (vkCreateInstance(&instance_info, NULL, &s->instance) != VK_SUCCESS) {
    fprintf(stderr, "vulkan: no Vulkan instance (install mesa-vulkan-drivers for lavapipe)\n");
    free(s);
    return false;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(s->instance, &count, NULL);
  VkPhysicalDevice devices[16];
  if (count > 16) count = 16;
  vkEnumeratePhysicalDevices(s->instance, &count, devices);
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties;
  for (uint32_t i = 0; i < count && physical == VK_NULL_HANDLE; ++i) {
    vkGetPhysicalDeviceProperties(devices[i], &properties);
    if (properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && properties.apiVersion >= VK_API_VERSION_1_2)
      physical = devices[i];
  }
  if (physical == VK_NULL_HANDLE) {
    fprintf(stderr, "vulkan: no CPU Vulkan 1.2 device (install mesa-vulkan-drivers for lavapipe)\n");
    vkDestroyInstance(s->instance, NULL);
    free(s);
    return false;
  }
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, NULL);
  VkQueueFamilyProperties families[16];
  if (family_count > 16) family_count = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families);
  uint32_t family = UINT32_MAX;
  for (uint32_t i = 0; i < family_count && family == UINT32_MAX; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = i;
  const float priority = 1.0f;
  const VkDeviceQueueCreateInfo queue_info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = family, .queueCount = 1,
      .pQueuePriorities = &priority};
  const VkPhysicalDeviceVulkan12Features features12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = VK_TRUE};
  const VkDeviceCreateInfo device_info = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &features12, .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue_info};
  VCHECK(vkCreateDevice(physical, &device_info, NULL, &s->device));
  vkGetDeviceQueue(s->device, family, 0, &s->queue);

  const VkBufferCreateInfo buffer_info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = RECORDING_COUNTER_COUNT * sizeof(uint32_t),
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  VCHECK(vkCreateBuffer(s->device, &buffer_info, NULL, &s->counters));
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(s->device, s->counters, &requirements);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < memory.memoryTypeCount && type == UINT32_MAX; ++i)
    if ((requirements.memoryTypeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted) type = i;
  const VkMemoryAllocateInfo allocate = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = requirements.size, .memoryTypeIndex = type};
  VCHECK(vkAllocateMemory(s->device, &allocate, NULL, &s->memory));
  VCHECK(vkBindBufferMemory(s->device, s->counters, s->memory, 0));
  VCHECK(vkMapMemory(s->device, s->memory, 0, VK_WHOLE_SIZE, 0, (void**)&s->mapped));

  const VkDescriptorSetLayoutBinding binding = {
      .binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1,
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  const VkDescriptorSetLayoutCreateInfo set_layout_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &binding};
  VCHECK(vkCreateDescriptorSetLayout(s->device, &set_layout_info, NULL, &s->set_layout));
  const VkPushConstantRange range = {
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = sizeof(recording_constants_t)};
  const VkPipelineLayoutCreateInfo layout_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &s->set_layout,
      .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
  VCHECK(vkCreatePipelineLayout(s->device, &layout_info, NULL, &s->pipeline_layout));
  const VkShaderModuleCreateInfo shader_info = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sizeof bump_spirv, .pCode = bump_spirv};
  VCHECK(vkCreateShaderModule(s->device, &shader_info, NULL, &s->shader));
  const VkComputePipelineCreateInfo pipeline_info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = s->shader, .pName = "main"},
      .layout = s->pipeline_layout};
  VCHECK(vkCreateComputePipelines(s->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &s->pipeline));
  const VkDescriptorPoolSize pool_size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
  const VkDescriptorPoolCreateInfo descriptor_pool_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1,
      .pPoolSizes = &pool_size};
  VCHECK(vkCreateDescriptorPool(s->device, &descriptor_pool_info, NULL, &s->descriptor_pool));
  const VkDescriptorSetAllocateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = s->descriptor_pool,
      .descriptorSetCount = 1, .pSetLayouts = &s->set_layout};
  VCHECK(vkAllocateDescriptorSets(s->device, &set_info, &s->set));
  const VkDescriptorBufferInfo descriptor = {.buffer = s->counters, .offset = 0, .range = VK_WHOLE_SIZE};
  const VkWriteDescriptorSet write = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = s->set, .dstBinding = 0, .descriptorCount = 1,
      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &descriptor};
  vkUpdateDescriptorSets(s->device, 1, &write, 0, NULL);

  const VkCommandPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = family};
  VCHECK(vkCreateCommandPool(s->device, &pool_info, NULL, &s->pool));
  VkCommandBuffer buffers[3];
  const VkCommandBufferAllocateInfo cb_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = s->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 3};
  VCHECK(vkAllocateCommandBuffers(s->device, &cb_info, buffers));
  s->scratch = buffers[0];
  s->replay = buffers[1];
  s->one = buffers[2];
  const VkSemaphoreTypeCreateInfo type_info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
  const VkSemaphoreCreateInfo semaphore_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type_info};
  VCHECK(vkCreateSemaphore(s->device, &semaphore_info, NULL, &s->timeline));

  static char name[300];
  snprintf(name, sizeof name, "Vulkan (%.250s)", properties.deviceName);
  *out_side = (bench_side_t){
      .name = name,
      .state = s,
      .record = v_record,
      .record_one = v_record_one,
      .prepare_replay = v_prepare_replay,
      .replay = v_replay,
      .submit_one = v_submit_one,
      .empty_submit = v_empty_submit,
      .reset_counters = v_reset_counters,
      .read_counters = v_read_counters,
      .destroy = v_destroy,
  };
  return true;
}
