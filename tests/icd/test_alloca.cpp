// Memory pools and queue-ordered allocation: statistics and trim, allocas
// held by out-of-order waits, alloca -> use -> dealloca chains across two
// queues, a long alloca/fill/dealloca loop with flat peaks, exhaustion
// failing semaphores instead of hanging, destroying a pool with live
// allocations, binding-table slots holding alloca'd buffers. Also device
// loss through the driver's fault-injection test hook.
#include <atomic>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstring>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

constexpr XgpuBufferUsageFlags kAllocaUsage =
    XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;


// A (semaphore, value) list that keeps its storage.
struct List {
  std::vector<XgpuSemaphore> semaphores;
  std::vector<uint64_t> values;
  XgpuSemaphoreList list{0, nullptr, nullptr};
  List() = default;
  List(std::initializer_list<std::pair<XgpuSemaphore, uint64_t>> entries) {
    for (const auto& [semaphore, value] : entries) {
      semaphores.push_back(semaphore);
      values.push_back(value);
    }
    list = {uint32_t(semaphores.size()), semaphores.data(), values.data()};
  }
  List(const List&) = delete;
  const XgpuSemaphoreList* operator&() const { return &list; }
};

XgpuMemoryPool create_pool(Env& env, uint64_t block_size, uint64_t max_size = 0, uint64_t retain_size = 0) {
  XgpuMemoryPoolCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  int type = env.memory_type(XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  info.memoryTypeIndex = uint32_t(type >= 0 ? type : 0);
  info.blockSize = block_size;
  info.maxSize = max_size;
  info.retainSize = retain_size;
  XgpuMemoryPool pool = nullptr;
  REQUIRE(api().CreateMemoryPool(env.device(), &info, nullptr, &pool) == XGPU_SUCCESS);
  return pool;
}

XgpuMemoryPoolStatistics stats(Env& env, XgpuMemoryPool pool) {
  XgpuMemoryPoolStatistics s{};
  api().GetMemoryPoolStatistics(env.device(), pool, &s);
  return s;
}

XgpuBuffer alloca_buffer(XgpuQueue queue, const List& waits, const List& signals, XgpuMemoryPool pool, uint64_t size) {
  XgpuBuffer buffer = nullptr;
  REQUIRE(api().QueueAlloca(queue, &waits, &signals, pool, size, kAllocaUsage, &buffer) == XGPU_SUCCESS);
  REQUIRE(buffer);
  return buffer;
}

// Keeps a queue busy: a dispatch of icd_spin_until that runs until
// release() (so work behind it on that queue is issued but not complete).
struct Spinner {
  Env& env;
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  XgpuCommandBuffer cb = nullptr;
  XgpuBuffer gate = nullptr;
  uint32_t* gate_word = nullptr;
  explicit Spinner(Env& e) : env(e) {
    executable = env.test_executable();
    pipeline = env.pipeline(executable, "icd_spin_until", 1, 0, 1);
    gate = env.buffer(64);
    gate_word = static_cast<uint32_t*>(env.map(gate));
    __atomic_store_n(gate_word, 0u, __ATOMIC_RELEASE);
    cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    api().CmdBindPipeline(cb, pipeline);
    const XgpuBufferRef ref = xgpuBufferRefWhole(gate);
    api().CmdBindBuffers(cb, 0, 1, &ref);
    api().CmdDispatch(cb, 1, 1, 1);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  }
  void submit(XgpuQueue queue, std::vector<XgpuSemaphore> signals = {}, std::vector<uint64_t> values = {}) {
    REQUIRE(submit_barrier(queue, {}, {}, std::move(signals), std::move(values), cb) == XGPU_SUCCESS);
  }
  void release() { __atomic_store_n(gate_word, 1u, __ATOMIC_RELEASE); }
  ~Spinner() {
    release();
    api().DeviceWaitIdle(env.device());
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
    api().DestroyBuffer(env.device(), gate, nullptr);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
  }
};

}  // namespace

