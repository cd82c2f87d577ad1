// The layer's settings: defaults, the XgpuValidationSettings chained to the
// instance's create info, and the environment, in that order (settings.h).
#include "settings.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "layer.h"
#include "../stateless/stateless_validation.h"

namespace xgpu_validation {
namespace {

constexpr int kMaxChainLength = 64;  // structures followed in a pNext chain before giving up

struct BaseStructure {
  XgpuStructureType sType;
  const BaseStructure* pNext;
};

uint32_t ParseUnsigned(const char* text, bool* ok) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 0);
  *ok = end != text && *end == '\0' && errno == 0 && value <= 0xFFFFFFFFull && text[0] != '-';
  return static_cast<uint32_t>(value);
}

// Mutes the rule `token` names (an ID or its messageIdNumber); `source` names
// where the token came from, for the warning about an unknown one.
void Mute(Settings* s, const std::string& token, const char* source) {
  if (s->muted.empty()) s->muted.assign(kVuidCount, false);
  bool found = false;
  bool numeric = false;
  uint32_t number = 0;
  if (!token.empty() && token[0] == '-') {
    char* stop = nullptr;
    long long value = std::strtoll(token.c_str(), &stop, 10);
    numeric = *stop == '\0' && value >= INT32_MIN;
    number = static_cast<uint32_t>(static_cast<int32_t>(value));
  } else if (!token.empty() && token[0] >= '0' && token[0] <= '9') {
    number = ParseUnsigned(token.c_str(), &numeric);
  }
  for (size_t v = 0; v < kVuidCount; ++v) {
    if (token == kVuids[v].id || (numeric && static_cast<uint32_t>(kVuids[v].number) == number)) {
      s->muted[v] = true;
      found = true;
    }
  }
  if (!found) {
    std::fprintf(stderr, "xgpu validation: warning: %s: %s is not a rule ID of the layer "
                         "(an XGPU-VUID-... name or its messageIdNumber); ignored\n", source, token.c_str());
  }
}

