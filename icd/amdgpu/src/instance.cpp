#include "instance.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common.h"

namespace xgpu::amdgpu {
namespace {

constexpr const char* kRocrLibrary = "libhsa-runtime64.so.1";
constexpr const char* kHsaCpuLibrary = "libxgpu-hsa-cpu.so";
constexpr const char* kDriverName = "xgpu-amdgpu";
constexpr uint32_t kDriverVersion = XGPU_MAKE_API_VERSION(0, 0, 1, 0);
constexpr uint32_t kAmdVendorId = 0x1002;               // PCI vendor id of AMD
constexpr uint32_t kMaxBindings = 64;                   // 8-byte pointers per pipeline
constexpr uint32_t kMaxPushConstantsSize = 2048;        // bytes of constants per pipeline
constexpr uint32_t kMaxBindingCapacity = 4096;          // binding-table slots per command buffer
constexpr uint64_t kMinBufferOffsetAlignment = 16;      // bytes
constexpr uint64_t kNanosecondsPerSecond = 1000000000ull;

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

// Tries one library: load, hsa_init, find kernel-dispatch agents. On failure
// the library is unloaded and *out_why says why.
bool try_runtime(const std::string& path, Runtime* runtime, std::string* out_why) {
  if (!hsa_api_load(path, &runtime->hsa, out_why)) return false;
  HsaApi& hsa = runtime->hsa;
  std::string error;
  if (hsa.hsa_init_checked(&error) != XGPU_SUCCESS) {
    *out_why = runtime->hsa.library_path + ": " + error;
    hsa_api_unload(&hsa);
    return false;
  }
  hsa.initialized = true;
  std::vector<hsa_agent_t> agents;
  if (hsa.hsa_iterate_agents_checked(&error, collect_agent, &agents) != XGPU_SUCCESS) {
    *out_why = hsa.library_path + ": " + error;
    hsa_api_unload(&hsa);
    return false;
  }
  for (hsa_agent_t agent : agents) {
    hsa_agent_feature_t features{};
    hsa_device_type_t type{};
    hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &features);
    hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) runtime->gpu_agents.push_back(agent);
    if (type == HSA_DEVICE_TYPE_CPU && runtime->host_agent.handle == 0) runtime->host_agent = agent;
  }
  if (runtime->gpu_agents.empty()) {
    *out_why = hsa.library_path + ": hsa_init succeeded but the runtime has no kernel-dispatch agent (" +
               std::to_string(agents.size()) + " agents)";
    hsa_api_unload(&hsa);
    runtime->host_agent = hsa_agent_t{0};
    return false;
  }
  uint16_t major = 0, minor = 0;
  hsa.hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
  hsa.hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor);
  hsa.hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &runtime->timestamp_frequency);
  if (runtime->timestamp_frequency == 0) runtime->timestamp_frequency = kNanosecondsPerSecond;
  runtime->description =
      hsa.library_path + " (HSA " + std::to_string(major) + "." + std::to_string(minor) + ")";
  runtime->is_hsa_cpu = hsa.library_path.find("xgpu-hsa-cpu") != std::string::npos;
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
    if (try_runtime(candidate, runtime.get(), &why)) {
      instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, nullptr,
                      "xgpu-amdgpu: using HSA runtime " + runtime->description);
      g_runtime = runtime.release();
      g_runtime_refs = 1;
      *out_runtime = g_runtime;
      return XGPU_SUCCESS;
    }
    instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, nullptr,
                    "xgpu-amdgpu: skipping HSA runtime " + candidate + ": " + why);
    reasons += "\n  " + candidate + ": " + why;
  }
  instance_report(instance, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, nullptr,
                  "xgpu-amdgpu: no usable HSA runtime:" + reasons);
  return XGPU_ERROR_INITIALIZATION_FAILED;
}

void release_runtime() {
  std::lock_guard<std::mutex> lock(g_runtime_mutex);
  if (g_runtime && --g_runtime_refs == 0) {
    hsa_api_unload(&g_runtime->hsa);
    delete g_runtime;
    g_runtime = nullptr;
  }
}

