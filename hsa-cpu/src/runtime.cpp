// Runtime lifetime (hsa_init / hsa_shut_down), agents, ISAs and the system,
// agent, ISA, cache and extension queries.
#include "runtime.h"

#include <hsa_core/agent.h>
#include <hsa_core/backend.h>
#include <hsa_core/queue.h>

#include <cpuid.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "executable.h"
#include "fault.h"
#include "queue.h"
#include "signal.h"
#include "worker_pool.h"

namespace hsa_cpu {

void free_all_allocations();  // memory.cpp

const Isa kIsas[kIsaLevelCount] = {
    {"x86_64-unknown-linux-gnu--x86-64-v4", "x86-64-v4", 16},
    {"x86_64-unknown-linux-gnu--x86-64-v3", "x86-64-v3", 8},
    {"x86_64-unknown-linux-gnu--x86-64-v2", "x86-64-v2", 4},
    {"x86_64-unknown-linux-gnu--x86-64", "x86-64", 4},
};

const Isa* isa_from_handle(hsa_isa_t isa) {
  for (const Isa& candidate : kIsas)
    if (isa.handle == reinterpret_cast<uintptr_t>(&candidate)) return &candidate;
  return nullptr;
}

// Every host ISA level hsa-cpu knows by name, offered by an agent or not
// (the core's hsa_isa_from_name).
bool isa_from_name(const char* name, hsa_isa_t* isa) {
  for (const Isa& candidate : kIsas) {
    if (strcmp(candidate.name, name) == 0) {
      isa->handle = reinterpret_cast<uintptr_t>(&candidate);
      return true;
    }
  }
  return false;
}

namespace {

std::atomic<Runtime*> g_runtime{nullptr};

constexpr size_t kAgentNameBytes = 64;   // HSA_AGENT_INFO_NAME / VENDOR_NAME
constexpr uint32_t kCallConventionCount = 1;  // HSA_ISA_INFO_CALL_CONVENTION_COUNT of every ISA

std::string trim(std::string s) {
  const size_t first = s.find_first_not_of(" \t");
  const size_t last = s.find_last_not_of(" \t\n");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

std::string cpu_brand() {
  unsigned regs[12] = {};
  unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
  if (max_ext >= 0x80000004u) {
    for (unsigned i = 0; i < 3; ++i)
      __get_cpuid(0x80000002u + i, &regs[i * 4], &regs[i * 4 + 1], &regs[i * 4 + 2], &regs[i * 4 + 3]);
    char brand[49] = {};
    memcpy(brand, regs, 48);
    std::string s = trim(brand);
    if (!s.empty()) return s;
  }
  return "x86-64 CPU";
}

std::string cpu_vendor() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __get_cpuid(0, &a, &b, &c, &d);
  char id[13] = {};
  memcpy(id, &b, 4);
  memcpy(id + 4, &d, 4);
  memcpy(id + 8, &c, 4);
  if (strcmp(id, "AuthenticAMD") == 0) return "AMD";
  if (strcmp(id, "GenuineIntel") == 0) return "Intel";
  return id;
}

// The highest maximum clock of the CPUs this process may run on: cpufreq's
// cpuinfo_max_freq; without cpufreq (VMs), CPUID leaf 0x16's maximum
// frequency; the current "cpu MHz" of /proc/cpuinfo as a last resort.
uint32_t cpu_max_mhz() {
  uint64_t max_khz = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) CPU_SET(0, &set);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    char path[96];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
    std::ifstream freq(path);
    uint64_t khz = 0;
    if (freq >> khz && khz > max_khz) max_khz = khz;
  }
  if (max_khz != 0) return uint32_t(max_khz / 1000);
  constexpr unsigned kFrequencyLeaf = 0x16;
  if (__get_cpuid_max(0, nullptr) >= kFrequencyLeaf) {
    unsigned base_mhz = 0, max_mhz = 0, bus_mhz = 0, unused = 0;
    __cpuid(kFrequencyLeaf, base_mhz, max_mhz, bus_mhz, unused);
    if ((max_mhz & 0xffff) != 0) return max_mhz & 0xffff;
  }
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return uint32_t(atof(line.c_str() + colon + 1));
    }
  }
  return 0;
}

