/*
 * Indirect-dispatch patch (XGPU_DISPATCH_INDIRECT_DYNAMIC), one work item.
 *
 * Issue wrote the dispatch packet's body into the ring slot that follows
 * this kernel's packet, with an INVALID header: the packet processor stalls
 * on it. This kernel, ordered after the commands that write the counts (its
 * packet has the barrier bit and an acquire fence), reads the counts,
 * completes the packet and publishes its first 32 bits (header | setup << 16)
 * LAST with a system-scope release store, which lets the processor go on.
 *
 *   a count of 0         -> BARRIER_AND with no dependencies (a no-op that
 *                           keeps the completion signal and the fences)
 *   a count above limits -> the error record (args->error) gets the counts, then
 *                           the packet becomes type XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR
 *                           with kernarg_address = the record (the queue fails:
 *                           HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, and the ICD's
 *                           queue-error callback names the command from the record);
 *                           the grid sizes hold the raw counts too
 *   otherwise            -> the dispatch with grid = count * workgroup size
 */
#include "device_common.h"

XGPU_KERNEL(xgpu_amdgpu_indirect_patch, xgpu_amdgpu_indirect_patch_args_t, args) {
  if (xgpu_global_id(0) != 0) return;
  uint8_t* const packet = args->packet;
  uint32_t counts[3];
  bool zero = false;
  bool over_limit = false;
  for (int d = 0; d < 3; ++d) {
    counts[d] = xgpu_atomic_load(&args->counts[d], XGPU_ORDER_RELAXED, XGPU_SCOPE_SYSTEM);
    zero = zero || counts[d] == 0u;
    over_limit = over_limit || counts[d] > args->max_workgroup_count[d];
  }
  uint32_t word;
  if (zero) {
    /* BARRIER_AND: reserved fields and dep_signal[] zero; completion_signal
     * (same offset as the dispatch's) stays. */
    const uint32_t zero32 = 0;
    __builtin_memcpy_inline(packet + 4, &zero32, sizeof(zero32));
    for (uint32_t i = 0; i < XGPU_AMDGPU_AQL_BARRIER_DEP_SIGNAL_COUNT; ++i) {
      const uint64_t none = 0;
      __builtin_memcpy_inline(packet + XGPU_AMDGPU_AQL_BARRIER_DEP_SIGNAL_OFFSET + 8u * i, &none, sizeof(none));
    }
    word = args->no_op_word;
  } else if (over_limit) {
    /* The record first; the release store of the header below publishes it
     * together with the packet. */
    xgpu_amdgpu_indirect_error_t* const error = args->error;
    for (int d = 0; d < 3; ++d) error->counts[d] = counts[d];
    error->magic = XGPU_AMDGPU_INDIRECT_ERROR_MAGIC;
    const uint64_t record = (uint64_t)(uintptr_t)error;
    __builtin_memcpy_inline(packet + XGPU_AMDGPU_AQL_DISPATCH_GRID_SIZE_OFFSET, counts, sizeof(counts));
    __builtin_memcpy_inline(packet + XGPU_AMDGPU_AQL_DISPATCH_KERNARG_ADDRESS_OFFSET, &record, sizeof(record));
    word = args->limit_error_word;
  } else {
    uint32_t grid[3];
    for (int d = 0; d < 3; ++d) grid[d] = counts[d] * args->workgroup_size[d];
    __builtin_memcpy_inline(packet + XGPU_AMDGPU_AQL_DISPATCH_GRID_SIZE_OFFSET, grid, sizeof(grid));
    word = args->dispatch_word;
  }
  xgpu_atomic_store((uint32_t*)packet, word, XGPU_ORDER_RELEASE, XGPU_SCOPE_SYSTEM);
}
XGPU_KERNEL_BINDINGS(xgpu_amdgpu_indirect_patch, 2);
