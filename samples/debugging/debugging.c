/*
 * debugging: printf and asserts in kernels, and what xgpu tells you when a
 * kernel faults or hangs.
 *
 *   print  `report` prints the first particles with xgpu_printf and checks
 *          each with xgpu_assert; the host put one particle below ground.
 *          The lines arrive as messages (XGPU-KERNEL-printf) when the
 *          submission completes, attributed to kernel, workgroup and work
 *          item; the failed assert (XGPU-KERNEL-assert) names the condition,
 *          file and line, and fails the submission's semaphore with
 *          XGPU_ERROR_KERNEL_ASSERT. The device lives on.
 *
 * Two kernels with a bug each:
 *
 *   fault  `integrate` checks its bound with `>` instead of `>=`, and the host
 *          rounds the workgroup count up, so one work item stores just past
 *          the end of buffer 'particles'. The device is lost; the message and
 *          xgpuGetDeviceFaultInfo name the queue, the submission, the command
 *          buffer, the command and the debug labels around it, the kernel, the
 *          address and the buffer it ran past ("4 bytes past the end of buffer
 *          'particles'") and, on the CPU device, the kernel's source line.
 *   hang   `wait_for_flag` waits for a word nobody writes. The driver's
 *          watchdog (XGPU_AMDGPU_WATCHDOG_MS, here 500 ms) loses the device;
 *          the report names the command that ran and for how long.
 *
 * A lost device cannot be used again: each part creates its own device and
 * destroys it after reading the report. The program checks each report and
 * exits non-zero when one is missing or wrong. Usage:
 *
 *   debugging [print|fault|hang|all] [path/to/debugging_kernels.xgpux]
 *
 * On an NVIDIA GPU (hsa-cuda) run each part in its own process: CUDA keeps a
 * device fault for the whole process, and cannot stop a hung kernel.
 */
#define _POSIX_C_SOURCE 200809L /* readlink, setenv */

#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xgpu/xgpu.h>
#include <xgpu/xgpu_enum_string.h>

#include "debugging_shared.h"

#define CHECK(call)                                                        \
  do {                                                                     \
    XgpuResult check_result_ = (call);                                     \
    if (check_result_ != XGPU_SUCCESS) {                                   \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
              xgpuResultString(check_result_));                            \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

#define FAIL(...)                 \
  do {                            \
    fprintf(stderr, "error: ");   \
    fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n");        \
    exit(EXIT_FAILURE);           \
  } while (0)

/* ---------------------------------------------------------------------------
 * Messages. The device-lost report arrives here as an ERROR message with the
 * ID XGPU-DRIVER-device-lost; anything else would be a mistake of this
 * program, so it is counted separately. The callback may run on any thread.
 * ------------------------------------------------------------------------- */

typedef struct message_counts {
  atomic_uint device_lost; /* XGPU-DRIVER-device-lost */
  atomic_uint printed;     /* XGPU-KERNEL-printf */
  atomic_uint asserted;    /* XGPU-KERNEL-assert */
  atomic_uint other;       /* anything else */
} message_counts_t;

static XgpuBool32 on_debug_message(XgpuDebugMessageSeverityFlagBits severity,
                                   XgpuDebugMessageTypeFlags types,
                                   const XgpuDebugMessageData* data, void* user_data) {
  (void)types;
  message_counts_t* counts = user_data;
  const char* id = data->pMessageIdName ? data->pMessageIdName : "-";
  if (strcmp(id, "XGPU-DRIVER-device-lost") == 0) {
    atomic_fetch_add(&counts->device_lost, 1u);
    printf("  message (%s): %s\n", id, data->pMessage);
  } else if (strcmp(id, "XGPU-KERNEL-printf") == 0 && severity == XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT) {
    atomic_fetch_add(&counts->printed, 1u);
    printf("  message (%s): %s\n", id, data->pMessage);
  } else if (strcmp(id, "XGPU-KERNEL-assert") == 0) {
    atomic_fetch_add(&counts->asserted, 1u);
    printf("  message (%s): %s\n", id, data->pMessage);
  } else {
    atomic_fetch_add(&counts->other, 1u);
    fprintf(stderr, "unexpected message (severity 0x%x) %s: %s\n", (unsigned)severity, id, data->pMessage);
  }
  return XGPU_FALSE;
}

/* ---------------------------------------------------------------------------
 * Set-up helpers.
 * ------------------------------------------------------------------------- */

enum {
  PARTICLE_COUNT = 1 << 20, /* 8 MiB of (x, y) floats */
};
static const uint64_t WAIT_TIMEOUT_NS = 60ull * 1000 * 1000 * 1000; /* fail instead of hanging */

typedef struct context {
  XgpuPhysicalDevice physical_device;
  uint32_t queue_family;
  const char* kernels_path;
} context_t;

static XgpuDevice create_device(const context_t* context, XgpuQueue* out_queue) {
  XgpuDeviceQueueCreateInfo queue_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = context->queue_family,
      .queueCount = 1,
  };
  XgpuDeviceCreateInfo device_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &queue_info,
  };
  XgpuDevice device;
  CHECK(xgpuCreateDevice(context->physical_device, &device_info, NULL, &device));
  xgpuGetDeviceQueue(device, context->queue_family, 0, out_queue);
  return device;
}