uint32_t online_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return uint32_t(n);
  }
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? uint32_t(n) : 1;
}

std::vector<const Isa*> supported_isas() {
  std::vector<const Isa*> isas;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) isas.push_back(&kIsas[kIsaLevelV4]);
  if (__builtin_cpu_supports("x86-64-v3")) isas.push_back(&kIsas[kIsaLevelV3]);
  if (__builtin_cpu_supports("x86-64-v2")) isas.push_back(&kIsas[kIsaLevelV2]);
  isas.push_back(&kIsas[kIsaLevelBaseline]);
  // HSA_CPU_ISA=<level> caps the agent at that level (to test how loaders
  // pick among code objects, or to mimic an older CPU).
  const char* cap = getenv("HSA_CPU_ISA");
  if (cap != nullptr && cap[0] != '\0') {
    size_t keep = isas.size();
    for (size_t i = 0; i < isas.size(); ++i)
      if (strcmp(isas[i]->march, cap) == 0 || strcmp(isas[i]->name, cap) == 0) keep = i;
    if (keep == isas.size())
      log("ignoring HSA_CPU_ISA=%s: not a level this CPU supports", cap);
    else
      isas.erase(isas.begin(), isas.begin() + ptrdiff_t(keep));
  }
  return isas;
}

std::vector<Cache> host_caches() {
  std::vector<Cache> caches;
  const int names[4] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE,
                        _SC_LEVEL4_CACHE_SIZE};
  for (uint8_t level = 1; level <= 4; ++level) {
    const long size = sysconf(names[level - 1]);
    if (size <= 0) continue;
    Cache c{};
    snprintf(c.name, sizeof(c.name), "L%u", unsigned(level));
    c.level = level;
    c.size = uint32_t(size);
    caches.push_back(c);
  }
  return caches;
}

}  // namespace

Runtime* runtime() { return g_runtime.load(std::memory_order_acquire); }

}  // namespace hsa_cpu

namespace hsa_cpu {

// The agents and caches the core describes (hsa_core/agent.h): every agent
// is a kernel agent of the host's cores, its caches those cpuid reports.
void set_agent_hooks(hsa_core::Backend& b) {
  b.agents = [](hsa_agent_t* out, size_t capacity) {
    const Runtime* rt = runtime();
    for (size_t i = 0; i < rt->agents.size() && i < capacity; ++i) out[i] = to_handle(rt->agents[i].get());
    return rt->agents.size();
  };
  b.describe_agent = [](hsa_agent_t agent, hsa_core::AgentDescription* out) {
    const Runtime* rt = runtime();
    const Agent* a = rt != nullptr ? rt->agent(agent) : nullptr;
    if (a == nullptr) return false;
    const Isa* best = a->isas[0];
    out->name = a->name.c_str();
    out->vendor_name = a->vendor_name.c_str();
    out->product_name = a->product_name.c_str();
    out->uuid = "CPU-XX";
    out->device = HSA_DEVICE_TYPE_CPU;
    out->profile = HSA_PROFILE_FULL;
    out->kernel_dispatch = true;
    out->fast_f16 = false;
    out->node = a->index;
    out->isa = hsa_isa_t{reinterpret_cast<uintptr_t>(best)};
    out->wavefront_size = best->wavefront_size;
    for (uint16_t& d : out->workgroup_max_dim) d = uint16_t(kWorkgroupMaxSize);
    out->workgroup_max_size = kWorkgroupMaxSize;
    out->grid_max_dim = hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX};
    out->grid_max_size = UINT32_MAX;
    out->fbarrier_max_size = kFbarrierMaxSize;
    out->queues_max = kQueuesMax;
    out->queue_min_size = kQueueMinSize;
    out->queue_max_size = kQueueMaxSize;
    out->group_segment_max = kGroupSegmentMaxBytes;
    out->cacheline_size = a->cacheline_size;
    out->compute_units = a->compute_units;
    out->max_clock_mhz = a->max_clock_mhz;
    // A worker runs one workgroup at a time: up to a full workgroup's waves.
    out->max_waves_per_cu = kWorkgroupMaxSize / best->wavefront_size;
    out->simds_per_cu = 1;
    out->shader_engines = 1;
    out->shader_arrays_per_engine = 1;
    out->svm_direct_host_access = true;
    out->timestamp_frequency = tsc_frequency_hz();
    // No PCI device: chip id, bus and domain stay 0, as ROCR answers for
    // its CPU agents.
    return true;
  };
  b.agent_caches = [](hsa_agent_t agent, uint64_t* out, size_t capacity) {
    const Agent* a = runtime()->agent(agent);
    for (size_t i = 0; i < a->caches.size() && i < capacity; ++i) out[i] = reinterpret_cast<uintptr_t>(&a->caches[i]);
    return a->caches.size();
  };
  b.describe_cache = [](uint64_t handle, hsa_core::CacheDescription* out) {
    const Runtime* rt = runtime();
    if (rt == nullptr) return false;
    for (const auto& a : rt->agents)
      for (const Cache& c : a->caches)
        if (handle == reinterpret_cast<uintptr_t>(&c)) {
          out->name = c.name;
          out->level = c.level;
          out->size = c.size;
          return true;
        }
    return false;
  };
}

}  // namespace hsa_cpu


