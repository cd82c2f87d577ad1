// Executables (xgpu executable files loaded through HSA for one agent) and
// pipelines (one kernel of an executable with its layout).
//
// Thread-safety: immutable after creation (but for the reference count,
// which is atomic); thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "device.h"
#include "seam.h"

namespace xgpu::amdgpu {

// A code object loaded into a frozen HSA executable. Shared: the
// XgpuExecutable handle (or the device library) holds one reference and every
// pipeline created from it another, so xgpuDestroyExecutable may come before
// the pipelines are destroyed; the last release destroys the HSA executable.
struct LoadedExecutable {
  Device* device = nullptr;                      // owner
  std::string isa_name;                          // ISA of the code object that was loaded
  std::vector<uint8_t> code_object;              // the code object (kept for the reader)
  hsa_code_object_reader_t reader{0};            // HSA reader over code_object
  hsa_executable_t executable{0};                // frozen HSA executable
  std::vector<KernelInfo> kernels;               // sorted by name
  std::atomic<uint32_t> refs{1};                 // handle + pipelines (atomic)
};

// Adds / drops a reference; the last release unloads (HSA failures are
// reported, naming the call and status).
void loaded_executable_retain(LoadedExecutable* executable);
void loaded_executable_release(LoadedExecutable* executable);

struct Pipeline {
  PipelineInfo info;                             // what the recorder sees
  Device* device = nullptr;                      // owner
  LoadedExecutable* executable = nullptr;        // keeps info.kernel loaded (one reference)
};

// Loads from memory; messages name `function` (the API entry point). The
// LoadedExecutable's host memory comes from `allocator` (NULL: the heap).
XgpuResult executable_load(Device* device, const char* function, const void* data, size_t size,
                           const XgpuAllocationCallbacks* allocator, LoadedExecutable** out_executable);

XgpuResult executable_create(XgpuDevice device, const XgpuExecutableCreateInfo* info,
                             const XgpuAllocationCallbacks* allocator, XgpuExecutable* out_executable);
void executable_destroy(XgpuDevice device, XgpuExecutable executable, const XgpuAllocationCallbacks* allocator);
XgpuResult pipeline_create(XgpuDevice device, const XgpuPipelineCreateInfo* info,
                           const XgpuAllocationCallbacks* allocator, XgpuPipeline* out_pipeline);
void pipeline_destroy(XgpuDevice device, XgpuPipeline pipeline, const XgpuAllocationCallbacks* allocator);
void pipeline_get_properties(XgpuDevice device, XgpuPipeline pipeline, XgpuPipelineProperties* out_properties);

}  // namespace xgpu::amdgpu
