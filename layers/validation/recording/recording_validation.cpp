#include "recording_validation.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "../chassis/object_map.h"
#include "../hazards/hazards.h"
#include "recording_rules.h"

namespace xgpu_validation {
namespace {

// "XGPU_BUFFER_USAGE_STORAGE_BIT | ..." for messages.
std::string UsageText(uint32_t usage) {
  if (usage == 0) return "0";
  std::string text;
  for (const BitName& bit : kBitNamesXgpuBufferUsageFlagBits) {
    if ((usage & bit.bit) == 0) continue;
    if (!text.empty()) text += " | ";
    text += bit.name;
    usage &= ~bit.bit;
  }
  if (usage != 0) text += (text.empty() ? "" : " | ") + hex(usage);
  return text;
}

ObjectRef RefOf(const ObjectRecord* record) { return ObjectRef{record->type, record->handle}; }

// "XgpuCommandBuffer 0x.. \"name\"" of the call (its value in bound-state messages).
std::string Self(const CallContext& ctx) { return Describe(ctx.dispatch_record); }

// The queue-capability rule of a recording command: the command buffer's
// queue family (pCreateInfo->queueFamilyIndex) has `bit`. Returns whether the
// call must be skipped.
[[gnu::cold]] bool ReportQueueFamily(CallContext& ctx, const char* bit_name, Vuid vuid, XgpuQueueFlags flags) {
  const ObjectRecord* record = ctx.dispatch_record;
  return ctx.Report(vuid, Field{"commandBuffer"},
                    Self(ctx) + ", created for queue family " + std::to_string(record->queue_family) +
                        " (queueFlags " + hex(flags) + "), which has no " + bit_name);
}

// The queue flags of the family the call's command buffer was created for,
// or nullptr when the command buffer or its family is unknown.
const XgpuQueueFlags* FamilyFlagsOf(const CallContext& ctx) {
  const ObjectRecord* record = ctx.dispatch_record;
  if (record == nullptr || ctx.device == nullptr || record->queue_family >= ctx.device->families.size()) return nullptr;
  return &ctx.device->families[record->queue_family].queueFlags;
}

bool CheckQueueFamily(CallContext& ctx, XgpuQueueFlagBits bit, const char* bit_name, Vuid vuid) {
  const XgpuQueueFlags* flags = FamilyFlagsOf(ctx);
  if (flags == nullptr || (*flags & bit) != 0) [[likely]] return false;
  return ReportQueueFamily(ctx, bit_name, vuid, *flags);
}

// Text of a field of a reference: "pDst" + "->offset", or "pBuffers[i]" + ".offset".
std::string Member(const char* field, const char* member) {
  std::string text = field;
  text += text.back() == ']' ? "." : "->";
  return text + member;
}

// Checks the reference `ref` (`field` of the call, index i) against `rule`,
// needing `min_size` bytes (0: any range inside the buffer, 1: a non-empty
// one) at a resolved offset that is a multiple of `alignment`. Returns
// whether the call must be skipped.
bool CheckRef(CallContext& ctx, const RecordingState& recording, const XgpuBufferRef* ref, uint64_t i,
              const RefRule& rule, uint64_t min_size, uint64_t alignment) {
  if (!IsUsablePointer(ref)) return false;  // the stateless checks report it
  bool skip = false;
  if (ref->kind == XGPU_BUFFER_REF_KIND_BUFFER) {
    if (ref->buffer == XGPU_NULL_HANDLE || ref->bindingSlot != 0) {
      const std::string what = ref->buffer == XGPU_NULL_HANDLE
                                   ? Member(rule.field, "buffer") + " is XGPU_NULL_HANDLE"
                                   : Member(rule.field, "bindingSlot") + " is " + std::to_string(ref->bindingSlot);
      return ctx.Report(rule.kind, Field{rule.field, i}, "kind XGPU_BUFFER_REF_KIND_BUFFER, but " + what);
    }
  } else if (ref->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT) {
    if (ref->buffer != XGPU_NULL_HANDLE) {
      return ctx.Report(rule.kind, Field{rule.field, i},
                        "kind XGPU_BUFFER_REF_KIND_BINDING_SLOT, but " + Member(rule.field, "buffer") + " is " +
                            hex(reinterpret_cast<uintptr_t>(ref->buffer)) + ", not XGPU_NULL_HANDLE");
    }
    if (ref->bindingSlot >= recording.binding_capacity) {
      skip |= ctx.Report(rule.slot, Field{Member(rule.field, "bindingSlot").c_str(), i},
                         std::to_string(ref->bindingSlot) + ", not below the recording's bindingCapacity " +
                             std::to_string(recording.binding_capacity));
    }
    // What the reference alone decides (binding offsets are aligned to
    // limits.minBufferOffsetAlignment, so an aligned reference offset stays
    // aligned); the rest is checked at each submission.
    if (rule.has_alignment && alignment > 1 && ref->offset % alignment != 0) {
      skip |= ctx.Report(rule.alignment, Field{Member(rule.field, "offset").c_str(), i},
                         size_text(ref->offset) + ", not a multiple of " + std::to_string(alignment) +
                             " (the offset within slot " + std::to_string(ref->bindingSlot) + ")");
    }
    if (ref->size != XGPU_WHOLE_SIZE && ref->size < std::max<uint64_t>(min_size, 1)) {
      skip |= ctx.Report(rule.range, Field{Member(rule.field, "size").c_str(), i},
                         size_text(ref->size) + " bytes of slot " + std::to_string(ref->bindingSlot) +
                             ", the command needs " + std::to_string(std::max<uint64_t>(min_size, 1)));
    }
    return skip;
  } else {
    return false;  // not a XgpuBufferRefKind: the stateless checks report it
  }
  const ObjectRecord* buffer =
      Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(ref->buffer));
  if (buffer == nullptr) return skip;  // the object tracker reports it
  const uint64_t size = buffer->buffer_size;
  const std::string of = " of " + Describe(buffer) + " (" + std::to_string(size) + " bytes)";
  if (ref->offset >= size || (ref->size != XGPU_WHOLE_SIZE && ref->size > size - ref->offset)) {
    skip |= ctx.Report(rule.range, Field{rule.field, i},
                       "offset " + size_text(ref->offset) + ", size " + size_text(ref->size) + ": not inside the range" + of,
                       {RefOf(buffer)});
  } else {
    const uint64_t resolved = ref->size == XGPU_WHOLE_SIZE ? size - ref->offset : ref->size;
    if (resolved < min_size) {
      skip |= ctx.Report(rule.range, Field{rule.field, i},
                         "offset " + size_text(ref->offset) + ", size " + size_text(ref->size) + ": " + std::to_string(resolved) +
                             " bytes" + of + ", the command needs " + std::to_string(min_size),
                         {RefOf(buffer)});
    }
  }
  if (rule.has_alignment && alignment > 1 && ref->offset % alignment != 0) {
    skip |= ctx.Report(rule.alignment, Field{Member(rule.field, "offset").c_str(), i},
                       size_text(ref->offset) + ", not a multiple of " + std::to_string(alignment), {RefOf(buffer)});
  }
  if (rule.usage_bit != 0 && (buffer->buffer_usage & rule.usage_bit) != rule.usage_bit) {
    skip |= ctx.Report(rule.usage, Field{Member(rule.field, "buffer").c_str(), i},
                       Describe(buffer) + ", created with usage " + UsageText(buffer->buffer_usage) + ", without " +
                           UsageText(rule.usage_bit),
                       {RefOf(buffer)});
  }
  return skip;
}

bool Overlap(uint64_t a_offset, uint64_t a_size, uint64_t b_offset, uint64_t b_size) {
  const uint64_t a_end = a_size == XGPU_WHOLE_SIZE || a_offset + a_size < a_offset ? UINT64_MAX : a_offset + a_size;
  const uint64_t b_end = b_size == XGPU_WHOLE_SIZE || b_offset + b_size < b_offset ? UINT64_MAX : b_offset + b_size;
  return a_offset < b_end && b_offset < a_end;
}

bool PatternSizeValid(uint32_t patternSize) { return patternSize == 1 || patternSize == 2 || patternSize == 4; }

// The bound-state rules a dispatch needs (pipeline, bindings, constants, workgroup memory).
struct DispatchRules {
  Vuid pipeline, bindings, constants, memory;
};

[[gnu::cold]] bool ReportDispatchState(CallContext& ctx, const RecordingState& recording, const DispatchRules& rules) {
  if (!recording.has_pipeline) {
    return ctx.Report(rules.pipeline, Field{"commandBuffer"},
                      Self(ctx) + ", with no pipeline bound since xgpuBeginCommandBuffer");
  }
  bool skip = false;
  const PipelineLayout& layout = recording.layout;
  // Bindings and constant bytes, once set, stay set until the next pipeline
  // is bound: once every one of the layout's was found set, the loops are done.
  bool complete = true;
  for (uint32_t b = 0; !recording.bound_state_complete && b < layout.binding_count; ++b) {
    if (b >= recording.bindings_set.size() || !recording.bindings_set[b]) {
      skip |= ctx.Report(rules.bindings, Field{"commandBuffer"},
                         Self(ctx) + ": binding " + std::to_string(b) + " of the bound pipeline (bindingCount " +
                             std::to_string(layout.binding_count) + ") was never set by xgpuCmdBindBuffers",
                         {{XGPU_OBJECT_TYPE_PIPELINE, recording.pipeline}});
      complete = false;
      break;
    }
  }
  for (uint32_t c = 0; !recording.bound_state_complete && c < layout.constant_size; ++c) {
    if (c >= recording.constants_set.size() || !recording.constants_set[c]) {
      complete = false;
      skip |= ctx.Report(rules.constants, Field{"commandBuffer"},
                         Self(ctx) + ": constant byte " + std::to_string(c) + " of the bound pipeline (constantSize " +
                             std::to_string(layout.constant_size) + ") was never set by xgpuCmdPushConstants",
                         {{XGPU_OBJECT_TYPE_PIPELINE, recording.pipeline}});
      break;
    }
  }
  if (complete) recording.bound_state_complete = true;
  if (const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx)) {
    const uint64_t total = uint64_t{layout.static_memory} + recording.dynamic_memory;
    if (total > limits->maxWorkgroupMemorySize) {
      skip |= ctx.Report(rules.memory, Field{"commandBuffer"},
                         Self(ctx) + ": static workgroup memory " + std::to_string(layout.static_memory) + " + dynamic " +
                             std::to_string(recording.dynamic_memory) + " = " + std::to_string(total) +
                             " bytes, more than limits.maxWorkgroupMemorySize " +
                             std::to_string(limits->maxWorkgroupMemorySize),
                         {{XGPU_OBJECT_TYPE_PIPELINE, recording.pipeline}});
    }
  }
  return skip;
}

