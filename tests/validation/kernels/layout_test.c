/* Kernels of the validation layer's tests of the xgpuCreatePipeline rules
 * that need the kernel's metadata (test_pipeline_kernels.cpp). */
#include <xgpu/kernel.h>

#include "layout_test_kernels.h"

/* Declares its layout: 1 binding, 8 bytes of constants. */
XGPU_KERNEL(validation_declared, validation_layout_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = args->value;
}
XGPU_KERNEL_BINDINGS(validation_declared, 1);

/* Requires a workgroup of VALIDATION_SIZED_X x VALIDATION_SIZED_Y x 1. */
XGPU_KERNEL_SIZED(validation_sized, validation_layout_args_t, args, VALIDATION_SIZED_X, VALIDATION_SIZED_Y, 1u) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = args->value;
}
XGPU_KERNEL_BINDINGS(validation_sized, 1);
