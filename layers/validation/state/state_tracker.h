// StateTracker: the layer's state of the objects and recordings the checks
// read, and the only writer of it. Its PostRecord hooks fill what a call
// leaves behind in the object records (layer.h): a buffer's size, usage,
// memory type, mapping and whether a queue made it; a memory pool's memory
// type; a pipeline's layout; an executable's kernels; a queue's or command
// buffer's family; a command buffer's status and mode; and a command
// buffer's recording (RecordingState: the bound pipeline, bindings and
// constant bytes set, workgroup memory, open labels, the slot uses, writes
// and indirect reads the submission checks resolve, the objects named).
//
// The chassis runs these hooks after the object tracker's (which makes the
// record of an object a call creates) and before every check object's (so
// a check's own record-time bookkeeping, pending/ and hazards/, sees the
// state the call left): spec/gen/vlayer_gen.py, STATE_OBJECT. It has no
// Validate hooks; the check objects have no hook that writes this state.
//
// Thread-safe as the API: a record's fields change only in the call that
// creates the object or one that externally synchronizes it (the atomic
// ones: layer.h); submissions read them.
#ifndef XGPU_LAYERS_VALIDATION_STATE_STATE_TRACKER_H_
#define XGPU_LAYERS_VALIDATION_STATE_STATE_TRACKER_H_

#include "../chassis/hooks.h"

namespace xgpu_validation {

class StateTracker : public HookDefaults {
 public:
  // ---- the records themselves (lifetime.cpp) ----
  // Generated: the hooks that make the record of an object a command creates
  // or retrieves and end the record of one it destroys. The chassis calls
  // them first among this object's hooks (Lifetime{Pre,Post}Record<Command>).
#include "../generated/state_lifetime_decls.inc"

  // xgpuCreateDevice, before its hooks: the records of the new device
  // (ctx.creation->new_device) and of every queue it was created with, so that
  // xgpuGetDeviceQueue - which has no result to fail with - never has to
  // allocate one. Throws std::bad_alloc (having recorded nothing) when host
  // memory runs out: the caller fails the creation.
  static void TrackCreatedDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks* allocator);