static uint32_t host_visible_type(XgpuPhysicalDevice physical_device) {
  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if (memory.memoryTypes[i].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) return i;
  FAIL("the device has no host-visible memory type");
}

/* Gives an object a debug name: reports call it by that name. */
static void set_name(XgpuDevice device, XgpuObjectType type, const void* handle, const char* name) {
  XgpuDebugObjectNameInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO,
      .objectType = type,
      .objectHandle = (uint64_t)(uintptr_t)handle,
      .pObjectName = name,
  };
  CHECK(xgpuSetObjectName(device, &info));
}

static XgpuPipeline create_pipeline(XgpuDevice device, XgpuExecutable executable, const char* entry_point) {
  XgpuPipelineCreateInfo info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = executable,
      .pEntryPoint = entry_point,
      .workgroupSize = {DEBUGGING_WORKGROUP_SIZE, 1, 1},
  };
  XgpuPipeline pipeline;
  CHECK(xgpuCreatePipeline(device, &info, NULL, &pipeline));
  return pipeline;
}

static XgpuCommandBuffer begin_one_shot(XgpuDevice device) {
  XgpuCommandBufferCreateInfo create = {.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO};
  XgpuCommandBuffer cb;
  CHECK(xgpuCreateCommandBuffer(device, &create, NULL, &cb));
  XgpuCommandBufferBeginInfo begin = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT,
  };
  CHECK(xgpuBeginCommandBuffer(cb, &begin));
  return cb;
}

static void begin_label(XgpuCommandBuffer cb, const char* name) {
  XgpuDebugLabel label = {.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL, .pLabelName = name};
  xgpuCmdBeginDebugLabel(cb, &label);
}

/* Submits `cb` and waits for it: the bug makes the wait fail with
 * XGPU_ERROR_DEVICE_LOST. */
static void submit_and_expect_loss(XgpuDevice device, XgpuQueue queue, XgpuCommandBuffer cb) {
  XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  XgpuSemaphore done;
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, NULL, &done));
  const uint64_t one = 1;
  XgpuSubmitInfo submit = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBuffer = cb,
      .signalSemaphores = {.count = 1, .pSemaphores = &done, .pValues = &one},
  };
  CHECK(xgpuQueueSubmit(queue, 1, &submit));
  XgpuSemaphoreWaitInfo wait = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &done,
      .pValues = &one,
  };
  const XgpuResult waited = xgpuWaitSemaphores(device, &wait, WAIT_TIMEOUT_NS);
  if (waited != XGPU_ERROR_DEVICE_LOST) FAIL("the wait returned %s, not XGPU_ERROR_DEVICE_LOST", xgpuResultString(waited));
  xgpuDestroySemaphore(device, done, NULL);
}

