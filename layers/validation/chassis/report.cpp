// Messages: their text, their objects with debug names, where they go (the
// instance's messengers, else stderr), and the settings that filter them.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "layer.h"
#include "object_map.h"
#include "../deadlock/deadlock.h"

namespace xgpu_validation {
namespace {

constexpr int kMaxChainLength = 64;  // structures followed in a pNext chain before giving up

std::mutex& LiveInstancesMutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<LayerInstance*>& LiveInstanceList() {
  static std::vector<LayerInstance*> list;
  return list;
}

// Message counts of reports made without an instance.
std::atomic<uint32_t> g_counts_without_instance[kVuidCount];


// The messengers of a create info's pNext chain.
void ChainedMessengers(const void* next, std::vector<MessengerInfo>* out) {
  struct Base {
    XgpuStructureType sType;
    const Base* pNext;
  };
  auto* s = static_cast<const Base*>(next);
  for (int n = 0; n < kMaxChainLength && IsUsablePointer(s); ++n, s = s->pNext) {
    if (s->sType != XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO) continue;
    auto* info = reinterpret_cast<const XgpuDebugMessengerCreateInfo*>(s);
    if (info->pfnUserCallback == nullptr) continue;
    out->push_back({XGPU_NULL_HANDLE, info->messageSeverity, info->messageType, info->pfnUserCallback, info->pUserData});
  }
}

// `destroying`: the message belongs to xgpuDestroyInstance, which the
// messengers chained to the instance's create info hear as well.
void AppendMessengers(LayerInstance* instance, std::vector<MessengerInfo>* out, bool destroying = false) {
  std::lock_guard lock(instance->messenger_mutex);
  if (destroying) out->insert(out->end(), instance->chained_messengers.begin(), instance->chained_messengers.end());
  out->insert(out->end(), instance->messengers.begin(), instance->messengers.end());
}

// Whether a message goes to stderr: with XGPU_VALIDATION_STDERR unset, when
// no messenger receives it (none exists, or none takes its severity and
// type), so no message is ever lost; 1: always; 0: never.
bool PrintsOnStderr(Settings::Stderr mode, const std::vector<MessengerInfo>& messengers,
                    XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags types) {
  switch (mode) {
    case Settings::Stderr::kAll: return true;
    case Settings::Stderr::kNone: return false;
    case Settings::Stderr::kUnheard: break;
  }
  for (const MessengerInfo& m : messengers) {
    if ((m.severities & severity) && (m.types & types)) return false;
  }
  return true;
}

}  // namespace

std::mutex& NamesMutex() {
  static std::mutex mutex;
  return mutex;
}

const char* TypeName(XgpuObjectType type) {
  for (const HandleTypeInfo& info : kHandleTypes) {
    if (info.type == type) return info.name;
  }
  return "object";
}

std::string Describe(const ObjectRecord* record) {
  std::string text = std::string(TypeName(record->type)) + " " + hex(record->handle);
  std::lock_guard lock(NamesMutex());
  if (!record->name.empty()) text += " \"" + record->name + "\"";
  return text;
}

std::string DescribeHandle(XgpuObjectType type, uint64_t handle) {
  if (const ObjectRecord* record = Objects().Find(type, handle)) return Describe(record);
  return std::string(TypeName(type)) + " " + hex(handle);
}

std::string FieldText(const Field& field) {
  std::string out;
  const uint64_t values[] = {field.i, field.j, field.k};
  int next = 0;
  for (const char* c = field.path; *c; ++c) {
    if (c[0] == '[' && (c[1] == 'i' || c[1] == 'j' || c[1] == 'k') && c[2] == ']') {
      out += "[" + std::to_string(next < 3 ? values[next] : 0) + "]";
      ++next;
      c += 2;
    } else {
      out += *c;
    }
  }
  return out;
}

std::vector<LayerInstance*> LiveInstances() {
  std::lock_guard lock(LiveInstancesMutex());
  return LiveInstanceList();
}

void AddLiveInstance(LayerInstance* instance) {
  std::lock_guard lock(LiveInstancesMutex());
  LiveInstanceList().push_back(instance);
}

void RemoveLiveInstance(LayerInstance* instance) {
  std::lock_guard lock(LiveInstancesMutex());
  auto& list = LiveInstanceList();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (*it == instance) {
      list.erase(it);
      break;
    }
  }
}

