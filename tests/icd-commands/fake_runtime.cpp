// Fake runtime half (see fake_runtime.h).
#include "fake_runtime.h"

#include <cstdlib>
#include <cstring>

#include "device_library.h"
#include "xgpu_amdgpu/commands.h"

namespace xgpu::amdgpu {

struct LoadedExecutable {
  std::vector<KernelInfo> kernels;  // the fake device-library kernels
};

struct HsaApi {
  int unused;  // the commands half never calls HSA
};
const HsaApi& device_hsa(const Device*) {
  static const HsaApi none{};
  return none;
}
hsa_agent_t device_agent(const Device*) { return hsa_agent_t{1}; }
const XgpuPhysicalDeviceLimits& device_limits(const Device* device) { return device->limits; }
// The fake device has the one queue family (0).
bool device_has_queue_family(const Device*, uint32_t family) { return family == 0; }
const DeviceLibrary* device_library(const Device* device) { return device->library; }
XgpuResult device_allocate(Device*, MemoryKind, uint64_t size, void** out_ptr) {
  *out_ptr = std::aligned_alloc(256, (size + 255) & ~uint64_t(255));
  std::memset(*out_ptr, 0xCD, (size + 255) & ~uint64_t(255));
  return *out_ptr ? XGPU_SUCCESS : XGPU_ERROR_OUT_OF_DEVICE_MEMORY;
}
void device_free(Device*, void* ptr) { std::free(ptr); }
XgpuResult device_load_executable(Device*, const void*, size_t, LoadedExecutable** out_executable) {
  auto* executable = new LoadedExecutable();
  auto add = [&](const char* name, uint64_t object, uint32_t kernarg_size) {
    KernelInfo info;
    info.kernel_object = object;
    info.kernarg_size = kernarg_size;
    info.kernarg_alignment = 8;
    info.name = name;
    executable->kernels.push_back(info);
  };
  add(XGPU_AMDGPU_KERNEL_FILL, fake::kFillObject, sizeof(xgpu_amdgpu_fill_args_t));
  add(XGPU_AMDGPU_KERNEL_COPY, fake::kCopyObject, sizeof(xgpu_amdgpu_copy_args_t));
  add(XGPU_AMDGPU_KERNEL_TIMESTAMP, fake::kTimestampObject, sizeof(xgpu_amdgpu_timestamp_args_t));
  add(XGPU_AMDGPU_KERNEL_INDIRECT_PATCH, fake::kPatchObject, sizeof(xgpu_amdgpu_indirect_patch_args_t));
  *out_executable = executable;
  return XGPU_SUCCESS;
}
void device_unload_executable(Device*, LoadedExecutable* executable) { delete executable; }
const KernelInfo* loaded_executable_kernel(const LoadedExecutable* executable, const char* name) {
  for (const KernelInfo& kernel : executable->kernels)
    if (kernel.name == name) return &kernel;
  return nullptr;
}
BufferInfo* buffer_info(XgpuBuffer buffer) { return reinterpret_cast<BufferInfo*>(buffer); }
const PipelineInfo* pipeline_info(XgpuPipeline pipeline) { return reinterpret_cast<const PipelineInfo*>(pipeline); }
Device* device_from_handle(XgpuDevice device) { return reinterpret_cast<Device*>(device); }
void device_report(const Device* device, XgpuDebugMessageSeverityFlagBits, const char* vuid, const std::string& message,
                   std::initializer_list<ReportObject>) {
  const_cast<Device*>(device)->messages.push_back(std::string(vuid ? vuid : "-") + ": " + message);
}
std::string device_object_name(const Device*, uint64_t) { return ""; }
void device_forget_object_name(const Device*, uint64_t) {}
void device_track_handle(const Device* device, const void* handle) {
  const_cast<Device*>(device)->live_handles.insert(handle);
}
bool device_release_handle(const Device* device, const void* handle, const char* vuid, const char* where, bool) {
  if (const_cast<Device*>(device)->live_handles.erase(handle)) return true;
  device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid, std::string(where) + " is not live");
  return false;
}
bool device_is_lost(const Device* device) { return device->lost; }
XgpuMemoryPropertyFlags buffer_memory_properties(const BufferInfo* buffer, uint32_t* out_memory_type) {
  const auto* fake = static_cast<const FakeBuffer*>(buffer);
  *out_memory_type = fake->memory_type;
  return fake->memory_properties;
}

}  // namespace xgpu::amdgpu

namespace fake {

using namespace xgpu::amdgpu;

std::unique_ptr<Device> make_device() {
  auto device = std::make_unique<Device>();
  XgpuPhysicalDeviceLimits& l = device->limits;
  for (int d = 0; d < 3; ++d) {
    l.maxWorkgroupSize[d] = 1024;
    l.maxWorkgroupCount[d] = 65535;
    l.maxGridSize[d] = UINT32_MAX;
  }
  l.maxWorkgroupInvocations = 1024;
  l.maxWorkgroupMemorySize = 65536;
  l.maxPushConstantsSize = 256;
  l.maxBindings = 16;
  l.maxBindingCapacity = 64;
  l.minBufferOffsetAlignment = 16;
  DeviceLibrary* library = nullptr;
  if (device_library_load(device.get(), &library) != XGPU_SUCCESS) return nullptr;
  device->library = library;
  return device;
}

void destroy_device(Device* device) { device_library_destroy(device, device->library); }

XgpuBuffer make_buffer(Device* device, uint64_t size, XgpuBufferUsageFlags usage, uint8_t** out_data, bool is_alloca,
                       uint32_t memory_type) {
  device->memory.emplace_back(size + 64, uint8_t(0));
  uint8_t* data = device->memory.back().data();
  auto info = std::make_unique<FakeBuffer>();
  info->memory_type = memory_type;
  info->memory_properties = memory_type == kDeviceLocalType
                                ? XgpuMemoryPropertyFlags(XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
                                : XgpuMemoryPropertyFlags(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                          XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  info->size = size;
  info->usage = usage;
  info->is_alloca = is_alloca;
  info->device_address.store(is_alloca ? 0 : uint64_t(reinterpret_cast<uintptr_t>(data)));
  if (out_data) *out_data = data;
  device->buffers.push_back(std::move(info));
  return reinterpret_cast<XgpuBuffer>(static_cast<BufferInfo*>(device->buffers.back().get()));
}

XgpuPipeline make_pipeline(Device* device, const char* name, uint32_t bindings, uint32_t constant_size, uint32_t wx,
                           uint32_t wy, uint32_t wz) {
  auto info = std::make_unique<PipelineInfo>();
  info->kernel.kernel_object = 0x4B000 + device->pipelines.size();
  info->kernel.kernarg_size = bindings * 8 + constant_size;
  info->kernel.kernarg_alignment = 8;
  info->kernel.name = name;
  info->binding_count = bindings;
  info->constant_size = constant_size;
  info->workgroup_size[0] = wx;
  info->workgroup_size[1] = wy;
  info->workgroup_size[2] = wz;
  device->pipelines.push_back(std::move(info));
  return reinterpret_cast<XgpuPipeline>(device->pipelines.back().get());
}

}  // namespace fake
