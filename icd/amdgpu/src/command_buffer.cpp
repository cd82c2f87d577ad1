// Command-buffer recording into device-encoded command blocks, and the
// commands side of the seam (see command_buffer.h, seam.h and
// spec/command-buffer-format.md).
#include "command_buffer.h"

#include "xgpu/xgpu_enum_string.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <shared_mutex>
#include <unordered_map>

#include "common.h"
#include "device_library.h"
#include "entry_guard.h"
#include "host_memory.h"
#include "issue.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {
namespace {

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

// CommandBuffer::pending's top bit: xgpuDestroyCommandBuffer ran while
// submissions were pending; the last of them to complete frees the command
// buffer (the low bits count them).
constexpr uint32_t kDestroyedWhilePending = 0x80000000u;

// Every live command buffer and its device, so that xgpuQueueSubmit can tell
// a destroyed (or never created) handle from one of another device without
// reading the object. Written at creation and destruction.
std::shared_mutex g_live_command_buffers_mutex;
std::unordered_map<const CommandBuffer*, Device*> g_live_command_buffers;

}  // namespace

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

namespace {

CommandBuffer* from_handle(XgpuCommandBuffer handle) { return reinterpret_cast<CommandBuffer*>(handle); }


std::string size_string(XgpuDeviceSize size) {
  return size == XGPU_WHOLE_SIZE ? std::string("XGPU_WHOLE_SIZE") : std::to_string(size);
}

// "A_BIT | B_BIT (0x3)", or "0" without bits (names from the registry).
std::string usage_string(XgpuBufferUsageFlags flags) {
  char names[XGPU_FLAGS_STRING_SIZE];
  xgpuBufferUsageFlagsString(flags, names, sizeof(names));
  return flags == 0 ? std::string("0") : std::string(names) + " (" + hex(flags) + ")";
}
std::string memory_property_string(XgpuMemoryPropertyFlags flags) {
  char names[XGPU_FLAGS_STRING_SIZE];
  xgpuMemoryPropertyFlagsString(flags, names, sizeof(names));
  return flags == 0 ? std::string("0") : std::string(names) + " (" + hex(flags) + ")";
}

// Bit position of a single usage bit (index into SlotRequirement arrays).
uint32_t usage_index(XgpuBufferUsageFlags bit) {
  uint32_t index = 0;
  while (index + 1 < kBufferUsageBitCount && (bit >> index) != 1u) ++index;
  return index;
}

// "memory type 2 (XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT (0x1))"
std::string memory_type_string(uint32_t memory_type, XgpuMemoryPropertyFlags properties) {
  return "memory type " + std::to_string(memory_type) + " (" + memory_property_string(properties) + ")";
}

// "command 2 (xgpuCmdCopyBuffer pDst)", "command 0 (xgpuCmdDispatch
// binding 1 (xgpuCmdBindBuffers))".
std::string slot_use_string(const SlotUse& use) {
  const std::string what = use.parameter ? std::string(use.parameter)
                                         : "binding " + std::to_string(use.binding) + " (xgpuCmdBindBuffers)";
  return "command " + std::to_string(use.command) + " (" + use.function + " " + what + ")";
}

// Records the first error and reports it.
void record_error(CommandBuffer* cb, XgpuResult result, const char* vuid, const std::string& message) {
  device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid, message,
                {{XGPU_OBJECT_TYPE_COMMAND_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(cb))}});
  if (cb->first_error == XGPU_SUCCESS) cb->first_error = result;
}

// After a device loss (api.md 6.1) every command returning an XgpuResult
// returns XGPU_ERROR_DEVICE_LOST, with a message.
bool report_if_lost(const Device* device, const char* function) {
  if (!device_is_lost(device)) return false;
  device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kCallOnLostDevice,
                std::string(function) + ": the device is lost (XGPU_ERROR_DEVICE_LOST)");
  return true;
}

// Common entry check of every xgpuCmd*: returns the recorder or nullptr.
// `recording_vuid` is the command's XGPU-VUID-<function>-commandBuffer-recording.
[[gnu::noinline, gnu::cold]] Recorder* not_recording(CommandBuffer* cb, const char* function,
                                                      const char* recording_vuid) {
  device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, recording_vuid,
                std::string(function) + ": commandBuffer is not in the recording state (call xgpuBeginCommandBuffer)");
  if (cb->first_error == XGPU_SUCCESS) cb->first_error = XGPU_ERROR_INVALID_USAGE;
  return nullptr;
}
inline Recorder* recording(CommandBuffer* cb, const char* function, const char* recording_vuid) {
  if (!cb) [[unlikely]] return nullptr;
  if (cb->state != CommandBufferState::kRecording || !cb->recorder) [[unlikely]]
    return not_recording(cb, function, recording_vuid);
  return cb->recorder;
}

// Takes a pool chunk of `kind` holding `size` bytes into the program;
// reports and records the failure (nullptr).
uint8_t* take_chunk(CommandBuffer* cb, Recorder* r, MemoryKind kind, uint64_t size, const char* what) {
  PoolChunk chunk;
  const XgpuResult result = r->pool->take(kind, size, &chunk);
  if (result != XGPU_SUCCESS) {
    record_error(cb, result, msgid::failure(result),
                 std::string("recording: allocating ") + std::to_string(size) + " bytes for the " + what +
                     " failed");
    return nullptr;
  }
  cb->program.chunks.push_back(chunk);
  return chunk.base;
}

// `size` bytes at `alignment` from an arena (read-only data or prebuilt
// kernargs), taking a new chunk when the current one is full; nullptr
// after recording an error.
[[gnu::noinline]] uint8_t* arena_refill(CommandBuffer* cb, Recorder* r, bool kernarg, uint64_t size) {
  uint8_t*& cursor = kernarg ? r->kernarg_cursor : r->rodata_cursor;
  uint8_t*& limit = kernarg ? r->kernarg_limit : r->rodata_limit;
  const uint64_t chunk_size = std::max<uint64_t>(size, CommandChunkPool::kChunkSize);
  uint8_t* base = take_chunk(cb, r, kernarg ? MemoryKind::kKernarg : MemoryKind::kHostCoherent, chunk_size,
                             kernarg ? "prebuilt kernargs" : "read-only data");
  if (!base) return nullptr;
  limit = base + chunk_size;
  cursor = base + size;  // chunks are at least 256-byte aligned
  return base;
}
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
uint64_t append_rodata(CommandBuffer* cb, Recorder* r, const void* data, uint64_t size, uint64_t alignment) {
  uint8_t* at = arena_alloc(cb, r, false, size, alignment);
  if (!at) return 0;
  if (size) std::memcpy(at, data, size);
  return uint64_t(reinterpret_cast<uintptr_t>(at));
}

constexpr uint64_t kTerminatorSize = sizeof(xgpu_amdgpu_command_terminator_t);

// Ends the current block with `type` (BRANCH to `next`, or RETURN).
void write_terminator(Recorder* r, uint8_t type, const uint8_t* next) {
  xgpu_amdgpu_command_terminator_t terminator{};
  terminator.header.type = type;
  terminator.header.size = uint16_t(kTerminatorSize);
  terminator.header.index = r->command_count;
  terminator.next_block = next ? uint64_t(reinterpret_cast<uintptr_t>(next)) : 0;
  std::memcpy(r->block_cursor, &terminator, sizeof(terminator));
}

// Starts a new block with room for a command of `size` bytes; the current
// one (if any) branches to it.
[[gnu::noinline]] bool new_block(CommandBuffer* cb, Recorder* r, uint64_t size) {
  const uint64_t block_size = std::max<uint64_t>(size + kTerminatorSize, kBlockSize);
  uint8_t* block = take_chunk(cb, r, MemoryKind::kHostCoherent, block_size, "command block");
  if (!block) return false;
  if (r->block_cursor) write_terminator(r, XGPU_AMDGPU_COMMAND_BRANCH, block);
  cb->program.blocks.push_back(block);
  r->block_cursor = block;
  r->block_limit = block + block_size - kTerminatorSize;
  return true;
}

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

// Converts an API reference to a fat reference, validating what is known at
// record time. `required_usage` 0 = none. `alignment` applies to the offset
// of a concrete buffer (slots are checked at issue). Returns false (after
// reporting) when invalid.
struct RefRules {
  const char* function;          // API function, for messages
  const char* parameter;         // parameter name, for messages and VUIDs
  XgpuBufferUsageFlags usage;    // required usage bits
  const char* usage_name;        // name of the usage bit
  uint64_t alignment;            // required alignment of the offset, bytes
  uint64_t min_size;             // required bytes in the range (0 = none)
  const char* size_rule = "-range";  // VUID suffix of a size below min_size ("-size" where the spec has one)
  const char* implicit = nullptr;    // VUID prefix of the reference's implicit rules (default: parameter)
  const char* member = "";           // the reference's member in an array element (".buffer"), for messages
};

