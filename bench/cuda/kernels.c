/* The CUDA peer's kernels, plain C17 built by clang-19 for nvptx64-nvidia-cuda
 * (PTX text, loaded by cuda_bench with cuModuleLoadData). The same work as
 * bench/recording/kernels.c (bump) and bench/saxpy/kernels.c (saxpy), with
 * the same argument structs passed by value, as xgpu's kernels take them. */
#include <stdint.h>

#include "../debugging/debugging_bench_shared.h"
#include "../recording/recording_shared.h"
#include "../saxpy/saxpy_shared.h"

typedef struct bump_args {
  uint32_t* counters;       /* RECORDING_COUNTER_COUNT counters */
  recording_constants_t c;  /* 16 bytes of constants */
} bump_args_t;

typedef struct saxpy_args {
  const float* x;
  float* y;
  saxpy_constants_t c;
} saxpy_args_t;

/* One thread adds c.value to counters[c.index]. */
__attribute__((nvptx_kernel, visibility("default"))) void bump(bump_args_t args) {
  __atomic_fetch_add(&args.counters[args.c.index], args.c.value, __ATOMIC_RELAXED);
}

/* y = a * x + y on a 2-D grid of SAXPY_ROW threads per row, blocks of 256. */
__attribute__((nvptx_kernel, visibility("default"))) void saxpy(saxpy_args_t args) {
  const uint32_t column = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  const uint32_t i = __nvvm_read_ptx_sreg_ctaid_y() * SAXPY_ROW + column;
  const float a = args.c.a;
  const float* x = args.x;
  float* y = args.y;
  if (i < args.c.n) y[i] = a * x[i] + y[i];
}

/* Does nothing: the launch alone. */
__attribute__((nvptx_kernel, visibility("default"))) void empty(void) {}

/* CUDA's device printf: the vprintf system call, which takes the format and
 * a buffer of the arguments, each at its natural alignment (what CUDA C's
 * printf passes). */
int vprintf(const char* format, void* arguments);

typedef struct print_line_arguments {
  uint32_t i, value;
  double half;
} print_line_arguments_t;

/* bench/debugging's print_lines through CUDA's printf: out[i] = VALUE(i)
 * and one line per thread, the same format. */
__attribute__((nvptx_kernel, visibility("default"))) void print_lines(uint32_t* out, uint32_t count) {
  const uint32_t i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i >= count) return;
  const uint32_t value = DEBUGGING_BENCH_VALUE(i);
  out[i] = value;
  print_line_arguments_t arguments = {i, value, 0.5 * (double)i};
  vprintf(DEBUGGING_BENCH_FORMAT "\n", &arguments);
}

/* The same without the line. */
__attribute__((nvptx_kernel, visibility("default"))) void quiet_lines(uint32_t* out, uint32_t count) {
  const uint32_t i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i >= count) return;
  out[i] = DEBUGGING_BENCH_VALUE(i);
}

/* Thread 0 waits until the host sets *flag, then stores to `address` (no
 * allocation holds it): the fault whose report the host times. */
__attribute__((nvptx_kernel, visibility("default"))) void fault_on_flag(const volatile uint32_t* flag,
                                                                        uint64_t address) {
  if (__nvvm_read_ptx_sreg_ctaid_x() != 0 || __nvvm_read_ptx_sreg_tid_x() != 0) return;
  while (*flag == 0) {
  }
  *(volatile uint32_t*)(uintptr_t)address = 1u;
}
