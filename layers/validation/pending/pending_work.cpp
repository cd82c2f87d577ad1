#include "pending_work.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "../chassis/object_map.h"

namespace xgpu_validation {
namespace {

template <typename Handle>
uint64_t H(Handle handle) {
  return reinterpret_cast<uintptr_t>(handle);
}

// The objects a semaphore list names (its semaphores).
void AddSemaphores(const XgpuSemaphoreList* list, std::vector<std::pair<XgpuObjectType, uint64_t>>* objects) {
  if (!IsUsablePointer(list) || !IsUsablePointer(list->pSemaphores)) return;
  for (uint32_t i = 0; i < list->count; ++i) objects->push_back({XGPU_OBJECT_TYPE_SEMAPHORE, H(list->pSemaphores[i])});
}

std::string QueueText(uint64_t queue) {
  if (const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_QUEUE, queue)) return Describe(record);
  return "a queue";
}

}  // namespace

// ---- state ----

bool PendingWork::PendingLocked(const Key& key, Use* use) const {
  auto it = uses_.find(key);
  if (it == uses_.end()) return false;
  for (const Use& u : it->second) {
    auto q = queues_.find(u.queue);
    if (q != queues_.end() && u.seq > q->second.completed) {
      *use = u;
      return true;
    }
  }
  return false;
}

bool PendingWork::Pending(XgpuObjectType type, uint64_t handle, Use* use) const {
  std::lock_guard lock(mutex_);
  return PendingLocked({type, handle}, use);
}

uint64_t PendingWork::AddOpLocked(const CallContext& ctx, uint64_t queue, const std::vector<Key>& objects,
                                  const XgpuSemaphoreList* wait, const XgpuSemaphoreList* signal) {
  LastOp& last = last_op_;
  const bool same_queue = last.q != nullptr && last.queue == queue && last.epoch == epoch_;
  Queue& q = same_queue ? *last.q : queues_[queue];
  q.device = ctx.device;
  const uint64_t seq = ++q.submitted;
  if (same_queue && last.objects == objects) {
    for (const auto& [uses, index] : last.places) (*uses)[index].seq = seq;
  } else {
    last.q = nullptr;  // until the places below are complete (an allocation may throw)
    last.places.clear();
    for (const Key& key : objects) {
      std::vector<Use>& uses = uses_[key];
      auto it = std::find_if(uses.begin(), uses.end(), [&](const Use& u) { return u.queue == queue; });
      if (it != uses.end()) {
        it->seq = seq;
      } else {
        uses.push_back({queue, seq});
        it = uses.end() - 1;
      }
      last.places.push_back({&uses, static_cast<size_t>(it - uses.begin())});
    }
    last.objects = objects;
    last.queue = queue;
    last.epoch = epoch_;
    last.q = &q;
  }
  auto payloads = [](const XgpuSemaphoreList* list, Payloads* out) {
    if (!IsUsablePointer(list) || !IsUsablePointer(list->pSemaphores) || !IsUsablePointer(list->pValues)) return;
    for (uint32_t i = 0; i < list->count; ++i) out->push_back({H(list->pSemaphores[i]), list->pValues[i]});
  };
  Op op{seq, {}, {}};
  payloads(signal, &op.signals);
  payloads(wait, &op.waits);
  if (!op.signals.empty() || !op.waits.empty()) q.signalling.push_back(std::move(op));
  return seq;
}

void PendingWork::CompleteLocked(Queue& q, uint64_t seq, Payloads* reached) {
  if (seq > q.completed) q.completed = seq;  // the queue is in order: everything before too
  while (!q.signalling.empty() && q.signalling.front().seq <= q.completed) {
    const Op& op = q.signalling.front();
    reached->insert(reached->end(), op.waits.begin(), op.waits.end());
    q.signalling.pop_front();
  }
}

void PendingWork::ObserveAllLocked(Payloads* reached) {
  // Each round completes at least one operation (or ends): it terminates.
  while (!reached->empty()) {
    const auto [semaphore, value] = reached->back();
    reached->pop_back();
    for (auto& [handle, q] : queues_) {
      uint64_t upto = 0;
      for (const Op& op : q.signalling) {
        for (const auto& [s, payload] : op.signals) {
          if (s == semaphore && payload <= value) upto = std::max(upto, op.seq);
        }
      }
      if (upto > q.completed) CompleteLocked(q, upto, reached);
    }
  }
}

void PendingWork::ObserveLocked(uint64_t semaphore, uint64_t value) {
  Payloads reached{{semaphore, value}};
  ObserveAllLocked(&reached);
}

