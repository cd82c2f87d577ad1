// SyncHazards: synchronization hazards inside a submission, as warnings
// (spec/warnings.json; what Vulkan's synchronization validation does). The
// commands of one submission may run concurrently except across a barrier
// (api.md 2, "Inside a submission"); queue operations are ordered (queue
// order, semaphores), so a hazard lies between two commands of one command
// buffer: an access to bytes an earlier command writes (read-after-write,
// write-after-write) or a write to bytes an earlier command reads
// (write-after-read) with no barrier between them that covers it.
//
// What each command accesses: fill, update and timestamp write their pDst
// (transfer stage, TRANSFER_WRITE); copy reads pSrc (TRANSFER_READ) and
// writes pDst; an indirect dispatch reads its counts (INDIRECT stage,
// INDIRECT_READ; a write before them is the spec's own -hazard rules); a
// dispatch accesses each binding of the bound pipeline (DISPATCH stage) as
// XgpuPipelineProperties::bindingAccess says - what the kernel toolchain
// derived from the kernel's code: it reads (SHADER_READ), writes
// (SHADER_WRITE) and/or updates it atomically (both; atomics of two
// dispatches do not conflict with each other). So dispatch-to-dispatch
// hazards are found like any other. A binding whose access is UNKNOWN (a
// pointer the toolchain could not follow, a kernel built without its pass
// plugin) is used, read or written: only what holds either way is
// reported - a dispatch after a write to it (read-after-write), a write
// after it with no execution dependency (write-after-read); never against
// another dispatch's unknown or known access.
//
// Covered: the barriers recorded between the two commands order them — one
// whose source stages hold the earlier command's stage and destination
// stages the later one's (ALL_COMMANDS holds all), or a chain of them, each
// one's source stages holding a destination stage of one before it — and,
// for read-after-write and write-after-write, make the write visible to the
// later access: a memory barrier (global, or a buffer barrier whose range
// meets the bytes) with the earlier access in its srcAccessMask (in a
// barrier whose source stages hold the earlier stage) or, down the chain,
// an access the write was already made visible to; the later access in the
// dstAccessMask of one of them (MEMORY_WRITE / MEMORY_READ hold every write
// / read). Chains are followed as Vulkan's synchronization validation
// follows them: fill -> (TRANSFER -> DISPATCH) -> dispatch -> (DISPATCH ->
// TRANSFER, SHADER_WRITE -> TRANSFER_READ) -> copy of the filled bytes is
// ordered and visible.
//
// Where: at the recording command for two references to the same buffer, or
// to the same binding-table slot; at xgpuQueueSubmit, with the submission's
// table, for pairs that involve a slot and another slot or a buffer (once per
// table: a command buffer submitted again with the same table is not
// analysed again). Costly checks only.
#ifndef XGPU_LAYERS_VALIDATION_HAZARDS_HAZARDS_H_
#define XGPU_LAYERS_VALIDATION_HAZARDS_HAZARDS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "../chassis/hooks.h"

namespace xgpu_validation {

// One buffer access of a recorded command.
struct HazardAccess {
  // kAtomic: a dispatch's atomic operations on a binding (they conflict
  // with reads and writes, not with each other's atomics); kUnknown: a
  // dispatch's binding whose access the kernel's code object does not say.
  enum Kind : uint8_t { kRead, kWrite, kAtomic, kUnknown };
  uint32_t command;   // the command's index in the recording
  Kind kind;          // how it accesses
  bool check_before;  // compared with earlier accesses (not the indirect counts: the spec's -hazard rules)
  bool slot;          // target is a binding-table slot (else a buffer handle)
  uint32_t stage;     // XgpuPipelineStageFlagBits of the access
  uint32_t access;    // XgpuAccessFlags of the access
  uint64_t target;    // the buffer handle or the slot
  uint64_t offset;    // first byte (into the buffer, or into the slot's binding)
  uint64_t size;      // bytes, or XGPU_WHOLE_SIZE
  int32_t label;      // innermost debug label open around the command (index into HazardLog::label_names), or -1
  Command what;       // the command, for messages
  const char* field;  // the reference, e.g. "pDst" or "binding"
  int32_t field_index;  // the binding's index for "binding", else -1
};

// One memory barrier of a recorded xgpuCmdPipelineBarrier / xgpuCmdMemoryBarrier.
struct HazardMemoryBarrier {
  bool global;        // an XgpuMemoryBarrier (all memory)
  bool slot;          // a buffer barrier's reference is a slot (else a buffer)
  uint64_t target;    // its buffer handle or slot
  uint64_t offset;    // its range
  uint64_t size;      //
  uint32_t src_access;
  uint32_t dst_access;
};

struct HazardBarrier {
  uint32_t command;     // its index in the recording
  uint32_t src_stages;  // srcStageMask
  uint32_t dst_stages;  // dstStageMask
  bool has_first;       // first holds its first memory barrier (kept inline: most barriers have one)
  HazardMemoryBarrier first;
  std::vector<HazardMemoryBarrier> more;  // the others
};

// A recording's accesses and barriers (RecordingState::hazards).
struct HazardLog {
  std::vector<HazardAccess> accesses;          // every access, in recorded order
  std::vector<HazardBarrier> barriers;         // every barrier, in recorded order
  std::vector<std::string> label_names;        // every debug label begun
  std::vector<int32_t> label_stack;            // the labels open now
  // Per target (slot?, handle or slot): the accesses a later one must still be
  // compared with (an access supersedes an earlier one of the same kind and
  // stage whose bytes it covers).
  std::map<std::pair<bool, uint64_t>, std::vector<uint32_t>> live;
  bool has_slots = false;                      // an access or barrier names a slot
  std::mutex submit_mutex;                     // guards last_table
  bool analysed = false;                       // last_table was analysed
  std::vector<XgpuBufferBinding> last_table;   // the last table the submission analysis ran with