  // ---- objects' records (object_state.cpp) ----
  void PostRecordGetDeviceQueue(CallContext& ctx, XgpuDevice device, uint32_t queueFamilyIndex, uint32_t queueIndex,
                                XgpuQueue* pQueue);
  void PostRecordCreateBuffer(CallContext& ctx, XgpuDevice device, const XgpuBufferCreateInfo* pCreateInfo,
                              const XgpuAllocationCallbacks* pAllocator, XgpuBuffer* pBuffer, XgpuResult result);
  void PostRecordMapBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer, XgpuDeviceSize offset,
                           XgpuDeviceSize size, void** ppData, XgpuResult result);
  void PostRecordUnmapBuffer(CallContext& ctx, XgpuDevice device, XgpuBuffer buffer);
  void PostRecordQueueAlloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                             const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool,
                             XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer, XgpuResult result);
  void PostRecordCreateMemoryPool(CallContext& ctx, XgpuDevice device, const XgpuMemoryPoolCreateInfo* pCreateInfo,
                                  const XgpuAllocationCallbacks* pAllocator, XgpuMemoryPool* pMemoryPool,
                                  XgpuResult result);
  void PostRecordCreateExecutable(CallContext& ctx, XgpuDevice device, const XgpuExecutableCreateInfo* pCreateInfo,
                                  const XgpuAllocationCallbacks* pAllocator, XgpuExecutable* pExecutable,
                                  XgpuResult result);
  void PostRecordCreatePipeline(CallContext& ctx, XgpuDevice device, const XgpuPipelineCreateInfo* pCreateInfo,
                                const XgpuAllocationCallbacks* pAllocator, XgpuPipeline* pPipeline, XgpuResult result);
  void PostRecordCreateCommandBuffer(CallContext& ctx, XgpuDevice device,
                                     const XgpuCommandBufferCreateInfo* pCreateInfo,
                                     const XgpuAllocationCallbacks* pAllocator, XgpuCommandBuffer* pCommandBuffer,
                                     XgpuResult result);

  // xgpuSetObjectName: the name messages give the object.
  void PostRecordSetObjectName(CallContext& ctx, XgpuDevice device, const XgpuDebugObjectNameInfo* pNameInfo,
                               XgpuResult result);

  // ---- command buffers' status and recordings (recording_state.cpp) ----
  void PostRecordBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                    const XgpuCommandBufferBeginInfo* pBeginInfo, XgpuResult result);
  void PostRecordEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuResult result);
  void PostRecordQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount, const XgpuSubmitInfo* pSubmits,
                             XgpuResult result);
  void PostRecordCmdBindPipeline(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipeline pipeline);
  void PostRecordCmdPushConstants(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t offset, uint32_t size,
                                  const void* pValues);
  void PostRecordCmdBindBuffers(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t firstBinding,
                                uint32_t bindingCount, const XgpuBufferRef* pBuffers);
  void PostRecordCmdSetWorkgroupMemorySize(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t dynamicSize);
  void PostRecordCmdDispatch(CallContext& ctx, XgpuCommandBuffer commandBuffer, uint32_t groupCountX,
                             uint32_t groupCountY, uint32_t groupCountZ);
  void PostRecordCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pCounts,
                                     XgpuDispatchIndirectFlags flags);
  void PostRecordCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                               const void* pPattern, uint32_t patternSize);
  void PostRecordCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pSrc,
                               const XgpuBufferRef* pDst, XgpuDeviceSize size);
  void PostRecordCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst,
                                 XgpuDeviceSize dataSize, const void* pData);
  void PostRecordCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                    XgpuPipelineStageFlags srcStageMask, XgpuPipelineStageFlags dstStageMask,
                                    uint32_t memoryBarrierCount, const XgpuMemoryBarrier* pMemoryBarriers,
                                    uint32_t bufferBarrierCount, const XgpuBufferMemoryBarrier* pBufferBarriers);
  void PostRecordCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  XgpuPipelineStageFlags srcStageMask, XgpuAccessFlags srcAccessMask,
                                  XgpuPipelineStageFlags dstStageMask, XgpuAccessFlags dstAccessMask);
  void PostRecordCmdBeginDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
  void PostRecordCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer);
  void PostRecordCmdInsertDebugLabel(CallContext& ctx, XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
  void PostRecordCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlagBits stage,
                                   const XgpuBufferRef* pDst);

 private:
  // Records a created or retrieved object whose parent is the call's object
  // of parent_type (or the call's object's ancestor of that type).
  template <typename Handle>
  static void Track(CallContext& ctx, XgpuObjectType type, Handle handle, XgpuObjectType parent_type,
                    const XgpuAllocationCallbacks* allocator) {
    TrackValue(ctx, type, reinterpret_cast<uintptr_t>(handle), parent_type, allocator);
  }
  // Returns the object's record. Throws std::bad_alloc when host memory runs out.
  static ObjectRecord* TrackValue(CallContext& ctx, XgpuObjectType type, uint64_t handle,
                                  XgpuObjectType parent_type, const XgpuAllocationCallbacks* allocator);
  // The same with the parent's record given (nullptr: none).
  static ObjectRecord* TrackValueUnder(CallContext& ctx, XgpuObjectType type, uint64_t handle, ObjectRecord* parent,
                                       const XgpuAllocationCallbacks* allocator);
  // Forgets a destroyed object (and, for a device or instance, everything under it).
  template <typename Handle>
  static void Untrack(CallContext& ctx, XgpuObjectType type, Handle handle) {
    UntrackValue(ctx, type, reinterpret_cast<uintptr_t>(handle));
  }
  static void UntrackValue(CallContext& ctx, XgpuObjectType type, uint64_t handle);
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_STATE_STATE_TRACKER_H_
