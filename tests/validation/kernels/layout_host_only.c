/* A kernel only the host target compiles (AMDGPU's linker refuses
 * groupshared memory above its 64 KiB): more static workgroup memory than
 * limits.maxWorkgroupMemorySize of hsa-cpu (test_pipeline_kernels.cpp). */
#include <xgpu/kernel.h>

#include "layout_test_kernels.h"

XGPU_KERNEL_GROUPSHARED(validation_shared_too_large, validation_layout_args_t, args, validation_shared_large_t, shared) {
  const uint32_t l = xgpu_local_id(0);
  shared->words[l] = l + args->value;
  xgpu_barrier();
  if (l == 0 && args->n != 0) args->out[0] = shared->words[0];
}
XGPU_KERNEL_BINDINGS(validation_shared_too_large, 1);
