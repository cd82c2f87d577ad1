// RecordingValidation: the explicit rules of recording commands and of the
// binding tables that resolve them (api.md 3, 13, 16-17; categories
// buffer_ref, buffer_usage, range, alignment, value, limit, bound_state,
// exclusive_flags, memory_type, overlap and label_nesting of vuids.json).
//
// At the call, a reference to a buffer is checked in full (kind, range,
// alignment, usage); a reference to a binding-table slot is checked for its
// kind and slot, and remembered by the state tracker (RecordingState::slot_uses). At
// xgpuQueueSubmit each submission's table is checked: every binding inside
// its buffer and aligned, at least bindingCapacity of them, and every
// remembered slot reference resolved with it: inside its binding
// (XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-refRange), large enough,
// aligned and not overlapping as its command requires (that command's rule),
// and the binding's buffer having the usage the command needs
// (XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-usage).
//
// The recording's state (bound pipeline, bindings and constant bytes set,
// dynamic workgroup memory, open debug labels, slot uses) lives in the
// command buffer's record (ObjectRecord::recording), so a recording command
// looks nothing up but the buffers it names. The state tracker (state/)
// writes it; these hooks only read it (the one exception:
// RecordingState::bound_state_complete, a mutable cache of their own answer).
//
// Thread-safe as the API: a recording changes only in calls that externally
// synchronize its command buffer; submissions read it.
#ifndef XGPU_LAYERS_VALIDATION_RECORDING_RECORDING_VALIDATION_H_
#define XGPU_LAYERS_VALIDATION_RECORDING_RECORDING_VALIDATION_H_

#include "../chassis/hooks.h"

namespace xgpu_validation {

class RecordingValidation : public HookDefaults {
 public:
  bool ValidateBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  const XgpuCommandBufferBeginInfo* pBeginInfo) const;
  bool ValidateEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer) const;

  bool ValidateCmdBindPipeline(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipeline pipeline) const;
  bool ValidateCmdPushConstants(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t offset, uint32_t size,
                                const void* pValues) const;
  bool ValidateCmdBindBuffers(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t firstBinding,
                              uint32_t bindingCount, const XgpuBufferRef* pBuffers) const;
  bool ValidateCmdSetWorkgroupMemorySize(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                         uint32_t dynamicSize) const;
  bool ValidateCmdDispatch(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t groupCountX,
                           uint32_t groupCountY, uint32_t groupCountZ) const;
  bool ValidateCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pCounts,
                                   XgpuDispatchIndirectFlags flags) const;
  bool ValidateCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                             const void* pPattern, uint32_t patternSize) const;
  bool ValidateCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pSrc,
                             const XgpuBufferRef* pDst, XgpuDeviceSize size) const;
  bool ValidateCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                               XgpuDeviceSize dataSize, const void* pData) const;
  bool ValidateCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  XgpuPipelineStageFlags srcStageMask, XgpuPipelineStageFlags dstStageMask,
                                  uint32_t memoryBarrierCount, const XgpuMemoryBarrier* pMemoryBarriers,
                                  uint32_t bufferBarrierCount, const XgpuBufferMemoryBarrier* pBufferBarriers) const;
  bool ValidateCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask,
                                XgpuAccessFlags srcAccessMask, XgpuPipelineStageFlags dstStageMask,
                                XgpuAccessFlags dstAccessMask) const;
  bool ValidateCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer) const;
  bool ValidateCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlagBits stage,
                                 const XgpuBufferRef* pDst) const;

  bool ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                           const XgpuSubmitInfo* pSubmits) const;

 private:
  // Reports what is wrong with the binding table of pSubmits[i] (one that
  // the fast check found not clean; it may still be fine).
  [[gnu::cold]] [[gnu::noinline]] static bool ReportSubmitTable(CallContext& ctx, const XgpuSubmitInfo& submit,
                                                                uint32_t i, const ObjectRecord* cb,
                                                                const RecordingState* recording,
                                                                const XgpuPhysicalDeviceLimits& limits);
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_RECORDING_RECORDING_VALIDATION_H_
