/* Kernels of the validation layer tests. */
#include <xgpu/kernel.h>

#include "validation_test_kernels.h"

XGPU_KERNEL(validation_saxpy, validation_saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}
