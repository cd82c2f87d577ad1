/* Argument structs shared by the benchmark's kernels (kernels.c) and its
 * host side (cpu_kernels_bench.cpp). */
#ifndef XGPU_BENCH_CPU_KERNELS_H_
#define XGPU_BENCH_CPU_KERNELS_H_

#include <stdint.h>

#define BENCH_HISTOGRAM_BINS 256u
#define BENCH_REDUCE_WORKGROUP 256u

/* bins[v & 255] += 1 for every in[i], i < n; one item per element,
 * BENCH_HISTOGRAM_BINS-item workgroups, per-workgroup sub-histograms in
 * groupshared memory. */
typedef struct histogram_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* bins;     /* binding: BENCH_HISTOGRAM_BINS counts, zeroed */
  uint32_t n;         /* element count */
  uint32_t reserved;  /* zero */
} histogram_args_t;
typedef struct histogram_shared {
  uint32_t bins[BENCH_HISTOGRAM_BINS]; /* this workgroup's counts */
} histogram_shared_t;

/* sums[g] = sum of in[g * 256 .. g * 256 + 255] (tree reduction in
 * groupshared memory, a barrier per level). */
typedef struct reduce_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* sums;     /* binding: one sum per workgroup */
  uint32_t n;         /* element count */
  uint32_t reserved;  /* zero */
} reduce_args_t;
typedef struct reduce_shared {
  uint32_t partial[BENCH_REDUCE_WORKGROUP]; /* partial sums */
} reduce_shared_t;

/* c = a * b for n x n row-major float matrices; 2-D grid (x = column). */
typedef struct gemm_args {
  const float* a; /* binding: n * n */
  const float* b; /* binding: n * n */
  float* c;       /* binding: n * n */
  uint32_t n;     /* matrix order */
  uint32_t reserved; /* zero */
} gemm_args_t;

/* atax (PolyBench): y = A^T (A x) for an n x n row-major float matrix, in
 * two dispatches: tmp = A x (item = row), then y = A^T tmp (item = column). */
typedef struct atax_args {
  const float* a;   /* binding: n * n */
  const float* x;   /* binding: n (first pass) or tmp (second pass) */
  float* y;         /* binding: n: tmp (first pass) or y (second pass) */
  uint32_t n;       /* matrix order */
  uint32_t reserved; /* zero */
} atax_args_t;

/* One jacobi-2d time step (PolyBench): for every interior point,
 * out[i][j] = 0.2 * (in[i][j] + in[i][j-1] + in[i][j+1] + in[i+1][j] +
 * in[i-1][j]); the border is left as it is. 2-D grid (x = column). */
typedef struct jacobi_args {
  const float* in; /* binding: n * n */
  float* out;      /* binding: n * n */
  uint32_t n;      /* grid order */
  uint32_t reserved; /* zero */
} jacobi_args_t;

/* out[i] = in[g * 256] + ... + in[i] for the 256-element block g that holds
 * i (inclusive prefix sum per workgroup: Hillis-Steele in groupshared
 * memory, two barriers per step, 8 steps). */
#define BENCH_SCAN_WORKGROUP 256u
typedef struct scan_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: n values */
  uint32_t n;         /* element count */
  uint32_t reserved;  /* zero */
} scan_args_t;
typedef struct scan_shared {
  uint32_t v[BENCH_SCAN_WORKGROUP]; /* the block's running sums */
} scan_shared_t;

/* Stream compaction: every in[i] with (in[i] & 3) == 0 is appended to out
 * at an index taken from an agent-scope atomic counter (the order of the
 * kept values is therefore not defined; their multiset is). */
typedef struct compact_args {
  const uint32_t* in; /* binding: n values */
  uint32_t* out;      /* binding: n values (at most n kept) */
  uint32_t* count;    /* binding: one counter, zeroed */
  uint32_t n;         /* element count */
  uint32_t reserved;  /* zero */
} compact_args_t;

/* The compaction followed by a DYNAMIC indirect dispatch over the kept
 * values (through the xgpu API): `compact` as above, then `compact_groups`
 * (one item) writes the workgroup counts of the next dispatch from the kept
 * count, then `compact_process`, dispatched indirectly with those counts,
 * writes out2[i] = bench_compact_transform(out[i]) for every i < count. */
