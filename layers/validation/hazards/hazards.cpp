#include "hazards.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "../chassis/object_map.h"
#include "warnings.h"

namespace xgpu_validation {

std::atomic<bool> g_sync_hazards_seen{false};

namespace {

constexpr uint32_t kReadBits = XGPU_ACCESS_INDIRECT_READ_BIT | XGPU_ACCESS_SHADER_READ_BIT |
                               XGPU_ACCESS_TRANSFER_READ_BIT | XGPU_ACCESS_HOST_READ_BIT | XGPU_ACCESS_MEMORY_READ_BIT;
constexpr uint32_t kWriteBits = XGPU_ACCESS_SHADER_WRITE_BIT | XGPU_ACCESS_TRANSFER_WRITE_BIT |
                                XGPU_ACCESS_HOST_WRITE_BIT | XGPU_ACCESS_MEMORY_WRITE_BIT;

uint64_t H(const void* handle) { return reinterpret_cast<uintptr_t>(handle); }

// The recording of the call's command buffer and its log, when the
// synchronization-hazard warnings are on.
[[gnu::noinline]] HazardLog* LogOfRecording(const CallContext& ctx, RecordingState** out);
// (The test whether the warnings are on is inline in every hook: they are
// off by default, and every recorded command calls one.)
[[gnu::always_inline]] inline HazardLog* LogOf(const CallContext& ctx, RecordingState** out = nullptr) {
  if (ctx.instance == nullptr || !ctx.instance->settings.sync_hazards) [[likely]] return nullptr;
  return LogOfRecording(ctx, out);
}

HazardLog* LogOfRecording(const CallContext& ctx, RecordingState** out) {
  ObjectRecord* record = ctx.dispatch_record;
  if (record == nullptr || record->status.load(std::memory_order_relaxed) != CommandBufferStatus::kRecording) {
    return nullptr;
  }
  RecordingState* recording = record->recording.get();
  if (recording == nullptr || recording->commands == 0) return nullptr;
  if (!recording->hazards) recording->hazards = std::make_shared<HazardLog>();
  if (out != nullptr) *out = recording;
  return recording->hazards.get();
}

// A reference resolved to bytes of a buffer.
struct Range {
  uint64_t buffer = 0;  // the buffer handle (or the slot, for a record-time comparison of slots)
  uint64_t begin = 0;
  uint64_t end = 0;     // exclusive
  bool ok = false;      // resolved
};

uint64_t End(uint64_t offset, uint64_t size) {
  return size == XGPU_WHOLE_SIZE || offset + size < offset ? UINT64_MAX : offset + size;
}

// At the call: a reference's own target and bytes.
Range Unresolved(bool slot, uint64_t target, uint64_t offset, uint64_t size) {
  (void)slot;
  return {target, offset, End(offset, size), true};
}

// At submission: through the table (slots) or as is (buffers).
Range Resolved(bool slot, uint64_t target, uint64_t offset, uint64_t size, const XgpuSubmitInfo& submit) {
  if (!slot) return {target, offset, End(offset, size), true};
  if (!IsUsablePointer(submit.pBindings) || target >= submit.bindingCount) return {};
  const XgpuBufferBinding& b = submit.pBindings[target];
  const uint64_t binding_end = End(b.offset, b.size);
  const uint64_t begin = b.offset + offset;
  if (begin < b.offset || begin >= binding_end) return {};
  return {H(b.buffer), begin, std::min(End(begin, size), binding_end), true};
}

bool Meets(const Range& a, const Range& b) { return a.ok && b.ok && a.buffer == b.buffer && a.begin < b.end && b.begin < a.end; }
bool Covers(const Range& outer, const Range& inner) {
  return outer.ok && inner.ok && outer.buffer == inner.buffer && outer.begin <= inner.begin && inner.end <= outer.end;
}

bool StageHas(uint32_t mask, uint32_t stage) { return (mask & (stage | XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT)) != 0; }

bool Writes(HazardAccess::Kind kind) { return kind == HazardAccess::kWrite || kind == HazardAccess::kAtomic; }

// The hazard of `later` with `earlier`, or Warning::kCount for none. Atomics
// write (and read) but do not conflict with atomics; an unknown dispatch
// access is compared only with a transfer's (it may be a read or a write,
// and two dispatches' accesses are reported only when both are known).
Warning Classify(const HazardAccess& earlier, const HazardAccess& later) {
  if (earlier.command == later.command) return Warning::kCount;  // one command's own accesses
  if (earlier.kind == HazardAccess::kAtomic && later.kind == HazardAccess::kAtomic) return Warning::kCount;
  const bool dispatches = earlier.stage == XGPU_PIPELINE_STAGE_DISPATCH_BIT &&
                          later.stage == XGPU_PIPELINE_STAGE_DISPATCH_BIT;
  if (dispatches && (earlier.kind == HazardAccess::kUnknown || later.kind == HazardAccess::kUnknown)) {
    return Warning::kCount;
  }
  if (Writes(earlier.kind)) {
    return Writes(later.kind) ? Warning::kHazardWriteAfterWrite : Warning::kHazardReadAfterWrite;
  }
  if (Writes(later.kind)) return Warning::kHazardWriteAfterRead;
  return Warning::kCount;
}

// Every read (write) access bit a mask stands for: MEMORY_READ (WRITE)
// holds them all.
uint32_t Expand(uint32_t mask) {
  if (mask & XGPU_ACCESS_MEMORY_READ_BIT) mask |= kReadBits;
  if (mask & XGPU_ACCESS_MEMORY_WRITE_BIT) mask |= kWriteBits;
  return mask;
}

// Whether the barriers recorded between `earlier` and `later` order them
// (and, for read-after-write and write-after-write, make the write visible
// to the later access), through one barrier or a chain of them, as Vulkan's
// synchronization validation follows chains: a barrier joins the chain when
// its source stages hold the earlier access's stage or a destination stage
// of a barrier already in it (ALL_COMMANDS holds every stage); the write
// becomes visible to a barrier's destination accesses when one of its memory
// barriers that meets the bytes has the write in its source access mask (the
// barrier's source stages holding the write's stage), or, chained, an
// access the write is already visible to.
template <typename Resolve>
bool Covered(const HazardLog& log, const HazardAccess& earlier, const HazardAccess& later, Warning type,
             const Range& bytes, Resolve resolve) {
  auto it = std::upper_bound(log.barriers.begin(), log.barriers.end(), earlier.command,
                             [](uint32_t command, const HazardBarrier& b) { return command < b.command; });
  const uint32_t src = (earlier.access & ~kReadBits) | XGPU_ACCESS_MEMORY_WRITE_BIT;
  uint32_t after = 0;    // stages ordered after the earlier access
  uint32_t visible = 0;  // accesses the earlier write is visible to (Expand()ed)
  for (; it != log.barriers.end() && it->command < later.command; ++it) {
    const bool direct = StageHas(it->src_stages, earlier.stage);
    const bool chained = direct || (it->src_stages & after) != 0 ||
                         ((after & XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT) != 0 && it->src_stages != 0) ||
                         ((it->src_stages & XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT) != 0 && after != 0);
    if (!chained) continue;
    after |= it->dst_stages;
    if (type == Warning::kHazardWriteAfterRead) {  // an execution dependency is enough
      if (StageHas(after, later.stage)) return true;
      continue;
    }
    uint32_t made_visible = 0;
    auto apply = [&](const HazardMemoryBarrier& m) {
      if (!m.global && !Meets(resolve(m.slot, m.target, m.offset, m.size), bytes)) return;
      if ((direct && (m.src_access & src) != 0) || (Expand(m.src_access) & visible) != 0)
        made_visible |= Expand(m.dst_access);
    };
    if (it->has_first) apply(it->first);
    for (const HazardMemoryBarrier& m : it->more) apply(m);
    visible |= made_visible;
    // Both sets only grow: once they cover the later access, later barriers change nothing.
    if (StageHas(after, later.stage) && (visible & Expand(later.access)) != 0) return true;
  }
  if (!StageHas(after, later.stage)) return false;
  return type == Warning::kHazardWriteAfterRead || (visible & Expand(later.access)) != 0;
}

std::string FieldOf(const HazardAccess& a) {
  return a.field_index < 0 ? std::string(a.field) : std::string(a.field) + " " + std::to_string(a.field_index);
}

std::string LabelText(const HazardLog& log, int32_t label) {
  if (label < 0) return "";
  return " in debug label \"" + log.label_names[static_cast<size_t>(label)] + "\"";
}

std::string BufferText(uint64_t buffer) { return DescribeHandle(XGPU_OBJECT_TYPE_BUFFER, buffer); }

std::string Bytes(const Range& r) {
  return "bytes [" + std::to_string(r.begin) + ", " + (r.end == UINT64_MAX ? std::string("end") : std::to_string(r.end)) + ")";
}

const char* Verb(const HazardAccess& a) {
  switch (a.kind) {
    case HazardAccess::kRead: return "reads";
    case HazardAccess::kWrite: return "writes";
    case HazardAccess::kAtomic: return "updates atomically";
    default: return "uses (reads or writes)";
  }
}

std::string Needed(const HazardAccess& earlier, const HazardAccess& later, Warning type) {
  auto stage = [](uint32_t s) {
    switch (s) {
      case XGPU_PIPELINE_STAGE_INDIRECT_BIT: return "INDIRECT";
      case XGPU_PIPELINE_STAGE_DISPATCH_BIT: return "DISPATCH";
      default: return "TRANSFER";
    }
  };
  std::string text = std::string("a barrier with ") + stage(earlier.stage) + " in srcStageMask and " +
                     stage(later.stage) + " in dstStageMask";
  if (type != Warning::kHazardWriteAfterRead) {
    const bool shader = later.stage == XGPU_PIPELINE_STAGE_DISPATCH_BIT;
    text += std::string(" and a memory barrier from ") +
            (earlier.access & XGPU_ACCESS_SHADER_WRITE_BIT ? "SHADER_WRITE" : "TRANSFER_WRITE") + " to " +
            (later.kind == HazardAccess::kUnknown || later.kind == HazardAccess::kAtomic ? "SHADER_READ or SHADER_WRITE"
             : later.stage == XGPU_PIPELINE_STAGE_INDIRECT_BIT ? "INDIRECT_READ"
             : later.kind == HazardAccess::kRead ? (shader ? "SHADER_READ" : "TRANSFER_READ")
             : (shader ? "SHADER_WRITE" : "TRANSFER_WRITE"));
  }
  return text;
}

// Reports the hazard between `earlier` and `later` on `bytes`; `where` prefixes the message.
void ReportHazard(const CallContext& ctx, const HazardLog& log, const HazardAccess& earlier, const HazardAccess& later,
                  Warning type, const Range& bytes, const std::string& where) {
  const char* name = type == Warning::kHazardReadAfterWrite    ? "read-after-write"
                     : type == Warning::kHazardWriteAfterWrite ? "write-after-write"
                                                               : "write-after-read";
  std::string message = std::string(NameOf(ctx.command)) + ": " + where + "synchronization hazard (" + name + "): " +
                        NameOf(later.what) + " (command " + std::to_string(later.command) + LabelText(log, later.label) +
                        ") " + Verb(later) + " " + FieldOf(later) + ", " + Bytes(bytes) + " of " +
                        BufferText(bytes.buffer) + ", which " + NameOf(earlier.what) + " (command " +
                        std::to_string(earlier.command) + LabelText(log, earlier.label) + ") " + Verb(earlier) +
                        " through " + FieldOf(earlier) + ", with no barrier between them that covers it (needed: " +
                        Needed(earlier, later, type) + ")";
  std::vector<ObjectRef> objects;
  if (Objects().Find(XGPU_OBJECT_TYPE_BUFFER, bytes.buffer) != nullptr) objects.push_back({XGPU_OBJECT_TYPE_BUFFER, bytes.buffer});
  ReportWarning(ctx, type, std::move(message), objects);
}

// Records `access` and compares it with the earlier accesses of its target.
void Add(const CallContext& ctx, HazardLog& log, HazardAccess access) {
  if (access.slot) log.has_slots = true;
  std::vector<uint32_t>& live = log.live[{access.slot, access.target}];
  const Range bytes = Unresolved(access.slot, access.target, access.offset, access.size);
  if (access.check_before) {
    for (auto it = live.rbegin(); it != live.rend(); ++it) {
      const HazardAccess& earlier = log.accesses[*it];
      const Warning type = Classify(earlier, access);
      if (type == Warning::kCount) continue;
      const Range before = Unresolved(earlier.slot, earlier.target, earlier.offset, earlier.size);
      if (!Meets(before, bytes)) continue;
      const Range common{bytes.buffer, std::max(before.begin, bytes.begin), std::min(before.end, bytes.end), true};
      auto same_target = [&](bool slot, uint64_t target, uint64_t offset, uint64_t size) {
        return slot == access.slot ? Unresolved(slot, target, offset, size) : Range{};
      };
      if (Covered(log, earlier, access, type, common, same_target)) continue;
      Range shown = common;
      if (access.slot) shown.buffer = 0;
      if (!access.slot) {
        ReportHazard(ctx, log, earlier, access, type, shown, "");
      } else {
        // Same slot: the same bytes whatever the table.
        std::string where = "binding-table slot " + std::to_string(access.target) + ": ";
        const char* name = type == Warning::kHazardReadAfterWrite    ? "read-after-write"
                           : type == Warning::kHazardWriteAfterWrite ? "write-after-write"
                                                                     : "write-after-read";
        std::string message = std::string(NameOf(ctx.command)) + ": synchronization hazard (" + name + ") on " + where +
                              NameOf(access.what) + " (command " + std::to_string(access.command) +
                              LabelText(log, access.label) + ") " + Verb(access) + " " + FieldOf(access) + ", bytes [" +
                              std::to_string(common.begin) + ", " +
                              (common.end == UINT64_MAX ? std::string("end") : std::to_string(common.end)) +
                              ") of the slot's binding, which " + NameOf(earlier.what) + " (command " +
                              std::to_string(earlier.command) + LabelText(log, earlier.label) + ") " + Verb(earlier) +
                              " through " + FieldOf(earlier) + ", with no barrier between them that covers it (needed: " +
                              Needed(earlier, access, type) + ")";
        ReportWarning(ctx, type, std::move(message), {});
      }
      break;  // one message per access
    }
  }
  // The new access supersedes earlier ones of its kind and stage that it covers.
  live.erase(std::remove_if(live.begin(), live.end(),
                            [&](uint32_t index) {
                              const HazardAccess& a = log.accesses[index];
                              return a.kind == access.kind && a.stage == access.stage &&
                                     Covers(bytes, Unresolved(a.slot, a.target, a.offset, a.size));
                            }),
             live.end());
  live.push_back(static_cast<uint32_t>(log.accesses.size()));
  log.accesses.push_back(std::move(access));
}

HazardAccess Access(const HazardLog& log, const RecordingState& recording, Command what, HazardAccess::Kind kind,
                    uint32_t stage, uint32_t access_bits, const XgpuBufferRef& ref, uint64_t size, const char* field,
                    int32_t field_index = -1) {
  HazardAccess a;
  a.command = recording.commands - 1;  // RecordingValidation counted the command already
  a.kind = kind;
  a.check_before = true;
  a.slot = ref.kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT;
  a.stage = stage;
  a.access = access_bits;
  a.target = a.slot ? ref.bindingSlot : H(ref.buffer);
  a.offset = ref.offset;
  a.size = size;
  a.label = log.label_stack.empty() ? -1 : log.label_stack.back();
  a.what = what;
  a.field = field;
  a.field_index = field_index;
  return a;
}

bool Named(const XgpuBufferRef* ref) {
  return IsUsablePointer(ref) && (ref->kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT ||
                                  (ref->kind == XGPU_BUFFER_REF_KIND_BUFFER && ref->buffer != XGPU_NULL_HANDLE));
}

// A dispatch's accesses of each binding, as its kernel makes them
// (PipelineLayout's masks, from XgpuPipelineProperties::bindingAccess).
void AddDispatchBindings(const CallContext& ctx, HazardLog& log, const RecordingState& recording) {
  if (!recording.has_pipeline) return;
  const PipelineLayout& layout = recording.layout;
  const uint32_t count = std::min<uint32_t>(layout.binding_count, recording.bound.size());
  for (uint32_t b = 0; b < count; ++b) {
    const XgpuBufferRef& ref = recording.bound[b];
    if (!Named(&ref)) continue;
    const uint64_t bit = b < 64 ? uint64_t{1} << b : 0;
    auto add = [&](HazardAccess::Kind kind, uint32_t access) {
      Add(ctx, log,
          Access(log, recording, ctx.command, kind, XGPU_PIPELINE_STAGE_DISPATCH_BIT, access, ref, ref.size, "binding",
                 static_cast<int32_t>(b)));
    };
    if (bit == 0 || (layout.binding_unknown & bit)) {
      add(HazardAccess::kUnknown, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
      continue;
    }
    if (layout.binding_reads & bit) add(HazardAccess::kRead, XGPU_ACCESS_SHADER_READ_BIT);
    if (layout.binding_writes & bit) add(HazardAccess::kWrite, XGPU_ACCESS_SHADER_WRITE_BIT);
    if (layout.binding_atomics & bit) {
      add(HazardAccess::kAtomic, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
    }
  }
}

void AddTransfer(const CallContext& ctx, const XgpuBufferRef* ref, HazardAccess::Kind kind, uint64_t size,
                 const char* field) {
  RecordingState* recording = nullptr;
  HazardLog* log = LogOf(ctx, &recording);
  if (log == nullptr || !Named(ref)) return;
  Add(ctx, *log,
      Access(*log, *recording, ctx.command, kind, XGPU_PIPELINE_STAGE_TRANSFER_BIT,
             kind == HazardAccess::kWrite ? XGPU_ACCESS_TRANSFER_WRITE_BIT : XGPU_ACCESS_TRANSFER_READ_BIT, *ref, size,
             field));
}

void AddBarrier(const CallContext& ctx, uint32_t src_stages, uint32_t dst_stages, std::vector<HazardMemoryBarrier> memory) {
  RecordingState* recording = nullptr;
  HazardLog* log = LogOf(ctx, &recording);
  if (log == nullptr) return;
  for (const HazardMemoryBarrier& m : memory) log->has_slots |= m.slot;
  HazardBarrier barrier{recording->commands - 1, src_stages, dst_stages, !memory.empty(), {}, {}};
  if (!memory.empty()) {
    barrier.first = memory.front();
    barrier.more.assign(memory.begin() + 1, memory.end());
  }
  log->barriers.push_back(std::move(barrier));
}

}  // namespace

void SyncHazards::RecordCmdDispatch(CallContext& ctx, XgpuCommandBuffer, uint32_t, uint32_t, uint32_t) {
  RecordingState* recording = nullptr;
  if (HazardLog* log = LogOf(ctx, &recording)) AddDispatchBindings(ctx, *log, *recording);
}

void SyncHazards::RecordCmdDispatchIndirect(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pCounts,
                                            XgpuDispatchIndirectFlags) {
  RecordingState* recording = nullptr;
  HazardLog* log = LogOf(ctx, &recording);
  if (log == nullptr) return;
  if (Named(pCounts)) {
    HazardAccess counts = Access(*log, *recording, ctx.command, HazardAccess::kRead, XGPU_PIPELINE_STAGE_INDIRECT_BIT,
                                 XGPU_ACCESS_INDIRECT_READ_BIT, *pCounts, 12, "pCounts");
    counts.check_before = false;  // the spec's -hazard rules of xgpuCmdDispatchIndirect
    Add(ctx, *log, std::move(counts));
  }
  AddDispatchBindings(ctx, *log, *recording);
}

void SyncHazards::RecordCmdFillBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pDst, const void*,
                                      uint32_t) {
  if (IsUsablePointer(pDst)) AddTransfer(ctx, pDst, HazardAccess::kWrite, pDst->size, "pDst");
}

void SyncHazards::RecordCmdCopyBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pSrc,
                                      const XgpuBufferRef* pDst, XgpuDeviceSize size) {
  AddTransfer(ctx, pSrc, HazardAccess::kRead, size, "pSrc");
  AddTransfer(ctx, pDst, HazardAccess::kWrite, size, "pDst");
}

void SyncHazards::RecordCmdUpdateBuffer(CallContext& ctx, XgpuCommandBuffer, const XgpuBufferRef* pDst,
                                        XgpuDeviceSize dataSize, const void*) {
  AddTransfer(ctx, pDst, HazardAccess::kWrite, dataSize, "pDst");
}

void SyncHazards::RecordCmdWriteTimestamp(CallContext& ctx, XgpuCommandBuffer, XgpuPipelineStageFlagBits,
                                          const XgpuBufferRef* pDst) {
  AddTransfer(ctx, pDst, HazardAccess::kWrite, 8, "pDst");  // a transfer write of 8 bytes (api.md)
}

void SyncHazards::RecordCmdPipelineBarrier(CallContext& ctx, XgpuCommandBuffer, XgpuPipelineStageFlags srcStageMask,
                                           XgpuPipelineStageFlags dstStageMask, uint32_t memoryBarrierCount,
                                           const XgpuMemoryBarrier* pMemoryBarriers, uint32_t bufferBarrierCount,
                                           const XgpuBufferMemoryBarrier* pBufferBarriers) {
  if (LogOf(ctx) == nullptr) return;
  std::vector<HazardMemoryBarrier> memory;
  for (uint32_t i = 0; i < memoryBarrierCount && IsUsablePointer(pMemoryBarriers); ++i) {
    memory.push_back({true, false, 0, 0, XGPU_WHOLE_SIZE, pMemoryBarriers[i].srcAccessMask,
                      pMemoryBarriers[i].dstAccessMask});
  }
  for (uint32_t i = 0; i < bufferBarrierCount && IsUsablePointer(pBufferBarriers); ++i) {
    const XgpuBufferRef& ref = pBufferBarriers[i].buffer;
    if (!Named(&ref)) continue;
    const bool slot = ref.kind == XGPU_BUFFER_REF_KIND_BINDING_SLOT;
    memory.push_back({false, slot, slot ? ref.bindingSlot : H(ref.buffer), ref.offset, ref.size,
                      pBufferBarriers[i].srcAccessMask, pBufferBarriers[i].dstAccessMask});
  }
  AddBarrier(ctx, srcStageMask, dstStageMask, std::move(memory));
}

void SyncHazards::RecordCmdMemoryBarrier(CallContext& ctx, XgpuCommandBuffer, XgpuPipelineStageFlags srcStageMask,
                                         XgpuAccessFlags srcAccessMask, XgpuPipelineStageFlags dstStageMask,
                                         XgpuAccessFlags dstAccessMask) {
  RecordingState* recording = nullptr;
  HazardLog* log = LogOf(ctx, &recording);
  if (log == nullptr) return;
  log->barriers.push_back({recording->commands - 1, srcStageMask, dstStageMask, true,
                           {true, false, 0, 0, XGPU_WHOLE_SIZE, srcAccessMask, dstAccessMask}, {}});
}

void SyncHazards::RecordCmdBeginDebugLabel(CallContext& ctx, XgpuCommandBuffer, const XgpuDebugLabel* pLabel) {
  HazardLog* log = LogOf(ctx);
  if (log == nullptr) return;
  log->label_names.emplace_back(IsUsablePointer(pLabel) && pLabel->pLabelName ? pLabel->pLabelName : "");
  log->label_stack.push_back(static_cast<int32_t>(log->label_names.size() - 1));
}

void SyncHazards::RecordCmdEndDebugLabel(CallContext& ctx, XgpuCommandBuffer) {
  HazardLog* log = LogOf(ctx);
  if (log != nullptr && !log->label_stack.empty()) log->label_stack.pop_back();
}

bool SyncHazards::ValidateQueueSubmit(CallContext& ctx, XgpuQueue, uint32_t submitCount,
                                      const XgpuSubmitInfo* pSubmits) const {
  if (ctx.instance == nullptr || !ctx.instance->settings.sync_hazards || !IsUsablePointer(pSubmits)) return false;
  for (uint32_t i = 0; i < submitCount; ++i) {
    const XgpuSubmitInfo& submit = pSubmits[i];
    if (submit.commandBuffer == XGPU_NULL_HANDLE) continue;
    ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(submit.commandBuffer));
    if (cb == nullptr || cb->status.load(std::memory_order_relaxed) == CommandBufferStatus::kRecording ||
        cb->recording == nullptr) {
      continue;
    }
    std::shared_ptr<HazardLog> log = cb->recording->hazards;
    if (!log || !log->has_slots || !IsUsablePointer(submit.pBindings)) continue;
    {
      std::lock_guard lock(log->submit_mutex);
      if (log->analysed && log->last_table.size() == submit.bindingCount &&
          std::equal(log->last_table.begin(), log->last_table.end(), submit.pBindings,
                     [](const XgpuBufferBinding& a, const XgpuBufferBinding& b) {
                       return a.buffer == b.buffer && a.offset == b.offset && a.size == b.size;
                     })) {
        continue;  // analysed with this table before
      }
      log->analysed = true;
      log->last_table.assign(submit.pBindings, submit.pBindings + submit.bindingCount);
    }
    auto resolve = [&](bool slot, uint64_t target, uint64_t offset, uint64_t size) {
      return Resolved(slot, target, offset, size, submit);
    };
    std::map<uint64_t, std::vector<uint32_t>> live;  // per buffer
    const std::string where = "pSubmits[" + std::to_string(i) + "] (" + Describe(cb) + ", with its binding table): ";
    for (uint32_t index = 0; index < log->accesses.size(); ++index) {
      const HazardAccess& access = log->accesses[index];
      const Range bytes = resolve(access.slot, access.target, access.offset, access.size);
      if (!bytes.ok) continue;
      std::vector<uint32_t>& list = live[bytes.buffer];
      if (access.check_before) {
        for (auto it = list.rbegin(); it != list.rend(); ++it) {
          const HazardAccess& earlier = log->accesses[*it];
          // Pairs of the same buffer or the same slot were compared at the call.
          if (!earlier.slot && !access.slot) continue;
          if (earlier.slot && access.slot && earlier.target == access.target) continue;
          const Warning type = Classify(earlier, access);
          if (type == Warning::kCount) continue;
          const Range before = resolve(earlier.slot, earlier.target, earlier.offset, earlier.size);
          if (!Meets(before, bytes)) continue;
          const Range common{bytes.buffer, std::max(before.begin, bytes.begin), std::min(before.end, bytes.end), true};
          if (Covered(*log, earlier, access, type, common, resolve)) continue;
          ReportHazard(ctx, *log, earlier, access, type, common, where);
          break;
        }
      }
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](uint32_t e) {
                                  const HazardAccess& a = log->accesses[e];
                                  return a.kind == access.kind && a.stage == access.stage &&
                                         Covers(bytes, resolve(a.slot, a.target, a.offset, a.size));
                                }),
                 list.end());
      list.push_back(index);
    }
  }
  return false;
}

}  // namespace xgpu_validation
