/* Argument structs of the test kernels: shared by the kernels (C17) and the
 * tests (C++20), so the layout is the one both sides compile. */
#ifndef XGPU_TEST_KERNELS_H_
#define XGPU_TEST_KERNELS_H_

#include <stdint.h>

/* y[i] = a * x[i] + y[i] for i < n. */
typedef struct saxpy_args {
  const float* x; /* binding: n floats */
  float* y;       /* binding: n floats */
  float a;        /* scale */
  uint32_t n;     /* element count */
} saxpy_args_t;

/* Bounds-checked kernels whose item loops the host build versions into a
 * guard-free copy (tools/xgpu-wiloop). guarded_rows: i = gid1 * row + gid0 +
 * offset (uint32_t, wrapping), out[i] = a * x[i] + y[i] where i < n.
 * guarded_stencil: on a w x h grid, interior points (0 < gx < w - 1,
 * 0 < gy < h - 1) get the mean of their 4 neighbours in `in`, the border a
 * copy of `in`. */
typedef struct guarded_rows_args {
  const float* x; /* binding: n floats */
  const float* y; /* binding: n floats */
  float* out;     /* binding: n floats */
  float a;        /* scale */
  uint32_t n;     /* element count */
  uint32_t row;   /* index step per grid row (may wrap) */
  uint32_t offset;/* index of item (0, 0) (may wrap) */
} guarded_rows_args_t;

typedef struct guarded_stencil_args {
  const float* in; /* binding: w*h floats */
  float* out;      /* binding: w*h floats */
  uint32_t w;      /* grid width */
  uint32_t h;      /* grid height */
} guarded_stencil_args_t;

/* Writes every work item's ids: out[global linear id] = {global id x, y, z,
 * local linear id, workgroup linear id, workgroup item count x*y*z}. */
typedef struct ids_args {
  uint32_t* out;      /* binding: grid x*y*z records of XGPU_TEST_IDS_FIELDS uint32 */
  uint32_t reserved;  /* zero */
} ids_args_t;
#define XGPU_TEST_IDS_FIELDS 8u

/* Atomics across workgroups: counters[value % bins] += 1 for every value,
 * and *total += value (agent scope), *maximum = max (agent scope). */
typedef struct histogram_args {
  const uint32_t* values; /* binding: n values */
  uint32_t* bins;         /* binding: bin_count counters, zeroed by the caller */
  uint32_t* summary;      /* binding: [0] = sum of values, [1] = max value */
  uint32_t n;             /* value count */
  uint32_t bin_count;     /* counters in bins */
} histogram_args_t;

/* Per-workgroup sum with groupshared memory and barriers: out[workgroup] =
 * sum of in[] over the workgroup's items. Workgroup size <= 256, power of 2. */
typedef struct reduce_args {
  const float* in; /* binding: n floats */
  float* out;      /* binding: one float per workgroup */
  uint32_t n;      /* element count */
} reduce_args_t;
#define XGPU_TEST_REDUCE_MAX_WORKGROUP 256u
typedef struct reduce_shared {
  float partial[XGPU_TEST_REDUCE_MAX_WORKGROUP]; /* one value per work item */
} reduce_shared_t;

/* Inclusive prefix sum within each workgroup (Hillis-Steele, double
 * buffered in groupshared memory); totals[workgroup] = the workgroup's sum.
 * Dynamic group memory holds one uint32 per work item that records the
 * item's input (checked by the test through `echo`). */
typedef struct scan_args {
  const uint32_t* in;  /* binding: n values */
  uint32_t* out;       /* binding: n inclusive prefix sums (per workgroup) */
  uint32_t* totals;    /* binding: one sum per workgroup */
  uint32_t* echo;      /* binding: n values read back from dynamic group memory */
  uint32_t n;          /* element count */
  uint32_t reserved;   /* zero */
} scan_args_t;
#define XGPU_TEST_SCAN_MAX_WORKGROUP 256u
typedef struct scan_shared {
  uint32_t buffer[2][XGPU_TEST_SCAN_MAX_WORKGROUP]; /* ping-pong partial sums */
} scan_shared_t;

/* Fixed workgroup size (64x1x1): out[i] = value + local id, for i < n. */
typedef struct fill_args {
  uint32_t* out;   /* binding: n values */
  uint32_t value;  /* base value */
  uint32_t n;      /* element count */
} fill_args_t;
#define XGPU_TEST_FILL_WORKGROUP 64u

