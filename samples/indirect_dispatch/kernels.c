/*
 * Kernels of the indirect_dispatch sample (C17, built for every AMDGPU target
 * and for the host CPU by xgpu_add_kernels; see spec/kernels.md).
 *
 *   filter:  one work item per input element. Survivors append their index to
 *            survivors[] through an atomic counter, and the work item that
 *            opens a new block of PROCESS_WORKGROUP_SIZE survivors adds one
 *            workgroup to state->workgroup_count[0]. At the end,
 *            workgroup_count[0] == ceil(survivor_count / PROCESS_WORKGROUP_SIZE)
 *            without any extra pass.
 *   process: dispatched indirectly with those counts: one work item per
 *            survivor (the last workgroup may be partial).
 */
#include <xgpu/kernel.h>

#include "filter_shared.h"

/* Kernel arguments: bindings (8-byte pointers) first, then constants.
 * XGPU_KERNEL_BINDINGS after each kernel declares how many bindings it has,
 * so a pipeline may take the layout from the kernel (bindingCount =
 * constantSize = 0): here 3 bindings, then filter_constants_t. */
typedef struct filter_args {
  const uint32_t* input;    /* binding 0: element_count values */
  uint32_t* survivors;      /* binding 1: indices of the survivors, compacted */
  indirect_state_t* state;  /* binding 2: counts, reset by the command buffer */
  filter_constants_t c;     /* constants */
} filter_args_t;

XGPU_KERNEL(filter, filter_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i >= args->c.element_count) return;
  if (!filter_keep(args->input[i], args->c.keep_percent)) return;

  uint32_t slot = xgpu_atomic_fetch_add(&args->state->survivor_count, 1u,
                                        XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  args->survivors[slot] = i;
  if (slot % PROCESS_WORKGROUP_SIZE == 0)
    xgpu_atomic_fetch_add(&args->state->workgroup_count[0], 1u,
                          XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(filter, 3);

/* 4 bindings, no constants. */
typedef struct process_args {
  const uint32_t* input;      /* binding 0: the filter's input */
  const uint32_t* survivors;  /* binding 1: survivor_count indices into input[] */
  indirect_state_t* state;    /* binding 2: survivor_count; workgroups_run is counted here */
  uint32_t* output;           /* binding 3: process_transform(input[i]) at each survivor i */
} process_args_t;

XGPU_KERNEL(process, process_args_t, args) {
  if (xgpu_local_id(0) == 0)
    xgpu_atomic_fetch_add(&args->state->workgroups_run, 1u,
                          XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  uint32_t slot = xgpu_global_id(0);
  if (slot >= args->state->survivor_count) return;  /* the last workgroup's tail */
  uint32_t i = args->survivors[slot];
  args->output[i] = process_transform(args->input[i]);
}
XGPU_KERNEL_BINDINGS(process, 4);
