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

#endif /* XGPU_BENCH_CPU_KERNELS_H_ */