/* Workgroup-scope atomics on groupshared memory: per workgroup,
 * out[3 * workgroup + 0] = items, + 1 = max local id + 1, + 2 = xor of
 * local ids (each computed with atomics by every item). */
typedef struct group_atomics_args {
  uint32_t* out;      /* binding: 3 values per workgroup */
  uint32_t reserved;  /* zero */
} group_atomics_args_t;
typedef struct group_atomics_shared {
  uint32_t count;     /* items that arrived */
  uint32_t maximum;   /* max local id + 1 */
  uint32_t bits;      /* xor of local ids */
  uint32_t reserved;  /* keeps the struct 16 bytes */
} group_atomics_shared_t;

/* Fixed workgroup size (64x1x1), barriers, no static group memory: each
 * workgroup reverses its items through dynamic group memory (one uint32 per
 * work item): out[first + l] = in[first + items - 1 - l]. */
typedef struct reverse_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: n values */
  uint32_t n;         /* element count */
  uint32_t reserved;  /* zero */
} reverse_args_t;
#define XGPU_TEST_REVERSE_WORKGROUP 64u

/* C++ source, loop mode: out[i] = clamp(a * in[i]^2 + b * in[i] + c, lo, hi)
 * for i < n. */
typedef struct poly_clamp_args {
  const float* in; /* binding: n floats */
  float* out;      /* binding: n floats */
  float a;         /* x^2 coefficient */
  float b;         /* x coefficient */
  float c;         /* constant term */
  float lo;        /* lower clamp bound */
  float hi;        /* upper clamp bound */
  uint32_t n;      /* element count */
} poly_clamp_args_t;

/* C++ source, fixed workgroup size 8x8x1, groupshared memory and barriers:
 * out[ty * tiles_x + tx] = max of in over the 8x8 tile (tx, ty) of a
 * width x height image (row-major); edge tiles are partial. */
typedef struct tile_max_args {
  const uint32_t* in; /* binding: width * height values */
  uint32_t* out;      /* binding: one value per tile */
  uint32_t width;     /* image width (items) */
  uint32_t height;    /* image height (items) */
} tile_max_args_t;
#define XGPU_TEST_TILE 8u
typedef struct tile_max_shared {
  uint32_t values[XGPU_TEST_TILE][XGPU_TEST_TILE]; /* [y][x] partial maxima */
} tile_max_shared_t;

/* Work-item loop transform (tools/xgpu-wiloop): `carry` keeps a value and a
 * private array live across barriers, runs barriers in a uniform loop of
 * `rounds` iterations and under a uniform condition, exchanges through
 * dynamic groupshared memory (one uint32_t per work item), and items past n
 * skip the work but still reach every barrier. `tail_return` items past n
 * return before the barrier (hsa-cpu counts them as arrived). */
typedef struct carry_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: n values */
  uint32_t n;         /* element count */
  uint32_t rounds;    /* barrier loop iterations */
} carry_args_t;

/* `x_ranges` (args: carry_args_t, `rounds` unused): 2-D workgroups, one
 * uint32_t of dynamic groupshared memory per work item (row-major, x
 * fastest); after loading in[global linear id] (0 past n), regions that only
 * some items of each row run, each chosen by a comparison of the local x id
 * with a constant, as a tree step in a kernel is (the transform runs such a
 * region's loop over those items only):
 *   x < 5: += 100;  x <= 6: *= 3;  !(x > 9): ^= 0x55;  (int)x < 3: += 7;
 *   x == 0: v = the sum of the row's values;
 * then every item writes its value to out[global linear id] (when < n). */

/* Fused regions (tools/xgpu-wiloop runs a barrier's two regions as one
 * loop over the items of a one-row workgroup, in the order the group-memory
 * accesses ask for). Args: carry_args_t (`rounds` unused); one uint32_t of
 * dynamic groupshared memory per x; g the global linear id (x fastest),
 * mine = in[g] (0 past n). The first row of each workgroup (local y = z =
 * 0) sets v[x] = mine and, with count the row's item count, runs:
 *   fuse_scan (descending): for off = 1, 2, .. 32: v[x] += x >= off ? v[x - off] : 0;
 *   fuse_up (ascending): for d = 1, 3, 7, 15: v[x] = v[x] * 3 + (x + d < count ? v[x + d] : 0);
 *   fuse_both (both orders, not fused): for k = 0, 1, 2:
 *     v[x] = (v[x] ^ ((x > 0 ? v[x - 1] : 0) + (x + 1 < count ? v[x + 1] : 0))) + k;
 *   fuse_global (a global store in the first region, not fused): for off = 1, 2, 4:
 *     left = x >= off ? v[x - off] : 0; out[g] = left + off (g < n);
 *     v[x] += g < n ? left + off : left;
 * each step's right-hand side from the values before it (a barrier in
 * between); other rows do nothing to group memory. Every item with g < n
 * writes out[g] = first row ? v[x] : mine. */

