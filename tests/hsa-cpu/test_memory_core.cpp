// The core's memory (hsa-core/include/hsa_core/memory.h) through every pool
// a runtime offers: the pools' descriptions and how each agent reaches them;
// allocations tracked, described by pointer info, filled, their deallocation
// callbacks, frees that fail cleanly, regions; asynchronous copies between
// every pair of pools (the core's copy.h); locked host memory; migration,
// SVM attributes and dispatch times (svm.cpp) on either answer of
// HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED. Nothing
// here assumes which runtime it runs on: hsa_cpu_tests runs it on hsa-cpu,
// hsa_cuda_core_tests on hsa-cuda (device memory and pinned host memory).
#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <vector>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

struct AllocatablePool {
  hsa_agent_t agent;
  hsa_amd_memory_pool_t pool;
  uint32_t flags;
};

// Every global pool that allows runtime allocation, of every agent.
std::vector<AllocatablePool> allocatable_pools() {
  std::vector<AllocatablePool> out;
  for (hsa_agent_t agent : Runtime::agents()) {
    struct Context {
      hsa_agent_t agent;
      std::vector<AllocatablePool>* out;
    } context{agent, &out};
    REQUIRE(hsa_amd_agent_iterate_memory_pools(
                agent,
                [](hsa_amd_memory_pool_t pool, void* data) {
                  auto* c = static_cast<Context*>(data);
                  hsa_amd_segment_t segment{};
                  bool allowed = false;
                  uint32_t flags = 0;
                  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
                  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed);
                  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
                  if (segment == HSA_AMD_SEGMENT_GLOBAL && allowed) c->out->push_back({c->agent, pool, flags});
                  return HSA_STATUS_SUCCESS;
                },
                &context) == HSA_STATUS_SUCCESS);
  }
  return out;
}

std::atomic<int> g_kept_calls{0};
std::atomic<int> g_dropped_calls{0};

}  // namespace

