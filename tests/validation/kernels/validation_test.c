/* Kernels of the validation layer tests. */
#include <xgpu/kernel.h>

#include "validation_test_kernels.h"

XGPU_KERNEL(validation_saxpy, validation_saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}

XGPU_KERNEL_GROUPSHARED(validation_shared, validation_shared_args_t, args, validation_shared_t, shared) {
  uint32_t l = xgpu_local_id(0);
  shared->words[l % 256] = l;
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = shared->words[l % 256];
}

/* Declared layouts (XGPU_KERNEL_BINDINGS): the kernel toolchain records how
 * each binding is accessed, and the hazard warnings compare dispatches with
 * it (test_hazards.cpp). */
XGPU_KERNEL(validation_copy, validation_copy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->dst[i] = args->src[i] + 1u;
}
XGPU_KERNEL_BINDINGS(validation_copy, 2);

XGPU_KERNEL(validation_count, validation_count_args_t, args) {
  if (xgpu_global_id(0) < args->n) xgpu_atomic_fetch_add(&args->counters[0], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(validation_count, 1);

/* Writes past the end of its destination when shift > 0: GPU-assisted
 * validation runs its bounds-checked copy (test_gpu_assisted.cpp). */
XGPU_KERNEL(validation_overrun, validation_overrun_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->dst[i + args->shift] = args->src[i] + 1u;
}
XGPU_KERNEL_BINDINGS(validation_overrun, 2);
