/* Tail atomics combined across the workgroups of a run
 * (tools/xgpu-wiloop/combined_tails.cpp, spec/kernels.md "Work-item loops"
 * step 5). Legality: an atomic add of a barrier kernel that its item is
 * done with (relaxed, not volatile, result unused, not to the kernarg or
 * the record; after it on every path only instructions without memory
 * access or other effect, loads of group memory, the kernarg and the
 * record, other such adds, and return) may be deferred to the run's end
 * and summed: per local id when its address is the same for one local id
 * in every workgroup of a run along x (built from the kernarg and its
 * fields, the local ids, constants and the record fields a run shares:
 * not workgroup_id[0], item_count[0] or other memory), per element when
 * it is an element below 1024, by LLVM's value ranges, of an array the run
 * shares (a pointer from the kernarg, or a global). */
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
// REMARK: kernel 'store_after': not combined-tails: an atomic add: the item does more after it than compute, read group memory, the kernarg or the record, make other combined adds and return
// REMARK-NOT: kernel 'store_after': combined-tails:
// REMARK: kernel 'store_after': work-item-loops:

/* Fires: the same add in a loop (it follows itself: every add of the item
 * after a deferred one is deferred too, and their sum is the total). */
XGPU_KERNEL_GROUPSHARED(add_loop, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  for (uint32_t r = 0; r < args->k; ++r)
    xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(add_loop, 3);
// REMARK: kernel 'add_loop': combined-tails: 1 tail atomic add(s) combined across the run's workgroups{{$}}
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

/* Per element: a plainly written histogram's flush, a strided loop over
 * 256 bins (the loop's bound gives the index's range). */
typedef struct flush_shared {
  uint32_t bins[256];
} flush_shared_t;
XGPU_KERNEL_GROUPSHARED(flush_loop, tail_args_t, args, flush_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t g = xgpu_global_id(0);
  for (uint32_t b = lid; b < 256u; b += size) sh->bins[b] = 0;
  xgpu_barrier();
  if (g < args->n) xgpu_atomic_fetch_add(&sh->bins[args->in[g] & 255u], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  for (uint32_t b = lid; b < 256u; b += size)
    if (sh->bins[b] != 0) xgpu_atomic_fetch_add(&args->out[b], sh->bins[b], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(flush_loop, 3);
// REMARK: kernel 'flush_loop': combined-tails: 1 tail atomic add(s) combined across the run's workgroups (1 by element){{$}}
// REMARK: kernel 'flush_loop': work-item-loops:
// The workgroup function adds to 256 totals (the range), and the run's end
// walks them: one add to out + 4 * element per non-zero total.
// IR-LABEL: define internal void @flush_loop_xgpu_wi_(
// IR: %xgpu.combine.totals{{[0-9]*}} = alloca [256 x i32]
// IR-NOT: atomicrmw
// IR: call void @flush_loop_xgpu_wi_.combine(

/* Per element, under the guard that bounds the index: the total is not
 * updated before the guard (where the index has no bound). */
XGPU_KERNEL_GROUPSHARED(guarded_index, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  if (v < 300u) xgpu_atomic_fetch_add(&args->out[v], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(guarded_index, 3);
// REMARK: kernel 'guarded_index': combined-tails: 1 tail atomic add(s) combined across the run's workgroups (1 by element){{$}}
// IR-LABEL: define internal void @guarded_index_xgpu_wi_(
// IR: %xgpu.combine.totals{{[0-9]*}} = alloca [300 x i32]
// IR: br i1 %{{[0-9]+}}, label %[[ADD:[0-9]+]], label %r1.row.x.next
// IR: {{^}}[[ADD]]:
// IR-NEXT: zext
// IR-NEXT: %xgpu.combine.slot.r1.row{{.*}} = getelementptr inbounds i32, ptr %xgpu.combine.totals

/* Two adds in a row, both deferred (each follows or precedes the other). */
XGPU_KERNEL_GROUPSHARED(two_adds, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_atomic_fetch_add(&args->other[v & 63u], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(two_adds, 3);
// REMARK: kernel 'two_adds': combined-tails: 2 tail atomic add(s) combined across the run's workgroups (1 by element){{$}}

/* Near miss: an index whose range is more than 1024 elements. */
XGPU_KERNEL_GROUPSHARED(wide_index, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[v & 2047u], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(wide_index, 3);
// REMARK: kernel 'wide_index': not combined-tails: an atomic add: its address may differ between the workgroups of a run (it depends on the workgroup's x id, its width or memory other than the kernarg) and is not an element below 1024 of an array the run shares whose index LLVM's value ranges bound
// REMARK-NOT: kernel 'wide_index': combined-tails:

/* Near miss: a combinable add followed by one that is not (its index has
 * no bound): the first would be reordered after the second. */
XGPU_KERNEL_GROUPSHARED(then_unbounded, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  xgpu_atomic_fetch_add(&args->out[lid], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_atomic_fetch_add(&args->out[v], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(then_unbounded, 3);
// REMARK: kernel 'then_unbounded': not combined-tails: an atomic add: its address may differ
// REMARK-NOT: kernel 'then_unbounded': combined-tails:

/* Near miss: the array is chosen by data (a select of two bindings): no
 * one base the run shares. */
XGPU_KERNEL_GROUPSHARED(chosen_array, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  uint32_t* array = (v & 1u) ? args->out : args->other;
  xgpu_atomic_fetch_add(&array[v & 63u], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(chosen_array, 3);
// REMARK: kernel 'chosen_array': not combined-tails: an atomic add: its address may differ
// REMARK-NOT: kernel 'chosen_array': combined-tails:

/* Near miss: the item reads global memory after the add (it could read
 * what the add wrote). */
XGPU_KERNEL_GROUPSHARED(read_after, tail_args_t, args, tail_shared_t, sh) {
  STAGE;
  for (uint32_t b = lid; b < 256u; b += xgpu_workgroup_size(0))
    if (args->in[b] != 0u) xgpu_atomic_fetch_add(&args->out[b], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(read_after, 3);
// REMARK: kernel 'read_after': not combined-tails: an atomic add: the item does more after it than compute, read group memory, the kernarg or the record, make other combined adds and return
// REMARK-NOT: kernel 'read_after': combined-tails:

// The run's end: one atomic add per non-zero total, relaxed as the adds were.
// IR-LABEL: define internal void @tail_xgpu_wi_.combine(
// IR: icmp ne i32 %{{.*}}, 0
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR: ret void
// flush_loop's run's end walks its 256 totals: one add to out + 4 *
// element per non-zero total.
// IR-LABEL: define internal void @flush_loop_xgpu_wi_.combine(
// IR: [[TOTAL:%[0-9]+]] = load i32,
// IR: atomicrmw add ptr %{{[0-9]+}}, i32 [[TOTAL]] monotonic
// IR: icmp ult i32 %{{[0-9]+}}, 256
