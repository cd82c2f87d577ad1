// Agents and caches: hsa_iterate_agents, hsa_agent_get_info,
// hsa_agent_iterate_caches, hsa_cache_get_info (agent.h), answered from the
// back-end's descriptions.
#include "hsa_core/agent.h"

#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "hsa_core/backend.h"
#include "hsa_core/platform.h"

namespace hsa_core {
namespace {

// HSA's names are 64 bytes with the terminating NUL; the rest is zeroed.
constexpr size_t kNameBytes = 64;
// HSA_AGENT_INFO_EXTENSIONS: a 128-byte mask (no extension is offered).
constexpr size_t kExtensionMaskBytes = 128;
// HSA_AMD_AGENT_INFO_UUID: char[21].
constexpr size_t kUuidBytes = 21;
// hsa_ext_amd.h of some versions lacks this attribute's name.
constexpr uint32_t kAgentInfoTimestampFrequency = 0xA016;
constexpr uint16_t kHsaVersionMajor = 1, kHsaVersionMinor = 1;

void put_name(void* value, const char* name, size_t bytes = kNameBytes) {
  std::memset(value, 0, bytes);
  std::memcpy(value, name, std::min(std::strlen(name), bytes - 1));
}

template <typename T>
void put(void* value, T v) {
  std::memcpy(value, &v, sizeof v);
}

// The agents the back-end lists (a handful: copied per call).
std::vector<hsa_agent_t> all_agents() {
  Backend& b = backend();
  std::vector<hsa_agent_t> agents(8);
  for (;;) {
    const size_t n = b.agents(agents.data(), agents.size());
    if (n <= agents.size()) {
      agents.resize(n);
      return agents;
    }
    agents.resize(n);
  }
}

}  // namespace
}  // namespace hsa_core

using hsa_core::backend;