/* `append` (a kernel without barriers whose agent-scope atomic adds to one
 * address per dispatch are aggregated per workgroup by the transform): the
 * item at (x, y) of a grid_width-wide 2-D grid, g = y * grid_width + x,
 * with g < n and v = in[g]:
 *   when v % 3 != 0, writes g to out[atomic_add(&counters[0], 1)];
 *   for k < v % 4, takes k + 1 slots, at = atomic_add(&counters[1], k + 1),
 *   and writes at to starts[g * 3 + k];
 *   adds v % 5 to counters[2] (the old value unused). */
typedef struct append_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: n values */
  uint32_t* starts;   /* binding: 3 n values */
  uint32_t* counters; /* binding: 3 counters, zero before the dispatch */
  uint32_t n;         /* element count */
  uint32_t grid_width;
} append_args_t;

/* `recount` (a kernel without barriers whose aggregated adds are reached
 * only through code without effects: the transform counts each workgroup's
 * operands in a first pass, makes the one atomic add, then runs the items
 * with the offsets) and `recount_per_item` (the same body with acq_rel
 * adds, which the transform leaves alone: one atomic per item): the item at
 * (x, y) of a grid_width-wide 2-D grid, g = y * grid_width + x, with g < n,
 * v = in[g] and h = v hashed (v % 5 rounds of h = h * 31 + k):
 *   when h % 3 == 0, writes h to side[g] and does nothing else;
 *   else when h & 4, takes v % 4 slots (0 to 3),
 *   at = atomic_add(&counters[0], v % 4), and writes g to out[at .. at + v % 4);
 *   else writes g to out2[atomic_add(&counters[1], 1)]. */
typedef struct recount_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: 3 n values */
  uint32_t* out2;     /* binding: n values */
  uint32_t* side;     /* binding: n values */
  uint32_t* counters; /* binding: 2 counters, zero before the dispatch */
  uint32_t n;         /* element count */
  uint32_t grid_width;
} recount_args_t;
static inline uint32_t recount_hash(uint32_t v) {
  uint32_t h = v;
  for (uint32_t k = 0; k < v % 5u; ++k) h = h * 31u + k;
  return h;
}

/* Kernels without barriers whose item loop runs an inner loop of the same
 * trip count for every item (the transform interleaves several items'
 * inner loops in full workgroups: unroll-and-jam):
 * `jam_matmul`: item (col, row) with row < rows and col < cols writes
 *   c[row * cols + col] = sum over k < depth of a[row * depth + k] * b[k * cols + col]
 *   (in k order);
 * `jam_column_sums`: item col < cols writes
 *   c[col] = sum over k < depth of a[k * cols + col] * b[k] (rows unused);
 * `jam_unguarded`: jam_matmul without its bounds check (for grids of
 *   exactly cols x rows items);
 * `jam_private`: jam_matmul with the products summed into a private array
 *   of 4 partial sums, product k into partial[(5 k + col) % 4], then
 *   c[row * cols + col] = ((p[0] + p[1]) + p[2]) + p[3] (a stack slot that
 *   every item writes: not interleaved);
 * `jam_triangle` (an inner trip count that differs per item: not
 *   interleaved): item (col, row) as in jam_matmul writes
 *   c[row * cols + col] = sum over k <= col, k < depth of a[row * depth + k]. */
