/*
 * alloca: scratch memory whose lifetime follows the queue.
 *
 * A command buffer is recorded ONCE, with its scratch buffer left open as
 * binding-table slot 0. It is then replayed ITERATION_COUNT times; every
 * iteration
 *
 *   1. xgpuQueueAlloca    takes a fresh scratch buffer from a memory pool,
 *   2. xgpuQueueSubmit    runs the command buffer with slot 0 pointing at it,
 *   3. xgpuQueueDealloca  gives the memory back to the pool,
 *
 * and all three are chained through ONE timeline semaphore: each step waits
 * for the value the previous step signals. The host queues all
 * 3 * ITERATION_COUNT operations without waiting, then waits once at the end.
 * The buffer handle exists as soon as xgpuQueueAlloca returns; its memory is
 * committed in queue order, and because each dealloca finishes before the
 * next alloca starts, the pool hands the same memory out again: its peak
 * usage stays at one iteration's scratch instead of ITERATION_COUNT of them.
 *
 * The program checks the results and that peak, and prints the pool's
 * statistics. Usage:
 *
 *   alloca [path/to/alloca_kernels.xgpux]
 *
 * Without an argument the kernels are loaded from the file next to the
 * executable (the build puts it there). The driver is found by the loader's
 * normal search; XGPU_DRIVER_FILES points it at a manifest in a build tree.
 */
#define _POSIX_C_SOURCE 200809L /* readlink */

#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xgpu/xgpu.h>
#include <xgpu/xgpu_enum_string.h>

#include "alloca_shared.h"

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
  ELEMENT_COUNT = 1 << 16, /* elements per iteration: 256 KiB of scratch */
  ITERATION_COUNT = 64,    /* replays of the command buffer */
};
static const XgpuDeviceSize SCRATCH_SIZE = ELEMENT_COUNT * sizeof(uint32_t);
static const uint64_t WAIT_TIMEOUT_NS = 60ull * 1000 * 1000 * 1000; /* fail instead of hanging */

/* Finds a memory type that has all of the `required` property bits,
 * preferring one that also has the `preferred` bits. */
static uint32_t find_memory_type(const XgpuPhysicalDeviceMemoryProperties* memory,
                                 XgpuMemoryPropertyFlags required,
                                 XgpuMemoryPropertyFlags preferred) {
  for (uint32_t i = 0; i < memory->memoryTypeCount; ++i)
    if ((memory->memoryTypes[i].propertyFlags & (required | preferred)) == (required | preferred))
      return i;
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
                                    const char* entry_point) {
  XgpuPipelineCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = executable,
      .pEntryPoint = entry_point,
      /* bindingCount and constantSize 0: the layout the kernel declares
       * (XGPU_KERNEL_BINDINGS in kernels.c) */
      .workgroupSize = {ALLOCA_WORKGROUP_SIZE, 1, 1},
  };
  XgpuPipeline pipeline;
  CHECK(xgpuCreatePipeline(device, &info, NULL, &pipeline));
  return pipeline;
}

/* The kernels live in alloca_kernels.xgpux next to this program. */
static void default_kernels_path(char* path, size_t capacity) {
  ssize_t length = readlink("/proc/self/exe", path, capacity - 1);
  if (length <= 0) FAIL("cannot locate the executable (pass the kernels path as argv[1])");
  path[length] = '\0';
  char* slash = strrchr(path, '/');
  size_t directory_length = slash ? (size_t)(slash - path) : 0;
  const char* file = "/alloca_kernels.xgpux";
  if (directory_length + strlen(file) + 1 > capacity) FAIL("path too long: %s", path);
  strcpy(path + directory_length, file);
}

