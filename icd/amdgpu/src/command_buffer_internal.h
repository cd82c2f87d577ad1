#pragma once
// What the command-buffer files (command_buffer*.cpp) share with each other
// and with nobody else: one file per concern, each calling the others only
// through these.
//
//   command_buffer.cpp          object lifetime (create, begin, end, destroy)
//                               and the commands half of the seam (submission)
//   command_buffer_record.cpp   the xgpuCmd* entry points
//   command_buffer_encode.cpp   writing encoded commands in place into pooled
//                               command blocks, read-only data and kernargs
//   command_buffer_checks.cpp   the argument checks the driver makes itself
//                               (VUIDs), at record time and at submit
//   command_buffer_names.cpp    strings for messages, and the table of entry
//                               points by name
//
// Threading: as command_buffer.h (recording is externally synchronized).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "command_buffer.h"
#include "common.h"
#include "device_library.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {

// Recording state of one command buffer. Created by the first Begin and
// kept (with its vectors' capacity) for later recordings, so a steady
// begin/record/end loop allocates nothing.
struct Recorder {
  CommandChunkPool* pool = nullptr;         // the device's pool
  // Where the next command goes in the current block; `block_limit` leaves
  // room for the block's terminator.
  uint8_t* block_cursor = nullptr;
  uint8_t* block_limit = nullptr;
  // Arenas of the current read-only data chunk (kHostCoherent) and prebuilt
  // kernarg chunk (kKernarg): next free byte, end.
  uint8_t* rodata_cursor = nullptr;
  uint8_t* rodata_limit = nullptr;
  uint8_t* kernarg_cursor = nullptr;
  uint8_t* kernarg_limit = nullptr;
  uint32_t command_count = 0;               // commands recorded so far (terminators excluded)
  uint32_t packet_count = 0;                // packets of the commands recorded so far
  uint64_t kernarg_bytes = 0;               // per-submission kernarg bytes so far
  bool prints = false;                      // a recorded dispatch's kernel prints
  bool reads_memory_at_issue = false;       // a STATIC indirect dispatch was recorded
  bool resolves_at_issue = false;           // a command resolves references or reads counts at issue
  bool barrier_pending = false;             // a barrier precedes the next packet-producing command
  bool last_packet_has_barrier = false;     // the last packet recorded so far has the barrier bit
  int32_t label_depth = 0;                  // open debug labels
  // Bound state.
  const XgpuPhysicalDeviceLimits* limits = nullptr;  // the device's limits
  const PipelineInfo* pipeline = nullptr;   // xgpuCmdBindPipeline
  uint32_t max_workgroup_count[3] = {};     // the bound pipeline's maxWorkgroupCount (computed at bind)
  std::vector<uint8_t> pushed;              // xgpuCmdPushConstants bytes (limits.maxPushConstantsSize)
  std::vector<xgpu_amdgpu_buffer_ref_t> bindings;  // xgpuCmdBindBuffers
  std::vector<uint8_t> bound;               // bindings[i] was bound
  uint32_t dynamic_group_size = 0;          // xgpuCmdSetWorkgroupMemorySize
  std::vector<SlotRequirement> slots;       // per binding-table slot: what the commands need of it
  // What xgpuCmdDispatch writes for the bound pipeline, bindings and
  // workgroup memory: built (after prepare_dispatch's checks) by the first
  // dispatch after any of them changed, then copied per dispatch. Binding
  // the pipeline, buffers or workgroup memory, and Begin, invalidate it.
  bool template_valid = false;              // the fields below describe the bound state
  bool template_prebuilt = false;           // every binding is static: kernargs built at record time
  uint32_t template_kernarg_lead = 0;       // bytes kept free before the kernargs in the submission's
                                            // range (8 for a printing kernel: its print buffer slot)
  bool template_slots_noted = false;        // its slot requirements were noted (by the first dispatch using it)
  uint16_t template_dimensions = 1;         // AQL dimensions the workgroup size needs (1..3)
  uint32_t template_size = 0;               // bytes of the command, patches included (aligned)
  uint32_t template_kernarg_size = 0;       // bytes of the kernargs
  uint32_t template_kernarg_alignment = 0;  // alignment of the kernargs in the submission's range, bytes
  uint32_t template_arena_alignment = 0;    // alignment of the kernargs in their arena, bytes
  uint32_t template_constants_offset = 0;   // where the pushed constants go in the kernargs, bytes
  uint32_t template_constants_size = 0;     // bytes of pushed constants copied
  std::vector<uint64_t> template_command;   // the command (header, dispatch, patches); per-dispatch fields 0
  std::vector<uint8_t> template_kernargs;   // the kernargs: static binding addresses, zeros elsewhere
};

