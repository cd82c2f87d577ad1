/* Must not build: a binding access declaration for a kernel that does not
 * declare its bindings. */
#include <xgpu/kernel.h>
typedef struct args { const uint32_t* in; uint32_t* out; uint32_t n; uint32_t reserved; } args_t;
XGPU_KERNEL(copy, args_t, args) {
  if (xgpu_global_id(0) < args->n) args->out[xgpu_global_id(0)] = args->in[xgpu_global_id(0)];
}
XGPU_KERNEL_BINDING_ACCESS(copy, XGPU_KERNEL_ACCESS_READ, XGPU_KERNEL_ACCESS_WRITE);
