#include "warnings.h"

#include <iterator>
#include <type_traits>

namespace xgpu_validation {
namespace {

constexpr const char* kIds[] = {
    "XGPU-VALIDATION-hazard-read-after-write",
    "XGPU-VALIDATION-hazard-write-after-write",
    "XGPU-VALIDATION-hazard-write-after-read",
    "XGPU-VALIDATION-deadlock",
};
static_assert(std::size(kIds) == static_cast<size_t>(Warning::kCount));

int32_t Fnv1a(const char* id) {
  uint32_t h = 0x811C9DC5u;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(id); *p; ++p) h = (h ^ *p) * 0x01000193u;
  return static_cast<int32_t>(h);
}

}  // namespace

const char* WarningId(Warning warning) { return kIds[static_cast<size_t>(warning)]; }

void ReportWarning(const CallContext& ctx, Warning warning, std::string message,
                   const std::vector<ObjectRef>& objects) {
  if (ctx.instance == nullptr) return;
  static_assert(static_cast<size_t>(Warning::kCount) <= std::extent_v<decltype(LayerInstance::warning_counts)>);
  const uint32_t limit = ctx.instance->settings.duplicate_limit;
  const uint32_t seen =
      ctx.instance->warning_counts[static_cast<size_t>(warning)].fetch_add(1, std::memory_order_relaxed);
  if (limit != 0 && seen >= limit) return;
  const char* id = WarningId(warning);
  message += std::string(" [") + id + "]";
  if (limit != 0 && seen + 1 == limit) {
    message += " (the last message with this ID: XGPU_VALIDATION_DUPLICATE_LIMIT is " + std::to_string(limit) + ")";
  }
  ctx.Warn(id, Fnv1a(id), message, objects);
}

}  // namespace xgpu_validation
