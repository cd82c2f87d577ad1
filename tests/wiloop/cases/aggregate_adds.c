/* Aggregated atomic adds of kernels without barriers, and the recount
 * (tools/xgpu-wiloop/aggregate_adds.cpp, spec/kernels.md "Work-item loops"
 * step 4). Legality: a relaxed, non-volatile atomic add whose address every
 * item of the workgroup computes alike (from the kernarg and the record
 * only) is made once per workgroup for the items' total, each item's
 * result the old value plus its offset in item order (aggregated-adds).
 * The items run their code up to the adds twice instead of waiting at
 * them (recount) only when every path to the adds loads and computes but
 * has no other effect, no add can follow an add, and the kernel has no
 * private memory. */
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
// REMARK-NEXT: kernel 'compact': aggregated-adds: 1 atomic add(s) to one address made once per workgroup
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
// REMARK-NEXT: kernel 'two_paths': aggregated-adds: 2 atomic add(s) to one address made once per workgroup

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