// The bound-state rules: the fast path is a pipeline bound whose bindings
// and constants were all found set, within the workgroup memory limit.
bool CheckDispatchState(CallContext& ctx, const RecordingState& recording, const DispatchRules& rules) {
  if (recording.has_pipeline && recording.bound_state_complete) [[likely]] {
    const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
    if (limits == nullptr ||
        uint64_t{recording.layout.static_memory} + recording.dynamic_memory <= limits->maxWorkgroupMemorySize) {
      return false;
    }
  }
  return ReportDispatchState(ctx, recording, rules);
}

// xgpuCmdDispatch's group counts past a limit (ValidateCmdDispatch's fast path found one).
[[gnu::cold]] bool ReportGroupCounts(CallContext& ctx, const RecordingState& recording,
                                     const XgpuPhysicalDeviceLimits& limits, const uint32_t (&counts)[3]) {
  static const char* const kNames[3] = {"groupCountX", "groupCountY", "groupCountZ"};
  bool skip = false;
  for (int d = 0; d < 3; ++d) {
    const uint64_t items = uint64_t{counts[d]} * (recording.has_pipeline ? recording.layout.workgroup_size[d] : 1);
    if (counts[d] > limits.maxWorkgroupCount[d]) {
      skip |= ctx.Report(Vuid::xgpuCmdDispatch_groupCount, Field{kNames[d]},
                         std::to_string(counts[d]) + ", more than limits.maxWorkgroupCount[" + std::to_string(d) +
                             "] " + std::to_string(limits.maxWorkgroupCount[d]));
    } else if (recording.has_pipeline && items > limits.maxGridSize[d]) {
      skip |= ctx.Report(Vuid::xgpuCmdDispatch_groupCount, Field{kNames[d]},
                         std::to_string(counts[d]) + " workgroups of " +
                             std::to_string(recording.layout.workgroup_size[d]) + " = " + std::to_string(items) +
                             " work items, more than limits.maxGridSize[" + std::to_string(d) + "] " +
                             std::to_string(limits.maxGridSize[d]));
    }
  }
  return skip;
}

