// Queues: creation and destruction checked here, the registry of live
// queues, CU masks, priorities and coherency types (queue.h).
#include "hsa_core/queue.h"

#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "hsa_core/agent.h"
#include "hsa_core/backend.h"
#include "hsa_core/memory.h"
#include "hsa_core/platform.h"
#include "hsa_core/signal.h"

namespace hsa_core {
namespace {

// A live queue: its agent (a soft queue's: the runtime's first agent), the
// back-end's object, and what it was given. A queue without a mask set has
// every compute unit.
struct QueueEntry {
  hsa_agent_t agent{0};
  void* object = nullptr;
  bool counted = false;           // one of its agent's HSA_AGENT_INFO_QUEUES_MAX (not a soft queue)
  std::vector<uint32_t> cu_mask;  // the last mask set (empty: all compute units)
  hsa_amd_queue_priority_t priority = HSA_AMD_QUEUE_PRIORITY_NORMAL;
};

std::mutex g_mutex;
// Never destroyed: used at exit.
std::map<const hsa_queue_t*, QueueEntry>& entries() {
  static auto* map = new std::map<const hsa_queue_t*, QueueEntry>();
  return *map;
}
std::map<uint64_t, uint32_t>& agent_queue_counts() {
  static auto* map = new std::map<uint64_t, uint32_t>();
  return *map;
}

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// The compute units of the live queue's agent; false for an unknown queue.
bool queue_compute_units(const hsa_queue_t* queue, uint32_t* units) {
  hsa_agent_t agent{0};
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = entries().find(queue);
    if (it == entries().end()) return false;
    agent = it->second.agent;
  }
  AgentDescription description;
  if (agent.handle == 0 || !backend().describe_agent(agent, &description)) return false;
  *units = description.compute_units;
  return true;
}

void release_agent_queue(hsa_agent_t agent) {
  auto& counts = agent_queue_counts();
  const auto it = counts.find(agent.handle);
  if (it != counts.end() && --it->second == 0) counts.erase(it);
}

// Registers a queue the back-end made; on failure destroys it again.
hsa_status_t register_queue(hsa_queue_t* queue, hsa_agent_t agent, void* object, bool counted) {
  try {
    std::lock_guard<std::mutex> lock(g_mutex);
    QueueEntry entry;
    entry.agent = agent;
    entry.object = object;
    entry.counted = counted;
    entries().emplace(queue, std::move(entry));
    return HSA_STATUS_SUCCESS;
  } catch (const std::bad_alloc&) {
    backend().queue_destroy(object);
    if (counted) {
      std::lock_guard<std::mutex> lock(g_mutex);
      release_agent_queue(agent);
    }
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

}  // namespace

void* queue_object(const hsa_queue_t* queue) {
  if (queue == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = entries().find(queue);
  return it != entries().end() ? it->second.object : nullptr;
}

void destroy_all_queues() {
  std::map<const hsa_queue_t*, QueueEntry> live;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    live.swap(entries());
    agent_queue_counts().clear();
  }
  if (!live.empty()) log("hsa_shut_down: %zu queue(s) still live (destroyed now)", live.size());
  for (auto& [queue, entry] : live) backend().queue_destroy(entry.object);
}

}  // namespace hsa_core

using hsa_core::backend;

HSA_CORE_EXPORT hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                              void (*callback)(hsa_status_t status, hsa_queue_t* source, void* data),
                                              void* data, uint32_t private_segment_size, uint32_t group_segment_size,
                                              hsa_queue_t** queue) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::AgentDescription d;
  if (!backend().describe_agent(agent, &d)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!d.kernel_dispatch || d.queues_max == 0 || backend().queue_create == nullptr) {
    hsa_core::log("hsa_queue_create: agent %s takes no queues (no kernel dispatch)", d.name);
    return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  }
  if (queue == nullptr || !hsa_core::is_power_of_two(size) || size > d.queue_max_size) {
    hsa_core::log("hsa_queue_create: size %u must be a power of two in [1, %u] and queue non-null", size,
                  d.queue_max_size);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (type == HSA_QUEUE_TYPE_COOPERATIVE && !d.cooperative_queues) {
    hsa_core::log("hsa_queue_create: agent %s takes no cooperative queues", d.name);
    return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  }
  if (type != HSA_QUEUE_TYPE_MULTI && type != HSA_QUEUE_TYPE_SINGLE && type != HSA_QUEUE_TYPE_COOPERATIVE) {
    hsa_core::log("hsa_queue_create: queue type %u is not one of HSA's", type);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (group_segment_size != UINT32_MAX && d.group_segment_max != 0 && group_segment_size > d.group_segment_max) {
    hsa_core::log("hsa_queue_create: group segment size %u exceeds %u", group_segment_size, d.group_segment_max);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  try {
    // One of the agent's HSA_AGENT_INFO_QUEUES_MAX, reserved.
    std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
    uint32_t& count = hsa_core::agent_queue_counts()[agent.handle];
    if (count >= d.queues_max) {
      hsa_core::log("hsa_queue_create: agent %s already has its maximum of %u queues", d.name, d.queues_max);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    ++count;
  } catch (const std::bad_alloc&) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  hsa_core::QueueRequest request;
  request.agent = agent;
  request.size = std::max(size, d.queue_min_size);
  request.type = type;
  request.callback = callback;
  request.data = data;
  request.private_segment_size = private_segment_size;
  request.group_segment_size = group_segment_size;
  void* object = nullptr;
  hsa_queue_t* made = nullptr;
  const hsa_status_t status = backend().queue_create(request, &object, &made);
  if (status != HSA_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
    hsa_core::release_agent_queue(agent);
    return status;
  }
  const hsa_status_t registered = hsa_core::register_queue(made, agent, object, true);
  if (registered != HSA_STATUS_SUCCESS) return registered;
  *queue = made;
  return HSA_STATUS_SUCCESS;
}

// A queue on the application's doorbell signal, in memory of `region`, with
// no packet processor: the application (or an agent it gives the queue to)
// consumes its packets. Its size is checked against the largest any agent
// takes.
HSA_CORE_EXPORT hsa_status_t hsa_soft_queue_create(hsa_region_t region, uint32_t size, hsa_queue_type32_t type,
                                                   uint32_t features, hsa_signal_t doorbell_signal,
                                                   hsa_queue_t** queue) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::PoolDescription pool;
  if (!backend().describe_pool(region.handle, &pool) || pool.segment != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_ERROR_INVALID_REGION;
  if (doorbell_signal.handle != 0 && !hsa_core::signal_is_live(doorbell_signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  hsa_agent_t agents[64];
  const size_t agent_count = std::min<size_t>(backend().agents(agents, 64), 64);
  uint32_t max_size = 0;
  for (size_t i = 0; i < agent_count; ++i) {
    hsa_core::AgentDescription d;
    if (backend().describe_agent(agents[i], &d)) max_size = std::max(max_size, d.queue_max_size);
  }
  if (queue == nullptr || !hsa_core::is_power_of_two(size) || size > max_size || doorbell_signal.handle == 0 ||
      features == 0 || (features & ~uint32_t(HSA_QUEUE_FEATURE_KERNEL_DISPATCH | HSA_QUEUE_FEATURE_AGENT_DISPATCH)) ||
      (type != HSA_QUEUE_TYPE_MULTI && type != HSA_QUEUE_TYPE_SINGLE))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (backend().soft_queue_create == nullptr || agent_count == 0) return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  void* object = nullptr;
  hsa_queue_t* made = nullptr;
  const hsa_status_t status =
      backend().soft_queue_create(region.handle, size, type, features, doorbell_signal, &object, &made);
  if (status != HSA_STATUS_SUCCESS) return status;
  const hsa_status_t registered = hsa_core::register_queue(made, agents[0], object, false);
  if (registered != HSA_STATUS_SUCCESS) return registered;
  *queue = made;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_queue_destroy(hsa_queue_t* queue) {
  HSA_CORE_REQUIRE_INIT();
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  void* object = nullptr;
  {
    std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
    const auto it = hsa_core::entries().find(queue);
    if (it == hsa_core::entries().end()) return HSA_STATUS_ERROR_INVALID_QUEUE;
    object = it->second.object;
    if (it->second.counted) hsa_core::release_agent_queue(it->second.agent);
    hsa_core::entries().erase(it);
  }
  backend().queue_destroy(object);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_queue_inactivate(hsa_queue_t* queue) {
  HSA_CORE_REQUIRE_INIT();
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Under the registry's lock: the queue is not destroyed meanwhile.
  std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
  const auto it = hsa_core::entries().find(queue);
  if (it == hsa_core::entries().end()) return HSA_STATUS_ERROR_INVALID_QUEUE;
  backend().queue_inactivate(it->second.object);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_profiling_set_profiler_enabled(hsa_queue_t* queue, int enable) {
  HSA_CORE_REQUIRE_INIT();
  if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(hsa_core::g_mutex);
  const auto it = hsa_core::entries().find(queue);
  if (it == hsa_core::entries().end()) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (backend().queue_profiling != nullptr) {
    const hsa_status_t status = backend().queue_profiling(it->second.object, enable != 0);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  // The queue's amd_queue_t is its hsa_queue_t's (hsa_queue_t first, as ROCR lays it out).
  auto* amd = reinterpret_cast<amd_queue_t*>(queue);
  if (enable)
    __atomic_fetch_or(&amd->queue_properties, uint32_t(AMD_QUEUE_PROPERTIES_ENABLE_PROFILING), __ATOMIC_RELAXED);
  else
    __atomic_fetch_and(&amd->queue_properties, ~uint32_t(AMD_QUEUE_PROPERTIES_ENABLE_PROFILING), __ATOMIC_RELAXED);
  return HSA_STATUS_SUCCESS;
}

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
    const auto it = hsa_core::entries().find(queue);
    if (it == hsa_core::entries().end()) return HSA_STATUS_ERROR_INVALID_QUEUE;  // destroyed meanwhile
    it->second.cu_mask.assign(cu_mask, cu_mask + num_cu_mask_count / 32);
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
  const auto it = hsa_core::entries().find(queue);
  for (uint32_t w = 0; w < num_cu_mask_count / 32; ++w) {
    uint32_t bits = 0;
    for (uint32_t b = 0; b < 32; ++b)
      if (w * 32 + b < units) bits |= 1u << b;
    if (it != hsa_core::entries().end() && !it->second.cu_mask.empty())
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
    const auto it = hsa_core::entries().find(queue);
    if (it == hsa_core::entries().end()) return HSA_STATUS_ERROR_INVALID_QUEUE;  // destroyed meanwhile
    it->second.priority = priority;
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
