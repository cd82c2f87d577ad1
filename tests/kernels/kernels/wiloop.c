/* Barrier kernels that exercise the host's work-item loop transform
 * (tools/xgpu-wiloop); test_kernels.h says what each computes. */
#include <xgpu/kernel.h>

#include "test_kernels.h"

XGPU_KERNEL_BARRIERS(carry, carry_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t items = xgpu_workgroup_item_count(0);
  const uint32_t i = xgpu_global_id(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t value = i < args->n ? args->in[i] : 0u;
  uint32_t history[4];
  for (uint32_t k = 0; k < 4u; ++k) history[k] = value + k;
  for (uint32_t r = 0; r < args->rounds; ++r) {
    ring[lid] = value;
    xgpu_barrier();
    value = value * 3u + ring[(lid + 1u) % items] + history[r % 4u];
    history[r % 4u] ^= value;
    xgpu_barrier();
  }
  if (args->rounds % 2u == 1u) {
    ring[lid] = value;
    xgpu_barrier();
    value += ring[items - 1u - lid];
  }
  if (i < args->n) args->out[i] = value + history[0] + history[3];
}
XGPU_KERNEL_BINDINGS(carry, 2);

XGPU_KERNEL_BARRIERS(tail_return, carry_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  uint32_t* staged = (uint32_t*)xgpu_dynamic_groupshared();
  if (i >= args->n) return;
  const uint32_t value = args->in[i] + args->rounds;
  staged[lid] = value;
  xgpu_barrier();
  const uint32_t valid = args->n - xgpu_workgroup_id(0) * xgpu_workgroup_size(0);
  const uint32_t count = valid < xgpu_workgroup_size(0) ? valid : xgpu_workgroup_size(0);
  args->out[i] = value * 2u + staged[count - 1u - lid];
}
XGPU_KERNEL_BINDINGS(tail_return, 2);

XGPU_KERNEL_GROUPSHARED(grid_reverse, grid_reverse_args_t, args, grid_reverse_shared_t, shared) {
  const uint32_t local = (xgpu_local_id(2) * xgpu_workgroup_item_count(1) + xgpu_local_id(1)) *
                             xgpu_workgroup_item_count(0) +
                         xgpu_local_id(0);
  const uint32_t count =
      xgpu_workgroup_item_count(0) * xgpu_workgroup_item_count(1) * xgpu_workgroup_item_count(2);
  const uint32_t global = xgpu_global_linear_id();
  shared->ids[local] = global;
  xgpu_barrier();
  args->out[global] = shared->ids[count - 1u - local];
}
XGPU_KERNEL_BINDINGS(grid_reverse, 1);

XGPU_KERNEL_BARRIERS(x_ranges, carry_args_t, args) {
  const uint32_t x = xgpu_local_id(0);
  const uint32_t row = (xgpu_local_id(2) * xgpu_workgroup_item_count(1) + xgpu_local_id(1)) * xgpu_workgroup_item_count(0);
  const uint32_t columns = xgpu_workgroup_item_count(0);
  const uint32_t g =
      (xgpu_global_id(2) * xgpu_grid_size(1) + xgpu_global_id(1)) * xgpu_grid_size(0) + xgpu_global_id(0);
  uint32_t* v = (uint32_t*)xgpu_dynamic_groupshared() + row;
  v[x] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (x < 5u) v[x] += 100u;
  xgpu_barrier();
  if (x < 40u) v[x] -= v[x] >> 3;  // a bound long enough to vectorise
  xgpu_barrier();
  if (x <= 6u) v[x] *= 3u;
  xgpu_barrier();
  if (x > 9u) {
  } else {
    v[x] ^= 0x55u;
  }
  xgpu_barrier();
  if ((int32_t)x < 3) v[x] += 7u;
  xgpu_barrier();
  if (x == 0u) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < columns; ++k) sum += v[k];
    v[0] = sum;
  }
  xgpu_barrier();
  if (g < args->n) args->out[g] = v[x];
}
XGPU_KERNEL_BINDINGS(x_ranges, 2);

/* Fused regions (test_kernels.h, `fuse_*`): the first row of each
 * workgroup works on one uint32_t of group memory per x. */
#define FUSE_BEGIN                                                                                         \
  const uint32_t x = xgpu_local_id(0);                                                                     \
  const uint32_t count = xgpu_workgroup_item_count(0);                                                     \
  const uint32_t g =                                                                                       \
      (xgpu_global_id(2) * xgpu_grid_size(1) + xgpu_global_id(1)) * xgpu_grid_size(0) + xgpu_global_id(0); \
  const int lead = (xgpu_local_id(1) | xgpu_local_id(2)) == 0u;                                            \
  uint32_t* v = (uint32_t*)xgpu_dynamic_groupshared();                                                     \
  const uint32_t mine = g < args->n ? args->in[g] : 0u;                                                    \
  if (lead) v[x] = mine;                                                                                   \
  xgpu_barrier()
