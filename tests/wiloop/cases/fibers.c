/* Kernels the pass cannot transform keep fiber mode (spec/kernels.md
 * "Work-item loops", the end; tools/xgpu-wiloop/regions.cpp check,
 * work_item_loops.cpp): a barrier in a helper that could not be inlined
 * (recursion), a dynamically sized stack allocation, invoke, callbr or
 * indirectbr, or more than 2048 bytes per work item kept across barriers
 * (the slots of a 1024-item workgroup on a worker thread's stack). The
 * build says so (a note) and the remark gives the reason. */
#include <xgpu/kernel.h>

typedef struct fiber_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t n, depth;
} fiber_args_t;

/* A helper with barriers that calls itself (not a tail call). */
static void nest(XGPU_CTX_BARRIER_PARAM, uint32_t* ring, uint32_t depth) {
  const uint32_t lid = xgpu_local_id(0);
  if (depth == 0) return;
  ring[lid] += depth;
  nest(XGPU_CTX_BARRIER, ring, depth - 1u);
  xgpu_barrier();
  ring[lid] += ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
  xgpu_barrier();
}

/* Fibers: recursion through a helper with a barrier. */
XGPU_KERNEL_BARRIERS(recursive, fiber_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  ring[xgpu_local_id(0)] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  nest(XGPU_CTX_BARRIER, ring, args->depth);
  if (g < args->n) args->out[g] = ring[xgpu_local_id(0)];
}
XGPU_KERNEL_BINDINGS(recursive, 2);
// REMARK: xgpu-wiloop: note: kernel 'recursive' runs its work items as fibers on the host: calls 'nest', which contains a barrier and was not inlined
// REMARK-NEXT: kernel 'recursive': not work-item-loops: runs its work items as fibers: calls 'nest', which contains a barrier and was not inlined

/* Fibers: a 4 KiB private array used on both sides of a barrier. */
XGPU_KERNEL_BARRIERS(big_private, fiber_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t table[1024];
  const uint32_t value = g < args->n ? args->in[g] : 0u;
  for (uint32_t k = 0; k < 1024u; ++k) table[k] = value + k * args->depth;
  ring[lid] = table[(lid * 7u) % 1024u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = table[(lid * 13u) % 1024u] + ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(big_private, 2);
// REMARK: kernel 'big_private': not work-item-loops: runs its work items as fibers: keeps 4100 bytes per work item across barriers, more than 2048 (stack of a 1024-item workgroup)

/* Fires: 511 words and the item's state word, 2048 bytes: the most the
 * pass keeps per item. */
XGPU_KERNEL_BARRIERS(small_private, fiber_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t table[511];
  const uint32_t value = g < args->n ? args->in[g] : 0u;
  for (uint32_t k = 0; k < 511u; ++k) table[k] = value + k * args->depth;
  ring[lid] = table[(lid * 7u) % 511u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = table[(lid * 13u) % 511u] + ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(small_private, 2);
// REMARK-NOT: kernel 'small_private': not work-item-loops:
// REMARK: kernel 'small_private': work-item-loops: the regions between its barriers run as loops over the work items

/* Fibers: one word more, 2052 bytes. */
XGPU_KERNEL_BARRIERS(edge_private, fiber_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t table[512];
  const uint32_t value = g < args->n ? args->in[g] : 0u;
  for (uint32_t k = 0; k < 512u; ++k) table[k] = value + k * args->depth;
  ring[lid] = table[(lid * 7u) % 512u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = table[(lid * 13u) % 512u] + ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(edge_private, 2);
// REMARK: kernel 'edge_private': not work-item-loops: runs its work items as fibers: keeps 2052 bytes per work item across barriers, more than 2048

/* Fibers: a stack allocation of a size known at run time only. */
XGPU_KERNEL_BARRIERS(stack_array, fiber_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t* scratch = (uint32_t*)__builtin_alloca(4u * (args->depth + 1u));
  for (uint32_t k = 0; k <= args->depth; ++k) scratch[k] = g + k;
  ring[lid] = scratch[args->depth / 2u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = scratch[args->depth] + ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(stack_array, 2);
// REMARK: kernel 'stack_array': not work-item-loops: runs its work items as fibers: a dynamically sized or placed stack allocation

/* Fibers: asm goto (callbr). */
XGPU_KERNEL_BARRIERS(asm_goto, fiber_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  ring[lid] = g;
  __asm__ goto("" :::: skip);
  ring[lid] += 1u;
skip:
  xgpu_barrier();
  if (g < args->n) args->out[g] = ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(asm_goto, 2);
// REMARK: kernel 'asm_goto': not work-item-loops: runs its work items as fibers: unsupported control flow (invoke, callbr or indirectbr)

// The descriptors: fiber kernels keep their entries and flags (USES_BARRIERS
// only); the one transformed runs its work-item function with
// USES_BARRIERS | WORKITEM_LOOPS | WORKGROUP_RUNS. The others' work-item
// functions are gone.
// IR: @recursive.kd = constant {{.*}} ptr @recursive_xgpu_run_workgroup_, ptr @recursive_xgpu_run_workitem_, {{.*}}, i32 1 }
// IR: @big_private.kd = constant {{.*}} ptr @big_private_xgpu_run_workgroup_, {{.*}}, i32 1 }
// IR: @small_private.kd = constant {{.*}} ptr @small_private_xgpu_wi_, ptr @small_private_xgpu_run_workitem_, {{.*}}, i32 7 }
// IR: @edge_private.kd = constant {{.*}} ptr @edge_private_xgpu_run_workgroup_, {{.*}}, i32 1 }
// IR: @stack_array.kd = constant {{.*}} ptr @stack_array_xgpu_run_workgroup_, {{.*}}, i32 1 }
// IR: @asm_goto.kd = constant {{.*}} ptr @asm_goto_xgpu_run_workgroup_, {{.*}}, i32 1 }
// IR-NOT: @{{recursive|big_private|edge_private|stack_array|asm_goto}}_xgpu_wi_
