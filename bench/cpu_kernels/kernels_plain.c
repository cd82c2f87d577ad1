/* The benchmark's kernels written plainly, the way a user first writes them
 * (cpu_kernels.h, "Plainly written variants"): not shaped for the
 * work-item-loop pass. Each computes exactly what its kernel in kernels.c
 * computes. */
#include <xgpu/kernel.h>

#include "cpu_kernels.h"

/* 64-item workgroups: every item zeroes and flushes a quarter of the bins in
 * strided loops, and the workgroup counts what it binned beside the bins (a
 * second group atomic), which decides whether it has anything to add. */
XGPU_KERNEL_GROUPSHARED(histogram256_plain, histogram_args_t, args, histogram_plain_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t i = xgpu_global_id(0);
  for (uint32_t b = lid; b < BENCH_HISTOGRAM_BINS; b += size) shared->bins[b] = 0;
  if (lid == 0) shared->counted = 0;
  xgpu_barrier();
  if (i < args->n) {
    xgpu_atomic_fetch_add(&shared->bins[args->in[i] & (BENCH_HISTOGRAM_BINS - 1u)], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
    xgpu_atomic_fetch_add(&shared->counted, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  }
  xgpu_barrier();
  if (shared->counted == 0) return;
  for (uint32_t b = lid; b < BENCH_HISTOGRAM_BINS; b += size)
    if (shared->bins[b] != 0)
      xgpu_atomic_fetch_add(&args->bins[b], shared->bins[b], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(histogram256_plain, 2);

/* The textbook's first tree (interleaved pairs): the workgroup size read at
 * run time, not declared; dispatched with 256-item workgroups. */
XGPU_KERNEL_GROUPSHARED(reduce_sum_plain, reduce_args_t, args, reduce_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t i = xgpu_global_id(0);
  shared->partial[lid] = i < args->n ? args->in[i] : 0u;
  xgpu_barrier();
  for (uint32_t s = 1; s < size; s *= 2u) {
    if (lid % (2u * s) == 0) shared->partial[lid] += shared->partial[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->sums[xgpu_workgroup_id(0)] = shared->partial[0];
}
XGPU_KERNEL_BINDINGS(reduce_sum_plain, 2);

/* Tiled, as GPU guides teach it: 8 x 8 workgroups, a tile of a and of b in
 * group memory per step, two barriers per step; the sum over k runs in the
 * same order as the textbook loop's. */
XGPU_KERNEL_GROUPSHARED(gemm_plain, gemm_args_t, args, gemm_plain_shared_t, shared) {
  const uint32_t tx = xgpu_local_id(0), ty = xgpu_local_id(1);
  const uint32_t col = xgpu_global_id(0), row = xgpu_global_id(1), n = args->n;
  float acc = 0.0f;
  for (uint32_t t = 0; t < n; t += BENCH_PLAIN_TILE) {
    shared->a[ty][tx] = row < n && t + tx < n ? args->a[row * n + t + tx] : 0.0f;
    shared->b[ty][tx] = t + ty < n && col < n ? args->b[(t + ty) * n + col] : 0.0f;
    xgpu_barrier();
    for (uint32_t k = 0; k < BENCH_PLAIN_TILE; ++k) acc += shared->a[ty][k] * shared->b[k][tx];
    xgpu_barrier();
  }
  if (row < n && col < n) args->c[row * n + col] = acc;
}
XGPU_KERNEL_BINDINGS(gemm_plain, 3);

/* A x with one 64-item workgroup per row: each item sums a strided share of
 * the row, then a tree in group memory adds the shares (all terms are
 * non-negative integers below 2^24 in sum, so any order gives the same
 * float). */
XGPU_KERNEL_GROUPSHARED(atax_ax_plain, atax_args_t, args, atax_plain_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t row = xgpu_workgroup_id(0), n = args->n;
  float acc = 0.0f;
  for (uint32_t j = lid; j < n; j += size) acc += args->a[row * n + j] * args->x[j];
  shared->partial[lid] = acc;
  xgpu_barrier();
  for (uint32_t s = size / 2u; s > 0; s /= 2u) {
    if (lid < s) shared->partial[lid] += shared->partial[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->y[row] = shared->partial[0];
}
XGPU_KERNEL_BINDINGS(atax_ax_plain, 3);

/* A^T tmp, one item per column, the guard around the body. */
XGPU_KERNEL(atax_atx_plain, atax_args_t, args) {
  const uint32_t col = xgpu_global_id(0), n = args->n;
  if (col < n) {
    float acc = 0.0f;
    for (uint32_t i = 0; i < n; ++i) acc += args->a[i * n + col] * args->x[i];
    args->y[col] = acc;
  }
}
XGPU_KERNEL_BINDINGS(atax_atx_plain, 3);

/* One time step, the guard around the body; dispatched with 8 x 8
 * workgroups. */
XGPU_KERNEL(jacobi2d_plain, jacobi_args_t, args) {
  const uint32_t j = xgpu_global_id(0), i = xgpu_global_id(1), n = args->n;
  if (i > 0 && j > 0 && i < n - 1 && j < n - 1) {
    const uint32_t c = i * n + j;
    const float* in = args->in;
    args->out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c + n] + in[c - n]);
  }
}
XGPU_KERNEL_BINDINGS(jacobi2d_plain, 2);

/* Hillis-Steele with two buffers (read one, write the other, swap): one
 * barrier per step, the workgroup size read at run time; dispatched with
 * 256-item workgroups. */
XGPU_KERNEL_GROUPSHARED(scan256_plain, scan_args_t, args, scan_plain_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t i = xgpu_global_id(0);
  uint32_t out = 0, in = 1;
  shared->buf[out * size + lid] = i < args->n ? args->in[i] : 0u;
  xgpu_barrier();
  for (uint32_t offset = 1; offset < size; offset *= 2u) {
    out = 1u - out;
    in = 1u - out;
    if (lid >= offset)
      shared->buf[out * size + lid] = shared->buf[in * size + lid] + shared->buf[in * size + lid - offset];
    else
      shared->buf[out * size + lid] = shared->buf[in * size + lid];
    xgpu_barrier();
  }
  if (i < args->n) args->out[i] = shared->buf[out * size + lid];
}
XGPU_KERNEL_BINDINGS(scan256_plain, 2);

/* samples/indirect_dispatch's filter: the slot the first atomic returns
 * decides the second atomic. 64-item workgroups. */
XGPU_KERNEL(compact_plain, compact_plain_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  const uint32_t v = args->in[i];
  if ((v & 3u) != 0u) return;
  const uint32_t slot = xgpu_atomic_fetch_add(&args->state->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  args->out[slot] = v;
  if (slot % BENCH_PLAIN_WORKGROUP == 0)
    xgpu_atomic_fetch_add(&args->state->workgroup_count[0], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(compact_plain, 3);

/* Dispatched indirectly with compact_plain's counts, 64-item workgroups. */
XGPU_KERNEL(compact_process_plain, compact_process_plain_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->state->count) return; /* the last workgroup's tail */
  args->out[i] = bench_compact_transform(args->in[i]);
}
XGPU_KERNEL_BINDINGS(compact_process_plain, 3);
