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
