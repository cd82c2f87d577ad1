// The runtime's allocations (memory.h): one range map for both back-ends,
// so a free of an unknown pointer fails cleanly, a fill outside the
// runtime's memory is refused, and hsa_amd_pointer_info describes any
// address the same way on every back-end.
#include <hsa_core/memory.h>

#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <iterator>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <vector>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

namespace hsa_core {
namespace {

struct DeallocationCallback {
  hsa_amd_deallocation_callback_t callback;  // called before the memory goes
  void* user_data;                           // passed to callback
};

struct Allocation {
  size_t size = 0;                                      // bytes asked for (locked: bytes locked)
  hsa_amd_pointer_type_t type = HSA_EXT_POINTER_TYPE_HSA;  // HSA (a pool's) or LOCKED (host memory)
  AllocationFacts facts;                                // what the back-end says of it
  void* user_data = nullptr;                            // hsa_amd_pointer_info_set_userdata
  std::vector<DeallocationCallback> callbacks;          // hsa_amd_register_deallocation_callback
};

struct AllocationMap {
  std::shared_mutex mutex;
  std::map<uintptr_t, Allocation> ranges;  // base address -> allocation

  // The allocation containing `p` (mutex held); end() when none. An empty
  // range (never made: sizes are not 0) would still contain its base.
  std::map<uintptr_t, Allocation>::iterator find(const void* p) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin()) return ranges.end();
    --it;
    const size_t extent = it->second.size == 0 ? 1 : it->second.size;
    return address - it->first < extent ? it : ranges.end();
  }
};

constexpr hsa_status_t kInvalidMemoryPool = static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

AllocationMap& allocations() {
  // Never destroyed: a runtime's exit handlers may still free.
  static AllocationMap* map = new AllocationMap();
  return *map;
}

}  // namespace

hsa_status_t free_pool_allocation(void* ptr, const char* api) {
  if (ptr == nullptr) return HSA_STATUS_SUCCESS;
  Allocation allocation;
  {
    AllocationMap& map = allocations();
    std::unique_lock<std::shared_mutex> lock(map.mutex);
    auto it = map.ranges.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == map.ranges.end() || it->second.type != HSA_EXT_POINTER_TYPE_HSA) {
      log("%s: %p is not the base of a live allocation", api, ptr);
      return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    }
    allocation = std::move(it->second);
    map.ranges.erase(it);
  }
  for (const DeallocationCallback& cb : allocation.callbacks) cb.callback(ptr, cb.user_data);
  backend().pool_free(ptr, allocation.size, allocation.facts);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t allocate_from_pool(uint64_t pool, size_t size, uint32_t flags, void** ptr) {
  PoolDescription description;
  if (!backend().describe_pool(pool, &description)) return kInvalidMemoryPool;
  // flags: none is defined for these pools (the spec's "must be 0").
  if (size == 0 || ptr == nullptr || flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!description.alloc_allowed) {
    log("allocation from a pool that does not allow runtime allocation (segment %d)", int(description.segment));
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  }
  if (size > description.alloc_max_size) {
    log("allocation of %zu bytes exceeds the pool's maximum %zu", size, description.alloc_max_size);
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  }
  void* base = nullptr;
  AllocationFacts facts;
  if (hsa_status_t status = backend().pool_allocate(pool, size, flags, &base, &facts); status != HSA_STATUS_SUCCESS)
    return status;
  try {
    AllocationMap& map = allocations();
    std::unique_lock<std::shared_mutex> lock(map.mutex);
    Allocation& record = map.ranges[reinterpret_cast<uintptr_t>(base)];
    record = Allocation{};
    record.size = size;
    record.facts = facts;
  } catch (const std::bad_alloc&) {
    backend().pool_free(base, size, facts);
    log("allocation of %zu bytes: out of host memory for its record", size);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  *ptr = base;
  return HSA_STATUS_SUCCESS;
}

namespace {

// Locks and unlocks, one at a time: the back-end is asked to lock a range
// only when no record contains it, and a record is made for each lock.
std::mutex g_lock_mutex;

}  // namespace

bool allocation_containing(const void* ptr, void** base, size_t* size) {
  AllocationMap& map = allocations();
  std::shared_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(ptr);
  if (it == map.ranges.end()) return false;
  *base = reinterpret_cast<void*>(it->first);
  *size = it->second.size;
  return true;
}

void release_all_allocations(bool release) {
  std::map<uintptr_t, Allocation> live;
  {
    AllocationMap& map = allocations();
    std::unique_lock<std::shared_mutex> lock(map.mutex);
    live.swap(map.ranges);
  }
  size_t count = 0;
  unsigned long long bytes = 0;
  for (auto& [base, allocation] : live) {
    if (allocation.type != HSA_EXT_POINTER_TYPE_HSA) {
      // Locked host memory is the application's: only the lock ends.
      if (release && backend().unlock_host != nullptr)
        backend().unlock_host(reinterpret_cast<void*>(base), allocation.size, allocation.facts);
      continue;
    }
    ++count;
    bytes += allocation.size;
    if (release) backend().pool_free(reinterpret_cast<void*>(base), allocation.size, allocation.facts);
  }
  // What the application never freed (the log shows it: a leak check).
  if (count != 0) log("hsa_shut_down: %zu allocation(s), %llu bytes, still live (freed now)", count, bytes);
}

}  // namespace hsa_core

