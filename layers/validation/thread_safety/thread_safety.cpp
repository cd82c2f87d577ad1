// External synchronization: the owner word of an object's record holds the
// thread in an externally synchronized call on it (CallingThread(), below
// 2^48 on every target we build for) and, in the
// top 16 bits, that call's rule, so one compare-and-swap claims both and a
// thread that finds the object taken can name what the other thread is doing.
//
// A writer sets the owner word, then reads the reader count; a reader raises
// the reader count, then reads the owner word. Both sequentially consistent:
// of two overlapping calls at least one sees the other.
//
// Biased claims. A command buffer is recorded call after call by one thread,
// and the compare-and-swap was the largest cost of a recorded command. So an
// object whose claim succeeded is biased to the claiming thread (at most
// kMaxRevocations times per object): that thread's later claims write only
// `sync_bias_call` (set during the call) with a plain store, and then read the
// bias, the owner word and the reader count -- no read-modify-write and no
// fence, so the store may become visible after those reads. Any other thread
// (writer or reader) first revokes the bias: it makes its own claim, clears
// `sync_bias`, then runs membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
// returns only after every running thread of the process has passed a full
// memory barrier, and only then reads `sync_bias_call`. For the biased
// thread's claim, either its store of `sync_bias_call` came before that
// barrier (the revoking thread sees 1 and reports the overlap), or its reads
// came after it (they see the cleared bias or the revoker's claim, and the
// biased thread takes the compare-and-swap path, which reports). Of two
// overlapping calls at least one sees the other, as without bias. Without
// membarrier (an old kernel, a sandbox), no object is ever biased.
#include "thread_safety.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "../chassis/object_map.h"

