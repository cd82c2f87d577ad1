// An ERROR message that no debug messenger receives goes to stderr (api.md
// 14, as the Vulkan validation layers do with no callback), so an error is
// never returned unexplained; XGPU_DRIVER_DEBUG=0 silences it, =1 prints every
// message whatever the messengers take.
#include <cstdlib>
#include <string>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

constexpr char kNoPipelineId[] = "XGPU-VUID-xgpuCmdDispatch-pipeline";

// Sets XGPU_DRIVER_DEBUG for the scope (nullptr: unset), then restores it.
class DriverDebug {
 public:
  explicit DriverDebug(const char* value) {
    if (const char* old = std::getenv("XGPU_DRIVER_DEBUG")) saved_ = old, had_ = true;
    if (value) {
      setenv("XGPU_DRIVER_DEBUG", value, 1);
    } else {
      unsetenv("XGPU_DRIVER_DEBUG");
    }
  }
  ~DriverDebug() {
    if (had_) {
      setenv("XGPU_DRIVER_DEBUG", saved_.c_str(), 1);
    } else {
      unsetenv("XGPU_DRIVER_DEBUG");
    }
  }

 private:
  std::string saved_;  // the value before
  bool had_ = false;   // whether it was set before
};

// Records a dispatch with no pipeline bound (a recording error the driver
// reports) and ends the command buffer; returns what stderr received meanwhile.
std::string record_error(Env& env) {
  REQUIRE((api().CmdDispatch != nullptr && api().DestroyCommandBuffer != nullptr));
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  StderrCapture capture;
  api().CmdDispatch(cb, 1, 1, 1);
  const XgpuResult result = api().EndCommandBuffer(cb);
  const std::string text = capture.stop();
  CHECK(result == XGPU_ERROR_INVALID_USAGE);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  return text;
}

// A messenger of env's instance taking `severities` (every type).
XgpuDebugMessenger add_messenger(Env& env, XgpuDebugMessageSeverityFlags severities) {
  XgpuDebugMessengerCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  info.messageSeverity = severities;
  info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                     XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT;
  info.pfnUserCallback = &MessageLog::callback;
  info.pUserData = &env.log;
  XgpuDebugMessenger messenger = nullptr;
  REQUIRE(api().CreateDebugMessenger(env.instance, &info, nullptr, &messenger) == XGPU_SUCCESS);
  return messenger;
}

// Env without its messenger: like a program whose only messenger is chained
// to XgpuInstanceCreateInfo (creation and destruction only).
void drop_messenger(Env& env) {
  api().DestroyDebugMessenger(env.instance, env.messenger, nullptr);
  env.messenger = nullptr;
}

}  // namespace

TEST_CASE("stderr fallback: an error no messenger receives is printed, with its ID") {
  Env env(1, 1);
  drop_messenger(env);
  DriverDebug unset(nullptr);
  const std::string text = record_error(env);
  INFO(text);
  CHECK(text.find(std::string("xgpu-amdgpu error: ") + kNoPipelineId + ": xgpuCmdDispatch: no pipeline is bound") !=
        std::string::npos);
}

TEST_CASE("stderr fallback: a messenger that does not take errors does not listen") {
  Env env(1, 1);
  drop_messenger(env);
  XgpuDebugMessenger warnings_only = add_messenger(env, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT);
  DriverDebug unset(nullptr);
  const std::string text = record_error(env);
  INFO(text);
  CHECK(text.find(kNoPipelineId) != std::string::npos);
  CHECK_FALSE(env.log.contains("no pipeline is bound"));
  api().DestroyDebugMessenger(env.instance, warnings_only, nullptr);
}

TEST_CASE("stderr fallback: an error a messenger receives stays off stderr") {
  Env env(1, 1);  // its messenger takes errors and warnings
  DriverDebug unset(nullptr);
  env.log.clear();
  const std::string text = record_error(env);
  INFO(text);
  CHECK(text.find(kNoPipelineId) == std::string::npos);
  CHECK(env.log.text_of_id(kNoPipelineId).find("no pipeline is bound") != std::string::npos);
}

TEST_CASE("stderr fallback: XGPU_DRIVER_DEBUG=0 silences it, =1 prints what messengers receive too") {
  Env env(1, 1);
  {
    DriverDebug all("1");
    env.log.clear();
    const std::string text = record_error(env);
    INFO(text);
    CHECK(text.find(kNoPipelineId) != std::string::npos);
    CHECK(env.log.contains("no pipeline is bound"));
  }
  drop_messenger(env);
  DriverDebug none("0");
  const std::string text = record_error(env);
  INFO(text);
  CHECK(text.find(kNoPipelineId) == std::string::npos);
}
