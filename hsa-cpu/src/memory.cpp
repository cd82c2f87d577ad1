// Memory pools, how allocations are made, locks, copies.
//
// Every pool is the host's memory: allocations are page-aligned anonymous
// mappings, each followed by a guard page. The core keeps the allocations'
// range map and answers allocate, free, pointer info, deallocation
// callbacks and fills (hsa-core/include/hsa_core/memory.h); this file makes
// and releases the mappings (the back-end's pool_allocate, pool_free).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <hsa_core/copy.h>
#include <hsa_core/memory.h>

#include "runtime.h"
#include "signal.h"
#include "worker_pool.h"

namespace hsa_cpu {
namespace {

// Bytes one copy-job item moves; copies smaller than this use one item.
constexpr size_t kCopyChunkBytes = 1 << 20;

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

// Bytes mapped by pool allocations. Every global pool is the same host
// memory, so together they hold at most what one pool's SIZE says.
std::atomic<size_t> g_pool_bytes{0};

// The back-end's pool_allocate: the byte budget, the mapping and its guard
// page (the core has checked the pool, size and ptr).
hsa_status_t allocate(const Pool* pool, size_t size, uint32_t flags, void** out_ptr, hsa_core::AllocationFacts* facts) {
  if (flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
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
  facts->owner = to_handle(pool->owner);
  facts->global_flags = pool->global_flags;
  facts->host_accessible = true;
  facts->word = mapped;
  *out_ptr = p;
  return HSA_STATUS_SUCCESS;
}

// The back-end's pool_free: the mapping with its guard page.
void free_mapping(void* ptr, size_t, const hsa_core::AllocationFacts& facts) {
  munmap(ptr, facts.word + page_size());
  g_pool_bytes.fetch_sub(facts.word, std::memory_order_relaxed);
}

// Copies [src, src+size) to dst in kCopyChunkBytes items on the worker pool,
// then tells the core (the back-end's copy: hsa_core/copy.h).
class CopyJob final : public Job {
 public:
  CopyJob(void* dst, const void* src, size_t size, void* context)
      : Job(uint32_t((size + kCopyChunkBytes - 1) / kCopyChunkBytes)),
        dst_(static_cast<unsigned char*>(dst)), src_(static_cast<const unsigned char*>(src)),
        size_(size), context_(context) {}

  void run_item(uint32_t index, WorkerContext&) override {
    const size_t offset = size_t(index) * kCopyChunkBytes;
    const size_t bytes = std::min(kCopyChunkBytes, size_ - offset);
    memmove(dst_ + offset, src_ + offset, bytes);
  }
  void finish() override { hsa_core::copy_done(context_, true); }

 private:
  unsigned char* dst_;        // destination base
  const unsigned char* src_;  // source base
  size_t size_;               // bytes to copy
  void* context_;             // the core's copy (copy_done)
};

}  // namespace

void free_all_allocations() {
  hsa_core::release_all_allocations(true);
  g_pool_bytes.store(0, std::memory_order_relaxed);
}

// hsa-cpu's memory hooks of the core's back-end (runtime.cpp sets them).
void set_memory_hooks(hsa_core::Backend& b) {
  b.agent_pools = [](hsa_agent_t agent, uint64_t* out, size_t capacity) {
    const Agent* a = runtime()->agent(agent);
    for (size_t i = 0; i < Agent::kPoolCount && i < capacity; ++i)
      out[i] = reinterpret_cast<uintptr_t>(a->pool_in_order(i));
    return Agent::kPoolCount;
  };
  b.describe_pool = [](uint64_t handle, hsa_core::PoolDescription* out) {
    const Runtime* rt = runtime();
    const Pool* pool = rt != nullptr ? rt->pool(handle) : nullptr;
    if (pool == nullptr) return false;
    out->segment = pool->segment;
    out->global_flags = pool->global_flags;  // 0 for the group pool (as ROCR)
    out->size = pool->size;
    out->alloc_allowed = pool->alloc_allowed;
    out->granule = pool->granule;
    out->alignment = pool->alignment;
    out->accessible_by_all = pool->segment == HSA_AMD_SEGMENT_GLOBAL;
    out->alloc_max_size = pool->alloc_max_size;
    return true;
  };
  // Every pool is the host memory the agent's cores use directly, whichever
  // agent owns it: allowed by default, no link in between.
  b.pool_link = [](hsa_agent_t, uint64_t) {
    hsa_core::PoolLink link;
    link.access = HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
    return link;
  };
  b.pool_allocate = [](uint64_t pool, size_t size, uint32_t flags, void** ptr, hsa_core::AllocationFacts* facts) {
    return allocate(runtime()->pool(pool), size, flags, ptr, facts);
  };
  b.pool_free = free_mapping;
  // Locked host memory: agents address host memory directly; it belongs to
  // the first agent (there is no separate host agent) and is fine-grained.
  b.lock_host = [](void*, size_t, hsa_core::AllocationFacts* facts, void**) {
    facts->owner = to_handle(runtime()->agents[0].get());
    facts->global_flags = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    facts->host_accessible = true;
    return HSA_STATUS_SUCCESS;
  };
  b.unlock_host = [](void*, size_t, const hsa_core::AllocationFacts&) {};
  // Chunks of the copy run on the worker pool (never on the handler thread
  // that found its dependencies met).
  b.copy = [](void* dst, hsa_agent_t, const void* src, hsa_agent_t, size_t size, void* context) {
    runtime()->workers->submit(new CopyJob(dst, src, size, context), /*help=*/false);
  };
  b.fill = [](void* ptr, uint32_t value, size_t count, const hsa_core::AllocationFacts&) {
    std::fill_n(static_cast<uint32_t*>(ptr), count, value);
    return HSA_STATUS_SUCCESS;
  };
  // Agent ticks are TSC ticks (HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY); the
  // system domain is CLOCK_MONOTONIC ns.
  b.agent_tick_to_system = [](hsa_agent_t, uint64_t tick) { return tsc_to_system_ns(tick); };
  // Every agent's cores reach all host memory.
  b.accessible_agents = [](const hsa_core::AllocationFacts&, hsa_agent_t* out, size_t capacity) {
    const Runtime* rt = runtime();
    for (size_t i = 0; i < rt->agents.size() && i < capacity; ++i) out[i] = to_handle(rt->agents[i].get());
    return rt->agents.size();
  };
}

}  // namespace hsa_cpu

using namespace hsa_cpu;

// ---------------------------------------------------------------------------
// Copies

HSA_CPU_EXPORT hsa_status_t hsa_memory_copy(void* dst, const void* src, size_t size) {
  HSA_CPU_REQUIRE_INIT();
  if (dst == nullptr || src == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (size != 0) memmove(dst, src, size);
  return HSA_STATUS_SUCCESS;
}