// xgpuCmdDispatch's checks in full (ValidateCmdDispatch's cache did not
// answer); fills the cache when every rule but the counts' holds.
[[gnu::cold]] bool CheckDispatch(CallContext& ctx, const RecordingState& recording, const uint32_t (&counts)[3]) {
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  if (limits == nullptr) return false;
  // No pipeline can be bound on such a family: its bound-state rules would only repeat this one.
  if (CheckQueueFamily(ctx, XGPU_QUEUE_COMPUTE_BIT, "XGPU_QUEUE_COMPUTE_BIT",
                       Vuid::xgpuCmdDispatch_commandBuffer_queueFamily)) {
    return true;
  }
  bool skip = CheckDispatchState(ctx, recording,
                                 {Vuid::xgpuCmdDispatch_pipeline, Vuid::xgpuCmdDispatch_bindings,
                                  Vuid::xgpuCmdDispatch_constants, Vuid::xgpuCmdDispatch_workgroupMemory});
  bool counts_ok = true;
  for (int d = 0; d < 3; ++d) {
    const uint64_t items = uint64_t{counts[d]} * (recording.has_pipeline ? recording.layout.workgroup_size[d] : 1);
    counts_ok &= counts[d] <= limits->maxWorkgroupCount[d] && (!recording.has_pipeline || items <= limits->maxGridSize[d]);
  }
  if (!counts_ok) skip |= ReportGroupCounts(ctx, recording, *limits, counts);
  // Facts, not `skip` (a muted rule reports nothing and skips nothing).
  const XgpuQueueFlags* family = FamilyFlagsOf(ctx);
  const bool compute_family = family != nullptr && (*family & XGPU_QUEUE_COMPUTE_BIT) != 0;
  if (compute_family && recording.has_pipeline && recording.bound_state_complete &&
      uint64_t{recording.layout.static_memory} + recording.dynamic_memory <= limits->maxWorkgroupMemorySize) {
    // What the checks above accept, as bounds on the counts: count <=
    // maxWorkgroupCount and count * size <= maxGridSize, i.e. count <=
    // maxGridSize / size (rounded down) for a size above 0.
    for (int d = 0; d < 3; ++d) {
      const uint32_t size = recording.layout.workgroup_size[d];
      recording.max_groups[d] =
          size == 0 ? limits->maxWorkgroupCount[d] : std::min<uint32_t>(limits->maxWorkgroupCount[d], limits->maxGridSize[d] / size);
    }
    recording.dispatch_ready = true;
  }
  return skip;
}

// Stages an access belongs to (api.md 17: stages and accesses pair up).
constexpr uint32_t StagesOfAccess(uint32_t access) {
  switch (access) {
    case XGPU_ACCESS_INDIRECT_READ_BIT: return XGPU_PIPELINE_STAGE_INDIRECT_BIT;
    case XGPU_ACCESS_SHADER_READ_BIT:
    case XGPU_ACCESS_SHADER_WRITE_BIT: return XGPU_PIPELINE_STAGE_DISPATCH_BIT;
    case XGPU_ACCESS_TRANSFER_READ_BIT:
    case XGPU_ACCESS_TRANSFER_WRITE_BIT: return XGPU_PIPELINE_STAGE_TRANSFER_BIT;
    case XGPU_ACCESS_HOST_READ_BIT:
    case XGPU_ACCESS_HOST_WRITE_BIT: return XGPU_PIPELINE_STAGE_HOST_BIT;
    default: return ~0u;  // MEMORY_READ / MEMORY_WRITE (and unknown bits, which the stateless checks report)
  }
}

// Accesses of one stage each (StagesOfAccess); every other bit belongs to all stages.
constexpr uint32_t kStagedAccesses[] = {XGPU_ACCESS_INDIRECT_READ_BIT, XGPU_ACCESS_SHADER_READ_BIT,
                                        XGPU_ACCESS_SHADER_WRITE_BIT,  XGPU_ACCESS_TRANSFER_READ_BIT,
                                        XGPU_ACCESS_TRANSFER_WRITE_BIT, XGPU_ACCESS_HOST_READ_BIT,
                                        XGPU_ACCESS_HOST_WRITE_BIT};
// The accesses each combination of the five stage bits allows, by table
// lookup (every barrier recorded asks twice): ALL_COMMANDS allows every
// access; otherwise a staged access needs one of its stages, and every
// other bit (MEMORY_READ / _WRITE, unknown bits) belongs to all stages.
static_assert(XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT == 0x10, "the table below is indexed by the five stage bits");
constexpr auto kAllowedAccesses = [] {
  std::array<uint32_t, 32> table{};
  for (uint32_t stages = 0; stages < 32; ++stages) {
    uint32_t allowed = ~0u;
    if ((stages & XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT) == 0) {
      for (uint32_t bit : kStagedAccesses) {
        if ((StagesOfAccess(bit) & stages) == 0) allowed &= ~bit;
      }
    }
    table[stages] = allowed;
  }
  return table;
}();
inline uint32_t AllowedAccesses(uint32_t stages) { return kAllowedAccesses[stages & 0x1F]; }

// The first access bit of `access` that no stage of `stages` has, or 0.
uint32_t AccessOutsideStages(uint32_t access, uint32_t stages) {
  const uint32_t outside = access & ~AllowedAccesses(stages);
  return outside & (0u - outside);  // the lowest such bit
}

std::string BitText(const BitName* names, size_t count, uint32_t bit) {
  for (size_t n = 0; n < count; ++n) {
    if (names[n].bit == bit) return names[n].name;
  }
  return hex(bit);
}

}  // namespace

// ---- begin / end ----

bool RecordingValidation::ValidateBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer,
                                                     const XgpuCommandBufferBeginInfo* pBeginInfo) const {
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  if (!IsUsablePointer(pBeginInfo) || limits == nullptr) return false;
  if (pBeginInfo->bindingCapacity > limits->maxBindingCapacity) {
    return ctx.Report(Vuid::xgpuBeginCommandBuffer_pBeginInfo_bindingCapacity, Field{"pBeginInfo->bindingCapacity"},
                      std::to_string(pBeginInfo->bindingCapacity) + ", more than limits.maxBindingCapacity " +
                          std::to_string(limits->maxBindingCapacity));
  }
  return false;
}

bool RecordingValidation::ValidateEndCommandBuffer(CallContext& ctx, XgpuCommandBuffer) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr || recording->labels.empty()) return false;
  return ctx.Report(Vuid::xgpuEndCommandBuffer_commandBuffer_labels, Field{"commandBuffer"},
                    Self(ctx) + ", with " + std::to_string(recording->labels.size()) + " debug label(s) still open: " +
                        LabelsText(*recording));
}

// ---- pipeline state ----

bool RecordingValidation::ValidateCmdBindPipeline(CallContext& ctx, XgpuCommandBuffer, XgpuPipeline) const {
  if (RecordingOf(ctx) == nullptr) return false;
  return CheckQueueFamily(ctx, XGPU_QUEUE_COMPUTE_BIT, "XGPU_QUEUE_COMPUTE_BIT",
                          Vuid::xgpuCmdBindPipeline_commandBuffer_queueFamily);
}