/* Prints what xgpuGetDeviceFaultInfo says, field by field. */
static void print_fault_info(const XgpuDeviceFaultInfo* info) {
  printf("  xgpuGetDeviceFaultInfo:\n");
  printf("    kind           %s\n", xgpuDeviceFaultKindString(info->kind));
  printf("    queue          %u, submission %" PRIu64 "\n", info->queueIndex, info->submissionIndex);
  printf("    command buffer '%s', command %u (%s), labels %s\n", info->commandBufferName, info->commandIndex,
         info->command, info->labels[0] ? info->labels : "(none)");
  printf("    kernel         %s\n", info->kernelName);
  if (info->addressValid) {
    printf("    address        0x%" PRIx64 " (%s, %s)\n", info->address, xgpuDeviceFaultAccessString(info->access),
           xgpuDeviceFaultAddressRelationString(info->addressRelation));
    printf("    buffer         '%s' (%" PRIu64 " bytes), offset %" PRIu64 "\n", info->bufferName, info->bufferSize,
           info->bufferOffset);
  }
  if (info->sourceFile[0])
    printf("    source         %s:%u:%u (%s)\n", info->sourceFile, info->sourceLine, info->sourceColumn,
           info->function);
  if (info->kind == XGPU_DEVICE_FAULT_KIND_HANG)
    printf("    ran            %.1f ms\n", (double)info->runTimeNs / 1e6);
}

/* ---------------------------------------------------------------------------
 * Part 1: a kernel prints and asserts.
 * ------------------------------------------------------------------------- */

static void print(const context_t* context, message_counts_t* counts) {
  printf("print: a kernel prints four particles and asserts that all are above ground\n");
  XgpuQueue queue;
  XgpuDevice device = create_device(context, &queue);
  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = context->kernels_path,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(device, &executable_info, NULL, &executable));
  XgpuPipelineCreateInfo pipeline_info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = executable,
      .pEntryPoint = "report",
      .workgroupSize = {DEBUGGING_WORKGROUP_SIZE, 1, 1},
  };
  XgpuPipeline pipeline;
  CHECK(xgpuCreatePipeline(device, &pipeline_info, NULL, &pipeline));
  enum { COUNT = 4096, BELOW_GROUND = 1000 };
  XgpuBufferCreateInfo buffer_info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = COUNT * 2 * sizeof(float),
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = host_visible_type(context->physical_device),
  };
  XgpuBuffer particles;
  CHECK(xgpuCreateBuffer(device, &buffer_info, NULL, &particles));
  float* positions;
  CHECK(xgpuMapBuffer(device, particles, 0, XGPU_WHOLE_SIZE, (void**)&positions));
  for (uint32_t i = 0; i < COUNT; ++i) {
    positions[2 * i] = 0.0f;
    positions[2 * i + 1] = (float)i * 0.25f;
  }
  positions[2 * BELOW_GROUND + 1] = -1.0f; /* the one the assert catches */

  XgpuCommandBuffer cb = begin_one_shot(device);
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef ref = xgpuBufferRefWhole(particles);
  xgpuCmdBindBuffers(cb, 0, 1, &ref);
  const integrate_constants_t constants = {.particle_count = COUNT};
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, COUNT / DEBUGGING_WORKGROUP_SIZE, 1, 1);
  CHECK(xgpuEndCommandBuffer(cb));

  XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  XgpuSemaphore done;
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, NULL, &done));
  const uint64_t one = 1;
  XgpuSubmitInfo submit = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBuffer = cb,
      .signalSemaphores = {.count = 1, .pSemaphores = &done, .pValues = &one},
  };
  CHECK(xgpuQueueSubmit(queue, 1, &submit));
  XgpuSemaphoreWaitInfo wait = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &done,
      .pValues = &one,
  };
  /* The assert failed: the semaphore is failed, not signalled. */
  const XgpuResult waited = xgpuWaitSemaphores(device, &wait, WAIT_TIMEOUT_NS);
  if (waited != XGPU_ERROR_KERNEL_ASSERT) FAIL("the wait returned %s, not XGPU_ERROR_KERNEL_ASSERT", xgpuResultString(waited));
  if (atomic_load(&counts->printed) != 4) FAIL("expected 4 printed lines, got %u", atomic_load(&counts->printed));
  if (atomic_load(&counts->asserted) != 1) FAIL("expected 1 failed assert, got %u", atomic_load(&counts->asserted));
  /* The device is not lost. */
  CHECK(xgpuDeviceWaitIdle(device));

  xgpuDestroySemaphore(device, done, NULL);
  xgpuDestroyCommandBuffer(device, cb, NULL);
  xgpuDestroyBuffer(device, particles, NULL);
  xgpuDestroyPipeline(device, pipeline, NULL);
  xgpuDestroyExecutable(device, executable, NULL);
  xgpuDestroyDevice(device, NULL);
}

