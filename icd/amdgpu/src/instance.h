// Instance, HSA runtime selection, physical devices and debug messengers.
//
// Thread-safety: a Runtime and the PhysicalDevices are immutable after
// instance creation; the Instance's messenger list is guarded by its mutex.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hsa_api.h"
#include "xgpu/xgpu.h"
#include "xgpu/xgpu_icd.h"

namespace xgpu::amdgpu {

struct Instance;

// The HSA runtime the ICD talks to: one per process, shared by every
// instance (HSA itself is process-global), loaded by the first instance and
// unloaded with the last.
struct Runtime {
  HsaApi hsa;                          // the dlsym'd table
  std::string description;             // "<library path> (HSA <major>.<minor>)"
  uint64_t timestamp_frequency = 0;    // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY (HSA wait ticks), ticks per second
  std::vector<hsa_agent_t> gpu_agents; // kernel-dispatch agents, in HSA order
  hsa_agent_t host_agent{0};           // first CPU agent (for host-visible pools), or 0
  // Converts a duration in nanoseconds to HSA wait ticks (saturating).
  uint64_t ns_to_ticks(uint64_t ns) const;
};

// One memory type of a physical device: an HSA memory pool and what it is.
struct MemoryTypeInfo {
  hsa_amd_memory_pool_t pool{0};       // pool allocations come from
  hsa_agent_t owner{0};                // agent whose pool it is
  XgpuMemoryPropertyFlags flags = 0;   // reported properties
  uint32_t heap_index = 0;             // index into the heaps
  bool needs_access_grant = false;     // allocations need hsa_amd_agents_allow_access
  uint64_t alloc_granule = 0;          // HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, bytes
  uint64_t alloc_max_size = 0;         // HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, bytes
};

// A kernel-dispatch agent. Dispatchable; immutable after creation.
struct PhysicalDevice {
  XgpuLoaderData loader_data;                   // loader's word (must be first)
  Instance* instance = nullptr;                 // owner
  hsa_agent_t agent{0};                         // the HSA agent
  hsa_device_type_t hsa_device_type = HSA_DEVICE_TYPE_GPU;  // HSA_AGENT_INFO_DEVICE
  hsa_profile_t profile = HSA_PROFILE_BASE;     // HSA_AGENT_INFO_PROFILE
  std::vector<std::string> isa_names;           // the agent's ISAs, best first
  uint32_t queue_max_packets = 0;               // HSA_AGENT_INFO_QUEUE_MAX_SIZE
  uint64_t timestamp_frequency = 0;             // device timestamp counter, ticks per second
                                                // (HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY, else the system's)
  XgpuPhysicalDeviceProperties properties{};    // reported properties
  XgpuPhysicalDeviceMemoryProperties memory{};  // reported heaps and types
  std::vector<MemoryTypeInfo> memory_types;     // one per memory.memoryTypes entry
  int kernarg_type = -1;                        // memory type of the kernarg pool, or -1
  int device_local_type = -1;                   // coarse-grained device memory type, or -1
  int host_coherent_type = -1;                  // fine-grained host-visible type, or -1
};

// A debug messenger (XgpuDebugMessenger handle).
struct DebugMessenger {
  XgpuDebugMessengerCreateInfo info{};  // copy of the create info (pNext dropped)
};

// The driver's instance. Dispatchable.
struct Instance {
  XgpuLoaderData loader_data;                           // loader's word (must be first)
  Runtime* runtime = nullptr;                           // shared HSA runtime (referenced)
  std::vector<std::unique_ptr<PhysicalDevice>> physical_devices;  // one per agent
  mutable std::mutex messenger_mutex;                   // guards messengers
  std::vector<DebugMessenger*> messengers;              // from xgpuCreateDebugMessenger
  XgpuDebugMessengerCreateInfo creation_messenger{};    // chained on the create info, or zeroed
  bool has_creation_messenger = false;                  // creation_messenger is valid
  // creation_messenger receives messages only while xgpuCreateInstance or
  // xgpuDestroyInstance runs (Vulkan's semantics; api.md 14).
  std::atomic<bool> in_create_or_destroy{false};
};

// Sends a message about `object_count` objects to the instance's messengers
// (instance may be nullptr). stderr gets it too when XGPU_DRIVER_DEBUG is set
// (not "0"), or when it is an ERROR that no messenger receives and
// XGPU_DRIVER_DEBUG is not "0".
// `id` is its pMessageIdName (messageIdNumber is computed from it): a rule's
// "XGPU-VUID-..." makes it a VALIDATION message, a msgid:: constant (seam.h)
// a GENERAL one.
void instance_report(const Instance* instance, XgpuDebugMessageSeverityFlagBits severity,
                     const char* id, const std::string& message, const XgpuDebugObjectInfo* objects = nullptr,
                     uint32_t object_count = 0);

// Entry points.
XgpuResult instance_create(const XgpuInstanceCreateInfo* create_info,
                           const XgpuAllocationCallbacks* allocator, XgpuInstance* out_instance);
void instance_destroy(XgpuInstance instance, const XgpuAllocationCallbacks* allocator);
XgpuResult instance_enumerate_physical_devices(XgpuInstance instance, uint32_t* count,
                                               XgpuPhysicalDevice* out_devices);
XgpuResult debug_messenger_create(XgpuInstance instance, const XgpuDebugMessengerCreateInfo* info,
                                  const XgpuAllocationCallbacks* allocator,
                                  XgpuDebugMessenger* out_messenger);
void debug_messenger_destroy(XgpuInstance instance, XgpuDebugMessenger messenger,
                             const XgpuAllocationCallbacks* allocator);
void debug_message_submit(XgpuInstance instance, XgpuDebugMessageSeverityFlagBits severity,
                          XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData* data);
void physical_device_get_properties(XgpuPhysicalDevice physical_device,
                                    XgpuPhysicalDeviceProperties* out_properties);
void physical_device_get_memory_properties(XgpuPhysicalDevice physical_device,
                                           XgpuPhysicalDeviceMemoryProperties* out_properties);
void physical_device_get_queue_family_properties(XgpuPhysicalDevice physical_device,
                                                 uint32_t* count,
                                                 XgpuQueueFamilyProperties* out_properties);

// Queue family constants (one family).
inline constexpr uint32_t kQueueFamilyCount = 1;        // families per device
inline constexpr uint32_t kQueuesPerFamily = 8;         // queues of the family
inline constexpr uint32_t kTimestampValidBits = 64;     // HSA timestamps are 64-bit

}  // namespace xgpu::amdgpu
