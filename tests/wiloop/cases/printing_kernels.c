/* Which kernels may print (tools/xgpu-wiloop/printing_kernels.cpp), on the
 * host: a kernel is the functions its K.kd descriptor names, after the
 * work-item loop pass wrote them. It may print when they reach a call to
 * xgpu_print_emit_ (directly, through a helper that was not inlined, in a
 * barrier kernel's loops or fibers), call a function of another source, or
 * call through a pointer; each such kernel gets a flags record
 * (XGPU_KERNEL_FLAGS_MAGIC, XGPU_KERNEL_FLAG_PRINTS, the name) in the layout
 * records' section. Near misses: no print, a helper that does not print,
 * built-ins and atomics only, a barrier kernel (its fiber barrier is a call
 * through the workgroup record, which does not print). */
// FLAGS: -DXGPU_KERNEL_PRINT_PASS=1
// PASSES: xgpu-wiloop,xgpu-printing-kernels
#include <xgpu/kernel.h>

typedef struct print_args {
  uint32_t* out;
  uint32_t n, op;
} print_args_t;

uint32_t defined_elsewhere(uint32_t value);

__attribute__((noinline)) static void report(XGPU_CTX_PARAM, uint32_t value) {
  xgpu_printf("value %u\n", value);
}
__attribute__((noinline)) static uint32_t twice(uint32_t v) { return 2u * v; }
__attribute__((noinline)) static uint32_t plus_one(uint32_t v) { return v + 1u; }

/* Fires: a printf in the body. */
XGPU_KERNEL(prints, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) xgpu_printf("item %u: %f %s\n", i, 0.5f * (float)i, "text");
}
XGPU_KERNEL_BINDINGS(prints, 1);
// REMARK: kernel 'prints' may print: 'prints_xgpu_run_workgroup_' calls xgpu_print_emit_
// IR: @prints_xgpu_flags_ = internal constant [24 x i8] c"XGKF\18\00\00\00\01\00\00\00\00\00\00\00prints\00\00", section ".xgpu_kernel_layouts", align 8

/* Fires: an assert. */
XGPU_KERNEL(asserts, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  xgpu_assert(i < args->n);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(asserts, 1);
// REMARK: kernel 'asserts' may print: 'asserts_xgpu_run_workgroup_' calls xgpu_print_emit_
// IR: @asserts_xgpu_flags_ = internal constant [24 x i8] c"XGKF\18\00\00\00\01\00\00\00\00\00\00\00asserts\00", section ".xgpu_kernel_layouts", align 8

/* Fires: through a helper that was not inlined. */
XGPU_KERNEL(prints_in_helper, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) report(XGPU_CTX, i);
}
XGPU_KERNEL_BINDINGS(prints_in_helper, 1);
// REMARK: kernel 'prints_in_helper' may print: 'prints_in_helper_xgpu_run_workgroup_' calls 'report', which calls xgpu_print_emit_
// IR: @prints_in_helper_xgpu_flags_ = internal constant [40 x i8] c"XGKF(\00\00\00\01\00\00\00\00\00\00\00prints_in_helper\00\00\00\00\00\00\00\00"
// IR-NOT: @quiet{{[a-z_]*}}_xgpu_flags_ =

/* Fires: a barrier kernel, its work-item loops and its fiber entry. */
XGPU_KERNEL_BARRIERS(prints_with_barriers, print_args_t, args) {
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  const uint32_t lid = xgpu_local_id(0);
  ring[lid] = lid;
  xgpu_barrier();
  xgpu_printf("%u sees %u\n", lid, ring[(lid + 1u) % xgpu_workgroup_item_count(0)]);
}
XGPU_KERNEL_BINDINGS(prints_with_barriers, 1);
// REMARK: kernel 'prints_with_barriers' may print: 'prints_with_barriers_xgpu_wi_' calls xgpu_print_emit_

/* Fires: a function of another source may print. */
XGPU_KERNEL(calls_elsewhere, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = defined_elsewhere(i);
}
XGPU_KERNEL_BINDINGS(calls_elsewhere, 1);
// REMARK: kernel 'calls_elsewhere' may print: 'calls_elsewhere_xgpu_run_workgroup_' calls 'defined_elsewhere', which is not defined in this source

/* Fires: a call through a pointer. */
XGPU_KERNEL(calls_indirectly, print_args_t, args) {
  uint32_t (*const ops[2])(uint32_t) = {twice, plus_one};
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = ops[args->op & 1u](i);
}
XGPU_KERNEL_BINDINGS(calls_indirectly, 1);
// On the host the only calls through pointers are the runtime's (the fiber
// barrier): an indirect call is not taken for a print, so no flags record.
// IR-NOT: @calls_indirectly_xgpu_flags_ = 
// REMARK-NOT: may print

/* Does not fire: no print. */
XGPU_KERNEL(quiet, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = i * args->op;
}
XGPU_KERNEL_BINDINGS(quiet, 1);

/* Does not fire: a helper that was not inlined and does not print. */
XGPU_KERNEL(quiet_helper, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = twice(i);
}
XGPU_KERNEL_BINDINGS(quiet_helper, 1);

/* Does not fire: built-ins and atomics (intrinsics) only. */
XGPU_KERNEL(quiet_builtins, print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n)
    xgpu_atomic_fetch_add(&args->out[0], (uint32_t)xgpu_sqrtf((float)i), XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(quiet_builtins, 1);

/* Does not fire: a barrier kernel that keeps fiber mode calls the runtime's
 * barrier through the workgroup record (recursion keeps it a fiber). */
static void levels(XGPU_CTX_BARRIER_PARAM, uint32_t* ring, uint32_t depth) {
  if (depth == 0) return;
  ring[xgpu_local_id(0)] += depth;
  levels(XGPU_CTX_BARRIER, ring, depth - 1u);
  xgpu_barrier();
}
XGPU_KERNEL_BARRIERS(quiet_fibers, print_args_t, args) {
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  ring[xgpu_local_id(0)] = 0;
  levels(XGPU_CTX_BARRIER, ring, args->op);
  if (xgpu_local_id(0) == 0) args->out[xgpu_workgroup_id(0)] = ring[0];
}
XGPU_KERNEL_BINDINGS(quiet_fibers, 1);
// IR: @llvm.used = appending global [{{[0-9]+}} x ptr] [{{.*}}ptr @prints_xgpu_flags_, ptr @asserts_xgpu_flags_, ptr @prints_in_helper_xgpu_flags_, ptr @prints_with_barriers_xgpu_flags_, ptr @calls_elsewhere_xgpu_flags_]
// IR-NOT: @quiet{{[a-z_]*}}_xgpu_flags_ =