HSA_CORE_EXPORT hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t agent, void* data), void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<hsa_agent_t> agents;
  try {
    agents = hsa_core::all_agents();
  } catch (const std::bad_alloc&) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  for (hsa_agent_t agent : agents) {
    const hsa_status_t status = callback(agent, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  using hsa_core::put;
  HSA_CORE_REQUIRE_INIT();
  hsa_core::AgentDescription a;
  if (!backend().describe_agent(agent, &a)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (hsa_core::enum_bits(attribute)) {
    case HSA_AGENT_INFO_NAME: hsa_core::put_name(value, a.name); break;
    case HSA_AGENT_INFO_VENDOR_NAME: hsa_core::put_name(value, a.vendor_name); break;
    case HSA_AGENT_INFO_FEATURE:
      put<hsa_agent_feature_t>(value, a.kernel_dispatch ? HSA_AGENT_FEATURE_KERNEL_DISPATCH : hsa_agent_feature_t(0));
      break;
    case HSA_AGENT_INFO_MACHINE_MODEL: put(value, HSA_MACHINE_MODEL_LARGE); break;
    case HSA_AGENT_INFO_PROFILE: put(value, a.profile); break;
    case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
      put(value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
      break;
    case HSA_AGENT_INFO_FAST_F16_OPERATION: put<bool>(value, a.fast_f16); break;
    case HSA_AGENT_INFO_WAVEFRONT_SIZE: put(value, a.wavefront_size); break;
    case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: std::memcpy(value, a.workgroup_max_dim, sizeof a.workgroup_max_dim); break;
    case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: put(value, a.workgroup_max_size); break;
    case HSA_AGENT_INFO_GRID_MAX_DIM: put(value, a.grid_max_dim); break;
    case HSA_AGENT_INFO_GRID_MAX_SIZE: put(value, a.grid_max_size); break;
    case HSA_AGENT_INFO_FBARRIER_MAX_SIZE: put(value, a.fbarrier_max_size); break;
    case HSA_AGENT_INFO_QUEUES_MAX: put(value, a.queues_max); break;
    case HSA_AGENT_INFO_QUEUE_MIN_SIZE: put(value, a.queue_min_size); break;
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE: put(value, a.queue_max_size); break;
    case HSA_AGENT_INFO_QUEUE_TYPE: put(value, HSA_QUEUE_TYPE_MULTI); break;
    case HSA_AGENT_INFO_NODE: put(value, a.node); break;
    case HSA_AGENT_INFO_DEVICE: put(value, a.device); break;
    case HSA_AGENT_INFO_CACHE_SIZE: {
      // The sizes of the L1..L4 caches the back-end lists (0: none).
      uint32_t sizes[4] = {0, 0, 0, 0};
      uint64_t caches[8];
      const size_t n = backend().agent_caches != nullptr ? backend().agent_caches(agent, caches, 8) : 0;
      for (size_t i = 0; i < n && i < 8; ++i) {
        hsa_core::CacheDescription c;
        if (backend().describe_cache(caches[i], &c) && c.level >= 1 && c.level <= 4) sizes[c.level - 1] = c.size;
      }
      std::memcpy(value, sizes, sizeof sizes);
      break;
    }
    case HSA_AGENT_INFO_ISA: put(value, a.isa); break;
    case HSA_AGENT_INFO_EXTENSIONS: std::memset(value, 0, hsa_core::kExtensionMaskBytes); break;
    case HSA_AGENT_INFO_VERSION_MAJOR: put(value, hsa_core::kHsaVersionMajor); break;
    case HSA_AGENT_INFO_VERSION_MINOR: put(value, hsa_core::kHsaVersionMinor); break;
    case HSA_AMD_AGENT_INFO_CACHELINE_SIZE: put(value, a.cacheline_size); break;
    case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: put(value, a.compute_units); break;
    case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: put(value, a.max_clock_mhz); break;
    case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID: put(value, a.node); break;
    case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS: put<uint32_t>(value, 0); break;
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME: hsa_core::put_name(value, a.product_name); break;
    case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: put(value, a.max_waves_per_cu); break;
    case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: put(value, a.simds_per_cu); break;
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES: put(value, a.shader_engines); break;
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE: put(value, a.shader_arrays_per_engine); break;
    case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES: put<bool>(value, false); break;
    case HSA_AMD_AGENT_INFO_UUID: hsa_core::put_name(value, a.uuid, hsa_core::kUuidBytes); break;
    case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS: put<bool>(value, a.svm_direct_host_access); break;
    case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT: put(value, a.compute_units); break;
    case HSA_AMD_AGENT_INFO_CHIP_ID: put(value, a.chip_id); break;
    case HSA_AMD_AGENT_INFO_BDFID: put(value, a.bdfid); break;
    case HSA_AMD_AGENT_INFO_DOMAIN: put(value, a.domain); break;
    // No chip revision, memory width or frequency to tell: 0, as ROCR
    // answers for its CPU agents (and no HDP flush registers).
    case HSA_AMD_AGENT_INFO_ASIC_REVISION:
    case HSA_AMD_AGENT_INFO_MEMORY_WIDTH:
    case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY:
      put<uint32_t>(value, 0);
      break;
    case HSA_AMD_AGENT_INFO_HDP_FLUSH: put(value, hsa_amd_hdp_flush_t{nullptr, nullptr}); break;
    case hsa_core::kAgentInfoTimestampFrequency: put(value, a.timestamp_frequency); break;
    default:
      // hsa_ext_image.h's attributes: no image support.
      if (hsa_core::no_image_agent_info(hsa_core::enum_bits(attribute), value)) break;
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_agent_iterate_caches(hsa_agent_t agent, hsa_status_t (*callback)(hsa_cache_t cache, void* data),
                                      void* data) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::AgentDescription a;
  if (!backend().describe_agent(agent, &a)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint64_t caches[8];
  const size_t n = backend().agent_caches != nullptr ? backend().agent_caches(agent, caches, 8) : 0;
  for (size_t i = 0; i < n && i < 8; ++i) {
    const hsa_status_t status = callback(hsa_cache_t{caches[i]}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::CacheDescription c;
  if (backend().describe_cache == nullptr || !backend().describe_cache(cache.handle, &c))
    return HSA_STATUS_ERROR_INVALID_CACHE;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const size_t length = std::min(std::strlen(c.name), hsa_core::kNameBytes - 1);
  switch (hsa_core::enum_bits(attribute)) {
    case HSA_CACHE_INFO_NAME_LENGTH: hsa_core::put(value, uint32_t(length)); break;
    case HSA_CACHE_INFO_NAME:
      // NAME_LENGTH bytes and the terminating NUL.
      std::memcpy(value, c.name, length);
      static_cast<char*>(value)[length] = '\0';
      break;
    case HSA_CACHE_INFO_LEVEL: hsa_core::put(value, c.level); break;
    case HSA_CACHE_INFO_SIZE: hsa_core::put(value, c.size); break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}
