#include "instance.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common.h"
#include "fault_report.h"
#include "host_memory.h"
#include "seam.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {
namespace {

constexpr const char* kRocrLibrary = "libhsa-runtime64.so.1";
constexpr const char* kHsaCpuLibrary = "libxgpu-hsa-cpu.so";
constexpr const char* kDriverName = "xgpu-amdgpu";
constexpr uint32_t kDriverVersion = XGPU_MAKE_API_VERSION(0, 0, 1, 0);
constexpr uint32_t kAmdVendorId = 0x1002;               // PCI vendor id of AMD
constexpr uint32_t kNvidiaVendorId = 0x10DE;            // PCI vendor id of NVIDIA
constexpr size_t kAgentVendorNameBytes = 64;            // HSA_AGENT_INFO_VENDOR_NAME's buffer (hsa.h)
constexpr uint32_t kMaxBindings = XGPU_MAX_PIPELINE_BINDINGS;  // 8-byte pointers per pipeline (each described in XgpuPipelineProperties::bindingAccess)
constexpr uint32_t kMaxPushConstantsSize = 2048;        // bytes of constants per pipeline
constexpr uint32_t kMaxBindingCapacity = 4096;          // binding-table slots per command buffer
constexpr uint64_t kMinBufferOffsetAlignment = 16;      // bytes
constexpr uint64_t kNanosecondsPerSecond = 1000000000ull;
constexpr uint32_t kFallbackComputeUnitCount = 1;        // when HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT is not answered
// HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY (ROCR's hsa_ext_amd.h; newer than
// the installed header): the rate of the agent's timestamp counter, Hz.
constexpr uint32_t kAmdAgentInfoTimestampFrequency = 0xA016;

// Process-wide runtime, shared by instances.
std::mutex g_runtime_mutex;
Runtime* g_runtime = nullptr;
uint32_t g_runtime_refs = 0;

// Directory holding this library (for hsa-cpu beside the ICD).
std::string icd_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&icd_directory), &info) && info.dli_fname) {
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    if (slash != std::string::npos) return path.substr(0, slash + 1);
  }
  return "";
}

hsa_status_t collect_agent(hsa_agent_t agent, void* data) {
  auto* agents = static_cast<std::vector<hsa_agent_t>*>(data);
  agents->push_back(agent);
  return HSA_STATUS_SUCCESS;
}

// An attribute and its name, for messages.
#define XGPU_ATTRIBUTE(attribute) attribute, #attribute

// Runs HSA attribute queries and keeps the first failure of a required one
// (later queries are then skipped), so a failing call never leaves a value
// silently 0. Optional queries report whether they were answered and leave
// the state alone. Thread-compatible.
class InfoQueries {
 public:
  explicit InfoQueries(const HsaApi& hsa) : hsa_(hsa) {}

  void agent(hsa_agent_t agent, hsa_agent_info_t attribute, const char* name, void* value) {
    if (ok()) record("hsa_agent_get_info", name, hsa_.hsa_agent_get_info(agent, attribute, value));
  }
  void pool(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute, const char* name, void* value) {
    if (ok()) record("hsa_amd_memory_pool_get_info", name, hsa_.hsa_amd_memory_pool_get_info(pool, attribute, value));
  }
  void system(hsa_system_info_t attribute, const char* name, void* value) {
    if (ok()) record("hsa_system_get_info", name, hsa_.hsa_system_get_info(attribute, value));
  }
  // Optional attributes: true when the runtime answered.
  bool optional_agent(hsa_agent_t agent, uint32_t attribute, void* value) const {
    return hsa_.hsa_agent_get_info(agent, hsa_agent_info_t(attribute), value) == HSA_STATUS_SUCCESS;
  }
  bool optional_pool(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute, void* value) const {
    return hsa_.hsa_amd_memory_pool_get_info(pool, attribute, value) == HSA_STATUS_SUCCESS;
  }
  // Records a failure found elsewhere (an iteration, a callback).
  void fail(XgpuResult result, const std::string& error) {
    if (!ok()) return;
    result_ = result;
    error_ = error;
  }

  bool ok() const { return result_ == XGPU_SUCCESS; }
  XgpuResult result() const { return result_; }
  const std::string& error() const { return error_; }  // "<call>(<attribute>) failed: <status>"