// `index` >= 0 names an element of an array parameter in messages.
bool make_ref(CommandBuffer* cb, const XgpuBufferRef* in, const RefRules& rules, xgpu_amdgpu_buffer_ref_t* out,
              int64_t index = -1) {
  // Messages (and the VUIDs they carry) are built only when a check fails.
  // `field` is the member the message names ("" for the whole reference).
  auto fail = [&](bool implicit, const char* rule, const char* field, const std::string& what,
                  XgpuResult result = XGPU_ERROR_INVALID_ARGUMENT) {
    const char* prefix = implicit && rules.implicit ? rules.implicit : rules.parameter;
    const std::string vuid = std::string("XGPU-VUID-") + rules.function + "-" + prefix + rule;
    std::string where = rules.parameter;
    if (index >= 0) where += "[" + std::to_string(index) + "]" + rules.member;
    if (*field) where += (index >= 0 ? "." : "->") + std::string(field);
    record_error(cb, result, vuid.c_str(), std::string(rules.function) + ": " + where + what);
    return false;
  };
  if (!in) return fail(true, "-parameter", "", " is NULL");
  *out = xgpu_amdgpu_buffer_ref_t{};
  out->offset = in->offset;
  out->length = in->size == XGPU_WHOLE_SIZE ? XGPU_AMDGPU_WHOLE_LENGTH : in->size;
  switch (in->kind) {
    case XGPU_BUFFER_REF_KIND_BUFFER:
      if (in->buffer == XGPU_NULL_HANDLE)
        return fail(false, "-kind", "buffer",
                    " is XGPU_NULL_HANDLE in a reference of kind XGPU_BUFFER_REF_KIND_BUFFER (a zero-initialized "
                    "XgpuBufferRef names no buffer; build one with xgpuBufferRefWhole, xgpuBufferRefRange or "
                    "xgpuBufferRefSlot)");
      if (in->bindingSlot != 0)
        return fail(false, "-kind", "bindingSlot",
                    " is " + std::to_string(in->bindingSlot) +
                        " in a reference of kind XGPU_BUFFER_REF_KIND_BUFFER (must be 0; a binding-table slot needs "
                        "kind XGPU_BUFFER_REF_KIND_BINDING_SLOT)");
      break;
    case XGPU_BUFFER_REF_KIND_BINDING_SLOT:
      if (in->buffer != XGPU_NULL_HANDLE)
        return fail(false, "-kind", "buffer",
                    " is set in a reference of kind XGPU_BUFFER_REF_KIND_BINDING_SLOT (must be XGPU_NULL_HANDLE: "
                    "each submission's binding table gives the buffer)");
      break;
    default:
      return fail(true, "-kind-parameter", "kind",
                  " (" + std::to_string(uint32_t(in->kind)) + ") is not an XgpuBufferRefKind value");
  }
  if (in->offset % rules.alignment != 0)
    return fail(false, "-offset", "offset",
                " (" + std::to_string(in->offset) + ") is not a multiple of " + std::to_string(rules.alignment));
  if (in->size != XGPU_WHOLE_SIZE && (in->size == 0 || in->size < rules.min_size))
    return fail(false, rules.size_rule, "size",
                " (" + std::to_string(in->size) + ") must be at least " +
                    std::to_string(std::max<uint64_t>(rules.min_size, 1)) + " bytes");
  if (in->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT) {
    if (in->bindingSlot >= cb->binding_capacity)
      return fail(false, "-bindingSlot", "bindingSlot",
                  " (" + std::to_string(in->bindingSlot) + ") is not less than the command buffer's bindingCapacity (" +
                      std::to_string(cb->binding_capacity) + ")");
    out->kind = XGPU_AMDGPU_BUFFER_REF_KIND_SLOT;
    out->slot = in->bindingSlot;
    return true;
  }
  BufferInfo* buffer = buffer_info(in->buffer);
  if (!buffer) return fail(true, "-buffer-parameter", "buffer", " is not a buffer");
  if (rules.usage && (buffer->usage & rules.usage) != rules.usage)
    return fail(false, "-usage", "buffer",
                " was not created with " + std::string(rules.usage_name) + " (usage " + hex(buffer->usage) + ")",
                XGPU_ERROR_INVALID_USAGE);
  const uint64_t length = in->size == XGPU_WHOLE_SIZE ? buffer->size - std::min(in->offset, buffer->size) : in->size;
  if (in->offset >= buffer->size || length > buffer->size - in->offset || length < rules.min_size)
    return fail(false, "-range", "",
                " (offset " + std::to_string(in->offset) + ", size " + size_string(in->size) +
                    ") does not fit the buffer's " + std::to_string(buffer->size) + " bytes" +
                    (rules.min_size ? " with at least " + std::to_string(rules.min_size) + " bytes" : ""));
  out->slot = XGPU_AMDGPU_NO_SLOT;
  out->length = length;
  if (buffer->is_alloca) {
    out->kind = XGPU_AMDGPU_BUFFER_REF_KIND_ALLOCA;
    out->value = uint64_t(reinterpret_cast<uintptr_t>(buffer));
  } else {
    out->kind = XGPU_AMDGPU_BUFFER_REF_KIND_CONCRETE;
    out->value = buffer->device_address.load(std::memory_order_acquire);
  }
  return true;
}

bool ref_is_static(const xgpu_amdgpu_buffer_ref_t& ref) {
  return ref.kind == XGPU_AMDGPU_BUFFER_REF_KIND_CONCRETE || ref.kind == XGPU_AMDGPU_BUFFER_REF_KIND_RODATA;
}

// Notes that command `index` (`function`, its `parameter`) needs `usage` of
// the buffer in the slot `ref` names, checked at submit. Concrete buffers
// were checked by make_ref.
// The requirements of the slot `ref` names (nullptr for other kinds); the
// table grows to the highest slot referenced, not to bindingCapacity.
SlotRequirement* slot_requirement(Recorder* r, const xgpu_amdgpu_buffer_ref_t& ref) {
  if (ref.kind != XGPU_AMDGPU_BUFFER_REF_KIND_SLOT) return nullptr;
  if (ref.slot >= r->slots.size()) r->slots.resize(size_t(ref.slot) + 1);
  return &r->slots[ref.slot];
}

// `parameter` names the reference ("pDst"); for a pipeline binding it is
// nullptr and `binding` is the binding's index. `vuid` is the command's rule
// for the usage (a string literal). No strings: the message is built at
// submit, only when a binding table breaks the requirement.
void require_slot(Recorder* r, const xgpu_amdgpu_buffer_ref_t& ref, uint32_t index, XgpuBufferUsageFlags usage,
                  const char* function, const char* parameter, uint32_t binding, const char* vuid) {
  SlotRequirement* requirement = slot_requirement(r, ref);
  if (!requirement) return;
  SlotRequirement& slot = *requirement;
  const uint32_t bit = usage_index(usage);
  if (!(slot.usage & usage)) {
    slot.use[bit] = SlotUse{index, function, parameter, binding};
    slot.vuid[bit] = vuid;
  }
  slot.usage |= usage;
}

xgpu_amdgpu_kernarg_patch_t make_patch(uint32_t kernarg_offset, uint16_t kind, uint16_t alignment,
                                       const xgpu_amdgpu_buffer_ref_t& ref) {
  xgpu_amdgpu_kernarg_patch_t patch{};
  patch.kernarg_offset = kernarg_offset;
  patch.kind = kind;
  patch.alignment = alignment;
  patch.ref = ref;
  return patch;
}

// Bytes of one pipeline binding in the kernargs (a pointer).
constexpr uint32_t kBindingBytes = sizeof(uint64_t);

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
void require_bindings(Recorder* r, const DispatchSpec& spec, uint32_t index, const char* function) {
  for (uint32_t i = 0; i < spec.patch_count; ++i) {
    const xgpu_amdgpu_buffer_ref_t& ref = spec.ref(i);
    if (ref.kind != XGPU_AMDGPU_BUFFER_REF_KIND_SLOT) continue;
    require_slot(r, ref, index, XGPU_BUFFER_USAGE_STORAGE_BIT, function, nullptr, i,
                 vuid::xgpuCmdBindBuffers_pBuffers_usage);
  }
}

uint16_t dimensions_of(const uint32_t workgroup_size[3], const uint32_t workgroup_count[3]) {
  if (workgroup_size[2] > 1 || workgroup_count[2] > 1) return 3;
  if (workgroup_size[1] > 1 || workgroup_count[1] > 1) return 2;
  return 1;
}

// The kernarg template of `spec` into `out` (kernel->kernarg_size bytes).
void write_template(const DispatchSpec& spec, uint8_t* out) {
  const uint32_t size = spec.kernel->kernarg_size;
  if (spec.kernargs) {
    if (size) std::memcpy(out, spec.kernargs, size);
    return;
  }
  if (size) std::memset(out, 0, size);
  if (spec.constants_size) std::memcpy(out + spec.constants_offset, spec.constants, spec.constants_size);
}

// The value a static reference's patch stores (known at record time).
uint64_t static_patch_value(const xgpu_amdgpu_kernarg_patch_t& patch) {
  return patch.kind == XGPU_AMDGPU_KERNARG_PATCH_LENGTH ? patch.ref.length : patch.ref.value + patch.ref.offset;
}

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
                                                uint32_t extra_kernarg_alignment, uint32_t* out_extra_kernarg_offset) {
  const KernelInfo& kernel = *spec.kernel;
  // A printing kernel's kernargs are per submission: each gets its own
  // print buffer address before them.
  bool prebuilt = !kernel.prints;
  for (uint32_t i = 0; i < spec.patch_count; ++i) prebuilt = prebuilt && ref_is_static(spec.ref(i));
  const uint32_t alignment = std::max<uint32_t>(kernel.kernarg_alignment, kMinKernargSegmentAlignment);
  uint8_t* kernargs = prebuilt ? arena_alloc(cb, r, true, kernel.kernarg_size, alignment)
                               : arena_alloc(cb, r, false, kernel.kernarg_size,
                                             std::max<uint64_t>(alignment, kRodataAlignment));
  if (!kernargs) return nullptr;
  if (!prebuilt || spec.type == XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT) r->resolves_at_issue = true;
  auto* command = append_command<xgpu_amdgpu_command_dispatch_t>(
      cb, r, spec.type, base_size + uint64_t(spec.patch_count) * sizeof(xgpu_amdgpu_kernarg_patch_t));
  if (!command) return nullptr;
  write_template(spec, kernargs);
  auto* patches = reinterpret_cast<xgpu_amdgpu_kernarg_patch_t*>(reinterpret_cast<uint8_t*>(command) + base_size);
  for (uint32_t i = 0; i < spec.patch_count; ++i) {
    patches[i] = spec.patch(i);
    if (prebuilt) {
      const uint64_t value = static_patch_value(patches[i]);
      std::memcpy(kernargs + patches[i].kernarg_offset, &value, sizeof(value));
    }
  }

  xgpu_amdgpu_command_header_t& header = command->header;
  header.packet_offset = r->packet_count;
  if (r->barrier_pending || spec.force_barrier) header.flags |= XGPU_AMDGPU_COMMAND_FLAG_BARRIER;
  r->barrier_pending = false;
  r->packet_count += packets;

  xgpu_amdgpu_dispatch_t& d = command->dispatch;
  const uint64_t kernarg_address = uint64_t(reinterpret_cast<uintptr_t>(kernargs));
  uint64_t cursor = r->kernarg_bytes;
  if (prebuilt) {
    header.flags |= XGPU_AMDGPU_COMMAND_FLAG_PREBUILT_KERNARGS;
    d.prebuilt_kernarg_address = kernarg_address;
  } else {
    if (kernel.prints) {
      header.flags |= XGPU_AMDGPU_COMMAND_FLAG_PRINTS;
      if (kernel.bounds_checked) header.flags |= XGPU_AMDGPU_COMMAND_FLAG_BOUNDS_CHECKED;
      r->prints = true;
      cursor += kernarg_lead(kernel);  // the print buffer slots (and binding lengths) before the kernargs
    }
    cursor = align_up(cursor, alignment);
    header.kernarg_offset = uint32_t(cursor);
    cursor += kernel.kernarg_size;
  }
  if (extra_kernarg_bytes) {
    const uint64_t extra = align_up(cursor, extra_kernarg_alignment);
    if (prebuilt) header.kernarg_offset = uint32_t(extra);
    *out_extra_kernarg_offset = uint32_t(extra - header.kernarg_offset);
    cursor = extra + extra_kernarg_bytes;
  }
  r->kernarg_bytes = cursor;

  d.kernel_object = kernel.kernel_object;
  d.kernarg_template = kernarg_address;
  for (int i = 0; i < 3; ++i) {
    d.workgroup_size[i] = uint16_t(spec.workgroup_size[i]);
    d.workgroup_count[i] = spec.workgroup_count[i];
  }
  // Indirect counts are unknown until issue (or until the device patches the
  // packet), so an indirect dispatch always sets up three dimensions.
  d.dimensions = spec.type == XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT
                     ? uint16_t(3)
                     : dimensions_of(spec.workgroup_size, spec.workgroup_count);
  d.private_segment_size = kernel.private_segment_size;
  d.group_segment_size = kernel.group_segment_size + spec.dynamic_group_size;
  d.kernarg_size = kernel.kernarg_size;
  d.kernarg_alignment = alignment;
  d.patch_count = uint16_t(spec.patch_count);
  d.debug_name = uint64_t(reinterpret_cast<uintptr_t>(kernel.shown_name().c_str()));  // interned with the kernel
  return command;
}

