/* Timestamp: one work item writes the device's 64-bit timestamp counter. */
#include "device_common.h"

XGPU_KERNEL(xgpu_amdgpu_timestamp, xgpu_amdgpu_timestamp_args_t, args) {
  if (xgpu_global_id(0) == 0) *args->dst = xgpu_amdgpu_read_timestamp();
}
XGPU_KERNEL_BINDINGS(xgpu_amdgpu_timestamp, 1);
