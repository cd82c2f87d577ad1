/*
 * multi_device: one workload split over every device the instance offers.
 *
 * The input (ELEMENT_COUNT hashed values) is cut into one share per device.
 * Every device, on its own queue and in one command buffer:
 *
 *   1. zeroes its 256 bins              (xgpuCmdFillBuffer)
 *   2. uploads its share                (xgpuCmdCopyBuffer, host-visible staging -> device-local)
 *   3. counts the share into the bins   (the `histogram` kernel)
 *   4. copies the bins back             (xgpuCmdCopyBuffer, device-local -> host-visible)
 *
 * and signals its own timeline semaphore `done[d]` to 1. The devices run at
 * the same time; nothing orders one device's work after another's.
 *
 * The join: device 0's queue receives a submission without a command buffer
 * that waits for `done[d]` of every device whose driver and HSA runtime it
 * shares (a semaphore of another device is legal there: api.md §10,
 * "Sharing"), and signals `joined`. The host then waits for `joined` alone
 * (and, for a device of another driver, for its `done[d]` itself), adds the
 * devices' bins and checks them against a count made on the CPU, and each
 * device's total against its share.
 *
 * It runs unchanged on one device, on two GPUs, and on the CPU device with
 * two agents (HSA_CPU_AGENTS=2: two physical devices). Usage:
 *
 *   multi_device [path/to/multi_device_kernels.xgpux]
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

#include "multi_device_shared.h"

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

/* Errors and warnings from the driver and the layers arrive here; a valid
 * program receives none. The callback may run on any thread. */
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
  ELEMENT_COUNT = 1 << 22, /* values of the whole input (16 MiB) */
  MAX_DEVICES = 16,        /* the most devices the sample uses */
};
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

/* The kernels live in multi_device_kernels.xgpux next to this program. */
static void default_kernels_path(char* path, size_t capacity) {
  ssize_t length = readlink("/proc/self/exe", path, capacity - 1);
  if (length <= 0) FAIL("cannot locate the executable (pass the kernels path as argv[1])");
  path[length] = '\0';
  char* slash = strrchr(path, '/');
  size_t directory_length = slash ? (size_t)(slash - path) : 0;
  const char* file = "/multi_device_kernels.xgpux";
  if (directory_length + strlen(file) + 1 > capacity) FAIL("path too long: %s", path);
  strcpy(path + directory_length, file);
}

/* Everything one device needs. */
typedef struct device_work {
  XgpuPhysicalDeviceProperties properties;
  XgpuDevice device;
  XgpuQueue queue;
  XgpuExecutable executable;
  XgpuPipeline pipeline;
  XgpuBuffer staging;  /* host-visible: the share, written by the host */
  XgpuBuffer values;   /* device-local: the share, where the kernel reads it */
  XgpuBuffer bins;     /* device-local: the counts */
  XgpuBuffer readback; /* host-visible: the counts, copied back */
  uint32_t* staging_data;
  uint32_t* readback_data;
  XgpuCommandBuffer cb;
  XgpuSemaphore done;  /* 1 once the device's counts are in readback */
  uint32_t first;      /* the share: elements first .. first + count - 1 */
  uint32_t count;
} device_work_t;

