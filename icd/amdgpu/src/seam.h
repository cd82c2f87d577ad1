// The seam between the two halves of the AMDGPU ICD:
//   runtime   - HSA access, devices, queues, memory, semaphores, executables,
//               pipelines, submission scheduling (queue.cpp, device.cpp, ...)
//   commands  - command-buffer recording into device-encoded command blocks,
//               issue (blocks -> AQL packets + kernargs), the device library
//               (command_buffer.cpp, issue.cpp, device_library.cpp, device/)
// Each half includes this header for what it needs from the other. Nothing
// else crosses between them.
//
// Thread-safety: stated per type.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "xgpu/kernel_print.h"
#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

struct HsaApi;      // hsa_api.h (runtime): the dlsym'd hsa_* table
struct Device;      // device.h (runtime)
struct Queue;       // queue.h (runtime)
struct CommandBuffer;  // command_buffer.h (commands)
struct DeviceLibrary;  // device_library.h (commands)

// The smallest kernarg segment alignment: hsa.h documents
// HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT as at least 16,
// whatever a runtime reports. Both halves apply it (kernel metadata and
// recording).
inline constexpr uint32_t kMinKernargSegmentAlignment = 16;  // bytes

// A printing dispatch (KernelInfo::prints) has its kernargs preceded by two
// 8-byte slots that issue fills per submission: kernargs - 8 holds the
// submission's print buffer address (XGPU_PRINT_BUFFER_SLOT_OFFSET,
// <xgpu/kernel_print.h>), kernargs - 16 the dispatch's tag (its command
// index), which the kernel copies into its records.
inline constexpr uint32_t kPrintSlotBytes = 16;

// Dispatch metadata of one kernel, kept on the host for recording and
// validation. Immutable after creation; thread-safe.
struct KernelInfo {
  uint64_t kernel_object = 0;          // HSA kernel object (AQL kernel_object)
  uint32_t kernarg_size = 0;           // bytes of the kernarg struct
  uint32_t kernarg_alignment = 16;     // alignment of the kernarg struct, bytes
  uint32_t group_segment_size = 0;     // static group memory, bytes
  uint32_t private_segment_size = 0;   // private (scratch) memory per work item, bytes
  uint32_t required_workgroup_size[3] = {0, 0, 0};  // 0,0,0 when not fixed
  bool layout_declared = false;        // the kernel declares its layout (XGPU_KERNEL_BINDINGS)
  bool prints = false;                 // the kernel may call xgpu_printf / xgpu_assert (its code
                                       // object's flags record): it reads a print buffer address in
                                       // the 8 bytes before its kernargs
  uint32_t binding_count = 0;          // declared: 8-byte pointers at the start of the kernargs
  uint32_t constant_size = 0;          // declared: bytes of constants after the bindings
  bool bounds_checked = false;         // a bounds-checked copy (XGPU_KERNEL_FLAG_BOUNDS_CHECKED): it also
                                       // reads each binding's length before the print slots
                                       // (XGPU_BOUNDS_LENGTH_SLOT_OFFSET, <xgpu/kernel_print.h>)
  bool access_known = false;           // its code object's binding access record was read
  uint64_t binding_reads = 0;          // bit i: may load through binding i (access record)
  uint64_t binding_writes = 0;         // ... store through it
  uint64_t binding_atomics = 0;        // ... access it atomically
  uint64_t binding_unknown = 0;        // ... anything (its pointer escapes)
  std::string name;                    // kernel name (without ".kd")
  std::string display_name;            // the name messages and fault reports give it: K for a
                                       // bounds-checked copy K__xgpu_checked (GPU-assisted validation);
                                       // empty: `name`
  const std::string& shown_name() const { return display_name.empty() ? name : display_name; }
};

// Bytes a dispatch of `kernel` keeps free before its kernargs in the
// submission's kernarg area: the print slots, and before them a
// bounds-checked kernel's binding lengths.
inline uint32_t kernarg_lead(const KernelInfo& kernel) {
  if (!kernel.prints) return 0;
  return kPrintSlotBytes + (kernel.bounds_checked ? 8u * kernel.binding_count : 0u);
}

