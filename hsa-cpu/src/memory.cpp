// Memory pools, regions, allocations, copies and fills.
//
// Every pool is the host's memory: allocations are page-aligned anonymous
// mappings tracked in a range map, so frees of unknown pointers fail
// cleanly and hsa_amd_pointer_info can describe any address.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "runtime.h"
#include "signal.h"
#include "worker_pool.h"

namespace hsa_cpu {
namespace {

// Bytes one copy-job item moves; copies smaller than this use one item.
constexpr size_t kCopyChunkBytes = 1 << 20;

struct DeallocationCallback {
  hsa_amd_deallocation_callback_t callback;  // called before the unmap
  void* user_data;                           // passed to callback
};

struct Allocation {
  size_t size;                        // bytes requested (mapping is page-rounded)
  size_t mapped_size;                 // bytes mapped (a guard page follows them); 0 for locked host memory
  const Pool* pool;                   // null for locked host memory
  hsa_amd_pointer_type_t type;        // HSA (pool) or LOCKED (host memory)
  void* user_data;                    // hsa_amd_pointer_info_set_userdata
  std::vector<DeallocationCallback> callbacks;
};

struct AllocationMap {
  std::shared_mutex mutex;
  std::map<uintptr_t, Allocation> ranges;  // base address -> allocation

  // Allocation containing `p` (mutex held); end() when none.
  std::map<uintptr_t, Allocation>::iterator find(const void* p) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin()) return ranges.end();
    --it;
    const size_t extent = it->second.size == 0 ? 1 : it->second.size;
    return address - it->first < extent ? it : ranges.end();
  }
};
AllocationMap& allocations() {
  static AllocationMap* map = new AllocationMap();
  return *map;
}

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

std::atomic<bool> g_async_copy_profiling{false};

// Bytes mapped by pool allocations. Every global pool is the same host
// memory, so together they hold at most what one pool's SIZE says.
std::atomic<size_t> g_pool_bytes{0};