TEST_CASE("memory pool: creation rules, statistics, large allocations, trim") {
  Env env(1, 1);
  XgpuMemoryPoolCreateInfo bad{};
  bad.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  bad.memoryTypeIndex = 1000;
  XgpuMemoryPool pool = nullptr;
  CHECK(api().CreateMemoryPool(env.device(), &bad, nullptr, &pool) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.log.contains("memoryTypeIndex 1000 is not a memory type"));

  constexpr uint64_t kBlock = 1 << 20;
  pool = create_pool(env, kBlock, 0, /*retain_size=*/kBlock);
  XgpuMemoryPoolStatistics s = stats(env, pool);
  CHECK(s.reservedSize == 0);  // nothing reserved before the first alloca
  CHECK(s.blockCount == 0);

  XgpuSemaphore t = env.semaphore(0);
  XgpuBuffer small = alloca_buffer(env.queue(), {}, {{t, 1}}, pool, 1000);
  // Larger than a block: a block of its own.
  XgpuBuffer large = alloca_buffer(env.queue(), {}, {{t, 2}}, pool, 3 * kBlock);
  REQUIRE(env.wait(t, 2) == XGPU_SUCCESS);
  CHECK(api().GetBufferDeviceAddress(env.device(), small) % 256 == 0);
  CHECK(api().GetBufferDeviceAddress(env.device(), large) != 0);
  s = stats(env, pool);
  CHECK(s.reservedSize == 4 * kBlock);
  CHECK(s.blockCount == 2);
  CHECK(s.inUseSize == 1024 + 3 * kBlock);  // sizes include alignment padding
  CHECK(s.allocationCount == 2);

  REQUIRE(api().QueueDealloca(env.queue(), nullptr, nullptr, small) == XGPU_SUCCESS);
  List done{{t, 3}};
  REQUIRE(api().QueueDealloca(env.queue(), nullptr, &done, large) == XGPU_SUCCESS);
  REQUIRE(env.wait(t, 3) == XGPU_SUCCESS);
  s = stats(env, pool);
  CHECK(s.inUseSize == 0);
  CHECK(s.reservedSize == 4 * kBlock);  // released only by trim
  CHECK(s.peakInUseSize == 1024 + 3 * kBlock);
  CHECK(s.peakReservedSize == 4 * kBlock);
  // Trim keeps retainSize (1 block): the largest empty block goes first.
  api().TrimMemoryPool(env.device(), pool);
  s = stats(env, pool);
  CHECK(s.reservedSize == kBlock);
  CHECK(s.blockCount == 1);
  CHECK(s.peakReservedSize == 4 * kBlock);
  CHECK(s.allocationCount == 2);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  api().DestroySemaphore(env.device(), t, nullptr);
  CHECK_MESSAGE(!env.log.contains("xgpuDestroyMemoryPool"), env.log.all());
}

TEST_CASE("alloca held by a wait signalled later by the host; work after it on the queue holds too") {
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  XgpuMemoryPool pool = create_pool(env, 1 << 20);
  XgpuSemaphore gate = env.semaphore(0), t = env.semaphore(0);
  XgpuBuffer host = env.buffer(4096);
  std::memset(env.map(host), 0, 4096);
  XgpuBuffer scratch = alloca_buffer(env.queue(), {{gate, 1}}, {{t, 1}}, pool, 4096);
  const uint32_t pattern = 0x600DF00Du;
  List after_alloca{{t, 2}}, after_fill{{t, 3}}, after_copy{{t, 4}};
  REQUIRE(api().QueueFillBuffer(env.queue(), nullptr, &after_alloca, scratch, 0, 4096, &pattern, 4) == XGPU_SUCCESS);
  REQUIRE(api().QueueCopyBuffer(env.queue(), nullptr, &after_fill, scratch, 0, host, 0, 4096) == XGPU_SUCCESS);
  REQUIRE(api().QueueDealloca(env.queue(), nullptr, &after_copy, scratch) == XGPU_SUCCESS);
  CHECK(env.wait(t, 1, 30'000'000) == XGPU_TIMEOUT);
  CHECK(env.value(t) == 0);
  CHECK(api().GetBufferDeviceAddress(env.device(), scratch) == 0);  // not committed yet
  CHECK(stats(env, pool).allocationCount == 0);
  REQUIRE(env.signal(gate, 1) == XGPU_SUCCESS);
  INFO(env.log.all());
  REQUIRE(env.wait(t, 4) == XGPU_SUCCESS);
  auto* out = static_cast<uint32_t*>(env.map(host));
  bool all = true;
  for (uint32_t i = 0; i < 1024; ++i) all &= out[i] == pattern;
  CHECK(all);
  XgpuMemoryPoolStatistics s = stats(env, pool);
  CHECK(s.allocationCount == 1);
  CHECK(s.inUseSize == 0);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  api().DestroyBuffer(env.device(), host, nullptr);
  api().DestroySemaphore(env.device(), gate, nullptr);
  api().DestroySemaphore(env.device(), t, nullptr);
}

