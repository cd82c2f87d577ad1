// The two exported entry points of the ICD (xgpu_icd.h) and the name ->
// function tables behind xgpu_icdGetInstanceProcAddr / xgpuGetDeviceProcAddr.
// Everything else has hidden visibility.
#include <cstring>

#include "common.h"
#include "device.h"
#include "executable.h"
#include "instance.h"
#include "memory_pool.h"
#include "queue.h"
#include "seam.h"
#include "timeline_semaphore.h"
#include "xgpu/xgpu_icd.h"

#define XGPU_ICD_EXPORT extern "C" __attribute__((visibility("default")))

namespace xgpu::amdgpu {
namespace {

struct NamedFunction {
  const char* name;            // API name ("xgpuFoo")
  PFN_xgpuVoidFunction function;  // the driver's implementation
};

#define XGPU_ENTRY(name, impl) {name, reinterpret_cast<PFN_xgpuVoidFunction>(&impl)}

XgpuResult enumerate_instance_version(uint32_t* out_version) {
  if (!out_version) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_version = XGPU_API_VERSION_1_0;
  return XGPU_SUCCESS;
}

PFN_xgpuVoidFunction get_device_proc_addr(XgpuDevice device, const char* name);

// Global, instance- and physical-device-level functions.
const NamedFunction kInstanceFunctions[] = {
    XGPU_ENTRY("xgpuCreateInstance", instance_create),
    XGPU_ENTRY("xgpuEnumerateInstanceVersion", enumerate_instance_version),
    XGPU_ENTRY("xgpuDestroyInstance", instance_destroy),
    XGPU_ENTRY("xgpuEnumeratePhysicalDevices", instance_enumerate_physical_devices),
    XGPU_ENTRY("xgpuCreateDebugMessenger", debug_messenger_create),
    XGPU_ENTRY("xgpuDestroyDebugMessenger", debug_messenger_destroy),
    XGPU_ENTRY("xgpuSubmitDebugMessage", debug_message_submit),
    XGPU_ENTRY("xgpuGetPhysicalDeviceProperties", physical_device_get_properties),
    XGPU_ENTRY("xgpuGetPhysicalDeviceMemoryProperties", physical_device_get_memory_properties),
    XGPU_ENTRY("xgpuGetPhysicalDeviceQueueFamilyProperties", physical_device_get_queue_family_properties),
    XGPU_ENTRY("xgpuCreateDevice", device_create),
    XGPU_ENTRY("xgpuGetDeviceProcAddr", get_device_proc_addr),
};

// Device-, queue-level functions of the runtime half (the command-buffer
// functions come from commands_get_proc_addr).
const NamedFunction kDeviceFunctions[] = {
    XGPU_ENTRY("xgpuGetDeviceProcAddr", get_device_proc_addr),
    XGPU_ENTRY("xgpuDestroyDevice", device_destroy),
    XGPU_ENTRY("xgpuGetDeviceQueue", device_get_queue),
    XGPU_ENTRY("xgpuDeviceWaitIdle", device_wait_idle),
    XGPU_ENTRY("xgpuSetObjectName", device_set_object_name),
    XGPU_ENTRY("xgpuCreateBuffer", buffer_create),
    XGPU_ENTRY("xgpuDestroyBuffer", buffer_destroy),
    XGPU_ENTRY("xgpuMapBuffer", buffer_map),
    XGPU_ENTRY("xgpuUnmapBuffer", buffer_unmap),
    XGPU_ENTRY("xgpuGetBufferDeviceAddress", buffer_device_address),
    XGPU_ENTRY("xgpuCreateMemoryPool", memory_pool_create),
    XGPU_ENTRY("xgpuDestroyMemoryPool", memory_pool_destroy),
    XGPU_ENTRY("xgpuTrimMemoryPool", memory_pool_trim),
    XGPU_ENTRY("xgpuGetMemoryPoolStatistics", memory_pool_get_statistics),
    XGPU_ENTRY("xgpuCreateSemaphore", semaphore_create),
    XGPU_ENTRY("xgpuDestroySemaphore", semaphore_destroy),
    XGPU_ENTRY("xgpuSignalSemaphore", semaphore_signal),
    XGPU_ENTRY("xgpuWaitSemaphores", semaphore_wait),
    XGPU_ENTRY("xgpuGetSemaphoreValue", semaphore_get_value),
    XGPU_ENTRY("xgpuFailSemaphore", semaphore_fail_entry),
    XGPU_ENTRY("xgpuCreateExecutable", executable_create),
    XGPU_ENTRY("xgpuDestroyExecutable", executable_destroy),
    XGPU_ENTRY("xgpuCreatePipeline", pipeline_create),
    XGPU_ENTRY("xgpuDestroyPipeline", pipeline_destroy),
    XGPU_ENTRY("xgpuGetPipelineProperties", pipeline_get_properties),
    XGPU_ENTRY("xgpuQueueSubmit", queue_submit),
    XGPU_ENTRY("xgpuQueueFillBuffer", queue_fill_buffer),
    XGPU_ENTRY("xgpuQueueCopyBuffer", queue_copy_buffer),
    XGPU_ENTRY("xgpuQueueAlloca", queue_alloca),
    XGPU_ENTRY("xgpuQueueDealloca", queue_dealloca),
    XGPU_ENTRY("xgpuQueueWaitIdle", queue_wait_idle),
};

#undef XGPU_ENTRY

template <size_t N>
PFN_xgpuVoidFunction lookup(const NamedFunction (&table)[N], const char* name) {
  for (const NamedFunction& entry : table)
    if (std::strcmp(entry.name, name) == 0) return entry.function;
  return nullptr;
}

PFN_xgpuVoidFunction get_device_proc_addr(XgpuDevice device, const char* name) {
  if (!name) return nullptr;
  if (PFN_xgpuVoidFunction function = lookup(kDeviceFunctions, name)) return function;
  // Test hooks, only on request (never part of the API).
  if (std::strcmp(name, "xgpuAmdgpuTestInjectQueueFault") == 0)
    return env_flag("XGPU_AMDGPU_TEST_HOOKS") ? reinterpret_cast<PFN_xgpuVoidFunction>(&queue_test_inject_fault)
                                              : nullptr;
  return commands_get_proc_addr(name);
}

}  // namespace
}  // namespace xgpu::amdgpu

XGPU_ICD_EXPORT XgpuResult xgpu_icdNegotiateLoaderICDInterfaceVersion(uint32_t* pSupportedVersion) {
  if (!pSupportedVersion || *pSupportedVersion < XGPU_MIN_LOADER_ICD_INTERFACE_VERSION) {
    return XGPU_ERROR_INCOMPATIBLE_DRIVER;
  }
  if (*pSupportedVersion > XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION) {
    *pSupportedVersion = XGPU_CURRENT_LOADER_ICD_INTERFACE_VERSION;
  }
  return XGPU_SUCCESS;
}

XGPU_ICD_EXPORT PFN_xgpuVoidFunction xgpu_icdGetInstanceProcAddr(XgpuInstance instance, const char* pName) {
  using namespace xgpu::amdgpu;
  if (!pName) return nullptr;
  if (PFN_xgpuVoidFunction function = lookup(kInstanceFunctions, pName)) return function;
  // Device-level names too, so a loader may build device tables from here.
  return get_device_proc_addr(nullptr, pName);
}
