/* Kernels that fault on purpose (test_kernels.h): the host code object's
 * DWARF line table lets hsa-cpu name the faulting statement, which carries
 * a mark the test finds in this file. */
#include <xgpu/kernel.h>

#include "test_kernels.h"

XGPU_KERNEL(fault_line_items, fault_line_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i == args->faulting_item)
    *(volatile uint32_t*)(uintptr_t)args->target = i; /* fault_line_items: the store */
  else
    args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(fault_line_items, 1);

XGPU_KERNEL_BARRIERS(fault_line_barriers, fault_line_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  args->out[i] = i;
  xgpu_barrier();
  if (i == args->faulting_item)
    args->out[i] = *(volatile const uint32_t*)(uintptr_t)args->target; /* fault_line_barriers: the load */
  xgpu_barrier();
}
XGPU_KERNEL_BINDINGS(fault_line_barriers, 1);
