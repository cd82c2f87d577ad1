// The validation layer's chassis: what every validation object sees of the
// layer. A call's CallContext (the command, the objects its dispatchable
// handle resolves to, where its messages go), the per-instance and
// per-device data (the next element's dispatch tables, messengers,
// settings), and the records of the objects the layer has seen.
//
// Thread-safety: LayerInstance and LayerDevice are immutable after creation
// except their messenger list (its own mutex) and message counters (atomic).
// ObjectRecord fields are immutable after the record is tracked, except
// `recording_error`, `status`, `one_shot`, `sync_*` (atomic) and `name`
// (NamesMutex()). CallContext lives on one thread for one call.
#ifndef XGPU_LAYERS_VALIDATION_CHASSIS_LAYER_H_
#define XGPU_LAYERS_VALIDATION_CHASSIS_LAYER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_dispatch_table.h"
#include "settings.h"

namespace xgpu_validation {

// One rule of spec/vuids.json.
struct VuidInfo {
  const char* id;      // XGPU-VUID-<command>-<rule>: pMessageIdName
  int32_t number;      // FNV-1a of id: messageIdNumber (api.md 1.5)
  XgpuResult error;    // what a call that breaks the rule returns
  bool implicit;       // derived from the registry (else written in api.md)
  const char* text;    // the rule, for messages
};

// One bit of a *FlagBits enum, for messages.
struct BitName {
  uint32_t bit;      // the bit's value
  const char* name;  // its XGPU_* name
};

// One handle type of the registry.
struct HandleTypeInfo {
  XgpuObjectType type;  // its XGPU_OBJECT_TYPE_*
  const char* name;     // e.g. "XgpuBuffer"
  bool dispatchable;    // its first word is the loader's dispatch table
};

#include "../generated/commands.inc"
#include "../generated/enum_info.inc"
#include "../generated/vuids.inc"

inline const VuidInfo& InfoOf(Vuid vuid) { return kVuids[static_cast<size_t>(vuid)]; }
inline const char* NameOf(Command command) { return kCommandNames[static_cast<size_t>(command)]; }

// A field of a command's parameters as a C expression whose index variables
// i, j, k (in the order they appear) take the given values.
struct Field {
  const char* path;  // e.g. "pSubmits[i].pBindings[j].buffer"
  uint64_t i = 0;    // value of the first index variable
  uint64_t j = 0;    // value of the second
  uint64_t k = 0;    // value of the third
};
// The field with its indexes filled in: "pSubmits[1].pBindings[3].buffer".
std::string FieldText(const Field& field);

// Alignment of what a pointer points to (1 for void).
template <typename T>
constexpr size_t AlignOf() {
  if constexpr (std::is_void_v<T>) {
    return 1;
  } else {
    return alignof(T);
  }
}

// A pointer the layer may read through: not NULL and aligned for its type.
template <typename T>
inline bool IsUsablePointer(const T* pointer) {
  return pointer != nullptr && reinterpret_cast<uintptr_t>(pointer) % AlignOf<T>() == 0;
}

// A debug messenger the layer delivers its messages to.
struct MessengerInfo {
  XgpuDebugMessenger handle;                 // XGPU_NULL_HANDLE for one chained to the instance's create info
  XgpuDebugMessageSeverityFlags severities;  // severities it receives
  XgpuDebugMessageTypeFlags types;           // types it receives
  PFN_xgpuDebugMessengerCallback callback;   // the application's callback
  void* user_data;                           // its pUserData
};

// The layer's data of one instance.
struct LayerInstance {
  XgpuInstance handle = nullptr;                         // the loader's instance
  XgpuInstanceDispatchTable next = {};                   // the next element's instance-level functions
  PFN_xgpuGetInstanceProcAddr next_get_instance_proc_addr = nullptr;  // the next element's
  Settings settings;                                     // resolved at xgpuCreateInstance (settings.h)
  std::unique_ptr<std::atomic<uint32_t>[]> counts;       // messages reported per Vuid
  std::mutex messenger_mutex;                            // guards messengers
  std::vector<MessengerInfo> messengers;                 // made with xgpuCreateDebugMessenger
  // Chained to the create info: they hear xgpuCreateInstance and
  // xgpuDestroyInstance only (api.md 4, Vulkan's semantics).
  std::vector<MessengerInfo> chained_messengers;
};

// The layer's data of one device.
struct LayerDevice {
  XgpuDevice handle = nullptr;                                   // the driver's device
  XgpuDeviceDispatchTable next = {};                             // the next element's device-level functions
  PFN_xgpuGetDeviceProcAddr next_get_device_proc_addr = nullptr;  // the next element's
  LayerInstance* instance = nullptr;                             // instance it belongs to
};

// A command buffer's state (api.md 13), kept by CommandBufferState.
enum class CommandBufferStatus : uint8_t {
  kInitial,     // created, never begun
  kRecording,   // begun
  kExecutable,  // ended without error (a reusable one stays so when submitted)
  kSubmitted,   // a one-shot command buffer submitted since it was begun (pending, then invalid)
  kInvalid,     // its end failed
};
const char* StatusName(CommandBufferStatus status);

// An object the layer has seen created or retrieved, until it is destroyed.
struct ObjectRecord {
  XgpuObjectType type = XGPU_OBJECT_TYPE_UNKNOWN;  // its type
  uint64_t handle = 0;                             // (uint64_t)(uintptr_t)handle
  ObjectRecord* parent = nullptr;                  // the object it was created from; nullptr for instances
  LayerInstance* instance = nullptr;               // instance it belongs to
  LayerDevice* device = nullptr;                   // device it belongs to (itself for a device); nullptr above
  uint64_t serial = 0;                             // creation order among all records
  uint64_t made_on = 0;                            // the dispatchable handle of the call that made it
  XgpuObjectType made_on_type = XGPU_OBJECT_TYPE_UNKNOWN;  // that handle's type
  bool has_allocator = false;                      // it was created with allocation callbacks
  XgpuAllocationCallbacks allocator = {};          // a copy of them
  std::atomic<int32_t> recording_error{0};         // command buffers: first recording error since begin, or 0
  std::atomic<CommandBufferStatus> status{CommandBufferStatus::kInitial};  // command buffers: their state
  std::atomic<bool> one_shot{false};               // command buffers: begun with XGPU_COMMAND_BUFFER_MODE_ONE_SHOT
  // External synchronization (thread_safety/): the thread in an externally
  // synchronized call on the object and that call's rule, packed by
  // ExternalSyncScope (0 when none), and the submissions reading it right now.
  std::atomic<uint64_t> sync_owner{0};
  std::atomic<uint32_t> sync_readers{0};
  std::string name;                                // xgpuSetObjectName's; guarded by NamesMutex()

