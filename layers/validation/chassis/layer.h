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
#include <utility>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_dispatch_table.h"
#include "xgpu_common/format.h"
#include "settings.h"

namespace xgpu_validation {

// How a message writes a value (common/include/xgpu_common/format.h):
// "0x1f"; a size or offset, XGPU_WHOLE_SIZE by name.
using xgpu_common::hex;
using xgpu_common::size_text;

struct ExecutableKernels;  // kernels/kernel_metadata.h

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
// A field with no index variables as a constant of the program, for a check
// that passes it by reference to a report made only when the check fails:
// the path that finds nothing wrong stores no Field on the stack.
#define XGPU_CONST_FIELD(path)                                                                \
  ([]() -> const ::xgpu_validation::Field& {                                                  \
    static constexpr ::xgpu_validation::Field kField{path};                                   \
    return kField;                                                                            \
  }())
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
  std::atomic<uint32_t> warning_counts[8] = {};          // messages reported per Warning (hazards/warnings.h)
  std::mutex messenger_mutex;                            // guards messengers
  std::vector<MessengerInfo> messengers;                 // made with xgpuCreateDebugMessenger
  // Chained to the create info: they hear xgpuCreateInstance and
  // xgpuDestroyInstance only (api.md 4, Vulkan's semantics).
  std::vector<MessengerInfo> chained_messengers;
};

// The layer's data of one device.
struct LayerDevice {
  XgpuDevice handle = nullptr;                                   // the driver's device
  XgpuPhysicalDevice physical_device = nullptr;                  // the physical device it was created from
  XgpuPhysicalDeviceProperties properties = {};                  // its properties (limits, names)
  XgpuPhysicalDeviceMemoryProperties memory = {};                // its memory types
  std::vector<XgpuQueueFamilyProperties> families;               // its queue families
  std::vector<uint32_t> queue_counts;                            // per family: queues the device was created with (0: none)
  XgpuDeviceDispatchTable next = {};                             // the next element's device-level functions
  PFN_xgpuGetDeviceProcAddr next_get_device_proc_addr = nullptr;  // the next element's
  LayerInstance* instance = nullptr;                             // instance it belongs to
  // Destroying it (externally synchronized): DrainDevice's answer, once asked.
  bool drain_done = false;                                       // DrainDevice ran
  bool drained_idle = false;                                     // it found every queue idle in time
};

// How long the layer's destroy path waits for a device's queues before it
// leaves what they may still use to the driver (the driver's own bound is
// the same: api.md, xgpuDestroyDevice).
inline constexpr uint64_t kDestroyDrainNs = 2'000'000'000;

// Waits at most kDestroyDrainNs until every operation submitted so far to
// `device`'s queues has completed or failed (a signal-only submission on each
// queue, then one wait for all of them; on a lost device, the driver's
// xgpuDeviceWaitIdle, which returns once nothing runs). True when they have.
// Asked again, gives the first answer without waiting. For the destroy path
// only (xgpuDestroyDevice, xgpuDestroyInstance).
bool DrainDevice(LayerDevice& device);

// A command buffer's state (api.md 13): written by StateTracker (state/),
// checked by CommandBufferState.
enum class CommandBufferStatus : uint8_t {
  kInitial,     // created, never begun
  kRecording,   // begun
  kExecutable,  // ended without error (a reusable one stays so when submitted)
  kSubmitted,   // a one-shot command buffer submitted since it was begun (pending, then invalid)
  kInvalid,     // its end failed
};
const char* StatusName(CommandBufferStatus status);

// The layout and needs of a pipeline, as xgpuGetPipelineProperties gives them.
struct PipelineLayout {
  uint32_t binding_count = 0;          // bindings of its layout
  uint32_t constant_size = 0;          // bytes of constants of its layout
  uint32_t workgroup_size[3] = {};     // work items per workgroup per dimension
  uint32_t static_memory = 0;          // static workgroup memory, bytes
  // Bit i: how the kernel accesses binding i (bindingAccess; the hazard
  // warnings' dispatch accesses). Unknown: every binding it does not
  // describe (bindings from 64 on).
  uint64_t binding_reads = 0;
  uint64_t binding_writes = 0;
  uint64_t binding_atomics = 0;
  uint64_t binding_unknown = ~uint64_t{0};
};