typedef struct jam_args {
  const float* a; /* binding */
  const float* b; /* binding */
  float* c;       /* binding */
  uint32_t rows;
  uint32_t cols;
  uint32_t depth;
} jam_args_t;
/* Histograms whose last step is one agent-scope atomic add per bin per
 * workgroup, as a GPU histogram's is (the transform combines such tail
 * adds across the run of workgroups a call runs, tools/xgpu-wiloop). With
 * W x H the workgroup size, w x h a workgroup's item count (smaller at the
 * grid's edges), (x, y) an item's local id and g = global y * grid width +
 * global x: each item with g < n counts v = in[g] % (w * h) in its
 * workgroup's groupshared bin (v / w) * W + v % w (one uint32_t of dynamic
 * groupshared memory per item of a full workgroup); then each item whose
 * bin is not zero adds it to
 *   tail_bins:          bins[(workgroup id y % 2) * W * H + y * W + x]
 *   tail_bins_by_group: bins[(workgroup id x % 3) * W * H + y * W + x]
 * The second's address depends on the workgroup's x id: not combined.
 * tail_bins_return is tail_bins whose items with g >= n return before the
 * first barrier: their bins are counted but never added to `bins` (and
 * their workgroups' regions run as the transform's dispatcher picks). */
typedef struct tail_bins_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* bins;     /* binding: 2 (tail_bins) or 3 W * H bins */
  uint32_t n;         /* element count */
} tail_bins_args_t;

/* 1-, 2- and 3-D workgroups with static groupshared memory: every item
 * stores its global linear id, then reads the one of the item at the
 * reversed local linear position of its workgroup. */
#define XGPU_TEST_GRID_MAX_ITEMS 256u
typedef struct grid_reverse_args {
  uint32_t* out; /* binding: one value per work item of the grid */
} grid_reverse_args_t;
typedef struct grid_reverse_shared {
  uint32_t ids[XGPU_TEST_GRID_MAX_ITEMS]; /* by local linear id */
} grid_reverse_shared_t;

/* `run_bins` and `run_bins_over`: a groupshared histogram per workgroup
 * (one-row workgroups of up to XGPU_TEST_RUN_BINS items along x), whose
 * tail adds are combined across runs of workgroups. With items the
 * workgroup's item count, g the global linear id and bins[] zeroed by
 * every item (bins[lid] = 0), item g < n adds `weight` to
 * bins[in[g] % items]; then item lid adds bins[lid] to out[lid] when it is
 * not 0 (`run_bins`: the shape whose group memory the transform keeps
 * across a run's workgroups) or 1 to out[lid] when bins[lid] > weight
 * (`run_bins_over`: the same shape, but a count that must stay per
 * workgroup). `run_bins_counted` is `run_bins` whose every item also adds
 * 1000 to out[XGPU_TEST_RUN_BINS - 1] before the first barrier (work the
 * first region does in every workgroup). */
#define XGPU_TEST_RUN_BINS 64u
typedef struct run_bins_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: XGPU_TEST_RUN_BINS counts */
  uint32_t n;         /* element count */
  uint32_t weight;
} run_bins_args_t;
typedef struct run_bins_shared {
  uint32_t bins[XGPU_TEST_RUN_BINS];
} run_bins_shared_t;

/* `sized_tree`: a barrier kernel of a required workgroup size
 * (XGPU_TEST_SIZED_WORKGROUP, 1, 1) with static groupshared memory, whose
 * full workgroups run the transform's sized path (group memory and values
 * that cross barriers kept in registers) and others the general loops.
 * With items the workgroup's item count, g the global id and
 * mine = in[g] (0 past n), every item:
 *   sum[lid] = mine; for s = 32, 16, .. 1: if (lid < s && lid + s < items)
 *     sum[lid] += sum[lid + s];                          (a tree sum)
 *   scan[lid] = 3 * mine + 1; for off = 1, 2, .. 32: scan[lid] +=
 *     lid >= off ? scan[lid - off] (as it was before the step) : 0;
 *   with `use_dynamic` (the dispatch gives items uint32_t of dynamic group
 *     memory): dyn[lid] = mine ^ 0x5a5a, read back as
 *     back = dyn[items - 1 - lid]; else back = 0;
 *   out[g] = (scan[lid] ^ (mine << 1)) + sum[0] + back, for g < n. */
#define XGPU_TEST_SIZED_WORKGROUP 64u
typedef struct sized_tree_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: n values */
  uint32_t n;         /* element count */
  uint32_t use_dynamic;
} sized_tree_args_t;
typedef struct sized_tree_shared {
  uint32_t sum[XGPU_TEST_SIZED_WORKGROUP];
  uint32_t scan[XGPU_TEST_SIZED_WORKGROUP];
} sized_tree_shared_t;