namespace xgpu_validation {
namespace {

uint64_t ThisThread() { return CallingThread() & kSyncThreadMask; }

// "xgpuCmdDispatch" from "XGPU-VUID-xgpuCmdDispatch-commandBuffer-externsync".
std::string CommandOf(Vuid vuid) {
  std::string id = InfoOf(vuid).id + std::string("XGPU-VUID-").size();
  return id.substr(0, id.find('-'));
}

constexpr uint32_t kMaxRevocations = 4;  // biases one object may lose before it stays unbiased

// Whether biased claims can be used: membarrier's private expedited command,
// registered once for the process.
bool BiasAvailable() {
  static const bool available =
      syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  return available;
}

// Revokes `record`'s bias to another thread, after this thread's claim (owner
// word or reader count) is visible. Returns the rule of the biased thread's
// call if that thread is in one now (an overlap), else -1.
int32_t RevokeBias(ObjectRecord* record) {
  record->sync_bias.store(0, std::memory_order_seq_cst);
  // A failure here cannot happen once registered (BiasAvailable granted the bias).
  syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  record->sync_revocations.fetch_add(1, std::memory_order_relaxed);
  if (const uint64_t call = record->sync_bias_call.load(std::memory_order_acquire); (call & kBiasInCall) != 0) {
    return static_cast<int32_t>(call >> kBiasVuidShift);
  }
  return -1;
}

}  // namespace

ExternalSyncClaim::How ExternalSyncClaim::ClaimUnbiased(CallContext& ctx, ObjectRecord* record, Vuid vuid,
                                                        const char* name) {
  const Field field{name};
  const uint64_t me = ThisThread();
  uint64_t expected = 0;
  const uint64_t mine = me | (static_cast<uint64_t>(vuid) << kSyncVuidShift);
  if (!record->sync_owner.compare_exchange_strong(expected, mine, std::memory_order_seq_cst)) {
    if ((expected & kSyncThreadMask) == me) return How::kNone;  // this thread, in a call it made from a callback of this one
    const Vuid theirs = static_cast<Vuid>(expected >> kSyncVuidShift);
    return ctx.Report(vuid, field,
                      Describe(record) + ", which another thread is using in " + CommandOf(theirs) +
                          " at the same time (external synchronization, api.md 1.6)",
                      {{record->type, record->handle}})
               ? How::kFailed
               : How::kNone;
  }
  const uint64_t bias = record->sync_bias.load(std::memory_order_seq_cst);
  if (bias != 0 && bias != CallingThread()) {
    if (const int32_t theirs = RevokeBias(record); theirs >= 0) {
      record->sync_owner.store(0, std::memory_order_release);
      return ctx.Report(vuid, field,
                        Describe(record) + ", which another thread is using in " +
                            CommandOf(static_cast<Vuid>(theirs)) +
                            " at the same time (external synchronization, api.md 1.6)",
                        {{record->type, record->handle}})
                 ? How::kFailed
                 : How::kNone;
    }
  }
  if (record->sync_readers.load(std::memory_order_seq_cst) != 0) {
    record->sync_owner.store(0, std::memory_order_release);
    return ctx.Report(vuid, field,
                      Describe(record) + ", which another thread is submitting (xgpuQueueSubmit) at the same "
                                         "time (external synchronization, api.md 1.6)",
                      {{record->type, record->handle}})
               ? How::kFailed
               : How::kNone;
  }
  // Later claims by this thread skip the compare-and-swap.
  if (bias != CallingThread() && record->sync_revocations.load(std::memory_order_relaxed) < kMaxRevocations &&
      BiasAvailable()) {
    record->sync_bias.store(CallingThread(), std::memory_order_relaxed);
  }
  return How::kOwner;
}

void ExternalSyncReads::Read(ObjectRecord* record, const Field& field) {
  if (record == nullptr) return;
  record->sync_readers.fetch_add(1, std::memory_order_seq_cst);
  const uint64_t owner = record->sync_owner.load(std::memory_order_seq_cst);
  const uint64_t me = ThisThread();
  int32_t theirs = -1;
  if (owner != 0 && (owner & kSyncThreadMask) != me) {
    theirs = static_cast<int32_t>(owner >> kSyncVuidShift);
  } else if (const uint64_t bias = record->sync_bias.load(std::memory_order_seq_cst);
             bias != 0 && bias != CallingThread()) {
    theirs = RevokeBias(record);
  }
  if (theirs >= 0) {
    record->sync_readers.fetch_sub(1, std::memory_order_release);
    failed_ |= ctx_.Report(static_cast<Vuid>(theirs), field,
                           Describe(record) + ", which another thread is using in " +
                               CommandOf(static_cast<Vuid>(theirs)) +
                               " at the same time (external synchronization, api.md 1.6)",
                           {{record->type, record->handle}});
    return;
  }
  if (read_count_ < kInlineReads) {
    read_[read_count_] = record;
  } else {
    try {
      if (read_more_ == nullptr) read_more_ = std::make_unique<std::vector<ObjectRecord*>>();
      read_more_->push_back(record);
    } catch (...) {
      // Out of host memory: the mark cannot be kept, so it is taken back now.
      record->sync_readers.fetch_sub(1, std::memory_order_release);
      throw;
    }
  }
  ++read_count_;
}

void ExternalSyncReads::ReadSubmittedCommandBuffers(uint32_t submitCount, const XgpuSubmitInfo* pSubmits) {
  if (submitCount == 0 || !IsUsablePointer(pSubmits)) return;  // the implicit rules report it
  for (uint32_t i = 0; i < submitCount; ++i) {
    XgpuCommandBuffer cb = pSubmits[i].commandBuffer;
    if (cb == XGPU_NULL_HANDLE) continue;
    Read(Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uintptr_t>(cb)),
         Field{"pSubmits[i].commandBuffer", i});
  }
}

void ExternalSyncReads::ReleaseReads() {
  for (size_t k = 0; k < read_count_ && k < kInlineReads; ++k) read_[k]->sync_readers.fetch_sub(1, std::memory_order_release);
  if (read_more_ == nullptr) return;
  for (ObjectRecord* record : *read_more_) record->sync_readers.fetch_sub(1, std::memory_order_release);
}

}  // namespace xgpu_validation
