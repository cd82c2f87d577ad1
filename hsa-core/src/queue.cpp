// CU masks, queue priorities and coherency types (queue.h).
#include "hsa_core/queue.h"

#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "hsa_core/agent.h"
#include "hsa_core/backend.h"
#include "hsa_core/platform.h"

namespace hsa_core {
namespace {

// What a queue was given. A queue the map does not hold has its defaults:
// every compute unit, normal priority.
struct QueueSettings {
  std::vector<uint32_t> cu_mask;  // the last mask set (empty: all compute units)
  hsa_amd_queue_priority_t priority = HSA_AMD_QUEUE_PRIORITY_NORMAL;
};

std::mutex g_mutex;
std::map<const hsa_queue_t*, QueueSettings>& settings() {
  static auto* map = new std::map<const hsa_queue_t*, QueueSettings>();  // never destroyed: used at exit
  return *map;
}

// The compute units of the live queue's agent; false for an unknown queue.
bool queue_compute_units(const hsa_queue_t* queue, uint32_t* units) {
  if (queue == nullptr || backend().queue_agent == nullptr) return false;
  const hsa_agent_t agent = backend().queue_agent(queue);
  AgentDescription description;
  if (agent.handle == 0 || !backend().describe_agent(agent, &description)) return false;
  *units = description.compute_units;
  return true;
}

}  // namespace

void forget_queue(const hsa_queue_t* queue) {
  std::lock_guard<std::mutex> lock(g_mutex);
  settings().erase(queue);
}

void forget_all_queues() {
  std::lock_guard<std::mutex> lock(g_mutex);
  settings().clear();
}

}  // namespace hsa_core

using hsa_core::backend;

// A count of 0 (cu_mask may then be NULL) restores the full mask. The mask
// is recorded and read back; the back-ends run a queue's work where they
// run it (hsa-cpu's workers are shared by all queues, CUDA schedules its
// SMs itself).
HSA_CORE_EXPORT hsa_status_t hsa_amd_queue_cu_set_mask(const hsa_queue_t* queue, uint32_t num_cu_mask_count,
                                                       const uint32_t* cu_mask) {
  HSA_CORE_REQUIRE_INIT();
  uint32_t units = 0;
  if (!hsa_core::queue_compute_units(queue, &units)) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (num_cu_mask_count % 32 != 0 || (num_cu_mask_count != 0 && cu_mask == nullptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
    hsa_core::settings()[queue].cu_mask.assign(cu_mask, cu_mask + num_cu_mask_count / 32);
  } catch (const std::bad_alloc&) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

// The agent's compute units, less those the last mask left out.
HSA_CORE_EXPORT hsa_status_t hsa_amd_queue_cu_get_mask(const hsa_queue_t* queue, uint32_t num_cu_mask_count,
                                                       uint32_t* cu_mask) {
  HSA_CORE_REQUIRE_INIT();
  uint32_t units = 0;
  if (!hsa_core::queue_compute_units(queue, &units)) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (num_cu_mask_count == 0 || num_cu_mask_count % 32 != 0 || cu_mask == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
  const auto it = hsa_core::settings().find(queue);
  for (uint32_t w = 0; w < num_cu_mask_count / 32; ++w) {
    uint32_t bits = 0;
    for (uint32_t b = 0; b < 32; ++b)
      if (w * 32 + b < units) bits |= 1u << b;
    if (it != hsa_core::settings().end() && !it->second.cu_mask.empty())
      bits &= w < it->second.cu_mask.size() ? it->second.cu_mask[w] : 0xffffffffu;
    cu_mask[w] = bits;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_queue_set_priority(hsa_queue_t* queue, hsa_amd_queue_priority_t priority) {
  HSA_CORE_REQUIRE_INIT();
  uint32_t units = 0;
  if (!hsa_core::queue_compute_units(queue, &units)) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (hsa_core::enum_bits(priority) > HSA_AMD_QUEUE_PRIORITY_HIGH) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
    hsa_core::settings()[queue].priority = priority;
  } catch (const std::bad_alloc&) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

// Every agent sees host memory coherently (hsa-cpu's are the host's cores;
// hsa-cuda's pinned memory is mapped coherently): COHERENT, and either type
// is accepted.
HSA_CORE_EXPORT hsa_status_t hsa_amd_coherency_get_type(hsa_agent_t agent, hsa_amd_coherency_type_t* type) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (type == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *type = HSA_AMD_COHERENCY_TYPE_COHERENT;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_coherency_set_type(hsa_agent_t agent, hsa_amd_coherency_type_t type) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (hsa_core::enum_bits(type) != HSA_AMD_COHERENCY_TYPE_COHERENT &&
      hsa_core::enum_bits(type) != HSA_AMD_COHERENCY_TYPE_NONCOHERENT)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}