void PendingWork::PruneLocked() {
  deallocas_.erase(std::remove_if(deallocas_.begin(), deallocas_.end(),
                                  [&](const Dealloca& d) {
                                    auto q = queues_.find(d.queue);
                                    return q == queues_.end() || d.seq <= q->second.completed;
                                  }),
                   deallocas_.end());
}

void PendingWork::Forget(XgpuObjectType type, uint64_t handle) {
  std::lock_guard lock(mutex_);
  uses_.erase({type, handle});
  ++epoch_;
  if (type == XGPU_OBJECT_TYPE_BUFFER) cross_.erase(handle);  // a new buffer may get its handle
}

bool PendingWork::CheckInUse(CallContext& ctx, Vuid vuid, const char* field, XgpuObjectType type,
                             uint64_t handle) const {
  Use use{};
  if (!Enabled(ctx) || handle == 0 || !Pending(type, handle, &use)) return false;
  const ObjectRecord* record = Objects().Find(type, handle);
  if (record == nullptr) return false;
  return ctx.Report(vuid, Field{field},
                    Describe(record) + ", used by operation " + std::to_string(use.seq) + " of " +
                        QueueText(use.queue) +
                        ", which the host has not yet seen complete (wait on one of its signal semaphores, or "
                        "xgpuQueueWaitIdle)",
                    {{type, handle}});
}

// ---- the rules ----

bool PendingWork::ValidateBeginCommandBuffer(CallContext& ctx, XgpuCommandBuffer commandBuffer,
                                             const XgpuCommandBufferBeginInfo*) const {
  return CheckInUse(ctx, Vuid::xgpuBeginCommandBuffer_commandBuffer_pending, "commandBuffer",
                    XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(commandBuffer));
}

bool PendingWork::ValidateDestroyCommandBuffer(CallContext& ctx, XgpuDevice, XgpuCommandBuffer commandBuffer,
                                               const XgpuAllocationCallbacks*) const {
  return CheckInUse(ctx, Vuid::xgpuDestroyCommandBuffer_commandBuffer_pending, "commandBuffer",
                    XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(commandBuffer));
}

void PendingWork::PostRecordDestroyCommandBuffer(CallContext&, XgpuDevice, XgpuCommandBuffer commandBuffer,
                                                 const XgpuAllocationCallbacks*) {
  Forget(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(commandBuffer));
}

bool PendingWork::ValidateDestroyBuffer(CallContext& ctx, XgpuDevice, XgpuBuffer buffer,
                                        const XgpuAllocationCallbacks*) const {
  return CheckInUse(ctx, Vuid::xgpuDestroyBuffer_buffer_inUse, "buffer", XGPU_OBJECT_TYPE_BUFFER, H(buffer));
}

void PendingWork::PostRecordDestroyBuffer(CallContext&, XgpuDevice, XgpuBuffer buffer,
                                          const XgpuAllocationCallbacks*) {
  Forget(XGPU_OBJECT_TYPE_BUFFER, H(buffer));
}

bool PendingWork::ValidateDestroyPipeline(CallContext& ctx, XgpuDevice, XgpuPipeline pipeline,
                                          const XgpuAllocationCallbacks*) const {
  return CheckInUse(ctx, Vuid::xgpuDestroyPipeline_pipeline_inUse, "pipeline", XGPU_OBJECT_TYPE_PIPELINE, H(pipeline));
}

void PendingWork::PostRecordDestroyPipeline(CallContext&, XgpuDevice, XgpuPipeline pipeline,
                                            const XgpuAllocationCallbacks*) {
  Forget(XGPU_OBJECT_TYPE_PIPELINE, H(pipeline));
}

bool PendingWork::ValidateDestroySemaphore(CallContext& ctx, XgpuDevice, XgpuSemaphore semaphore,
                                           const XgpuAllocationCallbacks*) const {
  return CheckInUse(ctx, Vuid::xgpuDestroySemaphore_semaphore_inUse, "semaphore", XGPU_OBJECT_TYPE_SEMAPHORE,
                    H(semaphore));
}

void PendingWork::PostRecordDestroySemaphore(CallContext&, XgpuDevice, XgpuSemaphore semaphore,
                                             const XgpuAllocationCallbacks*) {
  Forget(XGPU_OBJECT_TYPE_SEMAPHORE, H(semaphore));
}

