// Lifetime, agents, ISAs, pools, memory and system/agent/pool queries.
#include <hsa_core/agent.h>
#include <hsa_core/backend.h>
#include <hsa_core/copy.h>

#include <hsa_core/executable.h>
#include <hsa_core/memory.h>
#include <hsa_core/queue.h>

#include "runtime.h"

#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

namespace hsa_cuda {

Runtime g_runtime;

bool initialized() { return g_runtime.open.load(std::memory_order_acquire); }

void log_error(const char* format, ...) {
  if (!g_runtime.log) return;
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  std::fprintf(stderr, "hsa-cuda: %s\n", buffer);
}

std::string cuda_error_text(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (g_runtime.cuda.cuGetErrorName) g_runtime.cuda.cuGetErrorName(result, &name);
  if (g_runtime.cuda.cuGetErrorString) g_runtime.cuda.cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA error ") + (name ? "" : std::to_string(result)) + " (" +
         (text ? text : "no description") + ")";
}

bool make_current(const Agent* agent) {
  return g_runtime.cuda.cuCtxSetCurrent(agent->context) == CUDA_SUCCESS;
}

Agent* to_agent(hsa_agent_t handle) {
  for (auto& agent : g_runtime.agents)
    if (reinterpret_cast<uint64_t>(agent.get()) == handle.handle) return agent.get();
  return nullptr;
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

namespace {

Pool* to_pool(hsa_amd_memory_pool_t handle) {
  for (auto& agent : g_runtime.agents)
    for (Pool& pool : agent->pools)
      if (reinterpret_cast<uint64_t>(&pool) == handle.handle) return &pool;
  return nullptr;
}

Isa* to_isa(hsa_isa_t handle) {
  for (auto& isa : g_runtime.isas)
    if (reinterpret_cast<uint64_t>(isa.get()) == handle.handle) return isa.get();
  return nullptr;
}

}  // namespace

bool isa_from_name(const char* name, hsa_isa_t* isa) {
  for (auto& candidate : g_runtime.isas) {
    if (candidate->name == name) {
      isa->handle = reinterpret_cast<uint64_t>(candidate.get());
      return true;
    }
  }
  return false;
}

bool isa_compatible(hsa_isa_t code_object_isa, hsa_isa_t agent_isa) {
  const Isa* code = to_isa(code_object_isa);
  const Isa* agent = to_isa(agent_isa);
  return code != nullptr && agent != nullptr && code->sm <= agent->sm;
}

namespace {

bool attribute(const Agent& agent, int which, int* out) {
  return g_runtime.cuda.cuDeviceGetAttribute(out, which, agent.device) == CUDA_SUCCESS;
}

// The devices' primary contexts this process retained (by ordinal; under
// the core's init mutex): kept until the process ends, or until a fault's
// reset.
std::map<int, CUcontext> g_kept_contexts;

hsa_status_t open_agents() {
  CudaDriver& cuda = g_runtime.cuda;
  const char* error = nullptr;
  if (!cuda.library && !cuda_driver_load(&cuda, &error)) {
    log_error("hsa_init: %s", error);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  CUresult r = cuda.cuInit(0);
  int count = 0;
  if (r == CUDA_SUCCESS) r = cuda.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    // No device is not an error of hsa_init: the runtime then has no agents.
    log_error("hsa_init: cuInit/cuDeviceGetCount: %s", cuda_error_text(r).c_str());
    return r == CUDA_ERROR_NO_DEVICE ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  for (int i = 0; i < count; ++i) {
    auto agent = std::make_unique<Agent>();
    agent->ordinal = i;
    if (cuda.cuDeviceGet(&agent->device, i) != CUDA_SUCCESS) continue;
    char name[256] = {};
    cuda.cuDeviceGetName(name, sizeof(name) - 1, agent->device);
    agent->name = name;
    int major = 0, minor = 0, host_map = 0, uva = 0;
    attribute(*agent, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, &host_map);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, &uva);
    if (!host_map || !uva) {
      log_error("hsa_init: CUDA device %d (%s) cannot map host memory with unified addressing; skipped", i,
                name);
      continue;
    }
    attribute(*agent, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &agent->sm_count);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &agent->max_threads);
    for (int d = 0; d < 3; ++d) {
      attribute(*agent, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + d, &agent->max_block[d]);
      attribute(*agent, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + d, &agent->max_grid[d]);
    }
    attribute(*agent, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &agent->shared_per_block);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &agent->l2_size);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &agent->clock_khz);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &agent->pci_device);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &agent->pci_bus);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &agent->pci_domain);
    attribute(*agent, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &agent->warp_size);
    cuda.cuDeviceTotalMem(&agent->total_memory, agent->device);
    // A device's primary context is retained once per process and kept
    // across hsa_shut_down (close_agents): creating one takes tens of
    // milliseconds, and a program may init and shut down many times.
    auto kept = g_kept_contexts.find(i);
    if (kept != g_kept_contexts.end()) {
      agent->context = kept->second;
      r = CUDA_SUCCESS;
    } else {
      r = cuda.cuDevicePrimaryCtxRetain(&agent->context, agent->device);
      if (r == CUDA_SUCCESS) g_kept_contexts[i] = agent->context;
    }
    if (r != CUDA_SUCCESS && g_runtime.sticky_fault.load() != 0) {
      // Said whether or not HSA_CUDA_LOG is set: nothing else explains why
      // the GPU is gone for the rest of the process.
      std::fprintf(stderr,
                   "hsa-cuda: hsa_init: CUDA device %d faulted earlier in this process (%s); CUDA allows no "
                   "further work on it in this process (cuDevicePrimaryCtxRetain: %s): only a new process can "
                   "use the GPU\n",
                   i, cuda_error_text(CUresult(g_runtime.sticky_fault.load())).c_str(), cuda_error_text(r).c_str());
      continue;
    }
    if (r != CUDA_SUCCESS) {
      log_error("hsa_init: CUDA device %d: cuDevicePrimaryCtxRetain: %s", i, cuda_error_text(r).c_str());
      continue;
    }
    const int sm = major * 10 + minor;
    Isa* isa = nullptr;
    for (auto& known : g_runtime.isas)
      if (known->sm == sm) isa = known.get();
    if (!isa) {
      auto fresh = std::make_unique<Isa>();
      fresh->sm = sm;
      fresh->name = "nvptx64-nvidia-cuda--sm_" + std::to_string(sm);
      isa = fresh.get();
      g_runtime.isas.push_back(std::move(fresh));
    }
    agent->isa = isa;
    agent->pools[0] = Pool{agent.get(), PoolKind::kDevice};
    agent->pools[1] = Pool{agent.get(), PoolKind::kGroup};
    g_runtime.agents.push_back(std::move(agent));
  }
  if (!g_runtime.agents.empty()) {
    // The host agent: pinned memory is made with the first device's context
    // (portable, so every device maps it).
    const Agent& first = *g_runtime.agents[0];
    auto host = std::make_unique<Agent>();
    host->host = true;
    host->ordinal = int(g_runtime.agents.size());
    host->device = first.device;
    host->context = first.context;
    host->name = "hsa-cuda host";
    host->pools[0] = Pool{host.get(), PoolKind::kHost};
    host->pools[1] = Pool{host.get(), PoolKind::kKernarg};
    g_runtime.agents.push_back(std::move(host));
  }
  g_runtime.host_memory = size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
  return HSA_STATUS_SUCCESS;
}

