#include <hsa_core/platform.h>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hsa_core {

void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns) {
  timespec ts;
  timespec* tsp = nullptr;
  if (timeout_ns != UINT64_MAX) {
    ts.tv_sec = time_t(timeout_ns / 1000000000ull);
    ts.tv_nsec = long(timeout_ns % 1000000000ull);
    tsp = &ts;
  }
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, tsp, nullptr, 0);
}

void futex_wake(std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

}  // namespace hsa_core