bool PendingWork::ValidateDestroyDevice(CallContext& ctx, XgpuDevice, const XgpuAllocationCallbacks*) const {
  if (!Enabled(ctx) || ctx.device == nullptr) return false;
  std::lock_guard lock(mutex_);
  for (const auto& [handle, q] : queues_) {
    if (q.device == ctx.device && q.completed < q.submitted) {
      // Reported; the destroy goes on once the device is idle (PreRecord).
      ctx.Report(Vuid::xgpuDestroyDevice_device_idle, Field{"device"},
                 Describe(ctx.dispatch_record) + ", whose " + QueueText(handle) + " has " +
                     std::to_string(q.submitted - q.completed) +
                     " operation(s) the host has not yet seen complete (xgpuDeviceWaitIdle ensures it)");
      break;
    }
  }
  return false;
}

void PendingWork::PreRecordDestroyDevice(CallContext& ctx, XgpuDevice device, const XgpuAllocationCallbacks*) {
  if (ctx.device == nullptr) return;
  bool busy = false;
  {
    std::lock_guard lock(mutex_);
    std::vector<uint64_t> gone;
    for (auto it = queues_.begin(); it != queues_.end();) {
      if (it->second.device == ctx.device) {
        busy |= it->second.completed < it->second.submitted;
        gone.push_back(it->first);
        it = queues_.erase(it);
        ++epoch_;
      } else {
        ++it;
      }
    }
    auto of_device = [&](uint64_t queue) { return std::find(gone.begin(), gone.end(), queue) != gone.end(); };
    // The device's queues' accesses (a new device's queues may get their handles).
    for (auto it = cross_.begin(); it != cross_.end();) {
      for (uint64_t queue : gone) it->second.erase(queue);
      it = it->second.empty() ? cross_.erase(it) : std::next(it);
    }
    for (auto it = allocas_.begin(); it != allocas_.end();) {
      it = of_device(it->second.queue) ? allocas_.erase(it) : std::next(it);
    }
    alloca_count_.store(allocas_.size(), std::memory_order_release);
    deallocas_.erase(std::remove_if(deallocas_.begin(), deallocas_.end(),
                                    [&](const Dealloca& d) { return of_device(d.queue); }),
                     deallocas_.end());
  }
  // The driver sees a device destroyed under its work only when that work
  // outlives the layer's bounded wait; the driver then waits its own bound
  // and abandons it (api.md, xgpuDestroyDevice).
  (void)device;
  if (busy) DrainDevice(*ctx.device);
}

bool PendingWork::ValidateQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                                      const XgpuSubmitInfo* pSubmits) const {
  if (!Enabled(ctx) || !IsUsablePointer(pSubmits)) return false;
  bool skip = false;
  for (uint32_t i = 0; i < submitCount; ++i) {
    if (pSubmits[i].commandBuffer == XGPU_NULL_HANDLE) continue;
    const ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(pSubmits[i].commandBuffer));
    if (cb == nullptr || cb->recording == nullptr ||
        cb->status.load(std::memory_order_relaxed) != CommandBufferStatus::kExecutable) {
      continue;
    }
    const RecordingState& recording = *cb->recording;
    const uint64_t removals = g_lookup_removals.load(std::memory_order_acquire);
    if (recording.direct_objects_alive_at.load(std::memory_order_relaxed) == removals) continue;
    bool alive = true;
    for (const auto& [type, handle] : recording.direct_objects) {
      if (Objects().Find(type, handle) != nullptr) continue;
      alive = false;
      std::string what = std::string(TypeName(type)) + " " + hex(handle);
      if (auto destroyed = Objects().FindDestroyed(type, handle)) {
        what += std::string(" (destroyed by ") + NameOf(destroyed->destroyed_by) +
                (destroyed->name.empty() ? "" : ", named \"" + destroyed->name + "\"") + ")";
      }
      skip |= ctx.Report(Vuid::xgpuQueueSubmit_pSubmits_inUse, Field{"pSubmits[i].commandBuffer", i},
                         Describe(cb) + ", whose recording uses " + what + ", which no longer exists",
                         {{cb->type, cb->handle}});
      break;
    }
    if (alive) recording.direct_objects_alive_at.store(removals, std::memory_order_relaxed);
  }
  skip |= CheckStaticCounts(ctx, queue, submitCount, pSubmits);
  // Cross-queue hazards: warnings, the call goes on.
  if (Hazards(ctx)) {
    for (uint32_t i = 0; i < submitCount; ++i) {
      std::vector<BufferAccess> accesses;
      SubmissionAccesses(pSubmits[i], i, &accesses);
      if (!accesses.empty()) (void)CheckCrossQueue(ctx, H(queue), &pSubmits[i].waitSemaphores, accesses);
    }
  }
  // Queue-allocated buffers used: committed before each submission runs.
  // (Read without the lock: a queue-allocated buffer this submission names
  // came from an alloca that returned before this call, after the count
  // was published.)
  if (alloca_count_.load(std::memory_order_acquire) == 0) return skip;
  for (uint32_t i = 0; i < submitCount; ++i) {
    const XgpuSubmitInfo& submit = pSubmits[i];
    if (IsUsablePointer(submit.pBindings)) {
      for (uint32_t j = 0; j < submit.bindingCount; ++j) {
        skip |= CheckCommitted(ctx, Vuid::xgpuQueueSubmit_pSubmits_queueAllocated,
                               Field{"pSubmits[i].pBindings[j].buffer", i, j}, H(submit.pBindings[j].buffer),
                               H(queue), &submit.waitSemaphores);
      }
    }
    const ObjectRecord* cb = submit.commandBuffer == XGPU_NULL_HANDLE
                                 ? nullptr
                                 : Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(submit.commandBuffer));
    if (cb == nullptr || cb->recording == nullptr) continue;
    for (const auto& [type, handle] : cb->recording->direct_objects) {
      if (type != XGPU_OBJECT_TYPE_BUFFER) continue;
      skip |= CheckCommitted(ctx, Vuid::xgpuQueueSubmit_pSubmits_queueAllocated, Field{"pSubmits[i].commandBuffer", i},
                             handle, H(queue), &submit.waitSemaphores);
    }
  }
  return skip;
}

