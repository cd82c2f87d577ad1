/* Aggregated atomic adds of kernels without barriers, and the recount
 * (tools/xgpu-wiloop/aggregate_adds.cpp, spec/kernels.md "Work-item loops"
 * step 4). Legality: a relaxed, non-volatile atomic add whose address every
 * item of the workgroup computes alike (from the kernarg and the record
 * only) is made once per workgroup for the items' total, each item's
 * result the old value plus its offset in item order (aggregated-adds).
 * The items run their code up to the adds twice instead of waiting at
 * them (recount) only when every path to the adds loads and computes but
 * has no other effect, no add can follow an add, and the kernel has no
 * private memory. A recounted add whose address is the same in every
 * workgroup of a run along x (from the kernarg, not the workgroup's x id)
 * is made once per chunk of a run (recount-runs): the chunk's items are
 * counted, the add made, then the chunk's items run. An add whose result
 * is unused and after which its item only computes and returns is not
 * aggregated but combined (combined_tails.c): one total for the run. */
#include <xgpu/kernel.h>

typedef struct compact_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t* count;
  uint32_t* seen;
  uint32_t n, k;
} compact_args_t;

/* Fires, both: a compaction, out[atomic_fetch_add(count, 1)] = v. */
XGPU_KERNEL(compact, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(compact, 4);
// (The near misses at the end have no remark at all, here or there.)
// REMARK-NOT: kernel '{{per_item_address|acq_rel_add}}':
// REMARK: kernel 'compact': recount: the items run their code up to the adds twice instead of waiting at them
// REMARK-NEXT: kernel 'compact': recount-runs: the adds' addresses are the same in every workgroup of a run
// REMARK-NEXT: kernel 'compact': aggregated-adds: 1 atomic add(s) to one address made once per 4096 items of a run of workgroups
// One atomic add in the workgroup function, and nothing kept per item.
// IR-LABEL: define internal void @compact_xgpu_wi_(
// IR-NOT: alloca {{.*}}, i64 %
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR-NOT: atomicrmw
// IR-LABEL: define internal void @compact_xgpu_run_workgroup_(

/* Fires, both: two adds on different paths, a loop before them and a
 * store on a path that reaches neither. */
XGPU_KERNEL(two_paths, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  uint32_t v = 0;
  for (uint32_t j = 0; j < args->k; ++j) v += args->in[(g + j) % args->n];
  if (v == 0u) {
    args->seen[g] = 1u;
    return;
  }
  if (v > args->k)
    args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
  else
    args->seen[xgpu_atomic_fetch_add(&args->count[1], v % 4u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(two_paths, 4);
// REMARK: kernel 'two_paths': recount: the items run their code up to the adds twice
// REMARK-NEXT: kernel 'two_paths': recount-runs
// REMARK-NEXT: kernel 'two_paths': aggregated-adds: 2 atomic add(s) to one address made once per 4096 items of a run

/* Fires, all three: the result of the first add decides a second, whose
 * result is unused and after which the item returns (the shape of
 * samples/indirect_dispatch's filter). The second is combined: one total
 * for the run, one atomic add at its end; the first is recounted across
 * the run. */
XGPU_KERNEL(compact_count, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v <= args->k) return;
  const uint32_t slot = xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  args->out[slot] = v;
  if (slot % 64u == 0u) xgpu_atomic_fetch_add(&args->count[1], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(compact_count, 4);
// REMARK: kernel 'compact_count': combined-tails: 1 tail atomic add(s) combined across the run's workgroups
// REMARK-NEXT: kernel 'compact_count': recount: the items run their code up to the adds twice
// REMARK-NEXT: kernel 'compact_count': recount-runs: the adds' addresses are the same in every workgroup of a run
// REMARK-NEXT: kernel 'compact_count': aggregated-adds: 1 atomic add(s) to one address made once per 4096 items of a run
// The recounted add once in the workgroup function, the combined one in
// the function the run's end calls, with the one total.
// (The functions the runs' ends call are checked at the end of the file.)
// IR-LABEL: define internal void @compact_count_xgpu_wi_(
// IR: %xgpu.combine.totals = alloca i32, align 4
// IR-NOT: alloca {{.*}}, i64 %
// IR: xgpu.recount.adds:
// IR-NEXT: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR-NOT: atomicrmw
// IR-LABEL: define internal void @compact_count_xgpu_run_workgroup_(

/* Near miss for recount-runs: the add's address depends on the workgroup's
 * x id, which differs between the workgroups of a run; it is recounted
 * once per workgroup. */
XGPU_KERNEL(group_address, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v > args->k)
    args->out[xgpu_atomic_fetch_add(&args->count[xgpu_workgroup_id(0)], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(group_address, 4);
// REMARK: kernel 'group_address': recount: the items run their code up to the adds twice
// REMARK-NEXT: kernel 'group_address': not recount-runs: an add's address may differ between the workgroups of a run
// REMARK-NEXT: kernel 'group_address': aggregated-adds: 1 atomic add(s) to one address made once per workgroup
// IR-LABEL: define internal void @group_address_xgpu_wi_(
// IR-NOT: xgpu.recount.adds
// IR-LABEL: define internal void @group_address_xgpu_run_workgroup_(

/* Fires, combined only: an add whose result is unused, the item's last
 * act; nothing is aggregated (no count first, no second pass). */
XGPU_KERNEL(count_only, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  if (args->in[g] > args->k) xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(count_only, 4);
// REMARK: kernel 'count_only': combined-tails: 1 tail atomic add(s) combined across the run's workgroups
// REMARK-NOT: kernel 'count_only': {{.*}}recount
// REMARK-NOT: kernel 'count_only': aggregated-adds
// IR-LABEL: define internal void @count_only_xgpu_wi_(
// IR-NOT: atomicrmw
// IR-LABEL: define internal void @count_only_xgpu_run_workgroup_(

/* Near miss for the combination: the item stores after its add (which may
 * not move past it); the add is aggregated and recounted instead. */
XGPU_KERNEL(count_then_store, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v > args->k) xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  args->seen[g] = v;
}
XGPU_KERNEL_BINDINGS(count_then_store, 4);
// REMARK: kernel 'count_then_store': not combined-tails: an atomic add: the item does more after it than compute
// REMARK-NEXT: kernel 'count_then_store': recount: the items run their code up to the adds twice
// REMARK-NEXT: kernel 'count_then_store': recount-runs
// REMARK-NEXT: kernel 'count_then_store': aggregated-adds: 1 atomic add(s) to one address made once per 4096 items of a run

/* Near miss for the recount: a store on the way to the add (the second
 * run would store again); the add is still aggregated. */
XGPU_KERNEL(store_first, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  args->seen[g] = 1u;
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(store_first, 4);
// REMARK: kernel 'store_first': not recount: a store, call or other effect on the way to an add
// REMARK-NEXT: kernel 'store_first': aggregated-adds: 1 atomic add(s) to one address made once per workgroup

/* Near miss for the recount: a private array in the kernel. */
XGPU_KERNEL(private_array, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  uint32_t t[8];
  for (uint32_t j = 0; j < 8u; ++j) t[j] = args->in[(g + j) % args->n];
  const uint32_t v = t[args->in[g] % 8u];
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(private_array, 4);
// REMARK: kernel 'private_array': not recount: the kernel has private memory, which the copy would share
// REMARK-NEXT: kernel 'private_array': aggregated-adds: 1 atomic add(s)

/* Near miss for the recount: the add in a loop (an item adds more than
 * once); each round is aggregated. */
XGPU_KERNEL(add_loop, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  for (uint32_t r = 0; r < v % 4u; ++r)
    args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v + r;
}
XGPU_KERNEL_BINDINGS(add_loop, 4);
// REMARK: kernel 'add_loop': not recount: an add can follow an add
// REMARK-NEXT: kernel 'add_loop': aggregated-adds: 1 atomic add(s)

/* Near miss for the recount: two adds one after the other. */
XGPU_KERNEL(add_pair, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  const uint32_t at = xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  args->out[at] = v + xgpu_atomic_fetch_add(&args->count[1], v, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(add_pair, 4);
// REMARK: kernel 'add_pair': not recount: two adds in one block
// REMARK-NEXT: kernel 'add_pair': aggregated-adds: 2 atomic add(s)

/* Near miss for the recount: an atomic load on the way to the add. */
XGPU_KERNEL(atomic_read, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = xgpu_atomic_load(&args->in[g], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(atomic_read, 4);
// REMARK: kernel 'atomic_read': not recount: an atomic or volatile load on the way to an add
// REMARK-NEXT: kernel 'atomic_read': aggregated-adds: 1 atomic add(s)

/* Near miss for both: an address that differs per item. The kernel keeps
 * <xgpu/kernel.h>'s item loop, and the pass says nothing of it. */
XGPU_KERNEL(per_item_address, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v > args->k)
    args->out[xgpu_atomic_fetch_add(&args->count[xgpu_local_id(0)], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(per_item_address, 4);
// REMARK-NOT: kernel 'per_item_address':

/* Near miss for both: not relaxed. */
XGPU_KERNEL(acq_rel_add, compact_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_ACQ_REL, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(acq_rel_add, 4);
// REMARK-NOT: kernel '{{per_item_address|acq_rel_add}}':
// IR-LABEL: define internal void @acq_rel_add_xgpu_run_workgroup_(
// IR: atomicrmw add ptr %{{.*}}, i32 1 acq_rel

// The runs' ends: one atomic add of the one total each.
// IR-LABEL: define internal void @compact_count_xgpu_wi_.combine(
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR-NOT: atomicrmw
// IR-LABEL: define internal void @count_only_xgpu_wi_.combine(
// IR: atomicrmw add ptr %{{.*}}, i32 %{{.*}} monotonic
// IR-NOT: atomicrmw
