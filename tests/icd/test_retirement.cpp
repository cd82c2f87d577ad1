// Who retires a submission: an empty submission with nothing ahead of it is
// done on the submitting thread; a host thread waiting for a payload that an
// issued submission signals retires that submission itself, racing the
// completion handler. Queue order, failures and timeouts hold on every path.
// And a submission held on the host is released onto the device as soon as
// another queue's issued submission announces what it waits for.
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

// Keeps a queue busy: a dispatch of icd_spin_until that runs until release().
struct Spinner {
  Env& env;
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  XgpuBuffer gate = nullptr;
  uint32_t* gate_word = nullptr;
  std::vector<XgpuCommandBuffer> cbs;
  explicit Spinner(Env& e) : env(e) {
    executable = env.test_executable();
    pipeline = env.pipeline(executable, "icd_spin_until", 1, 0, 1);
    gate = env.buffer(64);
    gate_word = static_cast<uint32_t*>(env.map(gate));
    __atomic_store_n(gate_word, 0u, __ATOMIC_RELEASE);
  }
  // Submits one spinning dispatch to `queue` signalling `signals`.
  void submit(XgpuQueue queue, std::vector<XgpuSemaphore> signals, std::vector<uint64_t> values) {
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    api().CmdBindPipeline(cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(gate);
    api().CmdBindBuffers(cb, 0, 1, &ref);
    api().CmdDispatch(cb, 1, 1, 1);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
    cbs.push_back(cb);
    REQUIRE(submit_barrier(queue, {}, {}, std::move(signals), std::move(values), cb) == XGPU_SUCCESS);
  }
  void release() { __atomic_store_n(gate_word, 1u, __ATOMIC_RELEASE); }
  ~Spinner() {
    release();
    api().DeviceWaitIdle(env.device());
    for (XgpuCommandBuffer cb : cbs) api().DestroyCommandBuffer(env.device(), cb, nullptr);
    api().DestroyBuffer(env.device(), gate, nullptr);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
  }
};

}  // namespace