// What a pipeline is, to the command recorder. Owned by the runtime half
// (xgpuCreatePipeline); immutable after creation; thread-safe.
struct PipelineInfo {
  KernelInfo kernel;                   // the kernel
  uint32_t binding_count = 0;          // 8-byte pointers at the start of the kernargs
  uint32_t constant_size = 0;          // bytes of constants after the bindings
  uint32_t workgroup_size[3] = {1, 1, 1};  // work items per workgroup
};

// The largest workgroup count per dimension a dispatch with this workgroup
// size may use: the count limit, and the grid (count x size, work items)
// within limits.maxGridSize (XgpuPipelineProperties::maxWorkgroupCount).
inline uint32_t max_workgroup_count(const XgpuPhysicalDeviceLimits& limits, const uint32_t workgroup_size[3],
                                    int dimension) {
  const uint32_t size = workgroup_size[dimension] ? workgroup_size[dimension] : 1;
  const uint32_t grid_bound = limits.maxGridSize[dimension] / size;
  return limits.maxWorkgroupCount[dimension] < grid_bound ? limits.maxWorkgroupCount[dimension] : grid_bound;
}

// What a buffer is, to the command recorder and issue. Owned by the runtime
// half. `device_address` is 0 for a queue-alloca buffer whose allocation has
// not committed yet; issue reads it (acquire) when it resolves a reference.
struct BufferInfo {
  XgpuDeviceSize size = 0;                  // bytes
  XgpuBufferUsageFlags usage = 0;           // usage flags from creation
  bool is_alloca = false;                   // created by xgpuQueueAlloca
  std::atomic<uint64_t> device_address{0};  // base address; 0 = not committed
};

// Runtime half -> commands half: what one submission of a command buffer
// reserved on a queue. Filled by the queue; used by CommandBuffer issue.
struct IssueTarget {
  const HsaApi* hsa = nullptr;          // the HSA table
  Device* device = nullptr;             // the device (for its device library, limits)
  hsa_queue_t* aql_queue = nullptr;     // the AQL ring packets go into
  uint64_t first_packet_id = 0;         // first reserved packet id (write index)
  uint32_t packet_count = 0;            // reserved packets (== IssueSizes::packet_count)
  uint8_t* kernarg_base = nullptr;      // reserved kernarg memory (device-visible),
                                        // aligned to 64 bytes
  uint64_t kernarg_capacity = 0;        // bytes reserved at kernarg_base
  const XgpuBufferBinding* bindings = nullptr;  // the submission's binding table
  uint32_t binding_count = 0;           // entries in bindings
  hsa_signal_t completion_signal{0};    // attach to the LAST packet (decremented when
                                        // the submission completes)
  bool order_after_previous = true;     // first packet needs the barrier bit (the
                                        // queue is in-order across submissions)
  std::string* out_error = nullptr;     // filled with a message when issue fails
  // Streaming, for a submission with more packets than the ring holds: the
  // runtime reserved them all (the write index moved past the ring's
  // capacity), and issue writes and publishes them as the packet processor
  // frees slots. This rings the doorbell with `doorbell_value` (the last
  // packet published so far), waits until the ring's read index reaches
  // `min_read_index` and stores the read index. False when the queue stopped
  // making progress (an HSA queue error, a lost device). nullptr: the
  // runtime does not stream (every submission fits the ring).
  bool (*wait_for_ring_space)(const IssueTarget& target, uint64_t doorbell_value, uint64_t min_read_index,
                              uint64_t* out_read_index) = nullptr;
  void* runtime_context = nullptr;      // the runtime's, for wait_for_ring_space
  std::string* out_error_id = nullptr;  // filled with the rule a failed issue breaks (its VUID),
                                        // left empty when the failure breaks none
  uint64_t print_buffer = 0;            // IssueSizes::prints: the submission's print buffer (device
                                        // address of its xgpu_print_buffer_header_t)
};

