/* Bounds-checked copies on amdgcn (tools/xgpu-wiloop/bounds_checks.cpp): the
 * copy is a second amdgpu_kernel K__xgpu_checked; its checks read the
 * binding's start and length through the kernarg segment pointer (the
 * constant address space); its report reads the work-item and workgroup
 * ids, whose "amdgpu-no-*" attributes the copy drops. */
// TARGET: amdgcn
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

// IR-DAG: @copy__xgpu_checked_xgpu_flags_ = internal addrspace(4) constant [40 x i8] c"XGKF(\00\00\00\03\00\00\00\00\00\00\00copy__xgpu_checked{{.*}}", section ".xgpu_kernel_layouts"
// IR: define protected amdgpu_kernel void @copy(
// IR-NOT: xgpu_bounds_report_
// IR: {{^}}}
// IR: define protected amdgpu_kernel void @copy__xgpu_checked(
// IR: call {{.*}}ptr addrspace(4) @llvm.amdgcn.kernarg.segment.ptr()
// IR: icmp ule i64
// IR: call void @xgpu_bounds_report_(