void copy_string(char* dst, size_t capacity, const std::string& src) {
  size_t n = std::min(src.size(), capacity - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

struct PoolQuery {
  const HsaApi* hsa;
  std::vector<hsa_amd_memory_pool_t> pools;
};

hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void* data) {
  static_cast<PoolQuery*>(data)->pools.push_back(pool);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t collect_isa(hsa_isa_t isa, void* data) {
  auto* query = static_cast<std::pair<const HsaApi*, std::vector<std::string>*>*>(data);
  uint32_t length = 0;
  if (query->first->hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  std::string name(length, '\0');
  if (query->first->hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  while (!name.empty() && name.back() == '\0') name.pop_back();
  query->second->push_back(name);
  return HSA_STATUS_SUCCESS;
}

// Adds the memory types of `owner`'s pools to `device`. `local` says whether
// the pools are the agent's own memory.
void add_pools(const Runtime& runtime, PhysicalDevice* device, hsa_agent_t owner, bool local,
               bool host_only) {
  const HsaApi& hsa = runtime.hsa;
  PoolQuery query{&hsa, {}};
  hsa.hsa_amd_agent_iterate_memory_pools(owner, collect_pool, &query);
  hsa_device_type_t owner_type{};
  hsa.hsa_agent_get_info(owner, HSA_AGENT_INFO_DEVICE, &owner_type);
  for (hsa_amd_memory_pool_t pool : query.pools) {
    hsa_amd_segment_t segment{};
    bool alloc_allowed = false;
    uint32_t global_flags = 0;
    size_t size = 0;
    bool accessible_by_all = false;
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    if (segment == HSA_AMD_SEGMENT_GROUP && local) {
      size_t group_size = 0;
      hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &group_size);
      device->properties.limits.maxWorkgroupMemorySize = uint32_t(std::min<size_t>(group_size, UINT32_MAX));
      continue;
    }
    if (segment != HSA_AMD_SEGMENT_GLOBAL) continue;
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc_allowed);
    if (!alloc_allowed) continue;
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &global_flags);
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size);
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &accessible_by_all);
    const bool fine = global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    const bool kernarg = global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
    if (host_only && !fine && !kernarg) continue;
    if (device->memory.memoryTypeCount >= XGPU_MAX_MEMORY_TYPES ||
        device->memory.memoryHeapCount >= XGPU_MAX_MEMORY_HEAPS)
      break;
    // Host memory when the pool belongs to a CPU agent or every agent
    // (the host included) may access it.
    const bool host_visible = owner_type == HSA_DEVICE_TYPE_CPU || accessible_by_all;
    MemoryTypeInfo type;
    type.pool = pool;
    type.owner = owner;
    type.needs_access_grant = owner.handle != device->agent.handle;
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &type.alloc_granule);
    hsa.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &type.alloc_max_size);
    if (type.alloc_max_size == 0) type.alloc_max_size = size;
    if (local && !kernarg) type.flags |= XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (host_visible) type.flags |= XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    if (host_visible && fine) type.flags |= XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (host_visible && owner_type == HSA_DEVICE_TYPE_CPU) type.flags |= XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT;
    if (kernarg) type.flags |= XGPU_MEMORY_PROPERTY_KERNARG_BIT;
    const uint32_t heap = device->memory.memoryHeapCount++;
    device->memory.memoryHeaps[heap].size = size;
    device->memory.memoryHeaps[heap].flags =
        (type.flags & XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ? XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT : 0;
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

std::unique_ptr<PhysicalDevice> make_physical_device(Instance* instance, hsa_agent_t agent) {
  const Runtime& runtime = *instance->runtime;
  const HsaApi& hsa = runtime.hsa;
  auto device = std::make_unique<PhysicalDevice>();
  xgpuSetLoaderMagicValue(device.get());
  device->instance = instance;
  device->agent = agent;
  XgpuPhysicalDeviceProperties& p = device->properties;
  XgpuPhysicalDeviceLimits& l = p.limits;

  char name[64] = {};
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
  char product[64] = {};
  if (hsa.hsa_agent_get_info(agent, hsa_agent_info_t(HSA_AMD_AGENT_INFO_PRODUCT_NAME), product) !=
          HSA_STATUS_SUCCESS ||
      product[0] == '\0')
    std::memcpy(product, name, sizeof(name));
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &device->hsa_device_type);
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_PROFILE, &device->profile);
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &device->queue_max_packets);

  std::pair<const HsaApi*, std::vector<std::string>*> isa_query{&hsa, &device->isa_names};
  hsa.hsa_agent_iterate_isas(agent, collect_isa, &isa_query);
  if (device->isa_names.empty()) {
    hsa_isa_t isa{};
    if (hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_ISA, &isa) == HSA_STATUS_SUCCESS)
      collect_isa(isa, &isa_query);
  }

  const bool cpu = device->hsa_device_type == HSA_DEVICE_TYPE_CPU || runtime.is_hsa_cpu;
  p.apiVersion = XGPU_API_VERSION_1_0;
  p.driverVersion = kDriverVersion;
  p.vendorId = cpu ? 0 : kAmdVendorId;
  uint32_t chip_id = 0;
  hsa.hsa_agent_get_info(agent, hsa_agent_info_t(HSA_AMD_AGENT_INFO_CHIP_ID), &chip_id);
  p.deviceId = chip_id;
  p.deviceType = cpu ? XGPU_PHYSICAL_DEVICE_TYPE_CPU : XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  copy_string(p.deviceName, sizeof(p.deviceName), product);
  copy_string(p.isaName, sizeof(p.isaName), device->isa_names.empty() ? "" : device->isa_names[0]);
  copy_string(p.driverName, sizeof(p.driverName), kDriverName);
  copy_string(p.runtimeName, sizeof(p.runtimeName), runtime.description);

  uint16_t max_dims[3] = {};
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, max_dims);
  uint32_t max_size = 0;
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &max_size);
  hsa_dim3_t grid_max{};
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_GRID_MAX_DIM, &grid_max);
  const uint32_t grid[3] = {grid_max.x, grid_max.y, grid_max.z};
  for (int i = 0; i < 3; ++i) {
    l.maxWorkgroupSize[i] = max_dims[i];
    l.maxWorkgroupCount[i] = grid[i];  // with one work item per group, the grid bound
  }
  l.maxWorkgroupInvocations = max_size;
  l.maxPushConstantsSize = kMaxPushConstantsSize;
  l.maxBindings = kMaxBindings;
  l.maxBindingCapacity = kMaxBindingCapacity;
  hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &l.wavefrontSize);
  hsa.hsa_agent_get_info(agent, hsa_agent_info_t(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &l.computeUnitCount);
  l.timestampValidBits = kTimestampValidBits;
  l.timestampPeriod = float(double(kNanosecondsPerSecond) / double(runtime.timestamp_frequency));
  l.minBufferOffsetAlignment = kMinBufferOffsetAlignment;

  add_pools(runtime, device.get(), agent, /*local=*/true, /*host_only=*/false);
  // A GPU reaches host memory through the CPU agent's fine-grained pools.
  if (device->hsa_device_type != HSA_DEVICE_TYPE_CPU && runtime.host_agent.handle != 0 &&
      runtime.host_agent.handle != agent.handle) {
    add_pools(runtime, device.get(), runtime.host_agent, /*local=*/false, /*host_only=*/true);
  }
  if (device->device_local_type < 0) device->device_local_type = device->host_coherent_type;
  if (device->host_coherent_type < 0) device->host_coherent_type = device->kernarg_type;
  return device;
}

}  // namespace

