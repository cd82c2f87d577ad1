/* Test kernels that only the host target compiles: built into an executable
 * of their own without AMDGPU code objects (AMDGPU's linker refuses a kernel
 * whose groupshared memory exceeds its 64 KiB). */
#include <xgpu/kernel.h>

#include "icd_test_kernels.h"

XGPU_KERNEL_GROUPSHARED(icd_groupshared_too_large, icd_groupshared_args_t, args, icd_groupshared_large_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->words[lid] = lid + 1u;
  xgpu_barrier();
  if (lid == 0) args->out[0] = shared->words[0];
}
XGPU_KERNEL_BINDINGS(icd_groupshared_too_large, 1);
