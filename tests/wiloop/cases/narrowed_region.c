/* Narrowed regions (tools/xgpu-wiloop/regions.cpp x_bound, build_loops.cpp;
 * spec/kernels.md "Work-item loops" step 8). Legality: in a kernel without
 * a dispatcher, a region whose start sends every item with local x at or
 * above a constant straight to the region's one barrier
 * (`if (lid < stride) ...; xgpu_barrier();`), with nothing before that test
 * that writes memory or has another effect, runs its x loop over the items
 * below the constant only: the others would do nothing in it. */
#include <xgpu/kernel.h>

typedef struct tree_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t n, stride;
} tree_args_t;
typedef struct tree_shared {
  uint32_t v[256];
  uint32_t flag[256];
} tree_shared_t;

/* Fires: a tree reduction (its loop of barriers unrolled by O3), each step
 * `if (lid < s)` with s a constant. */
XGPU_KERNEL_GROUPSHARED(tree, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t s = 128; s > 0; s >>= 1) {
    if (lid < s) sh->v[lid] += sh->v[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->v[0];
}
XGPU_KERNEL_BINDINGS(tree, 2);
// REMARK: kernel 'tree': narrowed-region: region 1 runs the items x < 128 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 2 runs the items x < 64 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 3 runs the items x < 32 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 4 runs the items x < 16 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 5 runs the items x < 8 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 6 runs the items x < 4 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 7 runs the items x < 2 only
// REMARK-NEXT: kernel 'tree': narrowed-region: region 8 runs the items x < 1 only
// REMARK-NEXT: kernel 'tree': work-item-loops:

/* Fires: the other forms of the test: x <= c, an empty then-branch (x > c
 * leaves), a signed compare, x == 0. */
XGPU_KERNEL_GROUPSHARED(forms, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (lid <= 6u) sh->v[lid] *= 3u;
  xgpu_barrier();
  if (lid > 9u) {
  } else {
    sh->v[lid] ^= 0x55u;
  }
  xgpu_barrier();
  if ((int32_t)lid < 3) sh->v[lid] += 7u;
  xgpu_barrier();
  if (lid == 0u) sh->v[0] += sh->v[1];
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(forms, 2);
// REMARK: kernel 'forms': narrowed-region: region 1 runs the items x < 7 only
// REMARK-NEXT: kernel 'forms': narrowed-region: region 2 runs the items x < 10 only
// REMARK-NEXT: kernel 'forms': narrowed-region: region 3 runs the items x < 3 only
// REMARK-NEXT: kernel 'forms': narrowed-region: region 4 runs the items x < 1 only
// REMARK-NOT: kernel 'forms': narrowed-region:
// REMARK: kernel 'forms': work-item-loops:

/* Near miss: a store before the test (every item must still make it). */
XGPU_KERNEL_GROUPSHARED(store_first, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  sh->flag[lid] = 1u;
  if (lid < 32u) sh->v[lid] += sh->v[lid + 32u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid] + sh->flag[255u - lid];
}
XGPU_KERNEL_BINDINGS(store_first, 2);
// REMARK-NOT: kernel 'store_first': narrowed-region:
// REMARK: kernel 'store_first': work-item-loops:

/* Near miss: a value loaded before the test that every item keeps across
 * the barrier (its per-item slot is stored before the test). */
XGPU_KERNEL_GROUPSHARED(kept_value, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  const uint32_t mine = sh->v[255u - lid];
  if (lid < 32u) sh->v[lid] += sh->v[lid + 32u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid] + mine;
}
XGPU_KERNEL_BINDINGS(kept_value, 2);
// REMARK-NOT: kernel 'kept_value': narrowed-region:
// REMARK: kernel 'kept_value': work-item-loops:

/* Near miss: the bound is not a constant. */
XGPU_KERNEL_GROUPSHARED(runtime_bound, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (lid < args->stride) sh->v[lid] += sh->v[lid + args->stride];
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(runtime_bound, 2);
// REMARK-NOT: kernel 'runtime_bound': narrowed-region:
// REMARK: kernel 'runtime_bound': work-item-loops:

/* Near miss: the items above a constant run the region. */
XGPU_KERNEL_GROUPSHARED(upper_items, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (lid >= 32u) sh->v[lid] += sh->v[lid - 32u];
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(upper_items, 2);
// REMARK-NOT: kernel 'upper_items': narrowed-region:
// REMARK: kernel 'upper_items': work-item-loops:

/* Near miss: the items at or above the constant do something else. */
XGPU_KERNEL_GROUPSHARED(else_branch, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (lid < 32u) sh->v[lid] += sh->v[lid + 32u];
  else sh->flag[lid] = 2u;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid] + sh->flag[lid];
}
XGPU_KERNEL_BINDINGS(else_branch, 2);
// REMARK-NOT: kernel 'else_branch': narrowed-region:
// REMARK: kernel 'else_branch': work-item-loops:

/* Near miss: a test of the y id. */
XGPU_KERNEL_GROUPSHARED(row_bound, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (xgpu_local_id(1) < 1u) sh->v[lid] += 1u;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(row_bound, 2);
// REMARK-NOT: kernel 'row_bound': narrowed-region:
// REMARK: kernel 'row_bound': work-item-loops:

/* Near miss: a constant past the largest workgroup (1024 items). */
XGPU_KERNEL_GROUPSHARED(wide_bound, tree_args_t, args, tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  if (lid < 2000u) sh->v[lid] += 1u;
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(wide_bound, 2);
