// Timeline semaphores and submission scheduling with wait/signal-only
// submissions (null command buffers).
#include <atomic>
#include <chrono>
#include <thread>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

uint64_t elapsed_ms(std::chrono::steady_clock::time_point start) {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

TEST_CASE("host signal, wait, query, timeouts") {
  Env env;
  XgpuSemaphore s = env.semaphore(5);
  CHECK(env.value(s) == 5);
  CHECK(env.wait(s, 5, 0) == XGPU_SUCCESS);
  CHECK(env.wait(s, 6, 0) == XGPU_TIMEOUT);
  auto start = std::chrono::steady_clock::now();
  CHECK(env.wait(s, 6, 50'000'000) == XGPU_TIMEOUT);  // 50 ms
  CHECK(elapsed_ms(start) >= 45);
  CHECK(elapsed_ms(start) < 5000);
  CHECK(env.signal(s, 7) == XGPU_SUCCESS);
  CHECK(env.value(s) == 7);
  CHECK(env.wait(s, 6, 0) == XGPU_SUCCESS);
  CHECK(env.signal(s, 7) == XGPU_ERROR_INVALID_ARGUMENT);  // not greater
  CHECK(env.log.contains("is not greater than the current payload 7"));
  // A blocked waiter wakes on a host signal from another thread.
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    env.signal(s, 100);
  });
  CHECK(env.wait(s, 100) == XGPU_SUCCESS);
  signaller.join();
  api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("wait all and wait any") {
  Env env;
  XgpuSemaphore a = env.semaphore(0), b = env.semaphore(0);
  XgpuSemaphore both[2] = {a, b};
  uint64_t values[2] = {1, 1};
  XgpuSemaphoreWaitInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 2;
  info.pSemaphores = both;
  info.pValues = values;
  CHECK(api().WaitSemaphores(env.device(), &info, 0) == XGPU_TIMEOUT);
  info.flags = XGPU_SEMAPHORE_WAIT_ANY_BIT;
  CHECK(api().WaitSemaphores(env.device(), &info, 10'000'000) == XGPU_TIMEOUT);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    env.signal(b, 1);
  });
  CHECK(api().WaitSemaphores(env.device(), &info, kTimeoutNs) == XGPU_SUCCESS);
  signaller.join();
  info.flags = 0;
  CHECK(api().WaitSemaphores(env.device(), &info, 0) == XGPU_TIMEOUT);
  env.signal(a, 2);
  CHECK(api().WaitSemaphores(env.device(), &info, 0) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), a, nullptr);
  api().DestroySemaphore(env.device(), b, nullptr);
}