void close_agents() {
  hsa_core::destroy_all_queues();
  // (Before the abandoned-work flag is read and cleared below: a code object
  // of a context left to the process's exit is not unloaded.)
  hsa_core::destroy_all_executables();
  // Work a destroyed queue abandoned (a kernel that never ends) cannot be
  // stopped by CUDA: a free, an unload, a synchronize, a context reset or
  // the primary context's last release would each wait for it for ever.
  // Its contexts, with their memory, modules and streams, are left to the
  // process's exit (which ends the kernel); the runtime forgets them, and a
  // later hsa_init retains the same primary contexts.
  const bool abandoned = g_runtime.abandoned_work.exchange(false, std::memory_order_acq_rel);
  if (abandoned) {
    g_runtime.abandoned_since_init = true;
    log_error("hsa_shut_down: a destroyed queue's kernel still runs and CUDA cannot stop it: the devices' contexts, "
              "memory and modules are left to the process's exit, not released");
  }
  profiling_release_all(!abandoned);
  signals_release_all(!abandoned);
  hsa_core::destroy_all_programs();
  memory_release_all(!abandoned);
  for (auto& agent : g_runtime.agents) {
    if (agent->host) continue;
    if (abandoned) continue;
    // A device fault leaves the context unusable (CUDA's sticky errors):
    // reset it, so that the next hsa_init starts on a fresh one.
    CUresult r = make_current(agent.get()) ? g_runtime.cuda.cuCtxSynchronize() : CUDA_SUCCESS;
    g_runtime.cuda.cuCtxSetCurrent(nullptr);
    if (r != CUDA_SUCCESS) {
      int none = 0;
      g_runtime.sticky_fault.compare_exchange_strong(none, int(r));
      log_error("hsa_shut_down: CUDA device %d had faulted (%s): its context is reset", agent->ordinal,
                cuda_error_text(r).c_str());
      g_runtime.cuda.cuDevicePrimaryCtxReset(agent->device);
      // Released: the next hsa_init retains a fresh context.
      g_runtime.cuda.cuDevicePrimaryCtxRelease(agent->device);
      g_kept_contexts.erase(agent->ordinal);
    }
  }
  g_runtime.agents.clear();
  g_runtime.isas.clear();
}