TEST_CASE("alloca -> fill -> copy -> dealloca chained across two queues; other queues reuse after completion") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  constexpr uint64_t kBlock = 1 << 20;
  constexpr uint64_t kSize = 64 << 10;
  XgpuMemoryPool pool = create_pool(env, kBlock);
  XgpuSemaphore t = env.semaphore(0);
  XgpuBuffer host = env.buffer(kSize);
  constexpr int kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    const uint64_t base = uint64_t(round) * 4;
    const uint32_t pattern = 0x1000u + uint32_t(round);
    std::memset(env.map(host), 0, kSize);
    // Alternate which queue allocates, so the range a dealloca returned on
    // one queue is taken by an alloca on the other.
    XgpuQueue qa = env.queue(uint32_t(round % 2)), qb = env.queue(uint32_t((round + 1) % 2));
    XgpuBuffer scratch = alloca_buffer(qa, {{t, base}}, {{t, base + 1}}, pool, kSize);
    List fill_wait{{t, base + 1}}, fill_signal{{t, base + 2}};
    REQUIRE(api().QueueFillBuffer(qb, &fill_wait, &fill_signal, scratch, 0, kSize, &pattern, 4) == XGPU_SUCCESS);
    List copy_wait{{t, base + 2}}, copy_signal{{t, base + 3}};
    REQUIRE(api().QueueCopyBuffer(qa, &copy_wait, &copy_signal, scratch, 0, host, 0, kSize) == XGPU_SUCCESS);
    List dealloca_wait{{t, base + 3}}, dealloca_signal{{t, base + 4}};
    REQUIRE(api().QueueDealloca(qb, &dealloca_wait, &dealloca_signal, scratch) == XGPU_SUCCESS);
    INFO("round " << round << "\n" << env.log.all());
    REQUIRE(env.wait(t, base + 4) == XGPU_SUCCESS);
    auto* out = static_cast<uint32_t*>(env.map(host));
    bool all = true;
    for (uint64_t i = 0; i < kSize / 4; ++i) all &= out[i] == pattern;
    CHECK_MESSAGE(all, "round " << round);
  }
  XgpuMemoryPoolStatistics s = stats(env, pool);
  CHECK(s.allocationCount == kRounds);
  CHECK(s.peakInUseSize == kSize);
  CHECK(s.peakReservedSize == kBlock);
  CHECK(s.blockCount == 1);
  CHECK(s.inUseSize == 0);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  api().DestroyBuffer(env.device(), host, nullptr);
  api().DestroySemaphore(env.device(), t, nullptr);
}

TEST_CASE("an alloca waiting for a dealloca on another queue reuses its memory: no growth, no failure") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  constexpr uint64_t kBlock = 64 << 10, kSize = 48 << 10;
  // With maxSize one block, growing would fail the alloca; without, it would
  // reserve a second block. Either way the alloca must wait for the memory.
  for (uint64_t max_size : {kBlock, uint64_t(0)}) {
    CAPTURE(max_size);
    XgpuMemoryPool pool = create_pool(env, kBlock, max_size);
    XgpuSemaphore t = env.semaphore(0), d = env.semaphore(0), u = env.semaphore(0);
    {
      Spinner spin(env);
      // Queue 0: alloca A, a dispatch that runs until released, dealloca A.
      XgpuBuffer a = alloca_buffer(env.queue(0), {}, {{t, 1}}, pool, kSize);
      spin.submit(env.queue(0));
      List dealloca_signal{{d, 1}};
      REQUIRE(api().QueueDealloca(env.queue(0), nullptr, &dealloca_signal, a) == XGPU_SUCCESS);
      // Queue 1: alloca B ordered after the dealloca (issued, not complete).
      XgpuBuffer b = alloca_buffer(env.queue(1), {{d, 1}}, {{u, 1}}, pool, kSize);
      CHECK(env.wait(u, 1, 20'000'000) == XGPU_TIMEOUT);
      spin.release();
      INFO(env.log.all());
      REQUIRE(env.wait(u, 1) == XGPU_SUCCESS);
      CHECK(api().GetBufferDeviceAddress(env.device(), b) != 0);
      const XgpuMemoryPoolStatistics s = stats(env, pool);
      CHECK(s.blockCount == 1);
      CHECK(s.reservedSize == kBlock);
      CHECK(s.peakReservedSize == kBlock);
      CHECK(s.peakInUseSize == kSize);
      CHECK(s.allocationCount == 2);
      List done{{u, 2}};
      REQUIRE(api().QueueDealloca(env.queue(1), nullptr, &done, b) == XGPU_SUCCESS);
      REQUIRE(env.wait(u, 2) == XGPU_SUCCESS);
    }
    CHECK(!env.log.contains("cannot allocate"));
    api().DestroyMemoryPool(env.device(), pool, nullptr);
    for (XgpuSemaphore sem : {t, d, u}) api().DestroySemaphore(env.device(), sem, nullptr);
  }
}

