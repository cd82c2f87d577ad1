/* Kernels of the indirect/alloca benchmark (C17, spec/kernels.md). */
#include <xgpu/kernel.h>

#include "bench_shared.h"

/* output[slice * element_count + i] = slice_value(input[i], slice): each
 * dispatch of a batch writes its own slice, so the dispatches of one command
 * buffer are independent and need no barriers between them. */
typedef struct write_slice_args {
  const uint32_t* input;  /* binding 0: element_count values */
  uint32_t* output;       /* binding 1: one slice of element_count values per dispatch */
  bench_slice_constants_t c;
} write_slice_args_t;

XGPU_KERNEL(write_slice, write_slice_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->c.element_count)
    args->output[args->c.slice * args->c.element_count + i] = slice_value(args->input[i], args->c.slice);
}
XGPU_KERNEL_BINDINGS(write_slice, 2);

/* scratch[i] = input[i] + 1; output[i] += scratch[i]. The same work item
 * writes and reads scratch[i], so no barrier is needed. */
typedef struct accumulate_args {
  const uint32_t* input;  /* binding 0: element_count values */
  uint32_t* scratch;      /* binding 1: element_count values (alloca'd or preallocated) */
  uint32_t* output;       /* binding 2: element_count running sums */
  bench_accumulate_constants_t c;
} accumulate_args_t;

XGPU_KERNEL(accumulate, accumulate_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i >= args->c.element_count) return;
  args->scratch[i] = args->input[i] + 1u;
  args->output[i] += args->scratch[i];
}
XGPU_KERNEL_BINDINGS(accumulate, 3);
