/* nvptx: a kernel that calls a function of another source may print (it is not in this source for the
 * pass to follow): the plugin records it, as an array whose name ends in
 * _xgpu_layout_, which the executable reader reads from the PTX. Its
 * sibling records nothing. Compiled to PTX only (the call stays undefined). */
#include <xgpu/kernel.h>

#include "test_kernels.h"

uint32_t defined_elsewhere(uint32_t value);

XGPU_KERNEL(calls_elsewhere, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = defined_elsewhere(i);
}
XGPU_KERNEL_BINDINGS(calls_elsewhere, 1);

XGPU_KERNEL(quiet_values, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(quiet_values, 1);
