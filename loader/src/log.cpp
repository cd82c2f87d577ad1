// The loader's messages: stderr filtered by XGPU_LOADER_DEBUG, and the
// instance's debug messengers (spec/loader.md, "Messages").
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "loader.h"

namespace xgpu_loader {
namespace {

const char* const kLevelNames[] = {"error", "warn", "info", "debug"};

// Highest level printed to stderr, or -1 for none; parsed from XGPU_LOADER_DEBUG
// whenever its value changes (tests change it between instances).
int StderrThreshold() {
  static std::mutex mutex;
  static std::string last_value;
  static bool parsed = false;
  static int threshold = 0;
  const char* env = std::getenv("XGPU_LOADER_DEBUG");
  std::string value = env ? env : "\x01unset";
  std::lock_guard<std::mutex> lock(mutex);
  if (parsed && value == last_value) return threshold;
  parsed = true;
  last_value = value;
  if (!env) {
    threshold = static_cast<int>(Level::kError);
    return threshold;
  }
  threshold = -1;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    std::string token = value.substr(start, end - start);
    start = end + 1;
    if (token.empty() || token == "none") continue;
    int level = -2;
    for (int i = 0; i < 4; ++i) {
      if (token == kLevelNames[i]) level = i;
    }
    if (token == "all") level = static_cast<int>(Level::kDebug);
    if (level == -2) {
      std::fprintf(stderr,
                   "xgpu loader: warn: XGPU_LOADER_DEBUG: unknown level '%s' (expected error, warn, info, "
                   "debug, all or none)\n",
                   token.c_str());
      continue;
    }
    if (level > threshold) threshold = level;
  }
  return threshold;
}

XgpuDebugMessageSeverityFlagBits SeverityOf(Level level) {
  switch (level) {
    case Level::kError: return XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
    case Level::kWarn: return XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
    case Level::kInfo: return XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT;
    case Level::kDebug: break;
  }
  return XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT;
}

// FNV-1a of the message ID, the stable numeric ID.
int32_t IdNumber(const char* id) {
  uint32_t hash = 2166136261u;
  for (const char* c = id; *c; ++c) hash = (hash ^ static_cast<uint8_t>(*c)) * 16777619u;
  return static_cast<int32_t>(hash);
}

}  // namespace

bool StderrEnabled(Level level) { return static_cast<int>(level) <= StderrThreshold(); }

void Deliver(const std::vector<MessengerInfo>& infos, XgpuDebugMessageSeverityFlagBits severity,
             XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData* data) {
  for (const MessengerInfo& info : infos) {
    if ((info.severities & severity) && (info.types & types) && info.callback) {
      info.callback(severity, types, data, info.user_data);
    }
  }
}

namespace {

// Prints one line per line of text, each with the loader's prefix.
void PrintStderr(Level level, const std::string& text) {
  if (!StderrEnabled(level)) return;
  // One prefix per line so multi-line messages (the chain) stay greppable.
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "xgpu loader: ";
    out += kLevelNames[static_cast<int>(level)];
    out += ": ";
    out.append(text, start, end - start);
    out += '\n';
    start = end + 1;
  }
  std::fputs(out.c_str(), stderr);
}

// The messengers of instance that are active now.
std::vector<MessengerInfo> ActiveMessengers(const Instance* instance) {
  std::vector<MessengerInfo> infos;
  if (instance->in_create_or_destroy) infos = instance->create_messengers;
  std::lock_guard<std::mutex> lock(instance->mutex);
  for (const Messenger* m : instance->messengers) infos.push_back(m->info);
  return infos;
}

// What a message with this ID is: a rule's violation or a loader event.
XgpuDebugMessageTypeFlags TypeOf(const char* id) {
  static constexpr char kRulePrefix[] = "XGPU-VUID-";
  return std::strncmp(id, kRulePrefix, sizeof(kRulePrefix) - 1) == 0 ? XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT
                                                                      : XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT;
}

XgpuDebugMessageData MessageData(const char* id, const std::string& text) {
  XgpuDebugMessageData data = {};
  data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  data.pMessageIdName = id;
  data.messageIdNumber = IdNumber(id);
  data.pMessage = text.c_str();
  return data;
}

std::mutex g_live_mutex;                      // guards g_live_instances
std::vector<const Instance*> g_live_instances;  // created and not being destroyed

}  // namespace

void Log(const Instance* instance, Level level, const char* id, const std::string& text) {
  PrintStderr(level, text);
  if (!instance) return;
  std::vector<MessengerInfo> infos = ActiveMessengers(instance);
  if (infos.empty()) return;
  const XgpuDebugMessageData data = MessageData(id, text);
  Deliver(infos, SeverityOf(level), TypeOf(id), &data);
}

void LogEveryInstance(Level level, const char* id, const std::string& text) {
  PrintStderr(level, text);
  const XgpuDebugMessageData data = MessageData(id, text);
  // Held while delivering: an instance is not destroyed under its callbacks.
  std::lock_guard<std::mutex> lock(g_live_mutex);
  for (const Instance* instance : g_live_instances)
    Deliver(ActiveMessengers(instance), SeverityOf(level), TypeOf(id), &data);
}

void RegisterInstance(const Instance* instance) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live_instances.push_back(instance);
}

void UnregisterInstance(const Instance* instance) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live_instances.erase(std::remove(g_live_instances.begin(), g_live_instances.end(), instance),
                         g_live_instances.end());
}

const Instance* InstanceOf(XgpuObjectType type, const void* handle) {
  if (!handle) return nullptr;
  switch (type) {
    case XGPU_OBJECT_TYPE_INSTANCE: return static_cast<const Instance*>(handle);
    case XGPU_OBJECT_TYPE_PHYSICAL_DEVICE: return static_cast<const PhysicalDevice*>(handle)->instance;
    case XGPU_OBJECT_TYPE_DEVICE:
    case XGPU_OBJECT_TYPE_QUEUE:
    case XGPU_OBJECT_TYPE_COMMAND_BUFFER: return DeviceFromHandle(handle)->instance;
    default: return nullptr;
  }
}

void ReportInvalidArgument(XgpuObjectType type, const void* handle, const char* command, const char* vuid,
                           const char* what) {
  const std::string text =
      std::string(command) + ": " + what + " (returns XGPU_ERROR_INVALID_ARGUMENT or does nothing)";
  if (const Instance* instance = InstanceOf(type, handle)) {
    Log(instance, Level::kError, vuid, text);
  } else {
    LogEveryInstance(Level::kError, vuid, text);
  }
}

void ReportUnsupported(XgpuObjectType type, const void* handle, const char* command) {
  Log(InstanceOf(type, handle), Level::kError, "XGPU-LOADER-unsupported-command",
      std::string(command) + ": not provided by the driver or layer below the loader");
}

}  // namespace xgpu_loader