// One use of a binding-table slot by a recorded command: checked at each
// xgpuQueueSubmit against the submission's table.
struct SlotUse {
  uint32_t command_index = 0;          // the command's index in the recording (from 0)
  Command command{};                   // the recording command
  const char* field = "";              // the reference, e.g. "pBuffers[i]"
  uint32_t field_index = 0;            // its index i
  uint32_t slot = 0;                   // the slot
  uint64_t offset = 0;                 // the reference's offset into the binding's range
  uint64_t size = 0;                   // the reference's size, or XGPU_WHOLE_SIZE
  uint64_t min_size = 1;               // bytes the command needs (1: a non-empty range)
  uint64_t alignment = 1;              // the resolved offset must be a multiple of it (1: any)
  uint32_t usage = 0;                  // XgpuBufferUsageFlags the command needs of the buffer
  Vuid range_vuid{};                   // the command's rule on the range's size
  Vuid alignment_vuid{};               // the command's rule on the resolved offset
  Vuid overlap_vuid{};                 // xgpuCmdCopyBuffer: the overlap rule (with overlap_with)
  int32_t overlap_with = -1;           // index in slot_uses of the copy's other side, or -1
  bool host_visible = false;           // the bound buffer's memory type must be host-visible (static indirect counts)
  std::string labels;                  // the debug labels open around the command, for messages
};

struct HazardLog;  // hazards/hazards.h

// What the layer knows of a command buffer's current recording (since its
// last xgpuBeginCommandBuffer). Written by StateTracker (state/) only, in
// calls that externally synchronize the command buffer; read by the checks
// of recording commands and of xgpuQueueSubmit.
struct RecordingState {
  uint32_t binding_capacity = 0;       // pBeginInfo->bindingCapacity
  bool has_pipeline = false;           // a pipeline is bound
  uint64_t pipeline = 0;               // its handle
  PipelineLayout layout;               // its layout
  std::vector<bool> bindings_set;      // per binding: set by xgpuCmdBindBuffers since begin
  std::vector<bool> constants_set;     // per constant byte: set by xgpuCmdPushConstants since begin
  // The bound pipeline's every binding and constant byte found set (a cache
  // of the dispatches' check, which may set it; cleared by a pipeline bind).
  mutable bool bound_state_complete = false;
  // A direct dispatch's checks, cached (RecordingValidation::ValidateCmdDispatch):
  // when `dispatch_ready`, a pipeline is bound with its every binding and
  // constant set, within the workgroup memory limit, on a family with compute,
  // and group counts up to `max_groups` keep within maxWorkgroupCount and
  // maxGridSize. Their inputs only change where the state tracker clears it
  // (a pipeline bound, the dynamic workgroup memory set); bindings and
  // constants, once set, stay set.
  mutable bool dispatch_ready = false;
  mutable uint32_t max_groups[3] = {0, 0, 0};
  uint32_t dynamic_memory = 0;         // the current xgpuCmdSetWorkgroupMemorySize
  uint32_t commands = 0;               // commands recorded so far
  std::vector<std::string> labels;     // debug labels open now
  std::vector<SlotUse> slot_uses;      // every slot reference recorded
  // Writes recorded, for the indirect-dispatch hazards (costly checks only).
  struct Write {
    bool slot;              // target is a binding-table slot (else a buffer handle)
    uint64_t target;        // the buffer handle or the slot
    uint64_t offset;        // first byte written
    uint64_t size;          // bytes, or XGPU_WHOLE_SIZE
    uint32_t command;       // the writing command's index
  };
  std::vector<Write> writes;
  // The bound references' writes are in `writes` with no barrier to the
  // indirect reads since (indirect_barrier was dispatch_writes_barrier): a
  // dispatch has nothing to add. Cleared by binding buffers or a pipeline.
  bool dispatch_writes_noted = false;
  uint32_t dispatch_writes_barrier = 0;
  // Indirect dispatches, for the hazards only a submission's table resolves
  // (a slot and another slot or a buffer that turn out the same buffer).
  struct IndirectRead {
    bool slot;              // the counts are in a slot (else a buffer)
    uint64_t target;        // the buffer handle or the slot
    uint64_t offset;        // the counts' offset
    uint32_t command;       // the dispatch's index
    bool is_static;         // XGPU_DISPATCH_INDIRECT_STATIC_BIT (else dynamic)
    uint32_t barrier;       // indirect_barrier when it was recorded
    size_t writes_before;   // writes recorded before it
    uint32_t max_counts[3]; // the bound pipeline's maxWorkgroupCount (0: no pipeline bound)
  };
  std::vector<IndirectRead> indirect_reads;
  std::vector<XgpuBufferRef> bound;    // per binding: the reference xgpuCmdBindBuffers set
  uint32_t indirect_barrier = 0;       // 1 + index of the last barrier making writes visible to indirect reads
  // Buffers named directly and pipelines bound (sorted and unique once ended).
  std::vector<std::pair<XgpuObjectType, uint64_t>> direct_objects;
  // g_lookup_removals when a submission last found every direct object
  // alive (0: never): while no record has been removed since, they still are
  // (PendingWork::ValidateQueueSubmit). Submissions of one command buffer
  // may run on several threads at once: atomic.
  mutable std::atomic<uint64_t> direct_objects_alive_at{0};
  // The accesses and barriers the synchronization-hazard warnings need
  // (hazards/; costly checks only, made at the first access).
  std::shared_ptr<HazardLog> hazards;
};