namespace {

[[gnu::cold]] bool ReportPushConstants(CallContext& ctx, const RecordingState* recording, uint32_t offset,
                                       uint32_t size) {
  bool skip = false;
  if (offset % 4 != 0) {
    skip |= ctx.Report(Vuid::xgpuCmdPushConstants_offset, Field{"offset"},
                       std::to_string(offset) + ", not a multiple of 4");
  }
  if (size == 0 || size % 4 != 0) {
    skip |= ctx.Report(Vuid::xgpuCmdPushConstants_size, Field{"size"},
                       std::to_string(size) + (size == 0 ? "" : ", not a multiple of 4"));
  }
  if (!recording->has_pipeline) {
    skip |= ctx.Report(Vuid::xgpuCmdPushConstants_pipeline, Field{"commandBuffer"},
                       Self(ctx) + ", with no pipeline bound since xgpuBeginCommandBuffer");
  } else if (uint64_t{offset} + size > recording->layout.constant_size) {
    skip |= ctx.Report(Vuid::xgpuCmdPushConstants_range, Field{"size"},
                       "offset " + std::to_string(offset) + " + size " + std::to_string(size) + " = " +
                           std::to_string(uint64_t{offset} + size) + ", more than the bound pipeline's constantSize " +
                           std::to_string(recording->layout.constant_size),
                       {{XGPU_OBJECT_TYPE_PIPELINE, recording->pipeline}});
  }
  return skip;
}

}  // namespace

bool RecordingValidation::ValidateCmdPushConstants(CallContext& ctx, XgpuCommandBuffer, uint32_t offset,
                                                   uint32_t size, const void*) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  if (offset % 4 == 0 && size != 0 && size % 4 == 0 && recording->has_pipeline &&
      uint64_t{offset} + size <= recording->layout.constant_size) [[likely]] {
    return false;
  }
  return ReportPushConstants(ctx, recording, offset, size);
}

bool RecordingValidation::ValidateCmdBindBuffers(CallContext& ctx, XgpuCommandBuffer, uint32_t firstBinding,
                                                 uint32_t bindingCount, const XgpuBufferRef* pBuffers) const {
  const RecordingState* recording = RecordingOf(ctx);
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  if (recording == nullptr || limits == nullptr) return false;
  bool skip = false;
  if (bindingCount == 0) skip |= ctx.Report(Vuid::xgpuCmdBindBuffers_bindingCount, Field{"bindingCount"}, "0");
  if (!recording->has_pipeline) {
    skip |= ctx.Report(Vuid::xgpuCmdBindBuffers_pipeline, Field{"commandBuffer"},
                       Self(ctx) + ", with no pipeline bound since xgpuBeginCommandBuffer");
  } else if (uint64_t{firstBinding} + bindingCount > recording->layout.binding_count) {
    skip |= ctx.Report(Vuid::xgpuCmdBindBuffers_firstBinding, Field{"firstBinding"},
                       "firstBinding " + std::to_string(firstBinding) + " + bindingCount " +
                           std::to_string(bindingCount) + " = " + std::to_string(uint64_t{firstBinding} + bindingCount) +
                           ", more than the bound pipeline's bindingCount " +
                           std::to_string(recording->layout.binding_count),
                       {{XGPU_OBJECT_TYPE_PIPELINE, recording->pipeline}});
  }
  if (!IsUsablePointer(pBuffers)) return skip;
  for (uint32_t i = 0; i < bindingCount; ++i) {
    skip |= CheckRef(ctx, *recording, &pBuffers[i], i, kBindBuffersRule, 1, limits->minBufferOffsetAlignment);
  }
  return skip;
}

bool RecordingValidation::ValidateCmdSetWorkgroupMemorySize(CallContext& ctx, XgpuCommandBuffer,
                                                            uint32_t dynamicSize) const {
  const XgpuPhysicalDeviceLimits* limits = LimitsOf(ctx);
  if (RecordingOf(ctx) == nullptr || limits == nullptr || dynamicSize <= limits->maxWorkgroupMemorySize) return false;
  return ctx.Report(Vuid::xgpuCmdSetWorkgroupMemorySize_dynamicSize, Field{"dynamicSize"},
                    std::to_string(dynamicSize) + ", more than limits.maxWorkgroupMemorySize " +
                        std::to_string(limits->maxWorkgroupMemorySize));
}

// ---- dispatches ----

bool RecordingValidation::ValidateCmdDispatch(CallContext& ctx, XgpuCommandBuffer, uint32_t groupCountX,
                                              uint32_t groupCountY, uint32_t groupCountZ) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  if (recording->dispatch_ready && groupCountX <= recording->max_groups[0] && groupCountY <= recording->max_groups[1] &&
      groupCountZ <= recording->max_groups[2]) [[likely]] {
    return false;
  }
  return CheckDispatch(ctx, *recording, {groupCountX, groupCountY, groupCountZ});
}

