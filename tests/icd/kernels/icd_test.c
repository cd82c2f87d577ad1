/* Kernels of the ICD runtime tests. */
#include <xgpu/kernel.h>

#include "icd_test_kernels.h"

XGPU_KERNEL(icd_saxpy, icd_saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}

XGPU_KERNEL_SIZED(icd_increment, icd_increment_args_t, args, ICD_TEST_INCREMENT_WORKGROUP, 1u, 1u) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] += 1u;
}
