/* Groupshared bins kept across the workgroups of a run
 * (tools/xgpu-wiloop/kept_bins.cpp, spec/kernels.md "Work-item loops" step
 * 5). Legality: a barrier kernel of three regions whose tail adds are
 * combined: region 0 only stores zeros of one integer type T to whole T
 * slots of group memory (loads of the kernarg and the record aside);
 * region 1 touches group memory only through integer atomic adds of T to
 * whole slots whose old value is unused; region 2 only loads whole T slots
 * and adds them (v, v != 0 ? v : 0, or truncated) to the combined totals;
 * in regions 0 and 2 every address and branch the same for one local id in
 * every workgroup of the run, but for `v != 0` around an update of v and
 * gates on a count that every add of region 1 also adds to; no per-item
 * slots; no group pointer escapes. The totals are then the same whether
 * each workgroup zeroes and flushes its bins or the run's first zeroes and
 * its last flushes: each slot of the run is the sum of the workgroups'
 * slots, a slot nobody zeroes is undefined at workgroup start, and a
 * workgroup whose count stays zero made no add. */
#include <xgpu/kernel.h>

typedef struct bins_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t n, weight;
} bins_args_t;
typedef struct bins_shared {
  uint32_t bins[256];
} bins_shared_t;

/* Zero the item's bin, count into data-chosen bins, flush the item's bin:
 * its regions, with `tail` the third. */
#define BINS_BODY(tail)                                                                 \
  const uint32_t lid = xgpu_local_id(0);                                                \
  const uint32_t g = xgpu_global_id(0);                                                 \
  sh->bins[lid] = 0;                                                                    \
  xgpu_barrier();                                                                       \
  if (g < args->n)                                                                      \
    xgpu_atomic_fetch_add(&sh->bins[args->in[g] % xgpu_workgroup_size(0)], 1u,          \
                          XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);                    \
  xgpu_barrier();                                                                       \
  tail

