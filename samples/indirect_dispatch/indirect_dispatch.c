/*
 * indirect_dispatch: a dispatch whose size is decided on the device.
 *
 * A filter kernel keeps the elements of an array that pass a predicate,
 * compacts their indices, and writes the workgroup counts of the next step
 * into a buffer. A process kernel then runs through xgpuCmdDispatchIndirect,
 * sized by those counts: only the survivors are processed, and the host never
 * reads the count in between.
 *
 * The same pipeline runs twice, once per kind of indirect dispatch:
 *
 *   DYNAMIC  the counts are written by an earlier command of the SAME
 *            submission. A pipeline barrier with INDIRECT_READ access orders
 *            the indirect dispatch after the filter; the driver completes the
 *            dispatch packet on the device once the counts exist.
 *   STATIC   the counts are written by an EARLIER submission, and the
 *            submission holding the indirect dispatch waits for it through a
 *            timeline semaphore. The counts are final when the submission is
 *            issued, so the driver reads them while building the packet.
 *
 * Each run is checked against a CPU reference. Usage:
 *
 *   indirect_dispatch [path/to/indirect_dispatch_kernels.xgpux]
 *
 * Without an argument the kernels are loaded from the file next to the
 * executable (the build puts it there). The driver is found by the loader's
 * normal search; XGPU_DRIVER_FILES points it at a manifest in a build tree.
 */
#define _POSIX_C_SOURCE 200809L /* readlink */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xgpu/xgpu.h>
#include <xgpu/xgpu_enum_string.h>

#include "filter_shared.h"

/* ---------------------------------------------------------------------------
 * Error handling: every call that returns an XgpuResult goes through CHECK,
 * which prints the failing call and the result's name, then exits.
 * ------------------------------------------------------------------------- */

#define CHECK(call)                                                        \
  do {                                                                     \
    XgpuResult check_result_ = (call);                                     \
    if (check_result_ != XGPU_SUCCESS) {                                   \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
              xgpuResultString(check_result_));                            \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

#define FAIL(...)                     \
  do {                                \
    fprintf(stderr, "error: ");       \
    fprintf(stderr, __VA_ARGS__);     \
    fprintf(stderr, "\n");            \
    exit(EXIT_FAILURE);               \
  } while (0)

/* Errors and warnings from the driver and the layers arrive here. A failing
 * call's explanation is in these messages; a valid program receives none.
 * The callback may run on any thread, so the count is atomic. */
static XgpuBool32 on_debug_message(XgpuDebugMessageSeverityFlagBits severity,
                                   XgpuDebugMessageTypeFlags types,
                                   const XgpuDebugMessageData* data, void* user_data) {
  (void)types;
  atomic_fetch_add((atomic_uint*)user_data, 1u);
  fprintf(stderr, "[xgpu %s] %s: %s\n",
          severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT ? "error" : "warning",
          data->pMessageIdName ? data->pMessageIdName : "-", data->pMessage);
  return XGPU_FALSE;
}

/* ---------------------------------------------------------------------------
 * The sample's parameters.
 * ------------------------------------------------------------------------- */

enum {
  ELEMENT_COUNT = 1000000, /* input elements; not a multiple of the workgroup size */
  DYNAMIC_KEEP_PERCENT = 30, /* about this many percent survive in the DYNAMIC run */
  STATIC_KEEP_PERCENT = 60,  /* ... and in the STATIC run: a different count, so that
                                counts left over from the first run cannot pass for
                                the second run's */
};
static const uint64_t WAIT_TIMEOUT_NS = 60ull * 1000 * 1000 * 1000; /* fail instead of hanging */

/* Everything the two runs share. */
typedef struct sample {
  XgpuDevice device;
  XgpuQueue queue;
  uint32_t queue_family;
  XgpuPipeline filter;     /* filter kernel */
  XgpuPipeline process;    /* process kernel */
  XgpuBuffer input;        /* ELEMENT_COUNT values, written by the host */
  XgpuBuffer survivors;    /* compacted indices, written by filter */
  XgpuBuffer state;        /* indirect_state_t: the counts the indirect dispatch reads */
  XgpuBuffer output;       /* process's results, read by the host */
  XgpuSemaphore timeline;  /* orders submissions and tells the host when they finished */
  uint64_t timeline_value; /* last value a submission was asked to signal */
} sample_t;

/* Finds a memory type that has all of the `required` property bits. */
static uint32_t find_memory_type(const XgpuPhysicalDeviceMemoryProperties* memory,
                                 XgpuMemoryPropertyFlags required) {
  for (uint32_t i = 0; i < memory->memoryTypeCount; ++i)
    if ((memory->memoryTypes[i].propertyFlags & required) == required) return i;
  FAIL("the device has no memory type with properties 0x%x", required);
}

static XgpuBuffer create_buffer(XgpuDevice device, XgpuDeviceSize size,
                                XgpuBufferUsageFlags usage, uint32_t memory_type) {
  XgpuBufferCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = usage,
      .memoryTypeIndex = memory_type,
  };
  XgpuBuffer buffer;
  CHECK(xgpuCreateBuffer(device, &info, NULL, &buffer));
  return buffer;
}