using namespace hsa_core;

HSA_CORE_EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent,
                                                                hsa_status_t (*callback)(hsa_amd_memory_pool_t memory_pool,
                                                                                         void* data),
                                                                void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint64_t pools[16];
  const size_t count = std::min(backend().agent_pools(agent, pools, std::size(pools)), std::size(pools));
  for (size_t i = 0; i < count; ++i) {
    const hsa_status_t status = callback(hsa_amd_memory_pool_t{pools[i]}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t memory_pool,
                                                          hsa_amd_memory_pool_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  PoolDescription pool;
  if (!backend().describe_pool(memory_pool.handle, &pool)) return kInvalidMemoryPool;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *static_cast<hsa_amd_segment_t*>(value) = pool.segment; break;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: *static_cast<uint32_t*>(value) = pool.global_flags; break;
    case HSA_AMD_MEMORY_POOL_INFO_SIZE: *static_cast<size_t*>(value) = pool.size; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *static_cast<bool*>(value) = pool.alloc_allowed; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE: *static_cast<size_t*>(value) = pool.granule; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: *static_cast<size_t*>(value) = pool.alignment; break;
    case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: *static_cast<bool*>(value) = pool.accessible_by_all; break;
    case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE: *static_cast<size_t*>(value) = pool.alloc_max_size; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_agent_memory_pool_get_info(hsa_agent_t agent, hsa_amd_memory_pool_t memory_pool,
                                                                hsa_amd_agent_memory_pool_info_t attribute,
                                                                void* value) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  PoolDescription pool;
  if (!backend().describe_pool(memory_pool.handle, &pool)) return kInvalidMemoryPool;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const PoolLink link = backend().pool_link(agent, memory_pool.handle);
  switch (enum_bits(attribute)) {
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS:
      *static_cast<hsa_amd_memory_pool_access_t*>(value) = link.access;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS:
      *static_cast<uint32_t*>(value) = link.hops;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO:
      // One entry per hop: nothing to write for the agent's own memory.
      if (link.hops != 0) *static_cast<hsa_amd_memory_pool_link_info_t*>(value) = link.link;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t memory_pool, size_t size,
                                                          uint32_t flags, void** ptr) {
  HSA_CORE_REQUIRE_INIT();
  return allocate_from_pool(memory_pool.handle, size, flags, ptr);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_pool_free(void* ptr) {
  HSA_CORE_REQUIRE_INIT();
  return free_pool_allocation(ptr, "hsa_amd_memory_pool_free");
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents,
                                                         const uint32_t* flags, const void* ptr) {
  HSA_CORE_REQUIRE_INIT();
  // flags is reserved: it must be NULL.
  if (num_agents == 0 || agents == nullptr || flags != nullptr || ptr == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_agents; ++i)
    if (!backend().agent_known(agents[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  AllocationMap& map = allocations();
  std::shared_lock<std::shared_mutex> lock(map.mutex);
  if (map.find(ptr) == map.ranges.end()) {
    log("hsa_amd_agents_allow_access: %p is not in a runtime allocation", ptr);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  // Every agent that may be named reaches the memory already (the back-end's
  // accessible_agents; a device's memory is its own and the host's pinned
  // memory everyone's).
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_pointer_info(const void* ptr, hsa_amd_pointer_info_t* info,
                                                  void* (*alloc)(size_t), uint32_t* num_agents_accessible,
                                                  hsa_agent_t** accessible) {
  HSA_CORE_REQUIRE_INIT();
  if (ptr == nullptr || info == nullptr || info->size < offsetof(hsa_amd_pointer_info_t, type) + sizeof(info->type))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if ((num_agents_accessible != nullptr || accessible != nullptr) &&
      (num_agents_accessible == nullptr || accessible == nullptr || alloc == nullptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_amd_pointer_info_t result{};
  result.size = uint32_t(std::min<size_t>(info->size, sizeof(hsa_amd_pointer_info_t)));
  result.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
  AllocationFacts facts;
  {
    AllocationMap& map = allocations();
    std::shared_lock<std::shared_mutex> lock(map.mutex);
    auto it = map.find(ptr);
    if (it != map.ranges.end()) {
      facts = it->second.facts;
      result.type = it->second.type;
      result.agentBaseAddress = reinterpret_cast<void*>(it->first);
      result.hostBaseAddress = facts.host_accessible ? reinterpret_cast<void*>(it->first) : nullptr;
      result.sizeInBytes = it->second.size;
      result.userData = it->second.user_data;
      result.agentOwner = facts.owner;
      result.global_flags = facts.global_flags;
    }
  }
  memcpy(info, &result, result.size);
  if (accessible != nullptr) {
    *num_agents_accessible = 0;
    *accessible = nullptr;
    if (result.type == HSA_EXT_POINTER_TYPE_UNKNOWN) return HSA_STATUS_SUCCESS;
    const size_t count = backend().accessible_agents(facts, nullptr, 0);
    if (count == 0) return HSA_STATUS_SUCCESS;
    auto* list = static_cast<hsa_agent_t*>(alloc(sizeof(hsa_agent_t) * count));
    if (list == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    *num_agents_accessible = uint32_t(backend().accessible_agents(facts, list, count));
    *accessible = list;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_pointer_info_set_userdata(const void* ptr, void* userdata) {
  HSA_CORE_REQUIRE_INIT();
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(ptr);
  if (it == map.ranges.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  it->second.user_data = userdata;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_register_deallocation_callback(void* ptr,
                                                                    hsa_amd_deallocation_callback_t callback,
                                                                    void* user_data) {
  HSA_CORE_REQUIRE_INIT();
  if (ptr == nullptr || callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(ptr);
  if (it == map.ranges.end() || it->second.type != HSA_EXT_POINTER_TYPE_HSA) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  try {
    it->second.callbacks.push_back(DeallocationCallback{callback, user_data});
  } catch (const std::bad_alloc&) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_deregister_deallocation_callback(void* ptr,
                                                                      hsa_amd_deallocation_callback_t callback) {
  HSA_CORE_REQUIRE_INIT();
  // "The given notifier was not registered": for this pointer, which may not
  // be an allocation at all.
  if (ptr == nullptr || callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(ptr);
  if (it == map.ranges.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto& callbacks = it->second.callbacks;
  auto cb = std::find_if(callbacks.begin(), callbacks.end(),
                         [&](const DeallocationCallback& c) { return c.callback == callback; });
  if (cb == callbacks.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  callbacks.erase(cb);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count) {
  HSA_CORE_REQUIRE_INIT();
  if (ptr == nullptr || reinterpret_cast<uintptr_t>(ptr) % sizeof(uint32_t) != 0) {
    log("hsa_amd_memory_fill: %p is null or not 4-byte aligned", ptr);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (count == 0) return HSA_STATUS_SUCCESS;
  AllocationFacts facts;
  {
    // The range must lie in one allocation of the runtime (a pool
    // allocation or locked host memory), never in memory nobody gave it.
    AllocationMap& map = allocations();
    std::shared_lock<std::shared_mutex> lock(map.mutex);
    auto it = map.find(ptr);
    const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - (it == map.ranges.end() ? 0 : it->first);
    if (it == map.ranges.end() || count > (it->second.size - offset) / sizeof(uint32_t)) {
      log("hsa_amd_memory_fill: %zu dwords at %p are not inside one runtime allocation", count, ptr);
      return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    }
    facts = it->second.facts;
  }
  return backend().fill(ptr, value, count, facts);
}

// ---- locked host memory ----

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                                 void** agent_ptr) {
  HSA_CORE_REQUIRE_INIT();
  if (host_ptr == nullptr || size == 0 || agent_ptr == nullptr || num_agent < 0 || (num_agent > 0) != (agents != nullptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < num_agent; ++i)
    if (!backend().agent_known(agents[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (backend().lock_host == nullptr) return HSA_STATUS_ERROR;
  std::lock_guard<std::mutex> serial(g_lock_mutex);
  AllocationMap& map = allocations();
  {
    std::shared_lock<std::shared_mutex> lock(map.mutex);
    if (map.find(host_ptr) != map.ranges.end()) {
      // Inside an allocation, or locked already: agents reach it as they do.
      *agent_ptr = host_ptr;
      return HSA_STATUS_SUCCESS;
    }
  }
  AllocationFacts facts;
  void* agent_address = host_ptr;
  const hsa_status_t status = backend().lock_host(host_ptr, size, &facts, &agent_address);
  if (status != HSA_STATUS_SUCCESS) return status;
  try {
    std::unique_lock<std::shared_mutex> lock(map.mutex);
    Allocation& record = map.ranges[reinterpret_cast<uintptr_t>(host_ptr)];
    record.size = size;
    record.type = HSA_EXT_POINTER_TYPE_LOCKED;
    record.facts = facts;
  } catch (const std::bad_alloc&) {
    backend().unlock_host(host_ptr, size, facts);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  *agent_ptr = agent_address;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents,
                                                         int num_agent, hsa_amd_memory_pool_t pool, uint32_t flags,
                                                         void** agent_ptr) {
  HSA_CORE_REQUIRE_INIT();
  PoolDescription description;
  if (!backend().describe_pool(pool.handle, &description)) return kInvalidMemoryPool;
  if (flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hsa_amd_memory_lock(host_ptr, size, agents, num_agent, agent_ptr);
}

// Unlocking memory that is not locked does nothing, as in ROCR.
HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_unlock(void* host_ptr) {
  HSA_CORE_REQUIRE_INIT();
  std::lock_guard<std::mutex> serial(g_lock_mutex);
  AllocationMap& map = allocations();
  Allocation locked;
  {
    std::unique_lock<std::shared_mutex> lock(map.mutex);
    auto it = map.ranges.find(reinterpret_cast<uintptr_t>(host_ptr));
    if (it == map.ranges.end() || it->second.type != HSA_EXT_POINTER_TYPE_LOCKED) return HSA_STATUS_SUCCESS;
    locked = it->second;
    map.ranges.erase(it);
  }
  if (backend().unlock_host != nullptr) backend().unlock_host(host_ptr, locked.size, locked.facts);
  return HSA_STATUS_SUCCESS;
}