// The environment's overrides of `s`.
void ApplyEnvironment(Settings* s, bool chained) {
  const char* before = chained ? "XgpuValidationSettings' value" : "the default";
  if (const char* limit = std::getenv("XGPU_VALIDATION_DUPLICATE_LIMIT"); limit && *limit) {
    bool ok = false;
    uint32_t value = ParseUnsigned(limit, &ok);
    if (ok) {
      s->duplicate_limit = value;
    } else {
      std::fprintf(stderr, "xgpu validation: warning: XGPU_VALIDATION_DUPLICATE_LIMIT=%s is not a number; "
                           "%s (%u) is used\n", limit, before, s->duplicate_limit);
    }
  }
  if (const char* action = std::getenv("XGPU_VALIDATION_ON_ERROR"); action && *action) {
    if (std::strcmp(action, "continue") == 0) {
      s->on_error = Settings::OnError::kContinue;
    } else if (std::strcmp(action, "break") == 0) {
      s->on_error = Settings::OnError::kBreak;
    } else if (std::strcmp(action, "abort") == 0) {
      s->on_error = Settings::OnError::kAbort;
    } else {
      std::fprintf(stderr, "xgpu validation: warning: XGPU_VALIDATION_ON_ERROR=%s is not continue, break or "
                           "abort; %s is used\n", action, before);
    }
  }
  if (const char* costly = std::getenv("XGPU_VALIDATION_COSTLY_CHECKS"); costly && *costly) {
    if (std::strcmp(costly, "1") == 0 || std::strcmp(costly, "on") == 0) {
      s->costly_checks = true;
    } else if (std::strcmp(costly, "0") == 0 || std::strcmp(costly, "off") == 0) {
      s->costly_checks = false;
    } else {
      std::fprintf(stderr, "xgpu validation: warning: XGPU_VALIDATION_COSTLY_CHECKS=%s is not 1, on, 0 or off; "
                           "%s is used\n", costly, before);
    }
  }
  if (const char* hazards = std::getenv("XGPU_VALIDATION_HAZARDS"); hazards && *hazards) {
    if (std::strcmp(hazards, "1") == 0 || std::strcmp(hazards, "on") == 0) {
      s->sync_hazards = true;
    } else if (std::strcmp(hazards, "0") == 0 || std::strcmp(hazards, "off") == 0) {
      s->sync_hazards = false;
    } else {
      std::fprintf(stderr, "xgpu validation: warning: XGPU_VALIDATION_HAZARDS=%s is not 1, on, 0 or off; "
                           "%s is used\n", hazards, before);
    }
  }
  if (const char* assisted = std::getenv("XGPU_VALIDATION_GPU_ASSISTED"); assisted && *assisted) {
    if (std::strcmp(assisted, "1") == 0 || std::strcmp(assisted, "on") == 0) {
      s->gpu_assisted = true;
    } else if (std::strcmp(assisted, "0") == 0 || std::strcmp(assisted, "off") == 0) {
      s->gpu_assisted = false;
    } else {
      std::fprintf(stderr, "xgpu validation: warning: XGPU_VALIDATION_GPU_ASSISTED=%s is not 1, on, 0 or off; "
                           "%s is used\n", assisted, before);
    }
  }
  if (const char* also = std::getenv("XGPU_VALIDATION_STDERR"); also && *also) {
    if (std::strcmp(also, "1") == 0 || std::strcmp(also, "0") == 0) {
      s->to_stderr = also[0] == '1' ? Settings::Stderr::kAll : Settings::Stderr::kNone;
    } else {
      std::fprintf(stderr, "xgpu validation: warning: XGPU_VALIDATION_STDERR=%s is not 1 or 0; it is ignored\n", also);
    }
  }
  if (const char* mute = std::getenv("XGPU_VALIDATION_MUTE"); mute && *mute) {
    std::string list = mute;
    size_t start = 0;
    while (start < list.size()) {
      size_t end = list.find_first_of(",;: \t\n", start);
      if (end == std::string::npos) end = list.size();
      std::string token = list.substr(start, end - start);
      start = end + 1;
      if (!token.empty()) Mute(s, token, "XGPU_VALIDATION_MUTE");
    }
  }
}

}  // namespace

Settings Settings::FromEnvironment() { return Resolve(nullptr); }

Settings Settings::Resolve(const XgpuValidationSettings* chained) {
  Settings s;
  if (chained != nullptr) {
    s.duplicate_limit = chained->duplicateMessageLimit;
    switch (chained->errorAction) {
      case XGPU_VALIDATION_ERROR_ACTION_BREAK:
        s.on_error = OnError::kBreak;
        break;
      case XGPU_VALIDATION_ERROR_ACTION_ABORT:
        s.on_error = OnError::kAbort;
        break;
      default:
        s.on_error = OnError::kContinue;
        break;
    }
    s.costly_checks = chained->costlyChecks != XGPU_FALSE;
    s.sync_hazards = chained->synchronizationHazards == XGPU_TRUE;
    s.gpu_assisted = chained->gpuAssistedValidation == XGPU_TRUE;
    // (Only a muted rule lets unusable pointers through to here.)
    if (chained->mutedMessageIdCount != 0 && IsUsablePointer(chained->ppMutedMessageIds)) {
      for (uint32_t n = 0; n < chained->mutedMessageIdCount; ++n) {
        if (chained->ppMutedMessageIds[n] != nullptr) {
          Mute(&s, chained->ppMutedMessageIds[n], "XgpuValidationSettings::ppMutedMessageIds");
        }
      }
    }
  }
  ApplyEnvironment(&s, chained != nullptr);
  return s;
}

