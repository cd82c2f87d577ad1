// Command buffers of any size: a recording with more packets than the AQL
// ring holds (4096) is streamed into it as the packet processor frees slots.
// Every dispatch of the recording runs once per submission, in order.
#include <cstring>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

// xgpuCmdMemoryBarrier of the test's device (not in the shared table).
PFN_xgpuCmdMemoryBarrier g_memory_barrier = nullptr;

bool have_command_buffers(Env& env) {
  g_memory_barrier =
      reinterpret_cast<PFN_xgpuCmdMemoryBarrier>(api().GetDeviceProcAddr(env.device(), "xgpuCmdMemoryBarrier"));
  return api().CreateCommandBuffer && api().BeginCommandBuffer && api().EndCommandBuffer && api().CmdDispatch &&
         g_memory_barrier;
}

// Records `count` x (increment every counter; barrier) with the counters in
// `binding` (a buffer or a binding-table slot).
void record_increments(XgpuCommandBuffer cb, XgpuPipeline pipeline, const XgpuBufferRef& binding, uint32_t n,
                       uint32_t count) {
  api().CmdBindPipeline(cb, pipeline);
  api().CmdBindBuffers(cb, 0, 1, &binding);
  const struct { uint32_t n, pad; } constants = {n, 0};
  api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
  for (uint32_t i = 0; i < count; ++i) {
    api().CmdDispatch(cb, 1, 1, 1);
    g_memory_barrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                     XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
  }
}

// How many counters of `n` at `counters` differ from `expected`.
uint32_t wrong_counters(const uint32_t* counters, uint32_t n, uint32_t expected) {
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += counters[i] != expected;
  return wrong;
}

}  // namespace

TEST_CASE("a 100,000-dispatch command buffer is streamed through a 4096-packet ring, twice, with results checked") {
  Env env(1, 1);
  if (!have_command_buffers(env)) return;
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_increment", 1, 8, ICD_TEST_INCREMENT_WORKGROUP);
  constexpr uint32_t kCounters = ICD_TEST_INCREMENT_WORKGROUP;
  constexpr uint32_t kDispatches = 100000;

  // Static references (prebuilt kernargs) and a binding-table slot
  // (per-submission kernargs, 1.6 MB of them).
  XgpuBuffer direct = env.buffer(kCounters * 4), slotted = env.buffer(kCounters * 4);
  auto* direct_counters = static_cast<uint32_t*>(env.map(direct));
  auto* slotted_counters = static_cast<uint32_t*>(env.map(slotted));
  std::memset(direct_counters, 0, kCounters * 4);
  std::memset(slotted_counters, 0, kCounters * 4);

  XgpuCommandBuffer by_buffer = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0);
  record_increments(by_buffer, pipeline, xgpuBufferRefWhole(direct), kCounters, kDispatches);
  REQUIRE(api().EndCommandBuffer(by_buffer) == XGPU_SUCCESS);
  XgpuCommandBuffer by_slot = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 1);
  record_increments(by_slot, pipeline, xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE), kCounters, kDispatches);
  REQUIRE(api().EndCommandBuffer(by_slot) == XGPU_SUCCESS);

  // A small submission before, between and after: the ring stays consistent.
  XgpuCommandBuffer small = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0);
  record_increments(small, pipeline, xgpuBufferRefWhole(direct), kCounters, 3);
  REQUIRE(api().EndCommandBuffer(small) == XGPU_SUCCESS);

  XgpuSemaphore done = env.semaphore(0);
  const std::vector<XgpuBufferBinding> table = {{slotted, 0, XGPU_WHOLE_SIZE}};
  uint64_t value = 0;
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, small) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, by_buffer) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, by_slot, table) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, small) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, by_buffer) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, by_slot, table) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, small) == XGPU_SUCCESS);
  CHECK(env.wait(done, value) == XGPU_SUCCESS);
  CHECK(wrong_counters(direct_counters, kCounters, 2 * kDispatches + 3 * 3) == 0);
  CHECK(wrong_counters(slotted_counters, kCounters, 2 * kDispatches) == 0);
  CHECK(direct_counters[0] == 2 * kDispatches + 3 * 3);
  CHECK(slotted_counters[kCounters - 1] == 2 * kDispatches);
  CHECK_FALSE(env.log.contains("AQL packets"));

  api().DestroyCommandBuffer(env.device(), by_buffer, nullptr);
  api().DestroyCommandBuffer(env.device(), by_slot, nullptr);
  api().DestroyCommandBuffer(env.device(), small, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyBuffer(env.device(), direct, nullptr);
  api().DestroyBuffer(env.device(), slotted, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("a one-shot command buffer gives its blocks back at completion and is re-recorded into them") {
  Env env(1, 1);
  if (!have_command_buffers(env)) return;
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_increment", 1, 8, ICD_TEST_INCREMENT_WORKGROUP);
  constexpr uint32_t kCounters = ICD_TEST_INCREMENT_WORKGROUP;
  XgpuBuffer counters = env.buffer(kCounters * 4);
  auto* mapped = static_cast<uint32_t*>(env.map(counters));
  std::memset(mapped, 0, kCounters * 4);
  XgpuSemaphore done = env.semaphore(0);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
  uint64_t value = 0;
  for (uint32_t round = 0; round < 50; ++round) {
    if (round) {
      XgpuCommandBufferBeginInfo begin{};
      begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
      begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
      REQUIRE(api().BeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
    }
    record_increments(cb, pipeline, xgpuBufferRefWhole(counters), kCounters, 200);  // > one block
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {++value}, cb) == XGPU_SUCCESS);
    REQUIRE(env.wait(done, value) == XGPU_SUCCESS);
    // After completion: a second submission is still refused as before.
    CHECK(submit_barrier(env.queue(0), {}, {}, {}, {}, cb) == XGPU_ERROR_INVALID_USAGE);
  }
  CHECK(env.log.contains("already submitted"));
  CHECK(wrong_counters(mapped, kCounters, 50 * 200) == 0);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyBuffer(env.device(), counters, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}