// hsa-cpu as the core's back-end: its signals live on the C++ heap, only
// kernels and API users write them (a store behind the API is seen within
// the 4 ms re-check), waits poll 20 us (BLOCKED) or 200 us (ACTIVE).
hsa_core::Backend& hsa_core::backend() {
  static Backend backend = [] {
    Backend b;
    b.name = "hsa-cpu";
    b.build_version = "hsa-cpu " HSA_CPU_VERSION;
    b.svm = true;
    b.open = hsa_cpu::open_runtime;
    b.close = hsa_cpu::close_runtime;
    b.initialized = [] { return hsa_cpu::runtime() != nullptr; };
    b.agent_known = [](hsa_agent_t agent) {
      const hsa_cpu::Runtime* rt = hsa_cpu::runtime();
      return rt != nullptr && rt->agent(agent) != nullptr;
    };
    b.log = [](const char* line) { hsa_cpu::log("%s", line); };
    hsa_cpu::set_agent_hooks(b);
    hsa_cpu::set_queue_hooks(b);
    hsa_cpu::set_code_object_hooks(b);
    hsa_cpu::set_memory_hooks(b);
    b.max_workgroup_size = hsa_cpu::kWorkgroupMaxSize;
    b.isa_from_name = hsa_cpu::isa_from_name;
    // The levels are best-first: code for a level runs on every better one.
    b.isa_compatible = [](hsa_isa_t code, hsa_isa_t agent) {
      return hsa_cpu::isa_from_handle(code) >= hsa_cpu::isa_from_handle(agent);
    };
    return b;
  }();
  return backend;
}

