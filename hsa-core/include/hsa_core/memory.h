// The allocations a runtime hands out, for both back-ends (memory.cpp): pool
// allocations and locked host memory, by address range, with what
// hsa_amd_pointer_info says of them, their user data and their deallocation
// callbacks; and the pools they come from. The core answers every entry
// point about them (the pools' information, allocate and free, pointer info,
// deallocation callbacks, agents_allow_access, fill, hsa_memory_allocate /
// free); the back-end lists and describes its pools (Backend::agent_pools,
// describe_pool, pool_link), makes and releases the memory (pool_allocate,
// pool_free) and fills it (fill).
//
// Thread-safety: every function may be called from any thread.
#ifndef HSA_CORE_MEMORY_H_
#define HSA_CORE_MEMORY_H_

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>
#include <cstdint>

namespace hsa_core {

// What the back-end says of one of its memory pools: every answer of
// hsa_amd_memory_pool_get_info (memory.cpp).
struct PoolDescription {
  hsa_amd_segment_t segment = HSA_AMD_SEGMENT_GLOBAL;  // GLOBAL or GROUP
  uint32_t global_flags = 0;       // HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_* (0 for a group pool)
  size_t size = 0;                 // bytes the pool spans
  bool alloc_allowed = false;      // runtime allocation allowed
  size_t granule = 0;              // allocation granule, bytes
  size_t alignment = 0;            // allocation alignment, bytes
  bool accessible_by_all = false;  // every agent reaches it
  size_t alloc_max_size = 0;       // largest single allocation, bytes
};

// How `agent` reaches a pool (hsa_amd_agent_memory_pool_get_info): its
// access and, when it is allowed, the links between them (at most one here).
struct PoolLink {
  hsa_amd_memory_pool_access_t access = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  uint32_t hops = 0;                       // 0: the agent's own memory
  hsa_amd_memory_pool_link_info_t link{};  // the one hop's description, when hops is 1
};

// What the back-end says of one allocation it made (or of host memory it
// locked): kept with the range, handed back to pool_free and fill.
struct AllocationFacts {
  hsa_agent_t owner{};          // hsa_amd_pointer_info's agentOwner: the pool's agent
  uint32_t global_flags = 0;    // its pool's HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS
  bool host_accessible = true;  // the host reaches it at its address (hostBaseAddress)
  uint64_t word = 0;            // the back-end's own (hsa-cpu: bytes mapped; hsa-cuda: the pool's kind)
};

// hsa_amd_memory_pool_allocate's work (hsa_memory_allocate's too): checks,
// the back-end's allocation, its record.
hsa_status_t allocate_from_pool(uint64_t pool, size_t size, uint32_t flags, void** ptr);
// hsa_amd_memory_pool_free's work (hsa_memory_free's: `api` names the entry
// point in the log): the record ends, the deallocation callbacks run, the
// back-end frees. A null ptr is no operation.
hsa_status_t free_pool_allocation(void* ptr, const char* api);

// The range of the allocation containing `ptr` (pool allocation or locked
// memory): its base and size; false when none does.
bool allocation_containing(const void* ptr, void** base, size_t* size);

// hsa_shut_down: releases every allocation still live through the back-end
// (when `release`; a back-end whose device is gone may not), logs how many
// there were, and forgets them all.
void release_all_allocations(bool release);

}  // namespace hsa_core

#endif  // HSA_CORE_MEMORY_H_
