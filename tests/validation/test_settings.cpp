// The layer's settings both ways: an XgpuValidationSettings chained to the
// instance's create info, the XGPU_VALIDATION_* environment, and how the two
// combine (the environment overrides each member it sets; muted IDs are
// joined). Each instance states its settings in an INFO message
// (XGPU-VALIDATION-settings) to the messengers chained to its create info.
#include <cstdlib>
#include <optional>
#include <string>

#include "calls.h"

namespace vtest {
namespace {

constexpr const char* kFlagsRule = "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-flags-zero";
constexpr const char* kSTypeRule = "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-sType";

// An instance with the layer, `settings` chained to its create info (NULL:
// none), one messenger hearing everything (chained, and created for the
// rest), and a device.
struct SettingsEnv {
  MessageLog log;
  XgpuInstance instance = nullptr;
  XgpuDebugMessenger messenger = nullptr;
  XgpuDevice device = nullptr;
  XgpuResult create_result = XGPU_SUCCESS;

  explicit SettingsEnv(const XgpuValidationSettings* settings, bool with_device = true) {
    const char* layers[] = {kLayerName};
    XgpuDebugMessengerCreateInfo chained = log.CreateInfo();
    chained.messageSeverity |= XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT;
    chained.pNext = settings;
    XgpuInstanceCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pNext = &chained;
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    create_result = xgpuCreateInstance(&info, nullptr, &instance);
    if (create_result != XGPU_SUCCESS || !with_device) return;
    XgpuDebugMessengerCreateInfo m = log.CreateInfo();
    REQUIRE(xgpuCreateDebugMessenger(instance, &m, nullptr, &messenger) == XGPU_SUCCESS);
    uint32_t count = 1;
    XgpuPhysicalDevice physical = nullptr;
    xgpuEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE(physical != nullptr);
    XgpuDeviceQueueCreateInfo queue = {};
    queue.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueCount = 1;
    XgpuDeviceCreateInfo device_info = {};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    REQUIRE(xgpuCreateDevice(physical, &device_info, nullptr, &device) == XGPU_SUCCESS);
  }
  ~SettingsEnv() {
    if (device) xgpuDestroyDevice(device, nullptr);
    if (messenger) xgpuDestroyDebugMessenger(instance, messenger, nullptr);
    if (instance) xgpuDestroyInstance(instance, nullptr);
  }

