/* Barrier loops whose trip count the workgroup size decides, the size read
 * at run time (test_kernels.h, "sizes_"): the work-item loop transform
 * gives them sized copies for some workgroup sizes (spec/kernels.md,
 * "Work-item loops" step 12); every size must compute the same. */
#include <xgpu/kernel.h>

#include "test_kernels.h"

XGPU_KERNEL_GROUPSHARED(sizes_tree, sizes_args_t, args, sizes_tree_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t count = xgpu_workgroup_item_count(0), g = xgpu_global_id(0);
  uint32_t* a = &sh->a[xgpu_local_id(1) * size];  /* the item's row */
  a[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t s = 1; s < size; s *= 2u) {
    if (lid % (2u * s) == 0 && lid + s < count) a[lid] += a[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_global_id(1) * xgpu_workgroup_count(0) + xgpu_workgroup_id(0)] = a[0];
}
XGPU_KERNEL_BINDINGS(sizes_tree, 2);

XGPU_KERNEL_GROUPSHARED(sizes_scan, sizes_args_t, args, sizes_scan_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t g = xgpu_global_id(0), row = xgpu_local_id(1) * size;
  uint32_t out = 0, in = 1;
  sh->buf[row + lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t offset = 1; offset < size; offset *= 2u) {
    out = 1u - out;
    in = 1u - out;
    const uint32_t* from = &sh->buf[in * XGPU_TEST_SIZES_MAX + row];
    sh->buf[out * XGPU_TEST_SIZES_MAX + row + lid] = lid >= offset ? from[lid] + from[lid - offset] : from[lid];
    xgpu_barrier();
  }
  if (g < args->n) args->out[xgpu_global_id(1) * xgpu_grid_size(0) + g] = sh->buf[out * XGPU_TEST_SIZES_MAX + row + lid];
}
XGPU_KERNEL_BINDINGS(sizes_scan, 2);
