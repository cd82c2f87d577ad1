// The validation layer's warnings (spec/warnings.json): usage that breaks no
// rule of spec/vuids.json but is almost surely wrong. Each is delivered with
// severity WARNING, type VALIDATION, pMessageIdName = its ID and
// messageIdNumber = the ID's FNV-1a hash (api.md 1.5); the call goes on down
// the chain. At most `duplicate_limit` messages per ID and instance.
#ifndef XGPU_LAYERS_VALIDATION_HAZARDS_WARNINGS_H_
#define XGPU_LAYERS_VALIDATION_HAZARDS_WARNINGS_H_

#include <string>
#include <vector>

#include "../chassis/layer.h"

namespace xgpu_validation {

// Warning and kWarnings, generated from spec/warnings.json.
#include "../generated/warnings.inc"

const char* WarningId(Warning warning);

// Reports `warning` with `message` (the ID is appended) unless its instance
// has reached the duplicate limit for it.
// `severity`: WARNING, or INFO for a notice that names no mistake
// (XGPU-VALIDATION-gpu-assisted-unavailable).
void ReportWarning(const CallContext& ctx, Warning warning, std::string message,
                   const std::vector<ObjectRef>& objects,
                   XgpuDebugMessageSeverityFlagBits severity = XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_HAZARDS_WARNINGS_H_