/* Fires: histogram256's shape, its tail add under `if (bins[lid])`. */
XGPU_KERNEL_GROUPSHARED(histogram, bins_args_t, args, bins_shared_t, sh) {
  BINS_BODY(if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED,
                                                     XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(histogram, 2);
// REMARK: kernel 'histogram': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'histogram': kept-bins: group memory kept across the workgroups of a run of full one-row workgroups
// REMARK: kernel 'histogram': work-item-loops:
// IR-LABEL: define internal void @histogram_xgpu_wi_(
// IR: %xgpu.accumulate = and i1
// IR-LABEL: define internal void @histogram_xgpu_run_workgroup_(

/* Fires: the tail adds the bin unconditionally. */
XGPU_KERNEL_GROUPSHARED(flush_all, bins_args_t, args, bins_shared_t, sh) {
  BINS_BODY(xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(flush_all, 2);
// REMARK: kernel 'flush_all': kept-bins: group memory kept
// REMARK: kernel 'flush_all': work-item-loops:

/* Fires: the adding region loops over the inputs (a grid-stride loop). */
XGPU_KERNEL_GROUPSHARED(strided_adds, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  for (uint32_t j = g; j < args->n; j += xgpu_grid_size(0))
    xgpu_atomic_fetch_add(&sh->bins[args->in[j] % xgpu_workgroup_size(0)], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(strided_adds, 2);
// REMARK: kernel 'strided_adds': kept-bins: group memory kept
// REMARK: kernel 'strided_adds': work-item-loops:

/* Should fire: two adds to one data-chosen bin, the second under a
 * condition; the adding region still only adds. */
XGPU_KERNEL_GROUPSHARED(twice, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n) {
    const uint32_t v = args->in[g];
    uint32_t* bin = &sh->bins[v % xgpu_workgroup_size(0)];
    xgpu_atomic_fetch_add(bin, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    if (v & 0x10000u) xgpu_atomic_fetch_add(bin, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  }
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(twice, 2);
// REMARK: kernel 'twice': combined-tails: 1 tail atomic add(s) combined
// (The bin's address, used in two blocks and chosen by data, is kept in the
// pass's own slot across them: the analysis follows it there.)
// REMARK: kernel 'twice': kept-bins: group memory kept
// REMARK: kernel 'twice': work-item-loops:

/* Near miss: the adding region reads a bin back through an address built
 * from an integer; a later workgroup would see the run's counts so far. */
XGPU_KERNEL_GROUPSHARED(int_address, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n) {
    const uint32_t bin = args->in[g] % xgpu_workgroup_size(0);
    const uint32_t seen = *(const uint32_t*)((uintptr_t)sh + bin * 4u);
    xgpu_atomic_fetch_add(&sh->bins[bin], seen == 0 ? 2u : 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  }
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(int_address, 2);
// REMARK: kernel 'int_address': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'int_address': not kept-bins: a group pointer escapes (stored, passed to a call or made into an integer)
// REMARK-NOT: kernel 'int_address': kept-bins:
// REMARK: kernel 'int_address': work-item-loops:

/* Near miss: the adding region reads a bin directly. */
XGPU_KERNEL_GROUPSHARED(reads_bin, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n) {
    const uint32_t bin = args->in[g] % xgpu_workgroup_size(0);
    const uint32_t seen = sh->bins[bin];
    xgpu_atomic_fetch_add(&sh->bins[bin], seen == 0 ? 2u : 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  }
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(reads_bin, 2);
// REMARK: kernel 'reads_bin': not kept-bins: the adding region touches group memory other than through adds whose result is unused
// REMARK-NOT: kernel 'reads_bin': kept-bins:
// REMARK: kernel 'reads_bin': work-item-loops:

/* Near miss: the adding region uses an add's old value (it counts the
 * bins each workgroup uses; kept, only the run's first use would count). */
XGPU_KERNEL_GROUPSHARED(old_value, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n) {
    const uint32_t bin = args->in[g] % xgpu_workgroup_size(0);
    const uint32_t old = xgpu_atomic_fetch_add(&sh->bins[bin], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    if (old == 0) xgpu_atomic_fetch_add(&args->out[255], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  }
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(old_value, 2);
// REMARK: kernel 'old_value': not kept-bins: the adding region touches group memory other than through adds whose result is unused
// REMARK: kernel 'old_value': work-item-loops:

/* Near miss: a maximum, not a sum, of the counts so far (kept across the
 * run, it would be the run's maximum). */
XGPU_KERNEL_GROUPSHARED(max_bins, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_max(&sh->bins[args->in[g] % xgpu_workgroup_size(0)], args->in[g], XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(max_bins, 2);
// REMARK: kernel 'max_bins': not kept-bins: the adding region touches group memory other than through adds whose result is unused
// REMARK: kernel 'max_bins': work-item-loops:

/* Near miss: the flushing region adds another item's bin when its own is
 * not zero (not the same once kept: the condition is on the run's sum). */
XGPU_KERNEL_GROUPSHARED(other_bin, bins_args_t, args, bins_shared_t, sh) {
  BINS_BODY(if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid ^ 1u], XGPU_ORDER_RELAXED,
                                                     XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(other_bin, 2);
// REMARK: kernel 'other_bin': not kept-bins: the flushing region branches on a value that may differ between the workgroups of a run
// REMARK-NOT: kernel 'other_bin': kept-bins:
// REMARK: kernel 'other_bin': work-item-loops:

/* Near miss: the flushing region adds something else than the bin (a
 * count of workgroups whose bin is over the weight: not the same once kept). */
XGPU_KERNEL_GROUPSHARED(over, bins_args_t, args, bins_shared_t, sh) {
  BINS_BODY(if (sh->bins[lid] > args->weight)
                xgpu_atomic_fetch_add(&args->out[lid], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(over, 2);
// REMARK: kernel 'over': not kept-bins: an update of the totals adds something other than a slot's value
// REMARK: kernel 'over': work-item-loops:

/* Near miss: the first region does more than zero: every item also adds
 * to a global counter, which later workgroups of a run would skip. */
XGPU_KERNEL_GROUPSHARED(counted, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_atomic_fetch_add(&args->out[255], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_add(&sh->bins[args->in[g] % xgpu_workgroup_size(0)], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(counted, 2);
// REMARK: kernel 'counted': combined-tails: 1 tail atomic add(s) combined across the run's workgroups; not an atomic add: the item does more after it than compute, read group memory, the kernarg or the record, make other combined adds and return
// REMARK: kernel 'counted': not kept-bins: the zeroing region writes memory other than group memory (a store or an atomic)
// REMARK-NOT: kernel 'counted': kept-bins:
// REMARK: kernel 'counted': work-item-loops:

/* Near miss: the first region does more than zero, under a condition. */
XGPU_KERNEL_GROUPSHARED(counted_once, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  if (lid == 0) xgpu_atomic_fetch_add(&args->out[255], 1000u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_add(&sh->bins[args->in[g] % xgpu_workgroup_size(0)], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(counted_once, 2);
// REMARK: kernel 'counted_once': not kept-bins: the zeroing region writes memory other than group memory (a store or an atomic)
// REMARK: kernel 'counted_once': work-item-loops:

/* Near miss: the first region stores something other than zero. */
XGPU_KERNEL_GROUPSHARED(seeded, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = args->weight;
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_add(&sh->bins[args->in[g] % xgpu_workgroup_size(0)], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(seeded, 2);
// REMARK: kernel 'seeded': not kept-bins: the zeroing region stores something other than zeros of one integer type to group memory
// REMARK: kernel 'seeded': work-item-loops:

/* Near miss: the adds are narrower than the bins. Each workgroup's byte
 * count wraps at 256 before its flush adds it; kept across the run, the
 * run's count wraps instead (two workgroups of 200 adds to a bin flush
 * 200 + 200 = 400 per workgroup, 400 mod 256 = 144 kept). The sum of the
 * workgroups' slots is the slot of the run's adds only for adds of the
 * slot's own width to the slot. */
XGPU_KERNEL_GROUPSHARED(byte_adds, bins_args_t, args, bins_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_add((uint8_t*)&sh->bins[args->in[g] % xgpu_workgroup_size(0)], (uint8_t)1u,
                          XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(byte_adds, 2);
// REMARK: kernel 'byte_adds': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'byte_adds': not kept-bins: an add to the bins is of another type than the zeroed slots
// REMARK: kernel 'byte_adds': work-item-loops:

/* Near miss: the adds are wider than the bins: a 64-bit add to a pair of
 * them carries from the low bin into the high one. Per workgroup an add of
 * 2^31 to the low bin flushes 2^31 and 0; kept across a run of two such
 * workgroups the pair holds 2^32: the low bin flushes 0 (the same, mod
 * 2^32) and the high one 1 instead of 0. */
typedef union pair_shared {
  uint32_t bins[256];
  uint64_t pairs[128];
} pair_shared_t;
XGPU_KERNEL_GROUPSHARED(wide_adds, bins_args_t, args, pair_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->bins[lid] = 0;
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_add(&sh->pairs[args->in[g] % 128u], (uint64_t)args->in[g] << 16, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->bins[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(wide_adds, 2);
// REMARK: kernel 'wide_adds': combined-tails: 1 tail atomic add(s) combined
// REMARK: kernel 'wide_adds': not kept-bins: an add to the bins is of another type than the zeroed slots
// REMARK: kernel 'wide_adds': work-item-loops:


/* Plainly written histograms (bench/cpu_kernels' histogram256_plain): the
 * bins zeroed and flushed in strided loops, a count of the adds beside them
 * that gates the flush. */
typedef struct counted_shared {
  uint32_t bins[256];
  uint32_t counted;
} counted_shared_t;

#define ZERO_COUNTED(counted_zero)                                                      \
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);                 \
  const uint32_t g = xgpu_global_id(0);                                                 \
  for (uint32_t b = lid; b < 256u; b += size) sh->bins[b] = 0;                          \
  counted_zero;                                                                         \
  xgpu_barrier()
#define FLUSH_COUNTED()                                                                 \
  for (uint32_t b = lid; b < 256u; b += size)                                           \
    if (sh->bins[b] != 0)                                                               \
      xgpu_atomic_fetch_add(&args->out[b], sh->bins[b], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)
#define ADD_BIN() \
  xgpu_atomic_fetch_add(&sh->bins[args->in[g] & 255u], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP)
#define ADD_COUNT(k) xgpu_atomic_fetch_add(&sh->counted, k, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP)

/* Fires: the gate `if (counted == 0) return;` on a count every add comes
 * with. No limit on the run: one add of 1 per item cannot wrap a 32-bit
 * count over a grid. */
XGPU_KERNEL_GROUPSHARED(plain_histogram, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    ADD_BIN();
    ADD_COUNT(1u);
  }
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(plain_histogram, 2);
// REMARK: kernel 'plain_histogram': combined-tails: 1 tail atomic add(s) combined across the run's workgroups (1 by element)
// REMARK: kernel 'plain_histogram': kept-bins-count: the count at group offset 1024 is apart from every other access of the adding region
// REMARK: kernel 'plain_histogram': kept-bins: group memory kept
// REMARK: kernel 'plain_histogram': work-item-loops:
// The adding region: the input's load and the bin's add promise not to
// touch the count, whose add has a scope of its own (LLVM then keeps it
// in a register across the item loop).
// IR-LABEL: define internal void @plain_histogram_xgpu_wi_(
// IR: %xgpu.accumulate = and i1
// IR: load i32, ptr %{{.*}}, align 4, !tbaa !{{[0-9]+}}, !noalias [[COUNT:![0-9]+]]
// IR-NEXT: and i32
// IR: [[BIN:%[0-9]+]] = load i32, ptr [[BINP:%[0-9]+]], align 4, !noalias [[COUNT]]
// IR-NEXT: add i32 [[BIN]], 1
// IR-NEXT: store i32 %{{.*}}, ptr [[BINP]], align 4, !noalias [[COUNT]]
// IR-NEXT: [[N:%[0-9]+]] = load i32, ptr [[NP:%[0-9]+]], align 4, !alias.scope [[COUNT]]
// IR-NEXT: add i32 [[N]], 1
// IR-NEXT: store i32 %{{.*}}, ptr [[NP]], align 4, !alias.scope [[COUNT]]
// IR-LABEL: define internal void @plain_histogram_xgpu_run_workgroup_(

/* Fires, with a limit: a count of 2 per add could wrap over a run of 2^31
 * items, so only shorter runs keep their bins. */
XGPU_KERNEL_GROUPSHARED(count_by_two, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    ADD_BIN();
    ADD_COUNT(2u);
  }
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(count_by_two, 2);
// REMARK: kernel 'count_by_two': kept-bins: group memory kept
// IR-LABEL: define internal void @count_by_two_xgpu_wi_(
// IR: icmp ult i64 {{.*}}, 2147483648
// IR-LABEL: define internal void @count_by_two_xgpu_run_workgroup_(

/* Fires: the gate as one term of the flush loop's condition, and an
 * unconditional flush of another item's bin (a slot's value into a total
 * the same in every workgroup). */
XGPU_KERNEL_GROUPSHARED(gate_in_loop, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    ADD_BIN();
    ADD_COUNT(1u);
  }
  xgpu_barrier();
  for (uint32_t b = lid; sh->counted != 0 && b < 256u; b += size)
    xgpu_atomic_fetch_add(&args->out[b], sh->bins[b ^ 1u], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(gate_in_loop, 2);
// REMARK: kernel 'gate_in_loop': kept-bins: group memory kept

/* Fires: strided loops without a count. */
XGPU_KERNEL_GROUPSHARED(strided, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED((void)0);
  if (g < args->n) ADD_BIN();
  xgpu_barrier();
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(strided, 2);
// REMARK: kernel 'strided': kept-bins: group memory kept

/* Near miss: some adds to the bins come without an add to the count, so a
 * workgroup whose count is zero may still have counts to flush. */
XGPU_KERNEL_GROUPSHARED(count_apart, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) ADD_BIN();
  if (g < args->n / 2u) ADD_COUNT(1u);
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(count_apart, 2);
// REMARK: kernel 'count_apart': not kept-bins: an add of the counting region is not beside an add to a gate's count
// REMARK-NOT: kernel 'count_apart': kept-bins:

/* Near miss: the count is added to in a loop (how often, the analysis does
 * not bound). */
XGPU_KERNEL_GROUPSHARED(count_in_loop, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    ADD_BIN();
    for (uint32_t k = 0; k < args->weight; ++k) ADD_COUNT(1u);
  }
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(count_in_loop, 2);
// REMARK: kernel 'count_in_loop': not kept-bins: a gate's count is added to in a loop
// REMARK-NOT: kernel 'count_in_loop': kept-bins:

/* Near miss: the last item zeroes the count; nothing says which item that
 * is (the analysis proves item 0's stores only). */
XGPU_KERNEL_GROUPSHARED(count_zeroed_last, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == size - 1u) sh->counted = 0);
  if (g < args->n) {
    ADD_BIN();
    ADD_COUNT(1u);
  }
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(count_zeroed_last, 2);
// REMARK: kernel 'count_zeroed_last': not kept-bins: a gate's count is not set to zero by item 0 on every path of the zeroing region
// REMARK-NOT: kernel 'count_zeroed_last': kept-bins:

/* Near miss: a threshold, not a gate on zero (the run's count passes it
 * where a workgroup's would not). */
XGPU_KERNEL_GROUPSHARED(threshold, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    ADD_BIN();
    ADD_COUNT(1u);
  }
  xgpu_barrier();
  if (sh->counted < 4u) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(threshold, 2);
// REMARK: kernel 'threshold': not kept-bins: the flushing region branches on a value that may differ between the workgroups of a run
// REMARK-NOT: kernel 'threshold': kept-bins:

/* Near miss: the zeroing loop's bound depends on the workgroup's id (later
 * workgroups would zero other bins). */
XGPU_KERNEL_GROUPSHARED(zero_by_group, bins_args_t, args, counted_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t g = xgpu_global_id(0);
  for (uint32_t b = lid; b < 128u + (xgpu_workgroup_id(0) & 1u) * 128u; b += size) sh->bins[b] = 0;
  xgpu_barrier();
  if (g < args->n) ADD_BIN();
  xgpu_barrier();
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(zero_by_group, 2);
// REMARK: kernel 'zero_by_group': not kept-bins: the zeroing region branches on a value that may differ between the workgroups of a run
// REMARK-NOT: kernel 'zero_by_group': kept-bins:

/* Fires, but the count is not kept apart: an add to a bin may land on it
 * (index below 257; an operand of 1 cannot bring it back to zero). */
XGPU_KERNEL_GROUPSHARED(bin_near_count, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    xgpu_atomic_fetch_add(&sh->bins[args->in[g] % 257u], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    ADD_COUNT(1u);
  }
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(bin_near_count, 2);
// REMARK-NOT: kernel 'bin_near_count': kept-bins-count
// REMARK: kernel 'bin_near_count': kept-bins: group memory kept
// IR-LABEL: define internal void @bin_near_count_xgpu_wi_(
// IR-NOT: !alias.scope
// IR-LABEL: define internal void @bin_near_count_xgpu_run_workgroup_(

/* Near miss: an add to a bin may land on the count (index below 257) with
 * an operand of unknown range, which could bring the count back to zero. */
XGPU_KERNEL_GROUPSHARED(bin_on_count, bins_args_t, args, counted_shared_t, sh) {
  ZERO_COUNTED(if (lid == 0) sh->counted = 0);
  if (g < args->n) {
    xgpu_atomic_fetch_add(&sh->bins[args->in[g] % 257u], args->in[g], XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    ADD_COUNT(1u);
  }
  xgpu_barrier();
  if (sh->counted == 0) return;
  FLUSH_COUNTED();
}
XGPU_KERNEL_BINDINGS(bin_on_count, 2);
// REMARK: kernel 'bin_on_count': not kept-bins: a gate's count may wrap within one work item's adds
// REMARK-NOT: kernel 'bin_on_count': kept-bins:
