// The layer's settings: what an XgpuValidationSettings chained to the
// instance's create info and the XGPU_VALIDATION_* environment variables ask
// for (api.md 4, "Validation settings"; README.md, "Settings"). The
// environment overrides each member it sets; muted IDs from both are joined.
//
// Thread-safety: a Settings is built once at xgpuCreateInstance and immutable
// afterwards (LayerInstance::settings); reading it needs no lock.
#ifndef XGPU_LAYERS_VALIDATION_CHASSIS_SETTINGS_H_
#define XGPU_LAYERS_VALIDATION_CHASSIS_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"

namespace xgpu_validation {

enum class Vuid : uint16_t;
class CallContext;

struct Settings {
  enum class OnError { kContinue, kBreak, kAbort };

  uint32_t duplicate_limit = 10;         // messages per rule ID and instance; 0 = no limit
  std::vector<bool> muted;               // per Vuid: reported nothing and not enforced (empty: none)
  OnError on_error = OnError::kContinue; // after an error message
  // The costly checks (object tracking at submit): rule code reads
  // ctx.instance->settings.costly_checks and skips them when false.
  bool costly_checks = true;
  // The synchronization-hazard warnings (hazards/: a read/write log of every
  // recording), opt-in like Vulkan's synchronization validation.
  bool sync_hazards = false;
  // GPU-assisted validation: pipelines run their kernels' bounds-checked
  // copies (kernels/gpu_assisted.cpp), opt-in like Vulkan's.
  bool gpu_assisted = false;
  // What goes to stderr (XGPU_VALIDATION_STDERR, environment only).
  enum class Stderr {
    kUnheard,  // unset: the messages no messenger receives (none is lost)
    kAll,      // 1: every message, messengers or not (for test runs that must be silent)
    kNone,     // 0: nothing (the program reads its messengers, or wants none)
  };
  Stderr to_stderr = Stderr::kUnheard;

  bool IsMuted(Vuid vuid) const { return !muted.empty() && muted[static_cast<size_t>(vuid)]; }

  // The defaults overridden by the environment; problems with it are printed on stderr.
  static Settings FromEnvironment();
  // The settings of an instance: the defaults, then `chained` (may be NULL),
  // then the environment.
  static Settings Resolve(const XgpuValidationSettings* chained);
};

// The message ID of the INFO message that states an instance's settings.
inline constexpr const char* kSettingsMessageId = "XGPU-VALIDATION-settings";
// The messageIdNumber of a message ID: its FNV-1a hash (api.md 1.5).
constexpr int32_t MessageIdNumber(const char* id) {
  uint32_t h = 0x811C9DC5u;
  for (const char* p = id; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 0x01000193u;
  return static_cast<int32_t>(h);
}

// "costly checks on, duplicate limit 10 per ID, on error continue, 0 rule(s) muted".
std::string SettingsText(const Settings& settings);

// The XgpuValidationSettings chained to a create info's pNext, or NULL.
const XgpuValidationSettings* FindValidationSettings(const void* next);

// Checks the XgpuValidationSettings chained to pCreateInfo (the
// XGPU-VUID-xgpuCreateInstance-validationSettings-* rules). Returns whether
// xgpuCreateInstance must fail.
bool ValidateValidationSettings(CallContext& ctx, const XgpuInstanceCreateInfo* pCreateInfo);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_CHASSIS_SETTINGS_H_