// STATIC indirect counts are read on the host when the submission is
// issued. They are final at the call, and the layer can read them, only when
// nothing can write them in between: the first submission of the call, which
// waits on nothing, on a queue the host has seen idle (earlier work on it
// could still write them), with the counts inside the application's mapping
// of their buffer. Otherwise the driver's check at issue reports the rule.
bool PendingWork::CheckStaticCounts(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                                    const XgpuSubmitInfo* pSubmits) const {
  if (submitCount == 0) return false;
  const XgpuSubmitInfo& submit = pSubmits[0];
  if (submit.commandBuffer == XGPU_NULL_HANDLE || submit.waitSemaphores.count != 0) return false;
  const ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(submit.commandBuffer));
  if (cb == nullptr || cb->recording == nullptr ||
      cb->status.load(std::memory_order_relaxed) != CommandBufferStatus::kExecutable) {
    return false;
  }
  const RecordingState& recording = *cb->recording;
  bool any_static = false;
  for (const RecordingState::IndirectRead& read : recording.indirect_reads) any_static |= read.is_static;
  if (!any_static) return false;
  {
    std::lock_guard lock(mutex_);
    auto q = queues_.find(H(queue));
    if (q != queues_.end() && q->second.completed < q->second.submitted) return false;
  }
  bool skip = false;
  for (const RecordingState::IndirectRead& read : recording.indirect_reads) {
    if (!read.is_static || read.max_counts[0] == 0) continue;
    uint64_t buffer = read.target;
    uint64_t offset = read.offset;
    if (read.slot) {
      if (read.target >= submit.bindingCount || !IsUsablePointer(submit.pBindings)) continue;
      buffer = H(submit.pBindings[read.target].buffer);
      offset += submit.pBindings[read.target].offset;
    }
    const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, buffer);
    if (record == nullptr || !record->mapped.load(std::memory_order_relaxed)) continue;
    const uint8_t* data = record->mapped_data.load(std::memory_order_acquire);
    const uint64_t begin = record->mapped_offset.load(std::memory_order_relaxed);
    const uint64_t size = record->mapped_size.load(std::memory_order_relaxed);
    if (data == nullptr || offset < begin || offset - begin > size || size - (offset - begin) < 12) continue;
    uint32_t counts[3];
    std::memcpy(counts, data + (offset - begin), sizeof(counts));
    if (counts[0] == 0 || counts[1] == 0 || counts[2] == 0) continue;  // an empty dispatch
    std::string over;
    static const char* const kAxis[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
      if (counts[d] <= read.max_counts[d]) continue;
      over += std::string(over.empty() ? "" : ", ") + kAxis[d] + " " + std::to_string(counts[d]) + " > " +
              std::to_string(read.max_counts[d]);
    }
    if (over.empty()) continue;
    skip |= ctx.Report(Vuid::xgpuCmdDispatchIndirect_static_counts, Field{"pSubmits[i].commandBuffer", 0},
                       Describe(cb) + ", command " + std::to_string(read.command) +
                           " (xgpuCmdDispatchIndirect, STATIC): the counts (" + std::to_string(counts[0]) + ", " +
                           std::to_string(counts[1]) + ", " + std::to_string(counts[2]) + ") at offset " +
                           std::to_string(offset) + " of " + Describe(record) +
                           " exceed the bound pipeline's maxWorkgroupCount (" + std::to_string(read.max_counts[0]) +
                           ", " + std::to_string(read.max_counts[1]) + ", " + std::to_string(read.max_counts[2]) +
                           "): " + over,
                       {{cb->type, cb->handle}, {record->type, record->handle}});
  }
  return skip;
}