TEST_CASE("an empty submission with its waits reached and nothing ahead signals before xgpuQueueSubmit returns") {
  Env env(1, 2);
  XgpuSemaphore done = env.semaphore(0), gate = env.semaphore(5);
  // No waits: its payload is set by the time the call returns (no queue
  // round trip, nothing to wait for).
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}) == XGPU_SUCCESS);
  CHECK(env.value(done) == 1);
  // Waits already reached on the host.
  REQUIRE(submit_barrier(env.queue(0), {gate}, {5}, {done}, {2}) == XGPU_SUCCESS);
  CHECK(env.value(done) == 2);
  // A batch of several, in order, each signalling two semaphores.
  XgpuSemaphore other = env.semaphore(0);
  std::vector<XgpuSemaphore> both = {done, other};
  std::vector<uint64_t> values[3] = {{3, 1}, {4, 2}, {5, 3}};
  XgpuSubmitInfo submits[3]{};
  for (int i = 0; i < 3; ++i) {
    submits[i].sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submits[i].signalSemaphores = {2, both.data(), values[i].data()};
  }
  REQUIRE(api().QueueSubmit(env.queue(1), 3, submits) == XGPU_SUCCESS);
  CHECK(env.value(done) == 5);
  CHECK(env.value(other) == 3);
  CHECK(env.wait(done, 5, 0) == XGPU_SUCCESS);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (XgpuSemaphore s : {done, gate, other}) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("an empty submission behind work in flight on its queue signals after that work, not before") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuSemaphore first = env.semaphore(0), done = env.semaphore(0), elsewhere = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.submit(env.queue(0), {first}, {1});
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}) == XGPU_SUCCESS);
    // Queue order: the dispatch ahead still runs, so nothing is signalled.
    CHECK(env.wait(done, 1, 20'000'000) == XGPU_TIMEOUT);
    CHECK(env.value(first) == 0);
    CHECK(env.value(done) == 0);
    // Another queue has nothing ahead: its empty submission is done at once.
    REQUIRE(submit_barrier(env.queue(1), {}, {}, {elsewhere}, {1}) == XGPU_SUCCESS);
    CHECK(env.value(elsewhere) == 1);
    spinner.release();
    REQUIRE(env.wait(done, 1) == XGPU_SUCCESS);
    // Signalled in queue order: the dispatch's payload is there too.
    CHECK(env.value(first) == 1);
  }
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (XgpuSemaphore s : {first, done, elsewhere}) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("an empty submission whose wait is not reached is held, and so is what follows it on its queue") {
  Env env(1, 1);
  XgpuSemaphore gate = env.semaphore(0), done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {gate}, {2}, {done}, {1}) == XGPU_SUCCESS);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {2}) == XGPU_SUCCESS);  // nothing to wait for, but behind
  CHECK(env.value(done) == 0);
  CHECK(env.signal(gate, 1) == XGPU_SUCCESS);  // not enough
  CHECK(env.wait(done, 1, 10'000'000) == XGPU_TIMEOUT);
  CHECK(env.signal(gate, 2) == XGPU_SUCCESS);
  // Released by the host signal, both on the signalling thread, in order.
  CHECK(env.value(done) == 2);
  // A failed wait fails the held submission's signals (and the one behind).
  XgpuSemaphore failing = env.semaphore(0), after = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {failing}, {1}, {after}, {1}) == XGPU_SUCCESS);
  REQUIRE(api().FailSemaphore(env.device(), failing, XGPU_ERROR_OUT_OF_DEVICE_MEMORY) == XGPU_SUCCESS);
  CHECK(env.wait(after, 1) == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (XgpuSemaphore s : {gate, done, failing, after}) api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("a host waiter on an issued submission times out, and returns a host failure at once") {
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.submit(env.queue(0), {s}, {1});
    // The waiter waits on the submission's completion signal: a timeout
    // still ends it.
    const auto start = std::chrono::steady_clock::now();
    CHECK(env.wait(s, 1, 30'000'000) == XGPU_TIMEOUT);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(25));
    // A failure of the semaphore (xgpuFailSemaphore) while the submission
    // still runs ends the wait with that status, not the submission's end.
    std::atomic<XgpuResult> result{XGPU_SUCCESS};
    std::thread waiter([&] { result = env.wait(s, 1); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    REQUIRE(api().FailSemaphore(env.device(), s, XGPU_ERROR_OUT_OF_DEVICE_MEMORY) == XGPU_SUCCESS);
    waiter.join();
    CHECK(result.load() == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
    CHECK(__atomic_load_n(spinner.gate_word, __ATOMIC_ACQUIRE) == 0u);  // the dispatch was still running
  }
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("host waiters retiring submissions race the completion handler: every payload and result is right") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_increment", 1, 8, ICD_TEST_INCREMENT_WORKGROUP);
  constexpr uint32_t kThreads = 4;   // two per queue
  constexpr uint64_t kRounds = 300;  // one-dispatch submissions per thread
  struct Lane {
    XgpuBuffer counters = nullptr;
    uint32_t* mapped = nullptr;
    XgpuCommandBuffer cb = nullptr;
    XgpuSemaphore semaphore = nullptr;
    uint64_t wrong = 0;  // rounds whose counter or wait result was wrong
  };
  std::vector<Lane> lanes(kThreads);
  for (Lane& lane : lanes) {
    lane.counters = env.buffer(ICD_TEST_INCREMENT_WORKGROUP * 4);
    lane.mapped = static_cast<uint32_t*>(env.map(lane.counters));
    std::memset(lane.mapped, 0, ICD_TEST_INCREMENT_WORKGROUP * 4);
    lane.cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE);
    api().CmdBindPipeline(lane.cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(lane.counters);
    api().CmdBindBuffers(lane.cb, 0, 1, &ref);
    const uint32_t constants[2] = {ICD_TEST_INCREMENT_WORKGROUP, 0};
    api().CmdPushConstants(lane.cb, 0, sizeof(constants), constants);
    api().CmdDispatch(lane.cb, 1, 1, 1);
    REQUIRE(api().EndCommandBuffer(lane.cb) == XGPU_SUCCESS);
    lane.semaphore = env.semaphore(0);
  }
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Lane& lane = lanes[t];
      for (uint64_t k = 1; k <= kRounds; ++k) {
        if (submit_barrier(env.queue(t % 2), {}, {}, {lane.semaphore}, {k}, lane.cb) != XGPU_SUCCESS) {
          ++lane.wrong;
          continue;
        }
        // Every third round nobody waits right away: the handler retires
        // it (the next wait may then find it retired already).
        if (k % 3 == 0 && k != kRounds) continue;
        if (env.wait(lane.semaphore, k) != XGPU_SUCCESS) ++lane.wrong;
        // The dispatch ran before its payload was set.
        if (__atomic_load_n(&lane.mapped[0], __ATOMIC_ACQUIRE) != uint32_t(k)) ++lane.wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (Lane& lane : lanes) {
    CHECK(lane.wrong == 0);
    CHECK(env.value(lane.semaphore) == kRounds);
    CHECK(lane.mapped[ICD_TEST_INCREMENT_WORKGROUP - 1] == kRounds);
  }
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  for (Lane& lane : lanes) {
    api().DestroyCommandBuffer(env.device(), lane.cb, nullptr);
    api().DestroySemaphore(env.device(), lane.semaphore, nullptr);
    api().DestroyBuffer(env.device(), lane.counters, nullptr);
  }
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
  CHECK(env.log.all().empty());
}

TEST_CASE("a device destroyed right after a host waiter retired its last submission frees everything") {
  // The completion handler of that submission may still be on its way when
  // the device goes: destroying the device waits for it (ctest fails this
  // suite on hsa-cpu's "still live" report of a leaked signal or queue).
  for (int round = 0; round < 20; ++round) {
    Env env(1, 1);
    REQUIRE(have_command_buffers());  // the driver's table is loaded with the first Env
    XgpuExecutable executable = env.test_executable();
    XgpuPipeline pipeline = env.pipeline(executable, "icd_increment", 1, 8, ICD_TEST_INCREMENT_WORKGROUP);
    XgpuBuffer counters = env.buffer(ICD_TEST_INCREMENT_WORKGROUP * 4);
    auto* mapped = static_cast<uint32_t*>(env.map(counters));
    std::memset(mapped, 0, ICD_TEST_INCREMENT_WORKGROUP * 4);
    XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    api().CmdBindPipeline(cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(counters);
    api().CmdBindBuffers(cb, 0, 1, &ref);
    const uint32_t constants[2] = {ICD_TEST_INCREMENT_WORKGROUP, 0};
    api().CmdPushConstants(cb, 0, sizeof(constants), constants);
    api().CmdDispatch(cb, 1, 1, 1);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
    XgpuSemaphore s = env.semaphore(0);
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {s}, {1}, cb) == XGPU_SUCCESS);
    REQUIRE(env.wait(s, 1) == XGPU_SUCCESS);
    CHECK(mapped[0] == 1u);
    api().DestroySemaphore(env.device(), s, nullptr);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
    api().DestroyBuffer(env.device(), counters, nullptr);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
    // ~Env destroys the device now.
  }
}

TEST_CASE("a submission held for a payload is issued as soon as another queue issues its signaller") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0), t = env.semaphore(0);
  {
    Spinner spinner(env);
    // Nothing signals s yet: held on the host.
    REQUIRE(submit_barrier(env.queue(1), {s}, {1}, {t}, {1}) == XGPU_SUCCESS);
    // Queue 0's submission will signal s: the held one is issued now, with
    // a device-side wait for it (not when queue 0's work is retired).
    spinner.submit(env.queue(0), {s}, {1});
    CHECK(env.wait(t, 1, 20'000'000) == XGPU_TIMEOUT);  // queue 0 still runs
    // Issued work is not recalled: failing s now no longer reaches the
    // submission on queue 1 (a held one would fail t with this status).
    REQUIRE(api().FailSemaphore(env.device(), s, XGPU_ERROR_OUT_OF_DEVICE_MEMORY) == XGPU_SUCCESS);
    spinner.release();
    CHECK(env.wait(t, 1) == XGPU_SUCCESS);
    CHECK(env.value(t) == 1);
  }
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), s, nullptr);
  api().DestroySemaphore(env.device(), t, nullptr);
}