// Records a device-library kernel dispatch (fill, copy, update, timestamp).
void record_builtin(CommandBuffer* cb, Recorder* r, uint8_t type, const KernelInfo* kernel, const char* function,
                    const void* kernargs, uint32_t kernarg_size, uint32_t workgroup_size, uint32_t workgroups,
                    const xgpu_amdgpu_kernarg_patch_t* patches, uint32_t patch_count, bool force_barrier) {
  if (!kernel) {
    record_error(cb, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kDeviceLibrary,
                 std::string(function) + ": the device library (builtin kernels) is not available for this device");
    return;
  }
  if (kernel->kernarg_size != kernarg_size) {
    record_error(cb, XGPU_ERROR_INITIALIZATION_FAILED, msgid::kDeviceLibrary,
                 std::string(function) + ": device-library kernel " + kernel->name + " has " +
                     std::to_string(kernel->kernarg_size) + " kernarg bytes; the ICD expects " +
                     std::to_string(kernarg_size));
    return;
  }
  DispatchSpec spec;
  spec.type = type;
  spec.kernel = kernel;
  spec.workgroup_size[0] = workgroup_size;
  spec.workgroup_count[0] = workgroups;
  spec.kernargs = kernargs;
  spec.patches = patches;
  spec.patch_count = patch_count;
  spec.force_barrier = force_barrier;
  uint32_t unused = 0;
  const auto* command = append_dispatch(cb, r, spec, sizeof(xgpu_amdgpu_command_dispatch_t), 1, 0, 1, &unused);
  if (command) r->last_packet_has_barrier = command->header.flags & XGPU_AMDGPU_COMMAND_FLAG_BARRIER;
}

// Workgroups of a fill/copy of `length` bytes (unknown: the maximum).
uint32_t transfer_workgroups(uint64_t length) {
  if (length == XGPU_AMDGPU_WHOLE_LENGTH) return XGPU_AMDGPU_TRANSFER_MAX_WORKGROUPS;
  const uint64_t units = length / XGPU_AMDGPU_TRANSFER_UNIT + 1;
  const uint64_t groups = (units + XGPU_AMDGPU_TRANSFER_WORKGROUP_SIZE - 1) / XGPU_AMDGPU_TRANSFER_WORKGROUP_SIZE;
  return uint32_t(std::clamp<uint64_t>(groups, 1, XGPU_AMDGPU_TRANSFER_MAX_WORKGROUPS));
}

const DeviceLibrary* library_of(const CommandBuffer* cb) { return device_library(cb->device); }
const KernelInfo* builtin(const CommandBuffer* cb, const KernelInfo* DeviceLibrary::*member) {
  const DeviceLibrary* library = library_of(cb);
  return library ? library->*member : nullptr;
}

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
bool prepare_dispatch(CommandBuffer* cb, Recorder* r, const DispatchRules& rules, DispatchSpec* spec) {
  const char* f = rules.function;
  if (!r->pipeline) {
    record_error(cb, XGPU_ERROR_INVALID_USAGE, rules.pipeline_vuid,
                 std::string(f) + ": no pipeline is bound (xgpuCmdBindPipeline)");
    return false;
  }
  const PipelineInfo& p = *r->pipeline;
  const XgpuPhysicalDeviceLimits& limits = *r->limits;
  for (uint32_t i = 0; i < p.binding_count; ++i) {
    if (i >= r->bound.size() || !r->bound[i]) {
      record_error(cb, XGPU_ERROR_INVALID_USAGE, rules.bindings_vuid,
                   std::string(f) + ": binding " + std::to_string(i) + " of pipeline '" + p.kernel.shown_name() + "' (" +
                       std::to_string(p.binding_count) + " bindings) is not bound (xgpuCmdBindBuffers)");
      return false;
    }
  }
  const uint64_t group = uint64_t(p.kernel.group_segment_size) + r->dynamic_group_size;
  if (group > limits.maxWorkgroupMemorySize) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, rules.workgroup_memory_vuid,
                 std::string(f) + ": static (" + std::to_string(p.kernel.group_segment_size) + ") + dynamic (" +
                     std::to_string(r->dynamic_group_size) + ") workgroup memory of pipeline '" + p.kernel.shown_name() +
                     "' exceeds limits.maxWorkgroupMemorySize (" + std::to_string(limits.maxWorkgroupMemorySize) +
                     ")");
    return false;
  }
  if (p.kernel.kernarg_alignment > kMaxKernargAlignment) {
    record_error(cb, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                 std::string(f) + ": pipeline '" + p.kernel.shown_name() + "' needs kernarg alignment " +
                     std::to_string(p.kernel.kernarg_alignment) + "; this driver supports at most " +
                     std::to_string(kMaxKernargAlignment));
    return false;
  }
  if (p.binding_count > kMaxPatches) {
    record_error(cb, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                 std::string(f) + ": pipeline '" + p.kernel.shown_name() + "' has " + std::to_string(p.binding_count) +
                     " bindings; a command of this driver holds at most " + std::to_string(kMaxPatches));
    return false;
  }
  spec->kernel = &p.kernel;
  for (int d = 0; d < 3; ++d) spec->workgroup_size[d] = p.workgroup_size[d];
  spec->dynamic_group_size = r->dynamic_group_size;
  // Template: binding pointers (patched) then the pushed constants.
  const uint64_t constants_offset = uint64_t(p.binding_count) * kBindingBytes;
  if (p.kernel.kernarg_size > constants_offset) {
    spec->constants = r->pushed.data();
    spec->constants_offset = uint32_t(constants_offset);
    spec->constants_size = uint32_t(std::min<uint64_t>(
        {uint64_t(p.constant_size), p.kernel.kernarg_size - constants_offset, uint64_t(r->pushed.size())}));
  }
  spec->binding_refs = r->bindings.data();
  spec->patch_count = p.binding_count;
  return true;
}

// ---------------------------------------------------------------------------
// Program memory and the end of recording.

// Gives the program's chunks back to the pool and forgets them (vectors
// keep their capacity for the next recording).
void release_program_memory(CommandBuffer* cb) {
  CommandProgram& program = cb->program;
  if (!program.chunks.empty()) {
    if (const DeviceLibrary* library = library_of(cb); library && library->pool)
      library->pool->give(program.chunks.data(), program.chunks.size());
  }
  program.chunks.clear();
  program.blocks.clear();
}

void free_program(CommandBuffer* cb) {
  release_program_memory(cb);
  CommandProgram& program = cb->program;
  program.command_count = 0;
  program.command_packet_count = 0;
  program.trailing_barrier = false;
  program.resolves_at_issue = false;
  program.sizes = IssueSizes{};
  program.slots.clear();
}

// The commands are in place already: End writes the RETURN and the sizes.
void finalize(CommandBuffer* cb) {
  Recorder* r = cb->recorder;
  CommandProgram& program = cb->program;
  write_terminator(r, XGPU_AMDGPU_COMMAND_RETURN, nullptr);
  program.command_count = r->command_count;
  program.command_packet_count = r->packet_count;
  program.trailing_barrier = r->packet_count > 1 && !r->last_packet_has_barrier;
  program.resolves_at_issue = r->resolves_at_issue;
  program.sizes.packet_count = std::max<uint32_t>(r->packet_count, 1) + (program.trailing_barrier ? 1 : 0);
  program.sizes.kernarg_bytes = r->kernarg_bytes;
  program.sizes.binding_capacity = cb->binding_capacity;
  program.sizes.reads_memory_at_issue = r->reads_memory_at_issue;
  program.sizes.prints = r->prints;
  program.slots.swap(r->slots);
  r->slots.clear();
}

// ---------------------------------------------------------------------------
// Entry points.

XgpuResult XGPU_API_CALL create_command_buffer(XgpuDevice device_handle, const XgpuCommandBufferCreateInfo* info,
                                               const XgpuAllocationCallbacks* allocator, XgpuCommandBuffer* out) {
  Device* device = device_from_handle(device_handle);
  if (!device || !out) return XGPU_ERROR_INVALID_ARGUMENT;
  *out = XGPU_NULL_HANDLE;
  if (report_if_lost(device, "xgpuCreateCommandBuffer")) return XGPU_ERROR_DEVICE_LOST;
  if (!info) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuCreateCommandBuffer_pCreateInfo_parameter,
                  "xgpuCreateCommandBuffer: pCreateInfo is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (info->sType != XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid::xgpuCreateCommandBuffer_pCreateInfo_sType,
                  "xgpuCreateCommandBuffer: pCreateInfo->sType (" + std::to_string(int(info->sType)) +
                      ") is not XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (!device_has_queue_family(device, info->queueFamilyIndex)) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuCreateCommandBuffer_pCreateInfo_queueFamilyIndex,
                  "xgpuCreateCommandBuffer: pCreateInfo->queueFamilyIndex " + std::to_string(info->queueFamilyIndex) +
                      " is not the family of a queue the device was created with");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  auto* cb = host_new<CommandBuffer>(allocator);
  if (!cb) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  "xgpuCreateCommandBuffer: allocating the object's host memory failed");
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  xgpuSetLoaderMagicValue(cb);
  cb->device = device;
  cb->queue_family_index = info->queueFamilyIndex;
  device_track_handle(device, cb);
  {
    std::unique_lock lock(g_live_command_buffers_mutex);
    g_live_command_buffers[cb] = device;
  }
  *out = reinterpret_cast<XgpuCommandBuffer>(cb);
  return XGPU_SUCCESS;
}

// Back to the initial state: the program's memory goes back to the pool;
// the recorder is kept for the next recording unless `destroy`.
void reset(CommandBuffer* cb, bool destroy = false) {
  free_program(cb);
  if (destroy) {
    delete cb->recorder;
    cb->recorder = nullptr;
  }
  cb->first_error = XGPU_SUCCESS;
  cb->submitted_once = false;
}