  // Empties the log for a new recording of its command buffer, keeping the
  // storage (a re-recording then touches no new memory). Only its owner, with
  // no submission holding it, may call this.
  void Clear() {
    accesses.clear();
    barriers.clear();
    label_names.clear();
    label_stack.clear();
    for (auto& entry : live) entry.second.clear();  // an empty list compares with nothing
    has_slots = false;
    analysed = false;
    last_table.clear();
  }
};

// Whether an instance with the synchronization-hazard warnings on has been
// created in this process (set at its xgpuCreateInstance, never cleared).
extern std::atomic<bool> g_sync_hazards_seen;

class SyncHazards : public HookDefaults {
 public:
  // The recording hooks: a test inline (the warnings are off by default and
  // every recorded command calls one), the work in hazards.cpp.
  void PostRecordCmdDispatch(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t groupCountX,
                             uint32_t groupCountY, uint32_t groupCountZ) {
    if (On(ctx)) [[unlikely]]
      RecordCmdDispatch(ctx, commandBuffer, groupCountX, groupCountY, groupCountZ);
  }
  void PostRecordCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pCounts,
                                     XgpuDispatchIndirectFlags flags) {
    if (On(ctx)) [[unlikely]]
      RecordCmdDispatchIndirect(ctx, commandBuffer, pCounts, flags);
  }
  void PostRecordCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                               const void* pPattern, uint32_t patternSize) {
    if (On(ctx)) [[unlikely]]
      RecordCmdFillBuffer(ctx, commandBuffer, pDst, pPattern, patternSize);
  }
  void PostRecordCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pSrc,
                               const XgpuBufferRef* pDst, XgpuDeviceSize size) {
    if (On(ctx)) [[unlikely]]
      RecordCmdCopyBuffer(ctx, commandBuffer, pSrc, pDst, size);
  }
  void PostRecordCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                                 XgpuDeviceSize dataSize, const void* pData) {
    if (On(ctx)) [[unlikely]]
      RecordCmdUpdateBuffer(ctx, commandBuffer, pDst, dataSize, pData);
  }
  void PostRecordCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlagBits stage,
                                   const XgpuBufferRef* pDst) {
    if (On(ctx)) [[unlikely]]
      RecordCmdWriteTimestamp(ctx, commandBuffer, stage, pDst);
  }
  void PostRecordCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                    XgpuPipelineStageFlags srcStageMask, XgpuPipelineStageFlags dstStageMask,
                                    uint32_t memoryBarrierCount, const XgpuMemoryBarrier* pMemoryBarriers,
                                    uint32_t bufferBarrierCount, const XgpuBufferMemoryBarrier* pBufferBarriers) {
    if (On(ctx)) [[unlikely]]
      RecordCmdPipelineBarrier(ctx, commandBuffer, srcStageMask, dstStageMask, memoryBarrierCount, pMemoryBarriers,
                               bufferBarrierCount, pBufferBarriers);
  }
  void PostRecordCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  XgpuPipelineStageFlags srcStageMask, XgpuAccessFlags srcAccessMask,
                                  XgpuPipelineStageFlags dstStageMask, XgpuAccessFlags dstAccessMask) {
    if (On(ctx)) [[unlikely]]
      RecordCmdMemoryBarrier(ctx, commandBuffer, srcStageMask, srcAccessMask, dstStageMask, dstAccessMask);
  }
  void PostRecordCmdBeginDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel) {
    if (On(ctx)) [[unlikely]]
      RecordCmdBeginDebugLabel(ctx, commandBuffer, pLabel);
  }
  void PostRecordCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer) {
    if (On(ctx)) [[unlikely]]
      RecordCmdEndDebugLabel(ctx, commandBuffer);
  }

  bool ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                           const XgpuSubmitInfo* pSubmits) const;

 private:
  // One load of a global on the common path: no instance has the warnings on.
  static bool On(const CallContext& ctx) {
    return g_sync_hazards_seen.load(std::memory_order_relaxed) && ctx.instance != nullptr &&
           ctx.instance->settings.sync_hazards;
  }
  void RecordCmdDispatch(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t groupCountX, uint32_t groupCountY,
                         uint32_t groupCountZ);
  void RecordCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pCounts,
                                 XgpuDispatchIndirectFlags flags);
  void RecordCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                           const void* pPattern, uint32_t patternSize);
  void RecordCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pSrc,
                           const XgpuBufferRef* pDst, XgpuDeviceSize size);
  void RecordCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                             XgpuDeviceSize dataSize, const void* pData);
  void RecordCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlagBits stage,
                               const XgpuBufferRef* pDst);
  void RecordCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask,
                                XgpuPipelineStageFlags dstStageMask, uint32_t memoryBarrierCount,
                                const XgpuMemoryBarrier* pMemoryBarriers, uint32_t bufferBarrierCount,
                                const XgpuBufferMemoryBarrier* pBufferBarriers);
  void RecordCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask,
                              XgpuAccessFlags srcAccessMask, XgpuPipelineStageFlags dstStageMask,
                              XgpuAccessFlags dstAccessMask);
  void RecordCmdBeginDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
  void RecordCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer);
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_HAZARDS_HAZARDS_H_