 private:
  void record(const char* call, const char* name, hsa_status_t status) {
    result_ = hsa_.check(call, name, status, &error_);
  }

  const HsaApi& hsa_;
  XgpuResult result_ = XGPU_SUCCESS;  // first failure
  std::string error_;                 // its message
};

// Tries one library: load, hsa_init, find kernel-dispatch agents, system
// info. On failure the library is unloaded and *out_why says why. An agent
// whose type cannot be queried is skipped with a warning to `instance`.
bool try_runtime(const Instance* instance, const std::string& path, Runtime* runtime, std::string* out_why) {
  if (!hsa_api_load(path, &runtime->hsa, out_why)) return false;
  HsaApi& hsa = runtime->hsa;
  auto give_up = [&](const std::string& why) {
    *out_why = hsa.library_path + ": " + why;
    std::string shut_down_error;
    if (!hsa_api_unload(&hsa, &shut_down_error)) *out_why += "; then " + shut_down_error;
    runtime->gpu_agents.clear();
    runtime->host_agent = hsa_agent_t{0};
    return false;
  };
  std::string error;
  if (hsa.hsa_init_checked(&error) != XGPU_SUCCESS) return give_up(error);
  hsa.initialized = true;
  std::vector<hsa_agent_t> agents;
  if (hsa.hsa_iterate_agents_checked(&error, collect_agent, static_cast<void*>(&agents)) != XGPU_SUCCESS)
    return give_up(error);
  for (size_t i = 0; i < agents.size(); ++i) {
    InfoQueries queries(hsa);
    uint32_t features = 0;  // hsa_agent_feature_t bits
    hsa_device_type_t type{};
    queries.agent(agents[i], XGPU_ATTRIBUTE(HSA_AGENT_INFO_FEATURE), &features);
    queries.agent(agents[i], XGPU_ATTRIBUTE(HSA_AGENT_INFO_DEVICE), &type);
    if (!queries.ok()) {
      instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kAgentSkipped,
                      "xgpu-amdgpu: " + hsa.library_path + ": skipping HSA agent " + std::to_string(i) + ": " +
                          queries.error());
      continue;
    }
    if (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) runtime->gpu_agents.push_back(agents[i]);
    if (type == HSA_DEVICE_TYPE_CPU && runtime->host_agent.handle == 0) runtime->host_agent = agents[i];
  }
  if (runtime->gpu_agents.empty())
    return give_up("hsa_init succeeded but the runtime has no kernel-dispatch agent (" +
                   std::to_string(agents.size()) + " agents)");
  uint16_t major = 0, minor = 0;
  InfoQueries queries(hsa);
  queries.system(XGPU_ATTRIBUTE(HSA_SYSTEM_INFO_VERSION_MAJOR), &major);
  queries.system(XGPU_ATTRIBUTE(HSA_SYSTEM_INFO_VERSION_MINOR), &minor);
  queries.system(XGPU_ATTRIBUTE(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY), &runtime->timestamp_frequency);
  if (!queries.ok()) return give_up(queries.error());
  if (runtime->timestamp_frequency == 0)
    return give_up("hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) answered 0");
  runtime->description =
      hsa.library_path + " (HSA " + std::to_string(major) + "." + std::to_string(minor) + ")";
  fault_register_event_handler(hsa);
  return true;
}

// Loads the process runtime (or takes a reference). Messages go to `instance`.
XgpuResult acquire_runtime(const Instance* instance, Runtime** out_runtime) {
  std::lock_guard<std::mutex> lock(g_runtime_mutex);
  if (g_runtime) {
    ++g_runtime_refs;
    *out_runtime = g_runtime;
    return XGPU_SUCCESS;
  }
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("XGPU_HSA_LIBRARY"); path && *path) candidates.push_back(path);
  candidates.push_back(kRocrLibrary);
  candidates.push_back(icd_directory() + kHsaCpuLibrary);
  std::string reasons;
  for (const std::string& candidate : candidates) {
    auto runtime = std::make_unique<Runtime>();
    std::string why;
    if (try_runtime(instance, candidate, runtime.get(), &why)) {
      instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, msgid::kRuntimeSelected,
                      "xgpu-amdgpu: using HSA runtime " + runtime->description);
      g_runtime = runtime.release();
      g_runtime_refs = 1;
      *out_runtime = g_runtime;
      return XGPU_SUCCESS;
    }
    instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, msgid::kRuntimeSkipped,
                    "xgpu-amdgpu: skipping HSA runtime " + candidate + ": " + why);
    reasons += "\n  " + candidate + ": " + why;
  }
  instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kInitializationFailed,
                  "xgpu-amdgpu: no usable HSA runtime:" + reasons);
  return XGPU_ERROR_INITIALIZATION_FAILED;
}