// ---- queue-ordered allocation ----

bool PendingWork::CheckCommitted(CallContext& ctx, Vuid vuid, const Field& field, uint64_t buffer, uint64_t queue,
                                 const XgpuSemaphoreList* wait) const {
  std::lock_guard lock(mutex_);
  auto it = allocas_.find(buffer);
  if (it == allocas_.end()) return false;
  const Alloca& alloca = it->second;
  if (alloca.queue == queue) return false;  // after the alloca in queue order
  if (auto q = queues_.find(alloca.queue); q != queues_.end() && q->second.completed >= alloca.seq) return false;
  if (IsUsablePointer(wait) && IsUsablePointer(wait->pSemaphores) && IsUsablePointer(wait->pValues)) {
    for (uint32_t k = 0; k < wait->count; ++k) {
      for (const auto& [semaphore, payload] : alloca.signals) {
        if (H(wait->pSemaphores[k]) == semaphore && wait->pValues[k] >= payload) return false;
      }
    }
  }
  const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, buffer);
  return ctx.Report(vuid, field,
                    (record ? Describe(record) : std::string("a queue-allocated buffer")) +
                        ", allocated by xgpuQueueAlloca on " + QueueText(alloca.queue) +
                        ": this operation runs on another queue and waits on none of the alloca's signal payloads, "
                        "so it may run before the allocation commits",
                    {{XGPU_OBJECT_TYPE_BUFFER, buffer}});
}

bool PendingWork::CheckHostCommitted(CallContext& ctx, Vuid vuid, XgpuBuffer buffer) const {
  if (!Enabled(ctx)) return false;
  std::lock_guard lock(mutex_);
  auto it = allocas_.find(H(buffer));
  if (it == allocas_.end()) return false;
  auto q = queues_.find(it->second.queue);
  if (q != queues_.end() && q->second.completed >= it->second.seq) return false;
  const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, H(buffer));
  return ctx.Report(vuid, Field{"buffer"},
                    (record ? Describe(record) : std::string("a queue-allocated buffer")) +
                        ", whose alloca the host has not yet seen commit (wait on one of its signal semaphores)",
                    {{XGPU_OBJECT_TYPE_BUFFER, H(buffer)}});
}

bool PendingWork::ValidateMapBuffer(CallContext& ctx, XgpuDevice, XgpuBuffer buffer, XgpuDeviceSize, XgpuDeviceSize,
                                    void**) const {
  return CheckHostCommitted(ctx, Vuid::xgpuMapBuffer_buffer_committed, buffer);
}

bool PendingWork::ValidateGetBufferDeviceAddress(CallContext& ctx, XgpuDevice, XgpuBuffer buffer) const {
  return CheckHostCommitted(ctx, Vuid::xgpuGetBufferDeviceAddress_buffer_committed, buffer);
}

bool PendingWork::ValidateQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                          const XgpuSemaphoreList*, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                                          XgpuDeviceSize size, const void*, uint32_t) const {
  if (!Enabled(ctx)) return false;
  // A warning: the call goes on whatever it says.
  if (Hazards(ctx)) {
    (void)CheckCrossQueue(ctx, H(queue), pWaitSemaphores,
                          {QueueTransferAccess(dstBuffer, dstOffset, size, true, "xgpuQueueFillBuffer")});
  }
  return CheckCommitted(ctx, Vuid::xgpuQueueFillBuffer_dstBuffer_queueAllocated, Field{"dstBuffer"}, H(dstBuffer),
                        H(queue), pWaitSemaphores);
}

bool PendingWork::ValidateQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                          const XgpuSemaphoreList*, XgpuBuffer srcBuffer, XgpuDeviceSize srcOffset,
                                          XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset, XgpuDeviceSize size) const {
  if (!Enabled(ctx)) return false;
  if (Hazards(ctx)) {
    (void)CheckCrossQueue(ctx, H(queue), pWaitSemaphores,
                          {QueueTransferAccess(srcBuffer, srcOffset, size, false, "xgpuQueueCopyBuffer"),
                           QueueTransferAccess(dstBuffer, dstOffset, size, true, "xgpuQueueCopyBuffer")});
  }
  bool skip = CheckCommitted(ctx, Vuid::xgpuQueueCopyBuffer_queueAllocated, Field{"srcBuffer"}, H(srcBuffer),
                             H(queue), pWaitSemaphores);
  if (dstBuffer != srcBuffer) {
    skip |= CheckCommitted(ctx, Vuid::xgpuQueueCopyBuffer_queueAllocated, Field{"dstBuffer"}, H(dstBuffer), H(queue),
                           pWaitSemaphores);
  }
  return skip;
}

