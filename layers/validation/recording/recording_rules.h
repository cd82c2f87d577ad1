// What the recording checks (RecordingValidation) and the state tracker
// (StateTracker, which remembers a recording's slot uses under these rules)
// share: each reference parameter's rules, and how a hook finds the call's
// recording.
//
// Thread-safety: constants and pure functions of the call.
#ifndef XGPU_LAYERS_VALIDATION_RECORDING_RECORDING_RULES_H_
#define XGPU_LAYERS_VALIDATION_RECORDING_RECORDING_RULES_H_

#include <string>

#include "../chassis/layer.h"

namespace xgpu_validation {

// The recording of the call's command buffer, to read (nullptr when the command
// buffer is not a live one: the object tracker reports that; or when it is
// not recording: CommandBufferState reports that).
inline const RecordingState* RecordingOf(const CallContext& ctx) {
  const ObjectRecord* record = ctx.dispatch_record;
  if (record == nullptr || record->status.load(std::memory_order_relaxed) != CommandBufferStatus::kRecording) {
    return nullptr;
  }
  return record->recording.get();
}

inline const XgpuPhysicalDeviceLimits* LimitsOf(const CallContext& ctx) {
  return ctx.device != nullptr ? &ctx.device->properties.limits : nullptr;
}

// How one reference parameter of a recording command is checked.
struct RefRule {
  const char* field;        // "pDst", "pBuffers[i]"
  Vuid kind;                // the -kind rule
  Vuid slot;                // the -bindingSlot rule
  Vuid range;               // the range rule (also a too-small range)
  Vuid alignment;           // the resolved-offset rule (used when has_alignment)
  bool has_alignment;       // the command has a resolved-offset rule
  Vuid usage;               // the usage rule (used when usage_bit != 0)
  uint32_t usage_bit;       // XgpuBufferUsageFlags needed, or 0
};

// The rules of each reference parameter.
inline constexpr RefRule kBindBuffersRule{"pBuffers[i]",
                               Vuid::xgpuCmdBindBuffers_pBuffers_kind,
                               Vuid::xgpuCmdBindBuffers_pBuffers_bindingSlot,
                               Vuid::xgpuCmdBindBuffers_pBuffers_range,
                               Vuid::xgpuCmdBindBuffers_pBuffers_offset,
                               true,
                               Vuid::xgpuCmdBindBuffers_pBuffers_usage,
                               XGPU_BUFFER_USAGE_STORAGE_BIT};
inline constexpr RefRule kCountsRule{"pCounts",
                          Vuid::xgpuCmdDispatchIndirect_pCounts_kind,
                          Vuid::xgpuCmdDispatchIndirect_pCounts_bindingSlot,
                          Vuid::xgpuCmdDispatchIndirect_pCounts_range,
                          Vuid::xgpuCmdDispatchIndirect_pCounts_offset,
                          true,
                          Vuid::xgpuCmdDispatchIndirect_pCounts_usage,
                          XGPU_BUFFER_USAGE_INDIRECT_BIT};
inline constexpr RefRule kFillRule{"pDst",
                        Vuid::xgpuCmdFillBuffer_pDst_kind,
                        Vuid::xgpuCmdFillBuffer_pDst_bindingSlot,
                        Vuid::xgpuCmdFillBuffer_pDst_range,
                        Vuid::xgpuCmdFillBuffer_pDst_offset,
                        true,
                        Vuid::xgpuCmdFillBuffer_pDst_usage,
                        XGPU_BUFFER_USAGE_TRANSFER_DST_BIT};
inline constexpr RefRule kCopySrcRule{"pSrc",
                           Vuid::xgpuCmdCopyBuffer_pSrc_kind,
                           Vuid::xgpuCmdCopyBuffer_pSrc_bindingSlot,
                           Vuid::xgpuCmdCopyBuffer_pSrc_range,
                           Vuid::xgpuCmdCopyBuffer_pSrc_range,
                           false,
                           Vuid::xgpuCmdCopyBuffer_pSrc_usage,
                           XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT};
inline constexpr RefRule kCopyDstRule{"pDst",
                           Vuid::xgpuCmdCopyBuffer_pDst_kind,
                           Vuid::xgpuCmdCopyBuffer_pDst_bindingSlot,
                           Vuid::xgpuCmdCopyBuffer_pDst_range,
                           Vuid::xgpuCmdCopyBuffer_pDst_range,
                           false,
                           Vuid::xgpuCmdCopyBuffer_pDst_usage,
                           XGPU_BUFFER_USAGE_TRANSFER_DST_BIT};
inline constexpr RefRule kUpdateRule{"pDst",
                          Vuid::xgpuCmdUpdateBuffer_pDst_kind,
                          Vuid::xgpuCmdUpdateBuffer_pDst_bindingSlot,
                          Vuid::xgpuCmdUpdateBuffer_pDst_range,
                          Vuid::xgpuCmdUpdateBuffer_pDst_range,
                          false,
                          Vuid::xgpuCmdUpdateBuffer_pDst_usage,
                          XGPU_BUFFER_USAGE_TRANSFER_DST_BIT};
inline constexpr RefRule kTimestampRule{"pDst",
                             Vuid::xgpuCmdWriteTimestamp_pDst_kind,
                             Vuid::xgpuCmdWriteTimestamp_pDst_bindingSlot,
                             Vuid::xgpuCmdWriteTimestamp_pDst_range,
                             Vuid::xgpuCmdWriteTimestamp_pDst_offset,
                             true,
                             Vuid::xgpuCmdWriteTimestamp_pDst_usage,
                             XGPU_BUFFER_USAGE_TRANSFER_DST_BIT};
inline constexpr RefRule kBarrierRule{"pBufferBarriers[i].buffer",
                           Vuid::xgpuCmdPipelineBarrier_pBufferBarriers_kind,
                           Vuid::xgpuCmdPipelineBarrier_pBufferBarriers_bindingSlot,
                           Vuid::xgpuCmdPipelineBarrier_pBufferBarriers_range,
                           Vuid::xgpuCmdPipelineBarrier_pBufferBarriers_range,
                           false,
                           Vuid::xgpuCmdPipelineBarrier_pBufferBarriers_range,
                           0};

inline std::string LabelsText(const RecordingState& recording) {
  std::string text;
  for (const std::string& label : recording.labels) {
    if (!text.empty()) text += " > ";
    text += "\"" + label + "\"";
  }
  return text;
}

inline bool Costly(const CallContext& ctx) { return ctx.instance != nullptr && ctx.instance->settings.costly_checks; }

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_RECORDING_RECORDING_RULES_H_
