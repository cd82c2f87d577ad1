/* Test kernels with groupshared memory and barriers (host fiber mode). */
#include <xgpu/kernel.h>

#include "test_kernels.h"

XGPU_KERNEL_GROUPSHARED(reduce, reduce_args_t, args, reduce_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  shared->partial[lid] = i < args->n ? args->in[i] : 0.0f;
  xgpu_barrier();
  for (uint32_t stride = xgpu_workgroup_size(0) / 2; stride > 0; stride /= 2) {
    /* A partial last workgroup has no items (and no partial sums) past
     * its item count. */
    if (lid < stride && lid + stride < xgpu_workgroup_item_count(0)) {
      shared->partial[lid] += shared->partial[lid + stride];
    }
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = shared->partial[0];
}
XGPU_KERNEL_BINDINGS(reduce, 2);

XGPU_KERNEL_GROUPSHARED(scan, scan_args_t, args, scan_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  const uint32_t value = i < args->n ? args->in[i] : 0u;
  uint32_t* dynamic = (uint32_t*)xgpu_dynamic_groupshared();
  dynamic[lid] = value;
  shared->buffer[0][lid] = value;
  xgpu_barrier();
  uint32_t from = 0;
  for (uint32_t offset = 1; offset < xgpu_workgroup_size(0); offset *= 2) {
    uint32_t sum = shared->buffer[from][lid];
    if (lid >= offset) sum += shared->buffer[from][lid - offset];
    shared->buffer[1 - from][lid] = sum;
    from = 1 - from;
    xgpu_barrier();
  }
  if (i < args->n) {
    args->out[i] = shared->buffer[from][lid];
    args->echo[i] = dynamic[(lid + 1) % xgpu_workgroup_item_count(0)];
  }
  if (lid == xgpu_workgroup_item_count(0) - 1) args->totals[xgpu_workgroup_id(0)] = shared->buffer[from][lid];
}
XGPU_KERNEL_BINDINGS(scan, 4);

XGPU_KERNEL_GROUPSHARED(group_atomics, group_atomics_args_t, args, group_atomics_shared_t, shared) {
  const uint32_t lid = xgpu_local_linear_id();
  if (lid == 0) {
    xgpu_atomic_store(&shared->count, 0u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    xgpu_atomic_store(&shared->maximum, 0u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    xgpu_atomic_store(&shared->bits, 0u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  }
  xgpu_barrier();
  xgpu_atomic_fetch_add(&shared->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_atomic_fetch_max(&shared->maximum, lid + 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  uint32_t expected = xgpu_atomic_load(&shared->bits, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  while (!xgpu_atomic_compare_exchange(&shared->bits, &expected, expected ^ lid, XGPU_ORDER_ACQ_REL,
                                       XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP)) {
  }
  xgpu_atomic_fence(XGPU_ORDER_RELEASE, XGPU_SCOPE_WORKITEM);
  xgpu_barrier();
  if (lid == 0) {
    uint32_t* out = args->out + 3u * xgpu_workgroup_linear_id();
    out[0] = xgpu_atomic_load(&shared->count, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    out[1] = xgpu_atomic_load(&shared->maximum, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    out[2] = xgpu_atomic_load(&shared->bits, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
    xgpu_atomic_fence(XGPU_ORDER_RELEASE, XGPU_SCOPE_SYSTEM);
  }
}
XGPU_KERNEL_BINDINGS(group_atomics, 1);

XGPU_KERNEL_BARRIERS_SIZED(reverse, reverse_args_t, args, XGPU_TEST_REVERSE_WORKGROUP, 1u, 1u) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  const uint32_t items = xgpu_workgroup_item_count(0);
  uint32_t* staged = (uint32_t*)xgpu_dynamic_groupshared();
  if (i < args->n) staged[lid] = args->in[i];
  xgpu_barrier();
  if (i < args->n) args->out[i] = staged[items - 1u - lid];
}
XGPU_KERNEL_BINDINGS(reverse, 2);