static XgpuPipeline create_pipeline(XgpuDevice device, XgpuExecutable executable,
                                    const char* entry_point, uint32_t workgroup_size) {
  XgpuPipelineCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = executable,
      .pEntryPoint = entry_point,
      /* bindingCount and constantSize 0: the layout the kernel declares
       * (XGPU_KERNEL_BINDINGS in kernels.c) */
      .workgroupSize = {workgroup_size, 1, 1},
  };
  XgpuPipeline pipeline;
  CHECK(xgpuCreatePipeline(device, &info, NULL, &pipeline));
  return pipeline;
}

/* The kernels live in indirect_dispatch_kernels.xgpux next to this program. */
static void default_kernels_path(char* path, size_t capacity) {
  ssize_t length = readlink("/proc/self/exe", path, capacity - 1);
  if (length <= 0) FAIL("cannot locate the executable (pass the kernels path as argv[1])");
  path[length] = '\0';
  char* slash = strrchr(path, '/');
  size_t directory_length = slash ? (size_t)(slash - path) : 0;
  const char* file = "/indirect_dispatch_kernels.xgpux";
  if (directory_length + strlen(file) + 1 > capacity) FAIL("path too long: %s", path);
  strcpy(path + directory_length, file);
}

/* ---------------------------------------------------------------------------
 * Recording. The two kinds of indirect dispatch use the same commands; they
 * differ in where the submission boundary falls and in the flag.
 * ------------------------------------------------------------------------- */

static XgpuCommandBuffer begin_one_shot(const sample_t* s) {
  XgpuCommandBufferCreateInfo create_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO,
      .queueFamilyIndex = s->queue_family,
  };
  XgpuCommandBuffer cb;
  CHECK(xgpuCreateCommandBuffer(s->device, &create_info, NULL, &cb));
  XgpuCommandBufferBeginInfo begin_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, /* submitted once, then destroyed */
      .bindingCapacity = 0,                      /* every buffer is referenced directly */
  };
  CHECK(xgpuBeginCommandBuffer(cb, &begin_info));
  return cb;
}

/* Resets the counts and the output, then runs the filter over every element. */
static void record_filter(const sample_t* s, XgpuCommandBuffer cb, uint32_t keep_percent) {
  /* workgroup_count starts at {0, 1, 1}: the filter only ever adds to x. */
  const indirect_state_t reset = {.workgroup_count = {0, 1, 1}};
  const XgpuBufferRef state = xgpuBufferRefWhole(s->state);
  xgpuCmdUpdateBuffer(cb, &state, sizeof reset, &reset);
  const uint32_t not_processed = OUTPUT_NOT_PROCESSED;
  const XgpuBufferRef output = xgpuBufferRefWhole(s->output);
  xgpuCmdFillBuffer(cb, &output, &not_processed, sizeof not_processed);

  /* The filter's atomics must see the reset: transfer writes before
   * kernel reads and writes. */
  xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                       XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);

  xgpuCmdBindPipeline(cb, s->filter);
  const XgpuBufferRef bindings[3] = {xgpuBufferRefWhole(s->input), xgpuBufferRefWhole(s->survivors),
                                     xgpuBufferRefWhole(s->state)};
  xgpuCmdBindBuffers(cb, 0, 3, bindings);
  const filter_constants_t constants = {ELEMENT_COUNT, keep_percent};
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, (ELEMENT_COUNT + FILTER_WORKGROUP_SIZE - 1) / FILTER_WORKGROUP_SIZE, 1, 1);
}