namespace hsa_cpu {

Runtime::Runtime() {
  read_log_switch();
  tsc_frequency_hz();  // measured once per process, here rather than mid-run
  // One worker fewer than the CPUs: a queue's processor thread runs
  // workgroups beside the workers (it helps with every dispatch it hands to
  // the pool), so one busy queue uses every CPU and no more. With a worker
  // per CPU, a 2-CPU machine ran three threads' kernels on two (jacobi-2d
  // 1024^2 on hsa-cpu: 4.1 ms with two workers, 2.4 with one).
  const uint32_t cpus = online_cpus();
  const uint32_t worker_count = env_u32("HSA_CPU_WORKERS", cpus > 1 ? cpus - 1 : 1);
  const uint32_t agent_count = env_u32("HSA_CPU_AGENTS", 1);
  workers = std::make_unique<WorkerPool>(worker_count);

  const std::string brand = cpu_brand();
  const std::string vendor = cpu_vendor();
  const std::vector<const Isa*> isas = supported_isas();
  const std::vector<Cache> caches = host_caches();
  const long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  const uint32_t mhz = cpu_max_mhz();
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t memory = size_t(sysconf(_SC_PHYS_PAGES)) * page;
  for (uint32_t i = 0; i < agent_count; ++i) {
    auto agent = std::make_unique<Agent>();
    agent->index = i;
    agent->name = ("hsa-cpu (" + brand + ")").substr(0, kAgentNameBytes - 1);
    agent->product_name = brand.substr(0, kAgentNameBytes - 1);
    agent->vendor_name = vendor.substr(0, kAgentNameBytes - 1);
    agent->isas = isas;
    agent->caches = caches;
    agent->cacheline_size = line > 0 ? uint32_t(line) : 64;
    agent->max_clock_mhz = mhz;
    agent->compute_units = worker_count;
    Agent* owner = agent.get();
    auto global = [&](uint32_t flags) {
      return Pool{owner, HSA_AMD_SEGMENT_GLOBAL, flags, true, memory, memory, page, page};
    };
    agent->fine_pool = global(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    agent->coarse_pool = global(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    agent->kernarg_pool = global(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                 HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    agent->group_pool = Pool{owner, HSA_AMD_SEGMENT_GROUP, 0, false, kGroupSegmentMaxBytes, 0, 0, 0};
    agents_by_handle_[to_handle(owner).handle] = owner;
    for (size_t p = 0; p < Agent::kPoolCount; ++p) {
      Pool* pool = const_cast<Pool*>(owner->pool_in_order(p));
      pools_by_handle_[reinterpret_cast<uintptr_t>(pool)] = pool;
    }
    agents.push_back(std::move(agent));
  }
  install_fault_handlers();
  log("runtime up: %u agent(s) '%s', %u worker thread(s), best ISA %s", agent_count,
      agents[0]->name.c_str(), worker_count, isas[0]->name);
}

Runtime::~Runtime() = default;

Agent* Runtime::agent(hsa_agent_t handle) const {
  if (agents.size() == 1)  // the common case: no hashing
    return handle.handle == reinterpret_cast<uintptr_t>(agents[0].get()) ? agents[0].get() : nullptr;
  const auto it = agents_by_handle_.find(handle.handle);
  return it == agents_by_handle_.end() ? nullptr : it->second;
}

const Pool* Agent::pool_in_order(size_t i) const {
  const Pool* order[kPoolCount] = {&fine_pool, &coarse_pool, &kernarg_pool, &group_pool};
  return order[i];
}

Pool* Runtime::pool(uint64_t handle) const {
  const auto it = pools_by_handle_.find(handle);
  return it == pools_by_handle_.end() ? nullptr : it->second;
}

}  // namespace hsa_cpu

using namespace hsa_cpu;

// ---------------------------------------------------------------------------
// Lifetime

namespace hsa_cpu {

// The core's hsa_init opens the runtime (Backend::open) and its last
// hsa_shut_down closes it (Backend::close), under the core's init mutex.
hsa_status_t open_runtime() {
  // Host memory (or threads) running out while the runtime is built is a
  // status, never an exception through the C API.
  Runtime* rt = nullptr;
  try {
    rt = new Runtime();
  } catch (const std::exception& e) {
    log("hsa_init: building the runtime failed: %s", e.what());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  g_runtime.store(rt, std::memory_order_release);
  return HSA_STATUS_SUCCESS;
}

void close_runtime() {
  Runtime* rt = runtime();
  hsa_core::destroy_all_queues();  // stops and frees every queue
  shut_down_async_handler_thread();
  rt->workers.reset();  // joins the workers once every job finished
  hsa_core::destroy_all_executables();
  hsa_core::destroy_all_programs();
  free_all_allocations();
  destroy_all_user_signals();
  uninstall_fault_handlers();  // every thread that ran kernels is gone
  g_runtime.store(nullptr, std::memory_order_release);
  delete rt;
}

}  // namespace hsa_cpu

// ---------------------------------------------------------------------------
// ISAs and wavefronts

HSA_CPU_EXPORT hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent,
                                                   hsa_status_t (*callback)(hsa_isa_t isa, void* data),
                                                   void* data) {
  HSA_CPU_REQUIRE_INIT();
  const Agent* a = runtime()->agent(agent);
  if (a == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const Isa* isa : a->isas) {
    const hsa_status_t status = callback(hsa_isa_t{reinterpret_cast<uintptr_t>(isa)}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

namespace {

hsa_status_t isa_info(const Isa* isa, uint32_t attribute, uint32_t index, void* value) {
  const uint32_t wavefront = isa->wavefront_size;
  // hsa_isa_get_info's index: "between 0 (inclusive) and the value of
  // HSA_ISA_INFO_CALL_CONVENTION_COUNT (not inclusive)" (hsa.h), for every
  // attribute, as ROCR checks it (hsa_isa_get_info_alt passes 0).
  if (index >= kCallConventionCount) return HSA_STATUS_ERROR_INVALID_INDEX;
  switch (attribute) {
    case HSA_ISA_INFO_NAME_LENGTH: *static_cast<uint32_t*>(value) = uint32_t(strlen(isa->name) + 1); break;
    case HSA_ISA_INFO_NAME: memcpy(value, isa->name, strlen(isa->name) + 1); break;
    case HSA_ISA_INFO_CALL_CONVENTION_COUNT: *static_cast<uint32_t*>(value) = kCallConventionCount; break;
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE: *static_cast<uint32_t*>(value) = wavefront; break;
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT:
      *static_cast<uint32_t*>(value) = kWorkgroupMaxSize / wavefront;
      break;
    case HSA_ISA_INFO_MACHINE_MODELS: {
      bool* models = static_cast<bool*>(value);
      models[HSA_MACHINE_MODEL_SMALL] = false;
      models[HSA_MACHINE_MODEL_LARGE] = true;
      break;
    }
    case HSA_ISA_INFO_PROFILES: {
      bool* profiles = static_cast<bool*>(value);
      profiles[HSA_PROFILE_BASE] = true;
      profiles[HSA_PROFILE_FULL] = true;
      break;
    }
    case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES:
    case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
      bool* modes = static_cast<bool*>(value);
      modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT] = false;
      modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] = false;
      modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR] = true;
      break;
    }
    case HSA_ISA_INFO_FAST_F16_OPERATION: *static_cast<bool*>(value) = false; break;
    case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
      uint16_t* dims = static_cast<uint16_t*>(value);
      dims[0] = dims[1] = dims[2] = uint16_t(kWorkgroupMaxSize);
      break;
    }
    case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: *static_cast<uint32_t*>(value) = kWorkgroupMaxSize; break;
    case HSA_ISA_INFO_GRID_MAX_DIM:
      *static_cast<hsa_dim3_t*>(value) = hsa_dim3_t{UINT32_MAX, UINT32_MAX, UINT32_MAX};
      break;
    case HSA_ISA_INFO_GRID_MAX_SIZE: *static_cast<uint64_t*>(value) = UINT64_MAX; break;
    case HSA_ISA_INFO_FBARRIER_MAX_SIZE: *static_cast<uint32_t*>(value) = kFbarrierMaxSize; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

}  // namespace

HSA_CPU_EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
  HSA_CPU_REQUIRE_INIT();
  const Isa* i = isa_from_handle(isa);
  if (i == nullptr) return HSA_STATUS_ERROR_INVALID_ISA;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return isa_info(i, enum_bits(attribute), 0, value);
}