TEST_CASE("submission signals; wait-before-signal is held until the host signals") {
  Env env;
  XgpuSemaphore gate = env.semaphore(0), done = env.semaphore(0);
  CHECK(submit_barrier(env.queue(0), {}, {}, {done}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(done, 1) == XGPU_SUCCESS);
  // Waits for gate=3 which nobody has signalled yet.
  CHECK(submit_barrier(env.queue(0), {gate}, {3}, {done}, {2}) == XGPU_SUCCESS);
  // In-order: a later submission on the same queue is held too.
  CHECK(submit_barrier(env.queue(0), {}, {}, {done}, {3}) == XGPU_SUCCESS);
  CHECK(env.wait(done, 2, 30'000'000) == XGPU_TIMEOUT);
  CHECK(env.value(done) == 1);
  CHECK(env.signal(gate, 2) == XGPU_SUCCESS);
  CHECK(env.wait(done, 2, 30'000'000) == XGPU_TIMEOUT);
  CHECK(env.signal(gate, 3) == XGPU_SUCCESS);
  CHECK(env.wait(done, 3) == XGPU_SUCCESS);
  CHECK(api().QueueWaitIdle(env.queue(0)) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), gate, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
}

// (The device-side wait on a signaller issued on another queue, with a
// dispatch keeping it in flight: test_retirement.cpp. Empty submissions
// whose waits are reached complete on the host, so this chain has none.)
TEST_CASE("chain across two queues: a held waiter, released in order") {
  Env env(1, 2);
  XgpuSemaphore gate = env.semaphore(0), mid = env.semaphore(0), end = env.semaphore(0);
  // Queue 0 waits for the host gate, then signals mid=1. Queue 1 waits on
  // mid=1 (its signaller is held on queue 0), then signals end=1.
  CHECK(submit_barrier(env.queue(0), {gate}, {1}, {mid}, {1}) == XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(1), {mid}, {1}, {end}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(end, 1, 20'000'000) == XGPU_TIMEOUT);
  CHECK(env.signal(gate, 1) == XGPU_SUCCESS);
  CHECK(env.wait(end, 1) == XGPU_SUCCESS);
  CHECK(env.value(mid) == 1);
  // Many links alternating queues: 0 -> 1 -> 0 -> ... each waits on the previous.
  constexpr uint64_t kLinks = 200;
  XgpuSemaphore chain = env.semaphore(0);
  for (uint64_t i = 1; i <= kLinks; ++i)
    REQUIRE(submit_barrier(env.queue(uint32_t(i % 2)), {chain}, {i - 1}, {chain}, {i}) == XGPU_SUCCESS);
  CHECK(env.wait(chain, kLinks) == XGPU_SUCCESS);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (XgpuSemaphore s : {gate, mid, end, chain}) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("chain across two devices (two hsa-cpu agents)") {
  if (!have_devices(2)) return;
  Env env(2, 1);
  XgpuSemaphore chain = env.semaphore(0);
  constexpr uint64_t kLinks = 100;
  for (uint64_t i = 1; i <= kLinks; ++i)
    REQUIRE(submit_barrier(env.queue(0, uint32_t(i % 2)), {chain}, {i - 1}, {chain}, {i}) == XGPU_SUCCESS);
  CHECK(env.wait(chain, kLinks) == XGPU_SUCCESS);
  // Wait on device 1 for a semaphore signalled on device 0 (wait-before-signal).
  XgpuSemaphore late = env.semaphore(0), after = env.semaphore(0);
  CHECK(submit_barrier(env.queue(0, 1), {late}, {1}, {after}, {1}) == XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(0, 0), {}, {}, {late}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(after, 1) == XGPU_SUCCESS);
  for (XgpuSemaphore s : {chain, late, after}) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("failure propagates to dependants with the right status and nothing hangs") {
  Env env(1, 2);
  XgpuSemaphore gate = env.semaphore(0), a = env.semaphore(0), b = env.semaphore(0), c = env.semaphore(0);
  // a <- gate; b <- a (another queue); c <- b (same queue as b).
  CHECK(submit_barrier(env.queue(0), {gate}, {1}, {a}, {1}) == XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(1), {a}, {1}, {b}, {1}) == XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(1), {b}, {1}, {c}, {1}) == XGPU_SUCCESS);
  // A host waiter blocked on c wakes with the failure.
  std::atomic<int> waiter_result{1};
  std::thread waiter([&] { waiter_result = env.wait(c, 1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(api().FailSemaphore(env.device(), gate, XGPU_ERROR_OUT_OF_DEVICE_MEMORY) == XGPU_SUCCESS);
  waiter.join();
  CHECK(waiter_result.load() == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  for (XgpuSemaphore s : {gate, a, b, c}) {
    XgpuResult r = XGPU_SUCCESS;
    CHECK(env.value(s, &r) == 0);
    CHECK(r == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
    CHECK(env.wait(s, 1) == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  }
  // Later submissions waiting on a failed semaphore fail at once.
  XgpuSemaphore d = env.semaphore(0);
  CHECK(submit_barrier(env.queue(0), {a}, {1}, {d}, {5}) == XGPU_SUCCESS);
  CHECK(env.wait(d, 5) == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  // The queues keep working for independent work.
  XgpuSemaphore ok = env.semaphore(0);
  CHECK(submit_barrier(env.queue(1), {}, {}, {ok}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(ok, 1) == XGPU_SUCCESS);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  CHECK(api().FailSemaphore(env.device(), ok, XGPU_SUCCESS) == XGPU_ERROR_INVALID_ARGUMENT);
  for (XgpuSemaphore s : {gate, a, b, c, d, ok}) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("submissions from 8 threads onto 2 queues") {
  Env env(1, 2);
  constexpr int kThreads = 8;
  constexpr uint64_t kPerThread = 250;
  std::vector<XgpuSemaphore> semaphores;
  for (int t = 0; t < kThreads; ++t) semaphores.push_back(env.semaphore(0));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 1; i <= kPerThread; ++i) {
        // Each thread's own chain, alternating queues: every link waits on
        // the previous one, which may still be pending on the other queue.
        if (submit_barrier(env.queue(uint32_t((t + i) % 2)), {semaphores[t]}, {i - 1}, {semaphores[t]}, {i}) !=
            XGPU_SUCCESS)
          failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  for (int t = 0; t < kThreads; ++t) CHECK(env.wait(semaphores[t], kPerThread) == XGPU_SUCCESS);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (XgpuSemaphore s : semaphores) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("objects destroyed in any allowed order leak nothing") {
  Env env(1, 2);
  std::vector<uint8_t> none;
  XgpuSemaphore s1 = env.semaphore(0), s2 = env.semaphore(0);
  XgpuBuffer b1 = env.buffer(100), b2 = env.buffer(5 << 20);
  CHECK(submit_barrier(env.queue(0), {}, {}, {s1}, {1}) == XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(1), {s1}, {1}, {s2}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(s2, 1) == XGPU_SUCCESS);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  // Buffers before semaphores, semaphores in reverse creation order; the
  // device, messenger and instance go in the Env destructor.
  api().DestroyBuffer(env.device(), b2, nullptr);
  api().DestroySemaphore(env.device(), s2, nullptr);
  api().DestroyBuffer(env.device(), b1, nullptr);
  api().DestroySemaphore(env.device(), s1, nullptr);
}

TEST_CASE("a device destroyed with work still pending on a failed chain does not hang") {
  Env env(1, 1);
  XgpuSemaphore gate = env.semaphore(0), out = env.semaphore(0);
  CHECK(submit_barrier(env.queue(0), {gate}, {1}, {out}, {1}) == XGPU_SUCCESS);
  CHECK(api().FailSemaphore(env.device(), gate, XGPU_ERROR_SEMAPHORE_FAILED) == XGPU_SUCCESS);
  CHECK(api().QueueWaitIdle(env.queue(0)) == XGPU_SUCCESS);
  CHECK(env.wait(out, 1) == XGPU_ERROR_SEMAPHORE_FAILED);
  api().DestroySemaphore(env.device(), gate, nullptr);
  api().DestroySemaphore(env.device(), out, nullptr);
}
