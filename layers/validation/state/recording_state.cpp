#include "state_tracker.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../chassis/object_map.h"
#include "../hazards/hazards.h"
#include "../recording/recording_rules.h"

namespace xgpu_validation {
namespace {

// The recording of the call's command buffer, to change (nullptr when it is
// not a live command buffer or not recording: nothing to record).
RecordingState* WritableRecordingOf(CallContext& ctx) {
  ObjectRecord* record = ctx.dispatch_record;
  if (record == nullptr || record->status.load(std::memory_order_relaxed) != CommandBufferStatus::kRecording) {
    return nullptr;
  }
  return record->recording.get();
}

// Remembers a slot reference of the command being recorded (its checks are
// at each submission). Returns its index in slot_uses, or -1.
int32_t RememberSlot(CallContext& ctx, RecordingState& recording, const XgpuBufferRef* ref, const char* field,
                     uint32_t i, const RefRule& rule, uint64_t min_size, uint64_t alignment) {
  if (!IsUsablePointer(ref) || ref->kind != XGPU_BUFFER_REF_KIND_BINDING_SLOT) return -1;
  SlotUse use;
  use.command_index = recording.commands;
  use.command = ctx.command;
  use.field = field;
  use.field_index = i;
  use.slot = ref->bindingSlot;
  use.offset = ref->offset;
  use.size = ref->size;
  use.min_size = min_size;
  use.alignment = rule.has_alignment ? alignment : 1;
  use.usage = rule.usage_bit;
  use.range_vuid = rule.range;
  use.alignment_vuid = rule.alignment;
  use.labels = LabelsText(recording);
  recording.slot_uses.push_back(std::move(use));
  return static_cast<int32_t>(recording.slot_uses.size() - 1);
}

// Remembers the buffer a direct reference names (for the pending-work checks).
void RememberDirect(RecordingState& recording, const XgpuBufferRef* ref) {
  if (!IsUsablePointer(ref) || ref->kind != XGPU_BUFFER_REF_KIND_BUFFER || ref->buffer == XGPU_NULL_HANDLE) return;
  const std::pair<XgpuObjectType, uint64_t> key{XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(ref->buffer)};
  auto& list = recording.direct_objects;
  // The same few buffers, call after call: look back a little before growing.
  const size_t look = std::min<size_t>(list.size(), 4);
  if (std::find(list.end() - look, list.end(), key) == list.end()) list.push_back(key);
}

// Remembers that the command being recorded writes what `ref` names.
void RememberWrite(const CallContext& ctx, RecordingState& recording, const XgpuBufferRef* ref) {
  if (!Costly(ctx) || !IsUsablePointer(ref)) return;
  const bool slot = ref->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT;
  if (!slot && ref->kind != XGPU_BUFFER_REF_KIND_BUFFER) return;
  const uint64_t target = slot ? ref->bindingSlot : reinterpret_cast<uintptr_t>(ref->buffer);
  // The same few references, command after command (a dispatch writes all it
  // binds): an earlier write of the same bytes with no barrier to the indirect
  // reads since stands for this one. Every check reads the writes in order
  // and reports the first one it matches (the earlier one, kept), and a read
  // later in the recording is covered by a barrier for both or for neither.
  auto& list = recording.writes;
  const size_t look = std::min<size_t>(list.size(), 8);
  for (size_t n = list.size() - look; n < list.size(); ++n) {
    const RecordingState::Write& w = list[n];
    if (w.slot == slot && w.target == target && w.offset == ref->offset && w.size == ref->size &&
        recording.indirect_barrier <= w.command + 1u) {
      return;
    }
  }
  list.push_back({slot, target, ref->offset, ref->size, recording.commands});
}

// A dispatch may write every buffer bound to it. The dispatch after another
// with the same bindings and no barrier to the indirect reads between adds
// nothing (RememberWrite would find each of its writes).
void RememberDispatchWrites(const CallContext& ctx, RecordingState& recording) {
  if (!Costly(ctx) || !recording.has_pipeline) return;
  if (recording.dispatch_writes_noted && recording.dispatch_writes_barrier == recording.indirect_barrier) return;
  const uint32_t count = std::min<uint32_t>(recording.layout.binding_count, recording.bound.size());
  for (uint32_t b = 0; b < count; ++b) RememberWrite(ctx, recording, &recording.bound[b]);
  recording.dispatch_writes_noted = true;
  recording.dispatch_writes_barrier = recording.indirect_barrier;
}

// A barrier whose destination is the indirect reads.
bool IndirectVisible(XgpuPipelineStageFlags dstStageMask, XgpuAccessFlags dstAccessMask) {
  return (dstStageMask & (XGPU_PIPELINE_STAGE_INDIRECT_BIT | XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT)) != 0 &&
         (dstAccessMask & (XGPU_ACCESS_INDIRECT_READ_BIT | XGPU_ACCESS_MEMORY_READ_BIT)) != 0;
}

}  // namespace

// ---- command buffers' status ----

void StateTracker::PostRecordBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer,
                                                const XgpuCommandBufferBeginInfo* pBeginInfo,
                                                XgpuResult result) {
  if (result < 0 || ctx.dispatch_record == nullptr || !IsUsablePointer(pBeginInfo)) return;
  ctx.dispatch_record->one_shot.store(pBeginInfo->mode == XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, std::memory_order_relaxed);
  ctx.dispatch_record->status.store(CommandBufferStatus::kRecording, std::memory_order_relaxed);
  auto recording = std::make_unique<RecordingState>();
  recording->binding_capacity = pBeginInfo->bindingCapacity;
  // The last recording's logs lend their storage to this one (emptied), so
  // re-recording a command buffer allocates and faults in no new memory.
  if (RecordingState* last = ctx.dispatch_record->recording.get()) {
    recording->writes = std::move(last->writes);
    recording->writes.clear();
    recording->indirect_reads = std::move(last->indirect_reads);
    recording->indirect_reads.clear();
    recording->direct_objects = std::move(last->direct_objects);
    recording->direct_objects.clear();
    recording->slot_uses = std::move(last->slot_uses);
    recording->slot_uses.clear();
    if (last->hazards && last->hazards.use_count() == 1) {  // no submission is reading it
      recording->hazards = std::move(last->hazards);
      recording->hazards->Clear();
    }
  }
  ctx.dispatch_record->recording = std::move(recording);
}