thread_local constinit char t_calling_thread __attribute__((tls_model("initial-exec"))) = 0;

void CallContext::MarkRecordingError() {
  if (dispatch_record == nullptr || dispatch_record->type != XGPU_OBJECT_TYPE_COMMAND_BUFFER) return;
  int32_t expected = 0;
  dispatch_record->recording_error.compare_exchange_strong(expected, Failure(), std::memory_order_relaxed);
}

bool CallContext::Report(Vuid vuid, const Field& field, const std::string& value,
                         std::initializer_list<ObjectRef> objects) {
  const VuidInfo& info = InfoOf(vuid);
  Settings fallback;
  const Settings* settings = &fallback;
  std::atomic<uint32_t>* count = &g_counts_without_instance[static_cast<size_t>(vuid)];
  if (instance != nullptr) {
    settings = &instance->settings;
    count = &instance->counts[static_cast<size_t>(vuid)];
  } else {
    fallback = Settings::FromEnvironment();
  }
  if (settings->IsMuted(vuid)) return false;
  if (first_error == XGPU_SUCCESS) first_error = info.error;
  const uint32_t seen = count->fetch_add(1, std::memory_order_relaxed);
  if (settings->duplicate_limit != 0 && seen >= settings->duplicate_limit) return true;

  std::string message = std::string(NameOf(command)) + ": " + FieldText(field) + " is " + value + ". Rule: " +
                        info.text + " [" + info.id + "]";
  if (settings->duplicate_limit != 0 && seen + 1 == settings->duplicate_limit) {
    message += " (the last message with this ID: XGPU_VALIDATION_DUPLICATE_LIMIT is " +
               std::to_string(settings->duplicate_limit) + ")";
  }

  // The objects: those given, then the call's own object and the device it belongs to.
  std::vector<ObjectRef> refs(objects);
  if (dispatch_record != nullptr) {
    refs.push_back({dispatch_record->type, dispatch_record->handle});
    if (dispatch_record->type == XGPU_OBJECT_TYPE_QUEUE || dispatch_record->type == XGPU_OBJECT_TYPE_COMMAND_BUFFER) {
      if (dispatch_record->parent != nullptr) refs.push_back({dispatch_record->parent->type, dispatch_record->parent->handle});
    }
  } else if (dispatch_handle != nullptr) {
    refs.push_back({dispatch_type, reinterpret_cast<uintptr_t>(dispatch_handle)});
  }
  std::vector<std::string> names(refs.size());
  std::vector<XgpuDebugObjectInfo> infos(refs.size());
  for (size_t n = 0; n < refs.size(); ++n) {
    if (const ObjectRecord* record = Objects().Find(refs[n].type, refs[n].handle)) {
      std::lock_guard lock(NamesMutex());
      names[n] = record->name;
    } else if (auto destroyed = Objects().FindDestroyed(refs[n].type, refs[n].handle)) {
      names[n] = destroyed->name;
    }
    infos[n].objectType = refs[n].type;
    infos[n].objectHandle = refs[n].handle;
    infos[n].pObjectName = names[n].empty() ? nullptr : names[n].c_str();
  }

  XgpuDebugMessageData data = {};
  data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  data.pMessageIdName = info.id;
  data.messageIdNumber = info.number;
  data.pMessage = message.c_str();
  data.objectCount = static_cast<uint32_t>(infos.size());
  data.pObjects = infos.empty() ? nullptr : infos.data();

  std::vector<MessengerInfo> messengers;
  if (instance != nullptr) {
    AppendMessengers(instance, &messengers, command == Command::xgpuDestroyInstance);
  } else if (creation != nullptr && creation->creating_instance != nullptr) {
    if (IsUsablePointer(creation->creating_instance)) ChainedMessengers(creation->creating_instance->pNext, &messengers);
  } else {
    // A handle the layer does not know: every instance may be the one meant
    // (a callback given to several instances hears it once).
    for (LayerInstance* live : LiveInstances()) AppendMessengers(live, &messengers);
    std::vector<MessengerInfo> unique;
    for (const MessengerInfo& m : messengers) {
      bool seen = false;
      for (const MessengerInfo& u : unique) seen |= u.callback == m.callback && u.user_data == m.user_data;
      if (!seen) unique.push_back(m);
    }
    messengers.swap(unique);
  }
  const auto severity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
  const XgpuDebugMessageTypeFlags types = XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  if (PrintsOnStderr(settings->to_stderr, messengers, severity, types)) {
    std::string text = "xgpu validation: error: " + message + "\n";
    for (size_t n = 0; n < refs.size(); ++n) {
      text += "    object " + std::to_string(n) + ": " + TypeName(refs[n].type) + " " + hex(refs[n].handle);
      if (!names[n].empty()) text += " \"" + names[n] + "\"";
      text += "\n";
    }
    std::fputs(text.c_str(), stderr);
  }
  for (const MessengerInfo& m : messengers) {
    if ((m.severities & severity) && (m.types & types)) m.callback(severity, types, &data, m.user_data);
  }
  switch (settings->on_error) {
    case Settings::OnError::kContinue:
      break;
    case Settings::OnError::kBreak:
      std::raise(SIGTRAP);
      break;
    case Settings::OnError::kAbort:
      std::fprintf(stderr, "xgpu validation: XGPU_VALIDATION_ON_ERROR=abort: aborting after %s\n", info.id);
      std::abort();
  }
  return true;
}

}  // namespace xgpu_validation

