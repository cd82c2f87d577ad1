// The core's agents (hsa-core/include/hsa_core/agent.h) through every agent
// a runtime offers: every attribute answered and consistent with the
// others (names terminated, kernel-agent limits present exactly on kernel
// agents, the cache sizes those the caches report), caches, and the
// refusals (unknown agent or cache, null value, unknown attribute, no
// runtime); queues: hsa_queue_create's checks against the agent's limits
// (sizes, types, QUEUES_MAX), destroy, inactivate, profiling, soft queues,
// queues left to hsa_shut_down; a queue's CU mask and priority, the agents'
// coherency. Nothing here assumes which runtime it runs on: hsa_cpu_tests
// runs it on hsa-cpu (with one agent and with three), hsa_cuda_core_tests
// on hsa-cuda (its host agent and its GPUs).
#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa_ext_image.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

// A name attribute: `bytes` bytes, terminated inside them.
// (The attribute as a number: hsa_ext_amd.h's values are not hsa_agent_info_t's
// enumerators, and UBSan rejects an enum parameter holding one.)
std::string name_of(hsa_agent_t agent, uint32_t attribute, size_t bytes) {
  std::vector<char> buffer(bytes + 16, '\x7f');
  REQUIRE(hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(attribute), buffer.data()) == HSA_STATUS_SUCCESS);
  const size_t length = strnlen(buffer.data(), bytes);
  CHECK(length < bytes);
  for (size_t i = bytes; i < buffer.size(); ++i) CHECK(buffer[i] == '\x7f');  // nothing written past it
  return std::string(buffer.data(), length);
}

template <typename T>
T info(hsa_agent_t agent, uint32_t attribute) {
  T value{};
  REQUIRE(hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(attribute), &value) == HSA_STATUS_SUCCESS);
  return value;
}

struct CacheFacts {
  std::string name;
  uint8_t level = 0;
  uint32_t size = 0;
};