void StateTracker::PostRecordEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer, XgpuResult result) {
  ObjectRecord* record = ctx.dispatch_record;
  if (record == nullptr) return;
  record->status.store(result >= 0 ? CommandBufferStatus::kExecutable : CommandBufferStatus::kInvalid,
                       std::memory_order_relaxed);
  if (result < 0 || record->recording == nullptr) return;
  auto& list = record->recording->direct_objects;
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

void StateTracker::PostRecordQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                                         const XgpuSubmitInfo* pSubmits, XgpuResult result) {
  if (result < 0 || !IsUsablePointer(pSubmits)) return;
  for (uint32_t i = 0; i < submitCount; ++i) {
    if (pSubmits[i].commandBuffer == XGPU_NULL_HANDLE) continue;
    ObjectRecord* record =
        Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uintptr_t>(pSubmits[i].commandBuffer));
    if (record != nullptr && record->one_shot.load(std::memory_order_relaxed)) {
      record->status.store(CommandBufferStatus::kSubmitted, std::memory_order_relaxed);
    }
  }
}

// ---- recording commands ----

void StateTracker::PostRecordCmdBindPipeline(CallContext& ctx, XgpuCommandBuffer, XgpuPipeline pipeline) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  ++recording->commands;
  const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_PIPELINE, reinterpret_cast<uintptr_t>(pipeline));
  if (record == nullptr) return;
  recording->has_pipeline = true;
  recording->pipeline = record->handle;
  recording->layout = record->layout;
  recording->bound_state_complete = false;
  recording->dispatch_ready = false;
  recording->dispatch_writes_noted = false;
  const std::pair<XgpuObjectType, uint64_t> key{XGPU_OBJECT_TYPE_PIPELINE, record->handle};
  auto& list = recording->direct_objects;
  const size_t look = std::min<size_t>(list.size(), 4);
  if (std::find(list.end() - look, list.end(), key) == list.end()) list.push_back(key);
}

