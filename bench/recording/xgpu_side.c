/* The xgpu side of the recording benchmark, through the loader, on the
 * default device (hsa-cpu without an AMD GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xgpu/xgpu.h>

#include "recording_bench.h"
#include "recording_bench_kernels.h" /* the embedded executable (xgpu_embed_executable) */

#define XCHECK(call)                                                              \
  do {                                                                            \
    XgpuResult check_result_ = (call);                                            \
    if (check_result_ != XGPU_SUCCESS) {                                          \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)check_result_); \
      exit(EXIT_FAILURE);                                                         \
    }                                                                             \
  } while (0)

static const uint64_t WAIT_TIMEOUT_NS = 120ull * 1000 * 1000 * 1000;

typedef struct xgpu_state {
  XgpuInstance instance;
  XgpuDevice device;
  XgpuQueue queue;
  XgpuExecutable executable;
  XgpuPipeline bump;
  XgpuBuffer counters;        /* RECORDING_COUNTER_COUNT uint32, host-visible */
  uint32_t* mapped;           /* counters, mapped */
  XgpuCommandBuffer scratch;  /* re-recorded by record() and record_one() */
  XgpuCommandBuffer replay;   /* recorded once by prepare_replay() */
  XgpuCommandBuffer one;      /* one dispatch, reusable */
  XgpuSemaphore timeline;     /* every submission signals the next value */
  uint64_t timeline_value;
} xgpu_state_t;

static void begin(xgpu_state_t* s, XgpuCommandBuffer cb) {
  const XgpuCommandBufferBeginInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE,
  };
  XCHECK(xgpuBeginCommandBuffer(cb, &info));
  xgpuCmdBindPipeline(cb, s->bump);
  const XgpuBufferRef counters = xgpuBufferRefWhole(s->counters);
  xgpuCmdBindBuffers(cb, 0, 1, &counters);
}

static void record_dispatches(XgpuCommandBuffer cb, uint32_t count, bool barriers) {
  for (uint32_t i = 0; i < count; ++i) {
    const recording_constants_t c = bench_constants(i);
    xgpuCmdPushConstants(cb, 0, sizeof c, &c);
    xgpuCmdDispatch(cb, 1, 1, 1);
    if (barriers)
      xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                           XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                           XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
  }
}

static uint64_t x_record(void* state, uint32_t count, bool barriers) {
  xgpu_state_t* s = state;
  const uint64_t start = bench_now_ns();
  begin(s, s->scratch);
  record_dispatches(s->scratch, count, barriers);
  XCHECK(xgpuEndCommandBuffer(s->scratch));
  return bench_now_ns() - start;
}

static uint64_t x_record_one(void* state) { return x_record(state, 1, false); }

static void x_prepare_replay(void* state, uint32_t count) {
  xgpu_state_t* s = state;
  begin(s, s->replay);
  record_dispatches(s->replay, count, false);
  XCHECK(xgpuEndCommandBuffer(s->replay));
  begin(s, s->one);
  record_dispatches(s->one, 1, false);
  XCHECK(xgpuEndCommandBuffer(s->one));
}

/* Submits `cb` (NULL: an empty submission) signalling the next value, and waits. */
static uint64_t submit_and_wait(xgpu_state_t* s, XgpuCommandBuffer cb) {
  const uint64_t value = ++s->timeline_value;
  const XgpuSubmitInfo submit = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBuffer = cb,
      .signalSemaphores = {1, &s->timeline, &value},
  };
  const XgpuSemaphoreWaitInfo wait = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &s->timeline,
      .pValues = &value,
  };
  const uint64_t start = bench_now_ns();
  XCHECK(xgpuQueueSubmit(s->queue, 1, &submit));
  XCHECK(xgpuWaitSemaphores(s->device, &wait, WAIT_TIMEOUT_NS));
  return bench_now_ns() - start;
}

static uint64_t x_replay(void* state) { return submit_and_wait(state, ((xgpu_state_t*)state)->replay); }
static uint64_t x_submit_one(void* state) { return submit_and_wait(state, ((xgpu_state_t*)state)->one); }
static uint64_t x_empty_submit(void* state) { return submit_and_wait(state, NULL); }

static void x_reset_counters(void* state) {
  xgpu_state_t* s = state;
  memset(s->mapped, 0, RECORDING_COUNTER_COUNT * sizeof(uint32_t));
}

