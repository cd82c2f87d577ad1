// The argument checks the command-buffer files make themselves (each
// reports its VUID, or the driver's message ID): references and bound state
// at record time, the binding table's buffers at submit.
#include <cassert>
#include "command_buffer_internal.h"

#include "xgpu/xgpu_enum_string.h"

namespace xgpu::amdgpu {
namespace command_buffer_impl {

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

[[gnu::noinline, gnu::cold]] Recorder* not_recording(CommandBuffer* cb, const char* function,
                                                      const char* recording_vuid) {
  device_report(cb->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, recording_vuid,
                std::string(function) + ": commandBuffer is not in the recording state (call xgpuBeginCommandBuffer)");
  if (cb->first_error == XGPU_SUCCESS) cb->first_error = XGPU_ERROR_INVALID_USAGE;
  return nullptr;
}

// `index` >= 0 names an element of an array parameter in messages.
bool make_ref(CommandBuffer* cb, const XgpuBufferRef* in, const RefRules& rules, xgpu_amdgpu_buffer_ref_t* out,
              int64_t index) {
  // Messages (and the VUIDs they carry) are built only when a check fails.
  // `field` is the member the message names ("" for the whole reference).
  const RefVuids& id = rules.vuids;
  auto fail = [&](const char* vuid, const char* field, const std::string& what,
                  XgpuResult result = XGPU_ERROR_INVALID_ARGUMENT) {
    assert(vuid != nullptr && "make_ref reported a rule its RefRules say cannot fail");
    std::string where = rules.parameter;
    if (index >= 0) where += "[" + std::to_string(index) + "]" + rules.member;
    if (*field) where += (index >= 0 ? "." : "->") + std::string(field);
    record_error(cb, result, vuid, std::string(rules.function) + ": " + where + what);
    return false;
  };
  if (!in) return fail(id.parameter, "", " is NULL");
  *out = xgpu_amdgpu_buffer_ref_t{};
  out->offset = in->offset;
  out->length = in->size == XGPU_WHOLE_SIZE ? XGPU_AMDGPU_WHOLE_LENGTH : in->size;
  switch (in->kind) {
    case XGPU_BUFFER_REF_KIND_BUFFER:
      if (in->buffer == XGPU_NULL_HANDLE)
        return fail(id.kind, "buffer",
                    " is XGPU_NULL_HANDLE in a reference of kind XGPU_BUFFER_REF_KIND_BUFFER (a zero-initialized "
                    "XgpuBufferRef names no buffer; build one with xgpuBufferRefWhole, xgpuBufferRefRange or "
                    "xgpuBufferRefSlot)");
      if (in->bindingSlot != 0)
        return fail(id.kind, "bindingSlot",
                    " is " + std::to_string(in->bindingSlot) +
                        " in a reference of kind XGPU_BUFFER_REF_KIND_BUFFER (must be 0; a binding-table slot needs "
                        "kind XGPU_BUFFER_REF_KIND_BINDING_SLOT)");
      break;
    case XGPU_BUFFER_REF_KIND_BINDING_SLOT:
      if (in->buffer != XGPU_NULL_HANDLE)
        return fail(id.kind, "buffer",
                    " is set in a reference of kind XGPU_BUFFER_REF_KIND_BINDING_SLOT (must be XGPU_NULL_HANDLE: "
                    "each submission's binding table gives the buffer)");
      break;
    default:
      return fail(id.kind_parameter, "kind",
                  " (" + std::to_string(uint32_t(in->kind)) + ") is not an XgpuBufferRefKind value");
  }
  if (in->offset % rules.alignment != 0)
    return fail(id.offset, "offset",
                " (" + std::to_string(in->offset) + ") is not a multiple of " + std::to_string(rules.alignment));
  if (in->size != XGPU_WHOLE_SIZE && (in->size == 0 || in->size < rules.min_size))
    return fail(id.size, "size",
                " (" + std::to_string(in->size) + ") must be at least " +
                    std::to_string(std::max<uint64_t>(rules.min_size, 1)) + " bytes");
  if (in->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT) {
    if (in->bindingSlot >= cb->binding_capacity)
      return fail(id.binding_slot, "bindingSlot",
                  " (" + std::to_string(in->bindingSlot) + ") is not less than the command buffer's bindingCapacity (" +
                      std::to_string(cb->binding_capacity) + ")");
    out->kind = XGPU_AMDGPU_BUFFER_REF_KIND_SLOT;
    out->slot = in->bindingSlot;
    return true;
  }
  BufferInfo* buffer = buffer_info(in->buffer);
  if (!buffer) return fail(id.buffer_parameter, "buffer", " is not a buffer");
  if (rules.usage && (buffer->usage & rules.usage) != rules.usage)
    return fail(id.usage, "buffer",
                " was not created with " + std::string(rules.usage_name) + " (usage " + hex(buffer->usage) + ")",
                XGPU_ERROR_INVALID_USAGE);
  const uint64_t length = in->size == XGPU_WHOLE_SIZE ? buffer->size - std::min(in->offset, buffer->size) : in->size;
  if (in->offset >= buffer->size || length > buffer->size - in->offset || length < rules.min_size)
    return fail(id.range, "",
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

}  // namespace command_buffer_impl

using namespace command_buffer_impl;

XgpuResult command_buffer_check_binding_usage(const CommandBuffer* cb, const XgpuBufferBinding* bindings,
                                              uint32_t count, std::string* out_error, const char** out_id) {
  const std::vector<SlotRequirement>& slots = cb->program.slots;
  const uint32_t checked = std::min<uint32_t>(count, uint32_t(slots.size()));
  for (uint32_t j = 0; j < checked && bindings; ++j) {
    const SlotRequirement& slot = slots[j];
    const BufferInfo* buffer = buffer_info(bindings[j].buffer);
    if (!buffer || (slot.usage == 0 && !slot.host_visible)) continue;
    // Composed only for a message: this runs at every submit.
    auto where = [j] { return "pBindings[" + std::to_string(j) + "] (binding-table slot " + std::to_string(j) + ")"; };
    const XgpuBufferUsageFlags missing = slot.usage & ~buffer->usage;
    if (missing) {
      const XgpuBufferUsageFlags lowest = missing & (~missing + 1);
      const uint32_t bit = usage_index(lowest);
      if (out_error)
        *out_error = where() + ": the command buffer requires usage " + usage_string(slot.usage) +
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
          *out_error = where() + ": the buffer has " + memory_type_string(memory_type, properties) +
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