template <typename T>
hsa_status_t put(void* value, T v) {
  std::memcpy(value, &v, sizeof(T));
  return HSA_STATUS_SUCCESS;
}

}  // namespace
}  // namespace hsa_cuda

using namespace hsa_cuda;

// --- Runtime -------------------------------------------------------------------

namespace hsa_cuda {

// The core's hsa_init opens the runtime (Backend::open) and its last
// hsa_shut_down closes it (Backend::close), under the core's init mutex.
hsa_status_t open_runtime() {
  if (g_runtime.abandoned_since_init) {
    log_error("hsa_init: a kernel abandoned earlier in this process (its queue was destroyed while it ran) still "
              "runs, and CUDA cannot stop it: the devices are unusable until the process exits");
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  const char* log = std::getenv("HSA_CUDA_LOG");
  g_runtime.log = log && std::strcmp(log, "0") != 0;
  const char* stats = std::getenv("HSA_CUDA_STATS");
  g_runtime.stats = stats && std::strcmp(stats, "0") != 0;
  const char* host_wake = std::getenv("HSA_CUDA_HOST_WAKE");
  g_runtime.host_wake = host_wake && std::strcmp(host_wake, "0") != 0;
  const char* graphs = std::getenv("HSA_CUDA_GRAPHS");
  g_runtime.graphs = !graphs || std::strcmp(graphs, "0") != 0;
  // Powers of two from 8 to 4096 (others are rounded down into that range).
  auto run_length = [](const char* name, uint32_t fallback) {
    const char* text = std::getenv(name);
    if (!text || !*text) return fallback;
    const unsigned long value = std::strtoul(text, nullptr, 10);
    uint32_t length = 8;
    while (length < 4096 && uint64_t(length) * 2 <= value) length *= 2;
    return length;
  };
  g_runtime.run_first = run_length("HSA_CUDA_RUN_FIRST", 16);
  const char* spin = std::getenv("HSA_CUDA_WAIT_SPIN_US");
  g_runtime.wait_spin_ns = spin && *spin ? std::min<uint64_t>(std::strtoull(spin, nullptr, 10), 1000000) * 1000
                           : std::thread::hardware_concurrency() >= 4 ? 1000000 : 20000;
  g_runtime.run_max = std::max(g_runtime.run_first, run_length("HSA_CUDA_RUN_MAX", 1024));
  signals_configure();
  hsa_status_t status = open_agents();
  if (status != HSA_STATUS_SUCCESS) {
    close_agents();
    return status;
  }
  g_runtime.open.store(true, std::memory_order_release);
  return HSA_STATUS_SUCCESS;
}

void close_runtime() {
  g_runtime.open.store(false, std::memory_order_release);
  close_agents();
}

}  // namespace hsa_cuda

hsa_status_t hsa_agent_iterate_isas(hsa_agent_t handle, hsa_status_t (*callback)(hsa_isa_t, void*),
                                    void* data) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Agent* agent = to_agent(handle);
  if (!agent) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (agent->host) return HSA_STATUS_SUCCESS;  // runs no code objects
  return callback(hsa_isa_t{reinterpret_cast<uint64_t>(agent->isa)}, data);
}