  const XgpuAllocationCallbacks* Allocator() const { return has_allocator ? &allocator : nullptr; }
};
std::mutex& NamesMutex();
// "XgpuBuffer 0x1234 \"name\"" for messages.
std::string Describe(const ObjectRecord* record);
const char* TypeName(XgpuObjectType type);

// An object a message is about.
struct ObjectRef {
  XgpuObjectType type;  // its type
  uint64_t handle;      // its handle
};

// One intercepted call: what its dispatchable handle resolved to, and the
// first error its checks reported.
class CallContext {
 public:
  explicit CallContext(Command command) : command(command) {}
  CallContext(const CallContext&) = delete;
  CallContext& operator=(const CallContext&) = delete;

  // Looks up the dispatchable handle the command dispatches on (reports nothing).
  void Dispatch(XgpuObjectType type, const void* handle);
  // xgpuCreateInstance: messages before the instance exists go to the messengers chained to info.
  void BeginCreateInstance(const XgpuInstanceCreateInfo* info) { creating_instance = info; }

  bool CanCallDown() const { return dispatch_record != nullptr; }
  const XgpuInstanceDispatchTable& InstanceTable() const { return instance->next; }
  const XgpuDeviceDispatchTable& DeviceTable() const { return device->next; }
  // What a failed call returns: the first reported rule's error.
  XgpuResult Failure() const { return first_error != XGPU_SUCCESS ? first_error : XGPU_ERROR_INVALID_ARGUMENT; }
  // A void xgpuCmd* failed: its command buffer's xgpuEndCommandBuffer returns the first such error.
  void MarkRecordingError();

  // Reports that `field` (whose value is described by `value`) breaks `vuid`,
  // naming `objects` and the call's own objects. Returns whether the call must
  // be skipped: false only when the rule is muted (Settings).
  bool Report(Vuid vuid, const Field& field, const std::string& value, std::initializer_list<ObjectRef> objects = {});

  const Command command;                                 // the intercepted command
  const void* dispatch_handle = nullptr;                 // its dispatchable handle
  XgpuObjectType dispatch_type = XGPU_OBJECT_TYPE_UNKNOWN;  // that handle's type
  ObjectRecord* dispatch_record = nullptr;               // the handle's record; nullptr if not a live object
  LayerInstance* instance = nullptr;                     // its instance, when known
  LayerDevice* device = nullptr;                         // its device, for device-level commands
  const XgpuInstanceCreateInfo* creating_instance = nullptr;  // xgpuCreateInstance's create info
  LayerInstance* new_instance = nullptr;                 // set by xgpuCreateInstance's call down
  LayerDevice* new_device = nullptr;                     // set by xgpuCreateDevice's call down
  XgpuResult first_error = XGPU_SUCCESS;                 // error of the first rule reported
};

// Every live instance's data (messages about a handle the layer does not know
// go to all of them).
std::vector<LayerInstance*> LiveInstances();
void AddLiveInstance(LayerInstance* instance);
void RemoveLiveInstance(LayerInstance* instance);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_CHASSIS_LAYER_H_