TEST_SUITE("memory-core") {

TEST_CASE("async copies between every pair of pools: after their dependencies, bytes exact, timed when asked") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<AllocatablePool> pools = allocatable_pools();
  REQUIRE(!pools.empty());
  REQUIRE(hsa_amd_profiling_async_copy_enable(true) == HSA_STATUS_SUCCESS);
  constexpr size_t kBytes = (3u << 20) + 12;  // several of a runtime's copy chunks, and a tail
  constexpr size_t kDwords = kBytes / 4;
  for (size_t from = 0; from < pools.size(); ++from) {
    for (size_t to = 0; to < pools.size(); ++to) {
      CAPTURE(from);
      CAPTURE(to);
      void* src = nullptr;
      void* dst = nullptr;
      REQUIRE(hsa_amd_memory_pool_allocate(pools[from].pool, kBytes, 0, &src) == HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_allocate(pools[to].pool, kBytes, 0, &dst) == HSA_STATUS_SUCCESS);
      // The source: a pattern of dword indices, written through a host buffer.
      std::vector<uint32_t> pattern(kDwords);
      for (size_t i = 0; i < kDwords; ++i) pattern[i] = uint32_t(i * 2654435761u + from * 31 + to);
      REQUIRE(hsa_memory_copy(src, pattern.data(), kBytes) == HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_fill(dst, 0, kDwords) == HSA_STATUS_SUCCESS);
      // Held behind two dependencies, released one after the other.
      hsa_signal_t deps[2] = {make_signal(1), make_signal(1)};
      hsa_signal_t done = make_signal(1);
      REQUIRE(hsa_amd_memory_async_copy(dst, pools[to].agent, src, pools[from].agent, kBytes, 2, deps, done) ==
              HSA_STATUS_SUCCESS);
      CHECK_FALSE(wait_eq(done, 0, 20 * kMs));
      hsa_signal_store_screlease(deps[1], 0);
      CHECK_FALSE(wait_eq(done, 0, 20 * kMs));  // the first still holds it
      hsa_signal_store_screlease(deps[0], 0);
      REQUIRE(wait_eq(done, 0));
      std::vector<uint32_t> back(kDwords, 1);
      REQUIRE(hsa_memory_copy(back.data(), dst, kBytes) == HSA_STATUS_SUCCESS);
      CHECK(back == pattern);
      hsa_amd_profiling_async_copy_time_t time{};
      REQUIRE(hsa_amd_profiling_get_async_copy_time(done, &time) == HSA_STATUS_SUCCESS);
      CHECK(time.start != 0);
      CHECK(time.start <= time.end);
      for (hsa_signal_t dep : deps) CHECK(hsa_signal_destroy(dep) == HSA_STATUS_SUCCESS);
      CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
      CHECK(hsa_amd_memory_pool_free(src) == HSA_STATUS_SUCCESS);
      CHECK(hsa_amd_memory_pool_free(dst) == HSA_STATUS_SUCCESS);
    }
  }
  REQUIRE(hsa_amd_profiling_async_copy_enable(false) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("locked host memory: pointer info says LOCKED, async copies reach it from every pool, unlock ends it") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<AllocatablePool> pools = allocatable_pools();
  std::vector<hsa_agent_t> agents = Runtime::agents();
  REQUIRE(!pools.empty());
  constexpr size_t kBytes = (1u << 20) + 4096;
  constexpr size_t kDwords = kBytes / 4;
  auto* host = static_cast<uint32_t*>(std::aligned_alloc(4096, kBytes));
  REQUIRE(host != nullptr);
  void* agent_ptr = nullptr;
  REQUIRE(hsa_amd_memory_lock(host, kBytes, agents.data(), int(agents.size()), &agent_ptr) == HSA_STATUS_SUCCESS);
  REQUIRE(agent_ptr != nullptr);
  hsa_amd_pointer_info_t info{};
  info.size = sizeof(info);
  REQUIRE(hsa_amd_pointer_info(host + 100, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  CHECK(info.type == HSA_EXT_POINTER_TYPE_LOCKED);
  CHECK(info.hostBaseAddress == host);
  CHECK(info.sizeInBytes == kBytes);
  void* again = nullptr;
  CHECK(hsa_amd_memory_lock(host, kBytes, nullptr, 0, &again) == HSA_STATUS_SUCCESS);  // locked already
  for (size_t k = 0; k < pools.size(); ++k) {
    CAPTURE(k);
    void* device = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(pools[k].pool, kBytes, 0, &device) == HSA_STATUS_SUCCESS);
    // Locked memory to the pool, then back over a cleared locked buffer.
    for (size_t i = 0; i < kDwords; ++i) host[i] = uint32_t(i * 747796405u + k);
    const std::vector<uint32_t> expected(host, host + kDwords);
    hsa_signal_t done = make_signal(1);
    REQUIRE(hsa_amd_memory_async_copy(device, pools[k].agent, agent_ptr, pools[k].agent, kBytes, 0, nullptr, done) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(wait_eq(done, 0));
    std::fill_n(host, kDwords, 0u);
    hsa_signal_store_screlease(done, 1);
    REQUIRE(hsa_amd_memory_async_copy(agent_ptr, pools[k].agent, device, pools[k].agent, kBytes, 0, nullptr, done) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(wait_eq(done, 0));
    CHECK(std::equal(expected.begin(), expected.end(), host));
    CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_memory_pool_free(device) == HSA_STATUS_SUCCESS);
  }
  // Refusals.
  const hsa_agent_t bogus{8};
  void* unused = nullptr;
  CHECK(hsa_amd_memory_lock(nullptr, kBytes, nullptr, 0, &unused) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_memory_lock(host, 0, nullptr, 0, &unused) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_memory_lock(host, kBytes, nullptr, 0, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_memory_lock(host, kBytes, nullptr, 1, &unused) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_agent_t bogus_list[1] = {bogus};
  CHECK(hsa_amd_memory_lock(host, kBytes, bogus_list, 1, &unused) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_amd_memory_lock_to_pool(host, kBytes, nullptr, 0, hsa_amd_memory_pool_t{8}, 0, &unused) ==
        HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  CHECK(hsa_amd_memory_lock_to_pool(host, kBytes, nullptr, 0, pools[0].pool, 1, &unused) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Unlocked: no longer the runtime's; unlocking again does nothing.
  CHECK(hsa_amd_memory_unlock(host) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_pointer_info(host + 100, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
  CHECK(hsa_amd_memory_unlock(host) == HSA_STATUS_SUCCESS);
  // Locked again and left locked: hsa_shut_down ends the lock.
  REQUIRE(hsa_amd_memory_lock(host, kBytes, nullptr, 0, &agent_ptr) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  std::free(host);
}

TEST_CASE("an async copy whose dependency fails is skipped: its completion signal takes the error value") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<AllocatablePool> pools = allocatable_pools();
  REQUIRE(!pools.empty());
  constexpr size_t kBytes = 4096;
  void* src = nullptr;
  void* dst = nullptr;
  REQUIRE(hsa_amd_memory_pool_allocate(pools[0].pool, kBytes, 0, &src) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_pool_allocate(pools[0].pool, kBytes, 0, &dst) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_fill(src, 0x5a5a5a5a, kBytes / 4) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_fill(dst, 0, kBytes / 4) == HSA_STATUS_SUCCESS);
  // Failed before the call, and failed while the copy waits.
  for (bool already : {true, false}) {
    CAPTURE(already);
    hsa_signal_t dep = make_signal(already ? -3 : 1);
    hsa_signal_t done = make_signal(1);
    REQUIRE(hsa_amd_memory_async_copy(dst, pools[0].agent, src, pools[0].agent, kBytes, 1, &dep, done) ==
            HSA_STATUS_SUCCESS);
    if (!already) {
      CHECK_FALSE(wait_eq(done, 0, 20 * kMs));
      hsa_signal_store_screlease(dep, -3);
    }
    CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, -3, 10000 * kMs, HSA_WAIT_STATE_BLOCKED) == -3);
    std::vector<uint32_t> back(kBytes / 4, 1);
    REQUIRE(hsa_memory_copy(back.data(), dst, kBytes) == HSA_STATUS_SUCCESS);
    CHECK(std::count(back.begin(), back.end(), 0u) == long(back.size()));  // nothing copied
    CHECK(hsa_signal_destroy(dep) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
  }
  // A copy of no bytes completes once its dependencies do.
  hsa_signal_t done = make_signal(1);
  REQUIRE(hsa_amd_memory_async_copy(dst, pools[0].agent, src, pools[0].agent, 0, 0, nullptr, done) ==
          HSA_STATUS_SUCCESS);
  CHECK(wait_eq(done, 0));
  CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_pool_free(src) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_pool_free(dst) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("every allocatable pool: tracked, described, filled and freed") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<AllocatablePool> pools = allocatable_pools();
  REQUIRE(!pools.empty());
  for (size_t k = 0; k < pools.size(); ++k) {
    const AllocatablePool& entry = pools[k];
    CAPTURE(k);
    constexpr size_t kBytes = 10000;
    constexpr size_t kDwords = kBytes / 4;
    void* p = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(entry.pool, kBytes, 0, &p) == HSA_STATUS_SUCCESS);
    REQUIRE(p != nullptr);

    // Pointer info, from an address inside.
    hsa_amd_pointer_info_t info{};
    info.size = sizeof(info);
    hsa_agent_t* accessible = nullptr;
    uint32_t count = 0;
    REQUIRE(hsa_amd_pointer_info(static_cast<char*>(p) + 5000, &info, malloc, &count, &accessible) ==
            HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.agentBaseAddress == p);
    CHECK((info.hostBaseAddress == p || info.hostBaseAddress == nullptr));
    CHECK(info.sizeInBytes == kBytes);
    CHECK(info.agentOwner.handle == entry.agent.handle);
    CHECK(info.global_flags == entry.flags);
    REQUIRE(count >= 1);
    REQUIRE(accessible != nullptr);
    CHECK(std::any_of(accessible, accessible + count,
                      [&](hsa_agent_t a) { return a.handle == entry.agent.handle; }));
    free(accessible);
    int user = 0;
    CHECK(hsa_amd_pointer_info_set_userdata(p, &user) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_pointer_info(p, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.userData == &user);
    int stack_value = 0;
    REQUIRE(hsa_amd_pointer_info(&stack_value, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
    CHECK(hsa_amd_pointer_info_set_userdata(&stack_value, &user) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    // Access grants: checked, then nothing to do.
    const uint32_t flag = 0;
    CHECK(hsa_amd_agents_allow_access(1, &entry.agent, nullptr, p) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_agents_allow_access(1, &entry.agent, &flag, p) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_agents_allow_access(1, &entry.agent, nullptr, &stack_value) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    const hsa_agent_t bogus{8};
    CHECK(hsa_amd_agents_allow_access(1, &bogus, nullptr, p) == HSA_STATUS_ERROR_INVALID_AGENT);

    // Fills: every dword of the range, none past it; read back by copy (the
    // host may not reach device memory).
    REQUIRE(hsa_amd_memory_fill(p, 0, kDwords) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_memory_fill(p, 0xdeadbeef, kDwords - 1) == HSA_STATUS_SUCCESS);
    std::vector<uint32_t> back(kDwords, 7);
    REQUIRE(hsa_memory_copy(back.data(), p, kBytes) == HSA_STATUS_SUCCESS);
    CHECK(std::count(back.begin(), back.end() - 1, 0xdeadbeefu) == long(kDwords - 1));
    CHECK(back[kDwords - 1] == 0);
    CHECK(hsa_amd_memory_fill(p, 1, kDwords + 1) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_fill(static_cast<char*>(p) + 2, 1, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_memory_fill(&stack_value, 1, 1) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_fill(p, 1, 0) == HSA_STATUS_SUCCESS);

    // Deallocation callbacks: the one still registered runs once, at the free.
    g_kept_calls = 0;
    g_dropped_calls = 0;
    auto kept = [](void*, void*) { g_kept_calls.fetch_add(1); };
    auto dropped = [](void*, void*) { g_dropped_calls.fetch_add(1); };
    CHECK(hsa_amd_register_deallocation_callback(p, kept, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_register_deallocation_callback(p, dropped, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_deregister_deallocation_callback(p, dropped) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_deregister_deallocation_callback(p, dropped) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_register_deallocation_callback(&stack_value, kept, nullptr) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_register_deallocation_callback(p, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    // Frees: only the base of a live allocation, once.
    CHECK(hsa_amd_memory_pool_free(static_cast<char*>(p) + 8) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(g_kept_calls.load() == 0);
    CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);
    CHECK(g_kept_calls.load() == 1);
    CHECK(g_dropped_calls.load() == 0);
    CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_pool_free(&stack_value) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_pool_free(nullptr) == HSA_STATUS_SUCCESS);

    // Arguments.
    CHECK(hsa_amd_memory_pool_allocate(entry.pool, 0, 0, &p) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_memory_pool_allocate(entry.pool, 64, 0, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    // The pool as a region: hsa_memory_allocate and hsa_memory_free.
    void* r = nullptr;
    REQUIRE(hsa_memory_allocate(hsa_region_t{entry.pool.handle}, 100, &r) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_pointer_info(r, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.sizeInBytes == 100);
    CHECK(hsa_memory_free(r) == HSA_STATUS_SUCCESS);
    CHECK(hsa_memory_free(r) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  }
  void* p = nullptr;
  CHECK(hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t{24}, 64, 0, &p) ==
        static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("pools: descriptions, how each agent reaches them, refusals") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<hsa_agent_t> agents = Runtime::agents();
  size_t groups = 0, globals = 0;
  for (hsa_agent_t owner : agents) {
    std::vector<hsa_amd_memory_pool_t> pools;
    REQUIRE(hsa_amd_agent_iterate_memory_pools(
                owner,
                [](hsa_amd_memory_pool_t pool, void* data) {
                  static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(pool);
                  return HSA_STATUS_SUCCESS;
                },
                &pools) == HSA_STATUS_SUCCESS);
    for (hsa_amd_memory_pool_t pool : pools) {
      hsa_amd_segment_t segment{};
      bool allowed = true, by_all = false;
      size_t size = 0, granule = 0, alignment = 0, max_size = 0;
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) == HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed) ==
              HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule) ==
              HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, &alignment) ==
              HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &max_size) ==
              HSA_STATUS_SUCCESS);
      REQUIRE(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &by_all) ==
              HSA_STATUS_SUCCESS);
      CHECK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, nullptr) ==
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
      CHECK(hsa_amd_memory_pool_get_info(pool, static_cast<hsa_amd_memory_pool_info_t>(0x7fff), &size) ==
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
      CHECK(size > 0);
      void* p = nullptr;
      if (segment == HSA_AMD_SEGMENT_GROUP) {
        ++groups;
        CHECK_FALSE(allowed);
        CHECK(hsa_amd_memory_pool_allocate(pool, 64, 0, &p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
      } else if (allowed) {
        ++globals;
        CHECK(granule > 0);
        CHECK(alignment > 0);
        CHECK(max_size > 0);
        CHECK(max_size <= size);
        CHECK(hsa_amd_memory_pool_allocate(pool, max_size + 1, 0, &p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
      }
      // The owner reaches its pools directly; a pool every agent reaches is
      // never closed to one.
      for (hsa_agent_t agent : agents) {
        hsa_amd_memory_pool_access_t access{};
        uint32_t hops = 7;
        REQUIRE(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access) ==
                HSA_STATUS_SUCCESS);
        REQUIRE(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS,
                                                   &hops) == HSA_STATUS_SUCCESS);
        if (agent.handle == owner.handle) {
          CHECK(access == HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
          CHECK(hops == 0);
        }
        if (by_all) CHECK(access != HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED);
        if (access == HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED) CHECK(hops == 0);
        std::vector<hsa_amd_memory_pool_link_info_t> links(hops + 1);
        links.back().numa_distance = 12345;  // a sentinel past the hops: untouched
        CHECK(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO,
                                                 links.data()) == HSA_STATUS_SUCCESS);
        CHECK(links.back().numa_distance == 12345);
      }
      CHECK(hsa_amd_agent_memory_pool_get_info(hsa_agent_t{8}, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &size) ==
            HSA_STATUS_ERROR_INVALID_AGENT);
      CHECK(hsa_amd_agent_memory_pool_get_info(owner, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, nullptr) ==
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
  }
  CHECK(groups >= 1);  // every kernel agent has a group segment
  CHECK(globals >= 1);
  size_t size = 0;
  CHECK(hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{24}, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) ==
        static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
  CHECK(hsa_amd_agent_memory_pool_get_info(agents[0], hsa_amd_memory_pool_t{24}, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                           &size) == static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
  CHECK(hsa_amd_agent_iterate_memory_pools(hsa_agent_t{8}, [](hsa_amd_memory_pool_t, void*) { return HSA_STATUS_SUCCESS; },
                                           nullptr) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_amd_agent_iterate_memory_pools(agents[0], nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("migration, SVM attributes and dispatch times: the answers follow HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  bool svm = false;
  REQUIRE(hsa_system_get_info(static_cast<hsa_system_info_t>(HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED), &svm) ==
          HSA_STATUS_SUCCESS);
  const std::vector<AllocatablePool> pools = allocatable_pools();
  REQUIRE(!pools.empty());
  // Nothing migrates between any two pools; migrating in place succeeds only with SVM.
  for (const AllocatablePool& a : pools) {
    for (const AllocatablePool& b : pools) {
      bool result = true;
      REQUIRE(hsa_amd_memory_pool_can_migrate(a.pool, b.pool, &result) == HSA_STATUS_SUCCESS);
      CHECK(!result);
    }
  }
  const hsa_amd_memory_pool_t bogus_pool{8};
  bool result = false;
  CHECK(static_cast<uint32_t>(hsa_amd_memory_pool_can_migrate(bogus_pool, pools[0].pool, &result)) ==
        HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  CHECK(hsa_amd_memory_pool_can_migrate(pools[0].pool, pools[0].pool, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  void* memory = nullptr;
  REQUIRE(hsa_amd_memory_pool_allocate(pools[0].pool, 4096, 0, &memory) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_migrate(memory, pools[0].pool, 0) == (svm ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR));
  CHECK(static_cast<uint32_t>(hsa_amd_memory_migrate(memory, bogus_pool, 0)) == HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  CHECK(hsa_amd_memory_migrate(nullptr, pools[0].pool, 0) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_memory_migrate(memory, pools[0].pool, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  REQUIRE(hsa_amd_memory_pool_free(memory) == HSA_STATUS_SUCCESS);
  // SVM attributes of host memory: checked first, then answered (SVM) or refused.
  std::vector<uint8_t> host(8192);
  const hsa_agent_t agent = Runtime::agents().front();
  hsa_amd_svm_attribute_pair_t query[3] = {{HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 77},
                                           {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, agent.handle},
                                           {HSA_AMD_SVM_ATTRIB_READ_ONLY, 77}};
  const hsa_status_t got = hsa_amd_svm_attributes_get(host.data(), host.size(), query, 3);
  if (svm) {
    REQUIRE(got == HSA_STATUS_SUCCESS);
    CHECK(query[0].value == HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED);
    CHECK(query[1].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE);
    CHECK(query[2].value == 0);
  } else {
    CHECK(got == HSA_STATUS_ERROR);
    CHECK(query[0].value == 77);  // nothing written
  }
  hsa_amd_svm_attribute_pair_t set[2] = {{HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED},
                                         {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, agent.handle}};
  CHECK(hsa_amd_svm_attributes_set(host.data(), host.size(), set, 2) == (svm ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR));
  // Refused whatever the runtime: a bad range, an unknown agent, an attribute of the other direction.
  CHECK(hsa_amd_svm_attributes_get(nullptr, 64, query, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_svm_attributes_get(host.data(), 0, query, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_amd_svm_attribute_pair_t stranger = {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, 8};
  CHECK(hsa_amd_svm_attributes_get(host.data(), host.size(), &stranger, 1) == HSA_STATUS_ERROR_INVALID_AGENT);
  hsa_amd_svm_attribute_pair_t setting = {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, agent.handle};
  CHECK(hsa_amd_svm_attributes_get(host.data(), host.size(), &setting, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_amd_svm_attribute_pair_t query_only = {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, agent.handle};
  CHECK(hsa_amd_svm_attributes_set(host.data(), host.size(), &query_only, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_amd_svm_attribute_pair_t bad_flag = {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 99};
  CHECK(hsa_amd_svm_attributes_set(host.data(), host.size(), &bad_flag, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // A prefetch: once its dependency is met, its completion signal goes to 0 (SVM); refused without.
  hsa_signal_t dependency = make_signal(1), done = make_signal(1);
  const hsa_status_t prefetch = hsa_amd_svm_prefetch_async(host.data(), host.size(), agent, 1, &dependency, done);
  if (svm) {
    REQUIRE(prefetch == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_load_scacquire(done) == 1);
    hsa_signal_store_screlease(dependency, 0);
    CHECK(wait_eq(done, 0));
  } else {
    CHECK(prefetch == HSA_STATUS_ERROR);
  }
  CHECK(hsa_amd_svm_prefetch_async(nullptr, 64, agent, 0, nullptr, done) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Dispatch times: kernel agents only, a live signal, somewhere to write them.
  hsa_amd_profiling_dispatch_time_t time{};
  for (hsa_agent_t a : Runtime::agents()) {
    uint32_t features = 0;
    REQUIRE(hsa_agent_get_info(a, HSA_AGENT_INFO_FEATURE, &features) == HSA_STATUS_SUCCESS);
    const bool kernel = (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) != 0;
    CHECK(hsa_amd_profiling_get_dispatch_time(a, done, &time) ==
          (kernel ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_AGENT));
    if (kernel) CHECK(hsa_amd_profiling_get_dispatch_time(a, done, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    uint64_t system_tick = 0;
    CHECK(hsa_amd_profiling_convert_tick_to_system_domain(a, 0, &system_tick) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_profiling_convert_tick_to_system_domain(a, 0, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  }
  uint64_t system_tick = 0;
  CHECK(hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t{8}, 0, &system_tick) ==
        HSA_STATUS_ERROR_INVALID_AGENT);
  REQUIRE(hsa_signal_destroy(dependency) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_profiling_get_dispatch_time(Runtime::agents().front(), done, &time) != HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_migrate(host.data(), pools[0].pool, 0) == HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_CASE("what the application did not free is gone after hsa_shut_down") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<AllocatablePool> pools = allocatable_pools();
  REQUIRE(!pools.empty());
  void* p = nullptr;
  REQUIRE(hsa_amd_memory_pool_allocate(pools[0].pool, 4096, 0, &p) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  // Outside hsa_init .. hsa_shut_down every entry point answers NOT_INITIALIZED.
  CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  hsa_amd_pointer_info_t info{};
  info.size = sizeof(info);
  REQUIRE(hsa_amd_pointer_info(p, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
  CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

}  // TEST_SUITE