/* ---------------------------------------------------------------------------
 * Part 2: a kernel stores past the end of a buffer.
 * ------------------------------------------------------------------------- */

static void fault(const context_t* context, message_counts_t* counts) {
  printf("fault: a kernel stores past the end of buffer 'particles'\n");
  XgpuQueue queue;
  XgpuDevice device = create_device(context, &queue);
  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = context->kernels_path,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(device, &executable_info, NULL, &executable));
  XgpuPipeline pipeline = create_pipeline(device, executable, "integrate");

  /* The buffer: PARTICLE_COUNT (x, y) pairs, named for the reports. */
  XgpuBufferCreateInfo buffer_info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = (XgpuDeviceSize)PARTICLE_COUNT * 2 * sizeof(float),
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = host_visible_type(context->physical_device),
  };
  XgpuBuffer particles;
  CHECK(xgpuCreateBuffer(device, &buffer_info, NULL, &particles));
  set_name(device, XGPU_OBJECT_TYPE_BUFFER, particles, "particles");
  void* data;
  CHECK(xgpuMapBuffer(device, particles, 0, XGPU_WHOLE_SIZE, &data));
  memset(data, 0, buffer_info.size);

  /* The command buffer, named, with its dispatch inside two debug labels. */
  XgpuCommandBuffer cb = begin_one_shot(device);
  set_name(device, XGPU_OBJECT_TYPE_COMMAND_BUFFER, cb, "simulation step");
  begin_label(cb, "frame 1");
  begin_label(cb, "physics");
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef ref = xgpuBufferRefWhole(particles);
  xgpuCmdBindBuffers(cb, 0, 1, &ref);
  const integrate_constants_t constants = {.particle_count = PARTICLE_COUNT, .dt = 1.0f / 60.0f};
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  /* The second bug: count / size + 1 rounds up even when the count divides
   * evenly, so one workgroup more runs than there are particles. */
  xgpuCmdDispatch(cb, PARTICLE_COUNT / DEBUGGING_WORKGROUP_SIZE + 1, 1, 1);
  xgpuCmdEndDebugLabel(cb);
  xgpuCmdEndDebugLabel(cb);
  CHECK(xgpuEndCommandBuffer(cb));

  submit_and_expect_loss(device, queue, cb);

  /* The same facts as the message, as fields. */
  XgpuDeviceFaultInfo info;
  CHECK(xgpuGetDeviceFaultInfo(device, &info));
  print_fault_info(&info);
  if (info.kind != XGPU_DEVICE_FAULT_KIND_MEMORY) FAIL("expected a memory fault");
  if (strcmp(info.kernelName, "integrate") != 0) FAIL("the report names kernel '%s'", info.kernelName);
  if (strcmp(info.commandBufferName, "simulation step") != 0) FAIL("the report names command buffer '%s'", info.commandBufferName);
  /* Where the runtime reports the address (every runtime xgpu ships does). */
  if (info.addressValid &&
      (info.addressRelation != XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END || strcmp(info.bufferName, "particles") != 0 ||
       info.bufferOffset >= 8))
    FAIL("the report does not place the address just past the end of 'particles'");
  if (atomic_load(&counts->device_lost) != 1) FAIL("expected one device-lost message");

  /* A lost device still retires what it abandoned: wait for that (it
   * returns XGPU_ERROR_DEVICE_LOST, in bounded time) before destroying
   * what the work used. */
  (void)xgpuDeviceWaitIdle(device);
  xgpuDestroyCommandBuffer(device, cb, NULL);
  xgpuDestroyBuffer(device, particles, NULL);
  xgpuDestroyPipeline(device, pipeline, NULL);
  xgpuDestroyExecutable(device, executable, NULL);
  xgpuDestroyDevice(device, NULL);
}

