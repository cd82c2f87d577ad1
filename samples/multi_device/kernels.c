/*
 * Kernel of the multi_device sample (C17, built for every target by
 * xgpu_add_kernels; see spec/kernels.md). Every device runs it on its own
 * share of the input:
 *
 *   histogram: bins[multi_device_bin(values[i])] += 1 for i < element_count
 *
 * The counts are made in group memory first (one workgroup-scope atomic per
 * element), then added to the device's bins once per bin and workgroup.
 */
#include <xgpu/kernel.h>

#include "multi_device_shared.h"

typedef struct histogram_args {
  const uint32_t* values; /* binding 0: element_count values (device-local) */
  uint32_t* bins;         /* binding 1: MULTI_DEVICE_BINS counts, zeroed before the dispatch */
  multi_device_constants_t c;
} histogram_args_t;

typedef struct histogram_shared {
  uint32_t bins[MULTI_DEVICE_BINS];
} histogram_shared_t;

XGPU_KERNEL_GROUPSHARED(histogram, histogram_args_t, args, histogram_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t i = xgpu_global_id(0);
  for (uint32_t b = lid; b < MULTI_DEVICE_BINS; b += size) shared->bins[b] = 0;
  xgpu_barrier();
  if (i < args->c.element_count)
    xgpu_atomic_fetch_add(&shared->bins[multi_device_bin(args->values[i])], 1u, XGPU_ORDER_RELAXED,
                          XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  for (uint32_t b = lid; b < MULTI_DEVICE_BINS; b += size)
    if (shared->bins[b] != 0)
      xgpu_atomic_fetch_add(&args->bins[b], shared->bins[b], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(histogram, 2);