static void x_read_counters(void* state, uint32_t out[RECORDING_COUNTER_COUNT]) {
  xgpu_state_t* s = state;
  memcpy(out, s->mapped, RECORDING_COUNTER_COUNT * sizeof(uint32_t));
}

static void x_destroy(void* state) {
  xgpu_state_t* s = state;
  xgpuDestroyCommandBuffer(s->device, s->scratch, NULL);
  xgpuDestroyCommandBuffer(s->device, s->replay, NULL);
  xgpuDestroyCommandBuffer(s->device, s->one, NULL);
  xgpuDestroySemaphore(s->device, s->timeline, NULL);
  xgpuUnmapBuffer(s->device, s->counters);
  xgpuDestroyBuffer(s->device, s->counters, NULL);
  xgpuDestroyPipeline(s->device, s->bump, NULL);
  xgpuDestroyExecutable(s->device, s->executable, NULL);
  xgpuDestroyDevice(s->device, NULL);
  xgpuDestroyInstance(s->instance, NULL);
  free(s);
}

bool xgpu_side_create(bench_side_t* out_side) {
  xgpu_state_t* s = calloc(1, sizeof *s);
  if (!s) return false;
  const XgpuInstanceCreateInfo instance_info = {.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  XCHECK(xgpuCreateInstance(&instance_info, NULL, &s->instance));
  uint32_t count = 1;
  XgpuPhysicalDevice physical = NULL;
  if (xgpuEnumeratePhysicalDevices(s->instance, &count, &physical) < 0 || count == 0) {
    fprintf(stderr, "xgpu: no physical device\n");
    xgpuDestroyInstance(s->instance, NULL);
    free(s);
    return false;
  }
  const XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0, .queueCount = 1};
  const XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue_info};
  XCHECK(xgpuCreateDevice(physical, &device_info, NULL, &s->device));
  xgpuGetDeviceQueue(s->device, 0, 0, &s->queue);

  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
  uint32_t host_type = UINT32_MAX;
  const XgpuMemoryPropertyFlags wanted = XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < memory.memoryTypeCount && host_type == UINT32_MAX; ++i)
    if ((memory.memoryTypes[i].propertyFlags & wanted) == wanted) host_type = i;
  if (host_type == UINT32_MAX) {
    fprintf(stderr, "xgpu: no host-visible coherent memory type\n");
    exit(EXIT_FAILURE);
  }
  const XgpuBufferCreateInfo buffer_info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = RECORDING_COUNTER_COUNT * sizeof(uint32_t),
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = host_type,
  };
  XCHECK(xgpuCreateBuffer(s->device, &buffer_info, NULL, &s->counters));
  XCHECK(xgpuMapBuffer(s->device, s->counters, 0, XGPU_WHOLE_SIZE, (void**)&s->mapped));

  const XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .codeSize = recording_bench_kernels_size,
      .pCode = recording_bench_kernels,
  };
  XCHECK(xgpuCreateExecutable(s->device, &executable_info, NULL, &s->executable));
  const XgpuPipelineCreateInfo pipeline_info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = s->executable,
      .pEntryPoint = "bump",  /* layout: as kernels.c declares (XGPU_KERNEL_BINDINGS) */
  };
  XCHECK(xgpuCreatePipeline(s->device, &pipeline_info, NULL, &s->bump));

  const XgpuCommandBufferCreateInfo cb_info = {.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO};
  XCHECK(xgpuCreateCommandBuffer(s->device, &cb_info, NULL, &s->scratch));
  XCHECK(xgpuCreateCommandBuffer(s->device, &cb_info, NULL, &s->replay));
  XCHECK(xgpuCreateCommandBuffer(s->device, &cb_info, NULL, &s->one));
  const XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  XCHECK(xgpuCreateSemaphore(s->device, &semaphore_info, NULL, &s->timeline));

  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(physical, &properties);
  static char name[128];
  snprintf(name, sizeof name, "xgpu (%.100s)", properties.deviceName);
  *out_side = (bench_side_t){
      .name = name,
      .state = s,
      .record = x_record,
      .record_one = x_record_one,
      .prepare_replay = x_prepare_replay,
      .replay = x_replay,
      .submit_one = x_submit_one,
      .empty_submit = x_empty_submit,
      .reset_counters = x_reset_counters,
      .read_counters = x_read_counters,
      .destroy = x_destroy,
  };
  return true;
}