namespace command_buffer_impl {

// Bytes of one command block (commands never straddle blocks).
constexpr uint64_t kBlockSize = 16 * 1024;
// Alignment of commands in a block, bytes.
constexpr uint64_t kCommandAlignment = 8;
// Alignment of kernarg templates and update payloads in the read-only data.
constexpr uint64_t kRodataAlignment = 16;
// Largest kernarg alignment a submission's 64-byte aligned range satisfies.
constexpr uint32_t kMaxKernargAlignment = 64;
// Largest xgpuCmdUpdateBuffer payload, bytes.
constexpr uint64_t kMaxUpdateSize = 65536;
// Largest bytes of one command (header.size is 16 bits).
constexpr uint64_t kMaxCommandSize = UINT16_MAX & ~(kCommandAlignment - 1);
// Largest patch count of one dispatch: its bindings (a pipeline has at most
// limits.maxBindings of them).
constexpr uint32_t kMaxPatches = (kMaxCommandSize - sizeof(xgpu_amdgpu_command_dispatch_indirect_t)) /
                                 sizeof(xgpu_amdgpu_kernarg_patch_t);

constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

// Bytes of one pipeline binding in the kernargs (a pointer).
constexpr uint32_t kBindingBytes = sizeof(uint64_t);

inline CommandBuffer* from_handle(XgpuCommandBuffer handle) { return reinterpret_cast<CommandBuffer*>(handle); }

// --- strings for messages (command_buffer_names.cpp) ---

std::string size_string(XgpuDeviceSize size);
// "A_BIT | B_BIT (0x3)", or "0" without bits (names from the registry).
std::string usage_string(XgpuBufferUsageFlags flags);
std::string memory_property_string(XgpuMemoryPropertyFlags flags);
// "memory type 2 (XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT (0x1))"
std::string memory_type_string(uint32_t memory_type, XgpuMemoryPropertyFlags properties);
// "command 2 (xgpuCmdCopyBuffer pDst)", "command 0 (xgpuCmdDispatch
// binding 1 (xgpuCmdBindBuffers))".
std::string slot_use_string(const SlotUse& use);

// --- errors and the recording state (command_buffer_checks.cpp) ---

// Records the first error and reports it.
void record_error(CommandBuffer* cb, XgpuResult result, const char* vuid, const std::string& message);
// After a device loss (api.md 6.1) every command returning an XgpuResult
// returns XGPU_ERROR_DEVICE_LOST, with a message.
bool report_if_lost(const Device* device, const char* function);
// Common entry check of every xgpuCmd*: returns the recorder or nullptr.
// `recording_vuid` is the command's XGPU-VUID-<function>-commandBuffer-recording.
Recorder* not_recording(CommandBuffer* cb, const char* function, const char* recording_vuid);
inline Recorder* recording(CommandBuffer* cb, const char* function, const char* recording_vuid) {
  if (!cb) [[unlikely]] return nullptr;
  if (cb->state != CommandBufferState::kRecording || !cb->recorder) [[unlikely]]
    return not_recording(cb, function, recording_vuid);
  return cb->recorder;
}

// --- encoding (command_buffer_encode.cpp) ---

// Takes a pool chunk of `kind` holding `size` bytes into the program;
// reports and records the failure (nullptr).
uint8_t* take_chunk(CommandBuffer* cb, Recorder* r, MemoryKind kind, uint64_t size, const char* what);
// `size` bytes at `alignment` from an arena (read-only data or prebuilt
// kernargs), taking a new chunk when the current one is full; nullptr
// after recording an error.
uint8_t* arena_refill(CommandBuffer* cb, Recorder* r, bool kernarg, uint64_t size);
inline uint8_t* arena_alloc(CommandBuffer* cb, Recorder* r, bool kernarg, uint64_t size, uint64_t alignment) {
  uint8_t*& cursor = kernarg ? r->kernarg_cursor : r->rodata_cursor;
  uint8_t* const limit = kernarg ? r->kernarg_limit : r->rodata_limit;
  uint8_t* at = reinterpret_cast<uint8_t*>(align_up(uint64_t(reinterpret_cast<uintptr_t>(cursor)), alignment));
  if (!cursor || at + size > limit) [[unlikely]]
    return arena_refill(cb, r, kernarg, size);
  cursor = at + size;
  return at;
}

// Copies `size` bytes into the read-only data; returns their address (0
// after recording an error).
uint64_t append_rodata(CommandBuffer* cb, Recorder* r, const void* data, uint64_t size, uint64_t alignment);
// Ends the current block with `type` (BRANCH to `next`, or RETURN).
void write_terminator(Recorder* r, uint8_t type, const uint8_t* next);
// Starts a new block with room for a command of `size` bytes; the current
// one (if any) branches to it.
bool new_block(CommandBuffer* cb, Recorder* r, uint64_t size);

// Appends a zeroed command of `size` bytes in place in the current block;
// nullptr after recording an error.
template <typename T = xgpu_amdgpu_command_header_t>
T* append_command(CommandBuffer* cb, Recorder* r, uint8_t type, uint64_t size) {
  size = align_up(size, kCommandAlignment);
  if (r->block_cursor + size > r->block_limit && !new_block(cb, r, size)) return nullptr;
  uint8_t* at = r->block_cursor;
  r->block_cursor += size;
  std::memset(at, 0, size);
  auto* header = reinterpret_cast<xgpu_amdgpu_command_header_t*>(at);
  header->type = type;
  header->size = uint16_t(size);
  header->index = r->command_count++;
  return reinterpret_cast<T*>(at);
}

bool ref_is_static(const xgpu_amdgpu_buffer_ref_t& ref);
// The requirements of the slot `ref` names (nullptr for other kinds); the
// table grows to the highest slot referenced, not to bindingCapacity.
SlotRequirement* slot_requirement(Recorder* r, const xgpu_amdgpu_buffer_ref_t& ref);
// Notes that command `index` (`function`, its `parameter`) needs `usage` of
// the buffer in the slot `ref` names, checked at submit. Concrete buffers
// were checked by make_ref.
// `parameter` names the reference ("pDst"); for a pipeline binding it is
// nullptr and `binding` is the binding's index. `vuid` is the command's rule
// for the usage (a string literal). No strings: the message is built at
// submit, only when a binding table breaks the requirement.
void require_slot(Recorder* r, const xgpu_amdgpu_buffer_ref_t& ref, uint32_t index, XgpuBufferUsageFlags usage,
                  const char* function, const char* parameter, uint32_t binding, const char* vuid);
// Bit position of a single usage bit (index into SlotRequirement arrays).
uint32_t usage_index(XgpuBufferUsageFlags bit);
xgpu_amdgpu_kernarg_patch_t make_patch(uint32_t kernarg_offset, uint16_t kind, uint16_t alignment,
                                       const xgpu_amdgpu_buffer_ref_t& ref);

// What one kernel dispatch needs, before it becomes a command.
struct DispatchSpec {
  uint8_t type = XGPU_AMDGPU_COMMAND_DISPATCH;  // command type
  const KernelInfo* kernel = nullptr;           // the kernel
  uint32_t workgroup_size[3] = {1, 1, 1};       // work items per workgroup
  uint32_t workgroup_count[3] = {1, 1, 1};      // workgroups (indirect: unused, 1)
  uint32_t dynamic_group_size = 0;              // dynamic group bytes
  // Kernarg template, one of: `kernargs` (kernel->kernarg_size bytes), or
  // zeros with `constants_size` bytes of `constants` at `constants_offset`
  // (a pipeline: binding pointers, then the pushed constants).
  const void* kernargs = nullptr;
  const uint8_t* constants = nullptr;
  uint32_t constants_offset = 0;
  uint32_t constants_size = 0;
  // Patches, one of: `patches` (device-library commands), or one ADDRESS
  // patch per pipeline binding i at i * 8 from `binding_refs[i]`.
  const xgpu_amdgpu_kernarg_patch_t* patches = nullptr;
  const xgpu_amdgpu_buffer_ref_t* binding_refs = nullptr;
  uint32_t patch_count = 0;
  bool force_barrier = false;                   // the first packet needs the barrier bit

