/* Must not build: a layout declared for a kernel this source does not
 * define. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; uint32_t n; uint32_t reserved; } args_t;
XGPU_KERNEL(defined_kernel, args_t, args) {
  if (xgpu_global_id(0) < args->n) args->out[xgpu_global_id(0)] = 1u;
}
XGPU_KERNEL_BINDINGS(misspelled_kernel, 1);
