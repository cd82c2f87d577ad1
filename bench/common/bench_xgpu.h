/* The xgpu side's setup shared by the benchmarks: an instance, the loader's
 * first physical device with `queue_count` queues of family 0, host-visible
 * buffers, pipelines from an embedded executable, timeline semaphores, and
 * submit/wait helpers. Everything goes through the public API and the loader.
 *
 * Header-only C11; include after bench_common.h. Any failing call exits the
 * process with the call and its result on stderr. Thread-compatible. */
#ifndef XGPU_BENCH_XGPU_H_
#define XGPU_BENCH_XGPU_H_

#include <xgpu/xgpu.h>

#include "bench_common.h"

#define BENCH_XCHECK(call)                                                                      \
  do {                                                                                          \
    XgpuResult bench_result_ = (call);                                                          \
    if (bench_result_ != XGPU_SUCCESS) {                                                        \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)bench_result_); \
      exit(EXIT_FAILURE);                                                                       \
    }                                                                                           \
  } while (0)

enum { BENCH_XGPU_MAX_QUEUES = 4 };
static const uint64_t BENCH_XGPU_WAIT_NS = 120ull * 1000 * 1000 * 1000;

typedef struct bench_xgpu {
  XgpuInstance instance;
  XgpuPhysicalDevice physical;
  XgpuDevice device;
  XgpuQueue queues[BENCH_XGPU_MAX_QUEUES];  /* family 0, queue i */
  uint32_t queue_count;                    /* queues created */
  uint32_t host_memory_type;               /* a HOST_VISIBLE | HOST_COHERENT type */
  char device_name[128];                   /* the physical device's name */
} bench_xgpu_t;

/* Creates the instance and a device with up to `queue_count` queues (fewer
 * when family 0 offers fewer). False, with a line on stderr, when there is
 * no physical device. */
static inline bool bench_xgpu_create_with_print_buffer(bench_xgpu_t* x, uint32_t queue_count,
                                                      uint64_t print_buffer_size);
static inline bool bench_xgpu_create(bench_xgpu_t* x, uint32_t queue_count) {
  return bench_xgpu_create_with_print_buffer(x, queue_count, 0);
}

/* The same, with XgpuDeviceCreateInfo::printBufferSize (0: the default). */
static inline bool bench_xgpu_create_with_print_buffer(bench_xgpu_t* x, uint32_t queue_count,
                                                      uint64_t print_buffer_size) {
  memset(x, 0, sizeof *x);
  const XgpuInstanceCreateInfo instance_info = {.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  BENCH_XCHECK(xgpuCreateInstance(&instance_info, NULL, &x->instance));
  uint32_t count = 1;
  if (xgpuEnumeratePhysicalDevices(x->instance, &count, &x->physical) < 0 || count == 0) {
    fprintf(stderr, "xgpu: no physical device (set XGPU_DRIVER_FILES to the driver's manifest)\n");
    xgpuDestroyInstance(x->instance, NULL);
    return false;
  }
  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(x->physical, &family_count, families);
  if (queue_count > BENCH_XGPU_MAX_QUEUES) queue_count = BENCH_XGPU_MAX_QUEUES;
  if (family_count > 0 && queue_count > families[0].queueCount) queue_count = families[0].queueCount;
  x->queue_count = queue_count;
  const XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0, .queueCount = queue_count};
  const XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue_info,
      .printBufferSize = print_buffer_size};
  BENCH_XCHECK(xgpuCreateDevice(x->physical, &device_info, NULL, &x->device));
  for (uint32_t i = 0; i < queue_count; ++i) xgpuGetDeviceQueue(x->device, 0, i, &x->queues[i]);

  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(x->physical, &memory);
  const XgpuMemoryPropertyFlags wanted = XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  x->host_memory_type = UINT32_MAX;
  for (uint32_t i = 0; i < memory.memoryTypeCount && x->host_memory_type == UINT32_MAX; ++i)
    if ((memory.memoryTypes[i].propertyFlags & wanted) == wanted) x->host_memory_type = i;
  if (x->host_memory_type == UINT32_MAX) {
    fprintf(stderr, "xgpu: no host-visible coherent memory type\n");
    exit(EXIT_FAILURE);
  }
  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(x->physical, &properties);
  snprintf(x->device_name, sizeof x->device_name, "%.100s", properties.deviceName);
  return true;
}