void free_command_buffer(CommandBuffer* cb) {
  reset(cb, /*destroy=*/true);
  host_delete_handle(cb);  // its address is its handle: not reused soon
}

void XGPU_API_CALL destroy_command_buffer(XgpuDevice device, XgpuCommandBuffer handle, const XgpuAllocationCallbacks*) {
  CommandBuffer* cb = from_handle(handle);
  Device* owner = device_from_handle(device);
  if (!cb || !owner) return;
  if (!device_release_handle(owner, cb, vuid::xgpuDestroyCommandBuffer_commandBuffer_parameter,
                             "xgpuDestroyCommandBuffer: commandBuffer")) return;
  {
    std::unique_lock lock(g_live_command_buffers_mutex);
    g_live_command_buffers.erase(cb);
  }
  // Submissions still pending read the recording: the last of them frees
  // it, and those not issued yet fail (command_buffer_issue). From the
  // fetch_or on, cb may be freed by another thread.
  const uint32_t pending = cb->pending.fetch_or(kDestroyedWhilePending, std::memory_order_acq_rel);
  if (pending == 0) {
    free_command_buffer(cb);
    return;
  }
  device_report(owner, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid::xgpuDestroyCommandBuffer_commandBuffer_pending,
                "xgpuDestroyCommandBuffer: commandBuffer has " + std::to_string(pending) +
                    " submission(s) pending: those not issued yet fail (their signal semaphores with "
                    "XGPU_ERROR_INVALID_USAGE), those issued run, and the command buffer is freed when the last "
                    "completes",
                {{XGPU_OBJECT_TYPE_COMMAND_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(handle))}});
}

XgpuResult XGPU_API_CALL begin_command_buffer(XgpuCommandBuffer handle, const XgpuCommandBufferBeginInfo* info) {
  CommandBuffer* cb = from_handle(handle);
  if (!cb) return XGPU_ERROR_INVALID_ARGUMENT;
  if (report_if_lost(cb->device, "xgpuBeginCommandBuffer")) return XGPU_ERROR_DEVICE_LOST;
  if (!info) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_pBeginInfo_parameter,
                  "xgpuBeginCommandBuffer: pBeginInfo is NULL");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (info->sType != XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_pBeginInfo_sType,
                  "xgpuBeginCommandBuffer: pBeginInfo->sType (" + std::to_string(int(info->sType)) +
                      ") is not XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  if (const uint32_t pending = cb->pending.load(std::memory_order_acquire); pending != 0) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_commandBuffer_pending,
                  "xgpuBeginCommandBuffer: commandBuffer has " + std::to_string(pending & ~kDestroyedWhilePending) +
                      " submissions pending; wait for them before recording again");
    return XGPU_ERROR_INVALID_USAGE;
  }
  if (info->mode != XGPU_COMMAND_BUFFER_MODE_ONE_SHOT && info->mode != XGPU_COMMAND_BUFFER_MODE_REUSABLE) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, vuid::xgpuBeginCommandBuffer_pBeginInfo_mode_parameter,
                  "xgpuBeginCommandBuffer: pBeginInfo->mode (" + std::to_string(int(info->mode)) + ") is not a mode");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  const XgpuPhysicalDeviceLimits& limits = device_limits(cb->device);
  if (info->bindingCapacity > limits.maxBindingCapacity) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuBeginCommandBuffer_pBeginInfo_bindingCapacity,
                  "xgpuBeginCommandBuffer: pBeginInfo->bindingCapacity (" + std::to_string(info->bindingCapacity) +
                      ") exceeds limits.maxBindingCapacity (" + std::to_string(limits.maxBindingCapacity) + ")");
    return XGPU_ERROR_INVALID_ARGUMENT;
  }
  reset(cb);
  if (!cb->recorder) cb->recorder = new (std::nothrow) Recorder();
  Recorder* r = cb->recorder;
  const DeviceLibrary* library = library_of(cb);
  if (!r || !library || !library->pool) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  "xgpuBeginCommandBuffer: allocating the recording's host memory failed");
    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
  }
  // Recorder state; the vectors keep their capacity across recordings.
  r->pool = library->pool.get();
  r->limits = &limits;
  r->block_cursor = r->block_limit = nullptr;
  r->rodata_cursor = r->rodata_limit = nullptr;
  r->kernarg_cursor = r->kernarg_limit = nullptr;
  r->command_count = 0;
  r->packet_count = 0;
  r->kernarg_bytes = 0;
  r->reads_memory_at_issue = false;
  r->resolves_at_issue = false;
  r->prints = false;
  r->barrier_pending = false;
  r->last_packet_has_barrier = false;
  r->label_depth = 0;
  r->pipeline = nullptr;
  r->pushed.assign(limits.maxPushConstantsSize, 0);
  r->bindings.assign(limits.maxBindings, xgpu_amdgpu_buffer_ref_t{});
  r->bound.assign(limits.maxBindings, 0);
  r->dynamic_group_size = 0;
  r->template_valid = false;
  r->slots.clear();
  cb->mode = info->mode;
  cb->binding_capacity = info->bindingCapacity;
  if (!new_block(cb, r, 0)) {  // the entry block (from the pool: no HSA allocation in steady state)
    const XgpuResult result = cb->first_error;
    free_program(cb);
    cb->first_error = XGPU_SUCCESS;
    cb->state = CommandBufferState::kInvalid;
    return result;
  }
  cb->state = CommandBufferState::kRecording;
  return XGPU_SUCCESS;
}

XgpuResult XGPU_API_CALL end_command_buffer(XgpuCommandBuffer handle) {
  CommandBuffer* cb = from_handle(handle);
  if (!cb) return XGPU_ERROR_INVALID_ARGUMENT;
  if (report_if_lost(cb->device, "xgpuEndCommandBuffer")) {
    // The recording is discarded: the command buffer can only be begun
    // again (which also reports the loss) or destroyed.
    if (cb->state == CommandBufferState::kRecording) {
      free_program(cb);
      cb->state = CommandBufferState::kInvalid;
    }
    return XGPU_ERROR_DEVICE_LOST;
  }
  if (cb->state != CommandBufferState::kRecording || !cb->recorder) {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                  vuid::xgpuEndCommandBuffer_commandBuffer_recording,
                  "xgpuEndCommandBuffer: commandBuffer is not in the recording state");
    return XGPU_ERROR_INVALID_USAGE;
  }
  const XgpuResult result = cb->first_error;
  if (result != XGPU_SUCCESS) {
    free_program(cb);
    cb->state = CommandBufferState::kInvalid;
    return result;
  }
  finalize(cb);
  cb->state = CommandBufferState::kExecutable;
  return XGPU_SUCCESS;
}

void XGPU_API_CALL cmd_bind_pipeline(XgpuCommandBuffer handle, XgpuPipeline pipeline) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdBindPipeline", vuid::xgpuCmdBindPipeline_commandBuffer_recording);
  if (!r) return;
  const PipelineInfo* info = pipeline_info(pipeline);
  if (!info) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdBindPipeline_pipeline_parameter,
                 "xgpuCmdBindPipeline: pipeline is XGPU_NULL_HANDLE");
    return;
  }
  r->pipeline = info;
  r->template_valid = false;
  for (int d = 0; d < 3; ++d)
    r->max_workgroup_count[d] = max_workgroup_count(*r->limits, info->workgroup_size, d);
}

// Reports the first rule xgpuCmdPushConstants(offset, size, values) breaks
// (the caller found that one does); `constant_limit` bounds offset + size.
[[gnu::noinline, gnu::cold]] void report_push_constants(CommandBuffer* cb, Recorder* r, uint32_t offset,
                                                        uint32_t size, const void* values,
                                                        uint64_t constant_limit) {
  if (offset % 4 != 0) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdPushConstants_offset,
                 "xgpuCmdPushConstants: offset (" + std::to_string(offset) + ") is not a multiple of 4");
    return;
  }
  if (size == 0 || size % 4 != 0) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdPushConstants_size,
                 "xgpuCmdPushConstants: size (" + std::to_string(size) + ") is not a non-zero multiple of 4");
    return;
  }
  if (uint64_t(offset) + size > constant_limit) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdPushConstants_range,
                 "xgpuCmdPushConstants: offset (" + std::to_string(offset) + ") + size (" + std::to_string(size) +
                     ") exceeds " +
                     (r->pipeline ? "the constantSize of the bound pipeline '" + std::string(r->pipeline->kernel.shown_name()) +
                                        "' (" + std::to_string(constant_limit) + ")"
                                  : "limits.maxPushConstantsSize (" + std::to_string(constant_limit) + ")"));
    return;
  }
  if (size && !values) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdPushConstants_pValues_parameter,
                 "xgpuCmdPushConstants: pValues is NULL but size is " + std::to_string(size));
    return;
  }
}

void XGPU_API_CALL cmd_push_constants(XgpuCommandBuffer handle, uint32_t offset, uint32_t size, const void* values) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdPushConstants", vuid::xgpuCmdPushConstants_commandBuffer_recording);
  if (!r) return;
  // The bound pipeline's constants bound the range (without one, which the
  // layer reports, the storage does).
  const uint64_t constant_limit = r->pipeline ? r->pipeline->constant_size : r->pushed.size();
  if (((offset | size) % 4) != 0 || size == 0 || uint64_t(offset) + size > constant_limit || !values) [[unlikely]] {
    report_push_constants(cb, r, offset, size, values, constant_limit);
    return;
  }
  std::memcpy(r->pushed.data() + offset, values, size);
}

void XGPU_API_CALL cmd_bind_buffers(XgpuCommandBuffer handle, uint32_t first, uint32_t count,
                                    const XgpuBufferRef* buffers) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdBindBuffers", vuid::xgpuCmdBindBuffers_commandBuffer_recording);
  if (!r) return;
  if (count == 0) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdBindBuffers_bindingCount,
                 "xgpuCmdBindBuffers: bindingCount is 0 (must be at least 1)");
    return;
  }
  // The bound pipeline's bindings bound the range (without one, which the
  // layer reports, the storage does).
  const uint64_t binding_limit = r->pipeline ? r->pipeline->binding_count : r->bindings.size();
  if (uint64_t(first) + count > binding_limit) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdBindBuffers_firstBinding,
                 "xgpuCmdBindBuffers: firstBinding (" + std::to_string(first) + ") + bindingCount (" +
                     std::to_string(count) + ") exceeds " +
                     (r->pipeline ? "the bindingCount of the bound pipeline '" + std::string(r->pipeline->kernel.shown_name()) +
                                        "' (" + std::to_string(binding_limit) + ")"
                                  : "limits.maxBindings (" + std::to_string(binding_limit) + ")"));
    return;
  }
  if (count && !buffers) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdBindBuffers_pBuffers_parameter,
                 "xgpuCmdBindBuffers: pBuffers is NULL but bindingCount is " + std::to_string(count));
    return;
  }
  r->template_valid = false;
  const uint64_t alignment = std::max<uint64_t>(device_limits(cb->device).minBufferOffsetAlignment, 1);
  const RefRules rules{"xgpuCmdBindBuffers", "pBuffers", XGPU_BUFFER_USAGE_STORAGE_BIT,
                       "XGPU_BUFFER_USAGE_STORAGE_BIT", alignment, 0};
  for (uint32_t i = 0; i < count; ++i) {
    xgpu_amdgpu_buffer_ref_t ref;
    if (!make_ref(cb, &buffers[i], rules, &ref, i)) return;
    r->bindings[first + i] = ref;
    r->bound[first + i] = true;
  }
}