#define FUSE_END \
  if (g < args->n) args->out[g] = lead ? v[x] : mine

XGPU_KERNEL_BARRIERS(fuse_scan, carry_args_t, args) {
  FUSE_BEGIN;
  (void)count;
  for (uint32_t off = 1; off < 64u; off *= 2u) {
    const uint32_t left = lead && x >= off ? v[x - off] : 0u;
    xgpu_barrier();
    if (lead) v[x] += left;
    xgpu_barrier();
  }
  FUSE_END;
}
XGPU_KERNEL_BINDINGS(fuse_scan, 2);

XGPU_KERNEL_BARRIERS(fuse_up, carry_args_t, args) {
  FUSE_BEGIN;
  for (uint32_t d = 1; d < 16u; d = d * 2u + 1u) {
    const uint32_t right = lead && x + d < count ? v[x + d] : 0u;
    xgpu_barrier();
    if (lead) v[x] = v[x] * 3u + right;
    xgpu_barrier();
  }
  FUSE_END;
}
XGPU_KERNEL_BINDINGS(fuse_up, 2);

XGPU_KERNEL_BARRIERS(fuse_both, carry_args_t, args) {
  FUSE_BEGIN;
  for (uint32_t k = 0; k < 3u; ++k) {
    const uint32_t s = lead ? (x > 0u ? v[x - 1u] : 0u) + (x + 1u < count ? v[x + 1u] : 0u) : 0u;
    xgpu_barrier();
    if (lead) v[x] = (v[x] ^ s) + k;
    xgpu_barrier();
  }
  FUSE_END;
}
XGPU_KERNEL_BINDINGS(fuse_both, 2);

XGPU_KERNEL_BARRIERS(fuse_global, carry_args_t, args) {
  FUSE_BEGIN;
  (void)count;
  for (uint32_t off = 1; off < 8u; off *= 2u) {
    const uint32_t left = lead && x >= off ? v[x - off] : 0u;
    if (g < args->n) args->out[g] = left + off;
    xgpu_barrier();
    if (lead) v[x] += g < args->n ? args->out[g] : left;
    xgpu_barrier();
  }
  FUSE_END;
}
XGPU_KERNEL_BINDINGS(fuse_global, 2);