bool PendingWork::ValidateQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                        const XgpuSemaphoreList*, XgpuBuffer buffer) const {
  if (!Enabled(ctx)) return false;
  std::lock_guard lock(mutex_);
  auto it = uses_.find({XGPU_OBJECT_TYPE_BUFFER, H(buffer)});
  if (it == uses_.end()) return false;
  for (const Use& use : it->second) {
    if (use.queue == H(queue)) continue;  // before the dealloca in queue order
    auto q = queues_.find(use.queue);
    if (q == queues_.end() || use.seq <= q->second.completed) continue;  // seen complete
    // The dealloca must wait on a payload signalled by that operation or a later one of its queue.
    bool ordered = false;
    if (IsUsablePointer(pWaitSemaphores) && IsUsablePointer(pWaitSemaphores->pSemaphores) &&
        IsUsablePointer(pWaitSemaphores->pValues)) {
      for (const Op& op : q->second.signalling) {
        if (op.seq < use.seq) continue;
        for (const auto& [semaphore, payload] : op.signals) {
          for (uint32_t k = 0; k < pWaitSemaphores->count && !ordered; ++k) {
            ordered = H(pWaitSemaphores->pSemaphores[k]) == semaphore && pWaitSemaphores->pValues[k] >= payload;
          }
        }
      }
    }
    if (ordered) continue;
    const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, H(buffer));
    return ctx.Report(Vuid::xgpuQueueDealloca_buffer_ordered, Field{"buffer"},
                      (record ? Describe(record) : std::string("the buffer")) + ", used by operation " +
                          std::to_string(use.seq) + " of " + QueueText(use.queue) +
                          ", which this dealloca neither follows in queue order nor waits for",
                      {{XGPU_OBJECT_TYPE_BUFFER, H(buffer)}});
  }
  return false;
}

bool PendingWork::ValidateDestroyMemoryPool(CallContext& ctx, XgpuDevice, XgpuMemoryPool memoryPool,
                                            const XgpuAllocationCallbacks*) const {
  if (!Enabled(ctx)) return false;
  const uint64_t pool = H(memoryPool);
  std::vector<std::string> problems;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [buffer, alloca] : allocas_) {
      if (alloca.pool != pool) continue;
      const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_BUFFER, buffer);
      problems.push_back((record ? Describe(record) : std::string("a buffer")) + " is still allocated from it");
    }
    for (const Dealloca& d : deallocas_) {
      auto q = queues_.find(d.queue);
      if (d.pool != pool || q == queues_.end() || d.seq <= q->second.completed) continue;
      problems.push_back("a dealloca on " + QueueText(d.queue) + " has not been seen complete");
    }
  }
  bool skip = false;
  const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_MEMORY_POOL, pool);
  for (const std::string& problem : problems) {
    skip |= ctx.Report(Vuid::xgpuDestroyMemoryPool_memoryPool_allocations, Field{"memoryPool"},
                       (record ? Describe(record) : std::string("the pool")) + ": " + problem, {{XGPU_OBJECT_TYPE_MEMORY_POOL, pool}});
  }
  return skip;
}

void PendingWork::PostRecordDestroyMemoryPool(CallContext&, XgpuDevice, XgpuMemoryPool memoryPool,
                                              const XgpuAllocationCallbacks*) {
  std::lock_guard lock(mutex_);
  const uint64_t pool = H(memoryPool);
  deallocas_.erase(std::remove_if(deallocas_.begin(), deallocas_.end(), [&](const Dealloca& d) { return d.pool == pool; }),
                   deallocas_.end());
}