/* ---------------------------------------------------------------------------
 * Part 3: a kernel never ends.
 * ------------------------------------------------------------------------- */

static void hang(const context_t* context, message_counts_t* counts) {
  printf("hang: a kernel waits for a flag nobody sets\n");
  /* The AMDGPU driver's watchdog: an operation that runs this long without
   * finishing loses the device (default 60 s; read at device creation). */
  setenv("XGPU_AMDGPU_WATCHDOG_MS", "500", 1);
  XgpuQueue queue;
  XgpuDevice device = create_device(context, &queue);
  unsetenv("XGPU_AMDGPU_WATCHDOG_MS");
  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = context->kernels_path,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(device, &executable_info, NULL, &executable));
  XgpuPipeline pipeline = create_pipeline(device, executable, "wait_for_flag");
  XgpuBufferCreateInfo buffer_info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = 64,
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = host_visible_type(context->physical_device),
  };
  XgpuBuffer flag;
  CHECK(xgpuCreateBuffer(device, &buffer_info, NULL, &flag));
  void* data;
  CHECK(xgpuMapBuffer(device, flag, 0, XGPU_WHOLE_SIZE, &data));
  memset(data, 0, 64);

  XgpuCommandBuffer cb = begin_one_shot(device);
  set_name(device, XGPU_OBJECT_TYPE_COMMAND_BUFFER, cb, "wait for upload");
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef ref = xgpuBufferRefWhole(flag);
  xgpuCmdBindBuffers(cb, 0, 1, &ref);
  const wait_constants_t constants = {.expected = 1};
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, 1, 1, 1);
  CHECK(xgpuEndCommandBuffer(cb));

  submit_and_expect_loss(device, queue, cb);

  XgpuDeviceFaultInfo info;
  CHECK(xgpuGetDeviceFaultInfo(device, &info));
  print_fault_info(&info);
  if (info.kind != XGPU_DEVICE_FAULT_KIND_HANG) FAIL("expected a hang");
  if (strcmp(info.kernelName, "wait_for_flag") != 0) FAIL("the report names kernel '%s'", info.kernelName);
  if (info.runTimeNs < 500ull * 1000 * 1000) FAIL("the report says the kernel ran %" PRIu64 " ns", info.runTimeNs);
  if (atomic_load(&counts->device_lost) != 1) FAIL("expected one device-lost message");

  /* A lost device still retires what it abandoned: wait for that (it
   * returns XGPU_ERROR_DEVICE_LOST, in bounded time) before destroying
   * what the work used. */
  (void)xgpuDeviceWaitIdle(device);
  xgpuDestroyCommandBuffer(device, cb, NULL);
  xgpuDestroyBuffer(device, flag, NULL);
  xgpuDestroyPipeline(device, pipeline, NULL);
  xgpuDestroyExecutable(device, executable, NULL);
  xgpuDestroyDevice(device, NULL);
}