// Drops a reference; the last one shuts the runtime down (a failure is
// reported to `instance`).
void release_runtime(const Instance* instance) {
  std::lock_guard<std::mutex> lock(g_runtime_mutex);
  if (g_runtime && --g_runtime_refs == 0) {
    std::string error;
    if (!hsa_api_unload(&g_runtime->hsa, &error))
      instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                      "xgpu-amdgpu: shutting down HSA runtime " + g_runtime->description + ": " + error);
    delete g_runtime;
    g_runtime = nullptr;
  }
}

void copy_string(char* dst, size_t capacity, const std::string& src) {
  size_t n = std::min(src.size(), capacity - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void* data) {
  static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(pool);
  return HSA_STATUS_SUCCESS;
}

struct IsaQuery {
  const HsaApi* hsa;                 // the table
  std::vector<std::string>* names;   // ISA names found, in HSA order
  std::string error;                 // first failure, naming the call
};

hsa_status_t collect_isa(hsa_isa_t isa, void* data) {
  auto* query = static_cast<IsaQuery*>(data);
  const HsaApi& hsa = *query->hsa;
  uint32_t length = 0;
  hsa_status_t status = hsa.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length);
  if (status != HSA_STATUS_SUCCESS) {
    hsa.check("hsa_isa_get_info_alt", "HSA_ISA_INFO_NAME_LENGTH", status, &query->error);
    return status;
  }
  std::string name(length, '\0');
  status = hsa.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data());
  if (status != HSA_STATUS_SUCCESS) {
    hsa.check("hsa_isa_get_info_alt", "HSA_ISA_INFO_NAME", status, &query->error);
    return status;
  }
  while (!name.empty() && name.back() == '\0') name.pop_back();
  query->names->push_back(name);
  return HSA_STATUS_SUCCESS;
}

