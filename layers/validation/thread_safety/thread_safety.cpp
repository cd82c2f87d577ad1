// External synchronization: the owner word of an object's record holds the
// thread in an externally synchronized call on it (the address of a
// thread's control block, below 2^48 on every target we build for) and, in the
// top 16 bits, that call's rule, so one compare-and-swap claims both and a
// thread that finds the object taken can name what the other thread is doing.
//
// A writer sets the owner word, then reads the reader count; a reader raises
// the reader count, then reads the owner word. Both sequentially consistent:
// of two overlapping calls at least one sees the other.
#include "thread_safety.h"

#include <pthread.h>

#include <string>

#include "../chassis/object_map.h"

namespace xgpu_validation {
namespace {

constexpr uint64_t kThreadMask = (uint64_t{1} << 48) - 1;  // the owner word's thread part
constexpr int kVuidShift = 48;                             // where its rule starts

// The calling thread: its pthread_t, the address of its thread control block
// (unique among live threads; read from the thread pointer, no
// __tls_get_addr as a thread_local of this dlopen'ed library would cost).
uint64_t ThisThread() { return static_cast<uint64_t>(pthread_self()) & kThreadMask; }

// "xgpuCmdDispatch" from "XGPU-VUID-xgpuCmdDispatch-commandBuffer-externsync".
std::string CommandOf(Vuid vuid) {
  std::string id = InfoOf(vuid).id + std::string("XGPU-VUID-").size();
  return id.substr(0, id.find('-'));
}

}  // namespace

void ExternalSyncScope::Write(ObjectRecord* record, Vuid vuid, const Field& field) {
  if (record == nullptr) return;
  const uint64_t me = ThisThread();
  uint64_t expected = 0;
  const uint64_t mine = me | (static_cast<uint64_t>(vuid) << kVuidShift);
  if (!record->sync_owner.compare_exchange_strong(expected, mine, std::memory_order_seq_cst)) {
    if ((expected & kThreadMask) == me) return;  // this thread, in a call it made from a callback of this one
    const Vuid theirs = static_cast<Vuid>(expected >> kVuidShift);
    failed_ |= ctx_.Report(vuid, field,
                           Describe(record) + ", which another thread is using in " + CommandOf(theirs) +
                               " at the same time (external synchronization, api.md 1.6)",
                           {{record->type, record->handle}});
    return;
  }
  if (record->sync_readers.load(std::memory_order_seq_cst) != 0) {
    record->sync_owner.store(0, std::memory_order_release);
    failed_ |= ctx_.Report(vuid, field,
                           Describe(record) + ", which another thread is submitting (xgpuQueueSubmit) at the same "
                                              "time (external synchronization, api.md 1.6)",
                           {{record->type, record->handle}});
    return;
  }
  written_ = record;
}

void ExternalSyncScope::Read(ObjectRecord* record, const Field& field) {
  if (record == nullptr) return;
  record->sync_readers.fetch_add(1, std::memory_order_seq_cst);
  const uint64_t owner = record->sync_owner.load(std::memory_order_seq_cst);
  if (owner != 0 && (owner & kThreadMask) != ThisThread()) {
    record->sync_readers.fetch_sub(1, std::memory_order_release);
    const Vuid theirs = static_cast<Vuid>(owner >> kVuidShift);
    failed_ |= ctx_.Report(theirs, field,
                           Describe(record) + ", which another thread is using in " + CommandOf(theirs) +
                               " at the same time (external synchronization, api.md 1.6)",
                           {{record->type, record->handle}});
    return;
  }
  read_.push_back(record);
}

void ExternalSyncScope::ReadSubmittedCommandBuffers(uint32_t submitCount, const XgpuSubmitInfo* pSubmits) {
  if (submitCount == 0 || !IsUsablePointer(pSubmits)) return;  // the implicit rules report it
  for (uint32_t i = 0; i < submitCount; ++i) {
    XgpuCommandBuffer cb = pSubmits[i].commandBuffer;
    if (cb == XGPU_NULL_HANDLE) continue;
    Read(Objects().Find(XGPU_OBJECT_TYPE_COMMAND_BUFFER, reinterpret_cast<uintptr_t>(cb)),
         Field{"pSubmits[i].commandBuffer", i});
  }
}

ExternalSyncScope::~ExternalSyncScope() {
  if (written_ != nullptr) written_->sync_owner.store(0, std::memory_order_release);
  for (ObjectRecord* record : read_) record->sync_readers.fetch_sub(1, std::memory_order_release);
}

}  // namespace xgpu_validation
