/* Without XGPU_KERNEL_BOUNDS_CHECKS (the build's XGPU_KERNELS_BOUNDS_CHECKS
 * off) <xgpu/kernel.h> defines no report function and the plugin makes no
 * bounds-checked copy (tools/xgpu-wiloop/bounds_checks.cpp). */
// FLAGS: -DXGPU_KERNEL_PRINT_PASS=1
// PASSES: xgpu-wiloop,xgpu-printing-kernels,xgpu-binding-access,xgpu-bounds-checks
#include <xgpu/kernel.h>

typedef struct copy_args {
  const uint32_t* src;
  uint32_t* dst;
  uint32_t n, shift;
} copy_args_t;

XGPU_KERNEL(copy, copy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->dst[i + args->shift] = args->src[i] + 1u;
}
XGPU_KERNEL_BINDINGS(copy, 2);
// IR: define internal void @copy_xgpu_run_workgroup_(
// IR-NOT: __xgpu_checked
// IR-NOT: xgpu_bounds_report_