static void print_statistics(const char* when, const XgpuMemoryPoolStatistics* statistics) {
  printf("pool %-6s reserved %8" PRIu64 " B (peak %8" PRIu64 " B, %u blocks), in use %8" PRIu64
         " B (peak %8" PRIu64 " B), %" PRIu64 " allocations\n",
         when, statistics->reservedSize, statistics->peakReservedSize, statistics->blockCount,
         statistics->inUseSize, statistics->peakInUseSize, statistics->allocationCount);
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
      .pApplicationName = "alloca",
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

  /* 2. The first physical device and a queue family that runs dispatches. */
  uint32_t device_count = 1;
  XgpuPhysicalDevice physical_device = XGPU_NULL_HANDLE;
  XgpuResult enumerate = xgpuEnumeratePhysicalDevices(instance, &device_count, &physical_device);
  if (enumerate != XGPU_INCOMPLETE) CHECK(enumerate);
  if (device_count == 0) FAIL("no xgpu device found (is a driver installed? see XGPU_DRIVER_FILES)");
  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(physical_device, &properties);
  printf("device: %s (%s)\n", properties.deviceName, properties.isaName);

  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families);
  uint32_t queue_family = family_count;
  for (uint32_t i = 0; i < family_count && queue_family == family_count; ++i)
    if (families[i].queueFlags & XGPU_QUEUE_COMPUTE_BIT) queue_family = i;
  if (queue_family == family_count) FAIL("the device has no compute queue family");

  /* 3. A logical device with one queue of that family. */
  XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = queue_family,
      .queueCount = 1,
  };
  XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue_info,
  };
  XgpuDevice device;
  CHECK(xgpuCreateDevice(physical_device, &device_info, NULL, &device));
  XgpuQueue queue;
  xgpuGetDeviceQueue(device, queue_family, 0, &queue);

  /* 4. Long-lived buffers, host-visible so the host fills and checks them
   *    directly: the input, the running sums, the iteration counter. */
  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  uint32_t host_memory = find_memory_type(
      &memory, XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
  XgpuBuffer input = create_buffer(device, SCRATCH_SIZE, XGPU_BUFFER_USAGE_STORAGE_BIT, host_memory);
  XgpuBuffer output = create_buffer(device, SCRATCH_SIZE, XGPU_BUFFER_USAGE_STORAGE_BIT, host_memory);
  XgpuBuffer iteration = create_buffer(device, sizeof(uint32_t), XGPU_BUFFER_USAGE_STORAGE_BIT,
                                       host_memory);
  uint32_t* input_data;
  uint32_t* output_data;
  uint32_t* iteration_data;
  CHECK(xgpuMapBuffer(device, input, 0, XGPU_WHOLE_SIZE, (void**)&input_data));
  CHECK(xgpuMapBuffer(device, output, 0, XGPU_WHOLE_SIZE, (void**)&output_data));
  CHECK(xgpuMapBuffer(device, iteration, 0, XGPU_WHOLE_SIZE, (void**)&iteration_data));
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) {
    input_data[i] = i * 2654435761u; /* any values will do */
    output_data[i] = 0;
  }
  *iteration_data = 0;

  /* 5. The memory pool scratch comes from. Nobody but the device touches
   *    scratch, so device-local memory is preferred. The pool reserves large
   *    blocks from the device and sub-allocates them; blockSize 0 lets the
   *    driver choose, maxSize 0 sets no limit. */
  XgpuMemoryPoolCreateInfo pool_info = {
      .sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO,
      .memoryTypeIndex = find_memory_type(&memory, 0, XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT),
      .blockSize = 0,
      .maxSize = 0,
      .retainSize = 0,
  };
  XgpuMemoryPool pool;
  CHECK(xgpuCreateMemoryPool(device, &pool_info, NULL, &pool));

  /* 6. The kernels and their pipelines. */
  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = kernels_path,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(device, &executable_info, NULL, &executable));
  XgpuPipeline produce = create_pipeline(device, executable, "produce");
  XgpuPipeline consume = create_pipeline(device, executable, "consume");

  /* 7. Record the command buffer once. It is REUSABLE (submitted many
   *    times) and has one binding-table slot: wherever scratch is used, the
   *    reference says "slot 0" instead of naming a buffer, and each
   *    submission says which buffer slot 0 is. */
  XgpuCommandBufferCreateInfo cb_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO,
      .queueFamilyIndex = queue_family,
  };
  XgpuCommandBuffer cb;
  CHECK(xgpuCreateCommandBuffer(device, &cb_info, NULL, &cb));
  XgpuCommandBufferBeginInfo begin_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE,
      .bindingCapacity = 1,
  };
  CHECK(xgpuBeginCommandBuffer(cb, &begin_info));
  /* No scratch buffer yet: slot 0 of each submission's binding table decides. */
  const XgpuBufferRef scratch_slot = xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE);
  const alloca_constants_t constants = {ELEMENT_COUNT, 0};
  const uint32_t workgroups = (ELEMENT_COUNT + ALLOCA_WORKGROUP_SIZE - 1) / ALLOCA_WORKGROUP_SIZE;

  xgpuCmdBindPipeline(cb, produce);
  const XgpuBufferRef produce_bindings[3] = {xgpuBufferRefWhole(input), xgpuBufferRefWhole(iteration),
                                             scratch_slot};
  xgpuCmdBindBuffers(cb, 0, 3, produce_bindings);
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, workgroups, 1, 1);

  /* consume reads what produce wrote to scratch. */
  xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);

  xgpuCmdBindPipeline(cb, consume);
  const XgpuBufferRef consume_bindings[3] = {scratch_slot, xgpuBufferRefWhole(output),
                                             xgpuBufferRefWhole(iteration)};
  xgpuCmdBindBuffers(cb, 0, 3, consume_bindings);
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, workgroups, 1, 1);
  /* No barrier for the host: once the host has seen a submission's signal,
   * its writes are visible through mapped memory. */
  CHECK(xgpuEndCommandBuffer(cb));

  /* 8. One timeline semaphore chains every step of every iteration. */
  XgpuSemaphoreCreateInfo semaphore_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
      .initialValue = 0,
  };
  XgpuSemaphore timeline;
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, NULL, &timeline));

  /* 9. Queue every iteration without waiting on the host. Iteration k uses
   *    the values 3k -> 3k+1 -> 3k+2 -> 3k+3:
   *
   *      alloca    waits 3k,   signals 3k+1 (the memory is committed)
   *      submit    waits 3k+1, signals 3k+2 (the kernels ran)
   *      dealloca  waits 3k+2, signals 3k+3 (the memory is back in the pool)
   *
   *    The handle `scratch` is valid right away, so the submission's binding
   *    table can name it before its memory exists. After xgpuQueueDealloca
   *    the host no longer uses the handle. */
  uint64_t value = 0;
  for (uint32_t k = 0; k < ITERATION_COUNT; ++k) {
    uint64_t committed = value + 1, ran = value + 2, released = value + 3;

    XgpuBuffer scratch;
    XgpuSemaphoreList wait = {1, &timeline, &value};
    XgpuSemaphoreList signal = {1, &timeline, &committed};
    CHECK(xgpuQueueAlloca(queue, &wait, &signal, pool, SCRATCH_SIZE, XGPU_BUFFER_USAGE_STORAGE_BIT,
                          &scratch));

    const XgpuBufferBinding binding_table[1] = {{scratch, 0, XGPU_WHOLE_SIZE}};
    XgpuSubmitInfo submit_info = {
        .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
        .waitSemaphores = {1, &timeline, &committed},
        .commandBuffer = cb,
        .bindingCount = 1,
        .pBindings = binding_table,
        .signalSemaphores = {1, &timeline, &ran},
    };
    CHECK(xgpuQueueSubmit(queue, 1, &submit_info));

    wait = (XgpuSemaphoreList){1, &timeline, &ran};
    signal = (XgpuSemaphoreList){1, &timeline, &released};
    CHECK(xgpuQueueDealloca(queue, &wait, &signal, scratch));
    value = released;
  }

  /* The statistics while the chain may still be running... */
  XgpuMemoryPoolStatistics statistics;
  xgpuGetMemoryPoolStatistics(device, pool, &statistics);
  print_statistics("queued", &statistics);

  /* ...and the only host wait: for the last dealloca. */
  XgpuSemaphoreWaitInfo wait_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &timeline,
      .pValues = &value,
  };
  CHECK(xgpuWaitSemaphores(device, &wait_info, WAIT_TIMEOUT_NS));
  xgpuGetMemoryPoolStatistics(device, pool, &statistics);
  print_statistics("done", &statistics);

  /* 10. Check the results: output[i] is the sum of scratch_value over all
   *     iterations, and the counter saw every iteration. */
  if (*iteration_data != ITERATION_COUNT)
    FAIL("the kernels ran %u iterations, expected %u", *iteration_data, ITERATION_COUNT);
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) {
    uint32_t expected = 0;
    for (uint32_t k = 0; k < ITERATION_COUNT; ++k) expected += scratch_value(input_data[i], k);
    if (output_data[i] != expected)
      FAIL("output[%u] = %u, expected %u", i, output_data[i], expected);
  }

  /* 11. Check the reuse: at most one scratch buffer was live at a time, so the
   *     pool's peak is one iteration's scratch (plus the driver's rounding),
   *     not ITERATION_COUNT of them. */
  if (statistics.allocationCount != ITERATION_COUNT)
    FAIL("the pool counted %" PRIu64 " allocations, expected %u", statistics.allocationCount,
         ITERATION_COUNT);
  if (statistics.peakInUseSize < SCRATCH_SIZE || statistics.peakInUseSize >= 2 * SCRATCH_SIZE)
    FAIL("peak in use is %" PRIu64 " B; one iteration's scratch is %" PRIu64
         " B, so the memory was not reused", statistics.peakInUseSize, SCRATCH_SIZE);
  if (statistics.inUseSize != 0)
    FAIL("%" PRIu64 " B are still in use after the last dealloca", statistics.inUseSize);
  printf("%u iterations of %" PRIu64 " B scratch, peak in use %" PRIu64 " B (%.2fx one iteration): OK\n",
         ITERATION_COUNT, SCRATCH_SIZE, statistics.peakInUseSize,
         (double)statistics.peakInUseSize / (double)SCRATCH_SIZE);

  /* 12. Clean up, children before parents. Every dealloca has completed, so
   *     the pool holds no live allocation. */
  xgpuDestroySemaphore(device, timeline, NULL);
  xgpuDestroyCommandBuffer(device, cb, NULL);
  xgpuDestroyPipeline(device, consume, NULL);
  xgpuDestroyPipeline(device, produce, NULL);
  xgpuDestroyExecutable(device, executable, NULL);
  xgpuDestroyMemoryPool(device, pool, NULL);
  xgpuUnmapBuffer(device, iteration);
  xgpuUnmapBuffer(device, output);
  xgpuUnmapBuffer(device, input);
  xgpuDestroyBuffer(device, iteration, NULL);
  xgpuDestroyBuffer(device, output, NULL);
  xgpuDestroyBuffer(device, input, NULL);
  xgpuDestroyDevice(device, NULL);
  xgpuDestroyDebugMessenger(instance, messenger, NULL);
  xgpuDestroyInstance(instance, NULL);

  if (atomic_load(&debug_message_count) != 0)
    FAIL("%u debug messages were reported", atomic_load(&debug_message_count));
  return EXIT_SUCCESS;
}