/* The kernels live in debugging_kernels.xgpux next to this program. */
static void default_kernels_path(char* path, size_t capacity) {
  ssize_t length = readlink("/proc/self/exe", path, capacity - 1);
  if (length <= 0) FAIL("cannot locate the executable (pass the kernels path as argv[2])");
  path[length] = '\0';
  char* slash = strrchr(path, '/');
  size_t directory_length = slash ? (size_t)(slash - path) : 0;
  const char* file = "/debugging_kernels.xgpux";
  if (directory_length + strlen(file) + 1 > capacity) FAIL("path too long: %s", path);
  strcpy(path + directory_length, file);
}

int main(int argc, char** argv) {
  const char* part = argc > 1 ? argv[1] : "all";
  const int all = strcmp(part, "all") == 0;
  if (!all && strcmp(part, "print") != 0 && strcmp(part, "fault") != 0 && strcmp(part, "hang") != 0)
    FAIL("usage: debugging [print|fault|hang|all] [path/to/debugging_kernels.xgpux]");
  char kernels_path[4096];
  if (argc > 2) {
    snprintf(kernels_path, sizeof kernels_path, "%s", argv[2]);
  } else {
    default_kernels_path(kernels_path, sizeof kernels_path);
  }

  XgpuApplicationInfo app_info = {
      .sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "debugging",
      .apiVersion = XGPU_API_VERSION_1_0,
  };
  XgpuInstanceCreateInfo instance_info = {
      .sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app_info,
  };
  XgpuInstance instance;
  CHECK(xgpuCreateInstance(&instance_info, NULL, &instance));
  message_counts_t counts;
  atomic_init(&counts.device_lost, 0u);
  atomic_init(&counts.printed, 0u);
  atomic_init(&counts.asserted, 0u);
  atomic_init(&counts.other, 0u);
  XgpuDebugMessengerCreateInfo messenger_info = {
      .sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO,
      .messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT |
                         XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
      .messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                     XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT,
      .pfnUserCallback = on_debug_message,
      .pUserData = &counts,
  };
  XgpuDebugMessenger messenger;
  CHECK(xgpuCreateDebugMessenger(instance, &messenger_info, NULL, &messenger));

  context_t context = {.kernels_path = kernels_path};
  uint32_t device_count = 1;
  XgpuResult enumerate = xgpuEnumeratePhysicalDevices(instance, &device_count, &context.physical_device);
  if (enumerate != XGPU_INCOMPLETE) CHECK(enumerate);
  if (device_count == 0) FAIL("no xgpu device found (is a driver installed? see XGPU_DRIVER_FILES)");
  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(context.physical_device, &properties);
  printf("device: %s (%s)\n", properties.deviceName, properties.isaName);
  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(context.physical_device, &family_count, families);
  context.queue_family = family_count;
  for (uint32_t i = 0; i < family_count && context.queue_family == family_count; ++i)
    if (families[i].queueFlags & XGPU_QUEUE_COMPUTE_BIT) context.queue_family = i;
  if (context.queue_family == family_count) FAIL("the device has no compute queue family");

  if (all || strcmp(part, "print") == 0) print(&context, &counts);
  if (all || strcmp(part, "fault") == 0) {
    fault(&context, &counts);
    atomic_store(&counts.device_lost, 0u);
  }
  if (all || strcmp(part, "hang") == 0) hang(&context, &counts);
  if (atomic_load(&counts.other) != 0) FAIL("%u unexpected messages", atomic_load(&counts.other));

  xgpuDestroyDebugMessenger(instance, messenger, NULL);
  xgpuDestroyInstance(instance, NULL);
  printf("ok: each report named the kernel and what it did\n");
  return EXIT_SUCCESS;
}