  // The text of the XGPU-VALIDATION-settings message (exactly one must have come).
  std::string SettingsMessage() {
    std::string text;
    int count = 0;
    for (const auto& m : log.Messages()) {
      if (m.id != "XGPU-VALIDATION-settings") continue;
      ++count;
      CHECK(m.severity == XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT);
      CHECK(m.types == XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT);
      CHECK(m.number == Fnv1a(m.id));
      text = m.text;
    }
    CHECK(count == 1);
    return text;
  }
  // IDs of the layer's rule messages received, in order (not the loader's
  // own message about a failed creation).
  std::vector<std::string> ErrorIds() {
    std::vector<std::string> ids;
    for (const auto& m : log.Messages()) {
      if (m.id.rfind("XGPU-VUID-", 0) == 0) ids.push_back(m.id);
    }
    return ids;
  }
  // Records two overlapping fills of one buffer with no barrier (a
  // write-after-write hazard) and ends the recording; returns the IDs of the
  // layer's rule and hazard messages that came.
  std::vector<std::string> RecordHazard() {
    Fixture& f = Fixture::Get();
    XgpuBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    FixupStruct(f, info);
    XgpuBuffer buffer = nullptr;
    REQUIRE(xgpuCreateBuffer(device, &info, nullptr, &buffer) == XGPU_SUCCESS);
    XgpuCommandBufferCreateInfo cb_info = {};
    cb_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(xgpuCreateCommandBuffer(device, &cb_info, nullptr, &cb) == XGPU_SUCCESS);
    XgpuCommandBufferBeginInfo begin = {};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
    REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
    const uint32_t pattern = 7;
    const XgpuBufferRef first = xgpuBufferRefRange(buffer, 0, 64);
    const XgpuBufferRef second = xgpuBufferRefRange(buffer, 32, 64);
    xgpuCmdFillBuffer(cb, &first, &pattern, sizeof(pattern));
    xgpuCmdFillBuffer(cb, &second, &pattern, sizeof(pattern));
    CHECK(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    xgpuDestroyCommandBuffer(device, cb, nullptr);
    xgpuDestroyBuffer(device, buffer, nullptr);
    std::vector<std::string> ids;
    for (const auto& m : log.Messages()) {
      if (m.id.rfind("XGPU-VUID-", 0) == 0 || m.id.rfind("XGPU-VALIDATION-hazard", 0) == 0) ids.push_back(m.id);
    }
    return ids;
  }
  // xgpuCreateBuffer with a reserved flag set (breaks kFlagsRule); destroys what it makes.
  XgpuResult CreateFlaggedBuffer() {
    Fixture& f = Fixture::Get();
    XgpuBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    FixupStruct(f, info);
    info.flags = 1;
    XgpuBuffer buffer = nullptr;
    XgpuResult result = xgpuCreateBuffer(device, &info, nullptr, &buffer);
    if (buffer != nullptr) xgpuDestroyBuffer(device, buffer, nullptr);
    return result;
  }
};

XgpuValidationSettings ZeroSettings() {
  XgpuValidationSettings s = {};
  s.sType = XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS;
  return s;
}

}  // namespace

TEST_CASE("settings: without a structure or environment the defaults hold and are stated at creation") {
  ScopedEnv a("XGPU_VALIDATION_MUTE", nullptr), b("XGPU_VALIDATION_DUPLICATE_LIMIT", nullptr),
      c("XGPU_VALIDATION_ON_ERROR", nullptr), d("XGPU_VALIDATION_COSTLY_CHECKS", nullptr), e("XGPU_VALIDATION_HAZARDS", nullptr),
      f("XGPU_VALIDATION_GPU_ASSISTED", nullptr);
  SettingsEnv env(nullptr);
  REQUIRE(env.create_result == XGPU_SUCCESS);
  CHECK(env.SettingsMessage() ==
        "xgpu validation: costly checks on, synchronization hazards off, GPU-assisted validation off, duplicate limit 10 per ID, on error continue, 0 rule(s) muted");
  for (int n = 0; n < 12; ++n) CHECK(env.CreateFlaggedBuffer() == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.ErrorIds() == std::vector<std::string>(10, kFlagsRule));
}

TEST_CASE("settings: XgpuValidationSettings mutes rules, limits duplicates and turns costly checks off") {
  ScopedEnv a("XGPU_VALIDATION_MUTE", nullptr), b("XGPU_VALIDATION_DUPLICATE_LIMIT", nullptr),
      c("XGPU_VALIDATION_ON_ERROR", nullptr), d("XGPU_VALIDATION_COSTLY_CHECKS", nullptr), e("XGPU_VALIDATION_HAZARDS", nullptr),
      f("XGPU_VALIDATION_GPU_ASSISTED", nullptr);
  SUBCASE("a muted rule lets its calls through silently") {
    const char* muted[] = {kFlagsRule};
    XgpuValidationSettings s = ZeroSettings();
    s.mutedMessageIdCount = 1;
    s.ppMutedMessageIds = muted;
    s.duplicateMessageLimit = 10;
    s.costlyChecks = XGPU_TRUE;
    SettingsEnv env(&s);
    REQUIRE(env.create_result == XGPU_SUCCESS);
    CHECK(env.SettingsMessage() ==
          "xgpu validation: costly checks on, synchronization hazards off, GPU-assisted validation off, duplicate limit 10 per ID, on error continue, 1 rule(s) muted");
    CHECK(env.CreateFlaggedBuffer() == XGPU_SUCCESS);  // the driver ignores the reserved flags
    CHECK(env.ErrorIds().empty());
  }
  SUBCASE("a rule muted by its messageIdNumber") {
    const std::string number = std::to_string(Fnv1a(kFlagsRule));
    const char* muted[] = {number.c_str()};
    XgpuValidationSettings s = ZeroSettings();
    s.mutedMessageIdCount = 1;
    s.ppMutedMessageIds = muted;
    SettingsEnv env(&s);
    REQUIRE(env.create_result == XGPU_SUCCESS);
    CHECK(env.CreateFlaggedBuffer() == XGPU_SUCCESS);
    CHECK(env.ErrorIds().empty());
  }
  SUBCASE("a duplicate limit of 3; the calls still fail") {
    XgpuValidationSettings s = ZeroSettings();
    s.duplicateMessageLimit = 3;
    s.costlyChecks = XGPU_TRUE;
    SettingsEnv env(&s);
    for (int n = 0; n < 5; ++n) CHECK(env.CreateFlaggedBuffer() == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.ErrorIds() == std::vector<std::string>(3, kFlagsRule));
  }
  SUBCASE("a zero-initialized structure: no duplicate limit, costly checks off") {
    XgpuValidationSettings s = ZeroSettings();
    SettingsEnv env(&s);
    CHECK(env.SettingsMessage() ==
          "xgpu validation: costly checks off, synchronization hazards off, GPU-assisted validation off, duplicate limit none, on error continue, 0 rule(s) muted");
    for (int n = 0; n < 12; ++n) CHECK(env.CreateFlaggedBuffer() == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.ErrorIds().size() == 12);
  }
}

TEST_CASE("settings: the environment overrides the structure's members and joins its muted IDs") {
  const char* muted[] = {kFlagsRule};
  XgpuValidationSettings s = ZeroSettings();
  s.mutedMessageIdCount = 1;
  s.ppMutedMessageIds = muted;
  s.duplicateMessageLimit = 2;
  s.errorAction = XGPU_VALIDATION_ERROR_ACTION_ABORT;
  s.costlyChecks = XGPU_FALSE;
  ScopedEnv a("XGPU_VALIDATION_MUTE", kSTypeRule);
  ScopedEnv b("XGPU_VALIDATION_DUPLICATE_LIMIT", "4");
  ScopedEnv c("XGPU_VALIDATION_ON_ERROR", "continue");
  ScopedEnv d("XGPU_VALIDATION_COSTLY_CHECKS", "on");
  ScopedEnv e("XGPU_VALIDATION_HAZARDS", "1");
  ScopedEnv f("XGPU_VALIDATION_GPU_ASSISTED", "0");
  s.gpuAssistedValidation = XGPU_TRUE;  // the variable wins
  SettingsEnv env(&s);
  REQUIRE(env.create_result == XGPU_SUCCESS);
  CHECK(env.SettingsMessage() ==
        "xgpu validation: costly checks on, synchronization hazards on, GPU-assisted validation off, duplicate limit 4 per ID, on error continue, 2 rule(s) muted");
  CHECK(env.CreateFlaggedBuffer() == XGPU_SUCCESS);  // muted by the structure
  CHECK(env.ErrorIds().empty());
}

TEST_CASE("settings: XGPU_VALIDATION_COSTLY_CHECKS=off without a structure") {
  ScopedEnv d("XGPU_VALIDATION_COSTLY_CHECKS", "off");
  SettingsEnv env(nullptr, false);
  CHECK(env.SettingsMessage().find("costly checks off,") != std::string::npos);
}

TEST_CASE("settings: synchronization hazards are opt-in, by the structure or XGPU_VALIDATION_HAZARDS") {
  ScopedEnv d("XGPU_VALIDATION_COSTLY_CHECKS", nullptr);
  SUBCASE("the structure turns them on") {
    ScopedEnv e("XGPU_VALIDATION_HAZARDS", nullptr);
    XgpuValidationSettings s = ZeroSettings();
    s.costlyChecks = XGPU_TRUE;
    s.synchronizationHazards = XGPU_TRUE;
    SettingsEnv env(&s, false);
    REQUIRE(env.create_result == XGPU_SUCCESS);
    CHECK(env.SettingsMessage().find("costly checks on, synchronization hazards on,") != std::string::npos);
  }
  SUBCASE("the variable turns them on without a structure") {
    ScopedEnv e("XGPU_VALIDATION_HAZARDS", "on");
    SettingsEnv env(nullptr, false);
    CHECK(env.SettingsMessage().find("costly checks on, synchronization hazards on,") != std::string::npos);
  }
  SUBCASE("the variable turns off what the structure asked for") {
    ScopedEnv e("XGPU_VALIDATION_HAZARDS", "0");
    XgpuValidationSettings s = ZeroSettings();
    s.synchronizationHazards = XGPU_TRUE;
    SettingsEnv env(&s, false);
    CHECK(env.SettingsMessage().find("synchronization hazards off,") != std::string::npos);
  }
  SUBCASE("off by default: a hazard is not reported; on: it is") {
    ScopedEnv e("XGPU_VALIDATION_HAZARDS", nullptr);
    {
      SettingsEnv env(nullptr);
      REQUIRE(env.create_result == XGPU_SUCCESS);
      std::string ids;
      for (const std::string& id : env.RecordHazard()) ids += id + " ";
      CHECK(ids == "");
    }
    XgpuValidationSettings s = ZeroSettings();
    s.costlyChecks = XGPU_TRUE;
    s.synchronizationHazards = XGPU_TRUE;
    SettingsEnv env(&s);
    REQUIRE(env.create_result == XGPU_SUCCESS);
    std::string ids;
    for (const std::string& id : env.RecordHazard()) ids += id + " ";
    CHECK(ids == "XGPU-VALIDATION-hazard-write-after-write ");
  }
  SUBCASE("a malformed variable is ignored: the default (off) holds") {
    ScopedEnv e("XGPU_VALIDATION_HAZARDS", "yes");
    SettingsEnv env(nullptr, false);
    CHECK(env.SettingsMessage().find("synchronization hazards off,") != std::string::npos);
  }
}

TEST_CASE("settings: GPU-assisted validation is opt-in, by the structure or XGPU_VALIDATION_GPU_ASSISTED") {
  SUBCASE("off without either") {
    ScopedEnv e("XGPU_VALIDATION_GPU_ASSISTED", nullptr);
    SettingsEnv env(nullptr, false);
    CHECK(env.SettingsMessage().find("GPU-assisted validation off,") != std::string::npos);
  }
  SUBCASE("the structure turns it on") {
    ScopedEnv e("XGPU_VALIDATION_GPU_ASSISTED", nullptr);
    XgpuValidationSettings s = ZeroSettings();
    s.gpuAssistedValidation = XGPU_TRUE;
    SettingsEnv env(&s, false);
    REQUIRE(env.create_result == XGPU_SUCCESS);
    CHECK(env.SettingsMessage().find("GPU-assisted validation on,") != std::string::npos);
  }
  SUBCASE("the variable turns it on without a structure") {
    ScopedEnv e("XGPU_VALIDATION_GPU_ASSISTED", "1");
    SettingsEnv env(nullptr, false);
    CHECK(env.SettingsMessage().find("GPU-assisted validation on,") != std::string::npos);
  }
  SUBCASE("a malformed variable is ignored: the default (off) holds") {
    ScopedEnv e("XGPU_VALIDATION_GPU_ASSISTED", "maybe");
    SettingsEnv env(nullptr, false);
    CHECK(env.SettingsMessage().find("GPU-assisted validation off,") != std::string::npos);
  }
}

TEST_CASE("settings: a malformed XgpuValidationSettings is reported by ID and xgpuCreateInstance fails") {
  SUBCASE("ppMutedMessageIds NULL with a count") {
    XgpuValidationSettings s = ZeroSettings();
    s.mutedMessageIdCount = 2;
    SettingsEnv env(&s, false);
    CHECK(env.create_result == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.instance == nullptr);
    CHECK(env.ErrorIds() == std::vector<std::string>{"XGPU-VUID-xgpuCreateInstance-validationSettings-ppMutedMessageIds"});
  }
  SUBCASE("a NULL string among the IDs") {
    const char* muted[] = {kFlagsRule, nullptr};
    XgpuValidationSettings s = ZeroSettings();
    s.mutedMessageIdCount = 2;
    s.ppMutedMessageIds = muted;
    SettingsEnv env(&s, false);
    CHECK(env.create_result == XGPU_ERROR_INVALID_ARGUMENT);
    std::vector<MessageLog::Message> messages;
    for (const auto& m : env.log.Messages()) {
      if (m.id.rfind("XGPU-VUID-", 0) == 0) messages.push_back(m);
    }
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].id == "XGPU-VUID-xgpuCreateInstance-validationSettings-ppMutedMessageIds");
    CHECK(messages[0].text.find("XgpuValidationSettings::ppMutedMessageIds[1] is NULL") != std::string::npos);
  }
  SUBCASE("an errorAction out of range and costlyChecks not a bool: two messages") {
    XgpuValidationSettings s = ZeroSettings();
    s.errorAction = static_cast<XgpuValidationErrorAction>(7);
    s.costlyChecks = 2;
    SettingsEnv env(&s, false);
    CHECK(env.create_result == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.ErrorIds() == std::vector<std::string>{"XGPU-VUID-xgpuCreateInstance-validationSettings-errorAction",
                                                     "XGPU-VUID-xgpuCreateInstance-validationSettings-costlyChecks"});
  }
  SUBCASE("synchronizationHazards not a bool") {
    XgpuValidationSettings s = ZeroSettings();
    s.synchronizationHazards = 3;
    SettingsEnv env(&s, false);
    CHECK(env.create_result == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.instance == nullptr);
    CHECK(env.ErrorIds() ==
          std::vector<std::string>{"XGPU-VUID-xgpuCreateInstance-validationSettings-synchronizationHazards"});
  }
  SUBCASE("gpuAssistedValidation not a bool") {
    XgpuValidationSettings s = ZeroSettings();
    s.gpuAssistedValidation = 2;
    SettingsEnv env(&s, false);
    CHECK(env.create_result == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.instance == nullptr);
    CHECK(env.ErrorIds() ==
          std::vector<std::string>{"XGPU-VUID-xgpuCreateInstance-validationSettings-gpuAssistedValidation"});
  }
  SUBCASE("a second XgpuValidationSettings in the chain is a pNext violation") {
    XgpuValidationSettings second = ZeroSettings();
    XgpuValidationSettings s = ZeroSettings();
    s.pNext = &second;
    SettingsEnv env(&s, false);
    CHECK(env.create_result == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.ErrorIds() == std::vector<std::string>{"XGPU-VUID-xgpuCreateInstance-pCreateInfo-pNext"});
  }
}

TEST_CASE("settings: without the layer the loader and the driver pass over XgpuValidationSettings") {
  XgpuValidationSettings s = ZeroSettings();
  s.errorAction = static_cast<XgpuValidationErrorAction>(7);  // not read by anyone without the layer
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &s;
  ScopedEnv layers("XGPU_INSTANCE_LAYERS", nullptr);
  XgpuInstance instance = nullptr;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  uint32_t count = 0;
  CHECK(xgpuEnumeratePhysicalDevices(instance, &count, nullptr) == XGPU_SUCCESS);
  CHECK(count >= 1);
  xgpuDestroyInstance(instance, nullptr);
}

}  // namespace vtest