// Adds the memory types of `owner`'s pools to `device`. `local` says whether
// the pools are the agent's own memory. A failing required query stops with
// the failure in `queries`.
void add_pools(const Runtime& runtime, PhysicalDevice* device, hsa_agent_t owner, bool local, bool host_only,
               InfoQueries* queries) {
  const HsaApi& hsa = runtime.hsa;
  std::vector<hsa_amd_memory_pool_t> pools;
  std::string error;
  const XgpuResult result =
      hsa.hsa_amd_agent_iterate_memory_pools_checked(&error, owner, collect_pool, static_cast<void*>(&pools));
  if (result != XGPU_SUCCESS) return queries->fail(result, error);
  hsa_device_type_t owner_type{};
  queries->agent(owner, XGPU_ATTRIBUTE(HSA_AGENT_INFO_DEVICE), &owner_type);
  for (hsa_amd_memory_pool_t pool : pools) {
    if (!queries->ok()) return;
    hsa_amd_segment_t segment{};
    queries->pool(pool, XGPU_ATTRIBUTE(HSA_AMD_MEMORY_POOL_INFO_SEGMENT), &segment);
    if (!queries->ok()) return;
    if (segment == HSA_AMD_SEGMENT_GROUP && local) {
      size_t group_size = 0;
      queries->pool(pool, XGPU_ATTRIBUTE(HSA_AMD_MEMORY_POOL_INFO_SIZE), &group_size);
      device->properties.limits.maxWorkgroupMemorySize = uint32_t(std::min<size_t>(group_size, UINT32_MAX));
      continue;
    }
    if (segment != HSA_AMD_SEGMENT_GLOBAL) continue;
    bool alloc_allowed = false;
    queries->pool(pool, XGPU_ATTRIBUTE(HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED), &alloc_allowed);
    if (!queries->ok()) return;
    if (!alloc_allowed) continue;
    uint32_t global_flags = 0;
    size_t size = 0;
    queries->pool(pool, XGPU_ATTRIBUTE(HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS), &global_flags);
    queries->pool(pool, XGPU_ATTRIBUTE(HSA_AMD_MEMORY_POOL_INFO_SIZE), &size);
    if (!queries->ok()) return;
    // Optional (newer ROCR attributes): not accessible by all, no granule
    // known, at most the pool's size per allocation.
    bool accessible_by_all = false;
    if (!queries->optional_pool(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &accessible_by_all))
      accessible_by_all = false;
    const bool fine = global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    const bool kernarg = global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
    if (host_only && !fine && !kernarg) continue;
    if (device->memory.memoryTypeCount >= XGPU_MAX_MEMORY_TYPES) break;
    // Host memory when the pool belongs to a CPU agent or every agent
    // (the host included) may access it.
    const bool host_visible = owner_type == HSA_DEVICE_TYPE_CPU || accessible_by_all;
    MemoryTypeInfo type;
    type.pool = pool;
    type.owner = owner;
    type.needs_access_grant = owner.handle != device->agent.handle;
    if (!queries->optional_pool(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &type.alloc_granule))
      type.alloc_granule = 0;
    if (!queries->optional_pool(pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &type.alloc_max_size) ||
        type.alloc_max_size == 0)
      type.alloc_max_size = size;
    if (local && !kernarg) type.flags |= XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (host_visible) type.flags |= XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    if (host_visible && fine) type.flags |= XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (host_visible && owner_type == HSA_DEVICE_TYPE_CPU) type.flags |= XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT;
    if (kernarg) type.flags |= XGPU_MEMORY_PROPERTY_KERNARG_BIT;
    // Pools of one agent with the same size are views of the same memory
    // (fine- and coarse-grained, kernarg): one heap, as Vulkan reports an
    // integrated GPU's memory. A heap is device-local when a type on it is.
    uint32_t heap = device->memory.memoryHeapCount;
    for (const MemoryTypeInfo& other : device->memory_types)
      if (other.owner.handle == owner.handle && device->memory.memoryHeaps[other.heap_index].size == size)
        heap = other.heap_index;
    if (heap == device->memory.memoryHeapCount) {
      if (heap >= XGPU_MAX_MEMORY_HEAPS) break;
      ++device->memory.memoryHeapCount;
      device->memory.memoryHeaps[heap].size = size;
      device->memory.memoryHeaps[heap].flags = 0;
    }
    if (type.flags & XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
      device->memory.memoryHeaps[heap].flags |= XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    type.heap_index = heap;
    const uint32_t index = device->memory.memoryTypeCount++;
    device->memory.memoryTypes[index].propertyFlags = type.flags;
    device->memory.memoryTypes[index].heapIndex = heap;
    device->memory_types.push_back(type);
    device->properties.limits.maxBufferSize =
        std::max<uint64_t>(device->properties.limits.maxBufferSize, type.alloc_max_size);
    if (kernarg && device->kernarg_type < 0) device->kernarg_type = int(index);
    if (!kernarg && !fine && local && device->device_local_type < 0) device->device_local_type = int(index);
    if (!kernarg && fine && host_visible && device->host_coherent_type < 0)
      device->host_coherent_type = int(index);
  }
}

// The PCI vendor id of a GPU agent's HSA_AGENT_INFO_VENDOR_NAME ("AMD" for
// ROCR's GPUs, "NVIDIA" for hsa-cuda's), 0 for a vendor not known here.
uint32_t pci_vendor_id(const char* vendor_name) {
  if (std::strcmp(vendor_name, "AMD") == 0) return kAmdVendorId;
  if (std::strcmp(vendor_name, "NVIDIA") == 0) return kNvidiaVendorId;
  return 0;
}

// Builds the physical device of `agent`. A failing required HSA query fails
// it with *out_error naming the call, the attribute and the status; optional
// AMD attributes fall back (icd/amdgpu/README.md, "Physical devices").
XgpuResult make_physical_device(Instance* instance, hsa_agent_t agent, std::unique_ptr<PhysicalDevice>* out_device,
                                std::string* out_error) {
  const Runtime& runtime = *instance->runtime;
  const HsaApi& hsa = runtime.hsa;
  auto device = std::make_unique<PhysicalDevice>();
  xgpuSetLoaderMagicValue(device.get());
  device->instance = instance;
  device->agent = agent;
  XgpuPhysicalDeviceProperties& p = device->properties;
  XgpuPhysicalDeviceLimits& l = p.limits;
  InfoQueries queries(hsa);
  auto failed = [&] {
    *out_error = queries.error();
    return queries.result();
  };

  char name[64] = {};
  char vendor[kAgentVendorNameBytes] = {};
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_NAME), name);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_VENDOR_NAME), vendor);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_DEVICE), &device->hsa_device_type);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_PROFILE), &device->profile);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_QUEUE_MAX_SIZE), &device->queue_max_packets);
  uint16_t max_dims[3] = {};
  uint32_t max_size = 0;
  hsa_dim3_t grid_max{};
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_WORKGROUP_MAX_DIM), max_dims);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_WORKGROUP_MAX_SIZE), &max_size);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_GRID_MAX_DIM), &grid_max);
  queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_WAVEFRONT_SIZE), &l.wavefrontSize);
  if (!queries.ok()) return failed();
  name[sizeof(name) - 1] = '\0';
  vendor[sizeof(vendor) - 1] = '\0';

  IsaQuery isa_query{&hsa, &device->isa_names, {}};
  std::string error;
  XgpuResult result = hsa.hsa_agent_iterate_isas_checked(&error, agent, collect_isa, static_cast<void*>(&isa_query));
  if (result != XGPU_SUCCESS) {
    *out_error = isa_query.error.empty() ? error : isa_query.error;
    return result;
  }
  if (device->isa_names.empty()) {
    hsa_isa_t isa{};
    queries.agent(agent, XGPU_ATTRIBUTE(HSA_AGENT_INFO_ISA), &isa);
    if (!queries.ok()) return failed();
    if (collect_isa(isa, &isa_query) != HSA_STATUS_SUCCESS) {
      *out_error = isa_query.error;
      return XGPU_ERROR_INITIALIZATION_FAILED;
    }
  }

  // Optional AMD attributes, with their fallbacks.
  char product[64] = {};
  if (!queries.optional_agent(agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME, product) || product[0] == '\0')
    std::memcpy(product, name, sizeof(name));
  product[sizeof(product) - 1] = '\0';
  uint32_t chip_id = 0;
  if (!queries.optional_agent(agent, HSA_AMD_AGENT_INFO_CHIP_ID, &chip_id)) chip_id = 0;
  if (!queries.optional_agent(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &l.computeUnitCount) ||
      l.computeUnitCount == 0)
    l.computeUnitCount = kFallbackComputeUnitCount;
  // The device's timestamp counter (what the device library's timestamp
  // kernel reads) runs at the agent's frequency; without that attribute the
  // HSA system timestamp frequency is the best estimate.
  uint64_t timestamp_frequency = 0;
  if (!queries.optional_agent(agent, kAmdAgentInfoTimestampFrequency, &timestamp_frequency) ||
      timestamp_frequency == 0)
    timestamp_frequency = runtime.timestamp_frequency;
  device->timestamp_frequency = timestamp_frequency;

  // What the device is comes from the agent's own properties, as for any
  // HSA runtime (ROCR's CPU agent, hsa-cpu's, a GPU): a CPU device has no
  // PCI ids (api.md 5); a GPU's vendor id is its vendor's PCI id.
  const bool cpu = device->hsa_device_type == HSA_DEVICE_TYPE_CPU;
  p.apiVersion = XGPU_API_VERSION_1_0;
  p.driverVersion = kDriverVersion;
  p.vendorId = cpu ? 0 : pci_vendor_id(vendor);
  p.deviceId = cpu ? 0 : chip_id;
  p.deviceType = cpu ? XGPU_PHYSICAL_DEVICE_TYPE_CPU : XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  copy_string(p.deviceName, sizeof(p.deviceName), product);
  copy_string(p.isaName, sizeof(p.isaName), device->isa_names.empty() ? "" : device->isa_names[0]);
  copy_string(p.driverName, sizeof(p.driverName), kDriverName);
  copy_string(p.runtimeName, sizeof(p.runtimeName), runtime.description);

  const uint32_t grid[3] = {grid_max.x, grid_max.y, grid_max.z};
  for (int i = 0; i < 3; ++i) {
    l.maxWorkgroupSize[i] = max_dims[i];
    l.maxWorkgroupCount[i] = grid[i];  // with one work item per group, the grid bound
    l.maxGridSize[i] = grid[i];        // AQL grid sizes are work items, 32 bits per dimension
  }
  l.maxWorkgroupInvocations = max_size;
  l.maxPushConstantsSize = kMaxPushConstantsSize;
  l.maxBindings = kMaxBindings;
  l.maxBindingCapacity = kMaxBindingCapacity;
  l.timestampValidBits = kTimestampValidBits;
  l.timestampPeriod = float(double(kNanosecondsPerSecond) / double(timestamp_frequency));
  l.minBufferOffsetAlignment = kMinBufferOffsetAlignment;

  add_pools(runtime, device.get(), agent, /*local=*/true, /*host_only=*/false, &queries);
  // A GPU reaches host memory through the CPU agent's fine-grained pools.
  if (queries.ok() && device->hsa_device_type != HSA_DEVICE_TYPE_CPU && runtime.host_agent.handle != 0 &&
      runtime.host_agent.handle != agent.handle) {
    add_pools(runtime, device.get(), runtime.host_agent, /*local=*/false, /*host_only=*/true, &queries);
  }
  if (!queries.ok()) return failed();
  if (device->device_local_type < 0) device->device_local_type = device->host_coherent_type;
  if (device->host_coherent_type < 0) device->host_coherent_type = device->kernarg_type;
  *out_device = std::move(device);
  return XGPU_SUCCESS;
}

}  // namespace