/* Creates device d's objects and records its command buffer. */
static void prepare_device(device_work_t* w, XgpuPhysicalDevice physical_device, const char* kernels_path) {
  xgpuGetPhysicalDeviceProperties(physical_device, &w->properties);

  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families);
  uint32_t queue_family = family_count;
  for (uint32_t i = 0; i < family_count && queue_family == family_count; ++i)
    if (families[i].queueFlags & XGPU_QUEUE_COMPUTE_BIT) queue_family = i;
  if (queue_family == family_count) FAIL("%s has no compute queue family", w->properties.deviceName);

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
  CHECK(xgpuCreateDevice(physical_device, &device_info, NULL, &w->device));
  xgpuGetDeviceQueue(w->device, queue_family, 0, &w->queue);

  /* Staging and readback in host-visible memory (the host writes and reads
   * them through a mapping); the kernel's buffers in device-local memory
   * where the device has it (on the CPU device every type is both). */
  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  const uint32_t host_memory = find_memory_type(
      &memory, XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
  const uint32_t device_memory = find_memory_type(&memory, 0, XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  const XgpuDeviceSize share_size = (XgpuDeviceSize)(w->count ? w->count : 1) * sizeof(uint32_t);
  const XgpuDeviceSize bins_size = MULTI_DEVICE_BINS * sizeof(uint32_t);
  w->staging = create_buffer(w->device, share_size, XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT, host_memory);
  w->values = create_buffer(w->device, share_size,
                            XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, device_memory);
  w->bins = create_buffer(w->device, bins_size,
                          XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT |
                              XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                          device_memory);
  w->readback = create_buffer(w->device, bins_size, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, host_memory);
  CHECK(xgpuMapBuffer(w->device, w->staging, 0, XGPU_WHOLE_SIZE, (void**)&w->staging_data));
  CHECK(xgpuMapBuffer(w->device, w->readback, 0, XGPU_WHOLE_SIZE, (void**)&w->readback_data));
  for (uint32_t i = 0; i < w->count; ++i) w->staging_data[i] = multi_device_value(w->first + i);
  memset(w->readback_data, 0xff, bins_size); /* anything the copy must overwrite */

  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = kernels_path,
  };
  CHECK(xgpuCreateExecutable(w->device, &executable_info, NULL, &w->executable));
  XgpuPipelineCreateInfo pipeline_info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = w->executable,
      .pEntryPoint = "histogram",
      .workgroupSize = {MULTI_DEVICE_WORKGROUP_SIZE, 1, 1},
  };
  CHECK(xgpuCreatePipeline(w->device, &pipeline_info, NULL, &w->pipeline));

  /* The device's whole part, in one command buffer. */
  XgpuCommandBufferCreateInfo cb_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO,
      .queueFamilyIndex = queue_family,
  };
  CHECK(xgpuCreateCommandBuffer(w->device, &cb_info, NULL, &w->cb));
  XgpuCommandBufferBeginInfo begin_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT,
  };
  CHECK(xgpuBeginCommandBuffer(w->cb, &begin_info));
  const XgpuBufferRef staging = xgpuBufferRefWhole(w->staging);
  const XgpuBufferRef values = xgpuBufferRefWhole(w->values);
  const XgpuBufferRef bins = xgpuBufferRefWhole(w->bins);
  const XgpuBufferRef readback = xgpuBufferRefWhole(w->readback);
  const uint32_t zero = 0;
  xgpuCmdFillBuffer(w->cb, &bins, &zero, sizeof zero);
  if (w->count) xgpuCmdCopyBuffer(w->cb, &staging, &values, share_size);
  /* The kernel reads the uploaded values and adds to the zeroed bins. */
  xgpuCmdMemoryBarrier(w->cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
  if (w->count) {
    xgpuCmdBindPipeline(w->cb, w->pipeline);
    const XgpuBufferRef bindings[2] = {values, bins};
    xgpuCmdBindBuffers(w->cb, 0, 2, bindings);
    const multi_device_constants_t constants = {w->count, 0};
    xgpuCmdPushConstants(w->cb, 0, sizeof constants, &constants);
    xgpuCmdDispatch(w->cb, (w->count + MULTI_DEVICE_WORKGROUP_SIZE - 1) / MULTI_DEVICE_WORKGROUP_SIZE, 1, 1);
  }
  /* The copy back reads the counts; the host reads the copy once `done`
   * says so. */
  xgpuCmdMemoryBarrier(w->cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_READ_BIT);
  xgpuCmdCopyBuffer(w->cb, &bins, &readback, bins_size);
  xgpuCmdMemoryBarrier(w->cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_HOST_BIT, XGPU_ACCESS_HOST_READ_BIT);
  CHECK(xgpuEndCommandBuffer(w->cb));

  XgpuSemaphoreCreateInfo semaphore_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
      .initialValue = 0,
  };
  CHECK(xgpuCreateSemaphore(w->device, &semaphore_info, NULL, &w->done));
}

static void destroy_device(device_work_t* w) {
  xgpuDestroySemaphore(w->device, w->done, NULL);
  xgpuDestroyCommandBuffer(w->device, w->cb, NULL);
  xgpuDestroyPipeline(w->device, w->pipeline, NULL);
  xgpuDestroyExecutable(w->device, w->executable, NULL);
  xgpuUnmapBuffer(w->device, w->readback);
  xgpuUnmapBuffer(w->device, w->staging);
  xgpuDestroyBuffer(w->device, w->readback, NULL);
  xgpuDestroyBuffer(w->device, w->bins, NULL);
  xgpuDestroyBuffer(w->device, w->values, NULL);
  xgpuDestroyBuffer(w->device, w->staging, NULL);
  xgpuDestroyDevice(w->device, NULL);
}

/* Whether queues of `a`'s device may wait for semaphores of `b`'s. */
static int share_semaphores(const XgpuPhysicalDeviceProperties* a, const XgpuPhysicalDeviceProperties* b) {
  return strcmp(a->driverName, b->driverName) == 0 && strcmp(a->runtimeName, b->runtimeName) == 0;
}

static device_work_t work[MAX_DEVICES];