uint64_t Runtime::ns_to_ticks(uint64_t ns) const {
  if (ns == UINT64_MAX) return UINT64_MAX;
  unsigned __int128 ticks = (unsigned __int128)ns * timestamp_frequency / kNanosecondsPerSecond;
  return ticks > UINT64_MAX ? UINT64_MAX : uint64_t(ticks);
}

namespace {

void deliver(const XgpuDebugMessengerCreateInfo& info, XgpuDebugMessageSeverityFlagBits severity,
             XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData& data) {
  if ((info.messageSeverity & severity) && (info.messageType & types) && info.pfnUserCallback)
    info.pfnUserCallback(severity, types, &data, info.pUserData);
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
                     const char* vuid, const std::string& message) {
  static const bool to_stderr = env_flag("XGPU_DRIVER_DEBUG");
  if (to_stderr) {
    std::fprintf(stderr, "xgpu-amdgpu %s: %s%s%s\n", severity_name(severity), vuid ? vuid : "",
                 vuid ? ": " : "", message.c_str());
  }
  if (!instance) return;
  XgpuDebugMessageData data{};
  data.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA;
  data.pMessageIdName = vuid;
  data.pMessage = message.c_str();
  const XgpuDebugMessageTypeFlags types =
      vuid ? XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT : XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT;
  if (instance->has_creation_messenger) deliver(instance->creation_messenger, severity, types, data);
  std::lock_guard<std::mutex> lock(instance->messenger_mutex);
  for (const DebugMessenger* messenger : instance->messengers) deliver(messenger->info, severity, types, data);
}

XgpuResult instance_create(const XgpuInstanceCreateInfo* create_info,
                           const XgpuAllocationCallbacks* allocator, XgpuInstance* out_instance) {
  if (!create_info || !out_instance) return XGPU_ERROR_INVALID_ARGUMENT;
  auto instance = std::make_unique<Instance>();
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
  XgpuResult result = acquire_runtime(instance.get(), &instance->runtime);
  if (result != XGPU_SUCCESS) return result;
  for (hsa_agent_t agent : instance->runtime->gpu_agents)
    instance->physical_devices.push_back(make_physical_device(instance.get(), agent));
  *out_instance = reinterpret_cast<XgpuInstance>(instance.release());
  return XGPU_SUCCESS;
}

void instance_destroy(XgpuInstance handle, const XgpuAllocationCallbacks* allocator) {
  auto* instance = reinterpret_cast<Instance*>(handle);
  if (!instance) return;
  {
    std::lock_guard<std::mutex> lock(instance->messenger_mutex);
    for (DebugMessenger* messenger : instance->messengers) delete messenger;
    instance->messengers.clear();
  }
  instance->physical_devices.clear();
  if (instance->runtime) release_runtime();
  delete instance;
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
  auto* messenger = new DebugMessenger{*info};
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
  delete messenger;
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