void XGPU_API_CALL cmd_set_workgroup_memory_size(XgpuCommandBuffer handle, uint32_t dynamic_size) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdSetWorkgroupMemorySize",
                          vuid::xgpuCmdSetWorkgroupMemorySize_commandBuffer_recording);
  if (!r) return;
  const uint32_t limit = device_limits(cb->device).maxWorkgroupMemorySize;
  if (dynamic_size > limit) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdSetWorkgroupMemorySize_dynamicSize,
                 "xgpuCmdSetWorkgroupMemorySize: dynamicSize (" + std::to_string(dynamic_size) +
                     ") exceeds limits.maxWorkgroupMemorySize (" + std::to_string(limit) + ")");
    return;
  }
  r->dynamic_group_size = dynamic_size;
  r->template_valid = false;
}

// Checks the bound state as prepare_dispatch does and, when it passes,
// builds the recorder's dispatch template from it: the command
// append_dispatch would write for it, with the per-dispatch fields left 0,
// and the kernargs with the static binding addresses in place.
[[gnu::noinline]] bool build_dispatch_template(CommandBuffer* cb, Recorder* r) {
  DispatchSpec spec;
  if (!prepare_dispatch(cb, r, kDispatchRules, &spec)) return false;
  const KernelInfo& kernel = *spec.kernel;
  bool prebuilt = !kernel.prints;  // printing kernels: per-submission kernargs (append_dispatch)
  bool slots = false;
  for (uint32_t i = 0; i < spec.patch_count; ++i) {
    prebuilt = prebuilt && ref_is_static(spec.ref(i));
    slots = slots || spec.ref(i).kind == XGPU_AMDGPU_BUFFER_REF_KIND_SLOT;
  }
  const uint32_t alignment = std::max<uint32_t>(kernel.kernarg_alignment, kMinKernargSegmentAlignment);
  const uint64_t base_size = sizeof(xgpu_amdgpu_command_dispatch_t);
  const uint64_t size =
      align_up(base_size + uint64_t(spec.patch_count) * sizeof(xgpu_amdgpu_kernarg_patch_t), kCommandAlignment);
  r->template_command.assign(size / sizeof(uint64_t), 0);
  auto* command = reinterpret_cast<xgpu_amdgpu_command_dispatch_t*>(r->template_command.data());
  command->header.type = XGPU_AMDGPU_COMMAND_DISPATCH;
  command->header.size = uint16_t(size);
  if (prebuilt) command->header.flags = XGPU_AMDGPU_COMMAND_FLAG_PREBUILT_KERNARGS;
  if (kernel.prints)
    command->header.flags = uint8_t(XGPU_AMDGPU_COMMAND_FLAG_PRINTS |
                                    (kernel.bounds_checked ? XGPU_AMDGPU_COMMAND_FLAG_BOUNDS_CHECKED : 0));
  r->template_kernarg_lead = kernarg_lead(kernel);
  xgpu_amdgpu_dispatch_t& d = command->dispatch;
  d.kernel_object = kernel.kernel_object;
  for (int i = 0; i < 3; ++i) d.workgroup_size[i] = uint16_t(spec.workgroup_size[i]);
  d.private_segment_size = kernel.private_segment_size;
  d.group_segment_size = kernel.group_segment_size + spec.dynamic_group_size;
  d.kernarg_size = kernel.kernarg_size;
  d.kernarg_alignment = alignment;
  d.patch_count = uint16_t(spec.patch_count);
  d.debug_name = uint64_t(reinterpret_cast<uintptr_t>(kernel.shown_name().c_str()));  // interned with the kernel
  auto* patches = reinterpret_cast<xgpu_amdgpu_kernarg_patch_t*>(reinterpret_cast<uint8_t*>(command) + base_size);
  r->template_kernargs.assign(kernel.kernarg_size, 0);
  for (uint32_t i = 0; i < spec.patch_count; ++i) {
    patches[i] = spec.patch(i);
    if (prebuilt) {
      const uint64_t value = static_patch_value(patches[i]);
      std::memcpy(r->template_kernargs.data() + patches[i].kernarg_offset, &value, sizeof(value));
    }
  }
  const uint32_t one[3] = {1, 1, 1};
  r->template_dimensions = dimensions_of(spec.workgroup_size, one);
  r->template_prebuilt = prebuilt;
  r->template_slots_noted = !slots;
  r->template_size = uint32_t(size);
  r->template_kernarg_size = kernel.kernarg_size;
  r->template_kernarg_alignment = alignment;
  r->template_arena_alignment = prebuilt ? alignment : std::max<uint32_t>(alignment, uint32_t(kRodataAlignment));
  r->template_constants_offset = spec.constants_offset;
  r->template_constants_size = spec.constants_size;
  r->template_valid = true;
  return true;
}

[[gnu::noinline, gnu::cold]] void report_group_count(CommandBuffer* cb, Recorder* r, uint32_t x, uint32_t y,
                                                     uint32_t z) {
  const XgpuPhysicalDeviceLimits& limits = *r->limits;
  const uint32_t counts[3] = {x, y, z};
  static const char* const kNames[3] = {"groupCountX", "groupCountY", "groupCountZ"};
  for (int d = 0; d < 3; ++d) {
    const uint32_t bound = r->max_workgroup_count[d];  // computed when the pipeline was bound
    if (counts[d] > bound) {
      record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdDispatch_groupCount,
                   std::string("xgpuCmdDispatch: ") + kNames[d] + " (" + std::to_string(counts[d]) +
                       ") exceeds the pipeline's maxWorkgroupCount[" + std::to_string(d) + "] (" +
                       std::to_string(bound) + ": limits.maxWorkgroupCount[" + std::to_string(d) + "] " +
                       std::to_string(limits.maxWorkgroupCount[d]) + ", limits.maxGridSize[" + std::to_string(d) +
                       "] " + std::to_string(limits.maxGridSize[d]) + " / workgroup size " +
                       std::to_string(r->pipeline->workgroup_size[d]) + ")");
      return;
    }
  }
}

// The first dispatch recorded from a template notes what its bindings need
// of their binding-table slots (later ones need nothing new).
[[gnu::noinline]] void note_template_slots(Recorder* r, uint32_t index) {
  DispatchSpec spec;
  spec.binding_refs = r->bindings.data();
  spec.patch_count = r->pipeline->binding_count;
  require_bindings(r, spec, index, "xgpuCmdDispatch");
  r->template_slots_noted = true;
}

// The bound state was checked when the template was built; what is left per
// dispatch is the counts, two bump allocations and two copies.
void XGPU_API_CALL cmd_dispatch(XgpuCommandBuffer handle, uint32_t x, uint32_t y, uint32_t z) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdDispatch", vuid::xgpuCmdDispatch_commandBuffer_recording);
  if (!r) return;
  if (!r->template_valid) [[unlikely]] {
    if (!build_dispatch_template(cb, r)) return;
  }
  if (x > r->max_workgroup_count[0] || y > r->max_workgroup_count[1] || z > r->max_workgroup_count[2])
      [[unlikely]] {
    report_group_count(cb, r, x, y, z);
    return;
  }
  if (x == 0 || y == 0 || z == 0) return;  // an empty dispatch does nothing
  const bool prebuilt = r->template_prebuilt;
  uint8_t* kernargs = arena_alloc(cb, r, prebuilt, r->template_kernarg_size, r->template_arena_alignment);
  if (!kernargs) return;
  const uint32_t size = r->template_size;
  if (r->block_cursor + size > r->block_limit) [[unlikely]] {
    if (!new_block(cb, r, size)) return;
  }
  auto* command = reinterpret_cast<xgpu_amdgpu_command_dispatch_t*>(r->block_cursor);
  r->block_cursor += size;
  std::memcpy(command, r->template_command.data(), size);
  if (const uint32_t bytes = r->template_kernarg_size) std::memcpy(kernargs, r->template_kernargs.data(), bytes);
  if (const uint32_t bytes = r->template_constants_size)
    std::memcpy(kernargs + r->template_constants_offset, r->pushed.data(), bytes);

  xgpu_amdgpu_command_header_t& header = command->header;
  const uint32_t index = r->command_count++;
  header.index = index;
  header.packet_offset = r->packet_count++;
  const bool barrier = r->barrier_pending;
  header.flags |= barrier ? uint8_t(XGPU_AMDGPU_COMMAND_FLAG_BARRIER) : uint8_t(0);
  r->barrier_pending = false;
  r->last_packet_has_barrier = barrier;
  xgpu_amdgpu_dispatch_t& d = command->dispatch;
  const uint64_t kernarg_address = uint64_t(reinterpret_cast<uintptr_t>(kernargs));
  d.kernarg_template = kernarg_address;
  if (prebuilt) {
    d.prebuilt_kernarg_address = kernarg_address;
  } else {
    const uint64_t offset = align_up(r->kernarg_bytes + r->template_kernarg_lead, r->template_kernarg_alignment);
    header.kernarg_offset = uint32_t(offset);
    r->kernarg_bytes = offset + r->template_kernarg_size;
    r->resolves_at_issue = true;
    r->prints |= r->template_kernarg_lead != 0;
  }
  d.workgroup_count[0] = x;
  d.workgroup_count[1] = y;
  d.workgroup_count[2] = z;
  const uint16_t count_dimensions = z > 1 ? 3 : y > 1 ? 2 : 1;
  d.dimensions = std::max(r->template_dimensions, count_dimensions);
  if (!r->template_slots_noted) [[unlikely]] note_template_slots(r, index);
}