bool RecordingValidation::ValidateCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer,
                                                      const XgpuBufferRef* pCounts,
                                                      XgpuDispatchIndirectFlags flags) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  // No pipeline can be bound on such a family: its bound-state rules would only repeat this one.
  if (CheckQueueFamily(ctx, XGPU_QUEUE_COMPUTE_BIT, "XGPU_QUEUE_COMPUTE_BIT",
                       Vuid::xgpuCmdDispatchIndirect_commandBuffer_queueFamily)) {
    return true;
  }
  const uint32_t kinds = flags & (XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
  bool skip = false;
  // Unknown bits break the implicit rule instead.
  if ((flags & ~kValidBitsXgpuDispatchIndirectFlagBits) == 0 && kinds != XGPU_DISPATCH_INDIRECT_STATIC_BIT &&
      kinds != XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT) {
    skip |= ctx.Report(Vuid::xgpuCmdDispatchIndirect_flags, Field{"flags"},
                       hex(flags) + (kinds == 0 ? ": neither" : ": both") +
                           " XGPU_DISPATCH_INDIRECT_STATIC_BIT and XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT");
  }
  skip |= CheckDispatchState(
      ctx, *recording,
      {Vuid::xgpuCmdDispatchIndirect_pipeline, Vuid::xgpuCmdDispatchIndirect_bindings,
       Vuid::xgpuCmdDispatchIndirect_constants, Vuid::xgpuCmdDispatchIndirect_workgroupMemory});
  skip |= CheckRef(ctx, *recording, pCounts, 0, kCountsRule, 12, 4);
  // A static dispatch reads its counts on the host at issue: a buffer the host can see.
  if (kinds == XGPU_DISPATCH_INDIRECT_STATIC_BIT && IsUsablePointer(pCounts) &&
      pCounts->kind == XGPU_BUFFER_REF_KIND_BUFFER && ctx.device != nullptr) {
    if (const ObjectRecord* buffer =
            Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(pCounts->buffer))) {
      const XgpuPhysicalDeviceMemoryProperties& memory = ctx.device->memory;
      if (buffer->memory_type < memory.memoryTypeCount &&
          (memory.memoryTypes[buffer->memory_type].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0) {
        skip |= ctx.Report(Vuid::xgpuCmdDispatchIndirect_static_hostVisible, Field{"pCounts->buffer"},
                           Describe(buffer) + ", of memory type " + std::to_string(buffer->memory_type) +
                               ", which is not XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT",
                           {RefOf(buffer)});
      }
    }
  }
  // Hazards on the counts with earlier writes of the recording (to the same
  // buffer, or to the same slot: slots bound to the same buffer at submit
  // are not compared).
  if (Costly(ctx) && IsUsablePointer(pCounts) &&
      (kinds == XGPU_DISPATCH_INDIRECT_STATIC_BIT || kinds == XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT)) {
    const bool slot = pCounts->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT;
    const uint64_t target = slot ? pCounts->bindingSlot : reinterpret_cast<uintptr_t>(pCounts->buffer);
    for (const RecordingState::Write& w : recording->writes) {
      if (w.slot != slot || w.target != target || !Overlap(w.offset, w.size, pCounts->offset, 12)) continue;
      const std::string what = std::string(slot ? "slot " + std::to_string(target) : "the buffer") + ", bytes [" +
                               size_text(w.offset) + ", " + (w.size == XGPU_WHOLE_SIZE ? "end" : size_text(w.offset + w.size)) +
                               ")";
      if (kinds == XGPU_DISPATCH_INDIRECT_STATIC_BIT) {
        skip |= ctx.Report(Vuid::xgpuCmdDispatchIndirect_static_written, Field{"pCounts"},
                           "counts at offset " + size_text(pCounts->offset) + " that command " + std::to_string(w.command) +
                               " of this recording writes (" + what +
                               "): a static dispatch reads them on the host when the submission is issued");
        break;
      }
      if (recording->indirect_barrier <= w.command + 1u) {
        skip |= ctx.Report(Vuid::xgpuCmdDispatchIndirect_dynamic_barrier, Field{"pCounts"},
                           "counts at offset " + size_text(pCounts->offset) + " that command " + std::to_string(w.command) +
                               " of this recording writes (" + what +
                               ") with no barrier since to XGPU_PIPELINE_STAGE_INDIRECT_BIT / "
                               "XGPU_ACCESS_INDIRECT_READ_BIT");
        break;
      }
    }
  }
  return skip;
}

// ---- transfers ----

bool RecordingValidation::ValidateCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pDst,
                                                const void*, uint32_t patternSize) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  bool skip = CheckQueueFamily(ctx, XGPU_QUEUE_TRANSFER_BIT, "XGPU_QUEUE_TRANSFER_BIT",
                               Vuid::xgpuCmdFillBuffer_commandBuffer_queueFamily);
  const bool pattern_ok = PatternSizeValid(patternSize);
  if (!pattern_ok) {
    skip |= ctx.Report(Vuid::xgpuCmdFillBuffer_patternSize, Field{"patternSize"},
                       std::to_string(patternSize) + ", not 1, 2 or 4");
  }
  if (pattern_ok && IsUsablePointer(pDst) && pDst->size != XGPU_WHOLE_SIZE &&
      (pDst->size == 0 || pDst->size % patternSize != 0)) {
    skip |= ctx.Report(Vuid::xgpuCmdFillBuffer_pDst_size, Field{"pDst->size"},
                       size_text(pDst->size) + (pDst->size == 0 ? "" : ", not a multiple of patternSize ") +
                           (pDst->size == 0 ? "" : std::to_string(patternSize)));
  }
  skip |= CheckRef(ctx, *recording, pDst, 0, kFillRule, 0, pattern_ok ? patternSize : 1);
  return skip;
}

bool RecordingValidation::ValidateCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pSrc,
                                                const XgpuBufferRef* pDst, XgpuDeviceSize size) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  bool skip = CheckQueueFamily(ctx, XGPU_QUEUE_TRANSFER_BIT, "XGPU_QUEUE_TRANSFER_BIT",
                               Vuid::xgpuCmdCopyBuffer_commandBuffer_queueFamily);
  if (size == 0) skip |= ctx.Report(Vuid::xgpuCmdCopyBuffer_size, Field{"size"}, "0");
  skip |= CheckRef(ctx, *recording, pSrc, 0, kCopySrcRule, size, 1);
  skip |= CheckRef(ctx, *recording, pDst, 0, kCopyDstRule, size, 1);
  if (size != 0 && IsUsablePointer(pSrc) && IsUsablePointer(pDst) && pSrc->kind == XGPU_BUFFER_REF_KIND_BUFFER &&
      pDst->kind == XGPU_BUFFER_REF_KIND_BUFFER && pSrc->buffer == pDst->buffer && pSrc->buffer != XGPU_NULL_HANDLE) {
    const uint64_t s = pSrc->offset;
    const uint64_t d = pDst->offset;
    if (s < d + size && d < s + size && s + size > s && d + size > d) {
      const ObjectRecord* buffer = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(pSrc->buffer));
      skip |= ctx.Report(Vuid::xgpuCmdCopyBuffer_overlap, Field{"pDst->offset"},
                         "source [" + size_text(s) + ", " + size_text(s + size) + ") and destination [" + size_text(d) + ", " +
                             size_text(d + size) + ") overlap in " +
                             (buffer ? Describe(buffer) : hex(reinterpret_cast<uintptr_t>(pSrc->buffer))));
    }
  }
  return skip;
}

bool RecordingValidation::ValidateCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pDst,
                                                  XgpuDeviceSize dataSize, const void*) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  bool skip = CheckQueueFamily(ctx, XGPU_QUEUE_TRANSFER_BIT, "XGPU_QUEUE_TRANSFER_BIT",
                               Vuid::xgpuCmdUpdateBuffer_commandBuffer_queueFamily);
  if (dataSize == 0 || dataSize > XGPU_MAX_UPDATE_BUFFER_SIZE) {
    skip |= ctx.Report(Vuid::xgpuCmdUpdateBuffer_dataSize, Field{"dataSize"},
                       size_text(dataSize) + (dataSize == 0 ? "" : ", more than XGPU_MAX_UPDATE_BUFFER_SIZE (65536)"));
  }
  skip |= CheckRef(ctx, *recording, pDst, 0, kUpdateRule, dataSize, 1);
  return skip;
}

// ---- barriers ----

