// hsa-core's back-end interface: what a runtime built on the core tells it.
//
// The core is compiled into each runtime's shared library (an object
// library, hsa-core/CMakeLists.txt), so each library has its own core and
// its own back-end: the runtime defines hsa_core::backend(), which the core
// calls. The fields are read on every use; a runtime may set the tunables
// at hsa_init (before any queue or waiter exists).
//
// Threading: backend() and the functions it names are called from any
// thread.
#ifndef HSA_CORE_BACKEND_H_
#define HSA_CORE_BACKEND_H_

#include <hsa/hsa.h>

#include <cstddef>
#include <cstdint>

namespace hsa_core {

struct Signal;
struct LoadedCode;
struct AllocationFacts;
struct PoolDescription;
struct PoolLink;
struct AgentDescription;
struct CacheDescription;
struct QueueRequest;

struct Backend {
  // The runtime's name: the prefix of its log lines and of its threads'
  // names ("hsa-cpu").
  const char* name = "hsa";
  // HSA_AMD_SYSTEM_INFO_BUILD_VERSION ("hsa-cpu 0.1.0").
  const char* build_version = "hsa";
  // HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED and _SVM_ACCESSIBLE_BY_DEFAULT: every
  // agent reaches any host allocation.
  bool svm = false;
  // The first hsa_init opens the runtime (init.cpp; a status other than
  // SUCCESS is hsa_init's, and the runtime stays closed), the last
  // hsa_shut_down closes it; never concurrently. close destroys the queues
  // still live (destroy_all_queues, queue.h) before what they use.
  hsa_status_t (*open)() = nullptr;
  void (*close)() = nullptr;
  // True while the runtime is open (between the first successful hsa_init
  // and the last hsa_shut_down); any thread, any time.
  bool (*initialized)() = nullptr;
  // True when `agent` is one of the runtime's agents (consumer lists).
  bool (*agent_known)(hsa_agent_t agent) = nullptr;
  // Agents (agent.h; agent.cpp answers their entry points): the runtime's
  // agents in hsa_iterate_agents' order: writes up to `capacity` of them to
  // `out`, returns how many there are.
  size_t (*agents)(hsa_agent_t* out, size_t capacity) = nullptr;
  // Describes `agent`; false when it is not one of the runtime's agents.
  bool (*describe_agent)(hsa_agent_t agent, AgentDescription* out) = nullptr;
  // The caches of `agent` (a known agent), L1 first: writes up to
  // `capacity` handles to `out`, returns how many there are. Unset: none.
  size_t (*agent_caches)(hsa_agent_t agent, uint64_t* out, size_t capacity) = nullptr;
  // Describes `cache`; false when it is not the handle of one of the
  // runtime's caches.
  bool (*describe_cache)(uint64_t cache, CacheDescription* out) = nullptr;
  // Queues (queue.h; queue.cpp answers their entry points and keeps the
  // registry of live queues). queue_create makes a queue of `request`,
  // which the core has checked against the agent's description (a kernel
  // agent; size a power of two, raised to queue_min_size, at most
  // queue_max_size; a type it takes; group_segment_size within
  // group_segment_max; fewer than queues_max queues of the agent live):
  // the back-end's object in *object, its hsa_queue_t in *queue; another
  // status refuses it, with nothing made. soft_queue_create makes a queue
  // with no packet processor on an application's doorbell signal (unset:
  // hsa_soft_queue_create answers INVALID_QUEUE_CREATION). queue_destroy
  // ends a queue either made (the core has forgotten it: no entry point
  // finds it any more). queue_inactivate stops a live queue processing
  // packets. queue_profiling turns the timing of a live queue's packets on
  // or off (hsa_amd_profiling_set_profiler_enabled; the core sets the
  // queue's AMD_QUEUE_PROPERTIES_ENABLE_PROFILING bit after a SUCCESS).
  hsa_status_t (*queue_create)(const QueueRequest& request, void** object, hsa_queue_t** queue) = nullptr;
  hsa_status_t (*soft_queue_create)(uint64_t pool, uint32_t size, hsa_queue_type32_t type, uint32_t features,
                                    hsa_signal_t doorbell, void** object, hsa_queue_t** queue) = nullptr;
  void (*queue_destroy)(void* object) = nullptr;
  void (*queue_inactivate)(void* object) = nullptr;
  hsa_status_t (*queue_profiling)(void* object, bool enable) = nullptr;
  // Writes one line (without the prefix) where the runtime logs; the
  // runtime decides whether logging is on.
  void (*log)(const char* line) = nullptr;
  // Storage for one Signal (`bytes`, aligned to AMD_SIGNAL_ALIGN_BYTES);
  // null when out of memory. Unset: the C++ heap. A runtime whose devices
  // write signal values (hsa-cuda) gives memory they can reach.
  void* (*signal_storage_allocate)(size_t bytes) = nullptr;
  void (*signal_storage_free)(void* storage) = nullptr;
  // Memory (memory.h; regions.cpp goes through it too). The pools of
  // `agent` (a known agent), in the order hsa_amd_agent_iterate_memory_pools
  // gives them: writes up to `capacity` handles to `out`, returns how many
  // there are.
  size_t (*agent_pools)(hsa_agent_t agent, uint64_t* out, size_t capacity) = nullptr;
  // Describes `pool`; false when it is not the handle of one of the
  // runtime's pools.
  bool (*describe_pool)(uint64_t pool, PoolDescription* out) = nullptr;
  // How `agent` (known) reaches `pool` (known).
  PoolLink (*pool_link)(hsa_agent_t agent, uint64_t pool) = nullptr;
  // Allocates `size` bytes (not 0) from `pool` (a known pool that allows
  // allocation, `size` within its largest) with `flags`:
  // its base in *ptr, what pointer info and the other hooks need in *facts;
  // another status refuses it, with nothing allocated.
  hsa_status_t (*pool_allocate)(uint64_t pool, size_t size, uint32_t flags, void** ptr,
                                AllocationFacts* facts) = nullptr;
  // Releases what pool_allocate made (its base, the size asked, its facts).
  void (*pool_free)(void* ptr, size_t size, const AllocationFacts& facts) = nullptr;
  // Sets `count` dwords at ptr (4-byte aligned, inside the allocation of
  // `facts`) to `value`; done when it returns.
  hsa_status_t (*fill)(void* ptr, uint32_t value, size_t count, const AllocationFacts& facts) = nullptr;
  // The agents that reach memory of `facts` (pointer info's list): writes up
  // to `capacity` of them to `out` and returns how many there are.
  size_t (*accessible_agents)(const AllocationFacts& facts, hsa_agent_t* out, size_t capacity) = nullptr;
  // Locked host memory (hsa_amd_memory_lock, memory.cpp): makes host memory
  // [ptr, ptr + size) reachable by every agent, filling what pointer info
  // says of it (`facts`: its owner, flags) and the address agents use for
  // it (`agent_ptr`, preset to ptr); another status refuses it, with nothing
  // locked. unlock_host ends it. Called for a range no allocation or lock
  // contains yet, one at a time.
  hsa_status_t (*lock_host)(void* ptr, size_t size, AllocationFacts* facts, void** agent_ptr) = nullptr;
  void (*unlock_host)(void* ptr, size_t size, const AllocationFacts& facts) = nullptr;
  // Asynchronous copies (copy.h): moves `size` bytes (not 0) from `src` to
  // `dst` (either may be any memory the agents reach; they may overlap),
  // then calls copy_done(context, ok), from any thread. Unset: the runtime
  // offers no asynchronous copy (hsa_amd_memory_async_copy answers
  // HSA_STATUS_ERROR).
  void (*copy)(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
               void* context) = nullptr;
  // A kernel agent's regions also list the host agents' pools that every
  // agent reaches (a discrete device's view of system memory, as ROCR's
  // GPU agents list the system regions).
  bool regions_include_host_pools = false;
  // HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE.
  uint32_t max_workgroup_size = 1024;
  // ISAs (isa.cpp; the back-end's hsa_isa_get_info_alt describes them):
  // the ISA of a name (false: none), and whether code for one runs on an
  // agent of another.
  bool (*isa_from_name)(const char* name, hsa_isa_t* isa) = nullptr;
  bool (*isa_compatible)(hsa_isa_t code_object_isa, hsa_isa_t agent_isa) = nullptr;
  // How long a waiter polls before it sleeps, per wait-state hint.
  uint64_t active_spin_ns = 200000;
  uint64_t blocked_spin_ns = 20000;
  // Longest sleep of a waiter between two checks of the values it waits
  // for: bounds how late it sees a store that bypassed the API (a value
  // pointer, kernel code, a device).
  uint64_t sleep_recheck_ns = 4000000;
  // Values change behind the API as a matter of course (a device writes
  // completion signals): every sleeping waiter is listed, so that the
  // runtime can wake them all when it sees such a write land
  // (wake_all_sleepers, signal.h).
  bool device_writes = false;
  // Called by a store to a doorbell signal before the value changes (a
  // runtime's statistics); unset: nothing.
  void (*doorbell_stored)(Signal* doorbell) = nullptr;
  // Called by hsa_signal_destroy before a user signal goes (what the
  // runtime keeps about it: profiling events); unset: nothing.
  void (*signal_destroying)(Signal* signal) = nullptr;
  // Dispatch timestamps (svm.cpp): fills in the start_ts and end_ts of
  // `signal` (a live signal) in the system domain, when the back-end keeps
  // them elsewhere until asked (hsa-cuda's events); unset: they are kept in
  // the signal. agent_tick_to_system converts a tick of `agent` (a known
  // agent: its HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY) to the system
  // domain's; unset: the same number.
  void (*dispatch_time)(hsa_signal_t signal) = nullptr;
  uint64_t (*agent_tick_to_system)(hsa_agent_t agent, uint64_t tick) = nullptr;
  // Code objects (executable.h): loads `size` bytes of a code object for
  // `agent` (one of the runtime's agents, checked), filling *out; another
  // status refuses it, with nothing loaded. May throw std::bad_alloc.
  hsa_status_t (*load_code_object)(hsa_agent_t agent, const void* bytes, size_t size, LoadedCode* out) = nullptr;
  // Unloads what load_code_object loaded (LoadedCode::object), once no
  // executable lists its symbols.
  void (*unload_code_object)(void* object) = nullptr;
};

// Defined by the runtime (one per shared library).
Backend& backend();

// Returns HSA_STATUS_ERROR_NOT_INITIALIZED from an entry point called
// outside hsa_init .. hsa_shut_down.
#define HSA_CORE_REQUIRE_INIT()                                 \
  do {                                                          \
    if (!::hsa_core::backend().initialized())                   \
      return HSA_STATUS_ERROR_NOT_INITIALIZED;                  \
  } while (0)

// The core's objects a runtime's last hsa_shut_down releases (signal.h has
// the signals' and the handler thread's): the finalizer's (empty) programs.
void destroy_all_programs();

// hsa_agent_get_info's image attributes (hsa_ext_image.h) for agents that
// support no image: fills `value` and returns true, or false for any other
// attribute.
bool no_image_agent_info(uint32_t attribute, void* value);

// Logs through the back-end (printf format).
void log(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace hsa_core

#endif  // HSA_CORE_BACKEND_H_
