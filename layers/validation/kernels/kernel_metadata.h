// What the layer knows of an executable's kernels, read from the bytes
// xgpuCreateExecutable was given (xgpu_executable, spec/executable-format.md),
// and the xgpuCreatePipeline rules that need it: the declared layout, the
// kernarg size, the required workgroup size and the static workgroup memory
// (the same metadata the driver reads from the code object it loads).
//
// The layer cannot see which code object the driver loads when the device's
// best ISA (XgpuPhysicalDeviceProperties::isaName) names none: the driver
// then picks one for a lower ISA of the agent. The layer then reads every
// code object of the device's kind and keeps, per kernel, only the facts all
// of them agree on; a rule whose facts are not known is not checked (the
// driver still checks it). Executables packed by xgpu-kernels always agree.
//
// Thread-safety: ExecutableKernels is immutable once read and shared through
// the executable's record; the functions are reentrant.
#ifndef XGPU_LAYERS_VALIDATION_KERNELS_KERNEL_METADATA_H_
#define XGPU_LAYERS_VALIDATION_KERNELS_KERNEL_METADATA_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../chassis/layer.h"

namespace xgpu_validation {

// One kernel's metadata; a fact is empty when the candidate code objects disagree on it.
struct KernelFacts {
  struct Layout {
    bool declared = false;       // the kernel declares its layout (XGPU_KERNEL_BINDINGS)
    uint32_t binding_count = 0;  // declared: 8-byte bindings at the start of its kernarg struct
    uint32_t constant_size = 0;  // declared: bytes of constants after them
    bool operator==(const Layout&) const = default;
  };
  std::string name;                                   // the kernel's name (pEntryPoint)
  std::optional<uint32_t> kernarg_size;               // bytes of its kernarg segment
  std::optional<Layout> layout;                       // its declared layout, or that it declares none
  std::optional<std::array<uint32_t, 3>> required_size;  // required workgroup size; (0, 0, 0) when none
  std::optional<uint32_t> static_memory;              // static workgroup (group segment) memory, bytes
};

// The kernels of one executable, sorted by name.
struct ExecutableKernels {
  std::vector<KernelFacts> kernels;  // kernels present in every candidate code object
  // The kernel named `name`, or nullptr when the layer does not know it.
  const KernelFacts* Find(const char* name) const;
};

// Reads the kernels of the executable file `bytes` for a device whose best ISA
// is `isa_name`. nullptr when the file cannot be read (the layer then checks
// no kernel rule of its pipelines).
std::shared_ptr<const ExecutableKernels> ReadExecutableKernels(const void* bytes, size_t size, const char* isa_name);

// The same for an executable given by path (read again: the driver read it too).
std::shared_ptr<const ExecutableKernels> ReadExecutableKernelsFromFile(const char* path, const char* isa_name);

// The kernel rules of xgpuCreatePipeline (layout-declared, layout-matches,
// kernargSize, workgroupSize-required, workgroupMemory, and bindingCount /
// constantSize of a layout the kernel declares). `given_layout_ok`: the
// layout as given passed bindingCount / constantSize (else kernargSize is not
// compared: one wrong count is one message). Returns whether a rule was reported.
bool ValidatePipelineKernel(CallContext& ctx, const XgpuPipelineCreateInfo& info, const XgpuPhysicalDeviceLimits& limits,
                            bool given_layout_ok);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_KERNELS_KERNEL_METADATA_H_