bool RecordingValidation::ValidateCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer,
                                                     XgpuPipelineStageFlags srcStageMask,
                                                     XgpuPipelineStageFlags dstStageMask, uint32_t memoryBarrierCount,
                                                     const XgpuMemoryBarrier* pMemoryBarriers,
                                                     uint32_t bufferBarrierCount,
                                                     const XgpuBufferMemoryBarrier* pBufferBarriers) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  bool skip = false;
  if (srcStageMask == 0) skip |= ctx.Report(Vuid::xgpuCmdPipelineBarrier_srcStageMask, Field{"srcStageMask"}, "0");
  if (dstStageMask == 0) skip |= ctx.Report(Vuid::xgpuCmdPipelineBarrier_dstStageMask, Field{"dstStageMask"}, "0");
  auto check_access = [&](const char* src_field, const char* dst_field, uint64_t i, XgpuAccessFlags src_access,
                          XgpuAccessFlags dst_access) {
    if (uint32_t bit = srcStageMask != 0 ? AccessOutsideStages(src_access, srcStageMask) : 0) {
      skip |= ctx.Report(Vuid::xgpuCmdPipelineBarrier_srcAccessMask, Field{src_field, i},
                         BitText(kBitNamesXgpuAccessFlagBits, std::size(kBitNamesXgpuAccessFlagBits), bit) +
                             ", an access of no stage of srcStageMask " + hex(srcStageMask));
    }
    if (uint32_t bit = dstStageMask != 0 ? AccessOutsideStages(dst_access, dstStageMask) : 0) {
      skip |= ctx.Report(Vuid::xgpuCmdPipelineBarrier_dstAccessMask, Field{dst_field, i},
                         BitText(kBitNamesXgpuAccessFlagBits, std::size(kBitNamesXgpuAccessFlagBits), bit) +
                             ", an access of no stage of dstStageMask " + hex(dstStageMask));
    }
  };
  if (IsUsablePointer(pMemoryBarriers)) {
    for (uint32_t i = 0; i < memoryBarrierCount; ++i) {
      check_access("pMemoryBarriers[i].srcAccessMask", "pMemoryBarriers[i].dstAccessMask", i,
                   pMemoryBarriers[i].srcAccessMask, pMemoryBarriers[i].dstAccessMask);
    }
  }
  if (IsUsablePointer(pBufferBarriers)) {
    for (uint32_t i = 0; i < bufferBarrierCount; ++i) {
      check_access("pBufferBarriers[i].srcAccessMask", "pBufferBarriers[i].dstAccessMask", i,
                   pBufferBarriers[i].srcAccessMask, pBufferBarriers[i].dstAccessMask);
      skip |= CheckRef(ctx, *recording, &pBufferBarriers[i].buffer, i, kBarrierRule, 1, 1);
    }
  }
  return skip;
}

namespace {
bool ReportMemoryBarrier(CallContext& ctx, XgpuPipelineStageFlags srcStageMask, XgpuAccessFlags srcAccessMask,
                         XgpuPipelineStageFlags dstStageMask, XgpuAccessFlags dstAccessMask);
}  // namespace

bool RecordingValidation::ValidateCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer,
                                                   XgpuPipelineStageFlags srcStageMask, XgpuAccessFlags srcAccessMask,
                                                   XgpuPipelineStageFlags dstStageMask,
                                                   XgpuAccessFlags dstAccessMask) const {
  if (RecordingOf(ctx) == nullptr) return false;
  if (srcStageMask != 0 && dstStageMask != 0 &&
      ((srcAccessMask & ~AllowedAccesses(srcStageMask)) | (dstAccessMask & ~AllowedAccesses(dstStageMask))) == 0)
      [[likely]] {
    return false;
  }
  return ReportMemoryBarrier(ctx, srcStageMask, srcAccessMask, dstStageMask, dstAccessMask);
}

namespace {

[[gnu::cold]] bool ReportMemoryBarrier(CallContext& ctx, XgpuPipelineStageFlags srcStageMask,
                                       XgpuAccessFlags srcAccessMask, XgpuPipelineStageFlags dstStageMask,
                                       XgpuAccessFlags dstAccessMask) {
  bool skip = false;
  if (srcStageMask == 0) skip |= ctx.Report(Vuid::xgpuCmdMemoryBarrier_srcStageMask, Field{"srcStageMask"}, "0");
  if (dstStageMask == 0) skip |= ctx.Report(Vuid::xgpuCmdMemoryBarrier_dstStageMask, Field{"dstStageMask"}, "0");
  if (uint32_t bit = srcStageMask != 0 ? AccessOutsideStages(srcAccessMask, srcStageMask) : 0) {
    skip |= ctx.Report(Vuid::xgpuCmdMemoryBarrier_srcAccessMask, Field{"srcAccessMask"},
                       BitText(kBitNamesXgpuAccessFlagBits, std::size(kBitNamesXgpuAccessFlagBits), bit) +
                           ", an access of no stage of srcStageMask " + hex(srcStageMask));
  }
  if (uint32_t bit = dstStageMask != 0 ? AccessOutsideStages(dstAccessMask, dstStageMask) : 0) {
    skip |= ctx.Report(Vuid::xgpuCmdMemoryBarrier_dstAccessMask, Field{"dstAccessMask"},
                       BitText(kBitNamesXgpuAccessFlagBits, std::size(kBitNamesXgpuAccessFlagBits), bit) +
                           ", an access of no stage of dstStageMask " + hex(dstStageMask));
  }
  return skip;
}

}  // namespace

// ---- debug labels, timestamps ----

bool RecordingValidation::ValidateCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr || !recording->labels.empty()) return false;
  return ctx.Report(Vuid::xgpuCmdEndDebugLabel_open, Field{"commandBuffer"},
                    Self(ctx) + ", with no debug label of this recording open");
}

bool RecordingValidation::ValidateCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer,
                                                    XgpuPipelineStageFlagBits stage, const XgpuBufferRef* pDst) const {
  const RecordingState* recording = RecordingOf(ctx);
  if (recording == nullptr) return false;
  bool skip = false;
  // A value that is not one stage bit breaks the implicit rule instead.
  const uint32_t bits = static_cast<uint32_t>(stage);
  const bool one_stage = bits != 0 && (bits & (bits - 1)) == 0 && (bits & ~kValidBitsXgpuPipelineStageFlagBits) == 0;
  if (one_stage && stage != XGPU_PIPELINE_STAGE_INDIRECT_BIT && stage != XGPU_PIPELINE_STAGE_DISPATCH_BIT &&
      stage != XGPU_PIPELINE_STAGE_TRANSFER_BIT && stage != XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT) {
    skip |= ctx.Report(Vuid::xgpuCmdWriteTimestamp_stage, Field{"stage"},
                       hex(static_cast<uint32_t>(stage)) + ", not INDIRECT, DISPATCH, TRANSFER or ALL_COMMANDS");
  }
  skip |= CheckRef(ctx, *recording, pDst, 0, kTimestampRule, 8, 8);
  return skip;
}

// ---- submission: the binding tables ----