void XGPU_API_CALL cmd_dispatch_indirect(XgpuCommandBuffer handle, const XgpuBufferRef* counts,
                                         XgpuDispatchIndirectFlags flags) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdDispatchIndirect", vuid::xgpuCmdDispatchIndirect_commandBuffer_recording);
  if (!r) return;
  const XgpuDispatchIndirectFlags mode =
      flags & (XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  if (mode != XGPU_DISPATCH_INDIRECT_STATIC_BIT && mode != XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdDispatchIndirect_flags,
                 "xgpuCmdDispatchIndirect: flags (" + hex(flags) +
                     ") must hold exactly one of XGPU_DISPATCH_INDIRECT_STATIC_BIT and "
                     "XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT");
    return;
  }
  if (flags & ~mode) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdDispatchIndirect_flags,
                 "xgpuCmdDispatchIndirect: flags (" + hex(flags) + ") holds unknown bits");
    return;
  }
  const bool dynamic = mode == XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT;
  constexpr uint64_t kCountsBytes = 3 * sizeof(uint32_t);
  RefRules rules{"xgpuCmdDispatchIndirect", "pCounts", XGPU_BUFFER_USAGE_INDIRECT_BIT,
                 "XGPU_BUFFER_USAGE_INDIRECT_BIT", sizeof(uint32_t), kCountsBytes};
  xgpu_amdgpu_buffer_ref_t counts_ref;
  if (!make_ref(cb, counts, rules, &counts_ref)) return;
  if (!dynamic && counts_ref.kind != XGPU_AMDGPU_BUFFER_REF_KIND_SLOT) {
    // STATIC counts are read on the host at issue (a slot's buffer is
    // checked at submit and at issue).
    uint32_t memory_type = 0;
    const XgpuMemoryPropertyFlags properties = buffer_memory_properties(buffer_info(counts->buffer), &memory_type);
    if (!(properties & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
      record_error(cb, XGPU_ERROR_INVALID_USAGE, vuid::xgpuCmdDispatchIndirect_static_hostVisible,
                   "xgpuCmdDispatchIndirect: pCounts->buffer has " + memory_type_string(memory_type, properties) +
                       ", which is not XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT; XGPU_DISPATCH_INDIRECT_STATIC_BIT "
                       "reads the counts on the host at issue (use XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT, or "
                       "host-visible memory)");
      return;
    }
  }
  DispatchSpec spec;
  if (!prepare_dispatch(cb, r, kDispatchIndirectRules, &spec)) return;
  spec.type = XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT;
  const KernelInfo* patch_kernel = nullptr;
  if (dynamic) {
    patch_kernel = builtin(cb, &DeviceLibrary::indirect_patch);
    if (!patch_kernel) {
      record_error(cb, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kDeviceLibrary,
                   "xgpuCmdDispatchIndirect: XGPU_DISPATCH_INDIRECT_DYNAMIC needs the device library's patch "
                   "kernel, which is not available for this device");
      return;
    }
    if (patch_kernel->kernarg_size != sizeof(xgpu_amdgpu_indirect_patch_args_t)) {
      record_error(cb, XGPU_ERROR_INITIALIZATION_FAILED, msgid::kDeviceLibrary,
                   "xgpuCmdDispatchIndirect: device-library kernel " + patch_kernel->name + " has " +
                       std::to_string(patch_kernel->kernarg_size) + " kernarg bytes; the ICD expects " +
                       std::to_string(sizeof(xgpu_amdgpu_indirect_patch_args_t)));
      return;
    }
  }
  const XgpuPhysicalDeviceLimits& limits = device_limits(cb->device);
  // Per submission after the dispatch's kernargs: DYNAMIC: the patch
  // kernel's arguments, then the error record; STATIC: the error record.
  constexpr uint64_t kRecordBytes = sizeof(xgpu_amdgpu_indirect_error_t);
  constexpr uint32_t kRecordAlignment = alignof(xgpu_amdgpu_indirect_error_t);
  uint32_t extra_offset = 0;
  auto* cmd = reinterpret_cast<xgpu_amdgpu_command_dispatch_indirect_t*>(append_dispatch(
      cb, r, spec, sizeof(xgpu_amdgpu_command_dispatch_indirect_t), dynamic ? 2 : 1,
      dynamic ? sizeof(xgpu_amdgpu_indirect_patch_args_t) + kRecordBytes : kRecordBytes,
      dynamic ? std::max<uint32_t>(patch_kernel->kernarg_alignment, kRecordAlignment) : kRecordAlignment,
      &extra_offset));
  if (!cmd) return;
  cmd->header.flags |= dynamic ? XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_DYNAMIC : XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_STATIC;
  if (!dynamic) r->reads_memory_at_issue = true;
  cmd->counts = counts_ref;
  cmd->extra_kernarg_offset = extra_offset;
  const uint32_t index = cmd->header.index;
  require_bindings(r, spec, index, "xgpuCmdDispatchIndirect");
  require_slot(r, counts_ref, index, XGPU_BUFFER_USAGE_INDIRECT_BIT, "xgpuCmdDispatchIndirect", "pCounts", 0,
               vuid::xgpuCmdDispatchIndirect_pCounts_usage);
  if (SlotRequirement* slot = dynamic ? nullptr : slot_requirement(r, counts_ref)) {
    if (!slot->host_visible) slot->host_visible_use = SlotUse{index, "xgpuCmdDispatchIndirect", "STATIC pCounts", 0};
    slot->host_visible = true;
  }
  for (int d = 0; d < 3; ++d) {
    cmd->max_workgroup_count[d] = max_workgroup_count(limits, spec.workgroup_size, d);
  }
  if (dynamic) {
    cmd->header.flags |= XGPU_AMDGPU_COMMAND_FLAG_BARRIER;  // the patch kernel waits for the counts' producer
    cmd->patch_kernel_object = patch_kernel->kernel_object;
    cmd->patch_private_segment_size = patch_kernel->private_segment_size;
    cmd->patch_group_segment_size = patch_kernel->group_segment_size;
    r->last_packet_has_barrier = true;  // the dispatch packet waits for the patch kernel
  } else {
    r->last_packet_has_barrier = cmd->header.flags & XGPU_AMDGPU_COMMAND_FLAG_BARRIER;
  }
}

void XGPU_API_CALL cmd_fill_buffer(XgpuCommandBuffer handle, const XgpuBufferRef* dst, const void* pattern,
                                   uint32_t pattern_size) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdFillBuffer", vuid::xgpuCmdFillBuffer_commandBuffer_recording);
  if (!r) return;
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdFillBuffer_patternSize,
                 "xgpuCmdFillBuffer: patternSize (" + std::to_string(pattern_size) + ") must be 1, 2 or 4");
    return;
  }
  if (!pattern) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdFillBuffer_pPattern_parameter,
                 "xgpuCmdFillBuffer: pPattern is NULL");
    return;
  }
  RefRules rules{"xgpuCmdFillBuffer", "pDst", XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                 "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT", pattern_size, 0, "-size"};
  xgpu_amdgpu_buffer_ref_t ref;
  if (!make_ref(cb, dst, rules, &ref)) return;
  if (ref.length != XGPU_AMDGPU_WHOLE_LENGTH && ref.length % pattern_size != 0) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdFillBuffer_pDst_size,
                 "xgpuCmdFillBuffer: the range's size (" + std::to_string(ref.length) +
                     ") is not a multiple of patternSize (" + std::to_string(pattern_size) + ")");
    return;
  }
  xgpu_amdgpu_fill_args_t args{};
  uint8_t bytes[4];
  std::memcpy(bytes, pattern, pattern_size);
  for (uint32_t i = pattern_size; i < 4; ++i) bytes[i] = bytes[i % pattern_size];
  std::memcpy(&args.pattern, bytes, sizeof(args.pattern));
  args.pattern_size = pattern_size;
  args.length = ref.length == XGPU_AMDGPU_WHOLE_LENGTH ? 0 : ref.length;
  const xgpu_amdgpu_kernarg_patch_t patches[2] = {
      make_patch(offsetof(xgpu_amdgpu_fill_args_t, dst), XGPU_AMDGPU_KERNARG_PATCH_ADDRESS, uint16_t(pattern_size),
                 ref),
      make_patch(offsetof(xgpu_amdgpu_fill_args_t, length), XGPU_AMDGPU_KERNARG_PATCH_LENGTH,
                 uint16_t(pattern_size), ref)};
  const uint32_t patch_count = ref.length == XGPU_AMDGPU_WHOLE_LENGTH ? 2 : 1;
  require_slot(r, ref, r->command_count, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, "xgpuCmdFillBuffer",
               "pDst", 0, vuid::xgpuCmdFillBuffer_pDst_usage);
  record_builtin(cb, r, XGPU_AMDGPU_COMMAND_FILL, builtin(cb, &DeviceLibrary::fill), "xgpuCmdFillBuffer", &args,
                 sizeof(args), XGPU_AMDGPU_TRANSFER_WORKGROUP_SIZE, transfer_workgroups(ref.length), patches,
                 patch_count, false);
}

// Whether two resolved-at-record ranges of one buffer overlap.
bool overlapping(const xgpu_amdgpu_buffer_ref_t& a, const xgpu_amdgpu_buffer_ref_t& b, uint64_t size) {
  if (a.kind == XGPU_AMDGPU_BUFFER_REF_KIND_SLOT || a.kind != b.kind || a.value != b.value) return false;
  return a.offset < b.offset + size && b.offset < a.offset + size;
}

void XGPU_API_CALL cmd_copy_buffer(XgpuCommandBuffer handle, const XgpuBufferRef* src, const XgpuBufferRef* dst,
                                   XgpuDeviceSize size) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdCopyBuffer", vuid::xgpuCmdCopyBuffer_commandBuffer_recording);
  if (!r) return;
  if (size == 0 || size == XGPU_WHOLE_SIZE) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdCopyBuffer_size,
                 "xgpuCmdCopyBuffer: size (" + size_string(size) + ") must be a byte count greater than 0");
    return;
  }
  RefRules src_rules{"xgpuCmdCopyBuffer", "pSrc", XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT,
                     "XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT", 1, size};
  RefRules dst_rules{"xgpuCmdCopyBuffer", "pDst", XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                     "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT", 1, size};
  xgpu_amdgpu_buffer_ref_t src_ref, dst_ref;
  if (!make_ref(cb, src, src_rules, &src_ref) || !make_ref(cb, dst, dst_rules, &dst_ref)) return;
  // The copy moves exactly `size` bytes from the start of each range.
  src_ref.length = dst_ref.length = size;
  if (overlapping(src_ref, dst_ref, size)) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdCopyBuffer_overlap,
                 "xgpuCmdCopyBuffer: the source (offset " + std::to_string(src_ref.offset) + ") and destination (offset " +
                     std::to_string(dst_ref.offset) + ") ranges of " + std::to_string(size) +
                     " bytes in the same buffer overlap");
    return;
  }
  xgpu_amdgpu_copy_args_t args{};
  args.length = size;
  const xgpu_amdgpu_kernarg_patch_t patches[2] = {
      make_patch(offsetof(xgpu_amdgpu_copy_args_t, src), XGPU_AMDGPU_KERNARG_PATCH_ADDRESS, 1, src_ref),
      make_patch(offsetof(xgpu_amdgpu_copy_args_t, dst), XGPU_AMDGPU_KERNARG_PATCH_ADDRESS, 1, dst_ref)};
  const uint32_t index = r->command_count;
  require_slot(r, src_ref, index, XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT, "xgpuCmdCopyBuffer", "pSrc", 0,
               vuid::xgpuCmdCopyBuffer_pSrc_usage);
  require_slot(r, dst_ref, index, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, "xgpuCmdCopyBuffer", "pDst", 0,
               vuid::xgpuCmdCopyBuffer_pDst_usage);
  record_builtin(cb, r, XGPU_AMDGPU_COMMAND_COPY, builtin(cb, &DeviceLibrary::copy), "xgpuCmdCopyBuffer", &args,
                 sizeof(args), XGPU_AMDGPU_TRANSFER_WORKGROUP_SIZE, transfer_workgroups(size), patches, 2, false);
}

