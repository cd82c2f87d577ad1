// Misuse found only when a submission issues (api.md 6.1, DESIGN "Misuse"):
// the submission fails - its signal semaphores carry the rule's error and
// the message the rule's ID - and the device is not lost: later submissions
// on the same queue run.
#include <cstring>
#include <string>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

PFN_xgpuCmdFillBuffer fill_function(XgpuDevice device) {
  return reinterpret_cast<PFN_xgpuCmdFillBuffer>(api().GetDeviceProcAddr(device, "xgpuCmdFillBuffer"));
}

}  // namespace

TEST_CASE("issue failure: a binding smaller than the recorded range fails its submission, not the device") {
  Env env(1, 1);
  if (!api().CreateCommandBuffer) return;
  PFN_xgpuCmdFillBuffer fill = fill_function(env.device());
  REQUIRE((fill != nullptr));
  XgpuBuffer buffer = env.buffer(256);
  auto* bytes = static_cast<uint8_t*>(env.map(buffer));
  std::memset(bytes, 0, 256);
  // Fills 128 bytes through slot 0: a 64-byte binding is too small, which
  // only issue sees (the binding itself is a valid range of the buffer).
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 1);
  const XgpuBufferRef slot = xgpuBufferRefSlot(0, 0, 128);
  const uint32_t pattern = 0x11111111u;
  fill(cb, &slot, &pattern, 4);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore failed = env.semaphore(0), dependant = env.semaphore(0), later = env.semaphore(0);
  env.log.clear();
  REQUIRE(submit_barrier(env.queue(), {}, {}, {failed}, {1}, cb, {{buffer, 0, 64}}) == XGPU_SUCCESS);
  // A submission that waits for it fails with the same status.
  REQUIRE(submit_barrier(env.queue(), {failed}, {1}, {dependant}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(failed, 1) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.wait(dependant, 1) == XGPU_ERROR_INVALID_ARGUMENT);
  for (int i = 0; i < 256; ++i) REQUIRE(bytes[i] == 0);  // nothing of it ran
  const std::string message = env.log.text_of_id("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-refRange");
  INFO(env.log.all_ids());
  CHECK(message.find("does not fit binding-table slot 0 (64 bytes)") != std::string::npos);
  CHECK(message.find("the device is not lost") != std::string::npos);
  CHECK(env.log.text_of_id("XGPU-DRIVER-device-lost").empty());
  // The device and the queue carry on: the same recording with a binding
  // that fits runs.
  REQUIRE(submit_barrier(env.queue(), {}, {}, {later}, {1}, cb, {{buffer, 0, 128}}) == XGPU_SUCCESS);
  CHECK(env.wait(later, 1) == XGPU_SUCCESS);
  for (int i = 0; i < 128; ++i) CHECK(bytes[i] == 0x11);
  CHECK(bytes[128] == 0);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), failed, nullptr);
  api().DestroySemaphore(env.device(), dependant, nullptr);
  api().DestroySemaphore(env.device(), later, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroyBuffer(env.device(), buffer, nullptr);
}

// A queue allocation not committed when a submission that uses it issues:
// test_alloca.cpp, "a failed issue fails only its submission".
