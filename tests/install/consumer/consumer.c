/*
 * consumer: the smallest complete xgpu program, built outside xgpu's tree
 * against an installed xgpu (find_package or pkg-config). One saxpy dispatch,
 * checked on the host.
 *
 *   consumer [path/to/consumer_kernels.xgpux]
 *
 * Without an argument the kernels are loaded from consumer_kernels.xgpux
 * beside the executable. With CONSUMER_USE_META_LOADER the program goes
 * through the meta-loader (xgpu_meta.h) instead of linking libxgpu.
 * Prints "consumer: <device>: <n> elements: OK" and exits 0 when the result
 * is right; otherwise says what failed on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L /* readlink */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CONSUMER_USE_META_LOADER
#include <xgpu/xgpu_meta.h>
#define CONSUMER_LOADER "meta-loader"
#else
#include <xgpu/xgpu.h>
#define CONSUMER_LOADER "libxgpu"
#endif

#include "consumer_shared.h"

#define CHECK(call)                                                                     \
  do {                                                                                  \
    XgpuResult check_result_ = (call);                                                  \
    if (check_result_ != XGPU_SUCCESS) {                                                \
      fprintf(stderr, "consumer: %s failed: XgpuResult %d\n", #call, (int)check_result_); \
      exit(EXIT_FAILURE);                                                               \
    }                                                                                   \
  } while (0)

#define FAIL(...)                       \
  do {                                  \
    fprintf(stderr, "consumer: ");      \
    fprintf(stderr, __VA_ARGS__);       \
    fprintf(stderr, "\n");              \
    exit(EXIT_FAILURE);                 \
  } while (0)

enum { ELEMENT_COUNT = 4096 };
static const float SCALE = 3.0f;
static const uint64_t WAIT_TIMEOUT_NS = 60ull * 1000 * 1000 * 1000;

/* consumer_kernels.xgpux in the executable's folder. */
static void default_kernels_path(char* path, size_t capacity) {
  ssize_t length = readlink("/proc/self/exe", path, capacity - 1);
  if (length <= 0) FAIL("cannot locate the executable (pass the kernels path as argv[1])");
  path[length] = '\0';
  char* slash = strrchr(path, '/');
  size_t directory_length = slash ? (size_t)(slash - path) : 0;
  const char* file = "/consumer_kernels.xgpux";
  if (directory_length + strlen(file) + 1 > capacity) FAIL("path too long: %s", path);
  strcpy(path + directory_length, file);
}

int main(int argc, char** argv) {
  char kernels_path[4096];
  if (argc > 1) {
    snprintf(kernels_path, sizeof kernels_path, "%s", argv[1]);
  } else {
    default_kernels_path(kernels_path, sizeof kernels_path);
  }

#ifdef CONSUMER_USE_META_LOADER
  if (xgpumetaInitialize() != XGPU_SUCCESS) FAIL("xgpumetaInitialize: %s", xgpumetaInitializeError());
#endif

  XgpuApplicationInfo app_info = {
      .sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "consumer",
      .apiVersion = XGPU_API_VERSION_1_0,
  };
  XgpuInstanceCreateInfo instance_info = {
      .sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app_info,
  };
  XgpuInstance instance;
  CHECK(xgpuCreateInstance(&instance_info, NULL, &instance));
#ifdef CONSUMER_USE_META_LOADER
  xgpumetaLoadInstance(instance);
#endif

  uint32_t device_count = 1;
  XgpuPhysicalDevice physical_device = XGPU_NULL_HANDLE;
  XgpuResult enumerate = xgpuEnumeratePhysicalDevices(instance, &device_count, &physical_device);
  if (enumerate != XGPU_INCOMPLETE) CHECK(enumerate);
  if (device_count == 0) FAIL("no xgpu device found: the loader found no usable driver");
  XgpuPhysicalDeviceProperties properties;
  xgpuGetPhysicalDeviceProperties(physical_device, &properties);

  XgpuQueueFamilyProperties families[8];
  uint32_t family_count = 8;
  xgpuGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families);
  uint32_t queue_family = family_count;
  for (uint32_t i = 0; i < family_count && queue_family == family_count; ++i)
    if (families[i].queueFlags & XGPU_QUEUE_COMPUTE_BIT) queue_family = i;
  if (queue_family == family_count) FAIL("the device has no compute queue family");

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
#ifdef CONSUMER_USE_META_LOADER
  xgpumetaLoadDevice(device);
#endif
  XgpuQueue queue;
  xgpuGetDeviceQueue(device, queue_family, 0, &queue);

  /* x and y in host-visible memory, filled and checked through mappings. */
  XgpuPhysicalDeviceMemoryProperties memory;
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  const XgpuMemoryPropertyFlags host_visible =
      XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t memory_type = memory.memoryTypeCount;
  for (uint32_t i = 0; i < memory.memoryTypeCount && memory_type == memory.memoryTypeCount; ++i)
    if ((memory.memoryTypes[i].propertyFlags & host_visible) == host_visible) memory_type = i;
  if (memory_type == memory.memoryTypeCount) FAIL("the device has no host-visible coherent memory");
  XgpuBufferCreateInfo buffer_info = {
      .sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = ELEMENT_COUNT * sizeof(float),
      .usage = XGPU_BUFFER_USAGE_STORAGE_BIT,
      .memoryTypeIndex = memory_type,
  };
  XgpuBuffer x, y;
  CHECK(xgpuCreateBuffer(device, &buffer_info, NULL, &x));
  CHECK(xgpuCreateBuffer(device, &buffer_info, NULL, &y));
  float* x_data;
  float* y_data;
  CHECK(xgpuMapBuffer(device, x, 0, XGPU_WHOLE_SIZE, (void**)&x_data));
  CHECK(xgpuMapBuffer(device, y, 0, XGPU_WHOLE_SIZE, (void**)&y_data));
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) {
    x_data[i] = (float)i;
    y_data[i] = (float)(ELEMENT_COUNT - i);
  }

  XgpuExecutableCreateInfo executable_info = {
      .sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO,
      .pFilePath = kernels_path,
  };
  XgpuExecutable executable;
  CHECK(xgpuCreateExecutable(device, &executable_info, NULL, &executable));
  XgpuPipelineCreateInfo pipeline_info = {
      .sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO,
      .executable = executable,
      .pEntryPoint = "saxpy",
      .workgroupSize = {CONSUMER_WORKGROUP_SIZE, 1, 1},
  };
  XgpuPipeline pipeline;
  CHECK(xgpuCreatePipeline(device, &pipeline_info, NULL, &pipeline));

  XgpuCommandBufferCreateInfo cb_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO,
      .queueFamilyIndex = queue_family,
  };
  XgpuCommandBuffer cb;
  CHECK(xgpuCreateCommandBuffer(device, &cb_info, NULL, &cb));
  XgpuCommandBufferBeginInfo begin_info = {
      .sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT,
  };
  CHECK(xgpuBeginCommandBuffer(cb, &begin_info));
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef bindings[2] = {xgpuBufferRefWhole(x), xgpuBufferRefWhole(y)};
  xgpuCmdBindBuffers(cb, 0, 2, bindings);
  const consumer_constants_t constants = {SCALE, ELEMENT_COUNT};
  xgpuCmdPushConstants(cb, 0, sizeof constants, &constants);
  xgpuCmdDispatch(cb, (ELEMENT_COUNT + CONSUMER_WORKGROUP_SIZE - 1) / CONSUMER_WORKGROUP_SIZE, 1, 1);
  CHECK(xgpuEndCommandBuffer(cb));

  XgpuSemaphoreCreateInfo semaphore_info = {.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  XgpuSemaphore done;
  CHECK(xgpuCreateSemaphore(device, &semaphore_info, NULL, &done));
  const uint64_t done_value = 1;
  XgpuSubmitInfo submit_info = {
      .sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBuffer = cb,
      .signalSemaphores = {1, &done, &done_value},
  };
  CHECK(xgpuQueueSubmit(queue, 1, &submit_info));
  XgpuSemaphoreWaitInfo wait_info = {
      .sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &done,
      .pValues = &done_value,
  };
  CHECK(xgpuWaitSemaphores(device, &wait_info, WAIT_TIMEOUT_NS));

  /* Every value is a small integer, so the float results are exact. */
  for (uint32_t i = 0; i < ELEMENT_COUNT; ++i) {
    const float expected = SCALE * (float)i + (float)(ELEMENT_COUNT - i);
    if (y_data[i] != expected) FAIL("y[%u] = %g, expected %g", i, (double)y_data[i], (double)expected);
  }
  printf("consumer (%s): %s (%s): %d elements: OK\n", CONSUMER_LOADER, properties.deviceName,
         properties.isaName, ELEMENT_COUNT);

  xgpuDestroySemaphore(device, done, NULL);
  xgpuDestroyCommandBuffer(device, cb, NULL);
  xgpuDestroyPipeline(device, pipeline, NULL);
  xgpuDestroyExecutable(device, executable, NULL);
  xgpuUnmapBuffer(device, y);
  xgpuUnmapBuffer(device, x);
  xgpuDestroyBuffer(device, y, NULL);
  xgpuDestroyBuffer(device, x, NULL);
  xgpuDestroyDevice(device, NULL);
  xgpuDestroyInstance(instance, NULL);
#ifdef CONSUMER_USE_META_LOADER
  xgpumetaFinalize();
#endif
  return EXIT_SUCCESS;
}