TEST_CASE("allocas on two queues whose waits are reached in the reverse of submission order") {
  Env env(1, 2);
  XgpuMemoryPool pool = create_pool(env, 1 << 20);
  XgpuSemaphore g0 = env.semaphore(0), g1 = env.semaphore(0), t0 = env.semaphore(0), t1 = env.semaphore(0);
  XgpuBuffer a = alloca_buffer(env.queue(0), {{g0, 1}}, {{t0, 1}}, pool, 4096);
  XgpuBuffer b = alloca_buffer(env.queue(1), {{g1, 1}}, {{t1, 1}}, pool, 4096);
  const uint32_t pattern_a = 0xA0A0A0A0u, pattern_b = 0xB1B1B1B1u;
  List fill_a{{t0, 2}}, fill_b{{t1, 2}};
  REQUIRE(api().QueueFillBuffer(env.queue(0), nullptr, &fill_a, a, 0, 4096, &pattern_a, 4) == XGPU_SUCCESS);
  REQUIRE(api().QueueFillBuffer(env.queue(1), nullptr, &fill_b, b, 0, 4096, &pattern_b, 4) == XGPU_SUCCESS);
  XgpuBuffer host = env.buffer(8192);
  List copy_a{{t0, 3}}, copy_b{{t1, 3}};
  REQUIRE(api().QueueCopyBuffer(env.queue(0), nullptr, &copy_a, a, 0, host, 0, 4096) == XGPU_SUCCESS);
  REQUIRE(api().QueueCopyBuffer(env.queue(1), nullptr, &copy_b, b, 0, host, 4096, 4096) == XGPU_SUCCESS);
  // Queue 1's wait is reached first: it runs while queue 0 is still held.
  REQUIRE(env.signal(g1, 1) == XGPU_SUCCESS);
  REQUIRE(env.wait(t1, 3) == XGPU_SUCCESS);
  CHECK(env.wait(t0, 1, 20'000'000) == XGPU_TIMEOUT);
  REQUIRE(env.signal(g0, 1) == XGPU_SUCCESS);
  REQUIRE(env.wait(t0, 3) == XGPU_SUCCESS);
  CHECK(api().GetBufferDeviceAddress(env.device(), a) != api().GetBufferDeviceAddress(env.device(), b));
  auto* words = static_cast<const uint32_t*>(env.map(host));
  bool all = true;
  for (uint32_t i = 0; i < 1024; ++i) all &= words[i] == pattern_a && words[1024 + i] == pattern_b;
  CHECK(all);
  List end_a{{t0, 4}}, end_b{{t1, 4}};
  REQUIRE(api().QueueDealloca(env.queue(0), nullptr, &end_a, a) == XGPU_SUCCESS);
  REQUIRE(api().QueueDealloca(env.queue(1), nullptr, &end_b, b) == XGPU_SUCCESS);
  REQUIRE(env.wait(t0, 4) == XGPU_SUCCESS);
  REQUIRE(env.wait(t1, 4) == XGPU_SUCCESS);
  CHECK(stats(env, pool).inUseSize == 0);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  api().DestroyBuffer(env.device(), host, nullptr);
  for (XgpuSemaphore sem : {g0, g1, t0, t1}) api().DestroySemaphore(env.device(), sem, nullptr);
}

