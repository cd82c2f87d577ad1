// A fake runtime half for unit tests of the commands half: devices, buffers,
// pipelines and device-library kernels as plain host objects, no HSA.
//
// Thread-safety: thread-compatible (one test at a time).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "seam.h"

namespace xgpu::amdgpu {

// A buffer with the memory type the runtime would give it.
struct FakeBuffer : BufferInfo {
  uint32_t memory_type = 0;                         // index into the fake memory types
  XgpuMemoryPropertyFlags memory_properties = 0;    // that type's property flags
};

struct Device {
  XgpuPhysicalDeviceLimits limits{};                // reported limits
  DeviceLibrary* library = nullptr;                 // loaded with device_library_load
  bool lost = false;                                // device_is_lost
  std::vector<std::string> messages;                // device_report messages (with VUID)
  std::vector<std::unique_ptr<FakeBuffer>> buffers; // buffers made by make_buffer
  std::vector<std::vector<uint8_t>> memory;         // backing memory of buffers
  std::vector<std::unique_ptr<PipelineInfo>> pipelines;  // pipelines made by make_pipeline
  std::set<const void*> live_handles;               // device_track_handle / device_release_handle
};

}  // namespace xgpu::amdgpu

namespace fake {

// A device with hsa-cpu-like limits and the device library loaded (fake
// kernel objects; kernarg sizes as the real kernels').
std::unique_ptr<xgpu::amdgpu::Device> make_device();
void destroy_device(xgpu::amdgpu::Device* device);
// Memory types of the fake device: 0 host-visible (what hsa-cpu has), 1
// device-local only (a discrete GPU's VRAM).
constexpr uint32_t kHostVisibleType = 0;
constexpr uint32_t kDeviceLocalType = 1;
// A buffer of `size` bytes of host memory in memory type `memory_type`;
// returns its handle and pointer.
XgpuBuffer make_buffer(xgpu::amdgpu::Device* device, uint64_t size, XgpuBufferUsageFlags usage,
                       uint8_t** out_data, bool is_alloca = false, uint32_t memory_type = kHostVisibleType);
XgpuPipeline make_pipeline(xgpu::amdgpu::Device* device, const char* name, uint32_t bindings,
                           uint32_t constant_size, uint32_t wx, uint32_t wy = 1, uint32_t wz = 1);
// Kernel object values of the fake device-library kernels.
constexpr uint64_t kFillObject = 0xF111;
constexpr uint64_t kCopyObject = 0xC0B1;
constexpr uint64_t kTimestampObject = 0x7153;
constexpr uint64_t kPatchObject = 0x9A7C;

}  // namespace fake
