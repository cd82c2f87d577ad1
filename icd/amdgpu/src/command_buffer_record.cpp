// The xgpuCmd* entry points: each checks its arguments and the recording
// state and writes its command in place (command_buffer_encode.cpp).
#include "command_buffer_internal.h"

namespace xgpu::amdgpu {
namespace command_buffer_impl {

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
  const RefRules rules{"xgpuCmdBindBuffers",
                       "pBuffers",
                       XGPU_BUFFER_USAGE_STORAGE_BIT,
                       "XGPU_BUFFER_USAGE_STORAGE_BIT",
                       alignment,
                       0,
                       {vuid::xgpuCmdBindBuffers_pBuffers_parameter, vuid::xgpuCmdBindBuffers_pBuffers_kind,
                        vuid::xgpuCmdBindBuffers_pBuffers_kind_parameter, vuid::xgpuCmdBindBuffers_pBuffers_offset,
                        vuid::xgpuCmdBindBuffers_pBuffers_range, vuid::xgpuCmdBindBuffers_pBuffers_bindingSlot,
                        vuid::xgpuCmdBindBuffers_pBuffers_buffer_parameter, vuid::xgpuCmdBindBuffers_pBuffers_usage,
                        vuid::xgpuCmdBindBuffers_pBuffers_range}};
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
  const RefRules rules{
      "xgpuCmdDispatchIndirect",
      "pCounts",
      XGPU_BUFFER_USAGE_INDIRECT_BIT,
      "XGPU_BUFFER_USAGE_INDIRECT_BIT",
      sizeof(uint32_t),
      kCountsBytes,
      {vuid::xgpuCmdDispatchIndirect_pCounts_parameter, vuid::xgpuCmdDispatchIndirect_pCounts_kind,
       vuid::xgpuCmdDispatchIndirect_pCounts_kind_parameter, vuid::xgpuCmdDispatchIndirect_pCounts_offset,
       vuid::xgpuCmdDispatchIndirect_pCounts_range, vuid::xgpuCmdDispatchIndirect_pCounts_bindingSlot,
       vuid::xgpuCmdDispatchIndirect_pCounts_buffer_parameter, vuid::xgpuCmdDispatchIndirect_pCounts_usage,
       vuid::xgpuCmdDispatchIndirect_pCounts_range}};
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
  const RefRules rules{"xgpuCmdFillBuffer",
                       "pDst",
                       XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                       "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT",
                       pattern_size,
                       0,
                       {vuid::xgpuCmdFillBuffer_pDst_parameter, vuid::xgpuCmdFillBuffer_pDst_kind,
                        vuid::xgpuCmdFillBuffer_pDst_kind_parameter, vuid::xgpuCmdFillBuffer_pDst_offset,
                        vuid::xgpuCmdFillBuffer_pDst_size, vuid::xgpuCmdFillBuffer_pDst_bindingSlot,
                        vuid::xgpuCmdFillBuffer_pDst_buffer_parameter, vuid::xgpuCmdFillBuffer_pDst_usage,
                        vuid::xgpuCmdFillBuffer_pDst_range}};
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
  // (Offsets of any alignment: no -offset rule.)
  const RefRules src_rules{"xgpuCmdCopyBuffer",
                           "pSrc",
                           XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           "XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT",
                           1,
                           size,
                           {vuid::xgpuCmdCopyBuffer_pSrc_parameter, vuid::xgpuCmdCopyBuffer_pSrc_kind,
                            vuid::xgpuCmdCopyBuffer_pSrc_kind_parameter, nullptr, vuid::xgpuCmdCopyBuffer_pSrc_range,
                            vuid::xgpuCmdCopyBuffer_pSrc_bindingSlot, vuid::xgpuCmdCopyBuffer_pSrc_buffer_parameter,
                            vuid::xgpuCmdCopyBuffer_pSrc_usage, vuid::xgpuCmdCopyBuffer_pSrc_range}};
  const RefRules dst_rules{"xgpuCmdCopyBuffer",
                           "pDst",
                           XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                           "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT",
                           1,
                           size,
                           {vuid::xgpuCmdCopyBuffer_pDst_parameter, vuid::xgpuCmdCopyBuffer_pDst_kind,
                            vuid::xgpuCmdCopyBuffer_pDst_kind_parameter, nullptr, vuid::xgpuCmdCopyBuffer_pDst_range,
                            vuid::xgpuCmdCopyBuffer_pDst_bindingSlot, vuid::xgpuCmdCopyBuffer_pDst_buffer_parameter,
                            vuid::xgpuCmdCopyBuffer_pDst_usage, vuid::xgpuCmdCopyBuffer_pDst_range}};
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
  // (Offsets of any alignment: no -offset rule.)
  const RefRules rules{"xgpuCmdUpdateBuffer",
                       "pDst",
                       XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                       "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT",
                       1,
                       data_size,
                       {vuid::xgpuCmdUpdateBuffer_pDst_parameter, vuid::xgpuCmdUpdateBuffer_pDst_kind,
                        vuid::xgpuCmdUpdateBuffer_pDst_kind_parameter, nullptr, vuid::xgpuCmdUpdateBuffer_pDst_range,
                        vuid::xgpuCmdUpdateBuffer_pDst_bindingSlot, vuid::xgpuCmdUpdateBuffer_pDst_buffer_parameter,
                        vuid::xgpuCmdUpdateBuffer_pDst_usage, vuid::xgpuCmdUpdateBuffer_pDst_range}};
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
  // (Never NULL, any offset, no usage: no -parameter, -offset or -usage
  // rule; the implicit rules are the member's, pBufferBarriers-buffer-*.)
  const RefRules rules{
      "xgpuCmdPipelineBarrier",
      "pBufferBarriers",
      0,
      "",
      1,
      0,
      {nullptr, vuid::xgpuCmdPipelineBarrier_pBufferBarriers_kind,
       vuid::xgpuCmdPipelineBarrier_pBufferBarriers_buffer_kind_parameter, nullptr,
       vuid::xgpuCmdPipelineBarrier_pBufferBarriers_range, vuid::xgpuCmdPipelineBarrier_pBufferBarriers_bindingSlot,
       vuid::xgpuCmdPipelineBarrier_pBufferBarriers_buffer_buffer_parameter, nullptr,
       vuid::xgpuCmdPipelineBarrier_pBufferBarriers_range},
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
  const RefRules rules{"xgpuCmdWriteTimestamp",
                       "pDst",
                       XGPU_BUFFER_USAGE_TRANSFER_DST_BIT,
                       "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT",
                       kTimestampBytes,
                       kTimestampBytes,
                       {vuid::xgpuCmdWriteTimestamp_pDst_parameter, vuid::xgpuCmdWriteTimestamp_pDst_kind,
                        vuid::xgpuCmdWriteTimestamp_pDst_kind_parameter, vuid::xgpuCmdWriteTimestamp_pDst_offset,
                        vuid::xgpuCmdWriteTimestamp_pDst_range, vuid::xgpuCmdWriteTimestamp_pDst_bindingSlot,
                        vuid::xgpuCmdWriteTimestamp_pDst_buffer_parameter, vuid::xgpuCmdWriteTimestamp_pDst_usage,
                        vuid::xgpuCmdWriteTimestamp_pDst_range}};
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

}  // namespace command_buffer_impl
}  // namespace xgpu::amdgpu
