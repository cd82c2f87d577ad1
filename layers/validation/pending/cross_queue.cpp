// Cross-queue hazards (PendingWork; spec/warnings.json
// XGPU-VALIDATION-hazard-cross-queue), with the synchronization-hazard
// warnings and the costly checks on. Queues run concurrently: an operation
// on queue B that accesses bytes a pending operation of queue A writes (or
// writes bytes it reads) races it unless a semaphore chain orders them - B's
// operation waits on a payload that only A's operation (or a later one of
// A's, or an operation that in turn waited for one of those) signals. What
// is known at submit: per buffer and queue, the last pending read and the
// last pending write (their operation's number, bytes and description);
// what the host saw complete (PendingWork's observations) is not pending.
// A wait whose payload no pending operation signals (reached already, or to
// be signalled by the host) is taken to order nothing and to race nothing it
// cannot see: only an access pending on another queue is compared, and the
// chain is followed through pending signals only. Accesses of a submission
// are its recording's (the hazard log: copies, fills, updates, timestamps,
// dispatches as their kernels access their bindings - an unknown binding
// counts as a read), resolved through its binding table; a queue fill writes
// and a queue copy reads and writes.
#include <algorithm>
#include <cstdio>
#include <set>

#include "../chassis/object_map.h"
#include "../hazards/hazards.h"
#include "../hazards/warnings.h"
#include "pending_work.h"

namespace xgpu_validation {
namespace {

// Calls deep the ordering search follows through other queues' waits.
constexpr unsigned kMaxChainDepth = 8;

uint64_t H(const void* handle) { return reinterpret_cast<uintptr_t>(handle); }

uint64_t End(uint64_t offset, uint64_t size) {
  return size == XGPU_WHOLE_SIZE || offset + size < offset ? UINT64_MAX : offset + size;
}

std::string BufferText(uint64_t buffer) { return DescribeHandle(XGPU_OBJECT_TYPE_BUFFER, buffer); }

std::string QueueText(uint64_t queue) { return std::string(TypeName(XGPU_OBJECT_TYPE_QUEUE)) + " " + hex(queue); }

std::string BytesText(uint64_t begin, uint64_t end) {
  return "bytes [" + std::to_string(begin) + ", " + (end == UINT64_MAX ? std::string("end") : std::to_string(end)) +
         ")";
}

}  // namespace

PendingWork::BufferAccess PendingWork::QueueTransferAccess(XgpuBuffer buffer, uint64_t offset, uint64_t size,
                                                           bool write, const char* function) {
  BufferAccess a;
  a.buffer = H(buffer);
  a.begin = offset;
  a.end = End(offset, size);
  a.write = write;
  a.origin.function = function;
  return a;
}

std::string PendingWork::OriginText(const AccessOrigin& origin, bool write, uint64_t buffer) {
  if (origin.command_buffer == 0) {
    return std::string(origin.function) + (write ? " (writes " : " (reads ") + BufferText(buffer) + ")";
  }
  const ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, origin.command_buffer);
  const std::string handle = std::string(TypeName(XGPU_OBJECT_TYPE_COMMAND_BUFFER)) + " " + hex(origin.command_buffer);
  const std::string field = origin.field_index < 0 ? std::string(origin.field)
                                                   : std::string(origin.field) + " " + std::to_string(origin.field_index);
  return "pSubmits[" + std::to_string(origin.submit_index) + "] (" + (cb != nullptr ? Describe(cb) : handle) +
         "), command " + std::to_string(origin.command) + " (" + NameOf(origin.what) + ", " +
         (write ? "writes " : "reads ") + field + ")";
}

void PendingWork::SubmissionAccesses(const XgpuSubmitInfo& submit, uint32_t index, std::vector<BufferAccess>* out) {
  if (submit.commandBuffer == XGPU_NULL_HANDLE) return;
  const ObjectRecord* cb = Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, H(submit.commandBuffer));
  if (cb == nullptr || cb->recording == nullptr) return;
  const std::shared_ptr<HazardLog> log = cb->recording->hazards;
  if (!log) return;
  for (const HazardAccess& access : log->accesses) {
    BufferAccess a;
    if (access.slot) {
      if (!IsUsablePointer(submit.pBindings) || access.target >= submit.bindingCount) continue;
      const XgpuBufferBinding& b = submit.pBindings[access.target];
      const uint64_t binding_end = End(b.offset, b.size);
      a.buffer = H(b.buffer);
      a.begin = b.offset + access.offset;
      if (a.begin < b.offset || a.begin >= binding_end) continue;
      a.end = std::min(End(a.begin, access.size), binding_end);
    } else {
      a.buffer = access.target;
      a.begin = access.offset;
      a.end = End(access.offset, access.size);
    }
    a.write = access.kind == HazardAccess::kWrite || access.kind == HazardAccess::kAtomic;
    a.origin = {"xgpuQueueSubmit", index, H(submit.commandBuffer), access.command, access.what, access.field,
                access.field_index};
    out->push_back(a);
  }
}

