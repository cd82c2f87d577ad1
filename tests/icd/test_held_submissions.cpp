// Operations held on the host for a semaphore payload are not bounded (as in
// Vulkan, releasing them is the application's to do; api.md xgpuQueueSubmit):
// past 65,536 on a queue, and at each doubling, a warning says so.
#include <string>
#include <vector>

#include "icd_test_util.h"

using namespace icdtest;

TEST_CASE("held submissions: a warning at 65536 held on a queue, none before; failing the wait releases them") {
  Env env(1, 1);
  XgpuSemaphore gate = env.semaphore(0), done = env.semaphore(0);
  constexpr uint32_t kBatch = 1024;
  constexpr uint32_t kWarningAt = 65536;
  std::vector<XgpuSubmitInfo> batch(kBatch);
  const uint64_t one = 1;
  for (XgpuSubmitInfo& submit : batch) {
    submit = XgpuSubmitInfo{};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.waitSemaphores = {1, &gate, &one};
  }
  env.log.clear();
  auto warnings = [&] {
    std::lock_guard<std::mutex> lock(env.log.mutex);
    size_t count = 0;
    for (const MessageLog::Id& id : env.log.ids) count += id.name == "XGPU-DRIVER-held-submissions";
    return count;
  };
  for (uint32_t held = 0; held + kBatch < kWarningAt; held += kBatch)
    REQUIRE(api().QueueSubmit(env.queue(), kBatch, batch.data()) == XGPU_SUCCESS);
  CHECK(warnings() == 0);  // 64512 held
  REQUIRE(api().QueueSubmit(env.queue(), kBatch, batch.data()) == XGPU_SUCCESS);
  CHECK(warnings() == 1);  // 65536
  const std::string text = env.log.text_of_id("XGPU-DRIVER-held-submissions");
  CHECK(text.find("queue 0 holds 65536 operations") != std::string::npos);
  CHECK(text.find("the application's to do") != std::string::npos);
  REQUIRE(api().QueueSubmit(env.queue(), kBatch, batch.data()) == XGPU_SUCCESS);
  CHECK(warnings() == 1);  // not again before 131072
  // The last one signals `done`: it fails with the gate, as everything held.
  XgpuSubmitInfo last = batch[0];
  const uint64_t done_value = 1;
  last.signalSemaphores = {1, &done, &done_value};
  REQUIRE(api().QueueSubmit(env.queue(), 1, &last) == XGPU_SUCCESS);
  REQUIRE(api().FailSemaphore(env.device(), gate, XGPU_ERROR_SEMAPHORE_FAILED) == XGPU_SUCCESS);
  CHECK(env.wait(done, 1) == XGPU_ERROR_SEMAPHORE_FAILED);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  CHECK(warnings() == 1);
  api().DestroySemaphore(env.device(), gate, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
}