XGPU_KERNEL(append, append_args_t, args) {
  const uint32_t g = xgpu_global_id(1) * args->grid_width + xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v % 3u != 0u)
    args->out[xgpu_atomic_fetch_add(&args->counters[0], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = g;
  for (uint32_t k = 0; k < v % 4u; ++k)
    args->starts[g * 3u + k] =
        xgpu_atomic_fetch_add(&args->counters[1], k + 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_atomic_fetch_add(&args->counters[2], v % 5u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(append, 4);

#define RECOUNT_BODY(order)                                                                        \
  const uint32_t g = xgpu_global_id(1) * args->grid_width + xgpu_global_id(0);                   \
  if (g >= args->n) return;                                                                      \
  const uint32_t v = args->in[g];                                                                \
  const uint32_t h = recount_hash(v); /* a loop before the adds */                               \
  if (h % 3u == 0u) {                 /* a store no add follows */                               \
    args->side[g] = h;                                                                           \
    return;                                                                                      \
  }                                                                                              \
  if (h & 4u) {                                                                                  \
    const uint32_t take = v % 4u;                                                                \
    const uint32_t at = xgpu_atomic_fetch_add(&args->counters[0], take, order, XGPU_SCOPE_AGENT); \
    for (uint32_t k = 0; k < take; ++k) args->out[at + k] = g;                                   \
  } else {                                                                                       \
    args->out2[xgpu_atomic_fetch_add(&args->counters[1], 1u, order, XGPU_SCOPE_AGENT)] = g;      \
  }

XGPU_KERNEL(recount, recount_args_t, args) { RECOUNT_BODY(XGPU_ORDER_RELAXED) }
XGPU_KERNEL_BINDINGS(recount, 5);

XGPU_KERNEL(recount_per_item, recount_args_t, args) { RECOUNT_BODY(XGPU_ORDER_ACQ_REL) }
XGPU_KERNEL_BINDINGS(recount_per_item, 5);

XGPU_KERNEL(jam_matmul, jam_args_t, args) {
  const uint32_t col = xgpu_global_id(0), row = xgpu_global_id(1);
  if (row >= args->rows || col >= args->cols) return;
  float acc = 0.0f;
  for (uint32_t k = 0; k < args->depth; ++k) acc += args->a[row * args->depth + k] * args->b[k * args->cols + col];
  args->c[row * args->cols + col] = acc;
}
XGPU_KERNEL_BINDINGS(jam_matmul, 3);

XGPU_KERNEL(jam_column_sums, jam_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  if (col >= args->cols) return;
  float acc = 0.0f;
  for (uint32_t k = 0; k < args->depth; ++k) acc += args->a[k * args->cols + col] * args->b[k];
  args->c[col] = acc;
}
XGPU_KERNEL_BINDINGS(jam_column_sums, 3);

XGPU_KERNEL(jam_unguarded, jam_args_t, args) {
  const uint32_t col = xgpu_global_id(0), row = xgpu_global_id(1);
  float acc = 0.0f;
  for (uint32_t k = 0; k < args->depth; ++k) acc += args->a[row * args->depth + k] * args->b[k * args->cols + col];
  args->c[row * args->cols + col] = acc;
}
XGPU_KERNEL_BINDINGS(jam_unguarded, 3);

XGPU_KERNEL(jam_private, jam_args_t, args) {
  const uint32_t col = xgpu_global_id(0), row = xgpu_global_id(1);
  if (row >= args->rows || col >= args->cols) return;
  float partial[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (uint32_t k = 0; k < args->depth; ++k)
    partial[(k * 5u + col) % 4u] += args->a[row * args->depth + k] * args->b[k * args->cols + col];
  args->c[row * args->cols + col] = ((partial[0] + partial[1]) + partial[2]) + partial[3];
}
XGPU_KERNEL_BINDINGS(jam_private, 3);

XGPU_KERNEL(jam_triangle, jam_args_t, args) {
  const uint32_t col = xgpu_global_id(0), row = xgpu_global_id(1);
  if (row >= args->rows || col >= args->cols) return;
  float acc = 0.0f;
  for (uint32_t k = 0; k <= col && k < args->depth; ++k) acc += args->a[row * args->depth + k];
  args->c[row * args->cols + col] = acc;
}
XGPU_KERNEL_BINDINGS(jam_triangle, 3);
/* The body of tail_bins and tail_bins_by_group: `group` picks the set of
 * bins the workgroup adds to. */
#define TAIL_BINS_BODY(group)                                                           \
  const uint32_t width = xgpu_workgroup_size(0);                                        \
  const uint32_t bins = width * xgpu_workgroup_size(1);                                 \
  const uint32_t columns = xgpu_workgroup_item_count(0);                                \
  const uint32_t count = columns * xgpu_workgroup_item_count(1);                        \
  const uint32_t lid = xgpu_local_id(1) * width + xgpu_local_id(0);                     \
  const uint32_t g = xgpu_global_id(1) * xgpu_grid_size(0) + xgpu_global_id(0);        \
  uint32_t* sub = (uint32_t*)xgpu_dynamic_groupshared();                                \
  sub[lid] = 0;                                                                         \
  xgpu_barrier();                                                                       \
  if (g < args->n) {                                                                    \
    const uint32_t v = args->in[g] % count;                                             \
    xgpu_atomic_fetch_add(&sub[v / columns * width + v % columns], 1u, XGPU_ORDER_RELAXED, \
                          XGPU_SCOPE_WORKGROUP);                                        \
  }                                                                                     \
  xgpu_barrier();                                                                       \
  if (sub[lid] != 0)                                                                    \
    xgpu_atomic_fetch_add(&args->bins[(group) * bins + lid], sub[lid], XGPU_ORDER_RELAXED, \
                          XGPU_SCOPE_AGENT)

XGPU_KERNEL_BARRIERS(tail_bins, tail_bins_args_t, args) { TAIL_BINS_BODY(xgpu_workgroup_id(1) % 2u); }
XGPU_KERNEL_BINDINGS(tail_bins, 2);

XGPU_KERNEL_BARRIERS(tail_bins_by_group, tail_bins_args_t, args) { TAIL_BINS_BODY(xgpu_workgroup_id(0) % 3u); }
XGPU_KERNEL_BINDINGS(tail_bins_by_group, 2);

XGPU_KERNEL_BARRIERS(tail_bins_return, tail_bins_args_t, args) {
  const uint32_t width = xgpu_workgroup_size(0);
  const uint32_t bins = width * xgpu_workgroup_size(1);
  const uint32_t columns = xgpu_workgroup_item_count(0);
  const uint32_t count = columns * xgpu_workgroup_item_count(1);
  const uint32_t lid = xgpu_local_id(1) * width + xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(1) * xgpu_grid_size(0) + xgpu_global_id(0);
  uint32_t* sub = (uint32_t*)xgpu_dynamic_groupshared();
  sub[lid] = 0;
  if (g >= args->n) return;
  xgpu_barrier();
  const uint32_t v = args->in[g] % count;
  xgpu_atomic_fetch_add(&sub[v / columns * width + v % columns], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sub[lid] != 0)
    xgpu_atomic_fetch_add(&args->bins[(xgpu_workgroup_id(1) % 2u) * bins + lid], sub[lid], XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(tail_bins_return, 2);

/* 4 KiB per work item live across the barrier: more than the transform keeps
 * per item (tools/xgpu-wiloop), so this kernel keeps fiber mode. */
XGPU_KERNEL_BARRIERS(big_private, carry_args_t, args) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  const uint32_t items = xgpu_workgroup_item_count(0);
  uint32_t* ring = (uint32_t*)xgpu_dynamic_groupshared();
  uint32_t table[1024];
  const uint32_t value = i < args->n ? args->in[i] : 0u;
  for (uint32_t k = 0; k < 1024u; ++k) table[k] = value + k * args->rounds;
  ring[lid] = table[(lid * 7u) % 1024u];
  xgpu_barrier();
  if (i < args->n) args->out[i] = table[(lid * 13u) % 1024u] + ring[(lid + 1u) % items];
}
XGPU_KERNEL_BINDINGS(big_private, 2);

XGPU_KERNEL_GROUPSHARED_SIZED(sized_tree, sized_tree_args_t, args, sized_tree_shared_t, shared,
                              XGPU_TEST_SIZED_WORKGROUP, 1u, 1u) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t items = xgpu_workgroup_item_count(0);
  const uint32_t i = xgpu_global_id(0);
  const uint32_t mine = i < args->n ? args->in[i] : 0u;
  shared->sum[lid] = mine;
  shared->scan[lid] = 3u * mine + 1u;
  xgpu_barrier();
  for (uint32_t s = XGPU_TEST_SIZED_WORKGROUP / 2u; s > 0; s /= 2u) {
    if (lid < s && lid + s < items) shared->sum[lid] += shared->sum[lid + s];
    xgpu_barrier();
  }
  for (uint32_t off = 1; off < XGPU_TEST_SIZED_WORKGROUP; off *= 2u) {
    const uint32_t left = lid >= off ? shared->scan[lid - off] : 0u;
    xgpu_barrier();
    shared->scan[lid] += left;
    xgpu_barrier();
  }
  uint32_t* dyn = (uint32_t*)xgpu_dynamic_groupshared();
  if (args->use_dynamic) dyn[lid] = mine ^ 0x5a5au;
  xgpu_barrier();
  const uint32_t back = args->use_dynamic ? dyn[items - 1u - lid] : 0u;
  if (i < args->n) args->out[i] = (shared->scan[lid] ^ (mine << 1)) + shared->sum[0] + back;
}
XGPU_KERNEL_BINDINGS(sized_tree, 2);

#define RUN_BINS_BODY(first, tail)                                                             \
  const uint32_t lid = xgpu_local_id(0);                                                       \
  const uint32_t g = xgpu_global_id(1) * xgpu_grid_size(0) + xgpu_global_id(0);               \
  shared->bins[lid] = 0;                                                                       \
  first                                                                                        \
  xgpu_barrier();                                                                              \
  if (g < args->n)                                                                             \
    xgpu_atomic_fetch_add(&shared->bins[args->in[g] % xgpu_workgroup_item_count(0)], args->weight, \
                          XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);                           \
  xgpu_barrier();                                                                              \
  tail

XGPU_KERNEL_GROUPSHARED(run_bins, run_bins_args_t, args, run_bins_shared_t, shared) {
  RUN_BINS_BODY(, if (shared->bins[lid] != 0) xgpu_atomic_fetch_add(&args->out[lid], shared->bins[lid],
                                                                    XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(run_bins, 2);

XGPU_KERNEL_GROUPSHARED(run_bins_counted, run_bins_args_t, args, run_bins_shared_t, shared) {
  RUN_BINS_BODY(xgpu_atomic_fetch_add(&args->out[XGPU_TEST_RUN_BINS - 1u], 1000u, XGPU_ORDER_RELAXED,
                                      XGPU_SCOPE_AGENT);
                , if (shared->bins[lid] != 0) xgpu_atomic_fetch_add(&args->out[lid], shared->bins[lid],
                                                                    XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(run_bins_counted, 2);

XGPU_KERNEL_GROUPSHARED(run_bins_over, run_bins_args_t, args, run_bins_shared_t, shared) {
  RUN_BINS_BODY(, if (shared->bins[lid] > args->weight)
                    xgpu_atomic_fetch_add(&args->out[lid], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);)
}
XGPU_KERNEL_BINDINGS(run_bins_over, 2);