hsa_status_t hsa_isa_get_info_alt(hsa_isa_t handle, hsa_isa_info_t attribute, void* value) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Isa* isa = to_isa(handle);
  if (!isa) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_ISA_INFO_NAME_LENGTH: return put<uint32_t>(value, uint32_t(isa->name.size() + 1));
    case HSA_ISA_INFO_NAME: std::memcpy(value, isa->name.c_str(), isa->name.size() + 1); return HSA_STATUS_SUCCESS;
    case HSA_ISA_INFO_CALL_CONVENTION_COUNT: return put<uint32_t>(value, 1);
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE: return put<uint32_t>(value, 32);
    // A streaming multiprocessor holds 2048 threads (sm_70 and later).
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT: return put<uint32_t>(value, 64);
    case HSA_ISA_INFO_MACHINE_MODELS: {
      bool models[2] = {false, true};
      std::memcpy(value, models, sizeof(models));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_ISA_INFO_PROFILES: {
      bool profiles[2] = {true, false};
      std::memcpy(value, profiles, sizeof(profiles));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES: {
      bool modes[3] = {false, false, true};
      std::memcpy(value, modes, sizeof(modes));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
      bool modes[3] = {false, false, true};
      std::memcpy(value, modes, sizeof(modes));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_ISA_INFO_FAST_F16_OPERATION: return put<bool>(value, true);
    case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
      uint16_t dims[3] = {1024, 1024, 64};
      std::memcpy(value, dims, sizeof(dims));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: return put<uint32_t>(value, 1024);
    case HSA_ISA_INFO_GRID_MAX_DIM: return put(value, hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX});
    case HSA_ISA_INFO_GRID_MAX_SIZE: return put<uint64_t>(value, UINT32_MAX);
    case HSA_ISA_INFO_FBARRIER_MAX_SIZE: return put<uint32_t>(value, 32);
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

// --- Memory pools ---------------------------------------------------------------

namespace hsa_cuda {
namespace {

// The pool's HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS (a global pool's).
uint32_t global_flags(const Pool& pool) {
  uint32_t flags = pool.kind == PoolKind::kDevice ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED
                                                  : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
  if (pool.kind == PoolKind::kKernarg) flags |= HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
  return flags;
}

// The back-end's pool_allocate (the core has checked the pool, that it
// allows allocation, size against its largest, and ptr, and keeps the
// record): device memory (cuMemAlloc) or pinned host
// memory every device maps (cuMemHostAlloc).
hsa_status_t pool_allocate(uint64_t handle, size_t size, uint32_t flags, void** ptr, hsa_core::AllocationFacts* facts) {
  Pool* pool = to_pool(hsa_amd_memory_pool_t{handle});
  (void)flags;
  if (!make_current(pool->agent)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  const size_t rounded = (size + 4095) & ~size_t(4095);
  void* address = nullptr;
  CUresult r;
  if (pool->kind == PoolKind::kDevice) {
    CUdeviceptr device = 0;
    r = g_runtime.cuda.cuMemAlloc(&device, rounded);
    address = reinterpret_cast<void*>(uintptr_t(device));
  } else {
    r = g_runtime.cuda.cuMemHostAlloc(&address, rounded, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  }
  if (r != CUDA_SUCCESS) {
    log_error("hsa_amd_memory_pool_allocate: %zu bytes: %s", rounded, cuda_error_text(r).c_str());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  facts->owner = hsa_agent_t{reinterpret_cast<uint64_t>(pool->agent)};
  facts->global_flags = global_flags(*pool);
  facts->host_accessible = pool->kind != PoolKind::kDevice;
  facts->word = uint64_t(pool->kind);
  *ptr = address;
  return HSA_STATUS_SUCCESS;
}

// The back-end's pool_free.
void pool_free(void* ptr, size_t, const hsa_core::AllocationFacts& facts) {
  // With abandoned work (a destroyed queue's kernel that never ends) a free
  // would wait for it (CUDA's frees synchronize): the memory is left to the
  // context, which the process's exit releases.
  if (g_runtime.abandoned_work.load(std::memory_order_acquire)) return;
  make_current(to_agent(facts.owner));
  CUresult r = PoolKind(facts.word) == PoolKind::kDevice ? g_runtime.cuda.cuMemFree(CUdeviceptr(uintptr_t(ptr)))
                                                         : g_runtime.cuda.cuMemFreeHost(ptr);
  // After a device fault every CUDA call fails; the memory goes with the
  // context when hsa_shut_down resets it, so the free is no error then.
  if (r != CUDA_SUCCESS && g_runtime.sticky_fault.load() == 0)
    log_error("hsa_amd_memory_pool_free: %p: %s", ptr, cuda_error_text(r).c_str());
}

// The back-end's fill, as hsa-cpu's (and ROCR's): device memory is set by
// the device (cuMemsetD32 on the legacy stream, which the queues'
// non-blocking streams do not wait for, then waited for), pinned host
// memory by the host; it is done when the call returns.
hsa_status_t fill(void* ptr, uint32_t value, size_t count, const hsa_core::AllocationFacts& facts) {
  if (PoolKind(facts.word) != PoolKind::kDevice) {
    std::fill_n(static_cast<uint32_t*>(ptr), count, value);
    return HSA_STATUS_SUCCESS;
  }
  if (!make_current(to_agent(facts.owner))) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  CUresult r = g_runtime.cuda.cuMemsetD32(CUdeviceptr(uintptr_t(ptr)), value, count);
  if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuStreamSynchronize(nullptr);
  if (r != CUDA_SUCCESS) {
    log_error("hsa_amd_memory_fill: %zu dwords at %p: %s", count, ptr, cuda_error_text(r).c_str());
    return HSA_STATUS_ERROR;
  }
  return HSA_STATUS_SUCCESS;
}

// The first agent that is a GPU (memory that belongs to no one GPU is
// registered and copied in its context); null on a machine without one.
const Agent* first_gpu() {
  for (const auto& agent : g_runtime.agents)
    if (!agent->host) return agent.get();
  return nullptr;
}

// The back-end's lock_host: host memory registered with CUDA (portable,
// mapped) in the first GPU's context, so that every GPU reaches it, at the
// same address (unified addressing); owned by the host agent, fine-grained,
// as pinned host memory. Without a GPU nothing needs registering.
hsa_status_t lock_host(void* ptr, size_t size, hsa_core::AllocationFacts* facts, void** agent_ptr) {
  const Agent* host = nullptr;
  for (const auto& agent : g_runtime.agents)
    if (agent->host && host == nullptr) host = agent.get();
  const Agent* gpu = first_gpu();
  if (gpu != nullptr) {
    if (!make_current(gpu)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    CUresult r = g_runtime.cuda.cuMemHostRegister(ptr, size, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
    CUdeviceptr device = 0;
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuMemHostGetDevicePointer(&device, ptr, 0);
    if (r != CUDA_SUCCESS) {
      log_error("hsa_amd_memory_lock: %zu bytes at %p: %s", size, ptr, cuda_error_text(r).c_str());
      g_runtime.cuda.cuMemHostUnregister(ptr);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    *agent_ptr = reinterpret_cast<void*>(uintptr_t(device));
  }
  facts->owner = hsa_agent_t{reinterpret_cast<uint64_t>(host != nullptr ? host : gpu)};
  facts->global_flags = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
  facts->host_accessible = true;
  facts->word = uint64_t(PoolKind::kHost);
  return HSA_STATUS_SUCCESS;
}

void unlock_host(void* ptr, size_t, const hsa_core::AllocationFacts&) {
  if (g_runtime.abandoned_work.load(std::memory_order_acquire)) return;  // as pool_free
  const Agent* gpu = first_gpu();  // lock_host registered it in this context
  if (gpu == nullptr) return;
  make_current(gpu);
  const CUresult r = g_runtime.cuda.cuMemHostUnregister(ptr);
  if (r != CUDA_SUCCESS && g_runtime.sticky_fault.load() == 0)
    log_error("hsa_amd_memory_unlock: %p: %s", ptr, cuda_error_text(r).c_str());
}

// Device memory is its device's alone; pinned host memory every agent's.
size_t accessible_agents(const hsa_core::AllocationFacts& facts, hsa_agent_t* out, size_t capacity) {
  if (PoolKind(facts.word) == PoolKind::kDevice) {
    if (capacity > 0) out[0] = facts.owner;
    return 1;
  }
  for (size_t i = 0; i < g_runtime.agents.size() && i < capacity; ++i)
    out[i] = hsa_agent_t{reinterpret_cast<uint64_t>(g_runtime.agents[i].get())};
  return g_runtime.agents.size();
}

}  // namespace

// The back-end's describe_pool: device memory (the device's, coarse-grained),
// the group segment (per workgroup, not allocatable), pinned host memory
// (fine-grained; one pool of it for kernel arguments).
bool describe_pool(uint64_t handle, hsa_core::PoolDescription* out) {
  const Pool* pool = to_pool(hsa_amd_memory_pool_t{handle});
  if (pool == nullptr) return false;
  if (pool->kind == PoolKind::kGroup) {
    out->segment = HSA_AMD_SEGMENT_GROUP;
    out->size = size_t(pool->agent->shared_per_block);
    return true;  // nothing else: no flags, no allocation
  }
  const bool device = pool->kind == PoolKind::kDevice;
  out->segment = HSA_AMD_SEGMENT_GLOBAL;
  out->global_flags = global_flags(*pool);
  out->size = device ? pool->agent->total_memory : g_runtime.host_memory;
  out->alloc_allowed = true;
  out->granule = 4096;
  out->alignment = 4096;
  // Device memory is not reachable from the host: only the owning agent
  // accesses it. Pinned host memory is reachable by every agent.
  out->accessible_by_all = !device;
  // More than this (the pool's size) is an invalid allocation, as ROCR
  // answers, not a CUDA failure.
  out->alloc_max_size = out->size;
  return true;
}

// The back-end's pool_link: an agent's own pools are its own memory; a GPU
// reaches pinned host memory over one PCIe hop; nothing else reaches a
// device's memory (no peer access is enabled).
hsa_core::PoolLink pool_link(hsa_agent_t agent, uint64_t handle) {
  const Pool* pool = to_pool(hsa_amd_memory_pool_t{handle});
  const Agent* a = to_agent(agent);
  hsa_core::PoolLink link;
  if (pool->agent == a) {
    link.access = HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
  } else if (pool->kind == PoolKind::kHost || pool->kind == PoolKind::kKernarg) {
    link.access = HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
    if (!a->host) {
      link.hops = 1;
      link.link.link_type = HSA_AMD_LINK_INFO_TYPE_PCIE;
      link.link.numa_distance = 1;
      link.link.coherent_support = true;
      link.link.atomic_support_32bit = true;
      link.link.atomic_support_64bit = true;
    }
  }
  return link;
}

// The agents the core describes (hsa_core/agent.h): the host agent (no
// kernel dispatch) and one kernel agent per CUDA device, whose one cache is
// its L2 (the handle: the address of the agent's l2_size).
void set_agent_hooks(hsa_core::Backend& b) {
  b.agents = [](hsa_agent_t* out, size_t capacity) {
    for (size_t i = 0; i < g_runtime.agents.size() && i < capacity; ++i)
      out[i] = hsa_agent_t{reinterpret_cast<uint64_t>(g_runtime.agents[i].get())};
    return g_runtime.agents.size();
  };
  b.describe_agent = [](hsa_agent_t handle, hsa_core::AgentDescription* out) {
    const Agent* agent = to_agent(handle);
    if (agent == nullptr) return false;
    out->name = agent->name.c_str();
    out->product_name = agent->name.c_str();
    out->node = uint32_t(agent->ordinal);
    if (agent->host) {
      out->vendor_name = "CPU";
      out->uuid = "CPU-XX";
      out->device = HSA_DEVICE_TYPE_CPU;
      out->profile = HSA_PROFILE_FULL;
      out->compute_units = uint32_t(sysconf(_SC_NPROCESSORS_ONLN));
      return true;
    }
    out->vendor_name = "NVIDIA";
    out->uuid = "GPU-XX";
    out->device = HSA_DEVICE_TYPE_GPU;
    out->profile = HSA_PROFILE_BASE;
    out->kernel_dispatch = true;
    out->fast_f16 = true;
    out->isa = hsa_isa_t{reinterpret_cast<uint64_t>(agent->isa)};
    out->wavefront_size = uint32_t(agent->warp_size);
    for (int d = 0; d < 3; ++d) out->workgroup_max_dim[d] = uint16_t(std::min(agent->max_block[d], 65535));
    out->workgroup_max_size = uint32_t(agent->max_threads);
    // Work items per dimension: AQL grids are in work items (uint32_t).
    uint32_t* grid[3] = {&out->grid_max_dim.x, &out->grid_max_dim.y, &out->grid_max_dim.z};
    for (int d = 0; d < 3; ++d)
      *grid[d] = uint32_t(std::min<uint64_t>(uint64_t(agent->max_grid[d]) * uint64_t(agent->max_block[d]), UINT32_MAX));
    out->grid_max_size = UINT32_MAX;
    out->fbarrier_max_size = 32;
    out->queues_max = 128;
    out->queue_min_size = 64;
    out->queue_max_size = 131072;
    out->cooperative_queues = true;  // accepted; its packets run as any queue's (no co-residency guarantee)
    out->group_segment_max = uint32_t(agent->shared_per_block);  // the group pool's size
    out->cacheline_size = 128;
    out->compute_units = uint32_t(agent->sm_count);
    out->max_clock_mhz = uint32_t(agent->clock_khz / 1000);
    out->chip_id = uint32_t(agent->pci_device);
    out->bdfid = uint32_t(agent->pci_bus) << 8;
    out->domain = uint32_t(agent->pci_domain);
    out->max_waves_per_cu = 64;
    out->simds_per_cu = 4;
    out->timestamp_frequency = 1000000000ull;  // %globaltimer counts ns
    return true;
  };
  b.agent_caches = [](hsa_agent_t handle, uint64_t* out, size_t capacity) -> size_t {
    const Agent* agent = to_agent(handle);
    if (agent->host || agent->l2_size <= 0) return 0;
    if (capacity > 0) out[0] = reinterpret_cast<uint64_t>(&agent->l2_size);
    return 1;
  };
  b.describe_cache = [](uint64_t handle, hsa_core::CacheDescription* out) {
    for (const auto& agent : g_runtime.agents) {
      if (agent->host || agent->l2_size <= 0 || handle != reinterpret_cast<uint64_t>(&agent->l2_size)) continue;
      out->name = "L2";
      out->level = 2;
      out->size = uint32_t(agent->l2_size);
      return true;
    }
    return false;
  };
}

// The back-end's copy (hsa_core/copy.h): cuMemcpy in the context of the
// GPU at either end (the first GPU's between host buffers), on the thread
// that found the copy's dependencies met (the core's handler thread): it
// returns once the bytes are there.
void copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size, void* context) {
  const Agent* gpu = nullptr;
  for (hsa_agent_t end : {dst_agent, src_agent}) {
    const Agent* agent = to_agent(end);
    if (gpu == nullptr && agent != nullptr && !agent->host) gpu = agent;
  }
  if (gpu == nullptr) gpu = first_gpu();
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  if (gpu != nullptr && make_current(gpu))
    r = g_runtime.cuda.cuMemcpy(CUdeviceptr(uintptr_t(dst)), CUdeviceptr(uintptr_t(src)), size);
  if (r != CUDA_SUCCESS)
    log_error("hsa_amd_memory_async_copy: %zu bytes %p -> %p: %s", size, src, dst, cuda_error_text(r).c_str());
  hsa_core::copy_done(context, r == CUDA_SUCCESS);
}

void set_memory_hooks(hsa_core::Backend& b) {
  b.copy = copy;
  b.lock_host = lock_host;
  b.unlock_host = unlock_host;
  b.agent_pools = [](hsa_agent_t handle, uint64_t* out, size_t capacity) {
    Agent* agent = to_agent(handle);
    const size_t count = std::size(agent->pools);
    for (size_t i = 0; i < count && i < capacity; ++i) out[i] = reinterpret_cast<uint64_t>(&agent->pools[i]);
    return count;
  };
  b.describe_pool = describe_pool;
  b.pool_link = pool_link;
  b.pool_allocate = pool_allocate;
  b.pool_free = pool_free;
  b.fill = fill;
  b.accessible_agents = accessible_agents;
}

void memory_release_all(bool release_cuda) { hsa_core::release_all_allocations(release_cuda); }

}  // namespace hsa_cuda

hsa_status_t hsa_memory_copy(void* dst, const void* src, size_t size) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!dst || !src) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (size == 0) return HSA_STATUS_SUCCESS;
  if (g_runtime.agents.empty() || !make_current(g_runtime.agents[0].get())) return HSA_STATUS_ERROR;
  // Unified addressing: the driver tells host from device pointers.
  CUresult r = g_runtime.cuda.cuMemcpy(CUdeviceptr(uintptr_t(dst)), CUdeviceptr(uintptr_t(src)), size);
  if (r != CUDA_SUCCESS) {
    log_error("hsa_memory_copy: %zu bytes %p -> %p: %s", size, src, dst, cuda_error_text(r).c_str());
    return HSA_STATUS_ERROR;
  }
  return HSA_STATUS_SUCCESS;
}


