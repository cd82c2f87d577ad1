/* Which kernels may print, on nvptx (tools/xgpu-wiloop/printing_kernels.cpp):
 * a kernel is a function listed as a kernel in !nvvm.annotations (clang 19)
 * or of calling convention ptx_kernel. A kernel that calls xgpu_printf or
 * xgpu_assert prints; one that calls a function of another source or calls
 * through a pointer may print all the same: its flags record is an array
 * named K_xgpu_flags_xgpu_layout_ (PTX has no sections; the executable
 * reader takes the bytes of every `.global` array whose name ends in
 * _xgpu_layout_). Near misses: no print, barriers. */
// FLAGS: -DXGPU_KERNEL_PRINT_PASS=1
// TARGET: nvptx
// PASSES: xgpu-wiloop,xgpu-wiloop-late,xgpu-printing-kernels
#include <xgpu/kernel.h>

typedef struct print_args {
  uint32_t* out;
  uint32_t n, op;
} print_args_t;

typedef struct print_shared {
  uint32_t ring[256];
} print_shared_t;

uint32_t defined_elsewhere(uint32_t value);

__attribute__((noinline)) static uint32_t twice(uint32_t v) { return 2u * v; }
__attribute__((noinline)) static uint32_t plus_one(uint32_t v) { return v + 1u; }

/* Fires: prints. */
XGPU_KERNEL(prints, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) xgpu_printf("item %u", i);
}
XGPU_KERNEL_BINDINGS(prints, 1);
// REMARK: kernel 'prints' may print: 'prints' calls xgpu_print_emit_
// IR: @prints_xgpu_flags_xgpu_layout_ = internal constant [24 x i8] c"XGKF\18\00\00\00\01\00\00\00\00\00\00\00prints\00\00", align 8

/* Fires: a function of another source may print. */
XGPU_KERNEL(calls_elsewhere, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = defined_elsewhere(i);
}
XGPU_KERNEL_BINDINGS(calls_elsewhere, 1);
// REMARK-NOT: work-item-loops
// REMARK: kernel 'calls_elsewhere' may print: 'calls_elsewhere' calls 'defined_elsewhere', which is not defined in this source
// IR: @calls_elsewhere_xgpu_flags_xgpu_layout_ = internal constant [32 x i8] c"XGKF \00\00\00\01\00\00\00\00\00\00\00calls_elsewhere\00", align 8

/* Fires: a call through a pointer. */
XGPU_KERNEL(calls_indirectly, print_args_t, args) {
  uint32_t (*const ops[2])(uint32_t) = {twice, plus_one};
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = ops[args->op & 1u](i);
}
XGPU_KERNEL_BINDINGS(calls_indirectly, 1);
// REMARK: kernel 'calls_indirectly' may print: 'calls_indirectly' makes an indirect call
// REMARK-NOT: may print
// IR: @calls_indirectly_xgpu_flags_xgpu_layout_ = internal constant [40 x i8] c"XGKF(\00\00\00\01\00\00\00\00\00\00\00calls_indirectly\00\00\00\00\00\00\00\00", align 8

/* Does not fire: no print, a helper that does not print. */
XGPU_KERNEL(quiet, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = twice(i) * args->op;
}
XGPU_KERNEL_BINDINGS(quiet, 1);

/* Does not fire: barriers and groupshared memory. */
XGPU_KERNEL_GROUPSHARED(quiet_barriers, print_args_t, args, print_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->ring[lid] = lid;
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = shared->ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(quiet_barriers, 1);
// IR-NOT: @quiet{{[a-z_]*}}_xgpu_flags_
// IR: @llvm.used = appending global [{{[0-9]+}} x ptr] [{{.*}}ptr @prints_xgpu_flags_xgpu_layout_, ptr @calls_elsewhere_xgpu_flags_xgpu_layout_, ptr @calls_indirectly_xgpu_flags_xgpu_layout_]
// IR-NOT: @quiet{{[a-z_]*}}_xgpu_flags_