void PendingWork::RecordAccessesLocked(uint64_t queue, uint64_t seq, const std::vector<BufferAccess>& accesses) {
  for (const BufferAccess& a : accesses) {
    QueueAccesses& q = cross_[a.buffer][queue];
    if (a.write) {
      q.write_seq = seq;
      q.write_begin = a.begin;
      q.write_end = a.end;
      q.write_origin = a.origin;
    } else {
      q.read_seq = seq;
      q.read_begin = a.begin;
      q.read_end = a.end;
      q.read_origin = a.origin;
    }
  }
}

bool PendingWork::OrderedAfterLocked(const Payloads& waits, uint64_t queue, uint64_t seq, unsigned depth) const {
  if (depth > kMaxChainDepth) return false;
  for (const auto& [semaphore, value] : waits) {
    // The pending operation whose signal first reaches the payload.
    const Queue* signaller = nullptr;
    uint64_t signaller_queue = 0, signal_seq = 0, reached = UINT64_MAX;
    for (const auto& [handle, q] : queues_) {
      for (const Op& op : q.signalling) {
        if (op.seq <= q.completed) continue;
        for (const auto& [s, payload] : op.signals) {
          if (s == semaphore && payload >= value && payload < reached) {
            reached = payload;
            signaller = &q;
            signaller_queue = handle;
            signal_seq = op.seq;
          }
        }
      }
    }
    if (signaller == nullptr) continue;
    if (signaller_queue == queue && signal_seq >= seq) return true;
    // The signaller's queue ran everything before it: any of those that
    // waited on something ordered after the access orders this one too.
    for (const Op& op : signaller->signalling) {
      if (op.seq > signal_seq || op.seq <= signaller->completed || op.waits.empty()) continue;
      if (OrderedAfterLocked(op.waits, queue, seq, depth + 1)) return true;
    }
  }
  return false;
}

bool PendingWork::CheckCrossQueue(CallContext& ctx, uint64_t queue, const XgpuSemaphoreList* wait,
                                  const std::vector<BufferAccess>& accesses) const {
  Payloads waits;
  if (IsUsablePointer(wait) && IsUsablePointer(wait->pSemaphores) && IsUsablePointer(wait->pValues)) {
    for (uint32_t i = 0; i < wait->count; ++i) waits.push_back({H(wait->pSemaphores[i]), wait->pValues[i]});
  }
  struct Found {
    std::string message;
    uint64_t buffer;
  };
  std::vector<Found> found;
  {
    std::lock_guard lock(mutex_);
    std::set<std::pair<uint64_t, uint64_t>> reported;  // (buffer, other queue): one message each
    for (const BufferAccess& a : accesses) {
      auto per_buffer = cross_.find(a.buffer);
      if (per_buffer == cross_.end()) continue;
      for (const auto& [other, last] : per_buffer->second) {
        if (other == queue || reported.count({a.buffer, other})) continue;
        auto q = queues_.find(other);
        if (q == queues_.end()) continue;
        const uint64_t completed = q->second.completed;
        // The pending access it conflicts with: a write (for any access),
        // else a read (for a write).
        uint64_t seq = 0, begin = 0, end = 0;
        const AccessOrigin* earlier = nullptr;
        bool earlier_writes = false;
        const char* kind = nullptr;
        if (last.write_seq > completed && a.begin < last.write_end && last.write_begin < a.end) {
          seq = last.write_seq, begin = last.write_begin, end = last.write_end, earlier = &last.write_origin;
          earlier_writes = true;
          kind = a.write ? "write-after-write" : "read-after-write";
        } else if (a.write && last.read_seq > completed && a.begin < last.read_end && last.read_begin < a.end) {
          seq = last.read_seq, begin = last.read_begin, end = last.read_end, earlier = &last.read_origin;
          kind = "write-after-read";
        }
        if (earlier == nullptr || OrderedAfterLocked(waits, other, seq, 0)) continue;
        reported.insert({a.buffer, other});
        found.push_back(
            {std::string(NameOf(ctx.command)) + ": cross-queue hazard (" + kind + "): " +
                 OriginText(a.origin, a.write, a.buffer) + " on " + QueueText(queue) + " accesses " +
                 BytesText(std::max(a.begin, begin), std::min(a.end, end)) + " of " + BufferText(a.buffer) +
                 ", which " + OriginText(*earlier, earlier_writes, a.buffer) + " on " + QueueText(other) +
                 " (its operation " + std::to_string(seq) + ", not yet seen complete) accesses, and no semaphore wait "
                 "of this operation is signalled after it (needed: wait on a payload that operation, or a later one "
                 "of its queue, signals; or wait for it on the host first)",
             a.buffer});
      }
    }
  }
  for (Found& f : found) {
    std::vector<ObjectRef> objects;
    if (Objects().Find(XGPU_OBJECT_TYPE_BUFFER, f.buffer) != nullptr) objects.push_back({XGPU_OBJECT_TYPE_BUFFER, f.buffer});
    ReportWarning(ctx, Warning::kHazardCrossQueue, std::move(f.message), objects);
  }
  return !found.empty();
}

}  // namespace xgpu_validation
