/* nvptx: a kernel that calls a function of another source may print (it is not in this source for the
 * pass to follow): the plugin records it, as an array whose name ends in
 * _xgpu_layout_, which the executable reader reads from the PTX. Its
 * sibling records nothing. Compiled to PTX only (the call stays undefined),
 * with bounds-checked copies: a group-memory kernel's copy refers to the
 * kernel's own group memory, which NVPTX then declares at module scope, and
 * the copies' reports name a file "" when they have no line. */
#include <xgpu/kernel.h>

#include "test_kernels.h"

uint32_t defined_elsewhere(uint32_t value);

XGPU_KERNEL(calls_elsewhere, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = defined_elsewhere(i);
}
XGPU_KERNEL_BINDINGS(calls_elsewhere, 1);

XGPU_KERNEL(quiet_values, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(quiet_values, 1);

/* Group memory shared with its bounds-checked copy (group_ring__xgpu_checked). */
XGPU_KERNEL_GROUPSHARED(group_ring, print_test_args_t, args, print_test_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->ring[lid] = lid;
  xgpu_barrier();
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = shared->ring[255u - lid];
}
XGPU_KERNEL_BINDINGS(group_ring, 1);
