// hsa-cpu memory: pools, regions, allocation tracking, pointer info, copies
// (synchronous and asynchronous with dependencies) and fills.
#include <algorithm>

#include "hsa_test_util.h"

using namespace hsa_test;

TEST_SUITE("memory") {

TEST_CASE("pools: fine, coarse, kernarg and group") {
  Runtime rt;
  REQUIRE(rt.fine_pool.handle != 0);
  REQUIRE(rt.coarse_pool.handle != 0);
  REQUIRE(rt.kernarg_pool.handle != 0);
  REQUIRE(rt.group_pool.handle != 0);
  uint32_t flags = 0;
  CHECK(hsa_amd_memory_pool_get_info(rt.kernarg_pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) ==
        HSA_STATUS_SUCCESS);
  CHECK(flags == (HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED));
  bool allowed = false;
  size_t granule = 0, size = 0, max_alloc = 0;
  CHECK(hsa_amd_memory_pool_get_info(rt.coarse_pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed) ==
        HSA_STATUS_SUCCESS);
  CHECK(allowed);
  CHECK(hsa_amd_memory_pool_get_info(rt.coarse_pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule) ==
        HSA_STATUS_SUCCESS);
  CHECK(granule == 4096);
  CHECK(hsa_amd_memory_pool_get_info(rt.fine_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
  CHECK(size > (size_t(1) << 26));
  CHECK(hsa_amd_memory_pool_get_info(rt.fine_pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &max_alloc) ==
        HSA_STATUS_SUCCESS);
  CHECK(max_alloc > 0);
  CHECK(hsa_amd_memory_pool_get_info(rt.group_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
  CHECK(size == 65536);
  CHECK(hsa_amd_memory_pool_get_info(rt.group_pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed) ==
        HSA_STATUS_SUCCESS);
  CHECK_FALSE(allowed);
  void* p = nullptr;
  CHECK(hsa_amd_memory_pool_allocate(rt.group_pool, 64, 0, &p) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  hsa_amd_memory_pool_access_t access;
  CHECK(hsa_amd_agent_memory_pool_get_info(rt.agent, rt.coarse_pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                           &access) == HSA_STATUS_SUCCESS);
  CHECK(access == HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
  CHECK(hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{3}, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) ==
        static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
}

TEST_CASE("regions mirror the pools") {
  Runtime rt;
  struct Found { hsa_region_t kernarg{}; int count = 0; } found;
  hsa_agent_iterate_regions(
      rt.agent,
      [](hsa_region_t region, void* data) {
        auto* f = static_cast<Found*>(data);
        ++f->count;
        hsa_region_segment_t segment;
        hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
        uint32_t flags = 0;
        if (segment == HSA_REGION_SEGMENT_GLOBAL &&
            hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags) == HSA_STATUS_SUCCESS &&
            (flags & HSA_REGION_GLOBAL_FLAG_KERNARG))
          f->kernarg = region;
        return HSA_STATUS_SUCCESS;
      },
      &found);
  CHECK(found.count == 4);
  REQUIRE(found.kernarg.handle != 0);
  void* p = nullptr;
  REQUIRE(hsa_memory_allocate(found.kernarg, 100, &p) == HSA_STATUS_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(p) % 4096 == 0);
  CHECK(hsa_memory_free(p) == HSA_STATUS_SUCCESS);
  CHECK(hsa_region_get_info(hsa_region_t{8}, HSA_REGION_INFO_SIZE, &p) == HSA_STATUS_ERROR_INVALID_REGION);
}

// (Tracking, pointer info, user data, deallocation callbacks, frees and
// fills through every pool: test_memory_core.cpp, which hsa-cuda runs too.)
TEST_CASE("pool allocations are page-aligned pages; locked host memory is reported as such") {
  Runtime rt;
  void* p = nullptr;
  REQUIRE(hsa_amd_memory_pool_allocate(rt.coarse_pool, 10000, 0, &p) == HSA_STATUS_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(p) % 4096 == 0);
  memset(p, 1, 10000);  // the host reaches every pool
  hsa_amd_pointer_info_t info{};
  info.size = sizeof(info);
  hsa_agent_t* accessible = nullptr;
  uint32_t count = 0;
  REQUIRE(hsa_amd_pointer_info(p, &info, malloc, &count, &accessible) == HSA_STATUS_SUCCESS);
  CHECK(info.hostBaseAddress == p);
  CHECK(info.global_flags == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
  CHECK(count == 1);  // every agent of the runtime: one here
  free(accessible);
  CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);

  std::vector<char> host(8192);
  void* agent_ptr = nullptr;
  CHECK(hsa_amd_memory_lock(host.data(), host.size(), nullptr, 0, &agent_ptr) == HSA_STATUS_SUCCESS);
  CHECK(agent_ptr == host.data());
  CHECK(hsa_amd_pointer_info(host.data() + 10, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  CHECK(info.type == HSA_EXT_POINTER_TYPE_LOCKED);
  CHECK(info.agentOwner.handle == rt.agent.handle);
  CHECK(info.global_flags == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
  // Locked memory is the application's: not a pool allocation to free, and
  // fills reach it.
  CHECK(hsa_amd_memory_pool_free(host.data()) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  CHECK(hsa_amd_memory_fill(host.data() + 4, 0x01010101, 2) == HSA_STATUS_SUCCESS);
  CHECK(host[4] == 1);
  CHECK(host[11] == 1);
  CHECK(host[12] == 0);
  CHECK(hsa_amd_memory_unlock(host.data()) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_pointer_info(host.data() + 10, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
  CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
  CHECK(hsa_amd_memory_fill(host.data() + 4, 0, 2) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

TEST_CASE("hsa_memory_copy and hsa_amd_memory_fill") {
  Runtime rt;
  uint32_t* a = rt.alloc<uint32_t>(1000);
  uint32_t* b = rt.alloc<uint32_t>(1000);
  CHECK(hsa_amd_memory_fill(a, 0xdeadbeef, 999) == HSA_STATUS_SUCCESS);
  CHECK(a[0] == 0xdeadbeef);
  CHECK(a[998] == 0xdeadbeef);
  CHECK(a[999] == 0);
  CHECK(hsa_amd_memory_fill(reinterpret_cast<char*>(a) + 1, 0, 4) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_memory_copy(b, a, 1000 * sizeof(uint32_t)) == HSA_STATUS_SUCCESS);
  CHECK(b[500] == 0xdeadbeef);
  CHECK(b[999] == 0);
  CHECK(hsa_memory_copy(nullptr, a, 4) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("async copy waits for its dependencies, never blocks the caller") {
  Runtime rt;
  constexpr size_t kBytes = size_t(24) << 20;  // several chunks
  char* src = rt.alloc<char>(kBytes);
  char* dst = rt.alloc<char>(kBytes);
  for (size_t i = 0; i < kBytes; i += 4096) src[i] = char(i / 4096 + 1);
  hsa_signal_t deps[2] = {make_signal(1), make_signal(1)};
  hsa_signal_t done = make_signal(1);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(hsa_amd_memory_async_copy(dst, rt.agent, src, rt.agent, kBytes, 2, deps, done) == HSA_STATUS_SUCCESS);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(100));
  CHECK_FALSE(wait_eq(done, 0, 30 * kMs));
  hsa_signal_store_screlease(deps[1], 0);
  CHECK_FALSE(wait_eq(done, 0, 30 * kMs));
  CHECK(dst[0] == 0);
  hsa_signal_store_screlease(deps[0], 0);
  CHECK(wait_eq(done, 0));
  size_t wrong = 0;
  for (size_t i = 0; i < kBytes; i += 4096) wrong += dst[i] != char(i / 4096 + 1);
  CHECK(wrong == 0);

  // No dependencies; zero bytes; copy profiling.
  hsa_signal_store_relaxed(done, 1);
  REQUIRE(hsa_amd_profiling_async_copy_enable(true) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_amd_memory_async_copy(dst, rt.agent, src, rt.agent, 4096, 0, nullptr, done) == HSA_STATUS_SUCCESS);
  CHECK(wait_eq(done, 0));
  hsa_amd_profiling_async_copy_time_t time{};
  CHECK(hsa_amd_profiling_get_async_copy_time(done, &time) == HSA_STATUS_SUCCESS);
  CHECK(time.start <= time.end);
  CHECK(time.start != 0);
  hsa_amd_profiling_async_copy_enable(false);
  hsa_signal_store_relaxed(done, 1);
  REQUIRE(hsa_amd_memory_async_copy(dst, rt.agent, src, rt.agent, 0, 0, nullptr, done) == HSA_STATUS_SUCCESS);
  CHECK(wait_eq(done, 0));

  // A failed dependency skips the copy and hands its error on.
  hsa_signal_store_relaxed(done, 1);
  hsa_signal_store_relaxed(deps[0], 1);
  dst[0] = 0;
  REQUIRE(hsa_amd_memory_async_copy(dst, rt.agent, src, rt.agent, 4096, 1, deps, done) == HSA_STATUS_SUCCESS);
  hsa_signal_store_screlease(deps[0], -3);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 0, kLongWait, HSA_WAIT_STATE_BLOCKED) == -3);
  CHECK(dst[0] == 0);

  CHECK(hsa_amd_memory_async_copy(dst, rt.agent, src, rt.agent, 16, 0, nullptr, hsa_signal_t{0}) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_memory_async_copy(dst, hsa_agent_t{5}, src, rt.agent, 16, 0, nullptr, done) ==
        HSA_STATUS_ERROR_INVALID_AGENT);
  for (hsa_signal_t s : {deps[0], deps[1], done}) hsa_signal_destroy(s);
}

TEST_CASE("each agent has its own pools; pointer info names the owning agent") {
  ScopedEnv agents_env("HSA_CPU_AGENTS", "3");
  Runtime rt;
  const std::vector<hsa_agent_t> agents = Runtime::agents();
  REQUIRE(agents.size() == 3);
  auto pools_of = [](hsa_agent_t agent) {
    std::vector<hsa_amd_memory_pool_t> pools;
    REQUIRE(hsa_amd_agent_iterate_memory_pools(
                agent,
                [](hsa_amd_memory_pool_t pool, void* data) {
                  static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(pool);
                  return HSA_STATUS_SUCCESS;
                },
                &pools) == HSA_STATUS_SUCCESS);
    REQUIRE(pools.size() == 4);
    return pools;
  };
  std::vector<uint64_t> handles;
  for (hsa_agent_t agent : agents)
    for (hsa_amd_memory_pool_t pool : pools_of(agent)) handles.push_back(pool.handle);
  std::sort(handles.begin(), handles.end());
  CHECK(std::unique(handles.begin(), handles.end()) == handles.end());  // 12 distinct pools
  // Regions are the same objects as the pools, per agent too.
  std::vector<uint64_t> regions;
  REQUIRE(hsa_agent_iterate_regions(
              agents[2],
              [](hsa_region_t region, void* data) {
                static_cast<std::vector<uint64_t>*>(data)->push_back(region.handle);
                return HSA_STATUS_SUCCESS;
              },
              &regions) == HSA_STATUS_SUCCESS);
  std::vector<uint64_t> expected;
  for (hsa_amd_memory_pool_t pool : pools_of(agents[2])) expected.push_back(pool.handle);
  CHECK(regions == expected);

  for (size_t i = 0; i < agents.size(); ++i) {
    CAPTURE(i);
    const hsa_amd_memory_pool_t pool = pools_of(agents[i])[1];  // coarse-grained
    void* p = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(pool, 5000, 0, &p) == HSA_STATUS_SUCCESS);
    hsa_amd_pointer_info_t info{};
    info.size = sizeof(info);
    hsa_agent_t* accessible = nullptr;
    uint32_t count = 0;
    REQUIRE(hsa_amd_pointer_info(static_cast<char*>(p) + 100, &info, malloc, &count, &accessible) ==
            HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.agentOwner.handle == agents[i].handle);
    CHECK(info.global_flags == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    CHECK(count == 3);  // every agent reaches host memory
    free(accessible);
    // Another agent may use it, without a grant and with one.
    hsa_amd_memory_pool_access_t access{};
    REQUIRE(hsa_amd_agent_memory_pool_get_info(agents[(i + 1) % 3], pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                               &access) == HSA_STATUS_SUCCESS);
    CHECK(access == HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
    CHECK(hsa_amd_agents_allow_access(3, agents.data(), nullptr, p) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);
  }
}

}  // TEST_SUITE