void StateTracker::PostRecordCmdPushConstants(CallContext& ctx, XgpuCommandBuffer, uint32_t offset,
                                              uint32_t size, const void*) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  ++recording->commands;
  const uint64_t end = uint64_t{offset} + size;
  // Every byte the bound pipeline has is set already.
  if (recording->bound_state_complete && end <= recording->layout.constant_size) return;
  if (recording->constants_set.size() < end) recording->constants_set.resize(end, false);
  for (uint64_t c = offset; c < end; ++c) recording->constants_set[c] = true;
}

void StateTracker::PostRecordCmdBindBuffers(CallContext& ctx, XgpuCommandBuffer, uint32_t firstBinding,
                                            uint32_t bindingCount, const XgpuBufferRef* pBuffers) {
  RecordingState* recording = WritableRecordingOf(ctx);
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  if (recording == nullptr || limits == nullptr) return;
  recording->dispatch_writes_noted = false;
  const uint64_t end = uint64_t{firstBinding} + bindingCount;
  if (recording->bindings_set.size() < end) recording->bindings_set.resize(end, false);
  for (uint64_t b = firstBinding; b < end; ++b) recording->bindings_set[b] = true;
  if (Costly(ctx) && IsUsablePointer(pBuffers)) {
    if (recording->bound.size() < end) recording->bound.resize(end, XgpuBufferRef{});
    for (uint32_t i = 0; i < bindingCount; ++i) recording->bound[firstBinding + i] = pBuffers[i];
  }
  if (IsUsablePointer(pBuffers)) {
    for (uint32_t i = 0; i < bindingCount; ++i) {
      RememberSlot(ctx, *recording, &pBuffers[i], kBindBuffersRule.field, i, kBindBuffersRule, 1,
                   limits->minBufferOffsetAlignment);
      RememberDirect(*recording, &pBuffers[i]);
    }
  }
  ++recording->commands;
}

void StateTracker::PostRecordCmdSetWorkgroupMemorySize(CallContext& ctx, XgpuCommandBuffer,
                                                       uint32_t dynamicSize) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  recording->dynamic_memory = dynamicSize;
  recording->dispatch_ready = false;
  ++recording->commands;
}

void StateTracker::PostRecordCmdDispatch(CallContext& ctx, XgpuCommandBuffer, uint32_t, uint32_t, uint32_t) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  RememberDispatchWrites(ctx, *recording);
  ++recording->commands;
}

void StateTracker::PostRecordCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer,
                                                 const XgpuBufferRef* pCounts, XgpuDispatchIndirectFlags flags) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  const int32_t use = RememberSlot(ctx, *recording, pCounts, kCountsRule.field, 0, kCountsRule, 12, 4);
  if (use >= 0) {
    recording->slot_uses[use].host_visible =
        (flags & (XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT)) ==
        XGPU_DISPATCH_INDIRECT_STATIC_BIT;
  }
  RememberDirect(*recording, pCounts);
  if (Costly(ctx) && IsUsablePointer(pCounts)) {
    const bool slot = pCounts->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT;
    RecordingState::IndirectRead read{slot, slot ? pCounts->bindingSlot : reinterpret_cast<uintptr_t>(pCounts->buffer),
                                      pCounts->offset, recording->commands,
                                      (flags & XGPU_DISPATCH_INDIRECT_STATIC_BIT) != 0, recording->indirect_barrier,
                                      recording->writes.size(), {}};
    // The bound pipeline's maxWorkgroupCount, as xgpuGetPipelineProperties
    // gives it: the device's workgroup-count and grid limits over its
    // workgroup size (the static counts are checked against it at submit).
    if (const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx); limits != nullptr && recording->has_pipeline) {
      for (int d = 0; d < 3; ++d) {
        const uint32_t size = recording->layout.workgroup_size[d] == 0 ? 1 : recording->layout.workgroup_size[d];
        read.max_counts[d] = std::min<uint32_t>(limits->maxWorkgroupCount[d], limits->maxGridSize[d] / size);
      }
    }
    recording->indirect_reads.push_back(read);
  }
  RememberDispatchWrites(ctx, *recording);
  ++recording->commands;
}

void StateTracker::PostRecordCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pDst,
                                           const void*, uint32_t patternSize) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  RememberSlot(ctx, *recording, pDst, kFillRule.field, 0, kFillRule, 0, patternSize);
  RememberDirect(*recording, pDst);
  RememberWrite(ctx, *recording, pDst);
  ++recording->commands;
}