// (ctest icd.runtime.cross_queue_wait_on_device runs this with
// XGPU_PACKET_LOG=1 and expects the cross-queue barrier packet.)
TEST_CASE("chain across two queues with a dispatch: queue 1 waits on the device for queue 0's issued signaller") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuSemaphore mid = env.semaphore(0), end = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.submit(env.queue(0), {mid}, {1});
    // Its signaller is issued on queue 0: an empty submission waiting for
    // it is issued on queue 1 with a barrier packet on that signaller's
    // completion signal (not completed on the host: its wait is not reached).
    REQUIRE(submit_barrier(env.queue(1), {mid}, {1}, {end}, {1}) == XGPU_SUCCESS);
    CHECK(env.wait(end, 1, 20'000'000) == XGPU_TIMEOUT);
    CHECK(env.value(end) == 0);
    spinner.release();
    CHECK(env.wait(end, 1) == XGPU_SUCCESS);
    CHECK(env.value(mid) == 1);
  }
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), mid, nullptr);
  api().DestroySemaphore(env.device(), end, nullptr);
}

// Completion handlers are registered on demand: a submission whose payload a
// host thread waits for is retired by that thread, and nothing else is woken
// for it. Every other way of learning of a completion must still work without
// any host waiter on the signaller's completion signal, and without the
// watchdog's periodic safety net (off in these cases: each would otherwise
// finish at its next tick, a second later, instead of hanging).
namespace {

struct NoWatchdog {
  NoWatchdog() { setenv("XGPU_AMDGPU_WATCHDOG_MS", "0", 1); }
  ~NoWatchdog() { unsetenv("XGPU_AMDGPU_WATCHDOG_MS"); }
};

// xgpuWaitSemaphores with XGPU_SEMAPHORE_WAIT_ANY_BIT on two payloads.
XgpuResult wait_any(Env& env, XgpuSemaphore a, uint64_t a_value, XgpuSemaphore b, uint64_t b_value) {
  XgpuSemaphore semaphores[2] = {a, b};
  uint64_t values[2] = {a_value, b_value};
  XgpuSemaphoreWaitInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.flags = XGPU_SEMAPHORE_WAIT_ANY_BIT;
  info.semaphoreCount = 2;
  info.pSemaphores = semaphores;
  info.pValues = values;
  return api().WaitSemaphores(env.device(), &info, 5'000'000'000ull);
}

// Polls xgpuGetSemaphoreCounterValue until `value` or `ms` milliseconds pass.
bool value_within(Env& env, XgpuSemaphore s, uint64_t value, int ms, uint32_t d = 0) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < deadline) {
    XgpuResult result = XGPU_SUCCESS;
    if (env.value(s, &result, d) >= value) return result == XGPU_SUCCESS;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace

TEST_CASE("on-demand completion handlers: a payload nobody waits for is seen by xgpuGetSemaphoreCounterValue") {
  NoWatchdog no_watchdog;
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.submit(env.queue(0), {s}, {1});
    CHECK(env.value(s) == 0);  // still running
    spinner.release();
    CHECK(value_within(env, s, 1, 5000));
  }
  api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("on-demand completion handlers: xgpuQueueWaitIdle retires work nobody waits for") {
  NoWatchdog no_watchdog;
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.submit(env.queue(0), {s}, {1});
    spinner.submit(env.queue(0), {s}, {2});
    std::thread releaser([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      spinner.release();
    });
    CHECK(api().QueueWaitIdle(env.queue(0)) == XGPU_SUCCESS);
    releaser.join();
    // Idle means retired: the payload is set, read without retiring here.
    XgpuResult result = XGPU_ERROR_UNKNOWN;
    CHECK(env.value(s, &result) == 2);
    CHECK(result == XGPU_SUCCESS);
  }
  api().DestroySemaphore(env.device(), s, nullptr);
}

TEST_CASE("on-demand completion handlers: a host waiter waiting before the signaller is submitted wakes") {
  NoWatchdog no_watchdog;
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0), t = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.release();  // its dispatches end at once
    // One thread waits for one payload, another for either of two, each
    // before anything that signals them exists: they wait on the payloads'
    // mirrors, which only retirement advances.
    std::atomic<XgpuResult> one{XGPU_ERROR_UNKNOWN}, any{XGPU_ERROR_UNKNOWN};
    std::thread waiter([&] { one = env.wait(s, 1, 5'000'000'000ull); });
    std::thread any_waiter([&] { any = wait_any(env, s, 5, t, 1); });
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    spinner.submit(env.queue(0), {s}, {1});
    spinner.submit(env.queue(0), {t}, {1});
    waiter.join();
    any_waiter.join();
    CHECK(one.load() == XGPU_SUCCESS);
    CHECK(any.load() == XGPU_SUCCESS);
  }
  api().DestroySemaphore(env.device(), s, nullptr);
  api().DestroySemaphore(env.device(), t, nullptr);
}

TEST_CASE("on-demand completion handlers: a wait-any on signallers issued before it returns") {
  NoWatchdog no_watchdog;
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0), t = env.semaphore(0);
  {
    Spinner spinner(env);
    spinner.submit(env.queue(0), {s}, {1});
    spinner.submit(env.queue(0), {t}, {1});
    spinner.release();
    CHECK(wait_any(env, s, 1, t, 1) == XGPU_SUCCESS);
  }
  api().DestroySemaphore(env.device(), s, nullptr);
  api().DestroySemaphore(env.device(), t, nullptr);
}

TEST_CASE("on-demand completion handlers: work held on another device for an issued signaller runs after it") {
  if (!have_devices(2)) return;
  NoWatchdog no_watchdog;
  Env env(2, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0), t = env.semaphore(0, 1);
  {
    Spinner spinner(env);
    // Issued on device 0 first, then device 1 holds for it; nobody waits
    // for s on the host.
    spinner.submit(env.queue(0), {s}, {1});
    REQUIRE(submit_barrier(env.queue(0, 1), {s}, {1}, {t}, {1}) == XGPU_SUCCESS);
    CHECK(env.wait(t, 1, 20'000'000, 1) == XGPU_TIMEOUT);
    spinner.release();
    CHECK(env.wait(t, 1, 5'000'000'000ull, 1) == XGPU_SUCCESS);
  }
  api().DestroySemaphore(env.device(), s, nullptr);
  api().DestroySemaphore(env.device(1), t, nullptr);
}

TEST_CASE("on-demand completion handlers: work held on another device before its signaller exists runs after it") {
  if (!have_devices(2)) return;
  NoWatchdog no_watchdog;
  Env env(2, 1);
  REQUIRE(have_command_buffers());
  XgpuSemaphore s = env.semaphore(0), t = env.semaphore(0, 1);
  {
    Spinner spinner(env);
    // Held first (nothing signals s), then its signaller is issued on
    // device 0; nobody waits for s on the host.
    REQUIRE(submit_barrier(env.queue(0, 1), {s}, {1}, {t}, {1}) == XGPU_SUCCESS);
    spinner.submit(env.queue(0), {s}, {1});
    spinner.release();
    CHECK(env.wait(t, 1, 5'000'000'000ull, 1) == XGPU_SUCCESS);
  }
  api().DestroySemaphore(env.device(), s, nullptr);
  api().DestroySemaphore(env.device(1), t, nullptr);
}

TEST_CASE("on-demand completion handlers: the watchdog does not take completed, unretired work for a hang") {
  setenv("XGPU_AMDGPU_WATCHDOG_MS", "40", 1);
  {
    Env env(1, 1);
    REQUIRE(have_command_buffers());
    XgpuSemaphore s = env.semaphore(0);
    {
      Spinner spinner(env);
      spinner.release();
      spinner.submit(env.queue(0), {s}, {1});
      // Several watchdog periods with the submission done and nobody
      // looking: its first tick registers the completion handler, which
      // retires it.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      XgpuResult result = XGPU_ERROR_UNKNOWN;
      CHECK(env.value(s, &result) == 1);
      CHECK(result == XGPU_SUCCESS);
    }
    CHECK(env.log.all().empty());
    api().DestroySemaphore(env.device(), s, nullptr);
  }
  unsetenv("XGPU_AMDGPU_WATCHDOG_MS");
}