  xgpu_amdgpu_kernarg_patch_t patch(uint32_t i) const {
    return patches ? patches[i] : make_patch(i * kBindingBytes, XGPU_AMDGPU_KERNARG_PATCH_ADDRESS, 1, binding_refs[i]);
  }
  const xgpu_amdgpu_buffer_ref_t& ref(uint32_t i) const { return patches ? patches[i].ref : binding_refs[i]; }
};

// Slot requirements of the pipeline bindings of a recorded dispatch
// (command `index`): STORAGE.
void require_bindings(Recorder* r, const DispatchSpec& spec, uint32_t index, const char* function);
uint16_t dimensions_of(const uint32_t workgroup_size[3], const uint32_t workgroup_count[3]);
// The value a static reference's patch stores (known at record time).
uint64_t static_patch_value(const xgpu_amdgpu_kernarg_patch_t& patch);
// Appends a dispatch-like command in place: `base_size` bytes of fixed
// fields (header and xgpu_amdgpu_dispatch_t first), then the patches.
// Reserves `packets` packets, the dispatch's kernargs (built now in the
// prebuilt kernarg arena when every reference is static, else a template in
// the read-only data and a per-submission range) and `extra_kernarg_bytes`
// per-submission bytes after them (their offset from header.kernarg_offset
// goes to *out_extra_kernarg_offset). Returns the command, nullptr after
// recording an error.
xgpu_amdgpu_command_dispatch_t* append_dispatch(CommandBuffer* cb, Recorder* r, const DispatchSpec& spec,
                                                uint64_t base_size, uint32_t packets, uint64_t extra_kernarg_bytes,
                                                uint32_t extra_kernarg_alignment, uint32_t* out_extra_kernarg_offset);
// Records a device-library kernel dispatch (fill, copy, update, timestamp).
void record_builtin(CommandBuffer* cb, Recorder* r, uint8_t type, const KernelInfo* kernel, const char* function,
                    const void* kernargs, uint32_t kernarg_size, uint32_t workgroup_size, uint32_t workgroups,
                    const xgpu_amdgpu_kernarg_patch_t* patches, uint32_t patch_count, bool force_barrier);
// Workgroups of a fill/copy of `length` bytes (unknown: the maximum).
uint32_t transfer_workgroups(uint64_t length);
const DeviceLibrary* library_of(const CommandBuffer* cb);
const KernelInfo* builtin(const CommandBuffer* cb, const KernelInfo* DeviceLibrary::*member);
// Checks the bound state as prepare_dispatch does and, when it passes,
// builds the recorder's dispatch template from it: the command
// append_dispatch would write for it, with the per-dispatch fields left 0,
// and the kernargs with the static binding addresses in place.
bool build_dispatch_template(CommandBuffer* cb, Recorder* r);
// The first dispatch recorded from a template notes what its bindings need
// of their binding-table slots (later ones need nothing new).
void note_template_slots(Recorder* r, uint32_t index);

// --- argument checks (command_buffer_checks.cpp) ---

// Converts an API reference to a fat reference, validating what is known at
// record time. `required_usage` 0 = none. `alignment` applies to the offset
// of a concrete buffer (slots are checked at issue). Returns false (after
// reporting) when invalid.
// The rules a buffer reference is checked against, by generated ID
// (vuid::<function>_<parameter>_<rule>). A null ID is a check that cannot
// fail for this parameter (an alignment of 1, no required usage, a
// reference that is never NULL): make_ref never reports it.
struct RefVuids {
  const char* parameter;         // the reference pointer is NULL (implicit)
  const char* kind;              // buffer / bindingSlot do not match the kind
  const char* kind_parameter;    // kind is not an XgpuBufferRefKind (implicit)
  const char* offset;            // offset not a multiple of the alignment
  const char* size;              // size 0 or below the minimum
  const char* binding_slot;      // bindingSlot >= bindingCapacity
  const char* buffer_parameter;  // buffer is not a buffer (implicit)
  const char* usage;             // the buffer lacks the required usage
  const char* range;             // the range does not fit the buffer
};

struct RefRules {
  const char* function;          // API function, for messages
  const char* parameter;         // parameter name, for messages
  XgpuBufferUsageFlags usage;    // required usage bits
  const char* usage_name;        // name of the usage bit
  uint64_t alignment;            // required alignment of the offset, bytes
  uint64_t min_size;             // required bytes in the range (0 = none)
  RefVuids vuids;                // the rules' IDs
  const char* member = "";       // the reference's member in an array element (".buffer"), for messages
};

// `index` >= 0 names an element of an array parameter in messages.
bool make_ref(CommandBuffer* cb, const XgpuBufferRef* in, const RefRules& rules, xgpu_amdgpu_buffer_ref_t* out,
              int64_t index = -1);

// The rules of the bound state a dispatch command needs (string literals).
struct DispatchRules {
  const char* function;                // "xgpuCmdDispatch"
  const char* pipeline_vuid;           // a pipeline is bound
  const char* bindings_vuid;           // every binding of the pipeline is set
  const char* workgroup_memory_vuid;   // static + dynamic workgroup memory within the limit
};
constexpr DispatchRules kDispatchRules{"xgpuCmdDispatch", vuid::xgpuCmdDispatch_pipeline,
                                       vuid::xgpuCmdDispatch_bindings,
                                       vuid::xgpuCmdDispatch_workgroupMemory};
constexpr DispatchRules kDispatchIndirectRules{"xgpuCmdDispatchIndirect", vuid::xgpuCmdDispatchIndirect_pipeline,
                                               vuid::xgpuCmdDispatchIndirect_bindings,
                                               vuid::xgpuCmdDispatchIndirect_workgroupMemory};

// Checks the bound state a dispatch needs and fills `spec` (kernel,
// workgroup size, template from the pushed constants, binding patches).
// Allocation-free unless a check fails.
bool prepare_dispatch(CommandBuffer* cb, Recorder* r, const DispatchRules& rules, DispatchSpec* spec);
// Reports the first rule xgpuCmdPushConstants(offset, size, values) breaks
// (the caller found that one does); `constant_limit` bounds offset + size.
void report_push_constants(CommandBuffer* cb, Recorder* r, uint32_t offset, uint32_t size, const void* values,
                           uint64_t constant_limit);
// Reports the first workgroup count of xgpuCmdDispatch above the bound
// pipeline's maxWorkgroupCount (the caller found that one is).
void report_group_count(CommandBuffer* cb, Recorder* r, uint32_t x, uint32_t y, uint32_t z);

// --- entry points, for the table of them by name (command_buffer_names.cpp) ---

// command_buffer.cpp
XgpuResult XGPU_API_CALL create_command_buffer(XgpuDevice device_handle, const XgpuCommandBufferCreateInfo* info,
                                               const XgpuAllocationCallbacks* allocator, XgpuCommandBuffer* out);
void XGPU_API_CALL destroy_command_buffer(XgpuDevice device, XgpuCommandBuffer handle, const XgpuAllocationCallbacks*);
XgpuResult XGPU_API_CALL begin_command_buffer(XgpuCommandBuffer handle, const XgpuCommandBufferBeginInfo* info);
XgpuResult XGPU_API_CALL end_command_buffer(XgpuCommandBuffer handle);
// command_buffer_record.cpp
void XGPU_API_CALL cmd_bind_pipeline(XgpuCommandBuffer handle, XgpuPipeline pipeline);
void XGPU_API_CALL cmd_push_constants(XgpuCommandBuffer handle, uint32_t offset, uint32_t size, const void* values);
void XGPU_API_CALL cmd_bind_buffers(XgpuCommandBuffer handle, uint32_t first, uint32_t count,
                                    const XgpuBufferRef* buffers);
void XGPU_API_CALL cmd_set_workgroup_memory_size(XgpuCommandBuffer handle, uint32_t dynamic_size);
void XGPU_API_CALL cmd_dispatch(XgpuCommandBuffer handle, uint32_t x, uint32_t y, uint32_t z);
void XGPU_API_CALL cmd_dispatch_indirect(XgpuCommandBuffer handle, const XgpuBufferRef* counts,
                                         XgpuDispatchIndirectFlags flags);
void XGPU_API_CALL cmd_fill_buffer(XgpuCommandBuffer handle, const XgpuBufferRef* dst, const void* pattern,
                                   uint32_t pattern_size);
void XGPU_API_CALL cmd_copy_buffer(XgpuCommandBuffer handle, const XgpuBufferRef* src, const XgpuBufferRef* dst,
                                   XgpuDeviceSize size);
void XGPU_API_CALL cmd_update_buffer(XgpuCommandBuffer handle, const XgpuBufferRef* dst, XgpuDeviceSize data_size,
                                     const void* data);
void XGPU_API_CALL cmd_pipeline_barrier(XgpuCommandBuffer handle, XgpuPipelineStageFlags src_stages,
                                        XgpuPipelineStageFlags dst_stages, uint32_t, const XgpuMemoryBarrier*,
                                        uint32_t buffer_barrier_count,
                                        const XgpuBufferMemoryBarrier* buffer_barriers);
void XGPU_API_CALL cmd_memory_barrier(XgpuCommandBuffer handle, XgpuPipelineStageFlags src_stages, XgpuAccessFlags,
                                      XgpuPipelineStageFlags dst_stages, XgpuAccessFlags);
void XGPU_API_CALL cmd_begin_debug_label(XgpuCommandBuffer handle, const XgpuDebugLabel* label);
void XGPU_API_CALL cmd_end_debug_label(XgpuCommandBuffer handle);
void XGPU_API_CALL cmd_insert_debug_label(XgpuCommandBuffer handle, const XgpuDebugLabel* label);
void XGPU_API_CALL cmd_write_timestamp(XgpuCommandBuffer handle, XgpuPipelineStageFlagBits stage,
                                       const XgpuBufferRef* dst);

}  // namespace command_buffer_impl
}  // namespace xgpu::amdgpu