static inline void bench_xgpu_destroy(bench_xgpu_t* x) {
  xgpuDestroyDevice(x->device, NULL);
  xgpuDestroyInstance(x->instance, NULL);
}

/* A host-visible storage buffer of `size` bytes, mapped at *out_mapped. */
static inline XgpuBuffer bench_xgpu_buffer(bench_xgpu_t* x, uint64_t size, void** out_mapped) {
  const XgpuBufferCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = x->host_memory_type,
  };
  XgpuBuffer buffer;
  BENCH_XCHECK(xgpuCreateBuffer(x->device, &info, NULL, &buffer));
  BENCH_XCHECK(xgpuMapBuffer(x->device, buffer, 0, XGPU_WHOLE_SIZE, out_mapped));
  return buffer;
}

static inline void bench_xgpu_destroy_buffer(bench_xgpu_t* x, XgpuBuffer buffer) {
  xgpuUnmapBuffer(x->device, buffer);
  xgpuDestroyBuffer(x->device, buffer, NULL);
}

/* The pipeline of kernel `entry` of an embedded executable (the executable is
 * returned too, to be destroyed after the pipeline). */
static inline XgpuPipeline bench_xgpu_pipeline(bench_xgpu_t* x, const void* code, size_t code_size, const char* entry,
                                               XgpuExecutable* out_executable) {
  const XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO, .codeSize = code_size, .pCode = code};
  BENCH_XCHECK(xgpuCreateExecutable(x->device, &executable_info, NULL, out_executable));
  const XgpuPipelineCreateInfo pipeline_info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO, .executable = *out_executable, .pEntryPoint = entry};
  XgpuPipeline pipeline;
  BENCH_XCHECK(xgpuCreatePipeline(x->device, &pipeline_info, NULL, &pipeline));
  return pipeline;
}

static inline XgpuSemaphore bench_xgpu_semaphore(bench_xgpu_t* x) {
  const XgpuSemaphoreCreateInfo info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  XgpuSemaphore semaphore;
  BENCH_XCHECK(xgpuCreateSemaphore(x->device, &info, NULL, &semaphore));
  return semaphore;
}

static inline XgpuCommandBuffer bench_xgpu_command_buffer(bench_xgpu_t* x) {
  const XgpuCommandBufferCreateInfo info = {.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO};
  XgpuCommandBuffer cb;
  BENCH_XCHECK(xgpuCreateCommandBuffer(x->device, &info, NULL, &cb));
  return cb;
}

/* Blocks until `semaphore` reaches `value`. */
static inline void bench_xgpu_wait(bench_xgpu_t* x, XgpuSemaphore semaphore, uint64_t value) {
  const XgpuSemaphoreWaitInfo wait = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &semaphore,
      .pValues = &value};
  BENCH_XCHECK(xgpuWaitSemaphores(x->device, &wait, BENCH_XGPU_WAIT_NS));
}

/* Submits `cb` (NULL: an empty submission) to `queue`, waiting for
 * `wait_semaphore` >= `wait_value` first when wait_semaphore is not NULL,
 * and signalling `signal_semaphore` = `signal_value` at completion. */
static inline void bench_xgpu_submit(XgpuQueue queue, XgpuCommandBuffer cb, XgpuSemaphore wait_semaphore,
                                     uint64_t wait_value, XgpuSemaphore signal_semaphore, uint64_t signal_value) {
  const XgpuSubmitInfo submit = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphores = {wait_semaphore ? 1u : 0u, wait_semaphore ? &wait_semaphore : NULL,
                         wait_semaphore ? &wait_value : NULL},
      .commandBuffer = cb,
      .signalSemaphores = {1, &signal_semaphore, &signal_value},
  };
  BENCH_XCHECK(xgpuQueueSubmit(queue, 1, &submit));
}

#endif
