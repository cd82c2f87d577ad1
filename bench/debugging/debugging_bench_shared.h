/* What bench/debugging's kernels and host share (C11; kernels and host). */
#ifndef XGPU_BENCH_DEBUGGING_SHARED_H_
#define XGPU_BENCH_DEBUGGING_SHARED_H_

#include <stdint.h>

/* The line each work item prints: its id, a value it computes, and half
 * its id as a double; the host parses it back and checks all three. */
#define DEBUGGING_BENCH_FORMAT "line %u: value %u, half %.1f"
#define DEBUGGING_BENCH_SCAN "line %u: value %u, half %lf" /* reads it back */
#define DEBUGGING_BENCH_VALUE(i) ((uint32_t)(i) * 2654435761u)
#define DEBUGGING_BENCH_WORKGROUP 64u

/* Push constants of print_lines and quiet_lines. */
typedef struct debugging_bench_constants {
  uint32_t count;  /* work items that print (the rest of the grid returns) */
  uint32_t pad;
} debugging_bench_constants_t;

/* Push constants of fault_on_flag: the address it stores to once the host
 * sets the flag. */
typedef struct debugging_fault_constants {
  uint64_t address;
} debugging_fault_constants_t;

#endif
