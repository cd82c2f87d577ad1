// GPU-assisted validation (XgpuValidationSettings::gpuAssistedValidation,
// XGPU_VALIDATION_GPU_ASSISTED; README.md "GPU-assisted validation"): with
// it on, xgpuCreatePipeline goes down the chain with the kernel's
// bounds-checked copy (K__xgpu_checked, spec/kernels.md "Bounds-checked
// entries") as its entry point, when the executable holds one. The copy
// checks each access through a binding against the range the dispatch bound
// to it; the driver reports a violation (XGPU-VALIDATION-gpu-assisted-
// out-of-bounds) from the copy's print records. A kernel that declares no
// bindings has nothing to check and runs as it is. A kernel without a copy is
// named once per pipeline (XGPU-VALIDATION-gpu-assisted-unavailable, an
// INFO message: it names no mistake) and runs unchecked.
//
// Thread-safety: reads the executable's immutable kernel list.
#ifndef XGPU_LAYERS_VALIDATION_KERNELS_GPU_ASSISTED_H_
#define XGPU_LAYERS_VALIDATION_KERNELS_GPU_ASSISTED_H_

#include "xgpu/xgpu.h"

namespace xgpu_validation {

class CallContext;

// The chassis' call down of xgpuCreatePipeline (spec/gen/vlayer_gen.py,
// HAND_WRITTEN_CALL_DOWN).
XgpuResult DownCreatePipeline(CallContext& ctx, XgpuDevice device, const XgpuPipelineCreateInfo* pCreateInfo,
                              const XgpuAllocationCallbacks* pAllocator, XgpuPipeline* pPipeline);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_KERNELS_GPU_ASSISTED_H_