// Commands half -> runtime half: what a submission must reserve.
struct IssueSizes {
  uint32_t packet_count = 0;   // AQL packets (>= 1: an empty command buffer issues one barrier-AND);
                               // may exceed the ring: issue streams them (IssueTarget::wait_for_ring_space)
  uint64_t kernarg_bytes = 0;  // kernarg bytes, including alignment padding
  uint32_t binding_capacity = 0;  // binding-table slots the recording may reference
                                  // (XgpuCommandBufferBeginInfo::bindingCapacity); the
                                  // runtime checks each submission provides that many
  bool prints = false;                  // a dispatch's kernel prints: the submission needs a print
                                       // buffer (IssueTarget::print_buffer)
  bool reads_memory_at_issue = false;  // issue reads buffer contents on the host (STATIC
                                       // indirect counts): the runtime issues the submission
                                       // only once its waits are REACHED and every earlier
                                       // submission on the queue completed
};

// ---------------------------------------------------------------------------
// Implemented by the runtime half, used by the commands half.
// All are thread-safe.

// Kinds of device-visible memory the commands half may ask for.
enum class MemoryKind {
  kKernarg,        // the agent's kernarg pool (fine-grained, host-writable)
  kDeviceLocal,    // coarse-grained device memory (not host-visible on a GPU)
  kHostCoherent,   // fine-grained memory the host and the device both access
};

const HsaApi& device_hsa(const Device* device);
hsa_agent_t device_agent(const Device* device);
const XgpuPhysicalDeviceLimits& device_limits(const Device* device);
// Whether the device was created with queues of queue family `family`.
bool device_has_queue_family(const Device* device, uint32_t family);
// The device's loaded device library (loaded by the runtime at device
// creation with device_library_load below).
const DeviceLibrary* device_library(const Device* device);

// Allocates `size` bytes (aligned to at least 256) of the given kind; returns
// the HSA error as an XgpuResult with a debug message on failure.
XgpuResult device_allocate(Device* device, MemoryKind kind, uint64_t size, void** out_ptr);
void device_free(Device* device, void* ptr);

// Loads an xgpu executable (spec/executable-format.md) for the device's agent
// and looks kernels up by name. Used for the embedded device library.
struct LoadedExecutable;
XgpuResult device_load_executable(Device* device, const void* data, size_t size,
                                  LoadedExecutable** out_executable);
void device_unload_executable(Device* device, LoadedExecutable* executable);
// nullptr when the kernel does not exist.
const KernelInfo* loaded_executable_kernel(const LoadedExecutable* executable, const char* name);

// Handle -> object. nullptr for XGPU_NULL_HANDLE. Handles are not validated
// (that is the validation layer's job) beyond null.
BufferInfo* buffer_info(XgpuBuffer buffer);
const PipelineInfo* pipeline_info(XgpuPipeline pipeline);
Device* device_from_handle(XgpuDevice device);