int main(int argc, char** argv) {
  char kernels_path[4096];
  if (argc > 1) {
    snprintf(kernels_path, sizeof kernels_path, "%s", argv[1]);
  } else {
    default_kernels_path(kernels_path, sizeof kernels_path);
  }

  /* 1. An instance and a messenger. */
  XgpuApplicationInfo app_info = {
      .sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "multi_device",
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

  /* 2. Every physical device (up to MAX_DEVICES), each with an equal share
   *    of the input (the first ones one element more when it does not
   *    divide). */
  XgpuPhysicalDevice physical_devices[MAX_DEVICES];
  uint32_t device_count = MAX_DEVICES;
  XgpuResult enumerate = xgpuEnumeratePhysicalDevices(instance, &device_count, physical_devices);
  if (enumerate != XGPU_INCOMPLETE) CHECK(enumerate);
  if (device_count == 0) FAIL("no xgpu device found (is a driver installed? see XGPU_DRIVER_FILES)");
  uint32_t first = 0;
  for (uint32_t d = 0; d < device_count; ++d) {
    work[d].first = first;
    work[d].count = ELEMENT_COUNT / device_count + (d < ELEMENT_COUNT % device_count ? 1u : 0u);
    first += work[d].count;
    prepare_device(&work[d], physical_devices[d], kernels_path);
    printf("device %u: %s (%s), elements %u .. %u\n", d, work[d].properties.deviceName,
           work[d].properties.isaName, work[d].first, work[d].first + work[d].count - 1);
  }

  /* 3. Start every device: each submission signals its device's `done`. */
  const uint64_t one = 1;
  for (uint32_t d = 0; d < device_count; ++d) {
    XgpuSubmitInfo submit_info = {
        .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBuffer = work[d].cb,
        .signalSemaphores = {1, &work[d].done, &one},
    };
    CHECK(xgpuQueueSubmit(work[d].queue, 1, &submit_info));
  }

  /* 4. The join on device 0's queue: no commands, only waits for the
   *    `done` of every device that shares its driver and runtime, then
   *    `joined`. A device of another driver is waited for by the host. */
  XgpuSemaphore waits[MAX_DEVICES];
  uint64_t wait_values[MAX_DEVICES];
  uint32_t wait_count = 0;
  for (uint32_t d = 0; d < device_count; ++d)
    if (share_semaphores(&work[0].properties, &work[d].properties)) {
      waits[wait_count] = work[d].done;
      wait_values[wait_count++] = 1;
    }
  XgpuSemaphoreCreateInfo semaphore_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
      .initialValue = 0,
  };
  XgpuSemaphore joined;
  CHECK(xgpuCreateSemaphore(work[0].device, &semaphore_info, NULL, &joined));
  XgpuSubmitInfo join_info = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphores = {wait_count, waits, wait_values},
      .commandBuffer = XGPU_NULL_HANDLE,
      .signalSemaphores = {1, &joined, &one},
  };
  CHECK(xgpuQueueSubmit(work[0].queue, 1, &join_info));

  /* 5. The host waits for `joined` (every device device 0 waited for is
   *    done, and their copies are visible: each `done` was signalled after
   *    its device's copy, `joined` after those waits), and for the others. */
  XgpuSemaphoreWaitInfo wait_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &joined,
      .pValues = &one,
  };
  CHECK(xgpuWaitSemaphores(work[0].device, &wait_info, WAIT_TIMEOUT_NS));
  for (uint32_t d = 0; d < device_count; ++d) {
    if (share_semaphores(&work[0].properties, &work[d].properties)) continue;
    wait_info.pSemaphores = &work[d].done;
    CHECK(xgpuWaitSemaphores(work[d].device, &wait_info, WAIT_TIMEOUT_NS));
  }

  /* 6. Check: each device counted its share, and the devices' bins add up
   *    to a count of the whole input made here. */
  static uint32_t expected[MULTI_DEVICE_BINS];
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) ++expected[multi_device_bin(multi_device_value(i))];
  uint32_t total[MULTI_DEVICE_BINS] = {0};
  for (uint32_t d = 0; d < device_count; ++d) {
    uint64_t counted = 0;
    for (uint32_t b = 0; b < MULTI_DEVICE_BINS; ++b) {
      counted += work[d].readback_data[b];
      total[b] += work[d].readback_data[b];
    }
    if (counted != work[d].count)
      FAIL("device %u counted %" PRIu64 " elements, its share is %u", d, counted, work[d].count);
  }
  for (uint32_t b = 0; b < MULTI_DEVICE_BINS; ++b)
    if (total[b] != expected[b]) FAIL("bin %u holds %u, expected %u", b, total[b], expected[b]);
  printf("%u elements over %u device(s), joined on device 0's queue (%u semaphore wait(s)): OK\n",
         (unsigned)ELEMENT_COUNT, device_count, wait_count);

  /* 7. Clean up: every submission has completed. */
  xgpuDestroySemaphore(work[0].device, joined, NULL);
  for (uint32_t d = 0; d < device_count; ++d) destroy_device(&work[d]);
  xgpuDestroyDebugMessenger(instance, messenger, NULL);
  xgpuDestroyInstance(instance, NULL);

  if (atomic_load(&debug_message_count) != 0)
    FAIL("%u debug messages were reported", atomic_load(&debug_message_count));
  return EXIT_SUCCESS;
}