void StateTracker::PostRecordCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pSrc,
                                           const XgpuBufferRef* pDst, XgpuDeviceSize size) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  const int32_t src = RememberSlot(ctx, *recording, pSrc, kCopySrcRule.field, 0, kCopySrcRule, size, 1);
  const int32_t dst = RememberSlot(ctx, *recording, pDst, kCopyDstRule.field, 0, kCopyDstRule, size, 1);
  RememberDirect(*recording, pSrc);
  RememberDirect(*recording, pDst);
  if (IsUsablePointer(pDst)) {
    XgpuBufferRef written = *pDst;
    written.size = size;
    RememberWrite(ctx, *recording, &written);
  }
  if (src >= 0 && dst >= 0) {
    recording->slot_uses[dst].overlap_with = src;
    recording->slot_uses[dst].overlap_vuid = Vuid::xgpuCmdCopyBuffer_overlap;
  }
  ++recording->commands;
}

void StateTracker::PostRecordCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pDst,
                                             XgpuDeviceSize dataSize, const void*) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  RememberSlot(ctx, *recording, pDst, kUpdateRule.field, 0, kUpdateRule, dataSize, 1);
  RememberDirect(*recording, pDst);
  if (IsUsablePointer(pDst)) {
    XgpuBufferRef written = *pDst;
    written.size = dataSize;
    RememberWrite(ctx, *recording, &written);
  }
  ++recording->commands;
}

void StateTracker::PostRecordCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer, XgpuPipelineStageFlags,
                                                XgpuPipelineStageFlags dstStageMask,
                                                uint32_t memoryBarrierCount,
                                                const XgpuMemoryBarrier* pMemoryBarriers,
                                                uint32_t bufferBarrierCount,
                                                const XgpuBufferMemoryBarrier* pBufferBarriers) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  bool visible = false;
  if (IsUsablePointer(pBufferBarriers)) {
    for (uint32_t i = 0; i < bufferBarrierCount; ++i) {
      RememberSlot(ctx, *recording, &pBufferBarriers[i].buffer, kBarrierRule.field, i, kBarrierRule, 1, 1);
      RememberDirect(*recording, &pBufferBarriers[i].buffer);
      visible |= IndirectVisible(dstStageMask, pBufferBarriers[i].dstAccessMask);
    }
  }
  if (IsUsablePointer(pMemoryBarriers)) {
    for (uint32_t i = 0; i < memoryBarrierCount; ++i) {
      visible |= IndirectVisible(dstStageMask, pMemoryBarriers[i].dstAccessMask);
    }
  }
  if (visible) recording->indirect_barrier = recording->commands + 1;
  ++recording->commands;
}

void StateTracker::PostRecordCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer, XgpuPipelineStageFlags,
                                              XgpuAccessFlags, XgpuPipelineStageFlags dstStageMask,
                                              XgpuAccessFlags dstAccessMask) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  if (IndirectVisible(dstStageMask, dstAccessMask)) recording->indirect_barrier = recording->commands + 1;
  ++recording->commands;
}

void StateTracker::PostRecordCmdBeginDebugLabel(CallContext& ctx, XgpuCommandBuffer,
                                                const XgpuDebugLabel* pLabel) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  recording->labels.emplace_back(IsUsablePointer(pLabel) && pLabel->pLabelName ? pLabel->pLabelName : "");
  ++recording->commands;
}

void StateTracker::PostRecordCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  if (!recording->labels.empty()) recording->labels.pop_back();
  ++recording->commands;
}

void StateTracker::PostRecordCmdInsertDebugLabel(CallContext& ctx, XgpuCommandBuffer, const XgpuDebugLabel*) {
  if (RecordingState* recording = WritableRecordingOf(ctx)) ++recording->commands;
}

void StateTracker::PostRecordCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer, XgpuPipelineStageFlagBits,
                                               const XgpuBufferRef* pDst) {
  RecordingState* recording = WritableRecordingOf(ctx);
  if (recording == nullptr) return;
  RememberSlot(ctx, *recording, pDst, kTimestampRule.field, 0, kTimestampRule, 8, 8);
  RememberDirect(*recording, pDst);
  if (IsUsablePointer(pDst)) {
    XgpuBufferRef written = *pDst;
    written.size = 8;
    RememberWrite(ctx, *recording, &written);
  }
  ++recording->commands;
}

}  // namespace xgpu_validation
