// Stress, as ROCR's rocrtst does, bounded to seconds: many threads on one
// queue's write index with the packet processor consuming, signals created,
// waited on, stored to and destroyed concurrently, concurrent allocation in
// every pool and allocation at the pools' limits. The same cases run in the
// default, ASan and TSan builds (ctest label `stress`); under a sanitizer
// the counts are smaller (the instrumented runtime is 5-20x slower), the
// checks the same.
#include <algorithm>
#include <mutex>
#include <random>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define HSA_STRESS_SANITIZED 1
#endif
#endif
#if defined(HSA_STRESS_SANITIZED)
constexpr uint32_t kScale = 4;  // counts divided by this under a sanitizer
#else
constexpr uint32_t kScale = 1;
#endif

// Every pool of `agent` (group included).
std::vector<hsa_amd_memory_pool_t> all_pools(hsa_agent_t agent) {
  std::vector<hsa_amd_memory_pool_t> pools;
  REQUIRE(hsa_amd_agent_iterate_memory_pools(
              agent,
              [](hsa_amd_memory_pool_t pool, void* data) {
                static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(pool);
                return HSA_STATUS_SUCCESS;
              },
              &pools) == HSA_STATUS_SUCCESS);
  return pools;
}

template <typename T>
T pool_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute) {
  T value{};
  REQUIRE(hsa_amd_memory_pool_get_info(pool, attribute, &value) == HSA_STATUS_SUCCESS);
  return value;
}

}  // namespace