// The driver's own message IDs (pMessageIdName) for messages that are not
// valid-usage violations: runtime failures and driver events. Each is listed
// with its meaning in icd/amdgpu/README.md ("Message IDs"); never change what
// one means. A valid-usage violation carries its rule's XGPU-VUID-... ID from
// spec/vuids.json instead.
namespace msgid {
inline constexpr char kRuntimeSelected[] = "XGPU-DRIVER-runtime-selected";
inline constexpr char kRuntimeSkipped[] = "XGPU-DRIVER-runtime-skipped";
inline constexpr char kAgentSkipped[] = "XGPU-DRIVER-agent-skipped";
inline constexpr char kInitializationFailed[] = "XGPU-DRIVER-initialization-failed";
inline constexpr char kHsaCallFailed[] = "XGPU-DRIVER-hsa-call-failed";
inline constexpr char kOutOfHostMemory[] = "XGPU-DRIVER-out-of-host-memory";
inline constexpr char kOutOfDeviceMemory[] = "XGPU-DRIVER-out-of-device-memory";
inline constexpr char kMemoryMapFailed[] = "XGPU-DRIVER-memory-map-failed";
inline constexpr char kDeviceLost[] = "XGPU-DRIVER-device-lost";
inline constexpr char kCallOnLostDevice[] = "XGPU-DRIVER-call-on-lost-device";
inline constexpr char kInvalidExecutable[] = "XGPU-DRIVER-invalid-executable";
inline constexpr char kIncompatibleExecutable[] = "XGPU-DRIVER-incompatible-executable";
inline constexpr char kEntryPointNotFound[] = "XGPU-DRIVER-entry-point-not-found";
inline constexpr char kDeviceLibrary[] = "XGPU-DRIVER-device-library";
inline constexpr char kUnsupported[] = "XGPU-DRIVER-unsupported";
inline constexpr char kTestHook[] = "XGPU-DRIVER-test-hook";
inline constexpr char kIssueFailed[] = "XGPU-DRIVER-issue-failed";
inline constexpr char kHeldSubmissions[] = "XGPU-DRIVER-held-submissions";
// What kernels print (xgpu_printf; INFO, or WARNING for lost records) and
// failed kernel asserts (xgpu_assert; ERROR).
inline constexpr char kKernelPrintf[] = "XGPU-KERNEL-printf";
inline constexpr char kKernelAssert[] = "XGPU-KERNEL-assert";
// An access a bounds-checked kernel did not make (spec/warnings.json).
inline constexpr char kGpuAssistedOutOfBounds[] = "XGPU-VALIDATION-gpu-assisted-out-of-bounds";

// The ID of a runtime failure that returns `result`: the memory and
// executable IDs for those results, kCallOnLostDevice for
// XGPU_ERROR_DEVICE_LOST, kHsaCallFailed for anything else (the HSA runtime
// refused a call; the message names it).
constexpr const char* failure(XgpuResult result) {
  switch (result) {
    case XGPU_ERROR_OUT_OF_HOST_MEMORY: return kOutOfHostMemory;
    case XGPU_ERROR_OUT_OF_DEVICE_MEMORY: return kOutOfDeviceMemory;
    case XGPU_ERROR_DEVICE_LOST: return kCallOnLostDevice;
    case XGPU_ERROR_INVALID_EXECUTABLE: return kInvalidExecutable;
    case XGPU_ERROR_INCOMPATIBLE_EXECUTABLE: return kIncompatibleExecutable;
    default: return kHsaCallFailed;
  }
}
}  // namespace msgid

// An object a message is about (its name, if any, is looked up).
struct ReportObject {
  XgpuObjectType type = XGPU_OBJECT_TYPE_UNKNOWN;  // its type
  uint64_t handle = 0;                              // the handle, cast to uint64_t
};

// Reports a message to the instance's debug messengers (and to stderr as
// instance_report says: an ERROR no messenger receives is never lost). `id`
// is its pMessageIdName: a rule's "XGPU-VUID-..." (type VALIDATION) or one of
// msgid:: (type GENERAL); a string literal, never nullptr. The message lists the device, then
// `objects`, each with the name xgpuSetObjectName gave it.
void device_report(const Device* device, XgpuDebugMessageSeverityFlagBits severity, const char* id,
                   const std::string& message, std::initializer_list<ReportObject> objects = {});

// device_report for many messages about the same objects (a submission's
// kernel print lines): the objects' names are looked up once, at
// construction. Not thread-safe; may throw std::bad_alloc at construction.
class DeviceReporter {
 public:
  DeviceReporter(const Device* device, std::initializer_list<ReportObject> objects);
  void report(XgpuDebugMessageSeverityFlagBits severity, const char* id, const std::string& message) const;

 private:
  const Device* device_;
  std::vector<std::string> names_;
  std::vector<XgpuDebugObjectInfo> infos_;
};