// The calling thread, as a number unique among live threads and below 2^48:
// the address of a variable of the layer's static TLS (reserved when the
// layer is loaded; reading it is one instruction, no call, no allocation).
// A thread that has exited can be in no call, so a new thread given the same
// number standing for it changes no answer.
extern thread_local constinit char t_calling_thread __attribute__((tls_model("initial-exec")));
inline uint64_t CallingThread() { return reinterpret_cast<uintptr_t>(&t_calling_thread); }

// An object the layer has seen created or retrieved, until it is destroyed.
struct alignas(64) ObjectRecord {
  // What a recorded command reads (the chassis, the recording checks,
  // thread_safety/), in the record's first cache line.
  XgpuObjectType type = XGPU_OBJECT_TYPE_UNKNOWN;  // its type
  std::atomic<CommandBufferStatus> status{CommandBufferStatus::kInitial};  // command buffers: their state
  std::atomic<bool> one_shot{false};               // command buffers: begun with XGPU_COMMAND_BUFFER_MODE_ONE_SHOT
  uint64_t handle = 0;                             // (uint64_t)(uintptr_t)handle
  LayerInstance* instance = nullptr;               // instance it belongs to
  LayerDevice* device = nullptr;                   // device it belongs to (itself for a device); nullptr above
  std::unique_ptr<RecordingState> recording;       // command buffers: the current recording, or nullptr
  std::atomic<int32_t> recording_error{0};         // command buffers: first recording error since begin, or 0
  uint32_t queue_family = 0;                       // command buffers: pCreateInfo->queueFamilyIndex
  // External synchronization (thread_safety/): the thread in an externally
  // synchronized call on the object and that call's rule, packed by
  // ExternalSyncScope (0 when none), and the submissions reading it right now.
  std::atomic<uint64_t> sync_owner{0};
  // The thread the object is biased to (CallingThread(); 0: none): its
  // claims take no atomic read-modify-write, only one store of
  // `sync_bias_call` (written by that thread alone: 0 outside a call, else
  // kBiasInCall and the call's rule shifted by kBiasVuidShift); another
  // thread revokes the bias first (thread_safety.cpp).
  std::atomic<uint64_t> sync_bias{0};
  std::atomic<uint64_t> sync_bias_call{0};
  std::atomic<uint32_t> sync_readers{0};
  std::atomic<uint32_t> sync_revocations{0};   // biases revoked; past a few the object stays unbiased

  ObjectRecord* parent = nullptr;                  // the object it was created from; nullptr for instances
  uint64_t serial = 0;                             // creation order among all records
  uint64_t made_on = 0;                            // the dispatchable handle of the call that made it
  XgpuObjectType made_on_type = XGPU_OBJECT_TYPE_UNKNOWN;  // that handle's type
  bool has_allocator = false;                      // it was created with allocation callbacks
  XgpuAllocationCallbacks allocator = {};          // a copy of them
  std::string name;                                // xgpuSetObjectName's; guarded by NamesMutex()