void PendingWork::PostRecordQueueSubmit(CallContext& ctx, XgpuQueue queue, uint32_t submitCount,
                                        const XgpuSubmitInfo* pSubmits, XgpuResult result) {
  if (result < 0 || !Enabled(ctx) || !IsUsablePointer(pSubmits)) return;
  std::lock_guard lock(mutex_);
  std::vector<Key>& objects = scratch_;  // reused under the lock: no allocation per call
  for (uint32_t i = 0; i < submitCount; ++i) {
    const XgpuSubmitInfo& submit = pSubmits[i];
    objects.clear();
    AddSemaphores(&submit.waitSemaphores, &objects);
    AddSemaphores(&submit.signalSemaphores, &objects);
    if (submit.commandBuffer != XGPU_NULL_HANDLE) {
      objects.push_back({XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(submit.commandBuffer)});
      const ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(submit.commandBuffer));
      if (cb != nullptr && cb->recording != nullptr) {
        objects.insert(objects.end(), cb->recording->direct_objects.begin(), cb->recording->direct_objects.end());
      }
    }
    if (IsUsablePointer(submit.pBindings)) {
      for (uint32_t j = 0; j < submit.bindingCount; ++j) {
        objects.push_back({XGPU_OBJECT_TYPE_BUFFER, H(submit.pBindings[j].buffer)});
      }
    }
    const uint64_t seq = AddOpLocked(ctx, H(queue), objects, &submit.waitSemaphores, &submit.signalSemaphores);
    if (Hazards(ctx)) {
      std::vector<BufferAccess> accesses;
      SubmissionAccesses(submit, i, &accesses);
      RecordAccessesLocked(H(queue), seq, accesses);
    }
  }
}

void PendingWork::PostRecordQueueFillBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                            const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer,
                                            XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void*, uint32_t,
                                            XgpuResult result) {
  if (result < 0 || !Enabled(ctx)) return;
  std::vector<Key> objects{{XGPU_OBJECT_TYPE_BUFFER, H(dstBuffer)}};
  AddSemaphores(pWaitSemaphores, &objects);
  AddSemaphores(pSignalSemaphores, &objects);
  std::lock_guard lock(mutex_);
  const uint64_t seq = AddOpLocked(ctx, H(queue), objects, pWaitSemaphores, pSignalSemaphores);
  if (Hazards(ctx)) {
    RecordAccessesLocked(H(queue), seq, {QueueTransferAccess(dstBuffer, dstOffset, size, true, "xgpuQueueFillBuffer")});
  }
}

void PendingWork::PostRecordQueueCopyBuffer(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                            const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer,
                                            XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset,
                                            XgpuDeviceSize size, XgpuResult result) {
  if (result < 0 || !Enabled(ctx)) return;
  std::vector<Key> objects{{XGPU_OBJECT_TYPE_BUFFER, H(srcBuffer)}, {XGPU_OBJECT_TYPE_BUFFER, H(dstBuffer)}};
  AddSemaphores(pWaitSemaphores, &objects);
  AddSemaphores(pSignalSemaphores, &objects);
  std::lock_guard lock(mutex_);
  const uint64_t seq = AddOpLocked(ctx, H(queue), objects, pWaitSemaphores, pSignalSemaphores);
  if (Hazards(ctx)) {
    RecordAccessesLocked(H(queue), seq,
                         {QueueTransferAccess(srcBuffer, srcOffset, size, false, "xgpuQueueCopyBuffer"),
                          QueueTransferAccess(dstBuffer, dstOffset, size, true, "xgpuQueueCopyBuffer")});
  }
}

void PendingWork::PostRecordQueueAlloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                        const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool,
                                        XgpuDeviceSize, XgpuBufferUsageFlags, XgpuBuffer* pBuffer,
                                        XgpuResult result) {
  if (result < 0 || !Enabled(ctx)) return;
  std::vector<Key> objects;
  AddSemaphores(pWaitSemaphores, &objects);
  AddSemaphores(pSignalSemaphores, &objects);
  std::lock_guard lock(mutex_);
  AddOpLocked(ctx, H(queue), objects, pWaitSemaphores, pSignalSemaphores);
  if (IsUsablePointer(pBuffer) && *pBuffer != XGPU_NULL_HANDLE) {
    Alloca alloca{H(memoryPool), H(queue), queues_[H(queue)].submitted, {}};
    if (IsUsablePointer(pSignalSemaphores) && IsUsablePointer(pSignalSemaphores->pSemaphores) &&
        IsUsablePointer(pSignalSemaphores->pValues)) {
      for (uint32_t i = 0; i < pSignalSemaphores->count; ++i) {
        alloca.signals.push_back({H(pSignalSemaphores->pSemaphores[i]), pSignalSemaphores->pValues[i]});
      }
    }
    allocas_[H(*pBuffer)] = std::move(alloca);
    alloca_count_.store(allocas_.size(), std::memory_order_release);
  }
}

