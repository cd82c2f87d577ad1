/* Must not build: xgpu_printf in a compile that did not load the build's
 * pass plugin (XGPU_KERNEL_PRINT_PASS undefined), which records the kernels
 * that print: the driver would not give this kernel a print buffer. */
#include <xgpu/kernel.h>
typedef struct args {
  uint32_t* out;
  uint32_t n, reserved;
} args_t;
XGPU_KERNEL(prints_unrecorded, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) xgpu_printf("item %u\n", i);
}
XGPU_KERNEL_BINDINGS(prints_unrecorded, 1);
