/* Must not build: more bindings than the argument struct has room for. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; uint32_t n; uint32_t reserved; } args_t;
XGPU_KERNEL(too_many_bindings, args_t, args) {
  if (xgpu_global_id(0) < args->n) args->out[xgpu_global_id(0)] = 1u;
}
XGPU_KERNEL_BINDINGS(too_many_bindings, 3);
