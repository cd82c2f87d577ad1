/* The benchmark's kernels, written as a new user would write them from the
 * textbook definitions (cpu_kernels.h says what each computes). */
#include <xgpu/kernel.h>

#include "cpu_kernels.h"

XGPU_KERNEL_GROUPSHARED(histogram256, histogram_args_t, args, histogram_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  shared->bins[lid] = 0;
  xgpu_barrier();
  if (i < args->n)
    xgpu_atomic_fetch_add(&shared->bins[args->in[i] & (BENCH_HISTOGRAM_BINS - 1u)], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (shared->bins[lid] != 0)
    xgpu_atomic_fetch_add(&args->bins[lid], shared->bins[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(histogram256, 2);

XGPU_KERNEL_GROUPSHARED(reduce_sum, reduce_args_t, args, reduce_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  shared->partial[lid] = i < args->n ? args->in[i] : 0u;
  xgpu_barrier();
  for (uint32_t stride = BENCH_REDUCE_WORKGROUP / 2u; stride > 0; stride /= 2u) {
    if (lid < stride) shared->partial[lid] += shared->partial[lid + stride];
    xgpu_barrier();
  }
  if (lid == 0) args->sums[xgpu_workgroup_id(0)] = shared->partial[0];
}
XGPU_KERNEL_BINDINGS(reduce_sum, 2);

XGPU_KERNEL(gemm, gemm_args_t, args) {
  const uint32_t col = xgpu_global_id(0), row = xgpu_global_id(1), n = args->n;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (uint32_t k = 0; k < n; ++k) acc += args->a[row * n + k] * args->b[k * n + col];
  args->c[row * n + col] = acc;
}
XGPU_KERNEL_BINDINGS(gemm, 3);