namespace xgpu_validation {

void CallContext::Warn(const char* id, int32_t number, const std::string& message,
                       const std::vector<ObjectRef>& objects, XgpuDebugMessageSeverityFlagBits severity) const {
  if (instance == nullptr) return;
  std::vector<ObjectRef> refs(objects);
  if (dispatch_record != nullptr) refs.push_back({dispatch_record->type, dispatch_record->handle});
  std::vector<std::string> names(refs.size());
  std::vector<XgpuDebugObjectInfo> infos(refs.size());
  for (size_t n = 0; n < refs.size(); ++n) {
    if (const ObjectRecord* record = Objects().Find(refs[n].type, refs[n].handle)) {
      std::lock_guard lock(NamesMutex());
      names[n] = record->name;
    }
    infos[n].objectType = refs[n].type;
    infos[n].objectHandle = refs[n].handle;
    infos[n].pObjectName = names[n].empty() ? nullptr : names[n].c_str();
  }
  XgpuDebugMessageData data = {};
  data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  data.pMessageIdName = id;
  data.messageIdNumber = number;
  data.pMessage = message.c_str();
  data.objectCount = static_cast<uint32_t>(infos.size());
  data.pObjects = infos.empty() ? nullptr : infos.data();
  std::vector<MessengerInfo> messengers;
  AppendMessengers(instance, &messengers);
  const XgpuDebugMessageTypeFlags types = XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  if (PrintsOnStderr(instance->settings.to_stderr, messengers, severity, types)) {
    std::string text = std::string("xgpu validation: ") +
                       (severity == XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT ? "warning: " : "info: ") + message + "\n";
    for (size_t n = 0; n < refs.size(); ++n) {
      text += "    object " + std::to_string(n) + ": " + TypeName(refs[n].type) + " " + hex(refs[n].handle);
      if (!names[n].empty()) text += " \"" + names[n] + "\"";
      text += "\n";
    }
    std::fputs(text.c_str(), stderr);
  }
  for (const MessengerInfo& m : messengers) {
    if ((m.severities & severity) && (m.types & types)) m.callback(severity, types, &data, m.user_data);
  }
}

}  // namespace xgpu_validation