hsa_status_t allocate(const Pool* pool, size_t size, uint32_t flags, void** out_ptr) {
  if (size == 0 || out_ptr == nullptr || flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!pool->alloc_allowed) {
    log("allocation from a pool that does not allow runtime allocation (segment %d)", pool->segment);
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  }
  if (size > pool->alloc_max_size) {
    log("allocation of %zu bytes exceeds the pool's maximum %zu", size, pool->alloc_max_size);
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  }
  const size_t mapped = (size + page_size() - 1) / page_size() * page_size();
  // Reserve the bytes only if they fit: an add-then-undo would let a
  // refused large request make concurrent small ones fail too.
  size_t before = g_pool_bytes.load(std::memory_order_relaxed);
  do {
    if (mapped > pool->size || before > pool->size - mapped) {
      log("allocation of %zu bytes: the pool's %zu bytes hold %zu already", size, pool->size, before);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
  } while (!g_pool_bytes.compare_exchange_weak(before, before + mapped, std::memory_order_relaxed));
  // One inaccessible guard page after the allocation (address space only):
  // a kernel that runs past the end of its buffer faults there, as on a
  // GPU whose next page is unmapped, instead of silently writing into
  // whatever the next mapping holds. The fault report names the buffer.
  void* p = mmap(nullptr, mapped + page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED && mprotect(static_cast<char*>(p) + mapped, page_size(), PROT_NONE) != 0) {
    munmap(p, mapped + page_size());
    p = MAP_FAILED;
  }
  if (p == MAP_FAILED) {
    g_pool_bytes.fetch_sub(mapped, std::memory_order_relaxed);
    log("mmap of %zu bytes failed: %s", mapped, strerror(errno));
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  map.ranges[reinterpret_cast<uintptr_t>(p)] =
      Allocation{size, mapped, pool, HSA_EXT_POINTER_TYPE_HSA, nullptr, {}};
  *out_ptr = p;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t free_allocation(void* ptr, const char* api) {
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
  munmap(ptr, allocation.mapped_size + page_size());  // with its guard page
  g_pool_bytes.fetch_sub(allocation.mapped_size, std::memory_order_relaxed);
  return HSA_STATUS_SUCCESS;
}

// Copies [src, src+size) to dst in kCopyChunkBytes items on the worker pool,
// then decrements the completion signal.
class CopyJob final : public Job {
 public:
  CopyJob(void* dst, const void* src, size_t size, Signal* completion)
      : Job(uint32_t((size + kCopyChunkBytes - 1) / kCopyChunkBytes)),
        dst_(static_cast<unsigned char*>(dst)), src_(static_cast<const unsigned char*>(src)),
        size_(size), completion_(completion),
        start_ns_(g_async_copy_profiling.load(std::memory_order_relaxed) ? now_ns() : 0) {}

  void run_item(uint32_t index, WorkerContext&) override {
    const size_t offset = size_t(index) * kCopyChunkBytes;
    const size_t bytes = std::min(kCopyChunkBytes, size_ - offset);
    memmove(dst_ + offset, src_ + offset, bytes);
  }
  void finish() override { complete(completion_, start_ns_); }

  static void complete(Signal* completion, uint64_t start_ns) {
    std::atomic_thread_fence(std::memory_order_release);
    if (start_ns != 0) {
      completion->amd.start_ts = start_ns;
      completion->amd.end_ts = now_ns();
    }
    completion->subtract_release(1);
  }

 private:
  unsigned char* dst_;        // destination base
  const unsigned char* src_;  // source base
  size_t size_;               // bytes to copy
  Signal* completion_;        // decremented when done
  uint64_t start_ns_;         // profiling start, 0 when off
};

void launch_copy(void* dst, const void* src, size_t size, Signal* completion) {
  if (size == 0) {
    CopyJob::complete(completion, 0);
    return;
  }
  runtime()->workers->submit(new CopyJob(dst, src, size, completion), /*help=*/false);
}

// Waits (on the handler thread) for deps[index..] in order, then copies. A
// negative dependency skips the copy and stores that value in the
// completion signal.
struct PendingCopy {
  void* dst;
  const void* src;
  size_t size;
  std::vector<Signal*> deps;
  Signal* completion;
};

void continue_copy(std::shared_ptr<PendingCopy> copy, size_t index) {
  while (index < copy->deps.size() && copy->deps[index]->load_acquire() == 0) ++index;
  if (index == copy->deps.size()) {
    launch_copy(copy->dst, copy->src, copy->size, copy->completion);
    return;
  }
  Signal* dep = copy->deps[index];
  const int64_t v = dep->load_acquire();
  if (v < 0) {
    log("async copy: dependency %zu carries error value %lld; copy skipped", index,
        static_cast<long long>(v));
    copy->completion->store_release(v);
    return;
  }
  async_handler_thread()->add(dep, HSA_SIGNAL_CONDITION_LT, 1, [copy, index](int64_t value) {
    if (value < 0) {
      log("async copy: dependency %zu carries error value %lld; copy skipped", index,
          static_cast<long long>(value));
      copy->completion->store_release(value);
    } else {
      continue_copy(copy, index + 1);
    }
    return false;
  });
}


hsa_status_t pool_info(const Pool* pool, uint32_t attribute, void* value) {
  switch (attribute) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *static_cast<hsa_amd_segment_t*>(value) = pool->segment; break;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:  // 0 for the group pool (as ROCR)
      *static_cast<uint32_t*>(value) = pool->global_flags;
      break;
    case HSA_AMD_MEMORY_POOL_INFO_SIZE: *static_cast<size_t*>(value) = pool->size; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *static_cast<bool*>(value) = pool->alloc_allowed; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE: *static_cast<size_t*>(value) = pool->granule; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: *static_cast<size_t*>(value) = pool->alignment; break;
    case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL:
      *static_cast<bool*>(value) = pool->segment == HSA_AMD_SEGMENT_GLOBAL;
      break;
    case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE: *static_cast<size_t*>(value) = pool->alloc_max_size; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

}  // namespace

void free_all_allocations() {
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  uint64_t bytes = 0;
  for (auto& [base, allocation] : map.ranges) {
    bytes += allocation.mapped_size;
    if (allocation.mapped_size != 0) munmap(reinterpret_cast<void*>(base), allocation.mapped_size + page_size());
  }
  // What the application never freed (HSA_CPU_LOG shows it: a leak check).
  if (!map.ranges.empty())
    log("hsa_shut_down: %zu allocation(s), %llu bytes, still live (freed now)", map.ranges.size(),
        static_cast<unsigned long long>(bytes));
  map.ranges.clear();
  g_pool_bytes.store(0, std::memory_order_relaxed);
}

}  // namespace hsa_cpu

using namespace hsa_cpu;

// ---------------------------------------------------------------------------
// Pools and regions

HSA_CPU_EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t agent, hsa_status_t (*callback)(hsa_amd_memory_pool_t memory_pool, void* data),
    void* data) {
  HSA_CPU_REQUIRE_INIT();
  const Agent* a = runtime()->agent(agent);
  if (a == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (size_t i = 0; i < Agent::kPoolCount; ++i) {
    const hsa_status_t status =
        callback(hsa_amd_memory_pool_t{reinterpret_cast<uintptr_t>(a->pool_in_order(i))}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t memory_pool,
                                                         hsa_amd_memory_pool_info_t attribute,
                                                         void* value) {
  HSA_CPU_REQUIRE_INIT();
  const Pool* pool = runtime()->pool(memory_pool.handle);
  if (pool == nullptr) return kStatusInvalidMemoryPool;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return pool_info(pool, enum_bits(attribute), value);
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_agent_memory_pool_get_info(
    hsa_agent_t agent, hsa_amd_memory_pool_t memory_pool,
    hsa_amd_agent_memory_pool_info_t attribute, void* value) {
  HSA_CPU_REQUIRE_INIT();
  Runtime* rt = runtime();
  if (rt->agent(agent) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (rt->pool(memory_pool.handle) == nullptr) return kStatusInvalidMemoryPool;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS:
      *static_cast<hsa_amd_memory_pool_access_t*>(value) = HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS:
      // Every pool is the host memory the agent's cores use directly,
      // whichever agent owns it: no link in between.
      *static_cast<uint32_t*>(value) = 0;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO:
      return HSA_STATUS_SUCCESS;  // zero hops: nothing to write
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

// ---------------------------------------------------------------------------
// Allocation

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t memory_pool,
                                                         size_t size, uint32_t flags, void** ptr) {
  HSA_CPU_REQUIRE_INIT();
  const Pool* pool = runtime()->pool(memory_pool.handle);
  if (pool == nullptr) return kStatusInvalidMemoryPool;
  return allocate(pool, size, flags, ptr);
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_pool_free(void* ptr) {
  HSA_CPU_REQUIRE_INIT();
  return free_allocation(ptr, "hsa_amd_memory_pool_free");
}

namespace hsa_cpu {
// hsa_memory_allocate and hsa_memory_free (the core's regions.cpp, through
// the back-end).
hsa_status_t region_allocate(uint64_t pool, size_t size, void** ptr) {
  return allocate(runtime()->pool(pool), size, 0, ptr);
}
hsa_status_t region_free(void* ptr) { return free_allocation(ptr, "hsa_memory_free"); }
}  // namespace hsa_cpu

HSA_CPU_EXPORT hsa_status_t hsa_amd_agents_allow_access(uint32_t num_agents,
                                                        const hsa_agent_t* agents,
                                                        const uint32_t* flags, const void* ptr) {
  HSA_CPU_REQUIRE_INIT();
  // flags is reserved: it must be NULL.
  if (num_agents == 0 || agents == nullptr || flags != nullptr || ptr == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_agents; ++i)
    if (runtime()->agent(agents[i]) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  AllocationMap& map = allocations();
  std::shared_lock<std::shared_mutex> lock(map.mutex);
  if (map.find(ptr) == map.ranges.end()) {
    log("hsa_amd_agents_allow_access: %p is not in a runtime allocation", ptr);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;  // every agent reaches every pool already
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t src_memory_pool,
                                                            hsa_amd_memory_pool_t dst_memory_pool,
                                                            bool* result) {
  HSA_CPU_REQUIRE_INIT();
  Runtime* rt = runtime();
  if (rt->pool(src_memory_pool.handle) == nullptr || rt->pool(dst_memory_pool.handle) == nullptr)
    return kStatusInvalidMemoryPool;
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_migrate(const void* ptr, hsa_amd_memory_pool_t memory_pool,
                                                   uint32_t flags) {
  HSA_CPU_REQUIRE_INIT();
  if (runtime()->pool(memory_pool.handle) == nullptr) return kStatusInvalidMemoryPool;
  if (ptr == nullptr || flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;  // one physical memory: nothing moves
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents,
                                                int num_agent, void** agent_ptr) {
  HSA_CPU_REQUIRE_INIT();
  if (host_ptr == nullptr || size == 0 || agent_ptr == nullptr || num_agent < 0 ||
      (num_agent > 0) != (agents != nullptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < num_agent; ++i)
    if (runtime()->agent(agents[i]) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(host_ptr);
  if (it == map.ranges.end())
    map.ranges[reinterpret_cast<uintptr_t>(host_ptr)] =
        Allocation{size, 0, nullptr, HSA_EXT_POINTER_TYPE_LOCKED, nullptr, {}};
  *agent_ptr = host_ptr;  // agents address host memory directly
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_lock_to_pool(void* host_ptr, size_t size,
                                                        hsa_agent_t* agents, int num_agent,
                                                        hsa_amd_memory_pool_t pool, uint32_t flags,
                                                        void** agent_ptr) {
  HSA_CPU_REQUIRE_INIT();
  if (runtime()->pool(pool.handle) == nullptr) return kStatusInvalidMemoryPool;
  if (flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hsa_amd_memory_lock(host_ptr, size, agents, num_agent, agent_ptr);
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_unlock(void* host_ptr) {
  HSA_CPU_REQUIRE_INIT();
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.ranges.find(reinterpret_cast<uintptr_t>(host_ptr));
  if (it != map.ranges.end() && it->second.type == HSA_EXT_POINTER_TYPE_LOCKED) map.ranges.erase(it);
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_pointer_info(const void* ptr, hsa_amd_pointer_info_t* info,
                                                 void* (*alloc)(size_t),
                                                 uint32_t* num_agents_accessible,
                                                 hsa_agent_t** accessible) {
  HSA_CPU_REQUIRE_INIT();
  if (ptr == nullptr || info == nullptr ||
      info->size < offsetof(hsa_amd_pointer_info_t, type) + sizeof(info->type))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if ((num_agents_accessible != nullptr || accessible != nullptr) &&
      (num_agents_accessible == nullptr || accessible == nullptr || alloc == nullptr))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Runtime* rt = runtime();
  hsa_amd_pointer_info_t result{};
  result.size = uint32_t(std::min<size_t>(info->size, sizeof(hsa_amd_pointer_info_t)));
  result.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
  {
    AllocationMap& map = allocations();
    std::shared_lock<std::shared_mutex> lock(map.mutex);
    auto it = map.find(ptr);
    if (it != map.ranges.end()) {
      result.type = it->second.type;
      result.agentBaseAddress = reinterpret_cast<void*>(it->first);
      result.hostBaseAddress = reinterpret_cast<void*>(it->first);
      result.sizeInBytes = it->second.size;
      result.userData = it->second.user_data;
      // A pool allocation belongs to the pool's agent; locked host memory
      // to the first agent (there is no separate host agent).
      result.agentOwner = to_handle(it->second.pool ? it->second.pool->owner : rt->agents[0].get());
      result.global_flags = it->second.pool ? it->second.pool->global_flags
                                            : uint32_t(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    }
  }
  memcpy(info, &result, result.size);
  if (accessible != nullptr) {
    const bool known = result.type != HSA_EXT_POINTER_TYPE_UNKNOWN;
    const uint32_t count = known ? uint32_t(rt->agents.size()) : 0;
    *num_agents_accessible = count;
    *accessible = nullptr;
    if (count != 0) {
      auto* list = static_cast<hsa_agent_t*>(alloc(sizeof(hsa_agent_t) * count));
      if (list == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
      for (uint32_t i = 0; i < count; ++i) list[i] = to_handle(rt->agents[i].get());
      *accessible = list;
    }
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_pointer_info_set_userdata(const void* ptr, void* userdata) {
  HSA_CPU_REQUIRE_INIT();
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(ptr);
  if (it == map.ranges.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  it->second.user_data = userdata;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_register_deallocation_callback(
    void* ptr, hsa_amd_deallocation_callback_t callback, void* user_data) {
  HSA_CPU_REQUIRE_INIT();
  if (ptr == nullptr || callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  AllocationMap& map = allocations();
  std::unique_lock<std::shared_mutex> lock(map.mutex);
  auto it = map.find(ptr);
  if (it == map.ranges.end() || it->second.type != HSA_EXT_POINTER_TYPE_HSA)
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  it->second.callbacks.push_back(DeallocationCallback{callback, user_data});
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_deregister_deallocation_callback(
    void* ptr, hsa_amd_deallocation_callback_t callback) {
  HSA_CPU_REQUIRE_INIT();
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

// ---------------------------------------------------------------------------
// Copy and fill

HSA_CPU_EXPORT hsa_status_t hsa_memory_copy(void* dst, const void* src, size_t size) {
  HSA_CPU_REQUIRE_INIT();
  if (dst == nullptr || src == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (size != 0) memmove(dst, src, size);
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent,
                                                      const void* src, hsa_agent_t src_agent,
                                                      size_t size, uint32_t num_dep_signals,
                                                      const hsa_signal_t* dep_signals,
                                                      hsa_signal_t completion_signal) {
  HSA_CPU_REQUIRE_INIT();
  Runtime* rt = runtime();
  if (rt->agent(dst_agent) == nullptr || rt->agent(src_agent) == nullptr)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  if ((size != 0 && (dst == nullptr || src == nullptr)) ||
      (num_dep_signals != 0 && dep_signals == nullptr) || completion_signal.handle == 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!signal_is_live(completion_signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  for (uint32_t i = 0; i < num_dep_signals; ++i)
    if (!signal_is_live(dep_signals[i])) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  Signal* completion = to_signal(completion_signal);
  try {
    auto copy = std::make_shared<PendingCopy>();
    copy->dst = dst;
    copy->src = src;
    copy->size = size;
    copy->completion = completion;
    for (uint32_t i = 0; i < num_dep_signals; ++i) copy->deps.push_back(to_signal(dep_signals[i]));
    continue_copy(std::move(copy), 0);
  } catch (const std::exception& e) {
    log("hsa_amd_memory_async_copy: %s", e.what());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count) {
  HSA_CPU_REQUIRE_INIT();
  if (ptr == nullptr || (reinterpret_cast<uintptr_t>(ptr) % sizeof(uint32_t)) != 0) {
    log("hsa_amd_memory_fill: %p is null or not 4-byte aligned", ptr);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (count == 0) return HSA_STATUS_SUCCESS;
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
  }
  std::fill_n(static_cast<uint32_t*>(ptr), count, value);
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_profiling_async_copy_enable(bool enable) {
  HSA_CPU_REQUIRE_INIT();
  g_async_copy_profiling.store(enable, std::memory_order_relaxed);
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_profiling_get_async_copy_time(
    hsa_signal_t signal, hsa_amd_profiling_async_copy_time_t* time) {
  HSA_CPU_REQUIRE_INIT();
  if (!signal_is_live(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Signal* s = to_signal(signal);
  time->start = s->amd.start_ts;
  time->end = s->amd.end_ts;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_profiling_get_dispatch_time(
    hsa_agent_t agent, hsa_signal_t signal, hsa_amd_profiling_dispatch_time_t* time) {
  HSA_CPU_REQUIRE_INIT();
  if (runtime()->agent(agent) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!signal_is_live(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Signal* s = to_signal(signal);
  time->start = s->amd.start_ts;
  time->end = s->amd.end_ts;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t agent,
                                                                            uint64_t agent_tick,
                                                                            uint64_t* system_tick) {
  HSA_CPU_REQUIRE_INIT();
  if (runtime()->agent(agent) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (system_tick == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Agent ticks are TSC ticks (HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY);
  // the system domain is CLOCK_MONOTONIC ns.
  *system_tick = tsc_to_system_ns(agent_tick);
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_coherency_get_type(hsa_agent_t agent,
                                                       hsa_amd_coherency_type_t* type) {
  HSA_CPU_REQUIRE_INIT();
  if (runtime()->agent(agent) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (type == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *type = HSA_AMD_COHERENCY_TYPE_COHERENT;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_coherency_set_type(hsa_agent_t agent,
                                                       hsa_amd_coherency_type_t type) {
  HSA_CPU_REQUIRE_INIT();
  if (runtime()->agent(agent) == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (enum_bits(type) != HSA_AMD_COHERENCY_TYPE_COHERENT &&
      enum_bits(type) != HSA_AMD_COHERENCY_TYPE_NONCOHERENT)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;  // host memory is always coherent
}

// Host memory never migrates: a prefetch completes once its dependencies do.
HSA_CPU_EXPORT hsa_status_t hsa_amd_svm_prefetch_async(void* ptr, size_t size, hsa_agent_t agent,
                                                       uint32_t num_dep_signals,
                                                       const hsa_signal_t* dep_signals,
                                                       hsa_signal_t completion_signal) {
  HSA_CPU_REQUIRE_INIT();
  if (ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return hsa_amd_memory_async_copy(ptr, agent, ptr, agent, 0, num_dep_signals, dep_signals,
                                   completion_signal);
}

// ---------------------------------------------------------------------------
// SVM attributes: every address is host memory that every agent reaches in
// place, coherently; nothing migrates. Valid settings are accepted (they
// change nothing) and queries answer what is true of host memory.

namespace {

bool svm_agent_ok(uint64_t value) { return runtime()->agent(hsa_agent_t{value}) != nullptr; }

hsa_status_t svm_range_ok(const void* ptr, size_t size, const hsa_amd_svm_attribute_pair_t* list,
                          size_t count) {
  if (ptr == nullptr || size == 0 || (count != 0 && list == nullptr)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_amd_svm_attributes_set(void* ptr, size_t size,
                                                       hsa_amd_svm_attribute_pair_t* attribute_list,
                                                       size_t attribute_count) {
  HSA_CPU_REQUIRE_INIT();
  if (hsa_status_t status = svm_range_ok(ptr, size, attribute_list, attribute_count); status != HSA_STATUS_SUCCESS)
    return status;
  for (size_t i = 0; i < attribute_count; ++i) {
    const hsa_amd_svm_attribute_pair_t& pair = attribute_list[i];
    switch (pair.attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
        if (pair.value != HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED && pair.value != HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED)
          return HSA_STATUS_ERROR_INVALID_ARGUMENT;
        break;
      case HSA_AMD_SVM_ATTRIB_READ_ONLY:
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY:
        break;
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:  // the null agent: no preference
        if (pair.value != 0 && !svm_agent_ok(pair.value)) return HSA_STATUS_ERROR_INVALID_AGENT;
        break;
      case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE:
      case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE:
      case HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS:
        if (!svm_agent_ok(pair.value)) return HSA_STATUS_ERROR_INVALID_AGENT;
        break;
      default:  // includes ACCESS_QUERY and PREFETCH_LOCATION (queries only)
        log("hsa_amd_svm_attributes_set: attribute 0x%llx cannot be set",
            static_cast<unsigned long long>(pair.attribute));
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_amd_svm_attributes_get(void* ptr, size_t size,
                                                       hsa_amd_svm_attribute_pair_t* attribute_list,
                                                       size_t attribute_count) {
  HSA_CPU_REQUIRE_INIT();
  if (hsa_status_t status = svm_range_ok(ptr, size, attribute_list, attribute_count); status != HSA_STATUS_SUCCESS)
    return status;
  // Check every entry before writing any answer.
  for (size_t i = 0; i < attribute_count; ++i) {
    const hsa_amd_svm_attribute_pair_t& pair = attribute_list[i];
    switch (pair.attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
      case HSA_AMD_SVM_ATTRIB_READ_ONLY:
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY:
        break;
      case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY:
        if (!svm_agent_ok(pair.value)) return HSA_STATUS_ERROR_INVALID_AGENT;
        break;
      default:  // includes the AGENT_* settings and PREFETCH_LOCATION
        log("hsa_amd_svm_attributes_get: attribute 0x%llx cannot be queried",
            static_cast<unsigned long long>(pair.attribute));
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  for (size_t i = 0; i < attribute_count; ++i) {
    hsa_amd_svm_attribute_pair_t& pair = attribute_list[i];
    switch (pair.attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG: pair.value = HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED; break;
      case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY: pair.attribute = HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE; break;
      default: pair.value = 0; break;  // false, one page, no preferred location
    }
  }
  return HSA_STATUS_SUCCESS;
}
