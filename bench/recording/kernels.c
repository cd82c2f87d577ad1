/* The recording benchmark's kernel: one work item adds a constant to one
 * counter (spec/kernels.md). The Vulkan peer runs the same in bump.comp. */
#include <xgpu/kernel.h>

#include "recording_shared.h"

typedef struct bump_args {
  uint32_t* counters;       /* binding 0: RECORDING_COUNTER_COUNT counters */
  recording_constants_t c;  /* 16 bytes of constants */
} bump_args_t;

XGPU_KERNEL_SIZED(bump, bump_args_t, args, 1u, 1u, 1u) {
  xgpu_atomic_fetch_add(&args->counters[args->c.index], args->c.value, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(bump, 1);
