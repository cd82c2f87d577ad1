/*
 * Kernels of the alloca sample (C17, built for every AMDGPU target and for
 * the host CPU by xgpu_add_kernels; see spec/kernels.md). One iteration runs
 * produce, then consume:
 *
 *   produce: scratch[i] = scratch_value(input[i], *iteration)
 *   consume: output[i] += scratch[i]; work item 0 then advances *iteration
 *
 * scratch is the per-iteration buffer from xgpuQueueAlloca. The iteration
 * counter lives on the device, so one recorded command buffer computes
 * something different each time it is replayed.
 */
#include <xgpu/kernel.h>

#include "alloca_shared.h"

/* Both kernels: 3 bindings, then alloca_constants_t (XGPU_KERNEL_BINDINGS
 * below each kernel declares it, so a pipeline may take the layout from the
 * kernel with bindingCount = constantSize = 0). */
typedef struct produce_args {
  const uint32_t* input;      /* binding 0: element_count values */
  const uint32_t* iteration;  /* binding 1: the current iteration number */
  uint32_t* scratch;          /* binding 2: element_count values (the alloca'd buffer) */
  alloca_constants_t c;       /* constants */
} produce_args_t;

XGPU_KERNEL(produce, produce_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->c.element_count) args->scratch[i] = scratch_value(args->input[i], *args->iteration);
}
XGPU_KERNEL_BINDINGS(produce, 3);

typedef struct consume_args {
  const uint32_t* scratch;  /* binding 0: what produce wrote (the alloca'd buffer) */
  uint32_t* output;         /* binding 1: element_count running sums */
  uint32_t* iteration;      /* binding 2: advanced by one after this iteration */
  alloca_constants_t c;     /* constants */
} consume_args_t;

XGPU_KERNEL(consume, consume_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->c.element_count) args->output[i] += args->scratch[i];
  /* produce (the only reader of the counter) finished before consume began. */
  if (i == 0) *args->iteration += 1u;
}
XGPU_KERNEL_BINDINGS(consume, 3);