#define BENCH_COMPACT_WORKGROUP 1024u /* work items per workgroup of compact and compact_process */
static inline uint32_t bench_compact_transform(uint32_t v) { return v * 3u + 1u; }
typedef struct compact_groups_args {
  const uint32_t* count;     /* binding: the kept count compact wrote */
  uint32_t* workgroup_count; /* binding: {x, y, z} of the indirect dispatch */
} compact_groups_args_t;
typedef struct compact_process_args {
  const uint32_t* in;    /* binding: the kept values (compact's out) */
  uint32_t* out;         /* binding: one result per kept value */
  const uint32_t* count; /* binding: the kept count */
} compact_process_args_t;

/* --- Plainly written variants (kernels_plain.c) ------------------------------
 * The same computations written the way a user first writes them, not shaped
 * for the work-item-loop pass: strided loops over group memory, several
 * group atomics and atomics whose result is used, the workgroup size read at
 * run time instead of declared, small workgroups. Each computes exactly what
 * its kernel above computes (the benchmark checks them against the same C
 * loops). */
#define BENCH_PLAIN_WORKGROUP 64u /* work items per (1-D) workgroup of the plain variants, unless said otherwise */
#define BENCH_PLAIN_TILE 8u       /* gemm_plain's tile and jacobi2d_plain's workgroup: 8 x 8 items */

/* histogram256_plain: histogram_args_t; its group memory: the bins and the
 * count of elements the workgroup binned (a second group atomic). */
typedef struct histogram_plain_shared {
  uint32_t bins[BENCH_HISTOGRAM_BINS]; /* this workgroup's counts */
  uint32_t counted;                    /* elements this workgroup counted */
} histogram_plain_shared_t;

/* gemm_plain: gemm_args_t; one BENCH_PLAIN_TILE-square tile of a and of b
 * in group memory per step of the k loop. */
typedef struct gemm_plain_shared {
  float a[BENCH_PLAIN_TILE][BENCH_PLAIN_TILE]; /* a[row][t + kk] */
  float b[BENCH_PLAIN_TILE][BENCH_PLAIN_TILE]; /* b[t + kk][col] */
} gemm_plain_shared_t;

/* atax_ax_plain: atax_args_t; one workgroup per row, its items' partial sums. */
typedef struct atax_plain_shared {
  float partial[BENCH_PLAIN_WORKGROUP]; /* one per item */
} atax_plain_shared_t;

/* scan256_plain: scan_args_t; two buffers of the block's running sums, read
 * from one and written to the other at each step (at most 256 items). */
typedef struct scan_plain_shared {
  uint32_t buf[2 * BENCH_SCAN_WORKGROUP]; /* [0, size) and [size, 2 * size) */
} scan_plain_shared_t;

/* compact_plain (the shape of samples/indirect_dispatch's filter): the kept
 * value goes to the slot an atomic add on the count returns, and the item
 * whose slot opens a new block of BENCH_PLAIN_WORKGROUP kept values adds one
 * workgroup to the counts of the next dispatch (a second atomic that depends
 * on the first's result). At the end workgroup_count[0] ==
 * ceil(count / BENCH_PLAIN_WORKGROUP). */
typedef struct compact_plain_state {
  uint32_t workgroup_count[3]; /* x, y, z workgroups of compact_process_plain; y, z: 1 */
  uint32_t count;              /* kept values */
} compact_plain_state_t;
typedef struct compact_plain_args {
  const uint32_t* in;           /* binding: n values */
  uint32_t* out;                /* binding: n values (at most n kept) */
  compact_plain_state_t* state; /* binding: {0, 1, 1, 0} before the dispatch */
  uint32_t n;                   /* element count */
  uint32_t reserved;            /* zero */
} compact_plain_args_t;
/* compact_process_plain: out[i] = bench_compact_transform(in[i]) for every
 * i < state->count, dispatched indirectly with state->workgroup_count. */
typedef struct compact_process_plain_args {
  const uint32_t* in;                 /* binding: the kept values */
  uint32_t* out;                      /* binding: one result per kept value */
  const compact_plain_state_t* state; /* binding: compact_plain's state */
} compact_process_plain_args_t;

#endif /* XGPU_BENCH_CPU_KERNELS_H_ */