uint64_t Runtime::ns_to_ticks(uint64_t ns) const {
  if (ns == UINT64_MAX) return UINT64_MAX;
  unsigned __int128 ticks = (unsigned __int128)ns * timestamp_frequency / kNanosecondsPerSecond;
  return ticks > UINT64_MAX ? UINT64_MAX : uint64_t(ticks);
}

namespace {

// Calls the messenger's callback when it takes this severity and type;
// returns whether it did.
bool deliver(const XgpuDebugMessengerCreateInfo& info, XgpuDebugMessageSeverityFlagBits severity,
             XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData& data) {
  if (!(info.messageSeverity & severity) || !(info.messageType & types) || !info.pfnUserCallback) return false;
  info.pfnUserCallback(severity, types, &data, info.pUserData);
  return true;
}

// What XGPU_DRIVER_DEBUG asks of stderr (read at every message: messages are
// on the error path, and tests change it).
enum class StderrMode {
  kUnheardErrors,  // unset: ERROR messages that no messenger receives
  kAll,            // "1" (any value but "0"): every message, messengers or not
  kNone,           // "0": nothing
};

StderrMode stderr_mode() {
  const char* value = std::getenv("XGPU_DRIVER_DEBUG");
  if (!value || !value[0]) return StderrMode::kUnheardErrors;
  return std::strcmp(value, "0") == 0 ? StderrMode::kNone : StderrMode::kAll;
}

const char* severity_name(XgpuDebugMessageSeverityFlagBits severity) {
  switch (severity) {
    case XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT: return "error";
    case XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT: return "warning";
    case XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT: return "info";
    default: return "verbose";
  }
}

}  // namespace

