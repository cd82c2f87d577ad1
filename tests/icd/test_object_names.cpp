// Object names (xgpuSetObjectName): messages list the objects they are about
// with their names; names can be changed and removed; device-lost messages
// name the queue and the command buffer that was running.
#include <cstdlib>
#include <string>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

XgpuResult set_name(Env& env, XgpuObjectType type, const void* handle, const char* name) {
  XgpuDebugObjectNameInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO;
  info.objectType = type;
  info.objectHandle = uint64_t(reinterpret_cast<uintptr_t>(handle));
  info.pObjectName = name;
  return api().SetObjectName(env.device(), &info);
}

std::string type_name(XgpuObjectType type, const char* name) { return std::to_string(int(type)) + ":" + name; }

}  // namespace

TEST_CASE("messages list the device and the command buffer with their names; names change and go away") {
  Env env(1, 1);
  REQUIRE((api().CreateCommandBuffer != nullptr));
  REQUIRE(set_name(env, XGPU_OBJECT_TYPE_DEVICE, env.device(), "device zero") == XGPU_SUCCESS);
  XgpuCommandBufferCreateInfo cb_info{};
  cb_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(api().CreateCommandBuffer(env.device(), &cb_info, nullptr, &cb) == XGPU_SUCCESS);
  XgpuCommandBufferBeginInfo begin{};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;

  auto record_error = [&] {  // a dispatch without a pipeline is a recording error
    env.log.clear();
    REQUIRE(api().BeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
    api().CmdDispatch(cb, 1, 1, 1);
    CHECK(api().EndCommandBuffer(cb) != XGPU_SUCCESS);
    return env.log.objects_of("no pipeline is bound");
  };
  REQUIRE(set_name(env, XGPU_OBJECT_TYPE_COMMAND_BUFFER, cb, "frame graph") == XGPU_SUCCESS);
  CHECK(record_error() ==
        type_name(XGPU_OBJECT_TYPE_DEVICE, "device zero") + " " + type_name(XGPU_OBJECT_TYPE_COMMAND_BUFFER, "frame graph"));
  REQUIRE(set_name(env, XGPU_OBJECT_TYPE_COMMAND_BUFFER, cb, "frame graph v2") == XGPU_SUCCESS);
  CHECK(record_error().find(type_name(XGPU_OBJECT_TYPE_COMMAND_BUFFER, "frame graph v2")) != std::string::npos);
  REQUIRE(set_name(env, XGPU_OBJECT_TYPE_COMMAND_BUFFER, cb, nullptr) == XGPU_SUCCESS);  // removed
  CHECK(record_error().find(type_name(XGPU_OBJECT_TYPE_COMMAND_BUFFER, "-")) != std::string::npos);
  // A null handle is refused with a message.
  CHECK(set_name(env, XGPU_OBJECT_TYPE_BUFFER, nullptr, "nothing") == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.log.contains("objectHandle is null"));
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
}

TEST_CASE("a device-lost message names the queue and what it was running") {
  setenv("XGPU_AMDGPU_TEST_HOOKS", "1", 1);
  Env env(1, 2);
  using InjectFault = XgpuResult (*)(XgpuQueue, const XgpuSemaphoreList*);
  auto inject = reinterpret_cast<InjectFault>(api().GetDeviceProcAddr(env.device(), "xgpuAmdgpuTestInjectQueueFault"));
  REQUIRE((inject != nullptr));
  REQUIRE(set_name(env, XGPU_OBJECT_TYPE_QUEUE, env.queue(1), "async compute") == XGPU_SUCCESS);
  XgpuSemaphore fault = env.semaphore(0);
  const uint64_t one = 1;
  const XgpuSemaphoreList signal{1, &fault, &one};
  REQUIRE(inject(env.queue(1), &signal) == XGPU_SUCCESS);
  CHECK(env.wait(fault, 1) == XGPU_ERROR_DEVICE_LOST);
  CHECK(env.log.contains("HSA queue 1 reported"));
  CHECK(env.log.contains("while running submission 1 (the injected fault"));
  CHECK(env.log.objects_of("device lost").find(type_name(XGPU_OBJECT_TYPE_QUEUE, "async compute")) !=
        std::string::npos);
  api().DestroySemaphore(env.device(), fault, nullptr);
  unsetenv("XGPU_AMDGPU_TEST_HOOKS");
}
