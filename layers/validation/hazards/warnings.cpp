#include "warnings.h"

#include <iterator>
#include <type_traits>

namespace xgpu_validation {

static_assert(std::size(kWarnings) == static_cast<size_t>(Warning::kCount));

const char* WarningId(Warning warning) { return kWarnings[static_cast<size_t>(warning)].id; }

void ReportWarning(const CallContext& ctx, Warning warning, std::string message,
                   const std::vector<ObjectRef>& objects, XgpuDebugMessageSeverityFlagBits severity) {
  if (ctx.instance == nullptr) return;
  static_assert(static_cast<size_t>(Warning::kCount) <= std::extent_v<decltype(LayerInstance::warning_counts)>);
  const uint32_t limit = ctx.instance->settings.duplicate_limit;
  const uint32_t seen =
      ctx.instance->warning_counts[static_cast<size_t>(warning)].fetch_add(1, std::memory_order_relaxed);
  if (limit != 0 && seen >= limit) return;
  const WarningInfo& info = kWarnings[static_cast<size_t>(warning)];
  const char* id = info.id;
  message += std::string(" [") + id + "]";
  if (limit != 0 && seen + 1 == limit) {
    message += " (the last message with this ID: XGPU_VALIDATION_DUPLICATE_LIMIT is " + std::to_string(limit) + ")";
  }
  ctx.Warn(id, info.number, message, objects, severity);
}

}  // namespace xgpu_validation