void instance_report(const Instance* instance, XgpuDebugMessageSeverityFlagBits severity,
                     const char* id, const std::string& message, const XgpuDebugObjectInfo* objects,
                     uint32_t object_count) {
  const StderrMode mode = stderr_mode();
  const auto print = [&] {
    std::fprintf(stderr, "xgpu-amdgpu %s: %s%s%s\n", severity_name(severity), id ? id : "",
                 id ? ": " : "", message.c_str());
  };
  if (mode == StderrMode::kAll) print();
  // As the Vulkan validation layers do with no callback: an error that no
  // messenger receives is printed, never lost (api.md 14).
  // So are kernels' xgpu_printf lines (XGPU-KERNEL-*), as printf would.
  const bool print_unheard =
      mode == StderrMode::kUnheardErrors &&
      (severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT || (id && std::strncmp(id, "XGPU-KERNEL-", 12) == 0));
  if (!instance) {
    if (print_unheard) print();
    return;
  }
  XgpuDebugMessageData data{};
  data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  data.pMessageIdName = id;
  data.messageIdNumber = message_id_number(id);
  data.pMessage = message.c_str();
  data.objectCount = object_count;
  data.pObjects = object_count ? objects : nullptr;
  const XgpuDebugMessageTypeFlags types =
      is_rule_id(id) ? XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT : XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT;
  bool heard = false;
  if (instance->has_creation_messenger && instance->in_create_or_destroy.load(std::memory_order_acquire))
    heard |= deliver(instance->creation_messenger, severity, types, data);
  {
    std::lock_guard<std::mutex> lock(instance->messenger_mutex);
    for (const DebugMessenger* messenger : instance->messengers)
      heard |= deliver(messenger->info, severity, types, data);
  }
  if (!heard && print_unheard) print();
}