/* Runs the process kernel with the workgroup counts at the start of the
 * state buffer. (Its results need no barrier for the host: a submission's
 * writes are visible to the host once it has signaled its semaphore.) */
static void record_process(const sample_t* s, XgpuCommandBuffer cb,
                           XgpuDispatchIndirectFlags flags) {
  xgpuCmdBindPipeline(cb, s->process);
  const XgpuBufferRef bindings[4] = {xgpuBufferRefWhole(s->input), xgpuBufferRefWhole(s->survivors),
                                     xgpuBufferRefWhole(s->state), xgpuBufferRefWhole(s->output)};
  xgpuCmdBindBuffers(cb, 0, 4, bindings);
  /* The counts: uint32_t workgroup_count[3] at offset 0 of the state buffer
   * (which was created with the INDIRECT usage). */
  const XgpuBufferRef counts = xgpuBufferRefRange(s->state, 0, 3 * sizeof(uint32_t));
  xgpuCmdDispatchIndirect(cb, &counts, flags);
}

/* Submits a command buffer that waits for `wait_value` of the timeline (0:
 * no wait) and signals the next value, which it returns. */
static uint64_t submit(sample_t* s, XgpuCommandBuffer cb, uint64_t wait_value) {
  uint64_t signal_value = ++s->timeline_value;
  XgpuSubmitInfo submit_info = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphores = {wait_value ? 1u : 0u, &s->timeline, &wait_value},
      .commandBuffer = cb,
      .signalSemaphores = {1, &s->timeline, &signal_value},
  };
  CHECK(xgpuQueueSubmit(s->queue, 1, &submit_info));
  return signal_value;
}

static void host_wait(const sample_t* s, uint64_t value) {
  XgpuSemaphoreWaitInfo wait_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &s->timeline,
      .pValues = &value,
  };
  CHECK(xgpuWaitSemaphores(s->device, &wait_info, WAIT_TIMEOUT_NS));
}

/* DYNAMIC: filter and process in one submission. */
static void run_dynamic(sample_t* s, uint32_t keep_percent) {
  XgpuCommandBuffer cb = begin_one_shot(s);
  record_filter(s, cb, keep_percent);
  /* The counts were written by the reset (a transfer) and by the filter's
   * atomics (a dispatch); both must be visible to the indirect dispatch.
   * INDIRECT_READ is what reads workgroup_count[], SHADER_READ is the
   * process kernel reading survivors[] and survivor_count. */
  xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT | XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                       XGPU_ACCESS_TRANSFER_WRITE_BIT | XGPU_ACCESS_SHADER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_INDIRECT_BIT | XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                       XGPU_ACCESS_INDIRECT_READ_BIT | XGPU_ACCESS_SHADER_READ_BIT);
  record_process(s, cb, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  CHECK(xgpuEndCommandBuffer(cb));

  host_wait(s, submit(s, cb, 0));
  xgpuDestroyCommandBuffer(s->device, cb, NULL);
}

/* STATIC: the filter in one submission, the process dispatch in a second one
 * that waits for the first through the timeline semaphore. Both are queued
 * before the host waits for anything. */
