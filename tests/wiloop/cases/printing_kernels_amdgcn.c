/* Which kernels may print, on amdgcn (tools/xgpu-wiloop/printing_kernels.cpp):
 * a kernel is a function of calling convention amdgpu_kernel; it gets a
 * flags record in the layout records' section, in constant memory (address
 * space 4, like <xgpu/kernel.h>'s layout records), when it reaches
 * xgpu_print_emit_ (directly or through a helper that was not inlined),
 * calls a function of another source or calls through a pointer. Near
 * misses: no print, a barrier kernel (s_barrier is an intrinsic). The
 * work-item loop steps leave an amdgcn module alone. */
// FLAGS: -DXGPU_KERNEL_PRINT_PASS=1
// TARGET: amdgcn
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

__attribute__((noinline)) static void check_bound(XGPU_CTX_PARAM, uint32_t i, uint32_t n) {
  xgpu_assert(i < n);
}
__attribute__((noinline)) static uint32_t twice(uint32_t v) { return 2u * v; }
__attribute__((noinline)) static uint32_t plus_one(uint32_t v) { return v + 1u; }

/* Fires: a printf in the body. */
XGPU_KERNEL(prints, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) xgpu_printf("item %u: %f %s\n", i, 0.5f * (float)i, "text");
}
XGPU_KERNEL_BINDINGS(prints, 1);
// REMARK-NOT: work-item-loops
// REMARK: kernel 'prints' may print: 'prints' calls xgpu_print_emit_
// IR: @prints_xgpu_flags_ = internal addrspace(4) constant [24 x i8] c"XGKF\18\00\00\00\01\00\00\00\00\00\00\00prints\00\00", section ".xgpu_kernel_layouts", align 8

/* Fires: an assert in a helper that was not inlined. */
XGPU_KERNEL(asserts_in_helper, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  check_bound(XGPU_CTX, i, args->n);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(asserts_in_helper, 1);
// REMARK: kernel 'asserts_in_helper' may print: 'asserts_in_helper' calls 'check_bound', which calls xgpu_print_emit_
// IR: @asserts_in_helper_xgpu_flags_ = internal addrspace(4) constant [40 x i8] c"XGKF(\00\00\00\01\00\00\00\00\00\00\00asserts_in_helper\00\00\00\00\00\00\00", section ".xgpu_kernel_layouts", align 8

/* Fires: a function of another source may print. */
XGPU_KERNEL(calls_elsewhere, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = defined_elsewhere(i);
}
XGPU_KERNEL_BINDINGS(calls_elsewhere, 1);
// REMARK: kernel 'calls_elsewhere' may print: 'calls_elsewhere' calls 'defined_elsewhere', which is not defined in this source

/* Fires: a call through a pointer. */
XGPU_KERNEL(calls_indirectly, print_args_t, args) {
  uint32_t (*const ops[2])(uint32_t) = {twice, plus_one};
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = ops[args->op & 1u](i);
}
XGPU_KERNEL_BINDINGS(calls_indirectly, 1);
// REMARK: kernel 'calls_indirectly' may print: 'calls_indirectly' makes an indirect call
// REMARK-NOT: may print

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
// IR-NOT: @quiet{{[a-z_]*}}_xgpu_flags_ =
// IR: @llvm.used = appending addrspace(1) global [{{[0-9]+}} x ptr] [{{.*}}ptr addrspacecast (ptr addrspace(4) @prints_xgpu_flags_ to ptr), ptr addrspacecast (ptr addrspace(4) @asserts_in_helper_xgpu_flags_ to ptr), ptr addrspacecast (ptr addrspace(4) @calls_elsewhere_xgpu_flags_ to ptr), ptr addrspacecast (ptr addrspace(4) @calls_indirectly_xgpu_flags_ to ptr)]
// IR-NOT: @quiet{{[a-z_]*}}_xgpu_flags_ =