namespace {

// offset % alignment != 0, without a division when the alignment is a power
// of two (as alignments are, nearly always).
inline bool Misaligned(uint64_t offset, uint64_t alignment) {
  return (alignment & (alignment - 1)) == 0 ? (offset & (alignment - 1)) != 0 : offset % alignment != 0;
}

// Whether the table of `submit` passes every check ReportSubmitTable makes,
// without composing anything: the common case, checked on every submit.
// Conservative: false sends the submission to ReportSubmitTable, which
// decides (and reports). Any check added there must be added here (each
// rule's negative test fails otherwise: this would call it clean).
bool SubmitTableClean(const CallContext& ctx, const XgpuSubmitInfo& submit, const RecordingState* recording,
                      const XgpuPhysicalDeviceLimits& limits) {
  if (recording != nullptr && submit.bindingCount < recording->binding_capacity) return false;
  if (!IsUsablePointer(submit.pBindings)) return true;
  constexpr uint32_t kInline = 32;
  if (submit.bindingCount > kInline) return false;
  const ObjectRecord* buffers[kInline];
  uint64_t sizes[kInline];
  const uint64_t alignment = limits.minBufferOffsetAlignment;
  for (uint32_t j = 0; j < submit.bindingCount; ++j) {
    const XgpuBufferBinding& b = submit.pBindings[j];
    const ObjectRecord* buffer = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(b.buffer));
    buffers[j] = buffer;
    if (buffer == nullptr) continue;  // the object tracker reports it
    const uint64_t size = buffer->buffer_size;
    if (b.offset >= size || (b.size != XGPU_WHOLE_SIZE && (b.size == 0 || b.size > size - b.offset))) return false;
    if (alignment > 1 && Misaligned(b.offset, alignment)) return false;
    sizes[j] = b.size == XGPU_WHOLE_SIZE ? size - b.offset : b.size;
  }
  if (recording == nullptr) return true;
  if (!recording->indirect_reads.empty() && ctx.instance != nullptr && ctx.instance->settings.costly_checks) return false;
  for (const SlotUse& use : recording->slot_uses) {
    if (use.slot >= submit.bindingCount || buffers[use.slot] == nullptr) continue;
    const ObjectRecord* buffer = buffers[use.slot];
    const uint64_t bsize = sizes[use.slot];
    if (use.offset >= bsize || (use.size != XGPU_WHOLE_SIZE && use.size > bsize - use.offset)) return false;
    const uint64_t rsize = use.size == XGPU_WHOLE_SIZE ? bsize - use.offset : use.size;
    if (rsize < use.min_size) return false;
    if (use.alignment > 1 && Misaligned(submit.pBindings[use.slot].offset + use.offset, use.alignment)) return false;
    if (use.usage != 0 && (buffer->buffer_usage & use.usage) != use.usage) return false;
    if (use.host_visible || use.overlap_with >= 0) return false;  // rare: the full check
  }
  return true;
}

}  // namespace

bool RecordingValidation::ValidateQueueSubmit(CallContext& ctx, XgpuQueue, uint32_t submitCount,
                                              const XgpuSubmitInfo* pSubmits) const {
  if (!IsUsablePointer(pSubmits) || ctx.device == nullptr) return false;
  const XgpuPhysicalDeviceLimits& limits = ctx.device->properties.limits;
  bool skip = false;
  for (uint32_t i = 0; i < submitCount; ++i) {
    const XgpuSubmitInfo& submit = pSubmits[i];
    const ObjectRecord* cb =
        submit.commandBuffer == XGPU_NULL_HANDLE
            ? nullptr
            : Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uintptr_t>(submit.commandBuffer));
    const RecordingState* recording =
        cb != nullptr && cb->status.load(std::memory_order_relaxed) == CommandBufferStatus::kExecutable
            ? cb->recording.get()
            : nullptr;
    if (SubmitTableClean(ctx, submit, recording, limits)) [[likely]] continue;
    skip |= ReportSubmitTable(ctx, submit, i, cb, recording, limits);
  }
  return skip;
}