  // Set by StateTracker (state/) in the call that creates the object.
  uint64_t buffer_size = 0;                        // buffers: bytes
  uint32_t buffer_usage = 0;                       // buffers: XgpuBufferUsageFlags
  uint32_t memory_type = 0;                        // buffers, memory pools: memory type index
  bool queue_allocated = false;                    // buffers: made by xgpuQueueAlloca
  std::atomic<bool> mapped{false};                 // buffers: mapped now
  // Buffers: the application's mapping while mapped (what xgpuMapBuffer
  // returned for bytes [mapped_offset, mapped_offset + mapped_size)); set
  // before `mapped` is, read at xgpuQueueSubmit (static indirect counts).
  std::atomic<uint8_t*> mapped_data{nullptr};
  std::atomic<uint64_t> mapped_offset{0};
  std::atomic<uint64_t> mapped_size{0};
  PipelineLayout layout;                           // pipelines: their layout
  std::shared_ptr<const ExecutableKernels> kernels;  // executables: their kernels' metadata, or nullptr

  const XgpuAllocationCallbacks* Allocator() const { return has_allocator ? &allocator : nullptr; }
};
std::mutex& NamesMutex();
// "XgpuBuffer 0x1234 \"name\"" for messages.
std::string Describe(const ObjectRecord* record);
// The same of a handle: the live object's description, else its type and
// handle ("XgpuBuffer 0x1234").
std::string DescribeHandle(XgpuObjectType type, uint64_t handle);
const char* TypeName(XgpuObjectType type);

// An object a message is about.
struct ObjectRef {
  XgpuObjectType type;  // its type
  uint64_t handle;      // its handle
};

// What only the intercepts that create or destroy an instance or a device
// carry (the generated intercept holds one and points its CallContext at it).
struct CallCreation {
  const XgpuInstanceCreateInfo* creating_instance = nullptr;  // xgpuCreateInstance's create info
  LayerInstance* new_instance = nullptr;                       // set by xgpuCreateInstance's call down
  LayerDevice* new_device = nullptr;                           // set by xgpuCreateDevice's call down
  // xgpuDestroyDevice / xgpuDestroyInstance given callbacks incompatible with
  // the creation's: the destroy goes on (the loader ends its record anyway)
  // with the creation's callbacks (nullptr: none).
  bool destroy_with_creation_allocator = false;
  const XgpuAllocationCallbacks* creation_allocator = nullptr;
  XgpuAllocationCallbacks creation_allocator_copy;  // written before creation_allocator points at it
};

// One intercepted call: what its dispatchable handle resolved to, and the
// first error its checks reported. Every intercept makes one on its frame:
// what it initialises is kept to the command, the first error and one
// pointer (the dispatch fields are written by Dispatch on every path).
class CallContext {
 public:
  explicit CallContext(Command command, CallCreation* creation = nullptr) : command(command), creation(creation) {}
  CallContext(const CallContext&) = delete;
  CallContext& operator=(const CallContext&) = delete;

  // Looks up the dispatchable handle the command dispatches on (reports
  // nothing). Inline, every call makes it: defined in object_map.h.
  inline void Dispatch(XgpuObjectType type, const void* handle);
  // xgpuCreateInstance: messages before the instance exists go to the messengers chained to info.
  void BeginCreateInstance(const XgpuInstanceCreateInfo* info) { creation->creating_instance = info; }

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
  // Delivers a WARNING of type VALIDATION with ID `id` (one of spec/warnings.json,
  // hazards/warnings.h) and hash `number`, naming `objects` and the call's own
  // object. Warnings never fail the call.
  void Warn(const char* id, int32_t number, const std::string& message, const std::vector<ObjectRef>& objects,
            XgpuDebugMessageSeverityFlagBits severity = XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT) const;

  const Command command;                                 // the intercepted command
  XgpuResult first_error = XGPU_SUCCESS;                 // error of the first rule reported (beside command: one store)
  CallCreation* const creation;                          // instance/device creation and destruction; else nullptr
  const void* dispatch_handle = nullptr;                 // its dispatchable handle
  XgpuObjectType dispatch_type = XGPU_OBJECT_TYPE_UNKNOWN;  // that handle's type
  ObjectRecord* dispatch_record = nullptr;               // the handle's record; nullptr if not a live object
  LayerInstance* instance = nullptr;                     // its instance, when known
  LayerDevice* device = nullptr;                         // its device, for device-level commands
};

// Every live instance's data (messages about a handle the layer does not know
// go to all of them).
std::vector<LayerInstance*> LiveInstances();
void AddLiveInstance(LayerInstance* instance);
void RemoveLiveInstance(LayerInstance* instance);

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_CHASSIS_LAYER_H_