// Object names (xgpuSetObjectName). Thread-safe. The name of `handle` on
// `device` ("" when none); forgetting drops it (called when an object is
// destroyed, so a new object at the same address starts unnamed).
std::string device_object_name(const Device* device, uint64_t handle);
void device_forget_object_name(const Device* device, uint64_t handle);

// Live handles of a device's children (buffers, memory pools, semaphores,
// executables, pipelines, command buffers). Creation adds a handle; a
// destroy takes it out (and drops its name) before touching the object, so a
// second destroy of the same handle, or a handle the device never made, is
// reported (`vuid`: the command's `-parameter` rule for the handle; `where`:
// "xgpuDestroyBuffer: buffer") and ignored instead of freeing memory twice.
// Not used on recording or submission paths. Thread-safe.
void device_track_handle(const Device* device, const void* handle);
// False (after reporting) when `handle` is not live on `device`.
// `keep_name`: the object lives on a while (a dealloca still to run) and
// forgets its name itself.
bool device_release_handle(const Device* device, const void* handle, const char* vuid, const char* where,
                           bool keep_name = false);

// True when `handle` is a live child of `device`; otherwise reports
// `where` (e.g. "xgpuQueueFillBuffer: dstBuffer") with `vuid` and returns
// false. For the queue operations that take buffers directly (not on the
// recording or submission paths).
bool device_handle_live(const Device* device, const void* handle, const char* vuid, const char* where);

// True once the device is lost (api.md 6.1): commands that return an
// XgpuResult then return XGPU_ERROR_DEVICE_LOST.
bool device_is_lost(const Device* device);
// The memory type of a buffer's memory (for a queue-allocated buffer: its
// pool's, known from xgpuQueueAlloca on): returns its property flags
// (XGPU_MEMORY_PROPERTY_*) and stores its index in *out_memory_type.
XgpuMemoryPropertyFlags buffer_memory_properties(const BufferInfo* buffer, uint32_t* out_memory_type);

// ---------------------------------------------------------------------------
// Implemented by the commands half, used by the runtime half.

// The command-buffer entry points (xgpuCreateCommandBuffer,
// xgpuDestroyCommandBuffer, xgpuBeginCommandBuffer, xgpuEndCommandBuffer and
// every xgpuCmd*), by API name; nullptr for other names. The runtime's
// xgpuGetDeviceProcAddr consults it.
PFN_xgpuVoidFunction commands_get_proc_addr(const char* name);

// The device a command buffer was created on.
Device* command_buffer_device(const CommandBuffer* command_buffer);
// The device of `handle` when it is a live command buffer, else nullptr (it
// was destroyed, or never created): xgpuQueueSubmit asks before it touches
// the object. A lookup under a shared lock. Thread-safe.
Device* command_buffer_live_device(XgpuCommandBuffer handle);
// Checks that the command buffer can be submitted now (executable state; a
// one-shot one not submitted before) and marks it pending. On a violation
// sets *out_error to what is wrong and *out_id to the rule's VUID
// (XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-*). Thread-safe.
XgpuResult command_buffer_acquire_for_submit(CommandBuffer* command_buffer, std::string* out_error,
                                             const char** out_id);
