// What a program that misuses command buffers is told, with the layer off:
// the rule it broke, by ID, in one message, and an error code that stops it
// (through the loader, and with the driver's entry points called directly).
#include <cstring>
#include <string>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

// The one message `log` holds: its ID, then its text. Clears the log.
std::pair<std::string, std::string> only_message(MessageLog& log) {
  const std::string seen = log.all_ids();
  INFO(seen);
  std::lock_guard<std::mutex> lock(log.mutex);
  REQUIRE(log.ids.size() == 1);
  std::pair<std::string, std::string> out{log.ids[0].name, log.messages[0]};
  log.ids.clear();
  log.messages.clear();
  log.objects.clear();
  return out;
}

XgpuResult submit(XgpuQueue queue, XgpuCommandBuffer cb) {
  XgpuSubmitInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  info.commandBuffer = cb;
  return api().QueueSubmit(queue, 1, &info);
}

}  // namespace

TEST_CASE("misuse: a submission naming a destroyed command buffer breaks its -parameter rule") {
  Env env(1, 1);
  REQUIRE((api().CreateCommandBuffer != nullptr));
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  env.log.clear();
  CHECK(submit(env.queue(), cb) == XGPU_ERROR_INVALID_ARGUMENT);
  const auto [id, text] = only_message(env.log);
  CHECK(id == "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-parameter");
  CHECK(text.find("xgpuQueueSubmit: pSubmits[0].commandBuffer (") == 0);
  CHECK(text.find("is not a live command buffer: it was destroyed already or never created") != std::string::npos);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
}

TEST_CASE("misuse: a command buffer of another device breaks the -parent rule") {
  if (!have_devices(2)) return;
  Env env(2, 1);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0, /*d=*/1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  env.log.clear();
  CHECK(submit(env.queue(0, 0), cb) == XGPU_ERROR_INVALID_ARGUMENT);
  const auto [id, text] = only_message(env.log);
  CHECK(id == "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-parent");
  CHECK(text.find("was created on another device than the queue's") != std::string::npos);
  api().DestroyCommandBuffer(env.device(1), cb, nullptr);
}

// The loader refuses xgpuCmdBindBuffers with a NULL pBuffers before the chain
// sees it (without the loader, the driver does): either way the recording
// fails, xgpuEndCommandBuffer says so, and the command buffer cannot be
// submitted until it is recorded again.
TEST_CASE("misuse: xgpuCmdBindBuffers with a NULL pBuffers fails the recording") {
  Env env(1, 1);
  REQUIRE((api().CmdBindBuffers != nullptr));
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0);
  env.log.clear();
  api().CmdBindBuffers(cb, 0, 1, nullptr);
  const auto [bind_id, bind_text] = only_message(env.log);
  CHECK(bind_id == "XGPU-VUID-xgpuCmdBindBuffers-pBuffers-parameter");
  CHECK(bind_text.find("xgpuCmdBindBuffers: pBuffers is NULL") == 0);
  CHECK(api().EndCommandBuffer(cb) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(submit(env.queue(), cb) == XGPU_ERROR_INVALID_USAGE);
  const auto [submit_id, submit_text] = only_message(env.log);
  CHECK(submit_id == "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state");
  CHECK(submit_text.find("xgpuQueueSubmit: pSubmits[0].commandBuffer") == 0);
  // Recorded again, it is executable.
  XgpuCommandBufferBeginInfo begin{};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
  REQUIRE(api().BeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  CHECK(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  CHECK(submit(env.queue(), cb) == XGPU_SUCCESS);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  CHECK(env.log.all_ids().empty());
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
}
