/* Test kernels without barriers (host loop mode). */
#include <xgpu/kernel.h>

#include "test_kernels.h"

XGPU_KERNEL(saxpy, saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy, 2);

XGPU_KERNEL(guarded_rows, guarded_rows_args_t, args) {
  const uint32_t i = xgpu_global_id(1) * args->row + xgpu_global_id(0) + args->offset;
  if (i < args->n) args->out[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(guarded_rows, 3);

XGPU_KERNEL(guarded_stencil, guarded_stencil_args_t, args) {
  const uint32_t gx = xgpu_global_id(0);
  const uint32_t gy = xgpu_global_id(1);
  const uint32_t w = args->w;
  if (gx >= w || gy >= args->h) return;
  const uint32_t i = gy * w + gx;
  if (gx > 0 && gx < w - 1 && gy > 0 && gy < args->h - 1)
    args->out[i] = 0.25f * (args->in[i - 1] + args->in[i + 1] + args->in[i - w] + args->in[i + w]);
  else
    args->out[i] = args->in[i];
}
XGPU_KERNEL_BINDINGS(guarded_stencil, 2);

static inline uint32_t items_in_workgroup(XGPU_CTX_PARAM) {
  return xgpu_workgroup_item_count(0) * xgpu_workgroup_item_count(1) * xgpu_workgroup_item_count(2);
}

XGPU_KERNEL(ids, ids_args_t, args) {
  uint32_t* record = args->out + xgpu_global_linear_id() * XGPU_TEST_IDS_FIELDS;
  record[0] = xgpu_global_id(0);
  record[1] = xgpu_global_id(1);
  record[2] = xgpu_global_id(2);
  record[3] = xgpu_local_linear_id();
  record[4] = xgpu_workgroup_linear_id();
  record[5] = items_in_workgroup(XGPU_CTX);
  record[6] = xgpu_workgroup_count(0) * xgpu_workgroup_count(1) * xgpu_workgroup_count(2);
  record[7] = xgpu_workgroup_linear_size();
}
XGPU_KERNEL_BINDINGS(ids, 1);

XGPU_KERNEL(histogram, histogram_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  uint32_t value = args->values[i];
  xgpu_atomic_fetch_add(&args->bins[value % args->bin_count], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_atomic_fetch_add(&args->summary[0], value, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  xgpu_atomic_fetch_max(&args->summary[1], value, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(histogram, 3);

XGPU_KERNEL_SIZED(fill, fill_args_t, args, XGPU_TEST_FILL_WORKGROUP, 1u, 1u) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = args->value + xgpu_local_id(0);
}
XGPU_KERNEL_BINDINGS(fill, 1);
