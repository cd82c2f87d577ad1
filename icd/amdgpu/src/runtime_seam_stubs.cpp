// Temporary: the runtime half's seam functions as stubs, replaced file by
// file by the real implementation.
#include "seam.h"

namespace xgpu::amdgpu {

const HsaApi& device_hsa(const Device*) { static const HsaApi* none = nullptr; return *none; }
hsa_agent_t device_agent(const Device*) { return hsa_agent_t{0}; }
const XgpuPhysicalDeviceLimits& device_limits(const Device*) { static XgpuPhysicalDeviceLimits limits{}; return limits; }
const DeviceLibrary* device_library(const Device*) { return nullptr; }
XgpuResult device_allocate(Device*, MemoryKind, uint64_t, void** out_ptr) { *out_ptr = nullptr; return XGPU_ERROR_FEATURE_NOT_PRESENT; }
void device_free(Device*, void*) {}
XgpuResult device_load_executable(Device*, const void*, size_t, LoadedExecutable** out_executable) { *out_executable = nullptr; return XGPU_ERROR_FEATURE_NOT_PRESENT; }
void device_unload_executable(Device*, LoadedExecutable*) {}
const KernelInfo* loaded_executable_kernel(const LoadedExecutable*, const char*) { return nullptr; }
BufferInfo* buffer_info(XgpuBuffer) { return nullptr; }
const PipelineInfo* pipeline_info(XgpuPipeline) { return nullptr; }
Device* device_from_handle(XgpuDevice) { return nullptr; }
void device_report(const Device*, XgpuDebugMessageSeverityFlagBits, const char*, const std::string&) {}

}  // namespace xgpu::amdgpu