TEST_SUITE("stress") {

TEST_CASE("queue write index: producers racing with add and cas lose and duplicate no packet") {
  Runtime rt;
  // 2^20 packets (2^18 under a sanitizer) from 8 producers on one queue;
  // the processor consumes them as they are published. Each packet is a
  // barrier-AND without dependencies whose completion signal is one of 64
  // counters, each starting at the number of packets that name it: a lost
  // packet leaves its counter above 0, a duplicated one drives it below.
  constexpr uint32_t kProducers = 8;
  constexpr uint32_t kCounters = 64;
  const uint64_t total = (uint64_t(1) << 20) / kScale;
  Queue queue(rt.agent, 4096);
  hsa_queue_t* q = queue.queue;
  hsa_signal_t counters[kCounters];
  for (uint32_t c = 0; c < kCounters; ++c) counters[c] = make_signal(hsa_signal_value_t(total / kCounters));

  using Add = uint64_t (*)(const hsa_queue_t*, uint64_t);
  using Cas = uint64_t (*)(const hsa_queue_t*, uint64_t, uint64_t);
  const Add adds[] = {hsa_queue_add_write_index_scacq_screl, hsa_queue_add_write_index_relaxed,
                      hsa_queue_add_write_index_acquire, hsa_queue_add_write_index_release};
  const Cas cases[] = {hsa_queue_cas_write_index_scacq_screl, hsa_queue_cas_write_index_relaxed,
                       hsa_queue_cas_write_index_acquire, hsa_queue_cas_write_index_release};
  std::atomic<uint64_t> reserved{0};       // packets reserved so far (all producers)
  std::atomic<uint64_t> cas_retries{0};    // cas attempts that lost a race
  std::atomic<uint32_t> overrun{0};        // a reservation beyond `total`
  auto produce = [&](uint32_t t) {
    const bool use_cas = t % 2 == 1;
    uint64_t local = 0;
    for (;;) {
      // Claim the right to one more packet first, so exactly `total` are written.
      if (reserved.fetch_add(1, std::memory_order_relaxed) >= total) break;
      uint64_t index;
      if (use_cas) {
        const Cas cas = cases[(local + t) % 4];
        index = hsa_queue_load_write_index_relaxed(q);
        for (;;) {
          const uint64_t seen = cas(q, index, index + 1);
          if (seen == index) break;
          cas_retries.fetch_add(1, std::memory_order_relaxed);
          index = seen;
        }
      } else {
        index = adds[(local + t) % 4](q, 1);
      }
      if (index >= total) overrun.fetch_add(1);
      // Wait for the slot: the processor hands it back by advancing the read index.
      while (index - hsa_queue_load_read_index_scacquire(q) >= q->size) std::this_thread::yield();
      auto* p = slot<hsa_barrier_and_packet_t>(q, index);
      p->reserved0 = 0;
      p->reserved1 = 0;
      for (hsa_signal_t& dep : p->dep_signal) dep.handle = 0;
      p->reserved2 = 0;
      p->completion_signal = counters[index % kCounters];
      publish(q, index, header(HSA_PACKET_TYPE_BARRIER_AND));
      ++local;
    }
  };
  std::vector<std::thread> producers;
  for (uint32_t t = 0; t < kProducers; ++t) producers.emplace_back(produce, t);
  for (auto& t : producers) t.join();
  CHECK(overrun.load() == 0);
  CHECK(hsa_queue_load_write_index_scacquire(q) == total);
  for (uint32_t c = 0; c < kCounters; ++c) {
    CAPTURE(c);
    CHECK(wait_eq(counters[c], 0));
  }
  // Everything consumed, nothing more: the read index stops at the write
  // index and no counter moves past 0.
  for (int i = 0; i < 10000 && hsa_queue_load_read_index_scacquire(q) != total; ++i)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  CHECK(hsa_queue_load_read_index_scacquire(q) == total);
  for (uint32_t c = 0; c < kCounters; ++c) CHECK(hsa_signal_load_relaxed(counters[c]) == 0);
  CHECK(queue.errors.load() == 0);
  MESSAGE("packets: " << total << ", cas retries: " << cas_retries.load());
  for (hsa_signal_t s : counters) CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
}

TEST_CASE("signal churn: create, wait, store and destroy concurrently; nothing left at hsa_shut_down") {
  // HSA_CPU_LOG before hsa_init: the last hsa_shut_down reports what is
  // left alive (the leak check), which must be nothing.
  ScopedEnv log("HSA_CPU_LOG", "1");
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  // 2^17 signals (2^15 under a sanitizer) in pairs of threads: the
  // producer creates a signal and hands it over, the consumer starts a
  // wait (blocked or active hint, a plain wait or wait_any with a second
  // signal) while the producer's store races it, then destroys it the
  // moment its wait returns, while the store's notification may still be
  // in flight. Some signals are instead finished by an async handler
  // that destroys its own signal.
  constexpr uint32_t kPairs = 4;
  const uint32_t per_pair = (uint32_t(1) << 15) / kScale;
  std::atomic<uint32_t> wrong_values{0}, timeouts{0}, handled{0}, failures{0};
  hsa_signal_t never{};  // wait_any's second signal: never met
  REQUIRE(hsa_signal_create(1, 0, nullptr, &never) == HSA_STATUS_SUCCESS);
  struct Handoff {
    std::mutex mutex;
    std::vector<hsa_signal_t> ready;
  };
  std::vector<Handoff> handoffs(kPairs);
  std::vector<std::vector<hsa_signal_t>> handler_signals(kPairs);  // destroyed after their handler ran
  std::vector<uint32_t> handed_to_handler(kPairs, 0);
  std::vector<std::thread> threads;
  for (uint32_t pair = 0; pair < kPairs; ++pair) {
    threads.emplace_back([&, pair] {  // producer
      Handoff& h = handoffs[pair];
      for (uint32_t i = 0; i < per_pair; ++i) {
        hsa_signal_t s{};
        if (hsa_signal_create(1, 0, nullptr, &s) != HSA_STATUS_SUCCESS) {
          failures.fetch_add(1);
          continue;
        }
        if (i % 64 == 63) {
          // An async handler that destroys its own signal once it reaches 0
          // (the handler thread touches the signal no more after that).
          const hsa_status_t status = hsa_amd_signal_async_handler(
              s, HSA_SIGNAL_CONDITION_EQ, 0,
              [](hsa_signal_value_t value, void* arg) {
                auto* count = static_cast<std::atomic<uint32_t>*>(arg);
                if (value == 0) count->fetch_add(1);
                return false;
              },
              &handled);
          if (status != HSA_STATUS_SUCCESS) failures.fetch_add(1);
          hsa_signal_store_screlease(s, 0);
          handler_signals[pair].push_back(s);
          ++handed_to_handler[pair];
          continue;
        }
        {
          std::lock_guard<std::mutex> lock(h.mutex);
          h.ready.push_back(s);
        }
        // Race the consumer: store after it may or may not have started waiting.
        if (i % 3 == 0) std::this_thread::yield();
        if (i % 2 == 0) hsa_signal_store_screlease(s, 0);
        else hsa_signal_subtract_screlease(s, 1);
      }
    });
    threads.emplace_back([&, pair] {  // consumer
      Handoff& h = handoffs[pair];
      uint32_t done = 0;
      const uint32_t expected = per_pair - per_pair / 64;  // the rest went to handlers
      std::vector<hsa_signal_t> batch;
      while (done < expected) {
        {
          std::lock_guard<std::mutex> lock(h.mutex);
          batch.swap(h.ready);
        }
        if (batch.empty()) {
          std::this_thread::yield();
          continue;
        }
        for (hsa_signal_t s : batch) {
          hsa_signal_value_t value = -1;
          switch (done % 3) {
            case 0:
              value = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, kLongWait, HSA_WAIT_STATE_BLOCKED);
              break;
            case 1:
              value = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, kLongWait, HSA_WAIT_STATE_ACTIVE);
              break;
            default: {
              hsa_signal_t signals[2] = {never, s};
              hsa_signal_condition_t conditions[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
              hsa_signal_value_t values[2] = {0, 0};
              const uint32_t which = hsa_amd_signal_wait_any(2, signals, conditions, values, kLongWait,
                                                             HSA_WAIT_STATE_BLOCKED, &value);
              if (which != 1) timeouts.fetch_add(1);
            }
          }
          if (value != 0) wrong_values.fetch_add(1);
          if (hsa_signal_destroy(s) != HSA_STATUS_SUCCESS) failures.fetch_add(1);
          ++done;
        }
        batch.clear();
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
  CHECK(wrong_values.load() == 0);
  CHECK(timeouts.load() == 0);
  CHECK(hsa_signal_destroy(never) == HSA_STATUS_SUCCESS);
  // Every async handler ran once, seeing 0; then its signal goes.
  uint32_t expected_handled = 0;
  for (uint32_t n : handed_to_handler) expected_handled += n;
  CHECK(expected_handled == kPairs * (per_pair / 64));
  for (int i = 0; i < 10000 && handled.load() < expected_handled; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(handled.load() == expected_handled);
  for (auto& list : handler_signals)
    for (hsa_signal_t s : list) CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
  const std::string report = capture_stderr([] { CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS); });
  CHECK(report.find("still live") == std::string::npos);
  MESSAGE("signals: " << kPairs * per_pair << ", handlers run: " << handled.load());
}

TEST_CASE("memory: concurrent allocate and free in every pool") {
  Runtime rt;
  std::vector<hsa_amd_memory_pool_t> allocatable;
  for (hsa_amd_memory_pool_t pool : all_pools(rt.agent)) {
    if (pool_info<bool>(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED)) {
      allocatable.push_back(pool);
    } else {
      // The group pool: the host may not allocate from it, ever.
      void* p = nullptr;
      CHECK(hsa_amd_memory_pool_allocate(pool, 4096, 0, &p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
      CHECK(p == nullptr);
    }
  }
  REQUIRE(allocatable.size() == 3);  // fine, coarse, kernarg
  constexpr uint32_t kThreads = 6;
  const uint32_t rounds = 5000 / kScale;
  std::atomic<uint32_t> failures{0}, corrupted{0}, wrong_info{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 random(t + 1);
      std::vector<std::pair<uint64_t*, size_t>> live;  // words, count
      for (uint32_t r = 0; r < rounds; ++r) {
        const bool allocate = live.empty() || (live.size() < 16 && random() % 3 != 0);
        if (allocate) {
          hsa_amd_memory_pool_t pool = allocatable[random() % allocatable.size()];
          const size_t words = 1 + random() % 4096;  // up to 32 KiB
          void* p = nullptr;
          if (hsa_amd_memory_pool_allocate(pool, words * 8, 0, &p) != HSA_STATUS_SUCCESS || p == nullptr) {
            failures.fetch_add(1);
            continue;
          }
          auto* w = static_cast<uint64_t*>(p);
          const uint64_t tag = reinterpret_cast<uintptr_t>(p) ^ t;
          w[0] = tag;
          w[words - 1] = tag;
          hsa_amd_pointer_info_t info{};
          info.size = sizeof(info);
          if (hsa_amd_pointer_info(p, &info, nullptr, nullptr, nullptr) != HSA_STATUS_SUCCESS ||
              info.agentBaseAddress != p || info.sizeInBytes != words * 8 || info.type != HSA_EXT_POINTER_TYPE_HSA)
            wrong_info.fetch_add(1);
          live.emplace_back(w, words);
        } else {
          const size_t pick = random() % live.size();
          auto [w, words] = live[pick];
          const uint64_t tag = reinterpret_cast<uintptr_t>(w) ^ t;
          if (w[0] != tag || w[words - 1] != tag) corrupted.fetch_add(1);
          if (hsa_amd_memory_pool_free(w) != HSA_STATUS_SUCCESS) failures.fetch_add(1);
          live[pick] = live.back();
          live.pop_back();
        }
      }
      for (auto [w, words] : live)
        if (hsa_amd_memory_pool_free(w) != HSA_STATUS_SUCCESS) failures.fetch_add(1);
    });
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
  CHECK(corrupted.load() == 0);
  CHECK(wrong_info.load() == 0);
}

TEST_CASE("memory: allocation at each pool's limits is refused with the specification's status") {
  Runtime rt;
  for (hsa_amd_memory_pool_t pool : all_pools(rt.agent)) {
    if (!pool_info<bool>(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED)) continue;
    const size_t size = pool_info<size_t>(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE);
    const size_t max = pool_info<size_t>(pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE);
    CAPTURE(size);
    CAPTURE(max);
    REQUIRE(size > 0);
    REQUIRE(max > 0);
    REQUIRE(max <= size);
    void* p = nullptr;
    // Larger than ALLOC_MAX_SIZE: INVALID_ALLOCATION (hsa_ext_amd.h).
    CHECK(hsa_amd_memory_pool_allocate(pool, max + 1, 0, &p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_pool_allocate(pool, SIZE_MAX, 0, &p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(p == nullptr);
    // With one page held, the pool cannot also give ALLOC_MAX_SIZE when
    // that is the whole pool: OUT_OF_RESOURCES, and the pool still works.
    void* held = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(pool, 4096, 0, &held) == HSA_STATUS_SUCCESS);
    if (max == size) {
      CHECK(hsa_amd_memory_pool_allocate(pool, max, 0, &p) == HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      CHECK(p == nullptr);
    }
    // Concurrently, from several threads at once: each is refused alike
    // while small allocations beside them still succeed.
    std::atomic<uint32_t> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          void* q = nullptr;
          if (t % 2 == 0) {
            const hsa_status_t status = hsa_amd_memory_pool_allocate(pool, size, 0, &q);
            if (status != HSA_STATUS_ERROR_OUT_OF_RESOURCES && status != HSA_STATUS_ERROR_INVALID_ALLOCATION) {
              wrong.fetch_add(1);
              if (status == HSA_STATUS_SUCCESS) hsa_amd_memory_pool_free(q);
            }
          } else {
            if (hsa_amd_memory_pool_allocate(pool, 8192, 0, &q) != HSA_STATUS_SUCCESS) wrong.fetch_add(1);
            else if (hsa_amd_memory_pool_free(q) != HSA_STATUS_SUCCESS) wrong.fetch_add(1);
          }
        }
      });
    for (auto& t : threads) t.join();
    CHECK(wrong.load() == 0);
    CHECK(hsa_amd_memory_pool_free(held) == HSA_STATUS_SUCCESS);
    // ALLOC_MAX_SIZE alone: granted (the pages come on first touch) or
    // OUT_OF_RESOURCES when the host cannot map that much, never a crash.
    const hsa_status_t whole = hsa_amd_memory_pool_allocate(pool, max, 0, &p);
    CHECK((whole == HSA_STATUS_SUCCESS || whole == HSA_STATUS_ERROR_OUT_OF_RESOURCES));
    if (whole == HSA_STATUS_SUCCESS) {
      static_cast<volatile char*>(p)[0] = 1;
      static_cast<volatile char*>(p)[max - 1] = 1;
      CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);
    } else {
      CHECK(p == nullptr);
    }
  }
}

}  // TEST_SUITE
