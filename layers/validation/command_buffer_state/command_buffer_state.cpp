#include "command_buffer_state.h"

#include "../chassis/object_map.h"

#include <string>

namespace xgpu_validation {

const char* StatusName(CommandBufferStatus status) {
  switch (status) {
    case CommandBufferStatus::kInitial: return "initial";
    case CommandBufferStatus::kRecording: return "recording";
    case CommandBufferStatus::kExecutable: return "executable";
    case CommandBufferStatus::kSubmitted: return "pending or invalid (a one-shot command buffer already submitted)";
    case CommandBufferStatus::kInvalid: return "invalid (its xgpuEndCommandBuffer failed)";
  }
  return "unknown";
}

namespace {

std::string InState(const ObjectRecord* record) {
  return Describe(record) + ", in the " + StatusName(record->status.load(std::memory_order_relaxed)) + " state";
}

}  // namespace

bool CommandBufferState::ReportNotRecording(CallContext& ctx, Vuid vuid) {
  return ctx.Report(vuid, Field{"commandBuffer"}, InState(ctx.dispatch_record));
}

bool CommandBufferState::ValidateBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                                    const XgpuCommandBufferBeginInfo* pBeginInfo) const {
  const ObjectRecord* record = ctx.dispatch_record;
  if (record == nullptr || record->status.load(std::memory_order_relaxed) != CommandBufferStatus::kRecording) {
    return false;
  }
  return ctx.Report(Vuid::xgpuBeginCommandBuffer_commandBuffer_recording, Field{"commandBuffer"}, InState(record));
}

bool CommandBufferState::ValidateEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer) const {
  return CheckRecording(ctx, Vuid::xgpuEndCommandBuffer_commandBuffer_recording);
}

bool CommandBufferState::ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                                             const XgpuSubmitInfo* pSubmits) const {
  if (!IsUsablePointer(pSubmits)) return false;
  bool skip = false;
  for (uint32_t i = 0; i < submitCount; ++i) {
    if (pSubmits[i].commandBuffer == XGPU_NULL_HANDLE) continue;
    const ObjectRecord* record =
        Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uintptr_t>(pSubmits[i].commandBuffer));
    if (record == nullptr) continue;  // the object tracker reports it
    const Field field{"pSubmits[i].commandBuffer", i};
    const ObjectRef ref{record->type, record->handle};
    const CommandBufferStatus status = record->status.load(std::memory_order_relaxed);
    const bool one_shot = record->one_shot.load(std::memory_order_relaxed);
    if (status == CommandBufferStatus::kSubmitted) {
      skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_commandBuffer_oneShot, field,
                         Describe(record) + ", a one-shot command buffer already submitted since it was begun", {ref});
      continue;
    }
    if (status != CommandBufferStatus::kExecutable) {
      skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_commandBuffer_state, field, InState(record), {ref});
      continue;
    }
    if (!one_shot) continue;
    for (uint32_t k = 0; k < i; ++k) {
      if (pSubmits[k].commandBuffer == pSubmits[i].commandBuffer) {
        skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_commandBuffer_oneShot, field,
                           Describe(record) + ", a one-shot command buffer also in pSubmits[" + std::to_string(k) + "]",
                           {ref});
        break;
      }
    }
  }
  return skip;
}

#include "../generated/command_buffer_state_checks.inc"

}  // namespace xgpu_validation
