/* bench/debugging's kernels: one that prints a line per work item, its twin
 * that does the same work without printing (the baseline subtracted), and
 * one that faults as soon as the host says so. */
#include <xgpu/kernel.h>

#include "debugging_bench_shared.h"

typedef struct lines_args {
  uint32_t* out;                         /* binding 0: count words */
  debugging_bench_constants_t constants; /* push constants */
} lines_args_t;

/* out[i] = VALUE(i), and one line per work item. */
XGPU_KERNEL_SIZED(print_lines, lines_args_t, args, DEBUGGING_BENCH_WORKGROUP, 1u, 1u) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->constants.count) return;
  const uint32_t value = DEBUGGING_BENCH_VALUE(i);
  args->out[i] = value;
  xgpu_printf(DEBUGGING_BENCH_FORMAT, i, value, 0.5 * (double)i);
}
XGPU_KERNEL_BINDINGS(print_lines, 1);

/* The same without the line. */
XGPU_KERNEL_SIZED(quiet_lines, lines_args_t, args, DEBUGGING_BENCH_WORKGROUP, 1u, 1u) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->constants.count) return;
  args->out[i] = DEBUGGING_BENCH_VALUE(i);
}
XGPU_KERNEL_BINDINGS(quiet_lines, 1);

typedef struct fault_args {
  const uint32_t* flag;                  /* binding 0: one word the host sets */
  debugging_fault_constants_t constants; /* push constants */
} fault_args_t;

/* Work item 0 waits for the flag, then stores to constants.address (an
 * address no allocation holds): the fault whose report the host times. */
XGPU_KERNEL_SIZED(fault_on_flag, fault_args_t, args, 1u, 1u, 1u) {
  if (xgpu_global_id(0) != 0) return;
  while (xgpu_atomic_load(args->flag, XGPU_ORDER_ACQUIRE, XGPU_SCOPE_SYSTEM) == 0) {
  }
  *(volatile uint32_t*)(uintptr_t)args->constants.address = 1u;
}
XGPU_KERNEL_BINDINGS(fault_on_flag, 1);
