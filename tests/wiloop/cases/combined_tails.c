/* Tail atomics combined across the workgroups of a run
 * (tools/xgpu-wiloop/combined_tails.cpp, spec/kernels.md "Work-item loops"
 * step 5). Legality: an atomic add of a barrier kernel that is the last
 * thing its item does (relaxed, not volatile, result unused, nothing after
 * it on any path but instructions without memory access or other effect,
 * and return), whose address is the same for one local id in every
 * workgroup of a run along x (built from the kernarg and its fields, the
 * local ids, constants and the record fields a run shares: not
 * workgroup_id[0], item_count[0] or other memory), may be deferred to the
 * run's end and summed per local id. */
#include <xgpu/kernel.h>

typedef struct tail_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t* other;
  uint32_t n, k;
} tail_args_t;
typedef struct tail_shared {
  uint32_t v[256];
} tail_shared_t;

/* Region 0 stages the inputs; after the barrier, v is a neighbour's. */
#define STAGE                                              \
  const uint32_t lid = xgpu_local_id(0);                   \
  const uint32_t g = xgpu_global_id(0);                    \
  sh->v[lid] = g < args->n ? args->in[g] : 0u;             \
  xgpu_barrier();                                          \
  const uint32_t v = sh->v[(lid + 1u) % xgpu_workgroup_item_count(0)]

