/* Must not build: a format and 16 values, one more than a record holds
 * (XGPU_PRINT_MAX_VALUES counts the format). The plugin's define stands in
 * for a build that loads it. */
#define XGPU_KERNEL_PRINT_PASS 1
#include <xgpu/kernel.h>
typedef struct args {
  uint32_t* out;
  uint32_t n, reserved;
} args_t;
XGPU_KERNEL(prints_too_much, args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n)
    xgpu_printf("%u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u\n", i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i);
}
XGPU_KERNEL_BINDINGS(prints_too_much, 1);
