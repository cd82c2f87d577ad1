// External synchronization (api.md 1.6): a call whose parameter is externally
// synchronized (a command buffer being recorded, begun, ended or destroyed; a
// buffer being mapped, unmapped or destroyed; any other object being
// destroyed) must not overlap another thread's use of that object. The
// chassis holds an ExternalSyncScope from before the checks to the return of
// every such call (generated/chassis.inc, from the
// XGPU-VUID-<command>-<param>-externsync rules of vuids.json), and one in
// xgpuQueueSubmit that marks the submitted command buffers as read.
//
// Cost: per claim, on the thread the object is biased to (the thread that
// claimed it last, thread_safety.cpp), three loads and two stores on the
// object's record (the command buffer's, which the call looks up anyway) and
// one store at the return; elsewhere one compare-and-swap and one load, and
// a membarrier() when a bias is revoked (at most 4 times per object); no
// lock, no global state. Queues are internally synchronized
// (api.md 1.6), so calls on one queue are never reported.
//
// Thread-compatible: a scope lives on one thread for one call; the records'
// sync_owner / sync_readers are atomics shared by all threads.
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

class ExternalSyncScope {
 public:
  explicit ExternalSyncScope(CallContext& ctx) : ctx_(ctx) {}
  ExternalSyncScope(const ExternalSyncScope&) = delete;
  ExternalSyncScope& operator=(const ExternalSyncScope&) = delete;
  ~ExternalSyncScope() {
    if (biased_ != nullptr) biased_->sync_bias_active.store(0, std::memory_order_release);
    if (written_ != nullptr) written_->sync_owner.store(0, std::memory_order_release);
    if (read_count_ != 0) ReleaseReads();
  }

  // Claims `record` (NULL: nothing to claim) for this call: `field` names
  // the call's externally synchronized parameter, `vuid` its -externsync rule.
  // Another thread in a call that claimed it, or a submission reading it,
  // is reported by `vuid`.
  // Inline: the claim through this thread's bias (thread_safety.cpp
  // states why it is sound); any other claim is WriteUnbiased's.
  void Write(ObjectRecord* record, Vuid vuid, const char* field) {
    if (record == nullptr) return;
    const uint64_t me = CallingThread() & kSyncThreadMask;
    if (record->sync_bias.load(std::memory_order_relaxed) == me) {
      // Biased to this thread (only it writes sync_bias_active): a call it
      // made from a callback of this one finds the flag up already.
      if (record->sync_bias_active.load(std::memory_order_relaxed) != 0) return;
      record->sync_bias_vuid.store(static_cast<uint32_t>(vuid), std::memory_order_relaxed);
      record->sync_bias_active.store(1, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the program order a revoker's membarrier relies on
      if (record->sync_bias.load(std::memory_order_relaxed) == me &&
          record->sync_owner.load(std::memory_order_relaxed) == 0 &&
          record->sync_readers.load(std::memory_order_relaxed) == 0) [[likely]] {
        biased_ = record;
        return;
      }
      record->sync_bias_active.store(0, std::memory_order_release);  // revoked, or another thread is in: claim below
    }
    WriteUnbiased(record, vuid, field);
  }
  // xgpuQueueSubmit: marks every submitted command buffer as read for the
  // call. One another thread has claimed is reported by that thread's rule.
  void ReadSubmittedCommandBuffers(uint32_t submitCount, const XgpuSubmitInfo* pSubmits);
  // A destroy going down the chain: its record is freed with the object, so
  // the claim is not released (nothing can claim a freed record).
  void Forget() {
    written_ = nullptr;
    biased_ = nullptr;
  }
  // Whether a report asked for the call to be skipped.
  bool Failed() const { return failed_; }

 private:
  // The claim by compare-and-swap (Write's, when the bias does not hold).
  void WriteUnbiased(ObjectRecord* record, Vuid vuid, const char* field);
  void Read(ObjectRecord* record, const Field& field);
  void ReleaseReads();

  CallContext& ctx_;
  ObjectRecord* written_ = nullptr;    // the record this scope claimed (released at its end)
  ObjectRecord* biased_ = nullptr;     // the record this scope claimed through its bias (likewise)
  // Records this scope marked as read: the first kInlineReads in place (a
  // submit reads one per submission: no allocation per call), the rest in
  // read_more_. read_[k] is written before read_count_ passes k (left
  // uninitialised: every recorded command makes a scope and reads nothing).
  static constexpr size_t kInlineReads = 4;
  ObjectRecord* read_[kInlineReads];
  size_t read_count_ = 0;
  std::unique_ptr<std::vector<ObjectRecord*>> read_more_;
  bool failed_ = false;                // a report asked for the call to be skipped
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_THREAD_SAFETY_THREAD_SAFETY_H_
