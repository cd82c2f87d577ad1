// External synchronization (api.md 1.6): a call whose parameter is externally
// synchronized (a command buffer being recorded, begun, ended or destroyed; a
// buffer being mapped, unmapped or destroyed; any other object being
// destroyed) must not overlap another thread's use of that object. The
// chassis holds one of the two classes below from before the checks to the
// return of every such call (generated/chassis.inc, from the
// XGPU-VUID-<command>-<param>-externsync rules of vuids.json): an
// ExternalSyncClaim of the parameter, and in xgpuQueueSubmit
// ExternalSyncReads, which marks the submitted command buffers as read.
//
// Cost: per claim, on the thread the object is biased to (the thread that
// claimed it last, thread_safety.cpp), three loads and two stores on the
// object's record (the command buffer's, which the call looks up anyway) and
// one store at the return; elsewhere one compare-and-swap and one load, and
// a membarrier() when a bias is revoked (at most 4 times per object); no
// lock, no global state. Queues are internally synchronized
// (api.md 1.6), so calls on one queue are never reported.
//
// Thread-compatible: a claim or a set of reads lives on one thread for one
// call; the records' sync_owner / sync_readers are atomics shared by all
// threads.
#ifndef XGPU_LAYERS_VALIDATION_THREAD_SAFETY_THREAD_SAFETY_H_
#define XGPU_LAYERS_VALIDATION_THREAD_SAFETY_THREAD_SAFETY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "../chassis/layer.h"

namespace xgpu_validation {

// The owner word (ObjectRecord::sync_owner): the claiming thread and its call's rule.
inline constexpr uint64_t kSyncThreadMask = (uint64_t{1} << 48) - 1;  // the thread part
inline constexpr int kSyncVuidShift = 48;                             // where the rule starts
// The biased thread's call word (ObjectRecord::sync_bias_call).
inline constexpr uint64_t kBiasInCall = 1;  // the biased thread is in a call on the object
inline constexpr int kBiasVuidShift = 32;   // where that call's rule starts

// The claim of a command's externally synchronized parameter (one per
// command with an -externsync rule), held from construction to the end of
// the intercept. Another thread in a call that claimed the object, or a
// submission reading it, is reported by the claiming call's rule.
// Held in registers: the claim's outcome comes back by value from the
// out-of-line path, so nothing of it is stored on the intercept's frame.
class ExternalSyncClaim {
 public:
  // Claims `record` (NULL: nothing to claim) for this call: `field` names
  // the call's externally synchronized parameter, `vuid` its -externsync rule.
  // Inline: the claim through this thread's bias (thread_safety.cpp
  // states why it is sound); any other claim is ClaimUnbiased's.
  ExternalSyncClaim(CallContext& ctx, ObjectRecord* record, Vuid vuid, const char* field) {
    if (record == nullptr) return;
    const uint64_t me = CallingThread();  // the bias holds it whole (the owner word, masked)
    if (record->sync_bias.load(std::memory_order_relaxed) == me) {
      // Biased to this thread (only it writes sync_bias_call): a call it
      // made from a callback of this one finds the call word set already.
      if (record->sync_bias_call.load(std::memory_order_relaxed) != 0) return;
      record->sync_bias_call.store(kBiasInCall | (static_cast<uint64_t>(vuid) << kBiasVuidShift),
                                   std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the program order a revoker's membarrier relies on
      if (record->sync_bias.load(std::memory_order_relaxed) == me &&
          record->sync_owner.load(std::memory_order_relaxed) == 0 &&
          record->sync_readers.load(std::memory_order_relaxed) == 0) [[likely]] {
        held_ = record;
        how_ = How::kBiased;
        return;
      }
      record->sync_bias_call.store(0, std::memory_order_release);  // revoked, or another thread is in: claim below
    }
    how_ = ClaimUnbiased(ctx, record, vuid, field);
    if (how_ == How::kOwner) held_ = record;
  }
  ExternalSyncClaim(const ExternalSyncClaim&) = delete;
  ExternalSyncClaim& operator=(const ExternalSyncClaim&) = delete;
  ~ExternalSyncClaim() {
    if (held_ == nullptr) return;
    if (how_ == How::kBiased) {
      held_->sync_bias_call.store(0, std::memory_order_release);
    } else {
      held_->sync_owner.store(0, std::memory_order_release);
    }
  }

  // Whether a report asked for the call to be skipped.
  bool Failed() const { return how_ == How::kFailed; }
  // A destroy going down the chain: its record is freed with the object, so
  // the claim is not released (nothing can claim a freed record).
  void Forget() { held_ = nullptr; }

 private:
  enum class How : uint8_t {
    kNone,     // nothing claimed (no record, or this thread's call holds it already)
    kBiased,   // through this thread's bias: sync_bias_call is set
    kOwner,    // by compare-and-swap: sync_owner holds this thread and the rule
    kFailed,   // another thread is in: reported, and the report asks for a skip
  };
  // The claim by compare-and-swap (when the bias does not hold).
  [[gnu::noinline]] static How ClaimUnbiased(CallContext& ctx, ObjectRecord* record, Vuid vuid, const char* field);

  ObjectRecord* held_ = nullptr;  // the record to release at the end, or nullptr
  How how_ = How::kNone;
};

// xgpuQueueSubmit's marks of the submitted command buffers as read for the
// call (released at its end). One another thread has claimed is reported
// by that thread's rule.
class ExternalSyncReads {
 public:
  explicit ExternalSyncReads(CallContext& ctx) : ctx_(ctx) {}
  ExternalSyncReads(const ExternalSyncReads&) = delete;
  ExternalSyncReads& operator=(const ExternalSyncReads&) = delete;
  ~ExternalSyncReads() {
    if (read_count_ != 0) ReleaseReads();
  }

  void ReadSubmittedCommandBuffers(uint32_t submitCount, const XgpuSubmitInfo* pSubmits);
  // Whether a report asked for the call to be skipped.
  bool Failed() const { return failed_; }

 private:
  void Read(ObjectRecord* record, const Field& field);
  void ReleaseReads();

  CallContext& ctx_;
  // Records this scope marked as read: the first kInlineReads in place (a
  // submit reads one per submission: no allocation per call), the rest in
  // read_more_. read_[k] is written before read_count_ passes k.
  static constexpr size_t kInlineReads = 4;
  ObjectRecord* read_[kInlineReads];
  size_t read_count_ = 0;
  std::unique_ptr<std::vector<ObjectRecord*>> read_more_;
  bool failed_ = false;                // a report asked for the call to be skipped
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_THREAD_SAFETY_THREAD_SAFETY_H_