XgpuResult instance_create(const XgpuInstanceCreateInfo* create_info,
                           const XgpuAllocationCallbacks* allocator, XgpuInstance* out_instance) {
  if (!create_info || !out_instance) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_instance = nullptr;
  HostPtr<Instance> instance(host_new<Instance>(allocator));
  if (!instance) return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  xgpuSetLoaderMagicValue(instance.get());
  for (auto* next = static_cast<const XgpuDebugMessengerCreateInfo*>(create_info->pNext); next;
       next = static_cast<const XgpuDebugMessengerCreateInfo*>(next->pNext)) {
    if (next->sType == XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO) {
      instance->creation_messenger = *next;
      instance->creation_messenger.pNext = nullptr;
      instance->has_creation_messenger = true;
      break;
    }
  }
  instance->in_create_or_destroy.store(true, std::memory_order_release);
  // As Vulkan: an API version the driver does not implement is
  // XGPU_ERROR_INCOMPATIBLE_DRIVER (a loader checks it first; the driver
  // keeps the promise when it is called directly).
  if (const XgpuApplicationInfo* app = create_info->pApplicationInfo) {
    const uint32_t version = app->apiVersion;
    if (version != 0 && (XGPU_API_VERSION_VARIANT(version) != 0 || XGPU_API_VERSION_MAJOR(version) != 1)) {
      instance_report(instance.get(), XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                      vuid::xgpuCreateInstance_pCreateInfo_pApplicationInfo_apiVersion,
                      "xgpuCreateInstance: pCreateInfo->pApplicationInfo->apiVersion " + std::to_string(version) +
                          " (variant " + std::to_string(XGPU_API_VERSION_VARIANT(version)) + ", major " +
                          std::to_string(XGPU_API_VERSION_MAJOR(version)) +
                          ") is not a version this driver implements (variant 0, major 1); returns "
                          "XGPU_ERROR_INCOMPATIBLE_DRIVER");
      return XGPU_ERROR_INCOMPATIBLE_DRIVER;
    }
  }
  XgpuResult result = acquire_runtime(instance.get(), &instance->runtime);
  if (result != XGPU_SUCCESS) return result;
  const std::vector<hsa_agent_t>& agents = instance->runtime->gpu_agents;
  for (size_t i = 0; i < agents.size(); ++i) {
    std::unique_ptr<PhysicalDevice> device;
    std::string error;
    if (make_physical_device(instance.get(), agents[i], &device, &error) != XGPU_SUCCESS) {
      instance_report(instance.get(), XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kAgentSkipped,
                      "xgpu-amdgpu: skipping kernel-dispatch agent " + std::to_string(i) + " of " +
                          instance->runtime->description + ": " + error);
      continue;
    }
    instance->physical_devices.push_back(std::move(device));
  }
  if (instance->physical_devices.empty()) {
    instance_report(instance.get(), XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kInitializationFailed,
                    "xgpu-amdgpu: every kernel-dispatch agent of " + instance->runtime->description +
                        " was skipped (see the warnings above)");
    release_runtime(instance.get());
    return XGPU_ERROR_INITIALIZATION_FAILED;
  }
  instance->in_create_or_destroy.store(false, std::memory_order_release);
  *out_instance = reinterpret_cast<XgpuInstance>(instance.release());
  return XGPU_SUCCESS;
}

