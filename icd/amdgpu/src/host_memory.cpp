#include "host_memory.h"

#include <mutex>

namespace xgpu::amdgpu {
namespace {

// A ring of the last kHandleQuarantine blocks held back; the oldest is freed
// when a new one comes. Fixed storage: a destroy never allocates. Never
// destroyed: a runtime thread (an HSA async handler retiring a submission)
// may still release objects while the process runs its exit handlers, and
// the driver is never unloaded (-z nodelete). The blocks it holds at exit
// stay reachable from it.
class Quarantine {
 public:
  void hold(void* block, size_t alignment) {
    Entry oldest{};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      oldest = ring_[next_];
      ring_[next_] = {block, alignment};
      next_ = (next_ + 1) % kHandleQuarantine;
    }
    if (oldest.block) ::operator delete(oldest.block, std::align_val_t(oldest.alignment));
  }
 private:
  struct Entry {
    void* block;
    size_t alignment;
  };
  std::mutex mutex_;
  Entry ring_[kHandleQuarantine] = {};
  size_t next_ = 0;
};

Quarantine& quarantine() {
  static Quarantine* const q = new Quarantine;
  return *q;
}

}  // namespace

void quarantine_handle_block(void* block, size_t alignment) { quarantine().hold(block, alignment); }

}  // namespace xgpu::amdgpu
