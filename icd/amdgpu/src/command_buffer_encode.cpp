// Writing encoded commands (spec/command-buffer-format.md) in place into
// the program's pooled command blocks, its read-only data and its prebuilt
// kernargs: the part of recording every xgpuCmd* shares.
#include "command_buffer_internal.h"

namespace xgpu::amdgpu {
namespace command_buffer_impl {

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

bool ref_is_static(const xgpu_amdgpu_buffer_ref_t& ref) {
  return ref.kind == XGPU_AMDGPU_BUFFER_REF_KIND_CONCRETE || ref.kind == XGPU_AMDGPU_BUFFER_REF_KIND_RODATA;
}

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

// Bit position of a single usage bit (index into SlotRequirement arrays).
uint32_t usage_index(XgpuBufferUsageFlags bit) {
  uint32_t index = 0;
  while (index + 1 < kBufferUsageBitCount && (bit >> index) != 1u) ++index;
  return index;
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

// The first dispatch recorded from a template notes what its bindings need
// of their binding-table slots (later ones need nothing new).
[[gnu::noinline]] void note_template_slots(Recorder* r, uint32_t index) {
  DispatchSpec spec;
  spec.binding_refs = r->bindings.data();
  spec.patch_count = r->pipeline->binding_count;
  require_bindings(r, spec, index, "xgpuCmdDispatch");
  r->template_slots_noted = true;
}

}  // namespace command_buffer_impl
}  // namespace xgpu::amdgpu
