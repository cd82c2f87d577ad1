// hsa-cpu runtime state: agents, ISAs, memory pools and the objects every
// API entry point validates its handles against.
//
// Threading: the Runtime is created by the first hsa_init and destroyed by
// the last hsa_shut_down (both serialised by an internal mutex). Between the
// two its agents, ISAs and pools are immutable and may be read from any
// thread; the handle registries are internally synchronised.
#ifndef HSA_CPU_RUNTIME_H_
#define HSA_CPU_RUNTIME_H_

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <hsa_core/backend.h>

#include "common.h"

namespace hsa_cpu {

class WorkerPool;
struct Queue;

// x86-64 micro-architecture levels, best first. Index into kIsas.
enum IsaLevel : uint32_t {
  kIsaLevelV4 = 0,
  kIsaLevelV3 = 1,
  kIsaLevelV2 = 2,
  kIsaLevelBaseline = 3,
  kIsaLevelCount = 4,
};

// One host ISA. Immutable; handles point at the static table.
struct Isa {
  const char* name;         // HSA ISA name, "x86_64-unknown-linux-gnu--<level>"
  const char* march;        // the -march level, e.g. "x86-64-v3"
  uint32_t wavefront_size;  // 32-bit lanes of the widest vector unit the
                            // level guarantees (16/8/4/4)
};
extern const Isa kIsas[kIsaLevelCount];
const Isa* isa_from_handle(hsa_isa_t isa);  // null when not one of kIsas

// One cache level of the host, as hsa_agent_iterate_caches reports it.
struct Cache {
  char name[8];    // "L1", "L2", ...
  uint8_t level;   // 1-based cache level
  uint32_t size;   // bytes
};

struct Agent;

// hsa_amd_memory_pool_t / hsa_region_t: the handle is the Pool's address.
// Each agent has its own four pools; all of them are the host's memory.
struct Pool {
  Agent* owner;                // the agent whose pool this is
  hsa_amd_segment_t segment;   // GLOBAL or GROUP
  uint32_t global_flags;       // HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_* (GLOBAL only)
  bool alloc_allowed;          // runtime allocation allowed
  size_t size;                 // bytes the pool spans
  size_t alloc_max_size;       // largest single allocation (bytes)
  size_t granule;              // allocation granule (bytes)
  size_t alignment;            // allocation alignment (bytes)
};

// Largest workgroup (work items) and group segment (bytes) per dispatch.
inline constexpr uint32_t kWorkgroupMaxSize = 1024;
inline constexpr uint32_t kGroupSegmentMaxBytes = 64 * 1024;
// fbarriers per workgroup (HSA requires at least 32 of a kernel agent).
inline constexpr uint32_t kFbarrierMaxSize = 32;
inline constexpr uint32_t kQueueMinSize = 64;           // packets
inline constexpr uint32_t kQueueMaxSize = 128 * 1024;   // packets
inline constexpr uint32_t kQueuesMax = 128;             // per agent (each
                                                        // queue is a thread)

// A kernel-dispatch agent backed by the shared worker pool.
struct Agent {
  uint32_t index;                    // 0-based, HSA_AGENT_INFO_NODE
  std::string name;                  // "hsa-cpu (<brand>)"
  std::string product_name;          // CPU brand string
  std::string vendor_name;           // "AMD", "Intel" or the cpuid vendor id
  std::vector<const Isa*> isas;      // supported levels, best first
  std::vector<Cache> caches;         // L1.. (data/unified)
  uint32_t cacheline_size;           // bytes
  uint32_t max_clock_mhz;            // MHz, 0 when unknown
  uint32_t compute_units;            // worker threads of the pool
  Pool fine_pool;                    // global, fine-grained
  Pool coarse_pool;                  // global, coarse-grained
  Pool kernarg_pool;                 // global, fine-grained + kernarg
  Pool group_pool;                   // group segment (not allocatable)

  static constexpr size_t kPoolCount = 4;
  // The pools in iteration order: fine, coarse, kernarg, group.
  const Pool* pool_in_order(size_t i) const;
};

class Runtime {
 public:
  Runtime();
  ~Runtime();

  std::vector<std::unique_ptr<Agent>> agents;  // HSA_CPU_AGENTS of them
  std::unique_ptr<WorkerPool> workers;

  Agent* agent(hsa_agent_t handle) const;  // null when unknown
  Pool* pool(uint64_t handle) const;       // null when unknown


 private:
  std::unordered_map<uint64_t, Agent*> agents_by_handle_;  // immutable
  std::unordered_map<uint64_t, Pool*> pools_by_handle_;    // immutable
};

// The live runtime, or null outside hsa_init/hsa_shut_down.
Runtime* runtime();
// The back-end's open and close (the core's hsa_init / hsa_shut_down).
hsa_status_t open_runtime();
void close_runtime();

// The core's memory hooks (hsa-core/include/hsa_core/memory.h): how pool
// memory is made, freed and filled (memory.cpp).
void set_memory_hooks(hsa_core::Backend& b);
// Sets the core's agent hooks (runtime.cpp: agents, their caches).
void set_agent_hooks(hsa_core::Backend& b);
// Sets the core's queue hook (queue.cpp: a live queue's agent).
void set_queue_hooks(hsa_core::Backend& b);

inline hsa_agent_t to_handle(const Agent* a) {
  return hsa_agent_t{reinterpret_cast<uintptr_t>(a)};
}

}  // namespace hsa_cpu

// Entry-point guard: every hsa_status_t API returns this before hsa_init.
#define HSA_CPU_REQUIRE_INIT()                                  \
  do {                                                          \
    if (::hsa_cpu::runtime() == nullptr)                        \
      return HSA_STATUS_ERROR_NOT_INITIALIZED;                  \
  } while (0)

#endif  // HSA_CPU_RUNTIME_H_