static void run_static(sample_t* s, uint32_t keep_percent) {
  XgpuCommandBuffer filter_cb = begin_one_shot(s);
  record_filter(s, filter_cb, keep_percent);
  CHECK(xgpuEndCommandBuffer(filter_cb));

  XgpuCommandBuffer process_cb = begin_one_shot(s);
  record_process(s, process_cb, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
  CHECK(xgpuEndCommandBuffer(process_cb));

  uint64_t counts_written = submit(s, filter_cb, 0);
  host_wait(s, submit(s, process_cb, counts_written));
  xgpuDestroyCommandBuffer(s->device, process_cb, NULL);
  xgpuDestroyCommandBuffer(s->device, filter_cb, NULL);
}

/* ---------------------------------------------------------------------------
 * Verification against the CPU.
 * ------------------------------------------------------------------------- */

static void verify(const char* mode, uint32_t keep_percent, const uint32_t* input,
                   const indirect_state_t* state, const uint32_t* output) {
  uint32_t survivors = 0;
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) {
    bool keep = filter_keep(input[i], keep_percent);
    uint32_t expected = keep ? process_transform(input[i]) : OUTPUT_NOT_PROCESSED;
    if (output[i] != expected)
      FAIL("%s: output[%u] = %u, expected %u (input %u, %s)", mode, i, output[i], expected,
           input[i], keep ? "a survivor" : "filtered out");
    survivors += keep;
  }
  uint32_t workgroups = (survivors + PROCESS_WORKGROUP_SIZE - 1) / PROCESS_WORKGROUP_SIZE;
  if (state->survivor_count != survivors)
    FAIL("%s: the filter counted %u survivors, expected %u", mode, state->survivor_count, survivors);
  if (state->workgroup_count[0] != workgroups || state->workgroup_count[1] != 1 ||
      state->workgroup_count[2] != 1)
    FAIL("%s: workgroup counts {%u, %u, %u}, expected {%u, 1, 1}", mode,
         state->workgroup_count[0], state->workgroup_count[1], state->workgroup_count[2],
         workgroups);
  if (state->workgroups_run != workgroups)
    FAIL("%s: the indirect dispatch ran %u workgroups, expected %u", mode,
         state->workgroups_run, workgroups);
  printf("%-7s %u elements, %u survivors (keep %u%%), %u workgroups dispatched: OK\n", mode,
         ELEMENT_COUNT, survivors, keep_percent, workgroups);
}

