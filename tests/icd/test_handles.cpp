// Handles that never alias: a destroyed object's handle value is not handed
// out again by the next creates (the driver holds the memory of destroyed
// handle objects back, kHandleQuarantine = 1024 of them), so a stale handle
// never silently names a new object and the validation layer can tell it
// from a live one.
#include <set>
#include <vector>

#include "icd_test_util.h"

using namespace icdtest;

TEST_CASE("handles: the values of destroyed buffers, semaphores and command buffers are not handed out again soon") {
  Env env(1, 1);
  // Create and destroy one object at a time, as a program that makes and
  // drops a buffer per frame does: without the quarantine the allocator
  // hands the same block (the same handle) back every time.
  constexpr int kRounds = 300;  // 900 destroys of handle objects: within the 1024 held back
  std::set<uint64_t> buffers, semaphores, command_buffers;
  for (int i = 0; i < kRounds; ++i) {
    XgpuBuffer b = env.buffer(256);
    CHECK(buffers.insert(reinterpret_cast<uintptr_t>(b)).second);
    api().DestroyBuffer(env.device(), b, nullptr);
    XgpuSemaphore s = env.semaphore(0);
    CHECK(semaphores.insert(reinterpret_cast<uintptr_t>(s)).second);
    api().DestroySemaphore(env.device(), s, nullptr);
    XgpuCommandBufferCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(api().CreateCommandBuffer(env.device(), &info, nullptr, &cb) == XGPU_SUCCESS);
    CHECK(command_buffers.insert(reinterpret_cast<uintptr_t>(cb)).second);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
  }
  CHECK(buffers.size() == kRounds);
  CHECK(semaphores.size() == kRounds);
  CHECK(command_buffers.size() == kRounds);
  // A destroyed buffer's handle is refused by the driver's own handle check
  // (with the rule's ID), not taken for a later buffer.
  XgpuBuffer stale = env.buffer(256);
  api().DestroyBuffer(env.device(), stale, nullptr);
  XgpuBuffer fresh = env.buffer(256);
  CHECK(fresh != stale);
  api().DestroyBuffer(env.device(), fresh, nullptr);
}
