// The two exported entry points of the ICD (xgpu_icd.h) and the name ->
// function tables behind xgpu_icdGetInstanceProcAddr / xgpuGetDeviceProcAddr.
// Everything else has hidden visibility.
#include <cstring>

#include "common.h"
#include "device.h"
#include "entry_guard.h"
#include "executable.h"
#include "instance.h"
#include "memory_pool.h"
#include "queue.h"
#include "seam.h"
#include "timeline_semaphore.h"
#include "xgpu/xgpu_icd.h"

#define XGPU_ICD_EXPORT extern "C" __attribute__((visibility("default")))

// Test hook xgpuAmdgpuTestGetAllocatorStats (README, "Test hooks"): the
// buffer sub-allocator's counters of one memory type. A plain C struct at
// global scope: the tests declare the same one, so the hook's function type
// is the same on both sides (UBSan checks calls through function pointers).
struct XgpuAmdgpuTestAllocatorStats {
  uint64_t blockCount;         // blocks held (including the spare)
  uint64_t emptyBlockCount;    // blocks with nothing handed out
  uint64_t blockBytes;         // bytes of HSA memory held in blocks
  uint64_t dedicatedCount;     // live dedicated (own HSA allocation) buffers
  uint64_t dedicatedBytes;     // bytes of those
  uint64_t subAllocatedBytes;  // bytes handed out from blocks (aligned sizes)
};
static_assert(sizeof(XgpuAmdgpuTestAllocatorStats) == 6 * sizeof(uint64_t));

namespace xgpu::amdgpu {
namespace {

struct NamedFunction {
  const char* name;            // API name ("xgpuFoo")
  PFN_xgpuVoidFunction function;  // the driver's implementation
};

// The static_cast checks each implementation against the registry's PFN
// type; EntryGuard keeps C++ exceptions from crossing the C API.
#define XGPU_ENTRY(name, impl) \
  {"xgpu" #name, reinterpret_cast<PFN_xgpuVoidFunction>(static_cast<PFN_xgpu##name>(&EntryGuard<&impl>::call))}

XgpuResult enumerate_instance_version(uint32_t* out_version) {
  if (!out_version) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_version = XGPU_API_VERSION_1_0;
  return XGPU_SUCCESS;
}

PFN_xgpuVoidFunction get_device_proc_addr(XgpuDevice device, const char* name);

XgpuResult XGPU_API_CALL test_get_allocator_stats(XgpuDevice handle, uint32_t memory_type_index,
                                                  XgpuAmdgpuTestAllocatorStats* out_stats) {
  Device* device = device_from_handle(handle);
  if (!device || !out_stats || memory_type_index >= device->allocators.size()) return XGPU_ERROR_INVALID_ARGUMENT;
  const BlockAllocator::Stats stats = device_allocator_stats(device, memory_type_index);
  *out_stats = XgpuAmdgpuTestAllocatorStats{stats.block_count,     stats.empty_block_count,
                                            stats.block_bytes,     stats.dedicated_count,
                                            stats.dedicated_bytes, stats.sub_allocated_bytes};
  return XGPU_SUCCESS;
}

// Global, instance- and physical-device-level functions.
const NamedFunction kInstanceFunctions[] = {
    XGPU_ENTRY(CreateInstance, instance_create),
    XGPU_ENTRY(EnumerateInstanceVersion, enumerate_instance_version),
    XGPU_ENTRY(DestroyInstance, instance_destroy),
    XGPU_ENTRY(EnumeratePhysicalDevices, instance_enumerate_physical_devices),
    XGPU_ENTRY(CreateDebugMessenger, debug_messenger_create),
    XGPU_ENTRY(DestroyDebugMessenger, debug_messenger_destroy),
    XGPU_ENTRY(SubmitDebugMessage, debug_message_submit),
    XGPU_ENTRY(GetPhysicalDeviceProperties, physical_device_get_properties),
    XGPU_ENTRY(GetPhysicalDeviceMemoryProperties, physical_device_get_memory_properties),
    XGPU_ENTRY(GetPhysicalDeviceQueueFamilyProperties, physical_device_get_queue_family_properties),
    XGPU_ENTRY(CreateDevice, device_create),
    XGPU_ENTRY(GetDeviceProcAddr, get_device_proc_addr),
};

// Device-, queue-level functions of the runtime half (the command-buffer
// functions come from commands_get_proc_addr).
const NamedFunction kDeviceFunctions[] = {
    XGPU_ENTRY(GetDeviceProcAddr, get_device_proc_addr),
    XGPU_ENTRY(DestroyDevice, device_destroy),
    XGPU_ENTRY(GetDeviceQueue, device_get_queue),
    XGPU_ENTRY(DeviceWaitIdle, device_wait_idle),
    XGPU_ENTRY(SetObjectName, device_set_object_name),
    XGPU_ENTRY(GetDeviceFaultInfo, device_get_fault_info),
    XGPU_ENTRY(CreateBuffer, buffer_create),
    XGPU_ENTRY(DestroyBuffer, buffer_destroy),
    XGPU_ENTRY(MapBuffer, buffer_map),
    XGPU_ENTRY(UnmapBuffer, buffer_unmap),
    XGPU_ENTRY(GetBufferDeviceAddress, buffer_device_address),
    XGPU_ENTRY(CreateMemoryPool, memory_pool_create),
    XGPU_ENTRY(DestroyMemoryPool, memory_pool_destroy),
    XGPU_ENTRY(TrimMemoryPool, memory_pool_trim),
    XGPU_ENTRY(GetMemoryPoolStatistics, memory_pool_get_statistics),
    XGPU_ENTRY(CreateSemaphore, semaphore_create),
    XGPU_ENTRY(DestroySemaphore, semaphore_destroy),
    XGPU_ENTRY(SignalSemaphore, semaphore_signal),
    XGPU_ENTRY(WaitSemaphores, semaphore_wait),
    XGPU_ENTRY(GetSemaphoreValue, semaphore_get_value),
    XGPU_ENTRY(FailSemaphore, semaphore_fail_entry),
    XGPU_ENTRY(CreateExecutable, executable_create),
    XGPU_ENTRY(DestroyExecutable, executable_destroy),
    XGPU_ENTRY(CreatePipeline, pipeline_create),
    XGPU_ENTRY(DestroyPipeline, pipeline_destroy),
    XGPU_ENTRY(GetPipelineProperties, pipeline_get_properties),
    XGPU_ENTRY(QueueSubmit, queue_submit),
    XGPU_ENTRY(QueueFillBuffer, queue_fill_buffer),
    XGPU_ENTRY(QueueCopyBuffer, queue_copy_buffer),
    XGPU_ENTRY(QueueAlloca, queue_alloca),
    XGPU_ENTRY(QueueDealloca, queue_dealloca),
    XGPU_ENTRY(QueueWaitIdle, queue_wait_idle),
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
  if (std::strcmp(name, "xgpuAmdgpuTestGetAllocatorStats") == 0)
    return env_flag("XGPU_AMDGPU_TEST_HOOKS") ? reinterpret_cast<PFN_xgpuVoidFunction>(&test_get_allocator_stats)
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
