/* Bounds-checked copies on nvptx (tools/xgpu-wiloop/bounds_checks.cpp): the
 * copy is a kernel as K is (its nvvm.annotations copied); the kernarg
 * address comes from the entry's second parameter (xgpu_nvptx_grid_t,
 * byte 16); the records are arrays whose names end in _xgpu_layout_. */
// TARGET: nvptx
// FLAGS: -DXGPU_KERNEL_PRINT_PASS=1 -DXGPU_KERNEL_BOUNDS_CHECKS=1
// PASSES: xgpu-printing-kernels,xgpu-binding-access,xgpu-bounds-checks
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
// REMARK: kernel 'copy': bounds-checked copy 'copy__xgpu_checked' checks 2 accesses

// IR-DAG: @copy__xgpu_checked_xgpu_flags_xgpu_layout_ = internal constant [40 x i8] c"XGKF(\00\00\00\03\00\00\00\00\00\00\00copy__xgpu_checked{{.*}}"
// IR-DAG: @copy__xgpu_checked_xgpu_layout_ = internal constant [40 x i8] c"XGKL(
// IR: define {{.*}}void @copy__xgpu_checked(
// IR: getelementptr inbounds i8, ptr %{{.*}}, i64 16
// IR: icmp ule i64
// IR: call void @xgpu_bounds_report_(
// IR: !{ptr @copy__xgpu_checked, !"kernel", i32 1}