void PendingWork::PostRecordQueueDealloca(CallContext& ctx, XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores,
                                          const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer,
                                          XgpuResult result) {
  if (result < 0 || !Enabled(ctx)) return;
  std::vector<Key> objects;
  AddSemaphores(pWaitSemaphores, &objects);
  AddSemaphores(pSignalSemaphores, &objects);
  std::lock_guard lock(mutex_);
  AddOpLocked(ctx, H(queue), objects, pWaitSemaphores, pSignalSemaphores);
  uses_.erase({XGPU_OBJECT_TYPE_BUFFER, H(buffer)});  // its handle is dead from here
  ++epoch_;
  if (auto it = allocas_.find(H(buffer)); it != allocas_.end()) {
    deallocas_.push_back({it->second.pool, H(queue), queues_[H(queue)].submitted});
    allocas_.erase(it);
    alloca_count_.store(allocas_.size(), std::memory_order_release);
  }
}

// ---- observations ----

// A queue or device wait returns XGPU_ERROR_DEVICE_LOST once nothing runs
// any more (api.md 6.1): everything submitted has completed or failed, as
// the host has now observed (1.8).
void PendingWork::PostRecordQueueWaitIdle(CallContext&, XgpuQueue queue, XgpuResult result) {
  if (result < 0 && result != XGPU_ERROR_DEVICE_LOST) return;
  std::lock_guard lock(mutex_);
  auto it = queues_.find(H(queue));
  if (it == queues_.end()) return;
  Payloads reached;
  CompleteLocked(it->second, it->second.submitted, &reached);
  ObserveAllLocked(&reached);
  PruneLocked();
}

void PendingWork::PostRecordDeviceWaitIdle(CallContext& ctx, XgpuDevice, XgpuResult result) {
  if (result < 0 && result != XGPU_ERROR_DEVICE_LOST) return;
  std::lock_guard lock(mutex_);
  Payloads reached;
  for (auto& [handle, q] : queues_) {
    if (q.device == ctx.device) CompleteLocked(q, q.submitted, &reached);
  }
  ObserveAllLocked(&reached);
  PruneLocked();
}

void PendingWork::PostRecordWaitSemaphores(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo,
                                           uint64_t, XgpuResult result) {
  // A failed xgpu_assert fails the semaphores of its submission when that
  // submission completes (api.md 6.2): a wait that returns it has seen the
  // operation that signals the waited value complete, as a successful one.
  if ((result != XGPU_SUCCESS && result != XGPU_ERROR_DEVICE_LOST && result != XGPU_ERROR_KERNEL_ASSERT) ||
      !IsUsablePointer(pWaitInfo) ||
      !IsUsablePointer(pWaitInfo->pSemaphores) || !IsUsablePointer(pWaitInfo->pValues) || ctx.device == nullptr) {
    return;
  }
  if (result == XGPU_ERROR_DEVICE_LOST) {
    // The device is lost: every operation that would signal these semaphores
    // and had not completed was abandoned and failed (api.md 6.1), and the
    // host has now seen it fail (1.8) - it holds nothing any more.
    std::lock_guard lock(mutex_);
    for (uint32_t i = 0; i < pWaitInfo->semaphoreCount; ++i) ObserveLocked(H(pWaitInfo->pSemaphores[i]), UINT64_MAX);
    PruneLocked();
    return;
  }
  const bool any = (pWaitInfo->flags & XGPU_SEMAPHORE_WAIT_ANY_BIT) != 0;
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  for (uint32_t i = 0; i < pWaitInfo->semaphoreCount; ++i) {
    uint64_t value = pWaitInfo->pValues[i];
    if (any) {
      // Which one was reached is not said: ask.
      if (ctx.DeviceTable().GetSemaphoreValue(device, pWaitInfo->pSemaphores[i], &value) != XGPU_SUCCESS) continue;
    }
    seen.push_back({H(pWaitInfo->pSemaphores[i]), value});
  }
  std::lock_guard lock(mutex_);
  for (const auto& [semaphore, value] : seen) ObserveLocked(semaphore, value);
  PruneLocked();
}

void PendingWork::PostRecordGetSemaphoreValue(CallContext&, XgpuDevice, XgpuSemaphore semaphore, uint64_t* pValue,
                                              XgpuResult result) {
  if (result == XGPU_ERROR_DEVICE_LOST) {
    // As for a wait that returns it: the signallers failed, seen by the host.
    std::lock_guard lock(mutex_);
    ObserveLocked(H(semaphore), UINT64_MAX);
    PruneLocked();
    return;
  }
  if (result != XGPU_SUCCESS || !IsUsablePointer(pValue)) return;
  std::lock_guard lock(mutex_);
  ObserveLocked(H(semaphore), *pValue);
  PruneLocked();
}

}  // namespace xgpu_validation