TEST_CASE("10,000 alloca/fill/dealloca iterations on one queue without host waits keep the peaks flat") {
  Env env(1, 1);
  REQUIRE(have_command_buffers());
  constexpr uint64_t kBlock = 1 << 20;
  constexpr uint64_t kSize = 64 << 10;
  constexpr uint32_t kIterations = 10000;
  XgpuMemoryPool pool = create_pool(env, kBlock);
  XgpuSemaphore done = env.semaphore(0);
  XgpuBuffer host = env.buffer(kSize);
  std::memset(env.map(host), 0, kSize);
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < kIterations; ++i) {
    XgpuBuffer scratch = nullptr;
    REQUIRE(api().QueueAlloca(env.queue(), nullptr, nullptr, pool, kSize, kAllocaUsage, &scratch) == XGPU_SUCCESS);
    REQUIRE(api().QueueFillBuffer(env.queue(), nullptr, nullptr, scratch, 0, kSize, &i, 4) == XGPU_SUCCESS);
    if (i + 1 == kIterations)
      REQUIRE(api().QueueCopyBuffer(env.queue(), nullptr, nullptr, scratch, 0, host, 0, kSize) == XGPU_SUCCESS);
    List last{{done, 1}};
    REQUIRE(api().QueueDealloca(env.queue(), nullptr, i + 1 == kIterations ? &last : nullptr, scratch) ==
            XGPU_SUCCESS);
  }
  INFO(env.log.all());
  REQUIRE(env.wait(done, 1, 60'000'000'000ull) == XGPU_SUCCESS);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE(kIterations << " iterations in " << seconds << " s");  // speed is measured in bench/
  auto* out = static_cast<uint32_t*>(env.map(host));
  CHECK(out[0] == kIterations - 1);
  CHECK(out[kSize / 4 - 1] == kIterations - 1);
  XgpuMemoryPoolStatistics s = stats(env, pool);
  CHECK(s.allocationCount == kIterations);
  CHECK(s.peakInUseSize == kSize);
  CHECK(s.peakReservedSize == kBlock);
  CHECK(s.reservedSize == kBlock);
  CHECK(s.blockCount == 1);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  CHECK(stats(env, pool).inUseSize == 0);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  api().DestroyBuffer(env.device(), host, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
  CHECK_MESSAGE(!env.log.contains("xgpu"), env.log.all());
}

TEST_CASE("exhaustion: an alloca over maxSize fails its semaphores and its dependants, nothing hangs") {
  Env env(1, 2);
  constexpr uint64_t kMax = 64 << 10;
  XgpuMemoryPool pool = create_pool(env, 0, kMax);  // blockSize 0: one block of maxSize
  XgpuSemaphore a = env.semaphore(0), b = env.semaphore(0), c = env.semaphore(0), d = env.semaphore(0);
  XgpuBuffer first = alloca_buffer(env.queue(0), {}, {{a, 1}}, pool, 48 << 10);
  XgpuBuffer second = alloca_buffer(env.queue(0), {}, {{b, 1}}, pool, 48 << 10);
  // Work on the other queue that depends on the failed alloca fails too.
  CHECK(submit_barrier(env.queue(1), {b}, {1}, {c}, {1}) == XGPU_SUCCESS);
  CHECK(env.wait(a, 1) == XGPU_SUCCESS);
  CHECK(env.wait(b, 1) == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK(env.wait(c, 1) == XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
  CHECK_MESSAGE(env.log.contains("cannot allocate 49152 bytes"), env.log.all());
  CHECK(env.log.contains("maxSize 65536"));
  CHECK(api().GetBufferDeviceAddress(env.device(), second) == 0);
  XgpuMemoryPoolStatistics s = stats(env, pool);
  CHECK(s.reservedSize == kMax);
  CHECK(s.allocationCount == 1);
  // Both handles are deallocated (the failed one too); the memory comes back
  // and the next alloca fits.
  REQUIRE(api().QueueDealloca(env.queue(0), nullptr, nullptr, second) == XGPU_SUCCESS);
  List freed{{d, 1}};
  REQUIRE(api().QueueDealloca(env.queue(0), nullptr, &freed, first) == XGPU_SUCCESS);
  REQUIRE(env.wait(d, 1) == XGPU_SUCCESS);
  XgpuBuffer third = alloca_buffer(env.queue(1), {}, {{d, 2}}, pool, 48 << 10);
  CHECK(env.wait(d, 2) == XGPU_SUCCESS);
  List freed_again{{d, 3}};
  REQUIRE(api().QueueDealloca(env.queue(1), nullptr, &freed_again, third) == XGPU_SUCCESS);
  CHECK(env.wait(d, 3) == XGPU_SUCCESS);
  CHECK(stats(env, pool).peakReservedSize == kMax);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  for (XgpuSemaphore sem : {a, b, c, d}) api().DestroySemaphore(env.device(), sem, nullptr);
}

TEST_CASE("a dealloca whose wait failed still returns its memory and fails its signals") {
  Env env(1, 1);
  XgpuMemoryPool pool = create_pool(env, 64 << 10, 64 << 10);
  XgpuSemaphore t = env.semaphore(0), broken = env.semaphore(0);
  XgpuBuffer scratch = alloca_buffer(env.queue(), {}, {{t, 1}}, pool, 64 << 10);
  REQUIRE(env.wait(t, 1) == XGPU_SUCCESS);
  REQUIRE(api().FailSemaphore(env.device(), broken, XGPU_ERROR_UNKNOWN) == XGPU_SUCCESS);
  List wait{{broken, 1}}, signal{{t, 2}};
  REQUIRE(api().QueueDealloca(env.queue(), &wait, &signal, scratch) == XGPU_SUCCESS);
  CHECK(env.wait(t, 2) == XGPU_ERROR_UNKNOWN);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  CHECK(stats(env, pool).inUseSize == 0);
  // The whole pool is free again: a full-size alloca fits.
  XgpuSemaphore u = env.semaphore(0);
  XgpuBuffer again = alloca_buffer(env.queue(), {}, {{u, 1}}, pool, 64 << 10);
  CHECK(env.wait(u, 1) == XGPU_SUCCESS);
  List done{{u, 2}};
  REQUIRE(api().QueueDealloca(env.queue(), nullptr, &done, again) == XGPU_SUCCESS);
  CHECK(env.wait(u, 2) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  for (XgpuSemaphore sem : {t, broken, u}) api().DestroySemaphore(env.device(), sem, nullptr);
}

TEST_CASE("destroying a pool with a live allocation reports invalid usage and does not crash") {
  Env env(1, 1);
  XgpuMemoryPool pool = create_pool(env, 1 << 20);
  XgpuSemaphore t = env.semaphore(0);
  XgpuBuffer scratch = alloca_buffer(env.queue(), {}, {{t, 1}}, pool, 4096);
  REQUIRE(env.wait(t, 1) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  CHECK_MESSAGE(env.log.contains("still has 1 allocations whose dealloca has not completed"), env.log.all());
  CHECK(env.log.contains("4096 bytes committed"));
  // The handle must still be deallocated; that is harmless now.
  List done{{t, 2}};
  REQUIRE(api().QueueDealloca(env.queue(), nullptr, &done, scratch) == XGPU_SUCCESS);
  CHECK(env.wait(t, 2) == XGPU_SUCCESS);
  CHECK(api().QueueWaitIdle(env.queue()) == XGPU_SUCCESS);
  api().DestroySemaphore(env.device(), t, nullptr);
}

TEST_CASE("binding-table slot holding an alloca'd buffer, submitted before the alloca commits") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_saxpy", 2, 8, 64);

  constexpr uint32_t n = 1000;
  XgpuBuffer x = env.buffer(n * 4), host = env.buffer(n * 4);
  auto* xs = static_cast<float*>(env.map(x));
  for (uint32_t i = 0; i < n; ++i) xs[i] = float(i);

  // Recorded once, before any alloca exists: y is slot 1.
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_REUSABLE, 2);
  api().CmdBindPipeline(cb, pipeline);
  XgpuBufferRef refs[2] = {xgpuBufferRefSlot(0, 0, XGPU_WHOLE_SIZE), xgpuBufferRefSlot(1, 0, XGPU_WHOLE_SIZE)};
  api().CmdBindBuffers(cb, 0, 2, refs);
  struct { float a; uint32_t n; } constants = {2.0f, n};
  api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
  api().CmdDispatch(cb, (n + 63) / 64, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);

  XgpuMemoryPool pool = create_pool(env, 1 << 20);
  XgpuSemaphore gate = env.semaphore(0), t = env.semaphore(0);
  constexpr int kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    const uint64_t base = uint64_t(round) * 5;
    XgpuQueue q = env.queue(uint32_t(round % 2));
    // The alloca waits for the host, so the submissions below are accepted
    // (binding table validated) while the buffer has no address yet.
    XgpuBuffer y = alloca_buffer(q, {{gate, uint64_t(round) + 1}}, {{t, base + 1}}, pool, n * 4);
    const float one = float(round + 1);
    List fill_signal{{t, base + 2}};
    REQUIRE(api().QueueFillBuffer(q, nullptr, &fill_signal, y, 0, n * 4, &one, 4) == XGPU_SUCCESS);
    REQUIRE(submit_barrier(q, {}, {}, {t}, {base + 3}, cb, {{x, 0, XGPU_WHOLE_SIZE}, {y, 0, XGPU_WHOLE_SIZE}}) ==
            XGPU_SUCCESS);
    List copy_signal{{t, base + 4}};
    REQUIRE(api().QueueCopyBuffer(q, nullptr, &copy_signal, y, 0, host, 0, n * 4) == XGPU_SUCCESS);
    List dealloca_signal{{t, base + 5}};
    REQUIRE(api().QueueDealloca(q, nullptr, &dealloca_signal, y) == XGPU_SUCCESS);
    CHECK(env.wait(t, base + 1, 20'000'000) == XGPU_TIMEOUT);
    REQUIRE(env.signal(gate, uint64_t(round) + 1) == XGPU_SUCCESS);
    INFO("round " << round << "\n" << env.log.all());
    REQUIRE(env.wait(t, base + 5) == XGPU_SUCCESS);
    auto* out = static_cast<float*>(env.map(host));
    bool all = true;
    for (uint32_t i = 0; i < n; ++i) all &= out[i] == 2.0f * float(i) + one;
    CHECK_MESSAGE(all, "round " << round);
  }
  CHECK(stats(env, pool).peakInUseSize == uint64_t(4096) /* 4000 bytes aligned to 256 */);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  for (XgpuBuffer b : {x, host}) api().DestroyBuffer(env.device(), b, nullptr);
  for (XgpuSemaphore sem : {gate, t}) api().DestroySemaphore(env.device(), sem, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("a failed issue fails only its submission: work running on its queue and the device carry on") {
  Env env(1, 2);
  REQUIRE(have_command_buffers());
  XgpuMemoryPool pool = create_pool(env, 1 << 20);
  XgpuSemaphore gate = env.semaphore(0), spun = env.semaphore(0), filled = env.semaphore(0),
                freed = env.semaphore(0);
  {
    Spinner spin(env);
    spin.submit(env.queue(1), {spun}, {1});
    // Queue 0: an alloca held by a gate nobody signals yet.
    XgpuBuffer scratch = alloca_buffer(env.queue(0), {{gate, 1}}, {}, pool, 4096);
    // Queue 1: a fill of that buffer, not ordered after its alloca (invalid
    // usage found only at issue): that submission fails, nothing else.
    const uint32_t pattern = 7;
    uint64_t one = 1;
    XgpuSemaphoreList filled_list{1, &filled, &one};
    REQUIRE(api().QueueFillBuffer(env.queue(1), nullptr, &filled_list, scratch, 0, 4096, &pattern, 4) ==
            XGPU_SUCCESS);
    CHECK(env.log.contains("xgpuQueueSubmit: issuing the command buffer failed"));
    CHECK_FALSE(env.log.contains("device lost"));
    CHECK(env.log.text_of_id("XGPU-VUID-xgpuQueueSubmit-pSubmits-queueAllocated").find("has not committed") !=
          std::string::npos);
    // The spinner still runs on queue 1 and completes normally.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    uint64_t value = 0;
    CHECK(api().GetSemaphoreValue(env.device(), spun, &value) == XGPU_SUCCESS);
    CHECK(value == 0);
    spin.release();
    CHECK(env.wait(spun, 1) == XGPU_SUCCESS);
    CHECK(env.wait(filled, 1) == XGPU_ERROR_INVALID_USAGE);
    // The alloca commits once its gate opens; its dealloca completes.
    REQUIRE(env.signal(gate, 1) == XGPU_SUCCESS);
    XgpuSemaphoreList freed_list{1, &freed, &one};
    CHECK(api().QueueDealloca(env.queue(0), nullptr, &freed_list, scratch) == XGPU_SUCCESS);
    CHECK(env.wait(freed, 1) == XGPU_SUCCESS);
    CHECK(api().DeviceWaitIdle(env.device()) == XGPU_SUCCESS);
  }
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  for (XgpuSemaphore sem : {gate, spun, filled, freed}) api().DestroySemaphore(env.device(), sem, nullptr);
}

TEST_CASE("device lost: a packet the queue rejects fails pending and in-flight work; later calls return DEVICE_LOST") {
  setenv("XGPU_AMDGPU_TEST_HOOKS", "1", 1);
  Env env(1, 2);
  using InjectFault = XgpuResult (*)(XgpuQueue, const XgpuSemaphoreList*);
  auto inject = reinterpret_cast<InjectFault>(api().GetDeviceProcAddr(env.device(), "xgpuAmdgpuTestInjectQueueFault"));
  REQUIRE((inject != nullptr));
  XgpuMemoryPool pool = create_pool(env, 1 << 20);
  XgpuSemaphore gate = env.semaphore(0), held = env.semaphore(0), fault = env.semaphore(0), after = env.semaphore(0);
  // Held on the host (waits for a gate nobody signals).
  CHECK(submit_barrier(env.queue(1), {gate}, {1}, {held}, {1}) == XGPU_SUCCESS);
  XgpuBuffer scratch = alloca_buffer(env.queue(1), {}, {{held, 2}}, pool, 4096);
  // Queue 0: held until `release`, then the rejected packet, then work behind it.
  XgpuSemaphore release = env.semaphore(0);
  CHECK(submit_barrier(env.queue(0), {release}, {1}, {}, {}) == XGPU_SUCCESS);
  List fault_signal{{fault, 1}};
  REQUIRE(inject(env.queue(0), &fault_signal) == XGPU_SUCCESS);
  CHECK(submit_barrier(env.queue(0), {}, {}, {after}, {1}) == XGPU_SUCCESS);
  CHECK(env.signal(release, 1) == XGPU_SUCCESS);
  CHECK(env.wait(fault, 1) == XGPU_ERROR_DEVICE_LOST);
  CHECK(env.wait(after, 1) == XGPU_ERROR_DEVICE_LOST);
  CHECK(env.wait(held, 1) == XGPU_ERROR_DEVICE_LOST);
  CHECK(env.log.contains("device lost"));
  CHECK(env.log.contains("HSA queue 0 reported"));
  CHECK(submit_barrier(env.queue(0), {}, {}, {}, {}) == XGPU_ERROR_DEVICE_LOST);
  XgpuBuffer other = nullptr;
  CHECK(api().QueueAlloca(env.queue(1), nullptr, nullptr, pool, 4096, kAllocaUsage, &other) == XGPU_ERROR_DEVICE_LOST);
  CHECK(api().QueueDealloca(env.queue(1), nullptr, nullptr, scratch) == XGPU_ERROR_DEVICE_LOST);
  CHECK(api().DeviceWaitIdle(env.device()) == XGPU_ERROR_DEVICE_LOST);
  // Semaphores: signal and fail are refused; a query reports a semaphore's
  // own failure, or the loss for one that never failed.
  XgpuSemaphoreCreateInfo semaphore_info{};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore unrelated = nullptr;
  CHECK(api().CreateSemaphore(env.device(), &semaphore_info, nullptr, &unrelated) == XGPU_ERROR_DEVICE_LOST);
  CHECK(env.signal(release, 2) == XGPU_ERROR_DEVICE_LOST);
  CHECK(api().FailSemaphore(env.device(), release, XGPU_ERROR_UNKNOWN) == XGPU_ERROR_DEVICE_LOST);
  XgpuResult query = XGPU_SUCCESS;
  CHECK(env.value(release, &query) == 1);
  CHECK(query == XGPU_ERROR_DEVICE_LOST);
  CHECK(env.value(fault, &query) == 0);
  CHECK(query == XGPU_ERROR_DEVICE_LOST);
  // The alloca never ran; the pool goes with its handle reported live.
  api().DestroyMemoryPool(env.device(), pool, nullptr);
  for (XgpuSemaphore sem : {gate, held, fault, after, release}) api().DestroySemaphore(env.device(), sem, nullptr);
  unsetenv("XGPU_AMDGPU_TEST_HOOKS");
}