int main(int argc, char** argv) {
  char kernels_path[4096];
  if (argc > 1) {
    snprintf(kernels_path, sizeof kernels_path, "%s", argv[1]);
  } else {
    default_kernels_path(kernels_path, sizeof kernels_path);
  }

  /* 1. An instance: the loader finds the drivers (and layers, e.g.
   *    XGPU_INSTANCE_LAYERS=XGPU_LAYER_validation) here. */
  XgpuApplicationInfo app_info = {
      .sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "indirect_dispatch",
      .apiVersion = XGPU_API_VERSION_1_0,
  };
  XgpuInstanceCreateInfo instance_info = {
      .sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app_info,
  };
  XgpuInstance instance;
  CHECK(xgpuCreateInstance(&instance_info, NULL, &instance));

  atomic_uint debug_message_count = 0;
  XgpuDebugMessengerCreateInfo messenger_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO,
      .messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
      .messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                     XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT,
      .pfnUserCallback = on_debug_message,
      .pUserData = &debug_message_count,
  };
  XgpuDebugMessenger messenger;
  CHECK(xgpuCreateDebugMessenger(instance, &messenger_info, NULL, &messenger));

  /* 2. The first physical device, and a queue family that runs dispatches
   *    and transfers (fill and update). */
  uint32_t device_count = 1;
  XgpuPhysicalDevice physical_device = XGPU_NULL_HANDLE;
  XgpuResult enumerate = xgpuEnumeratePhysicalDevices(instance, &device_count, &physical_device);
  if (enumerate != XGPU_INCOMPLETE) CHECK(enumerate);
  if (device_count == 0) FAIL("no xgpu device found (is a driver installed? see XGPU_DRIVER_FILES)");
  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(physical_device, &properties);
  printf("device: %s (%s)\n", properties.deviceName, properties.isaName);

  sample_t s = {0};
  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families);
  const XgpuQueueFlags needed = XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT;
  s.queue_family = family_count;
  for (uint32_t i = 0; i < family_count && s.queue_family == family_count; ++i)
    if ((families[i].queueFlags & needed) == needed) s.queue_family = i;
  if (s.queue_family == family_count) FAIL("the device has no compute + transfer queue family");

  /* 3. A logical device with one queue of that family. */
  XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = s.queue_family,
      .queueCount = 1,
  };
  XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue_info,
  };
  CHECK(xgpuCreateDevice(physical_device, &device_info, NULL, &s.device));
  xgpuGetDeviceQueue(s.device, s.queue_family, 0, &s.queue);

  /* 4. Buffers. All of them are host-visible and coherent: the host writes
   *    the input and reads every result straight from mapped memory. The
   *    state buffer needs the INDIRECT usage to feed xgpuCmdDispatchIndirect. */
  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  uint32_t host_memory = find_memory_type(
      &memory, XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  const XgpuDeviceSize array_size = ELEMENT_COUNT * sizeof(uint32_t);
  s.input = create_buffer(s.device, array_size, XGPU_BUFFER_USAGE_STORAGE_BIT, host_memory);
  s.survivors = create_buffer(s.device, array_size, XGPU_BUFFER_USAGE_STORAGE_BIT, host_memory);
  s.output = create_buffer(s.device, array_size,
                           XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                           host_memory);
  s.state = create_buffer(s.device, sizeof(indirect_state_t),
                          XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT |
                              XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                          host_memory);

  uint32_t* input;
  uint32_t* output;
  indirect_state_t* state;
  CHECK(xgpuMapBuffer(s.device, s.input, 0, XGPU_WHOLE_SIZE, (void**)&input));
  CHECK(xgpuMapBuffer(s.device, s.output, 0, XGPU_WHOLE_SIZE, (void**)&output));
  CHECK(xgpuMapBuffer(s.device, s.state, 0, XGPU_WHOLE_SIZE, (void**)&state));
  uint32_t x = 0x9E3779B9u; /* xorshift32: uniformly spread values */
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    input[i] = x;
  }

  /* 5. The kernels: one executable file holds them for every target; the
   *    driver loads the code object of this device's ISA. A pipeline is one
   *    kernel with its argument layout and workgroup size. */
  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = kernels_path,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(s.device, &executable_info, NULL, &executable));
  s.filter = create_pipeline(s.device, executable, "filter", FILTER_WORKGROUP_SIZE);
  s.process = create_pipeline(s.device, executable, "process", PROCESS_WORKGROUP_SIZE);

  /* 6. One timeline semaphore orders the submissions and tells the host when
   *    each run finished. */
  XgpuSemaphoreCreateInfo semaphore_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
      .initialValue = 0,
  };
  CHECK(xgpuCreateSemaphore(s.device, &semaphore_info, NULL, &s.timeline));

  /* 7. Run and check both kinds. */
  run_dynamic(&s, DYNAMIC_KEEP_PERCENT);
  verify("DYNAMIC", DYNAMIC_KEEP_PERCENT, input, state, output);
  run_static(&s, STATIC_KEEP_PERCENT);
  verify("STATIC", STATIC_KEEP_PERCENT, input, state, output);

  /* 8. Clean up, children before parents. */
  xgpuDestroySemaphore(s.device, s.timeline, NULL);
  xgpuDestroyPipeline(s.device, s.process, NULL);
  xgpuDestroyPipeline(s.device, s.filter, NULL);
  xgpuDestroyExecutable(s.device, executable, NULL);
  xgpuUnmapBuffer(s.device, s.state);
  xgpuUnmapBuffer(s.device, s.output);
  xgpuUnmapBuffer(s.device, s.input);
  xgpuDestroyBuffer(s.device, s.state, NULL);
  xgpuDestroyBuffer(s.device, s.output, NULL);
  xgpuDestroyBuffer(s.device, s.survivors, NULL);
  xgpuDestroyBuffer(s.device, s.input, NULL);
  xgpuDestroyDevice(s.device, NULL);
  xgpuDestroyDebugMessenger(instance, messenger, NULL);
  xgpuDestroyInstance(instance, NULL);

  if (atomic_load(&debug_message_count) != 0)
    FAIL("%u debug messages were reported", atomic_load(&debug_message_count));
  return EXIT_SUCCESS;
}