bool RecordingValidation::ReportSubmitTable(CallContext& ctx, const XgpuSubmitInfo& submit, uint32_t i,
                                            const ObjectRecord* cb, const RecordingState* recording,
                                            const XgpuPhysicalDeviceLimits& limits) {
  bool skip = false;
  {
    if (recording != nullptr && submit.bindingCount < recording->binding_capacity) {
      skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_bindingCount, Field{"pSubmits[i].bindingCount", i},
                         std::to_string(submit.bindingCount) + ", less than the bindingCapacity " +
                             std::to_string(recording->binding_capacity) + " " + Describe(cb) + " was begun with",
                         {RefOf(cb)});
    }
    if (!IsUsablePointer(submit.pBindings)) return skip;
    // Each binding inside its buffer, at an aligned offset; its resolved range.
    // Per binding: its buffer's record (nullptr: not usable) and resolved
    // size (on the stack for small tables: no allocation per call).
    constexpr uint32_t kInline = 32;
    const ObjectRecord* inline_buffers[kInline];
    uint64_t inline_sizes[kInline];
    std::vector<const ObjectRecord*> heap_buffers;
    std::vector<uint64_t> heap_sizes;
    const ObjectRecord** buffers = inline_buffers;
    uint64_t* sizes = inline_sizes;
    if (submit.bindingCount > kInline) {
      heap_buffers.resize(submit.bindingCount);
      heap_sizes.resize(submit.bindingCount);
      buffers = heap_buffers.data();
      sizes = heap_sizes.data();
    }
    std::fill_n(buffers, submit.bindingCount, nullptr);
    std::fill_n(sizes, submit.bindingCount, 0);
    for (uint32_t j = 0; j < submit.bindingCount; ++j) {
      const XgpuBufferBinding& b = submit.pBindings[j];
      const ObjectRecord* buffer = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, reinterpret_cast<uintptr_t>(b.buffer));
      if (buffer == nullptr) continue;  // the object tracker reports it
      const uint64_t size = buffer->buffer_size;
      if (b.offset >= size || (b.size != XGPU_WHOLE_SIZE && (b.size == 0 || b.size > size - b.offset))) {
        skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_pBindings_range, Field{"pSubmits[i].pBindings[j]", i, j},
                           "offset " + size_text(b.offset) + ", size " + size_text(b.size) + ": not a non-empty range inside " +
                               Describe(buffer) + " (" + std::to_string(size) + " bytes)",
                           {RefOf(buffer)});
        continue;
      }
      if (limits.minBufferOffsetAlignment > 1 && b.offset % limits.minBufferOffsetAlignment != 0) {
        skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_pBindings_offset,
                           Field{"pSubmits[i].pBindings[j].offset", i, j},
                           size_text(b.offset) + ", not a multiple of limits.minBufferOffsetAlignment " +
                               std::to_string(limits.minBufferOffsetAlignment),
                           {RefOf(buffer)});
      }
      buffers[j] = buffer;
      sizes[j] = b.size == XGPU_WHOLE_SIZE ? size - b.offset : b.size;
    }
    if (recording == nullptr) return skip;
    // Indirect counts and earlier writes that this table makes the same bytes
    // (pairs of the same buffer or the same slot were checked when recorded).
    if (ctx.instance != nullptr && ctx.instance->settings.costly_checks) {
      // A reference resolved: its buffer's record (nullptr: unknown) and offset.
      auto resolve = [&](bool slot, uint64_t target, uint64_t offset, uint64_t* at) -> const ObjectRecord* {
        if (!slot) {
          *at = offset;
          return Objects().Find(XGPU_OBJECT_TYPE_BUFFER, target);
        }
        if (target >= submit.bindingCount || buffers[target] == nullptr) return nullptr;
        *at = submit.pBindings[target].offset + offset;
        return buffers[target];
      };
      for (const RecordingState::IndirectRead& r : recording->indirect_reads) {
        uint64_t counts_at = 0;
        const ObjectRecord* counts = resolve(r.slot, r.target, r.offset, &counts_at);
        if (counts == nullptr) continue;
        for (size_t w_index = 0; w_index < r.writes_before; ++w_index) {
          const RecordingState::Write& w = recording->writes[w_index];
          if (w.slot == r.slot && w.target == r.target) continue;  // checked when recorded
          if (!w.slot && !r.slot) continue;                        // two different buffers
          uint64_t write_at = 0;
          if (resolve(w.slot, w.target, w.offset, &write_at) != counts) continue;
          if (!Overlap(write_at, w.size, counts_at, 12)) continue;
          if (!r.is_static && r.barrier > w.command + 1u) continue;
          skip |= ctx.Report(
              r.is_static ? Vuid::xgpuCmdDispatchIndirect_static_written : Vuid::xgpuCmdDispatchIndirect_dynamic_barrier,
              Field{"pSubmits[i].pBindings", i},
              "the table makes the counts of command " + std::to_string(r.command) + " (xgpuCmdDispatchIndirect, at " +
                  std::to_string(counts_at) + " in " + Describe(counts) + ") bytes that command " +
                  std::to_string(w.command) + " of " + Describe(cb) + " writes" +
                  (r.is_static ? "" : ", with no barrier to the indirect reads between them"),
              {RefOf(counts), RefOf(cb)});
          break;
        }
      }
    }
    // Every slot reference of the recording, resolved with this table.
    for (const SlotUse& use : recording->slot_uses) {
      if (use.slot >= submit.bindingCount || buffers[use.slot] == nullptr) continue;
      const XgpuBufferBinding& b = submit.pBindings[use.slot];
      const ObjectRecord* buffer = buffers[use.slot];
      const uint64_t bsize = sizes[use.slot];
      // Where the use is, for messages (built only when one is reported).
      auto where_text = [&] {
        std::string field = use.field;
        if (field.find("[i]") != std::string::npos) {
          field.replace(field.find("[i]"), 3, "[" + std::to_string(use.field_index) + "]");
        }
        return "slot " + std::to_string(use.slot) + " as " + field + " of command " +
               std::to_string(use.command_index) + " (" + NameOf(use.command) + ")" +
               (use.labels.empty() ? "" : " in label " + use.labels) + " of " + Describe(cb);
      };
      const Field binding_field{"pSubmits[i].pBindings[j]", i, use.slot};
      if (use.offset >= bsize || (use.size != XGPU_WHOLE_SIZE && use.size > bsize - use.offset)) {
        skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_pBindings_refRange, binding_field,
                           where_text() + ": offset " + size_text(use.offset) + ", size " + size_text(use.size) +
                               " is not inside the binding's " + std::to_string(bsize) + " bytes",
                           {RefOf(buffer), RefOf(cb)});
        continue;
      }
      const uint64_t rsize = use.size == XGPU_WHOLE_SIZE ? bsize - use.offset : use.size;
      if (rsize < use.min_size) {
        skip |= ctx.Report(use.range_vuid, binding_field,
                           where_text() + ": resolves to " + std::to_string(rsize) + " bytes, the command needs " +
                               std::to_string(use.min_size),
                           {RefOf(buffer), RefOf(cb)});
      }
      const uint64_t resolved_offset = b.offset + use.offset;
      if (use.alignment > 1 && resolved_offset % use.alignment != 0) {
        skip |= ctx.Report(use.alignment_vuid, binding_field,
                           where_text() + ": resolved offset " + std::to_string(resolved_offset) + " (binding " +
                               size_text(b.offset) + " + reference " + size_text(use.offset) + "), not a multiple of " +
                               std::to_string(use.alignment),
                           {RefOf(buffer), RefOf(cb)});
      }
      if (use.usage != 0 && (buffer->buffer_usage & use.usage) != use.usage) {
        skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_pBindings_usage, Field{"pSubmits[i].pBindings[j].buffer", i, use.slot},
                           Describe(buffer) + ", created with usage " + UsageText(buffer->buffer_usage) +
                               ", without " + UsageText(use.usage) + " that " + where_text() + " needs",
                           {RefOf(buffer), RefOf(cb)});
      }
      if (use.host_visible && ctx.device != nullptr && buffer->memory_type < ctx.device->memory.memoryTypeCount &&
          (ctx.device->memory.memoryTypes[buffer->memory_type].propertyFlags &
           XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0) {
        skip |= ctx.Report(Vuid::xgpuCmdDispatchIndirect_static_hostVisible,
                           Field{"pSubmits[i].pBindings[j].buffer", i, use.slot},
                           Describe(buffer) + ", of memory type " + std::to_string(buffer->memory_type) +
                               ", which is not XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT, bound to " + where_text() +
                               " (static counts)",
                           {RefOf(buffer), RefOf(cb)});
      }
      if (use.overlap_with >= 0) {
        const SlotUse& src = recording->slot_uses[use.overlap_with];
        if (src.slot < submit.bindingCount && buffers[src.slot] == buffer) {
          const uint64_t s = submit.pBindings[src.slot].offset + src.offset;
          const uint64_t d = resolved_offset;
          if (s < d + use.min_size && d < s + use.min_size) {
            skip |= ctx.Report(use.overlap_vuid, binding_field,
                               where_text() + ": destination [" + size_text(d) + ", " + size_text(d + use.min_size) +
                                   ") overlaps the source [" + size_text(s) + ", " + size_text(s + use.min_size) + ") in " +
                                   Describe(buffer),
                               {RefOf(buffer), RefOf(cb)});
          }
        }
      }
    }
  }
  return skip;
}

}  // namespace xgpu_validation