void instance_destroy(XgpuInstance handle, const XgpuAllocationCallbacks* allocator) {
  auto* instance = reinterpret_cast<Instance*>(handle);
  if (!instance) return;
  instance->in_create_or_destroy.store(true, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(instance->messenger_mutex);
    for (DebugMessenger* messenger : instance->messengers) host_delete(messenger);
    instance->messengers.clear();
  }
  instance->physical_devices.clear();
  if (instance->runtime) release_runtime(instance);
  host_delete_handle(instance);
}

XgpuResult instance_enumerate_physical_devices(XgpuInstance handle, uint32_t* count,
                                               XgpuPhysicalDevice* out_devices) {
  auto* instance = reinterpret_cast<Instance*>(handle);
  if (!instance || !count) return XGPU_ERROR_INVALID_ARGUMENT;
  const uint32_t available = uint32_t(instance->physical_devices.size());
  if (!out_devices) {
    *count = available;
    return XGPU_SUCCESS;
  }
  const uint32_t n = std::min(*count, available);
  for (uint32_t i = 0; i < n; ++i)
    out_devices[i] = reinterpret_cast<XgpuPhysicalDevice>(instance->physical_devices[i].get());
  *count = n;
  return n < available ? XGPU_INCOMPLETE : XGPU_SUCCESS;
}

XgpuResult debug_messenger_create(XgpuInstance handle, const XgpuDebugMessengerCreateInfo* info,
                                  const XgpuAllocationCallbacks* allocator,
                                  XgpuDebugMessenger* out_messenger) {
  auto* instance = reinterpret_cast<Instance*>(handle);
  if (!instance || !info || !out_messenger) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_messenger = nullptr;
  auto* messenger = host_new<DebugMessenger>(allocator, DebugMessenger{*info});
  if (!messenger) return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  messenger->info.pNext = nullptr;
  std::lock_guard<std::mutex> lock(instance->messenger_mutex);
  instance->messengers.push_back(messenger);
  *out_messenger = to_handle<XgpuDebugMessenger>(messenger);
  return XGPU_SUCCESS;
}

void debug_messenger_destroy(XgpuInstance handle, XgpuDebugMessenger messenger_handle,
                             const XgpuAllocationCallbacks* allocator) {
  auto* instance = reinterpret_cast<Instance*>(handle);
  auto* messenger = from_handle<DebugMessenger>(messenger_handle);
  if (!instance || !messenger) return;
  std::lock_guard<std::mutex> lock(instance->messenger_mutex);
  auto it = std::find(instance->messengers.begin(), instance->messengers.end(), messenger);
  if (it != instance->messengers.end()) instance->messengers.erase(it);
  host_delete_handle(messenger);
}

void debug_message_submit(XgpuInstance handle, XgpuDebugMessageSeverityFlagBits severity,
                          XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData* data) {
  auto* instance = reinterpret_cast<Instance*>(handle);
  if (!instance || !data) return;
  std::lock_guard<std::mutex> lock(instance->messenger_mutex);
  for (const DebugMessenger* messenger : instance->messengers) deliver(messenger->info, severity, types, *data);
}

void physical_device_get_properties(XgpuPhysicalDevice handle,
                                    XgpuPhysicalDeviceProperties* out_properties) {
  auto* device = reinterpret_cast<PhysicalDevice*>(handle);
  if (device && out_properties) *out_properties = device->properties;
}

void physical_device_get_memory_properties(XgpuPhysicalDevice handle,
                                           XgpuPhysicalDeviceMemoryProperties* out_properties) {
  auto* device = reinterpret_cast<PhysicalDevice*>(handle);
  if (device && out_properties) *out_properties = device->memory;
}

void physical_device_get_queue_family_properties(XgpuPhysicalDevice handle, uint32_t* count,
                                                 XgpuQueueFamilyProperties* out_properties) {
  auto* device = reinterpret_cast<PhysicalDevice*>(handle);
  if (!device || !count) return;
  if (!out_properties) {
    *count = kQueueFamilyCount;
    return;
  }
  if (*count == 0) return;
  out_properties[0].queueFlags = XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT;
  out_properties[0].queueCount = kQueuesPerFamily;
  out_properties[0].timestampValidBits = kTimestampValidBits;
  *count = kQueueFamilyCount;
}

}  // namespace xgpu::amdgpu
