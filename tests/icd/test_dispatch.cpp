// End to end through both halves: saxpy with a binding table, replayed from
// two queues; the internal one-shot fill/copy path (xgpuQueueFillBuffer /
// xgpuQueueCopyBuffer).
#include <cmath>
#include <cstring>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

TEST_CASE("saxpy end to end, reusable command buffer replayed on two queues with different binding tables") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_saxpy", 2, 8, 64);

  constexpr uint32_t n = 1000;
  constexpr int kRuns = 4;
  XgpuBuffer x = env.buffer(n * 4);
  std::vector<XgpuBuffer> ys;
  auto* xs = static_cast<float*>(env.map(x));
  for (uint32_t i = 0; i < n; ++i) xs[i] = float(i);
  for (int r = 0; r < kRuns; ++r) {
    ys.push_back(env.buffer(n * 4));
    auto* y = static_cast<float*>(env.map(ys.back()));
    for (uint32_t i = 0; i < n; ++i) y[i] = float(r);
  }

  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 2);
  api().CmdBindPipeline(cb, pipeline);
  XgpuBufferRef refs[2] = {xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE), xgpuBufferRefSlot(1, 0, XGPU_WHOLE_SIZE)};
  api().CmdBindBuffers(cb, 0, 2, refs);
  struct { float a; uint32_t n; } constants = {2.0f, n};
  api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
  api().CmdDispatch(cb, (n + 63) / 64, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);

  // Too small a binding table is rejected with a message.
  CHECK(submit_barrier(env.queue(0), {}, {}, {}, {}, cb, {{x, 0, XGPU_WHOLE_SIZE}}) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.log.contains("bindingCount 1 is less than the command buffer's bindingCapacity 2"));

  XgpuSemaphore done = env.semaphore(0);
  std::vector<XgpuSemaphore> per_run;
  for (int r = 0; r < kRuns; ++r) {
    per_run.push_back(env.semaphore(0));
    REQUIRE(submit_barrier(env.queue(uint32_t(r % 2)), {}, {}, {per_run.back()}, {1}, cb,
                           {{x, 0, XGPU_WHOLE_SIZE}, {ys[r], 0, XGPU_WHOLE_SIZE}}) == XGPU_SUCCESS);
  }
  for (XgpuSemaphore s : per_run) CHECK(env.wait(s, 1) == XGPU_SUCCESS);
  for (XgpuSemaphore s : per_run) api().DestroySemaphore(env.device(), s, nullptr);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (int r = 0; r < kRuns; ++r) {
    auto* y = static_cast<float*>(env.map(ys[r]));
    bool all = true;
    for (uint32_t i = 0; i < n; ++i) all &= y[i] == 2.0f * float(i) + float(r);
    CHECK_MESSAGE(all, "run " << r);
  }
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
  for (XgpuBuffer y : ys) api().DestroyBuffer(env.device(), y, nullptr);
  api().DestroyBuffer(env.device(), x, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("xgpuQueueFillBuffer and xgpuQueueCopyBuffer chained by a semaphore") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuBuffer a = env.buffer(4096), b = env.buffer(4096);
  std::memset(env.map(b), 0, 4096);
  XgpuSemaphore s = env.semaphore(0);
  const uint32_t pattern = 0xA5A5F00Du;
  XgpuSemaphoreList none{0, nullptr, nullptr};
  uint64_t one = 1;
  XgpuSemaphoreList signal_one{1, &s, &one};
  XgpuSemaphoreList wait_one{1, &s, &one};
  uint64_t two = 2;
  XgpuSemaphoreList signal_two{1, &s, &two};
  REQUIRE(api().QueueFillBuffer(env.queue(0), &none, &signal_one, a, 0, 4096, &pattern, 4) == XGPU_SUCCESS);
  REQUIRE(api().QueueCopyBuffer(env.queue(1), &wait_one, &signal_two, a, 16, b, 32, 1024) == XGPU_SUCCESS);
  INFO(env.log.all());
  REQUIRE(env.wait(s, 2) == XGPU_SUCCESS);
  auto* out = static_cast<uint32_t*>(env.map(b));
  CHECK(out[0] == 0);
  CHECK(out[8] == pattern);
  CHECK(out[8 + 255] == pattern);
  CHECK(out[8 + 256] == 0);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), s, nullptr);
  api().DestroyBuffer(env.device(), a, nullptr);
  api().DestroyBuffer(env.device(), b, nullptr);
}

TEST_CASE("what a submission used may be destroyed or re-begun as soon as one of its signals is observed") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_increment", 1, 8, ICD_TEST_INCREMENT_WORKGROUP);
  constexpr uint32_t n = ICD_TEST_INCREMENT_WORKGROUP;
  XgpuBuffer counters = env.buffer(n * 4);
  std::memset(env.map(counters), 0, n * 4);

  XgpuCommandBufferCreateInfo cb_info{};
  cb_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  auto record = [&](XgpuCommandBuffer cb, XgpuCommandBufferMode mode) {
    XgpuCommandBufferBeginInfo begin{};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = mode;
    REQUIRE(api().BeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
    api().CmdBindPipeline(cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(counters);
    api().CmdBindBuffers(cb, 0, 1, &ref);
    const uint32_t constants[2] = {n, 0};
    api().CmdPushConstants(cb, 0, sizeof(constants), constants);
    api().CmdDispatch(cb, 1, 1, 1);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  };

  // One-shot command buffers and both signalled semaphores destroyed right
  // after the first signal is seen (LeakSanitizer/ASan check the rest).
  constexpr uint64_t kRounds = 300;
  for (uint64_t r = 0; r < kRounds; ++r) {
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(api().CreateCommandBuffer(env.device(), &cb_info, nullptr, &cb) == XGPU_SUCCESS);
    record(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    XgpuSemaphore first = env.semaphore(0), second = env.semaphore(0);
    REQUIRE(submit_barrier(env.queue(uint32_t(r % 2)), {}, {}, {first, second}, {1, 1}, cb) == XGPU_SUCCESS);
    REQUIRE(env.wait(first, 1) == XGPU_SUCCESS);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
    api().DestroySemaphore(env.device(), first, nullptr);
    api().DestroySemaphore(env.device(), second, nullptr);
  }
  // A reusable command buffer re-begun as soon as its submission's signal is
  // seen: it is no longer pending then.
  XgpuCommandBuffer reusable = nullptr;
  REQUIRE(api().CreateCommandBuffer(env.device(), &cb_info, nullptr, &reusable) == XGPU_SUCCESS);
  record(reusable, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  XgpuSemaphore timeline = env.semaphore(0);
  for (uint64_t r = 1; r <= kRounds; ++r) {
    REQUIRE(submit_barrier(env.queue(uint32_t(r % 2)), {}, {}, {timeline}, {r}, reusable) == XGPU_SUCCESS);
    REQUIRE(env.wait(timeline, r) == XGPU_SUCCESS);
    INFO("round " << r << "\n" << env.log.all());
    record(reusable, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  }
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  auto* out = static_cast<const uint32_t*>(env.map(counters));
  bool all = true;
  for (uint32_t i = 0; i < n; ++i) all &= out[i] == 2 * kRounds;
  CHECK(all);
  CHECK_MESSAGE(!env.log.contains("pending"), env.log.all());
  api().DestroyCommandBuffer(env.device(), reusable, nullptr);
  api().DestroySemaphore(env.device(), timeline, nullptr);
  api().DestroyBuffer(env.device(), counters, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}
