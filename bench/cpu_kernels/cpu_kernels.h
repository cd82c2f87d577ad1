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

#endif /* XGPU_BENCH_CPU_KERNELS_H_ */
