// Buffers: creation, map, device address, sub-allocation from blocks.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "icd_test_util.h"

using namespace icdtest;

// The counters of xgpuAmdgpuTestGetAllocatorStats (icd/amdgpu/README.md,
// "Test hooks"): the driver's struct, same name at global scope so the
// function types match.
struct XgpuAmdgpuTestAllocatorStats {
  uint64_t blockCount;         // blocks held (including the spare)
  uint64_t emptyBlockCount;    // blocks with nothing handed out
  uint64_t blockBytes;         // bytes of HSA memory held in blocks
  uint64_t dedicatedCount;     // live dedicated (own HSA allocation) buffers
  uint64_t dedicatedBytes;     // bytes of those
  uint64_t subAllocatedBytes;  // bytes handed out from blocks (aligned sizes)
};

namespace {
constexpr uint64_t kBlock = 64ull << 20;  // the ICD's block size (icd/amdgpu/README.md)
constexpr uint64_t kMiB = 1ull << 20;

using AllocatorStats = XgpuAmdgpuTestAllocatorStats;
using GetAllocatorStats = XgpuResult (*)(XgpuDevice, uint32_t, AllocatorStats*);

// The real sub-allocator statistics of the memory type env.buffer() uses.
struct StatsProbe {
  Env& env;
  uint32_t type;
  GetAllocatorStats get;
  explicit StatsProbe(Env& e) : env(e) {
    setenv("XGPU_AMDGPU_TEST_HOOKS", "1", 1);
    get = reinterpret_cast<GetAllocatorStats>(api().GetDeviceProcAddr(env.device(), "xgpuAmdgpuTestGetAllocatorStats"));
    REQUIRE((get != nullptr));
    const int t = env.memory_type(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    REQUIRE(t >= 0);
    type = uint32_t(t);
  }
  AllocatorStats operator()() const {
    AllocatorStats stats{};
    REQUIRE(get(env.device(), type, &stats) == XGPU_SUCCESS);
    return stats;
  }
};
}  // namespace

TEST_CASE("buffer create, map, write/read, device address") {
  Env env;
  XgpuBuffer buffer = env.buffer(4096);
  auto* data = static_cast<uint32_t*>(env.map(buffer));
  for (uint32_t i = 0; i < 1024; ++i) data[i] = i * 3;
  const XgpuDeviceAddress address = api().GetBufferDeviceAddress(env.device(), buffer);
  CHECK(address != 0);
  CHECK(address % 256 == 0);
  // hsa-cpu: the device address is the host address.
  CHECK(address == reinterpret_cast<uint64_t>(data));
  void* offset = nullptr;
  CHECK(api().MapBuffer(env.device(), buffer, 100, 16, &offset) == XGPU_SUCCESS);
  CHECK(offset == reinterpret_cast<uint8_t*>(data) + 100);
  CHECK(api().MapBuffer(env.device(), buffer, 4090, 16, &offset) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.log.contains("exceeds the buffer's 4096 bytes"));
  api().UnmapBuffer(env.device(), buffer);
  api().DestroyBuffer(env.device(), buffer, nullptr);
}

TEST_CASE("invalid buffer parameters") {
  Env env;
  XgpuBufferCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 16;
  info.memoryTypeIndex = 31;
  XgpuBuffer buffer = nullptr;
  CHECK(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.log.contains("memoryTypeIndex 31 is not a memory type"));
  info.memoryTypeIndex = 0;
  info.size = 0;
  CHECK(api().CreateBuffer(env.device(), &info, nullptr, &buffer) == XGPU_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("many small buffers share blocks; freed ranges are reused; large buffers stand alone") {
  Env env;
  constexpr int kCount = 1000;
  std::vector<XgpuBuffer> buffers;
  std::vector<uint64_t> addresses;
  for (int i = 0; i < kCount; ++i) {
    buffers.push_back(env.buffer(1000 + i));
    addresses.push_back(api().GetBufferDeviceAddress(env.device(), buffers.back()));
  }
  // ~1.3 MB of small buffers fit in one block: every address within 64 MiB.
  const auto [lo, hi] = std::minmax_element(addresses.begin(), addresses.end());
  CHECK(*hi - *lo < kBlock);
  StatsProbe stats(env);
  CHECK(stats().blockCount == 1);
  CHECK(std::set<uint64_t>(addresses.begin(), addresses.end()).size() == size_t(kCount));
  // Free one in the middle; a same-sized buffer takes its place (first fit).
  const uint64_t freed = addresses[500];
  api().DestroyBuffer(env.device(), buffers[500], nullptr);
  buffers[500] = env.buffer(1000);
  CHECK(api().GetBufferDeviceAddress(env.device(), buffers[500]) == freed);
  // A large buffer gets its own allocation outside the block.
  XgpuBuffer large = env.buffer(32ull << 20);
  const uint64_t large_address = api().GetBufferDeviceAddress(env.device(), large);
  CHECK((large_address + (32ull << 20) <= *lo || large_address >= *lo + kBlock));
  api().DestroyBuffer(env.device(), large, nullptr);
  for (XgpuBuffer b : buffers) api().DestroyBuffer(env.device(), b, nullptr);
  // After everything was freed the (spare) block is reused: same base.
  XgpuBuffer again = env.buffer(64);
  CHECK(api().GetBufferDeviceAddress(env.device(), again) == *lo);
  api().DestroyBuffer(env.device(), again, nullptr);
}

TEST_CASE("filling more than one block adds blocks and trims back to one spare") {
  Env env;
  StatsProbe stats(env);
  CHECK(stats().blockCount == 0);  // nothing reserved before the first buffer
  std::vector<XgpuBuffer> buffers;
  std::vector<uint64_t> addresses;
  // 3 MiB buffers (sub-allocated): 21 per 64 MiB block; 50 need 3 blocks.
  for (int i = 0; i < 50; ++i) {
    buffers.push_back(env.buffer(3 * kMiB));
    addresses.push_back(api().GetBufferDeviceAddress(env.device(), buffers.back()));
  }
  const auto [lo, hi] = std::minmax_element(addresses.begin(), addresses.end());
  CHECK(*hi - *lo >= kBlock);
  AllocatorStats full = stats();
  CHECK(full.blockCount == 3);
  CHECK(full.emptyBlockCount == 0);
  CHECK(full.blockBytes == 3 * kBlock);
  CHECK(full.subAllocatedBytes == 50 * 3 * kMiB);
  CHECK(full.dedicatedCount == 0);

  SUBCASE("freed in creation order") {
    for (XgpuBuffer b : buffers) api().DestroyBuffer(env.device(), b, nullptr);
  }
  SUBCASE("freed in reverse, the first block last") {
    for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) api().DestroyBuffer(env.device(), *it, nullptr);
  }
  SUBCASE("freed from the middle out") {
    for (size_t i = 0; i < buffers.size(); ++i) {
      const size_t j = (i % 2) ? buffers.size() / 2 + i / 2 : buffers.size() / 2 - 1 - i / 2;
      api().DestroyBuffer(env.device(), buffers[j], nullptr);
      // At no point more than one empty block is held.
      REQUIRE(stats().emptyBlockCount <= 1);
    }
  }
  // Trimmed to the one spare block.
  AllocatorStats trimmed = stats();
  CHECK(trimmed.blockCount == 1);
  CHECK(trimmed.emptyBlockCount == 1);
  CHECK(trimmed.blockBytes == kBlock);
  CHECK(trimmed.subAllocatedBytes == 0);

  // The spare is reused: no new block.
  XgpuBuffer b = env.buffer(256);
  CHECK(api().GetBufferDeviceAddress(env.device(), b) != 0);
  AllocatorStats one = stats();
  CHECK(one.blockCount == 1);
  CHECK(one.emptyBlockCount == 0);
  CHECK(one.subAllocatedBytes == 256);
  // A large buffer is its own HSA allocation, returned at once.
  XgpuBuffer large = env.buffer(32 * kMiB);
  CHECK(stats().dedicatedCount == 1);
  CHECK(stats().dedicatedBytes == 32 * kMiB);
  CHECK(stats().blockCount == 1);
  api().DestroyBuffer(env.device(), large, nullptr);
  CHECK(stats().dedicatedCount == 0);
  CHECK(stats().dedicatedBytes == 0);
  api().DestroyBuffer(env.device(), b, nullptr);
  CHECK(stats().blockCount == 1);
  CHECK(stats().emptyBlockCount == 1);
}
