/* Kernels the work-item loop transform (tools/xgpu-wiloop) once got wrong:
 * each stays here, run in both modes against what it must compute
 * (test_kernels.h). */
#include <xgpu/kernel.h>

#include "test_kernels.h"

#define W XGPU_TEST_REGRESSION_WORKGROUP

/* The sized path once made a pointer one past the group array null. */
XGPU_KERNEL_GROUPSHARED_SIZED(regression_sized_end, regression_args_t, args, regression_v64_t, sh, W, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = 1u;
  xgpu_barrier();
  if (lid == 0) {
    const uint32_t* volatile end = sh->v + W;
    uint32_t s = 0;
    for (const uint32_t* p = sh->v; p < end; ++p) s += *p;
    args->out[xgpu_workgroup_id(0)] = s;
  }
}
XGPU_KERNEL_BINDINGS(regression_sized_end, 2);

/* The sized path once claimed that a group pointer read from a private
 * table does not alias the group array. */
XGPU_KERNEL_GROUPSHARED_SIZED(regression_sized_table, regression_args_t, args, regression_v64_t, sh, W, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = lid;
  xgpu_barrier();
  if (lid == 0) {
    uint32_t* rows[4] = {sh->v, sh->v + 16, sh->v + 32, sh->v + 48};
    const uint32_t r = args->k & 3u;
    uint32_t* q = rows[r];
    const uint32_t before = sh->v[16u * r];
    q[0] = before + 7u;
    args->out[xgpu_workgroup_id(0)] = sh->v[16u * r];
  }
}
XGPU_KERNEL_BINDINGS(regression_sized_table, 2);

/* Bins kept across a run's workgroups once ignored a read of a bin
 * through an address built from an integer. */
XGPU_KERNEL_GROUPSHARED(regression_kept_peek, regression_args_t, args, regression_v64_t, sh) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  sh->v[lid] = 0;
  xgpu_barrier();
  const uint32_t bin = args->in[g] % W;
  xgpu_atomic_fetch_add(&sh->v[bin], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  uint32_t* alias = (uint32_t*)((uintptr_t)sh + (uintptr_t)bin * sizeof(uint32_t));
  args->out[g] = xgpu_atomic_load(alias, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->v[lid] != 0)
    xgpu_atomic_fetch_add(&args->out[args->n + lid], sh->v[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(regression_kept_peek, 2);

/* The sized path once claimed that a group pointer chosen by data before a
 * barrier (kept in a per-item slot) does not alias the group arrays. */
XGPU_KERNEL_GROUPSHARED_SIZED(regression_sized_keptptr, regression_args_t, args, regression_vw64_t, sh, W, 1, 1) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  uint32_t* mine = (args->in[g] & 1u) ? &sh->v[lid] : &sh->w[lid];
  sh->v[lid] = 1u;
  sh->w[lid] = 2u;
  xgpu_barrier();
  const uint32_t before = sh->v[lid];
  *mine += 7u;
  args->out[g] = sh->v[lid] - (args->in[g] & 1u) * 7u * before;
}
XGPU_KERNEL_BINDINGS(regression_sized_keptptr, 2);

/* Bins kept across a run's workgroups once took byte adds to 32-bit bins:
 * the run's count then wrapped at 256 where each workgroup's did not. With
 * in[g] = g % W < 50 ? 0 : g % W, each workgroup adds 50 to bin 0 and 1 to
 * bins 50 .. W - 1; out[W * k + b] sums the flushes: out[0] = 50 * groups. */
XGPU_KERNEL_GROUPSHARED(regression_kept_byte_adds, regression_args_t, args, regression_v64_t, sh) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  sh->v[lid] = 0;
  xgpu_barrier();
  xgpu_atomic_fetch_add((uint8_t*)&sh->v[args->in[g] % W], (uint8_t)1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->v[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->v[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(regression_kept_byte_adds, 2);

/* Bins kept across a run through a bin's address that the pass keeps in
 * its own slot (used in two blocks): each item adds 1, and 1 more when
 * in[g] has bit 16; out[b] sums every workgroup's bin b. */
XGPU_KERNEL_GROUPSHARED(regression_kept_twice, regression_args_t, args, regression_v64_t, sh) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  sh->v[lid] = 0;
  xgpu_barrier();
  if (g < args->n) {
    const uint32_t v = args->in[g];
    uint32_t* bin = &sh->v[v % W];
    xgpu_atomic_fetch_add(bin, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    if (v & 0x10000u) xgpu_atomic_fetch_add(bin, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  }
  xgpu_barrier();
  if (sh->v[lid]) xgpu_atomic_fetch_add(&args->out[lid], sh->v[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(regression_kept_twice, 2);
