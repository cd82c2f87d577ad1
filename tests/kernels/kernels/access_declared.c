/* A kernel whose binding the pass plugin cannot follow, and which declares
 * its access (XGPU_KERNEL_BINDING_ACCESS): the record says what the
 * declaration says (kernels.tool.inspect_access_declared). */
#include <xgpu/kernel.h>

#include "test_kernels.h"

/* saxpy whose x goes through an integer in a volatile local ("unknown" to
 * the plugin), declared read; y the plugin follows (read and written),
 * declared the same. */
XGPU_KERNEL(saxpy_declared, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  volatile uintptr_t kept = (uintptr_t)args->x;
  const float* x = (const float*)kept;
  if (i < args->n) args->y[i] = args->a * x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy_declared, 2);
XGPU_KERNEL_BINDING_ACCESS(saxpy_declared, XGPU_KERNEL_ACCESS_READ, XGPU_KERNEL_ACCESS_READ | XGPU_KERNEL_ACCESS_WRITE);

/* The same without the declaration: x unknown. */
XGPU_KERNEL(saxpy_escaped, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  volatile uintptr_t kept = (uintptr_t)args->x;
  const float* x = (const float*)kept;
  if (i < args->n) args->y[i] = args->a * x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy_escaped, 2);
