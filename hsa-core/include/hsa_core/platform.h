// hsa-core platform helpers: the clock, futexes, bounded spinning and the
// bits of HSA enums, shared by every runtime built on the core.
//
// Threading: everything here is thread-safe (free functions over atomics and
// syscalls).
#ifndef HSA_CORE_PLATFORM_H_
#define HSA_CORE_PLATFORM_H_

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <ctime>

// Every exported entry point is declared by the HSA headers; defining it with
// this attribute exports it (each runtime builds with -fvisibility=hidden and
// a version script that assigns ROCR_1).
#define HSA_CORE_EXPORT extern "C" __attribute__((visibility("default")))

namespace hsa_core {

// The bits of an HSA enum argument without loading it as the enum type:
// callers routinely pass values outside the C enum's range (AMD attributes
// cast to hsa_agent_info_t, garbage), which UBSan rightly flags on a load.
template <typename Enum>
inline uint32_t enum_bits(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(uint32_t), "HSA enums are 32-bit");
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// Nanoseconds of CLOCK_MONOTONIC; the unit of HSA timestamps and timeouts.
inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// CPU relax hint inside spin loops.
inline void cpu_relax() { __builtin_ia32_pause(); }

// Paces a bounded active wait: cpu_relax() between checks; past the first
// kFirstYieldNs, a sched_yield() now and then, so that a runnable thread
// queued on this CPU (often the one being waited for) gets the core. A yield
// is a system call, blind to the value being waited for, and costs 4.5-6 us
// on the paravirtualised development VM (bench/README.md), so yields are
// spaced by time (kYieldIntervalNs), not by poll count: a waiter that
// yielded every few polls spent most of its window inside the kernel and
// saw a change several microseconds late.
class SpinPacer {
 public:
  static constexpr uint64_t kFirstYieldNs = 2000;      // pause only until then
  static constexpr uint64_t kYieldIntervalNs = 20000;  // then at most one yield per this much spinning

  // `start_ns`: when the wait began; `end_ns`: when the active wait ends;
  // `yield_interval_ns`: least time between two yields (0: one at every
  // clock read past kFirstYieldNs, for a waiter whose producer is an
  // application thread that may be queued behind it).
  SpinPacer(uint64_t start_ns, uint64_t end_ns, uint64_t yield_interval_ns = kYieldIntervalNs)
      : end_ns_(end_ns), yield_interval_ns_(yield_interval_ns), next_yield_ns_(start_ns + kFirstYieldNs) {}

  // One step between two checks; false once the window has passed (the
  // caller then sleeps).
  bool step() {
    if ((++polls_ & 15) != 0) {
      cpu_relax();
      return true;
    }
    const uint64_t now = now_ns();
    if (now >= end_ns_) return false;
    if (now >= next_yield_ns_) {
      sched_yield();
      next_yield_ns_ = now + yield_interval_ns_;
    } else {
      cpu_relax();
    }
    return true;
  }

 private:
  uint64_t end_ns_;             // CLOCK_MONOTONIC ns at which the active wait ends
  uint64_t yield_interval_ns_;  // least ns between two yields
  uint64_t next_yield_ns_;      // earliest CLOCK_MONOTONIC ns of the next yield
  uint32_t polls_ = 0;          // steps taken (the clock is read every 16th)
};

// futex(FUTEX_WAIT_PRIVATE): sleeps while *word == expected, at most
// timeout_ns (UINT64_MAX: no limit). Spurious returns are allowed.
void futex_wait(std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns);
// futex(FUTEX_WAKE_PRIVATE) for up to `count` sleepers.
void futex_wake(std::atomic<uint32_t>* word, int count);

}  // namespace hsa_core

#endif  // HSA_CORE_PLATFORM_H_
