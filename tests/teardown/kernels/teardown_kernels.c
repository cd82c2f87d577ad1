/* Kernels of the teardown and host-memory tests. */
#include <xgpu/kernel.h>

#include "teardown_kernels.h"

/* Work item 0 of every workgroup spins until the host stores a non-zero
 * value at *gate: a dispatch that never ends unless released. */
XGPU_KERNEL(teardown_spin, teardown_spin_args_t, args) {
  if (xgpu_local_id(0) != 0) return;
  while (xgpu_atomic_load(args->gate, XGPU_ORDER_ACQUIRE, XGPU_SCOPE_SYSTEM) == 0u) {
  }
}
XGPU_KERNEL_BINDINGS(teardown_spin, 1);

/* out[i] = i for i < n. */
XGPU_KERNEL(teardown_iota, teardown_iota_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(teardown_iota, 1);
