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

XGPU_KERNEL_GROUPSHARED_SIZED(reduce_sum, reduce_args_t, args, reduce_shared_t, shared, BENCH_REDUCE_WORKGROUP, 1, 1) {
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

XGPU_KERNEL(atax_ax, atax_args_t, args) {
  const uint32_t row = xgpu_global_id(0), n = args->n;
  if (row >= n) return;
  float acc = 0.0f;
  for (uint32_t j = 0; j < n; ++j) acc += args->a[row * n + j] * args->x[j];
  args->y[row] = acc;
}
XGPU_KERNEL_BINDINGS(atax_ax, 3);

XGPU_KERNEL(atax_atx, atax_args_t, args) {
  const uint32_t col = xgpu_global_id(0), n = args->n;
  if (col >= n) return;
  float acc = 0.0f;
  for (uint32_t i = 0; i < n; ++i) acc += args->a[i * n + col] * args->x[i];
  args->y[col] = acc;
}
XGPU_KERNEL_BINDINGS(atax_atx, 3);

XGPU_KERNEL(jacobi2d, jacobi_args_t, args) {
  const uint32_t j = xgpu_global_id(0), i = xgpu_global_id(1), n = args->n;
  if (i == 0 || j == 0 || i >= n - 1 || j >= n - 1) return;
  const float* in = args->in;
  args->out[i * n + j] =
      0.2f * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1] + in[(i + 1) * n + j] + in[(i - 1) * n + j]);
}
XGPU_KERNEL_BINDINGS(jacobi2d, 2);

XGPU_KERNEL_GROUPSHARED_SIZED(scan256, scan_args_t, args, scan_shared_t, shared, BENCH_SCAN_WORKGROUP, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  shared->v[lid] = i < args->n ? args->in[i] : 0u;
  xgpu_barrier();
  for (uint32_t offset = 1; offset < BENCH_SCAN_WORKGROUP; offset *= 2u) {
    const uint32_t left = lid >= offset ? shared->v[lid - offset] : 0u;
    xgpu_barrier();
    shared->v[lid] += left;
    xgpu_barrier();
  }
  if (i < args->n) args->out[i] = shared->v[lid];
}
XGPU_KERNEL_BINDINGS(scan256, 2);

XGPU_KERNEL(compact, compact_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  const uint32_t v = args->in[i];
  if ((v & 3u) == 0u)
    args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(compact, 3);

/* One item: the workgroup counts of compact_process's DYNAMIC indirect
 * dispatch, from the count compact left (computed on the device: the host
 * never reads the count in between). */
XGPU_KERNEL(compact_groups, compact_groups_args_t, args) {
  if (xgpu_global_id(0) != 0) return;
  args->workgroup_count[0] = (*args->count + BENCH_COMPACT_WORKGROUP - 1u) / BENCH_COMPACT_WORKGROUP;
  args->workgroup_count[1] = 1u;
  args->workgroup_count[2] = 1u;
}
XGPU_KERNEL_BINDINGS(compact_groups, 2);

XGPU_KERNEL(compact_process, compact_process_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= *args->count) return;  /* the last workgroup's tail */
  args->out[i] = bench_compact_transform(args->in[i]);
}
XGPU_KERNEL_BINDINGS(compact_process, 3);