std::vector<CacheFacts> caches_of(hsa_agent_t agent) {
  std::vector<hsa_cache_t> handles;
  REQUIRE(hsa_agent_iterate_caches(
              agent,
              [](hsa_cache_t cache, void* data) {
                static_cast<std::vector<hsa_cache_t>*>(data)->push_back(cache);
                return HSA_STATUS_SUCCESS;
              },
              &handles) == HSA_STATUS_SUCCESS);
  std::vector<CacheFacts> out;
  for (hsa_cache_t cache : handles) {
    CacheFacts c;
    uint32_t length = 0;
    REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS);
    std::vector<char> name(length + 1, 'x');
    REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_NAME, name.data()) == HSA_STATUS_SUCCESS);
    CHECK(name[length] == '\0');
    CHECK(std::strlen(name.data()) == length);
    c.name = name.data();
    REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_LEVEL, &c.level) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, &c.size) == HSA_STATUS_SUCCESS);
    uint32_t unused = 0;
    CHECK(hsa_cache_get_info(cache, static_cast<hsa_cache_info_t>(0x7fff), &unused) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_SUITE("agents-core") {

TEST_CASE("every agent answers every attribute, consistently") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::vector<hsa_agent_t> agents = Runtime::agents();
  REQUIRE(!agents.empty());
  std::set<uint32_t> nodes;
  bool any_kernel_agent = false;
  for (hsa_agent_t agent : agents) {
    INFO("agent " << agent.handle);
    CHECK(!name_of(agent, HSA_AGENT_INFO_NAME, 64).empty());
    CHECK(!name_of(agent, HSA_AGENT_INFO_VENDOR_NAME, 64).empty());
    CHECK(!name_of(agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME, 64).empty());
    CHECK(!name_of(agent, HSA_AMD_AGENT_INFO_UUID, 21).empty());
    nodes.insert(info<uint32_t>(agent, HSA_AGENT_INFO_NODE));
    CHECK(info<uint32_t>(agent, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID) == info<uint32_t>(agent, HSA_AGENT_INFO_NODE));
    const auto device = info<hsa_device_type_t>(agent, HSA_AGENT_INFO_DEVICE);
    CHECK((device == HSA_DEVICE_TYPE_CPU || device == HSA_DEVICE_TYPE_GPU));
    const auto profile = info<hsa_profile_t>(agent, HSA_AGENT_INFO_PROFILE);
    CHECK((profile == HSA_PROFILE_BASE || profile == HSA_PROFILE_FULL));
    CHECK(info<hsa_machine_model_t>(agent, HSA_AGENT_INFO_MACHINE_MODEL) == HSA_MACHINE_MODEL_LARGE);
    CHECK(info<uint16_t>(agent, HSA_AGENT_INFO_VERSION_MAJOR) == 1);
    CHECK(info<hsa_queue_type32_t>(agent, HSA_AGENT_INFO_QUEUE_TYPE) == HSA_QUEUE_TYPE_MULTI);
    uint8_t extensions[128];
    std::memset(extensions, 0xff, sizeof extensions);
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_EXTENSIONS, extensions) == HSA_STATUS_SUCCESS);
    for (uint8_t byte : extensions) CHECK(byte == 0);  // no extension is offered
    const bool kernel_agent =
        (info<uint32_t>(agent, HSA_AGENT_INFO_FEATURE) & HSA_AGENT_FEATURE_KERNEL_DISPATCH) != 0;
    any_kernel_agent |= kernel_agent;
    const uint32_t wavefront = info<uint32_t>(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE);
    uint16_t dims[3] = {7, 7, 7};
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, dims) == HSA_STATUS_SUCCESS);
    const uint32_t workgroup_max = info<uint32_t>(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE);
    const hsa_dim3_t grid = info<hsa_dim3_t>(agent, HSA_AGENT_INFO_GRID_MAX_DIM);
    const uint32_t queues_max = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUES_MAX);
    const uint32_t queue_min = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE);
    const uint32_t queue_max = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
    const hsa_isa_t isa = info<hsa_isa_t>(agent, HSA_AGENT_INFO_ISA);
    if (kernel_agent) {
      CHECK(wavefront > 0);
      CHECK((wavefront & (wavefront - 1)) == 0);
      CHECK(workgroup_max >= wavefront);
      for (uint16_t d : dims) CHECK((d >= 1 && d <= workgroup_max));
      CHECK((grid.x > 0 && grid.y > 0 && grid.z > 0));
      CHECK(info<uint32_t>(agent, HSA_AGENT_INFO_GRID_MAX_SIZE) > 0);
      CHECK(info<uint32_t>(agent, HSA_AGENT_INFO_FBARRIER_MAX_SIZE) >= 32);  // HSA's minimum for a kernel agent
      CHECK(queues_max > 0);
      CHECK((queue_min > 0 && queue_min <= queue_max));
      CHECK((queue_max & (queue_max - 1)) == 0);
      CHECK(isa.handle != 0);
      // Its ISA is one the runtime describes, with the same wavefront.
      uint32_t name_length = 0;
      CHECK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &name_length) == HSA_STATUS_SUCCESS);
      CHECK(name_length > 0);
      CHECK(info<uint32_t>(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT) > 0);
      CHECK(info<uint64_t>(agent, 0xA016) > 0);  // HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY
      CHECK(info<uint32_t>(agent, HSA_AMD_AGENT_INFO_CACHELINE_SIZE) > 0);
    } else {
      // Kernel-agent attributes of an agent that dispatches no kernel: 0.
      CHECK(wavefront == 0);
      CHECK((dims[0] == 0 && dims[1] == 0 && dims[2] == 0));
      CHECK(workgroup_max == 0);
      CHECK(queues_max == 0);
      CHECK(isa.handle == 0);
    }
    // The other ROCR attributes answer (their values are the device's).
    for (uint32_t attribute :
         {uint32_t(HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY), uint32_t(HSA_AMD_AGENT_INFO_CHIP_ID),
          uint32_t(HSA_AMD_AGENT_INFO_BDFID), uint32_t(HSA_AMD_AGENT_INFO_DOMAIN),
          uint32_t(HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU), uint32_t(HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU),
          uint32_t(HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES), uint32_t(HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE),
          uint32_t(HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT), uint32_t(HSA_AMD_AGENT_INFO_ASIC_REVISION),
          uint32_t(HSA_AMD_AGENT_INFO_MEMORY_WIDTH), uint32_t(HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY),
          uint32_t(HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS)}) {
      INFO("attribute 0x" << std::hex << attribute);
      (void)info<uint32_t>(agent, attribute);
    }
    CHECK(info<uint32_t>(agent, HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT) ==
          info<uint32_t>(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT));
    CHECK(info<bool>(agent, HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES) == false);
    (void)info<bool>(agent, HSA_AGENT_INFO_FAST_F16_OPERATION);
    (void)info<bool>(agent, HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS);
    hsa_amd_hdp_flush_t flush{reinterpret_cast<uint32_t*>(1), reinterpret_cast<uint32_t*>(1)};
    REQUIRE(hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_HDP_FLUSH), &flush) ==
            HSA_STATUS_SUCCESS);
    CHECK((flush.HDP_MEM_FLUSH_CNTL == nullptr && flush.HDP_REG_FLUSH_CNTL == nullptr));
    // No image support: the image extension's attributes say so.
    CHECK(info<uint32_t>(agent, HSA_EXT_AGENT_INFO_MAX_IMAGE_RD_HANDLES) == 0);
    // Its caches: what CACHE_SIZE says, level by level.
    const std::vector<CacheFacts> caches = caches_of(agent);
    uint32_t sizes[4] = {9, 9, 9, 9};
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_CACHE_SIZE, sizes) == HSA_STATUS_SUCCESS);
    uint32_t expected[4] = {0, 0, 0, 0};
    for (const CacheFacts& c : caches) {
      CHECK(!c.name.empty());
      CHECK((c.level >= 1 && c.level <= 4));
      CHECK(c.size > 0);
      if (c.level >= 1 && c.level <= 4) expected[c.level - 1] = c.size;
    }
    for (int level = 0; level < 4; ++level) CHECK(sizes[level] == expected[level]);
    // Refusals about this agent.
    uint32_t unused = 0;
    CHECK(hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(0x7fffu), &unused) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_NODE, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_agent_iterate_caches(agent, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  }
  CHECK(nodes.size() == agents.size());  // one node per agent
  CHECK(any_kernel_agent);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("an iteration stops at the callback's first other status, which it returns") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  int calls = 0;
  CHECK(hsa_iterate_agents(
            [](hsa_agent_t, void* data) {
              ++*static_cast<int*>(data);
              return HSA_STATUS_INFO_BREAK;
            },
            &calls) == HSA_STATUS_INFO_BREAK);
  CHECK(calls == 1);
  for (hsa_agent_t agent : Runtime::agents()) {
    int cache_calls = 0;
    const hsa_status_t status = hsa_agent_iterate_caches(
        agent,
        [](hsa_cache_t, void* data) {
          ++*static_cast<int*>(data);
          return HSA_STATUS_INFO_BREAK;
        },
        &cache_calls);
    if (caches_of(agent).empty()) {
      CHECK(status == HSA_STATUS_SUCCESS);
      CHECK(cache_calls == 0);
    } else {
      CHECK(status == HSA_STATUS_INFO_BREAK);
      CHECK(cache_calls == 1);
    }
  }
  CHECK(hsa_iterate_agents(nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("handles that are not agents or caches, and calls without a runtime, are refused") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  uint32_t value = 0;
  int local = 0;
  const hsa_agent_t bogus{reinterpret_cast<uint64_t>(&local)};
  CHECK(hsa_agent_get_info(bogus, HSA_AGENT_INFO_NODE, &value) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_agent_get_info(hsa_agent_t{0}, HSA_AGENT_INFO_NODE, &value) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_agent_iterate_caches(bogus, [](hsa_cache_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
        HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_cache_get_info(hsa_cache_t{reinterpret_cast<uint64_t>(&local)}, HSA_CACHE_INFO_SIZE, &value) ==
        HSA_STATUS_ERROR_INVALID_CACHE);
  const hsa_agent_t first = Runtime::agents().front();
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(hsa_iterate_agents([](hsa_agent_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
        HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_agent_get_info(first, HSA_AGENT_INFO_NODE, &value) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_cache_get_info(hsa_cache_t{1}, HSA_CACHE_INFO_SIZE, &value) == HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_CASE("a kernel agent's queue keeps its CU mask and priority; every agent is coherent") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  for (hsa_agent_t agent : Runtime::agents()) {
    INFO("agent " << agent.handle);
    hsa_amd_coherency_type_t type{};
    CHECK(hsa_amd_coherency_get_type(agent, &type) == HSA_STATUS_SUCCESS);
    CHECK(type == HSA_AMD_COHERENCY_TYPE_COHERENT);
    CHECK(hsa_amd_coherency_set_type(agent, HSA_AMD_COHERENCY_TYPE_COHERENT) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_coherency_set_type(agent, static_cast<hsa_amd_coherency_type_t>(7)) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_coherency_get_type(agent, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    if ((info<uint32_t>(agent, HSA_AGENT_INFO_FEATURE) & HSA_AGENT_FEATURE_KERNEL_DISPATCH) == 0) continue;
    const uint32_t units = info<uint32_t>(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT);
    REQUIRE(units > 0);
    const uint32_t words = (units + 31) / 32 + 1;  // one word more than the units need
    hsa_queue_t* queue = nullptr;
    REQUIRE(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
            HSA_STATUS_SUCCESS);
    // At first: every compute unit, and no bit past them.
    std::vector<uint32_t> mask(words, 0xdeadbeef);
    REQUIRE(hsa_amd_queue_cu_get_mask(queue, words * 32, mask.data()) == HSA_STATUS_SUCCESS);
    for (uint32_t unit = 0; unit < words * 32; ++unit)
      CHECK(((mask[unit / 32] >> (unit % 32)) & 1u) == (unit < units ? 1u : 0u));
    // A mask of the even units reads back as the even units the agent has.
    std::vector<uint32_t> even(words, 0x55555555u);
    REQUIRE(hsa_amd_queue_cu_set_mask(queue, words * 32, even.data()) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_queue_cu_get_mask(queue, words * 32, mask.data()) == HSA_STATUS_SUCCESS);
    for (uint32_t unit = 0; unit < words * 32; ++unit)
      CHECK(((mask[unit / 32] >> (unit % 32)) & 1u) == (unit < units && unit % 2 == 0 ? 1u : 0u));
    // A count of 0 restores every unit.
    REQUIRE(hsa_amd_queue_cu_set_mask(queue, 0, nullptr) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_queue_cu_get_mask(queue, 32, mask.data()) == HSA_STATUS_SUCCESS);
    CHECK(mask[0] == (units >= 32 ? 0xffffffffu : (1u << units) - 1u));
    CHECK(hsa_amd_queue_cu_set_mask(queue, 33, even.data()) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_queue_cu_set_mask(queue, 32, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_queue_cu_get_mask(queue, 0, mask.data()) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    for (hsa_amd_queue_priority_t priority :
         {HSA_AMD_QUEUE_PRIORITY_LOW, HSA_AMD_QUEUE_PRIORITY_NORMAL, HSA_AMD_QUEUE_PRIORITY_HIGH})
      CHECK(hsa_amd_queue_set_priority(queue, priority) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_queue_set_priority(queue, static_cast<hsa_amd_queue_priority_t>(9)) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    REQUIRE(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
    // A destroyed queue is no queue.
    CHECK(hsa_amd_queue_cu_get_mask(queue, 32, mask.data()) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_amd_queue_set_priority(queue, HSA_AMD_QUEUE_PRIORITY_NORMAL) == HSA_STATUS_ERROR_INVALID_QUEUE);
  }
  CHECK(hsa_amd_queue_cu_set_mask(nullptr, 0, nullptr) == HSA_STATUS_ERROR_INVALID_QUEUE);
  const hsa_agent_t bogus{8};
  hsa_amd_coherency_type_t type{};
  CHECK(hsa_amd_coherency_get_type(bogus, &type) == HSA_STATUS_ERROR_INVALID_AGENT);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("hsa_queue_create checks every argument against the agent; the core keeps each queue until it is destroyed") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  auto create = [](hsa_agent_t agent, uint32_t size, uint32_t type, uint32_t group, hsa_queue_t** queue) {
    return hsa_queue_create(agent, size, static_cast<hsa_queue_type32_t>(type), nullptr, nullptr, UINT32_MAX, group,
                            queue);
  };
  for (hsa_agent_t agent : Runtime::agents()) {
    INFO("agent " << agent.handle);
    hsa_queue_t* queue = nullptr;
    if ((info<uint32_t>(agent, HSA_AGENT_INFO_FEATURE) & HSA_AGENT_FEATURE_KERNEL_DISPATCH) == 0) {
      CHECK(create(agent, 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
      CHECK(queue == nullptr);
      continue;
    }
    const uint32_t min_size = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE);
    const uint32_t max_size = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
    const uint32_t queues_max = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUES_MAX);
    REQUIRE(min_size >= 1);
    REQUIRE(max_size >= min_size);
    REQUIRE(queues_max >= 1);
    REQUIRE(queues_max <= 1024);
    // Sizes: a power of two up to the maximum; below the minimum, the minimum.
    CHECK(create(agent, 0, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(create(agent, 96, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(create(agent, max_size * 2, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(create(agent, 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(create(agent, 64, 77, UINT32_MAX, &queue) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(queue == nullptr);
    REQUIRE(create(agent, 1, HSA_QUEUE_TYPE_SINGLE, UINT32_MAX, &queue) == HSA_STATUS_SUCCESS);
    CHECK(queue->size == min_size);
    CHECK(queue->type == HSA_QUEUE_TYPE_SINGLE);
    CHECK((queue->features & HSA_QUEUE_FEATURE_KERNEL_DISPATCH) != 0);
    CHECK(queue->doorbell_signal.handle != 0);
    CHECK(hsa_queue_load_read_index_relaxed(queue) == 0);
    REQUIRE(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
    // The agent's QUEUES_MAX queues at once, and not one more; one destroyed makes room.
    std::vector<hsa_queue_t*> queues(queues_max, nullptr);
    for (uint32_t i = 0; i < queues_max; ++i) {
      CAPTURE(i);
      REQUIRE(create(agent, min_size, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queues[i]) == HSA_STATUS_SUCCESS);
    }
    std::set<uint64_t> ids;
    for (hsa_queue_t* q : queues) ids.insert(q->id);
    CHECK(ids.size() == queues_max);
    queue = nullptr;
    CHECK(create(agent, min_size, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK(queue == nullptr);
    REQUIRE(hsa_queue_destroy(queues.back()) == HSA_STATUS_SUCCESS);
    REQUIRE(create(agent, min_size, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queues.back()) == HSA_STATUS_SUCCESS);
    for (hsa_queue_t* q : queues) REQUIRE(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
    // A destroyed queue is no queue to any entry point.
    hsa_queue_t* gone = queues.front();
    CHECK(hsa_queue_destroy(gone) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_queue_inactivate(gone) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_amd_profiling_set_profiler_enabled(gone, 1) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_queue_destroy(nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_queue_inactivate(nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_profiling_set_profiler_enabled(nullptr, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    // Profiling: the queue's property bit follows the call.
    REQUIRE(create(agent, min_size, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_SUCCESS);
    auto* amd = reinterpret_cast<amd_queue_t*>(queue);
    CHECK((amd->queue_properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) == 0);
    REQUIRE(hsa_amd_profiling_set_profiler_enabled(queue, 1) == HSA_STATUS_SUCCESS);
    CHECK((amd->queue_properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) != 0);
    REQUIRE(hsa_amd_profiling_set_profiler_enabled(queue, 0) == HSA_STATUS_SUCCESS);
    CHECK((amd->queue_properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) == 0);
    // Inactivated, it is still a queue until destroyed.
    REQUIRE(hsa_queue_inactivate(queue) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  }
  const hsa_agent_t bogus{8};
  hsa_queue_t* queue = nullptr;
  CHECK(create(bogus, 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_INVALID_AGENT);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(create(bogus, 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, &queue) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_queue_destroy(nullptr) == HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_CASE("a soft queue lives on the application's doorbell, in a global region, until destroyed") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  std::vector<hsa_region_t> global, group;
  for (hsa_agent_t agent : Runtime::agents()) {
    struct Found {
      std::vector<hsa_region_t>* global;
      std::vector<hsa_region_t>* group;
    } found{&global, &group};
    REQUIRE(hsa_agent_iterate_regions(
                agent,
                [](hsa_region_t region, void* data) {
                  auto* f = static_cast<Found*>(data);
                  hsa_region_segment_t segment{};
                  if (hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS)
                    return HSA_STATUS_ERROR;
                  if (segment == HSA_REGION_SEGMENT_GLOBAL) f->global->push_back(region);
                  if (segment == HSA_REGION_SEGMENT_GROUP) f->group->push_back(region);
                  return HSA_STATUS_SUCCESS;
                },
                &found) == HSA_STATUS_SUCCESS);
  }
  REQUIRE(!global.empty());
  hsa_signal_t doorbell{};
  REQUIRE(hsa_signal_create(0, 0, nullptr, &doorbell) == HSA_STATUS_SUCCESS);
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_soft_queue_create(global.front(), 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                                &queue) == HSA_STATUS_SUCCESS);
  CHECK(queue->size == 64);
  CHECK(queue->features == HSA_QUEUE_FEATURE_AGENT_DISPATCH);
  CHECK(queue->doorbell_signal.handle == doorbell.handle);
  CHECK(queue->base_address != nullptr);
  // Its ring starts with no packet; the host writes one and publishes it.
  auto* slot = static_cast<uint16_t*>(queue->base_address);
  CHECK((slot[0] & 0xff) == HSA_PACKET_TYPE_INVALID);
  const uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
  CHECK(index == 0);
  hsa_signal_store_relaxed(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
  CHECK(hsa_signal_load_relaxed(doorbell) == 0);
  REQUIRE(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_load_relaxed(doorbell) == 0);  // the application's signal outlives the queue
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_ERROR_INVALID_QUEUE);
  // Refusals.
  if (!group.empty()) {
    CHECK(hsa_soft_queue_create(group.front(), 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                                &queue) == HSA_STATUS_ERROR_INVALID_REGION);
  }
  CHECK(hsa_soft_queue_create(hsa_region_t{8}, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                              &queue) == HSA_STATUS_ERROR_INVALID_REGION);
  CHECK(hsa_soft_queue_create(global.front(), 96, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                              &queue) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_soft_queue_create(global.front(), 64, HSA_QUEUE_TYPE_MULTI, 0, doorbell, &queue) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_soft_queue_create(global.front(), 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH,
                              hsa_signal_t{0}, &queue) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_soft_queue_create(global.front(), 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                              nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  REQUIRE(hsa_signal_destroy(doorbell) == HSA_STATUS_SUCCESS);
  CHECK(hsa_soft_queue_create(global.front(), 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, doorbell,
                              &queue) == HSA_STATUS_ERROR_INVALID_SIGNAL);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("queues left alive are destroyed by the last hsa_shut_down, and a new runtime starts with none") {
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    for (hsa_agent_t agent : Runtime::agents()) {
      if ((info<uint32_t>(agent, HSA_AGENT_INFO_FEATURE) & HSA_AGENT_FEATURE_KERNEL_DISPATCH) == 0) continue;
      const uint32_t queues_max = info<uint32_t>(agent, HSA_AGENT_INFO_QUEUES_MAX);
      // Every one of the agent's queues, left alive: the next runtime's count starts at 0 again.
      for (uint32_t i = 0; i < queues_max; ++i) {
        hsa_queue_t* queue = nullptr;
        REQUIRE(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
                HSA_STATUS_SUCCESS);
      }
    }
    REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  }
}

}  // TEST_SUITE