/* Fires: &args->out[lid], relaxed, agent scope, the item's last act. */
XGPU_KERNEL_GROUPSHARED(tail, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(tail, 3);
// REMARK: kernel 'tail': combined-tails: 1 tail atomic add(s) combined across the run's workgroups{{$}}
// REMARK: kernel 'tail': work-item-loops:
// The workgroup function keeps no atomic: the run's end calls the combine.
// IR-LABEL: define internal void @tail_xgpu_wi_(
// IR-NOT: atomicrmw
// IR: call void @tail_xgpu_wi_.combine(
// IR-NOT: atomicrmw
// IR-LABEL: define internal void @tail_xgpu_run_workgroup_(

/* Fires: the workgroup's y id is the same in every workgroup of a run
 * along x. */
XGPU_KERNEL_GROUPSHARED(tail_rows, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[xgpu_workgroup_id(1) * xgpu_workgroup_size(0) + lid], v, XGPU_ORDER_RELAXED,
                        XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(tail_rows, 3);
// REMARK: kernel 'tail_rows': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'tail_rows': work-item-loops:

/* Fires: under a condition; the total takes `c ? v : 0` on every item. */
XGPU_KERNEL_GROUPSHARED(tail_if, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  if (v > args->k) xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(tail_if, 3);
// REMARK: kernel 'tail_if': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'tail_if': work-item-loops:
// IR-LABEL: define internal void @tail_if_xgpu_wi_(
// IR-NOT: atomicrmw
// IR: [[TAKEN:%[0-9]+]] = select i1 %{{[0-9]+}}, i32 %{{[0-9]+}}, i32 0
// IR-NOT: atomicrmw
// IR: add i32 [[TAKEN]], %{{[0-9]+}}
// IR-NOT: atomicrmw
// IR: call void @tail_if_xgpu_wi_.combine(
// IR-LABEL: define internal void @tail_if_xgpu_run_workgroup_(

/* Near miss: the address depends on the workgroup's x id. */
XGPU_KERNEL_GROUPSHARED(by_group, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[xgpu_workgroup_id(0) * 256u + lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(by_group, 3);
// REMARK: kernel 'by_group': not combined-tails: an atomic add: its address may differ between the workgroups of a run (it depends on the workgroup's x id, its width or memory other than the kernarg)
// REMARK-NOT: kernel 'by_group': combined-tails:
// REMARK: kernel 'by_group': work-item-loops:
// IR-LABEL: define internal void @by_group_xgpu_wi_(
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR-NOT: call void @by_group_xgpu_wi_.combine(
// IR-LABEL: define internal void @by_group_xgpu_run_workgroup_(

/* Near miss: the address depends on the workgroup's width along x (the
 * run's last workgroup may be narrower). */
XGPU_KERNEL_GROUPSHARED(by_count, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[xgpu_workgroup_item_count(0) - 1u - lid], v, XGPU_ORDER_RELAXED,
                        XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(by_count, 3);
// REMARK: kernel 'by_count': not combined-tails: an atomic add: its address may differ between the workgroups of a run
// REMARK: kernel 'by_count': work-item-loops:

/* Near miss: the address depends on memory other than the kernarg. */
XGPU_KERNEL_GROUPSHARED(by_data, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[args->in[lid]], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(by_data, 3);
// REMARK: kernel 'by_data': not combined-tails: an atomic add: its address may differ between the workgroups of a run
// REMARK: kernel 'by_data': work-item-loops:

/* Near miss: the add's result is used. */
XGPU_KERNEL_GROUPSHARED(used, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  const uint32_t old = xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  if (old == 0u) args->other[g] = 1u;
}
XGPU_KERNEL_BINDINGS(used, 3);
// REMARK: kernel 'used': not combined-tails: an atomic add: its result is used
// REMARK: kernel 'used': work-item-loops:

/* Near miss: not relaxed (acq_rel orders the item's accesses around it). */
XGPU_KERNEL_GROUPSHARED(acq_rel, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_ACQ_REL, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(acq_rel, 3);
// REMARK: kernel 'acq_rel': not combined-tails: an atomic add: not relaxed
// REMARK-NOT: kernel 'acq_rel': combined-tails:
// REMARK: kernel 'acq_rel': work-item-loops:
// IR-LABEL: define internal void @acq_rel_xgpu_wi_(
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} acq_rel
// IR-LABEL: define internal void @acq_rel_xgpu_run_workgroup_(

/* Near miss: more work after it (a store after the add). */
XGPU_KERNEL_GROUPSHARED(store_after, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  args->other[g] = v;
}
XGPU_KERNEL_BINDINGS(store_after, 3);
// REMARK: kernel 'store_after': not combined-tails: an atomic add: the item does more after it than compute and return
// REMARK-NOT: kernel 'store_after': combined-tails:
// REMARK: kernel 'store_after': work-item-loops:

/* Near miss: the same add in a loop (it follows itself). */
XGPU_KERNEL_GROUPSHARED(add_loop, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  for (uint32_t r = 0; r < args->k; ++r)
    xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(add_loop, 3);
// REMARK: kernel 'add_loop': not combined-tails: an atomic add: the item does more after it than compute and return
// REMARK: kernel 'add_loop': work-item-loops:

/* Near miss: volatile. */
XGPU_KERNEL_GROUPSHARED(volatile_add, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add((volatile uint32_t*)&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(volatile_add, 3);
// REMARK: kernel 'volatile_add': not combined-tails: an atomic add: volatile
// REMARK: kernel 'volatile_add': work-item-loops:

/* Near miss: not an add. */
XGPU_KERNEL_GROUPSHARED(tail_sub, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_sub(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(tail_sub, 3);
// REMARK: kernel 'tail_sub': not combined-tails: an atomic sub: not an add
// REMARK: kernel 'tail_sub': work-item-loops:

/* Combined tail adds outrank the sized path: a kernel of a required size
 * with them keeps the general loops only. */
XGPU_KERNEL_GROUPSHARED_SIZED(tail_sized, tail_args_t, args, tail_shared_t, sh, 64, 1, 1) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(tail_sized, 3);
// REMARK: kernel 'tail_sized': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'tail_sized': not sized-path: its tail adds are combined across runs of workgroups, which saves more
// REMARK-NOT: kernel 'tail_sized': sized-path:
// REMARK: kernel 'tail_sized': work-item-loops:

// The run's end: one atomic add per non-zero total, relaxed as the adds were.
// IR-LABEL: define internal void @tail_xgpu_wi_.combine(
// IR: icmp ne i32 %{{.*}}, 0
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR: ret void