// What one submission needs to reserve. Thread-safe (immutable after End).
IssueSizes command_buffer_issue_sizes(const CommandBuffer* command_buffer);
// Writes the submission's packets and kernargs into the reserved ranges and
// publishes their headers (the queue rings the doorbell afterwards). May run
// concurrently for several submissions of one reusable command buffer.
XgpuResult command_buffer_issue(const CommandBuffer* command_buffer, IssueTarget& target);
// Called once per submission when it completed (or failed). The last
// submission of a command buffer destroyed while they were pending frees it
// (command_buffer_issue fails those not yet issued, with
// XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-pending).
void command_buffer_release_after_submit(CommandBuffer* command_buffer);
// Undoes command_buffer_acquire_for_submit for a submission that
// xgpuQueueSubmit refused (nothing ran): a one-shot command buffer may be
// submitted again.
void command_buffer_cancel_submit(CommandBuffer* command_buffer);
// Checks a submission's binding table against what the recording requires
// of each slot it references: the usage bits (STORAGE for bindings of
// dispatches, INDIRECT for indirect counts, TRANSFER_SRC/DST for copies,
// fills, updates and timestamps) and, for the counts of a STATIC indirect
// dispatch, a HOST_VISIBLE memory type. Entries with a null buffer are
// skipped (the caller checks those). On a violation returns
// XGPU_ERROR_INVALID_USAGE, sets *out_error to a message that starts with
// "pBindings[j]" (prefix it with "xgpuQueueSubmit: pSubmits[i].") and names
// the slot, the usage required, the buffer's usage or memory type, the first
// command that requires it and that command's rule, and sets *out_id to the
// rule broken (XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-usage, or
// XGPU-VUID-xgpuCmdDispatchIndirect-static-hostVisible). Thread-safe
// (immutable after End).
XgpuResult command_buffer_check_binding_usage(const CommandBuffer* command_buffer,
                                              const XgpuBufferBinding* bindings, uint32_t count,
                                              std::string* out_error, const char** out_id);
// Called by the runtime's HSA queue-error callback before it marks the
// device lost: when the packet the queue rejected is one the commands half
// wrote on purpose (an indirect dispatch whose counts exceed the device
// limits, XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR), stores a description of
// the command (function, STATIC/DYNAMIC, kernel, debug labels, counts and
// limits) in *out_message and returns true; otherwise returns false. Reads
// the ring of `queue` and the error record its submission reserved, so call
// it while that submission is still in flight. Thread-safe.
bool commands_describe_queue_error(const hsa_queue_t* queue, std::string* out_message);
// The command of `command_buffer` that AQL packet `packet_offset` of a
// submission's body belongs to (the body starts after the submission's
// dependency barriers): its index, the API function that recorded it, the
// kernel it runs (a dispatch's; the device library's kernel for a fill, copy,
// update or timestamp; "the indirect-count patch kernel" for the first packet
// of a DYNAMIC indirect dispatch) and the debug labels open around it. False
// when no command owns the packet (the empty program's no-op, the trailing
// barrier). Thread-safe (the program is immutable after End).
struct CommandAtPacket {
  uint32_t index = 0;          // the command's index in the recording
  const char* function = "";   // "xgpuCmdDispatch", ...
  const char* kernel = "";     // the kernel's name, "" when none
  std::string labels;          // "'outer' > 'inner'", or empty
};
bool commands_describe_packet(const CommandBuffer* command_buffer, uint32_t packet_offset, CommandAtPacket* out);
// Who printed a record tagged `command_index` (the tag issue writes before a
// printing dispatch's kernargs) in a submission of `command_buffer`:
// "kernel 'K' (command C"; when no printing dispatch has that index (a
// record a kernel wrote over), "one of the printing dispatches (kernels 'A'
// (command 1), 'B' (command 4)". Thread-safe.
std::string commands_printing_dispatch(const CommandBuffer* command_buffer, uint64_t command_index);

// The ICD's builtin kernels for one device.
XgpuResult device_library_load(Device* device, DeviceLibrary** out_library);
void device_library_destroy(Device* device, DeviceLibrary* library);

// Packet log (packet_log.h; enabled with XGPU_PACKET_LOG=1). Issue logs the
// packets it writes; the runtime calls these for the packets it writes itself
// (dependency barriers, fillers) and when it rings a doorbell.
bool packet_log_enabled();
void packet_log_packet(const hsa_queue_t* queue, uint64_t packet_id, const void* packet,
                       const char* kernel_name, const char* note);
void packet_log_doorbell(const hsa_queue_t* queue, uint64_t doorbell_value, uint64_t read_index,
                         uint64_t write_index);

}  // namespace xgpu::amdgpu
