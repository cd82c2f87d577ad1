/* Must not build for nvptx: xgpu_printf and xgpu_assert are not available
 * there yet. The plugin's define stands in for a build that loads it. */
#define XGPU_KERNEL_PRINT_PASS 1
#include <xgpu/kernel.h>
typedef struct args {
  uint32_t* out;
  uint32_t n, reserved;
} args_t;
XGPU_KERNEL(prints_on_nvptx, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  xgpu_assert(i < args->n);
  if (i < args->n) xgpu_printf("item %u\n", i);
}
XGPU_KERNEL_BINDINGS(prints_on_nvptx, 1);
