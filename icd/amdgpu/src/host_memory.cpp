#include "host_memory.h"

#include <mutex>

namespace xgpu::amdgpu {
namespace {

// A ring of the last kHandleQuarantine blocks held back; the oldest is freed
// when a new one comes. Fixed storage: a destroy never allocates. Freed at
// process exit (the driver is never unloaded: -z nodelete).
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
  ~Quarantine() {
    for (Entry& e : ring_)
      if (e.block) ::operator delete(e.block, std::align_val_t(e.alignment));
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
  static Quarantine q;
  return q;
}

}  // namespace

void quarantine_handle_block(void* block, size_t alignment) { quarantine().hold(block, alignment); }

}  // namespace xgpu::amdgpu
