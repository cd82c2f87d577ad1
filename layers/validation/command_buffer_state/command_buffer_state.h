// CommandBufferState: the command-buffer state rules (api.md 13, category
// command_buffer_state of vuids.json): recording commands and
// xgpuEndCommandBuffer need a recording command buffer,
// xgpuBeginCommandBuffer one that is not recording, and a submission an
// executable one, a one-shot command buffer submitted at most once per
// recording. The states live in the command buffers' object records
// (ObjectRecord::status, one_shot); the recording commands' checks are wired
// by generated/command_buffer_state_checks.inc.
//
// The pending state (when a submission completes, as the host observes it)
// is PendingWork's (pending/): it checks the -pending rules of
// xgpuBeginCommandBuffer and xgpuDestroyCommandBuffer, and refuses the
// submission of a recording that uses a destroyed buffer or pipeline.
//
// Thread-safe as the API: a command buffer's state changes only in calls that
// externally synchronize it; submissions read it.
#ifndef XGPU_LAYERS_VALIDATION_COMMAND_BUFFER_STATE_COMMAND_BUFFER_STATE_H_
#define XGPU_LAYERS_VALIDATION_COMMAND_BUFFER_STATE_COMMAND_BUFFER_STATE_H_

#include "../chassis/hooks.h"

namespace xgpu_validation {

class CommandBufferState : public HookDefaults {
 public:
#include "../generated/command_buffer_state_decls.inc"

  bool ValidateBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                  const XgpuCommandBufferBeginInfo* pBeginInfo) const;
  bool ValidateEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer) const;
  bool ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                           const XgpuSubmitInfo* pSubmits) const;

 private:
  // The call's command buffer is recording (a live one: the object tracker reports others).
  static bool CheckRecording(CallContext& ctx, Vuid vuid) {
    const ObjectRecord* record = ctx.dispatch_record;
    if (record == nullptr || record->status.load(std::memory_order_relaxed) == CommandBufferStatus::kRecording)
        [[likely]] {
      return false;
    }
    return ReportNotRecording(ctx, vuid);
  }
  [[gnu::cold]] static bool ReportNotRecording(CallContext& ctx, Vuid vuid);
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_COMMAND_BUFFER_STATE_COMMAND_BUFFER_STATE_H_
