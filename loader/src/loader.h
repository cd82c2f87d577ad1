// Internal types of libxgpu. Nothing outside loader/src includes this header.
//
// Object model (spec/loader.md, "Dispatch"):
// - XgpuInstance is a loader Instance; its first word points at Instance::table.
// - XgpuPhysicalDevice is a loader PhysicalDevice wrapping one driver's handle;
//   its first word points at the owning Instance::table.
// - XgpuDevice, XgpuQueue and XgpuCommandBuffer are the driver's objects; the
//   loader overwrites their first word (XGPU_ICD_LOADER_MAGIC) with a pointer to
//   Device::table.
//
// Thread-safety: an Instance's messenger list and physical-device list are
// guarded by Instance::mutex and Instance::devices_mutex; everything else is immutable after the create
// call that built it, or externally synchronized by the API's rules (destroy).
#ifndef XGPU_LOADER_SRC_LOADER_H_
#define XGPU_LOADER_SRC_LOADER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_dispatch_table.h"
#include "xgpu/xgpu_icd.h"
#include "xgpu/xgpu_layer.h"

#define XGPU_LOADER_EXPORT __attribute__((visibility("default")))

namespace xgpu_loader {

// One name -> function entry of a table sorted by name.
struct NamedFunction {
  const char* name;               // "xgpuFoo"
  PFN_xgpuVoidFunction function;  // the function answering for it
};

// Binary search of a table sorted by strcmp order; NULL when name is absent.
PFN_xgpuVoidFunction LookupSorted(const NamedFunction* table, size_t count, const char* name);
template <size_t N>
PFN_xgpuVoidFunction Lookup(const NamedFunction (&table)[N], const char* name) {
  return LookupSorted(table, N, name);
}

#include "../generated/tables_types.inc"

// ---------------------------------------------------------------- messages --

enum class Level : uint32_t {
  kError = 0,  // something the user asked for did not happen
  kWarn = 1,   // something was skipped or ignored
  kInfo = 2,   // what the loader decided (the chain)
  kDebug = 3,  // every step of discovery
};

struct Instance;

// Sends a message to stderr (filtered by XGPU_LOADER_DEBUG) and, when instance
// is not NULL, to its debug messengers. id is a stable message ID: one of the
// loader's ("XGPU-LOADER-...", spec/loader.md lists them; type GENERAL) or the
// VUID of the rule an argument broke ("XGPU-VUID-...", spec/vuids.json; type
// VALIDATION). messageIdNumber is its FNV-1a hash.
void Log(const Instance* instance, Level level, const char* id, const std::string& text);
// Log for a message no instance can be found for (a NULL dispatchable
// handle, a global command's argument): stderr, and the debug messengers of
// every live instance (spec/loader.md, "Debug messengers").
void LogEveryInstance(Level level, const char* id, const std::string& text);
// The live instances (LogEveryInstance): an instance is registered when
// xgpuCreateInstance succeeds and unregistered first thing in
// xgpuDestroyInstance. Thread-safe.
void RegisterInstance(const Instance* instance);
void UnregisterInstance(const Instance* instance);
// True when stderr output of level is enabled (to skip building messages).
bool StderrEnabled(Level level);

// --------------------------------------------------------------- recordings --
// Recordings the loader refused a command of (recording.cpp): a recording
// command with a NULL required argument never reaches the chain, so the
// loader keeps the recording's failure itself. Thread-safe.

// The trampoline of `command` refused it for the rule `vuid`.
void FailRecording(XgpuCommandBuffer command_buffer, const char* command, const char* vuid);
// A new recording (xgpuBeginCommandBuffer succeeded), a destroyed or a newly
// created command buffer: no failure is remembered.
void ForgetRecording(XgpuCommandBuffer command_buffer);
// xgpuBeginCommandBuffer's result, after forgetting on success.
XgpuResult BeganRecording(XgpuCommandBuffer command_buffer, XgpuResult result);
// xgpuEndCommandBuffer's result: XGPU_ERROR_INVALID_ARGUMENT when the loader
// refused a command of the recording and the chain returned success.
XgpuResult EndRecording(XgpuCommandBuffer command_buffer, XgpuResult result);
// False (after reporting XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state)
// when a submission names a command buffer whose recording the loader failed.
bool SubmittableRecordings(XgpuQueue queue, uint32_t count, const XgpuSubmitInfo* submits);

// The callback part of an XgpuDebugMessengerCreateInfo.
struct MessengerInfo {
  XgpuDebugMessageSeverityFlags severities;  // severities delivered
  XgpuDebugMessageTypeFlags types;           // message types delivered
  PFN_xgpuDebugMessengerCallback callback;   // the application's function
  void* user_data;                           // passed to callback
};
// Calls every messenger of infos that accepts severity/types.
void Deliver(const std::vector<MessengerInfo>& infos, XgpuDebugMessageSeverityFlagBits severity,
             XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData* data);

// -------------------------------------------------------------- manifests --

// A parsed, validated driver manifest.
struct DriverManifest {
  std::string path;          // the manifest file
  std::string library_path;  // "library_path" as written
  std::string library;       // what dlopen is given (resolved against the manifest folder)
  uint32_t api_version;      // "api_version" as XGPU_MAKE_API_VERSION
};

// A parsed, validated layer manifest.
struct LayerManifest {
  std::string path;                   // the manifest file
  std::string name;                   // "name"
  std::string library_path;           // "library_path" as written
  std::string library;                // what dlopen is given
  uint32_t api_version;               // "api_version" as XGPU_MAKE_API_VERSION
  uint32_t implementation_version;    // "implementation_version"
  std::string description;            // "description"
  std::string negotiate_symbol;       // exported negotiate function's name
  std::vector<std::pair<std::string, std::string>> disable_environment;  // VAR, value
};

// Manifest files to read, in search order, after the environment overrides.
std::vector<std::string> DriverManifestFiles(const Instance* instance);
std::vector<std::string> LayerManifestFiles(const Instance* instance);
// Parse and validate one manifest; on failure out_error says what is wrong.
bool ParseDriverManifest(const std::string& path, DriverManifest* out_manifest, std::string* out_error);
bool ParseLayerManifest(const std::string& path, LayerManifest* out_manifest, std::string* out_error);
// Every valid layer manifest in search order, one per name (first wins).
std::vector<LayerManifest> FindLayers(const Instance* instance);
// Why a layer is disabled by the environment, or "" when it is not.
std::string LayerDisabledReason(const LayerManifest& layer);
// "1.2.3" for a version made with XGPU_MAKE_API_VERSION.
std::string VersionString(uint32_t version);

// ------------------------------------------------------------------ objects --

// An open shared library, closed on destruction.
struct Library {
  void* handle = nullptr;  // dlopen handle
  std::string path;        // file the dynamic linker actually loaded
  Library() = default;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library();
  // dlopen(name); on failure out_error holds dlerror().
  bool Open(const std::string& name, std::string* out_error);
};

// An enabled layer of an instance.
struct Layer {
  LayerManifest manifest;                  // where it came from
  std::string enabled_by;                  // "application" or "XGPU_INSTANCE_LAYERS"
  Library library;                         // the layer's library
  uint32_t interface_version = 0;          // negotiated loader-layer interface version
  PFN_xgpuGetInstanceProcAddr get_instance_proc_addr = nullptr;  // the layer's
  PFN_xgpuGetDeviceProcAddr get_device_proc_addr = nullptr;      // the layer's
};

// A driver loaded for an instance.
struct Driver {
  DriverManifest manifest;                 // where it came from
  Library library;                         // the driver's library
  uint32_t interface_version = 0;          // negotiated loader-ICD interface version
  PFN_xgpu_icdGetInstanceProcAddr get_instance_proc_addr = nullptr;  // the driver's
  DriverGlobalTable globals = {};          // the driver's global functions
  XgpuInstance handle = nullptr;           // the driver's instance
  XgpuInstanceDispatchTable table = {};    // the driver's instance-level functions
  PFN_xgpuGetDeviceProcAddr get_device_proc_addr = nullptr;  // the driver's
};

// A physical device of one driver, as the application sees it.
struct PhysicalDevice {
  const XgpuInstanceDispatchTable* dispatch;  // first word: the instance's table
  Instance* instance;                         // owning instance
  Driver* driver;                             // driver the device belongs to
  XgpuPhysicalDevice handle;                  // the driver's handle
};

// A debug messenger the application created.
struct Messenger {
  XgpuAllocationCallbacks allocator = {};                           // creation's callbacks (pfnFree NULL: the heap)
  MessengerInfo info;                                               // its callback
  std::vector<std::pair<Driver*, XgpuDebugMessenger>> driver_handles;  // drivers' copies
};

struct Instance {
  const XgpuInstanceDispatchTable* dispatch = &table;  // first word of the handle
  XgpuAllocationCallbacks allocator = {};              // creation's callbacks (pfnFree NULL: the heap)
  XgpuInstanceDispatchTable table = {};                // top of the instance chain
  PFN_xgpuGetInstanceProcAddr top_get_instance_proc_addr = nullptr;  // first layer's or the terminator's
  std::vector<MessengerInfo> create_messengers;       // from XgpuInstanceCreateInfo::pNext
  bool in_create_or_destroy = true;                   // create_messengers are active
  std::vector<std::unique_ptr<Layer>> layers;         // enabled layers, [0] next to the application
  std::vector<std::unique_ptr<Driver>> drivers;       // usable drivers in discovery order
  mutable std::mutex mutex;                           // guards messengers
  std::vector<Messenger*> messengers;                 // live messengers
  std::mutex devices_mutex;                           // guards the two members below
  bool physical_devices_ready = false;                // physical_devices filled
  std::vector<std::unique_ptr<PhysicalDevice>> physical_devices;  // all drivers' devices
};

// Standard layout on purpose: a device's first word points at `table`, the
// first member, so the word converts back to the Device.
struct Device {
  XgpuDeviceDispatchTable table;                   // top of the device chain
  Instance* instance;                              // owning instance
  Driver* driver;                                  // driver that created it
  XgpuDevice handle;                               // the driver's device
  PFN_xgpuGetDeviceProcAddr top_get_device_proc_addr;  // first layer's or the terminator's
};

// ----------------------------------------------------- helpers for dispatch --

inline const XgpuInstanceDispatchTable* InstanceDispatch(const void* handle) {
  return *static_cast<const XgpuInstanceDispatchTable* const*>(handle);
}
inline const XgpuDeviceDispatchTable* DeviceDispatch(const void* handle) {
  return *static_cast<const XgpuDeviceDispatchTable* const*>(handle);
}
inline Instance* InstanceFromHandle(XgpuInstance instance) {
  return reinterpret_cast<Instance*>(instance);
}
inline PhysicalDevice* UnwrapPhysicalDevice(XgpuPhysicalDevice physical_device) {
  return reinterpret_cast<PhysicalDevice*>(physical_device);
}
// The Device of a device, queue or command buffer (any object whose first word
// is a device table pointer).
inline Device* DeviceFromHandle(const void* handle) {
  return reinterpret_cast<Device*>(const_cast<XgpuDeviceDispatchTable*>(DeviceDispatch(handle)));
}
// The instance a dispatchable handle of type belongs to, or NULL.
const Instance* InstanceOf(XgpuObjectType type, const void* handle);

// A NULL (or otherwise invalid) argument reached an entry point of the
// loader: reports `what` with the VUID of the rule it breaks (`vuid`, a
// string literal) to the instance of `handle`, or to every live instance when
// `handle` is NULL.
void ReportInvalidArgument(XgpuObjectType type, const void* handle, const char* command, const char* vuid,
                           const char* what);
// The chain below does not provide command.
void ReportUnsupported(XgpuObjectType type, const void* handle, const char* command);
// Gives *object (a dispatchable object the driver just created under device)
// the device's dispatch table. Returns false, with a message, and clears
// *object when the driver did not set XGPU_ICD_LOADER_MAGIC.
bool AdoptDeviceChild(XgpuDevice device, void** object, XgpuObjectType type, const char* command);

// Skips the loader's link structures at the front of a create-info pNext chain.
const void* SkipLoaderStructures(const void* next, XgpuStructureType loader_type);

// Terminators and stubs (terminators.cpp, generated/terminators.inc).
PFN_xgpuVoidFunction TerminatorProcAddr(const char* name);
#include "../generated/terminator_decls.inc"

// The loader's records that are application handles (instances, debug
// messengers) live in memory from the creating call's allocation callbacks
// when it passed some (api.md §1.3), else on the heap; the record keeps the
// callbacks (its `allocator` member) to free itself. nullptr when the
// allocation fails.
template <typename Record>
Record* NewRecord(const XgpuAllocationCallbacks* pAllocator) {
  void* memory = pAllocator ? pAllocator->pfnAllocation(pAllocator->pUserData, sizeof(Record), alignof(Record))
                            : ::operator new(sizeof(Record), std::align_val_t(alignof(Record)), std::nothrow);
  if (!memory) return nullptr;
  Record* record = new (memory) Record();
  if (pAllocator) record->allocator = *pAllocator;
  return record;
}
template <typename Record>
void DeleteRecord(Record* record) {
  if (!record) return;
  const XgpuAllocationCallbacks allocator = record->allocator;
  record->~Record();
  if (allocator.pfnFree) {
    allocator.pfnFree(allocator.pUserData, record);
  } else {
    ::operator delete(static_cast<void*>(record), std::align_val_t(alignof(Record)));
  }
}

// The instance whose xgpuCreateInstance / the device whose xgpuCreateDevice
// is running on this thread, for the terminators.
extern thread_local Instance* t_creating_instance;
extern thread_local Device* t_creating_device;

// Stub filling (generated/tables.inc).
void FillUnsupportedInstanceEntries(XgpuInstanceDispatchTable* table);
void FillUnsupportedDeviceEntries(XgpuDeviceDispatchTable* table);
// libxgpu's own entry points by name (generated/tables.inc).
PFN_xgpuVoidFunction LookupExported(const char* name);
PFN_xgpuVoidFunction LookupGlobal(const char* name);
PFN_xgpuVoidFunction LookupDeviceLoaderFunction(const char* name);

}  // namespace xgpu_loader

#endif  // XGPU_LOADER_SRC_LOADER_H_
