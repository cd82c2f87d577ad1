#include "gpu_assisted.h"

#include <string>

#include "../chassis/layer.h"
#include "../chassis/object_map.h"
#include "../hazards/warnings.h"
#include "kernel_metadata.h"
#include "xgpu_executable.h"

namespace xgpu_validation {

XgpuResult DownCreatePipeline(CallContext& ctx, XgpuDevice device, const XgpuPipelineCreateInfo* pCreateInfo,
                              const XgpuAllocationCallbacks* pAllocator, XgpuPipeline* pPipeline) {
  if (!ctx.CanCallDown()) return ctx.Failure();
  if (ctx.instance == nullptr || !ctx.instance->settings.gpu_assisted || pCreateInfo == nullptr ||
      pCreateInfo->pEntryPoint == nullptr)
    return ctx.DeviceTable().CreatePipeline(device, pCreateInfo, pAllocator, pPipeline);
  const ObjectRecord* executable =
      Objects().Find(XGPU_OBJECT_TYPE_EXECUTABLE, reinterpret_cast<uintptr_t>(pCreateInfo->executable));
  // A kernel the layer does not know is the driver's to report (not found).
  const KernelFacts* kernel = executable != nullptr && executable->kernels
                                  ? executable->kernels->Find(pCreateInfo->pEntryPoint)
                                  : nullptr;
  if (kernel == nullptr) return ctx.DeviceTable().CreatePipeline(device, pCreateInfo, pAllocator, pPipeline);
  // A kernel that declares no bindings accesses no binding: nothing to check.
  if (kernel->layout && kernel->layout->declared && kernel->layout->binding_count == 0)
    return ctx.DeviceTable().CreatePipeline(device, pCreateInfo, pAllocator, pPipeline);
  const std::string checked = xgpu::executable::bounds_checked_name(pCreateInfo->pEntryPoint);
  if (executable->kernels->Find(checked.c_str()) == nullptr) {
    ReportWarning(ctx, Warning::kGpuAssistedUnavailable,
                  std::string("xgpuCreatePipeline: kernel \"") + pCreateInfo->pEntryPoint +
                      "\" has no bounds-checked copy (\"" + checked +
                      "\") in its executable, so GPU-assisted validation cannot check its accesses: the kernel "
                      "declares no layout (XGPU_KERNEL_BINDINGS), or the executable was built without the "
                      "xgpu-wiloop pass plugin or with XGPU_KERNELS_BOUNDS_CHECKS=OFF",
                  {ObjectRef{XGPU_OBJECT_TYPE_EXECUTABLE, executable->handle}}, XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT);
    return ctx.DeviceTable().CreatePipeline(device, pCreateInfo, pAllocator, pPipeline);
  }
  XgpuPipelineCreateInfo info = *pCreateInfo;
  info.pEntryPoint = checked.c_str();
  return ctx.DeviceTable().CreatePipeline(device, &info, pAllocator, pPipeline);
}

}  // namespace xgpu_validation