void XGPU_API_CALL cmd_update_buffer(XgpuCommandBuffer handle, const XgpuBufferRef* dst, XgpuDeviceSize data_size,
                                     const void* data) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdUpdateBuffer", vuid::xgpuCmdUpdateBuffer_commandBuffer_recording);
  if (!r) return;
  if (data_size == 0 || data_size > kMaxUpdateSize) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdUpdateBuffer_dataSize,
                 "xgpuCmdUpdateBuffer: dataSize (" + std::to_string(data_size) + ") must be 1.." +
                     std::to_string(kMaxUpdateSize) + " bytes");
    return;
  }
  if (!data) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdUpdateBuffer_pData_parameter,
                 "xgpuCmdUpdateBuffer: pData is NULL");
    return;
  }
  RefRules rules{"xgpuCmdUpdateBuffer", "pDst", XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                 "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT", 1, data_size};
  xgpu_amdgpu_buffer_ref_t dst_ref;
  if (!make_ref(cb, dst, rules, &dst_ref)) return;
  dst_ref.length = data_size;
  xgpu_amdgpu_buffer_ref_t src_ref{};
  src_ref.kind = XGPU_AMDGPU_BUFFER_REF_KIND_CONCRETE;  // the payload's address in the read-only data
  src_ref.slot = XGPU_AMDGPU_NO_SLOT;
  src_ref.value = append_rodata(cb, r, data, data_size, kRodataAlignment);
  if (!src_ref.value) return;
  src_ref.length = data_size;
  xgpu_amdgpu_copy_args_t args{};
  args.length = data_size;
  const xgpu_amdgpu_kernarg_patch_t patches[2] = {
      make_patch(offsetof(xgpu_amdgpu_copy_args_t, src), XGPU_AMDGPU_KERNARG_PATCH_ADDRESS, 1, src_ref),
      make_patch(offsetof(xgpu_amdgpu_copy_args_t, dst), XGPU_AMDGPU_KERNARG_PATCH_ADDRESS, 1, dst_ref)};
  require_slot(r, dst_ref, r->command_count, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
               "xgpuCmdUpdateBuffer", "pDst", 0, vuid::xgpuCmdUpdateBuffer_pDst_usage);
  record_builtin(cb, r, XGPU_AMDGPU_COMMAND_UPDATE, builtin(cb, &DeviceLibrary::copy), "xgpuCmdUpdateBuffer", &args,
                 sizeof(args), XGPU_AMDGPU_TRANSFER_WORKGROUP_SIZE, transfer_workgroups(data_size), patches, 2,
                 false);
}

// Records a barrier after the stage masks were checked (drivers check that
// neither is 0: `src_rule` / `dst_rule`).
void record_barrier(CommandBuffer* cb, Recorder* r, const char* function, const char* src_rule, const char* dst_rule,
                    XgpuPipelineStageFlags src_stages, XgpuPipelineStageFlags dst_stages) {
  if (src_stages == 0 || dst_stages == 0) [[unlikely]] {
    const bool src = src_stages == 0;
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, src ? src_rule : dst_rule,
                 std::string(function) + ": " + (src ? "srcStageMask" : "dstStageMask") +
                     " is 0 (a barrier needs the stages it orders)");
    return;
  }
  // AQL orders whole packets: every barrier becomes the next packet's
  // barrier bit with agent-scope fences, whatever its stages and ranges.
  // Written whole (no zeroing pass): the struct has no padding.
  static_assert(sizeof(xgpu_amdgpu_command_barrier_t) % kCommandAlignment == 0);
  constexpr uint64_t kSize = sizeof(xgpu_amdgpu_command_barrier_t);
  if (r->block_cursor + kSize > r->block_limit) [[unlikely]] {
    if (!new_block(cb, r, kSize)) return;
  }
  xgpu_amdgpu_command_barrier_t cmd{};
  cmd.header.type = XGPU_AMDGPU_COMMAND_BARRIER;
  cmd.header.size = uint16_t(kSize);
  cmd.header.index = r->command_count++;
  cmd.header.packet_offset = r->packet_count;
  cmd.header.kernarg_offset = uint32_t(r->kernarg_bytes);
  cmd.src_stage_mask = src_stages;
  cmd.dst_stage_mask = dst_stages;
  std::memcpy(r->block_cursor, &cmd, kSize);
  r->block_cursor += kSize;
  r->barrier_pending = true;
}

void XGPU_API_CALL cmd_pipeline_barrier(XgpuCommandBuffer handle, XgpuPipelineStageFlags src_stages,
                                        XgpuPipelineStageFlags dst_stages, uint32_t, const XgpuMemoryBarrier*,
                                        uint32_t buffer_barrier_count,
                                        const XgpuBufferMemoryBarrier* buffer_barriers) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdPipelineBarrier", vuid::xgpuCmdPipelineBarrier_commandBuffer_recording);
  if (!r) return;
  // Buffer barriers widen to all memory, but their references must still be
  // well formed (drivers check -kind and -bindingSlot).
  const RefRules rules{"xgpuCmdPipelineBarrier", "pBufferBarriers", 0, "", 1, 0, "-range", "pBufferBarriers-buffer",
                       ".buffer"};
  for (uint32_t i = 0; i < buffer_barrier_count && buffer_barriers; ++i) {
    xgpu_amdgpu_buffer_ref_t ref;
    if (!make_ref(cb, &buffer_barriers[i].buffer, rules, &ref, i)) return;
  }
  record_barrier(cb, r, "xgpuCmdPipelineBarrier", vuid::xgpuCmdPipelineBarrier_srcStageMask,
                 vuid::xgpuCmdPipelineBarrier_dstStageMask, src_stages, dst_stages);
}

void XGPU_API_CALL cmd_memory_barrier(XgpuCommandBuffer handle, XgpuPipelineStageFlags src_stages, XgpuAccessFlags,
                                      XgpuPipelineStageFlags dst_stages, XgpuAccessFlags) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdMemoryBarrier", vuid::xgpuCmdMemoryBarrier_commandBuffer_recording);
  if (!r) return;
  record_barrier(cb, r, "xgpuCmdMemoryBarrier", vuid::xgpuCmdMemoryBarrier_srcStageMask,
                 vuid::xgpuCmdMemoryBarrier_dstStageMask, src_stages, dst_stages);
}

void record_label(CommandBuffer* cb, Recorder* r, uint32_t op, const XgpuDebugLabel* label) {
  uint64_t name = 0;
  if (label && label->pLabelName) {
    name = append_rodata(cb, r, label->pLabelName, std::strlen(label->pLabelName) + 1, 1);
    if (!name) return;
  }
  auto* cmd = append_command<xgpu_amdgpu_command_debug_label_t>(cb, r, XGPU_AMDGPU_COMMAND_DEBUG_LABEL,
                                                                sizeof(xgpu_amdgpu_command_debug_label_t));
  if (!cmd) return;
  cmd->header.packet_offset = r->packet_count;
  cmd->header.kernarg_offset = uint32_t(r->kernarg_bytes);
  cmd->op = op;
  cmd->name = name;
  if (label) std::memcpy(cmd->color, label->color, sizeof(cmd->color));
}

void XGPU_API_CALL cmd_begin_debug_label(XgpuCommandBuffer handle, const XgpuDebugLabel* label) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdBeginDebugLabel", vuid::xgpuCmdBeginDebugLabel_commandBuffer_recording);
  if (!r) return;
  ++r->label_depth;
  record_label(cb, r, XGPU_AMDGPU_DEBUG_LABEL_BEGIN, label);
}

void XGPU_API_CALL cmd_end_debug_label(XgpuCommandBuffer handle) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdEndDebugLabel", vuid::xgpuCmdEndDebugLabel_commandBuffer_recording);
  if (!r) return;
  if (r->label_depth == 0) {
    record_error(cb, XGPU_ERROR_INVALID_USAGE, vuid::xgpuCmdEndDebugLabel_open,
                 "xgpuCmdEndDebugLabel: no debug label is open (xgpuCmdBeginDebugLabel)");
    return;
  }
  --r->label_depth;
  record_label(cb, r, XGPU_AMDGPU_DEBUG_LABEL_END, nullptr);
}

void XGPU_API_CALL cmd_insert_debug_label(XgpuCommandBuffer handle, const XgpuDebugLabel* label) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdInsertDebugLabel", vuid::xgpuCmdInsertDebugLabel_commandBuffer_recording);
  if (!r) return;
  record_label(cb, r, XGPU_AMDGPU_DEBUG_LABEL_INSERT, label);
}

