/* Must not build: a format that is not a string literal (the record holds
 * the format's bytes; a literal is what the rule can check at compile
 * time). The plugin's define stands in for a build that loads it. */
#define XGPU_KERNEL_PRINT_PASS 1
#include <xgpu/kernel.h>
typedef struct args {
  const char* format;
  uint32_t n, reserved;
} args_t;
XGPU_KERNEL(prints_variable_format, args_t, args) {
  if (xgpu_global_id(0) < args->n) xgpu_printf(args->format, args->n);
}
XGPU_KERNEL_BINDINGS(prints_variable_format, 1);