/* Regressions of the work-item loop transform: kernels it once got wrong
 * (kernels/wiloop_regressions.c). Each runs over workgroups of
 * XGPU_TEST_REGRESSION_WORKGROUP items; `in[g] = g` unless said otherwise.
 *   regression_sized_end: group v[lid] = 1; lid 0 sums v through a pointer
 *     up to one past the array's end (kept in a volatile local):
 *     out[wid] = XGPU_TEST_REGRESSION_WORKGROUP.
 *   regression_sized_table: v[lid] = lid; lid 0 reads a row pointer into v
 *     from a private table (row k & 3), adds 7 to the row's first element
 *     through it and reads it back directly: out[wid] = 16 * (k & 3) + 7.
 *   regression_kept_peek: bins zeroed, each item adds 1 to bin in[g] % 64
 *     and reads that bin back through an address built from an integer
 *     (out[g]: with in[g] = g, 1), then the bins are flushed into
 *     out[n + lid] with a tail atomic add.
 *   regression_sized_keptptr: a pointer to v[lid] (odd in[g]) or w[lid]
 *     (even) chosen before a barrier, written through after it:
 *     out[g] = v[lid] - (in[g] & 1) * 7 * before = 1. */
#define XGPU_TEST_REGRESSION_WORKGROUP 64u
typedef struct regression_args {
  uint32_t* in;  /* binding 0 */
  uint32_t* out; /* binding 1 */
  uint32_t n, k; /* constants */
} regression_args_t;
typedef struct regression_v64 {
  uint32_t v[XGPU_TEST_REGRESSION_WORKGROUP];
} regression_v64_t;
typedef struct regression_vw64 {
  uint32_t v[XGPU_TEST_REGRESSION_WORKGROUP];
  uint32_t w[XGPU_TEST_REGRESSION_WORKGROUP];
} regression_vw64_t;

/* Barrier loops whose trip count the workgroup size decides, read at run
 * time (no declared size): the work-item loop transform's sized copies by
 * the dispatch's workgroup size (kernels/wiloop_sizes.c). Workgroups of
 * any (x, y) up to 1024 items, each row of a workgroup on its own; `count`
 * a workgroup's items along x (the last may be partial), v(g) = g < n ?
 * in[g] : 0 for the global x id g, every row of the grid reading the same:
 *   sizes_tree: out[gy * workgroups along x + wid.x] = the sum of v over
 *     the row's items, by the textbook's interleaved tree
 *     (`lid % (2 s) == 0`, s < size);
 *   sizes_scan: out[gy * grid x + g] = the inclusive prefix sum of v
 *     within its workgroup's row, Hillis-Steele with two buffers (g < n
 *     only). */
#define XGPU_TEST_SIZES_MAX 1024u
typedef struct sizes_args {
  const uint32_t* in; /* binding 0 */
  uint32_t* out;      /* binding 1 */
  uint32_t n, pad;
} sizes_args_t;
typedef struct sizes_tree_shared {
  uint32_t a[XGPU_TEST_SIZES_MAX];
} sizes_tree_shared_t;
typedef struct sizes_scan_shared {
  uint32_t buf[2 * XGPU_TEST_SIZES_MAX];
} sizes_scan_shared_t;

/* Kernels that fault on purpose (kernels/fault_lines.c): the item whose
 * global x id is `faulting_item` accesses `target`, an address no mapping
 * covers, in a statement marked for the test (which reads the marks from
 * the source); every other item writes its id to out[id].
 *   fault_line_items: no barriers (item loops); a store.
 *   fault_line_barriers: barriers (work-item loops, or fibers); a load. */
typedef struct fault_line_args {
  uint32_t* out;          /* binding: one per item */
  uint64_t target;        /* the address the faulting item accesses */
  uint32_t faulting_item; /* global x id of the item that faults */
  uint32_t pad;
} fault_line_args_t;

/* The printing test kernels (printing.c, printing_cxx.cpp): out[i] = i (or,
 * with barriers, the next item's global id) for i < n, besides what they
 * print. */
typedef struct print_test_args {
  uint32_t* out;     /* binding: n words */
  uint32_t n;        /* item count */
  uint32_t reserved; /* zero */
} print_test_args_t;
typedef struct print_test_shared {
  uint32_t ring[256]; /* one word per work item */
} print_test_shared_t;

#endif /* XGPU_TEST_KERNELS_H_ */