void XGPU_API_CALL cmd_write_timestamp(XgpuCommandBuffer handle, XgpuPipelineStageFlagBits stage,
                                       const XgpuBufferRef* dst) {
  CommandBuffer* cb = from_handle(handle);
  Recorder* r = recording(cb, "xgpuCmdWriteTimestamp", vuid::xgpuCmdWriteTimestamp_commandBuffer_recording);
  if (!r) return;
  constexpr uint32_t kTimestampStages = XGPU_PIPELINE_STAGE_INDIRECT_BIT | XGPU_PIPELINE_STAGE_DISPATCH_BIT |
                                        XGPU_PIPELINE_STAGE_TRANSFER_BIT | XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  const uint32_t stage_bits = uint32_t(stage);
  if (stage_bits == 0 || (stage_bits & (stage_bits - 1)) != 0 || (stage_bits & ~kTimestampStages) != 0) {
    record_error(cb, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCmdWriteTimestamp_stage,
                 "xgpuCmdWriteTimestamp: stage (" + hex(stage_bits) +
                     ") is not exactly one of XGPU_PIPELINE_STAGE_INDIRECT_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT, "
                     "XGPU_PIPELINE_STAGE_TRANSFER_BIT and XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT");
    return;
  }
  constexpr uint64_t kTimestampBytes = sizeof(uint64_t);
  RefRules rules{"xgpuCmdWriteTimestamp", "pDst", XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                 "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT", kTimestampBytes, kTimestampBytes};
  xgpu_amdgpu_buffer_ref_t ref;
  if (!make_ref(cb, dst, rules, &ref)) return;
  xgpu_amdgpu_timestamp_args_t args{};
  const xgpu_amdgpu_kernarg_patch_t patch =
      make_patch(offsetof(xgpu_amdgpu_timestamp_args_t, dst), XGPU_AMDGPU_KERNARG_PATCH_ADDRESS,
                 uint16_t(kTimestampBytes), ref);
  require_slot(r, ref, r->command_count, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
               "xgpuCmdWriteTimestamp", "pDst", 0, vuid::xgpuCmdWriteTimestamp_pDst_usage);
  // Written when every earlier command completed (barrier bit), whatever
  // the stage: AQL has no finer point to sample.
  record_builtin(cb, r, XGPU_AMDGPU_COMMAND_TIMESTAMP, builtin(cb, &DeviceLibrary::timestamp), "xgpuCmdWriteTimestamp",
                 &args, sizeof(args), 1, 1, &patch, 1, true);
}

struct NamedFunction {
  const char* name;               // API name
  PFN_xgpuVoidFunction function;  // implementation
};

// The static_cast checks each implementation against the registry's PFN
// type; EntryGuard keeps C++ exceptions from crossing the C API.
#define XGPU_AMDGPU_ENTRY(name, function) \
  {"xgpu" #name, reinterpret_cast<PFN_xgpuVoidFunction>(static_cast<PFN_xgpu##name>(&EntryGuard<&function>::call))}
const NamedFunction kEntryPoints[] = {
    XGPU_AMDGPU_ENTRY(CreateCommandBuffer, create_command_buffer),
    XGPU_AMDGPU_ENTRY(DestroyCommandBuffer, destroy_command_buffer),
    XGPU_AMDGPU_ENTRY(BeginCommandBuffer, begin_command_buffer),
    XGPU_AMDGPU_ENTRY(EndCommandBuffer, end_command_buffer),
    XGPU_AMDGPU_ENTRY(CmdBindPipeline, cmd_bind_pipeline),
    XGPU_AMDGPU_ENTRY(CmdPushConstants, cmd_push_constants),
    XGPU_AMDGPU_ENTRY(CmdBindBuffers, cmd_bind_buffers),
    XGPU_AMDGPU_ENTRY(CmdSetWorkgroupMemorySize, cmd_set_workgroup_memory_size),
    XGPU_AMDGPU_ENTRY(CmdDispatch, cmd_dispatch),
    XGPU_AMDGPU_ENTRY(CmdDispatchIndirect, cmd_dispatch_indirect),
    XGPU_AMDGPU_ENTRY(CmdFillBuffer, cmd_fill_buffer),
    XGPU_AMDGPU_ENTRY(CmdCopyBuffer, cmd_copy_buffer),
    XGPU_AMDGPU_ENTRY(CmdUpdateBuffer, cmd_update_buffer),
    XGPU_AMDGPU_ENTRY(CmdPipelineBarrier, cmd_pipeline_barrier),
    XGPU_AMDGPU_ENTRY(CmdMemoryBarrier, cmd_memory_barrier),
    XGPU_AMDGPU_ENTRY(CmdBeginDebugLabel, cmd_begin_debug_label),
    XGPU_AMDGPU_ENTRY(CmdEndDebugLabel, cmd_end_debug_label),
    XGPU_AMDGPU_ENTRY(CmdInsertDebugLabel, cmd_insert_debug_label),
    XGPU_AMDGPU_ENTRY(CmdWriteTimestamp, cmd_write_timestamp),
};
#undef XGPU_AMDGPU_ENTRY


}  // namespace

// ---------------------------------------------------------------------------
// Seam: commands half.

PFN_xgpuVoidFunction commands_get_proc_addr(const char* name) {
  if (!name) return nullptr;
  for (const NamedFunction& entry : kEntryPoints)
    if (std::strcmp(entry.name, name) == 0) return entry.function;
  return nullptr;
}

void command_buffer_note_exception(XgpuCommandBuffer handle) noexcept {
  CommandBuffer* cb = from_handle(handle);
  if (!cb) return;
  if (cb->first_error == XGPU_SUCCESS) cb->first_error = XGPU_ERROR_OUT_OF_HOST_MEMORY;
  try {
    device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kOutOfHostMemory,
                  "recording: a host allocation failed: the recording fails with XGPU_ERROR_OUT_OF_HOST_MEMORY",
                  {{XGPU_OBJECT_TYPE_COMMAND_BUFFER, uint64_t(reinterpret_cast<uintptr_t>(cb))}});
  } catch (const std::exception&) {
    // No memory for the message either: the result says it.
  }
}

Device* command_buffer_device(const CommandBuffer* command_buffer) {
  return command_buffer ? command_buffer->device : nullptr;
}

Device* command_buffer_live_device(XgpuCommandBuffer handle) {
  std::shared_lock lock(g_live_command_buffers_mutex);
  const auto found = g_live_command_buffers.find(from_handle(handle));
  return found == g_live_command_buffers.end() ? nullptr : found->second;
}

XgpuResult command_buffer_acquire_for_submit(CommandBuffer* cb, std::string* out_error, const char** out_id) {
  std::lock_guard<std::mutex> lock(cb->submit_mutex);
  if (cb->state != CommandBufferState::kExecutable) {
    if (out_error)
      *out_error = cb->state == CommandBufferState::kRecording
                       ? "the command buffer is still recording (call xgpuEndCommandBuffer)"
                       : "the command buffer is not executable (never ended, or its recording failed)";
    if (out_id) *out_id = vuid::xgpuQueueSubmit_pSubmits_commandBuffer_state;
    return XGPU_ERROR_INVALID_USAGE;
  }
  if (cb->mode == XGPU_COMMAND_BUFFER_MODE_ONE_SHOT && cb->submitted_once) {
    if (out_error) *out_error = "the one-shot command buffer was already submitted since it was begun";
    if (out_id) *out_id = vuid::xgpuQueueSubmit_pSubmits_commandBuffer_oneShot;
    return XGPU_ERROR_INVALID_USAGE;
  }
  cb->submitted_once = true;
  cb->pending.fetch_add(1, std::memory_order_acq_rel);
  return XGPU_SUCCESS;
}

IssueSizes command_buffer_issue_sizes(const CommandBuffer* cb) { return cb->program.sizes; }

XgpuResult command_buffer_issue(const CommandBuffer* cb, IssueTarget& target) {
  if (cb->pending.load(std::memory_order_acquire) & kDestroyedWhilePending) {
    if (target.out_error)
      *target.out_error = "the command buffer was destroyed (xgpuDestroyCommandBuffer) while this submission was "
                          "pending";
    if (target.out_error_id) *target.out_error_id = vuid::xgpuDestroyCommandBuffer_commandBuffer_pending;
    return XGPU_ERROR_INVALID_USAGE;
  }
  return issue_program(*cb, target);
}

void command_buffer_release_after_submit(CommandBuffer* cb) {
  if (!cb) return;
  // A one-shot buffer's only submission completed: its memory goes back to
  // the pool now (before `pending` drops, so a Begin that sees 0 finds it
  // released). The slot requirements stay: xgpuQueueSubmit may still read
  // them to refuse a second submission.
  if (cb->mode == XGPU_COMMAND_BUFFER_MODE_ONE_SHOT && cb->pending.load(std::memory_order_acquire) == 1)
    release_program_memory(cb);
  if (cb->pending.fetch_sub(1, std::memory_order_acq_rel) == (kDestroyedWhilePending | 1)) free_command_buffer(cb);
}

void command_buffer_cancel_submit(CommandBuffer* cb) {
  if (!cb) return;
  uint32_t before = 0;
  {
    std::lock_guard<std::mutex> lock(cb->submit_mutex);
    before = cb->pending.fetch_sub(1, std::memory_order_acq_rel);
    if (before == 1) cb->submitted_once = false;
  }
  if (before == (kDestroyedWhilePending | 1)) free_command_buffer(cb);
}

XgpuResult command_buffer_check_binding_usage(const CommandBuffer* cb, const XgpuBufferBinding* bindings,
                                              uint32_t count, std::string* out_error, const char** out_id) {
  const std::vector<SlotRequirement>& slots = cb->program.slots;
  const uint32_t checked = std::min<uint32_t>(count, uint32_t(slots.size()));
  for (uint32_t j = 0; j < checked && bindings; ++j) {
    const SlotRequirement& slot = slots[j];
    const BufferInfo* buffer = buffer_info(bindings[j].buffer);
    if (!buffer || (slot.usage == 0 && !slot.host_visible)) continue;
    const std::string where = "pBindings[" + std::to_string(j) + "] (binding-table slot " + std::to_string(j) + ")";
    const XgpuBufferUsageFlags missing = slot.usage & ~buffer->usage;
    if (missing) {
      const XgpuBufferUsageFlags lowest = missing & (~missing + 1);
      const uint32_t bit = usage_index(lowest);
      if (out_error)
        *out_error = where + ": the command buffer requires usage " + usage_string(slot.usage) +
                     " of the slot; the buffer was created with usage " + usage_string(buffer->usage) +
                     ", without " + xgpuBufferUsageFlagBitsString(XgpuBufferUsageFlagBits(lowest)) + ", which " +
                     slot_use_string(slot.use[bit]) + " needs (" + slot.vuid[bit] + ")";
      if (out_id) *out_id = vuid::xgpuQueueSubmit_pSubmits_pBindings_usage;
      return XGPU_ERROR_INVALID_USAGE;
    }
    if (slot.host_visible) {
      uint32_t memory_type = 0;
      const XgpuMemoryPropertyFlags properties = buffer_memory_properties(buffer, &memory_type);
      if (!(properties & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
        if (out_error)
          *out_error = where + ": the buffer has " + memory_type_string(memory_type, properties) +
                       ", which is not XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT, and " + slot_use_string(slot.host_visible_use) +
                       " reads its counts on the host at issue";
        if (out_id) *out_id = vuid::xgpuCmdDispatchIndirect_static_hostVisible;
        return XGPU_ERROR_INVALID_USAGE;
      }
    }
  }
  return XGPU_SUCCESS;
}

}  // namespace xgpu::amdgpu