std::string SettingsText(const Settings& settings) {
  size_t muted = 0;
  for (bool m : settings.muted) muted += m ? 1 : 0;
  const char* action = settings.on_error == Settings::OnError::kAbort   ? "abort"
                       : settings.on_error == Settings::OnError::kBreak ? "break"
                                                                        : "continue";
  return std::string("costly checks ") + (settings.costly_checks ? "on" : "off") + ", synchronization hazards " +
         (settings.sync_hazards ? "on" : "off") + ", GPU-assisted validation " +
         (settings.gpu_assisted ? "on" : "off") + ", duplicate limit " +
         (settings.duplicate_limit == 0 ? std::string("none") : std::to_string(settings.duplicate_limit) + " per ID") +
         ", on error " + action + ", " + std::to_string(muted) + " rule(s) muted";
}

const XgpuValidationSettings* FindValidationSettings(const void* next) {
  auto* s = static_cast<const BaseStructure*>(next);
  for (int n = 0; n < kMaxChainLength && IsUsablePointer(s); ++n, s = s->pNext) {
    if (s->sType == XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS) return reinterpret_cast<const XgpuValidationSettings*>(s);
  }
  return nullptr;
}

bool ValidateValidationSettings(CallContext& ctx, const XgpuInstanceCreateInfo* pCreateInfo) {
  if (!IsUsablePointer(pCreateInfo)) return false;  // the implicit rules report it
  const XgpuValidationSettings* s = FindValidationSettings(pCreateInfo->pNext);
  if (s == nullptr) return false;
  bool skip = false;
  const Vuid ids = Vuid::xgpuCreateInstance_validationSettings_ppMutedMessageIds;
  skip |= CheckRequiredArray(ctx, ids, Field{"XgpuValidationSettings::ppMutedMessageIds"}, s->ppMutedMessageIds,
                             s->mutedMessageIdCount);
  if (s->mutedMessageIdCount != 0 && IsUsablePointer(s->ppMutedMessageIds)) {
    for (uint64_t i = 0; i < s->mutedMessageIdCount; ++i) {
      skip |= CheckRequiredString(ctx, ids, Field{"XgpuValidationSettings::ppMutedMessageIds[i]", i},
                                  s->ppMutedMessageIds[i]);
    }
  }
  if (s->errorAction != XGPU_VALIDATION_ERROR_ACTION_CONTINUE && s->errorAction != XGPU_VALIDATION_ERROR_ACTION_BREAK &&
      s->errorAction != XGPU_VALIDATION_ERROR_ACTION_ABORT) {
    skip |= ctx.Report(Vuid::xgpuCreateInstance_validationSettings_errorAction,
                       Field{"XgpuValidationSettings::errorAction"},
                       std::to_string(static_cast<int64_t>(s->errorAction)) + ", not a value of XgpuValidationErrorAction");
  }
  if (s->costlyChecks != XGPU_TRUE && s->costlyChecks != XGPU_FALSE) {
    skip |= ctx.Report(Vuid::xgpuCreateInstance_validationSettings_costlyChecks,
                       Field{"XgpuValidationSettings::costlyChecks"},
                       std::to_string(s->costlyChecks) + ", neither XGPU_TRUE nor XGPU_FALSE");
  }
  if (s->synchronizationHazards != XGPU_TRUE && s->synchronizationHazards != XGPU_FALSE) {
    skip |= ctx.Report(Vuid::xgpuCreateInstance_validationSettings_synchronizationHazards,
                       Field{"XgpuValidationSettings::synchronizationHazards"},
                       std::to_string(s->synchronizationHazards) + ", neither XGPU_TRUE nor XGPU_FALSE");
  }
  if (s->gpuAssistedValidation != XGPU_TRUE && s->gpuAssistedValidation != XGPU_FALSE) {
    skip |= ctx.Report(Vuid::xgpuCreateInstance_validationSettings_gpuAssistedValidation,
                       Field{"XgpuValidationSettings::gpuAssistedValidation"},
                       std::to_string(s->gpuAssistedValidation) + ", neither XGPU_TRUE nor XGPU_FALSE");
  }
  return skip;
}

}  // namespace xgpu_validation
