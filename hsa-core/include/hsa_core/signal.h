// hsa-core signals: 64-bit HSA signals laid out as ROCR's amd_signal_t, with a
// sleeping wait built on per-waiter futex words; the hsa_signal_* entry
// points (signal.cpp) are the core's, exported by every runtime built on it.
//
// A signal handle is the address of a Signal, whose first member is the
// amd_signal_t that compiled code and tools read directly. Every operation
// that changes the value through the API wakes the signal's registered
// waiters; the waiter count keeps uncontended operations free of syscalls.
// Writes that bypass the API (through hsa_amd_signal_value_pointer, or
// kernels storing to amd_signal_t.value) wake nobody: a sleeping waiter
// re-checks the value every Backend::sleep_recheck_ns instead; a runtime
// whose devices write values (Backend::device_writes) also wakes every
// sleeper when it sees such a write land (wake_all_sleepers).
//
// Queue doorbells are AMD_SIGNAL_KIND_DOORBELL signals, as in ROCR: their
// value lives in a word of their own that amd.hardware_doorbell_ptr points
// at (the union member code checks by kind), not in amd.value.
//
// Threading: all operations on a Signal are thread-safe. A WaitNode is owned
// by one waiting thread; any thread may notify it.
#ifndef HSA_CORE_SIGNAL_H_
#define HSA_CORE_SIGNAL_H_

#include <hsa/amd_hsa_signal.h>

#include <sched.h>

#include <functional>
#include <mutex>
#include <vector>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

namespace hsa_core {

// One waiting thread's wake-up word. A waiter arms it, re-checks what it
// waits for, then sleeps; any notify() after arm() ends the sleep.
struct WaitNode {
  static constexpr uint32_t kArmed = 0;     // waiter is checking its condition
  static constexpr uint32_t kNotified = 1;  // something changed since arm()
  static constexpr uint32_t kSleeping = 2;  // waiter is (about to be) in futex

  std::atomic<uint32_t> state{kArmed};  // one of the k* states above

  void arm() { state.store(kArmed, std::memory_order_seq_cst); }
  void notify() {
    if (state.exchange(kNotified, std::memory_order_seq_cst) == kSleeping)
      futex_wake(&state, 1);
  }
  // Sleeps until notify() or deadline_ns (CLOCK_MONOTONIC ns, UINT64_MAX for
  // none); returns at once if notified since the last arm().
  void sleep_until(uint64_t deadline_ns);

  // Links in the list of sleepers (Backend::device_writes only; guarded by
  // that list's mutex, signal.cpp).
  WaitNode* prev_sleeper = nullptr;
  WaitNode* next_sleeper = nullptr;
};

// What a registered waiter waits for: any change, or a condition on the
// value. A filtered waiter is only woken by a change that meets it, so a
// thread waiting for a counter to reach 0 is not woken by every decrement.
// (Like any HSA wait, a value that holds only briefly may be missed.)
struct WaitFilter {
  bool any_change;                   // wake on every change
  hsa_signal_condition_t condition;  // else: wake when value `condition` compare
  int64_t compare;                   // compare value
};
inline constexpr WaitFilter kAnyChange{true, HSA_SIGNAL_CONDITION_EQ, 0};

struct alignas(AMD_SIGNAL_ALIGN_BYTES) Signal {
  struct Waiter {
    WaitNode* node;     // woken on a matching change
    WaitFilter filter;  // which changes match
  };
  amd_signal_t amd;                       // ROCR layout; handle points here
  std::atomic<uint32_t> waiter_count{0};  // registered WaitNodes
  std::atomic<uint32_t> changing{0};      // API changes between their value
                                          // write and their last access (see
                                          // ChangeScope)
  std::mutex waiters_mutex;               // guards waiters
  std::vector<Waiter> waiters;            // nodes to notify on change
  uint64_t attributes = 0;                // hsa_amd_signal_attribute_t bits
  int64_t doorbell_value = 0;             // the value of a DOORBELL signal
                                          // (amd.hardware_doorbell_ptr)

  explicit Signal(int64_t initial_value);

  // A new signal in the back-end's signal storage (Backend::
  // signal_storage_allocate); null when it has none left.
  static Signal* create(int64_t initial_value);
  // Destroys a signal made by create().
  static void destroy(Signal* signal);

  // Where the value lives: amd.value, or the doorbell word for doorbells.
  int64_t* value_ptr() {
    if (amd.kind == AMD_SIGNAL_KIND_DOORBELL)
      return reinterpret_cast<int64_t*>(const_cast<uint64_t*>(amd.hardware_doorbell_ptr));
    return const_cast<int64_t*>(&amd.value);
  }
  int64_t load_relaxed() { return __atomic_load_n(value_ptr(), __ATOMIC_RELAXED); }
  int64_t load_acquire() { return __atomic_load_n(value_ptr(), __ATOMIC_ACQUIRE); }
  // Stores with release semantics and wakes waiters.
  inline void store_release(int64_t v);
  // Subtracts with release semantics and wakes waiters.
  inline void subtract_release(int64_t v);
  // Waits until no change is between its value write and its notification
  // (the signal is unreachable otherwise; called before deleting it).
  void wait_changes_done() {
    while (changing.load(std::memory_order_acquire) != 0) sched_yield();
  }

  // Wakes every registered waiter if there is one (one fence + one load when
  // nobody waits).
  void notify_waiters() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waiter_count.load(std::memory_order_relaxed) != 0) notify_slow();
  }
  void notify_slow();
  // Wakes every registered waiter regardless of filters (queue shutdown).
  void notify_all_waiters();
  // Registers `node`; false when host memory ran out (nothing registered).
  bool add_waiter(WaitNode* node, const WaitFilter& filter = kAnyChange);
  void remove_waiter(WaitNode* node);
};
static_assert(offsetof(Signal, amd) == 0, "handle must point at amd_signal_t");

// Brackets an API change of a signal's value and the notification after it.
// A waiter may see the new value, return, and its thread destroy the signal
// while the changing thread still reads waiter_count and walks the waiters:
// the count taken before the write (a locked RMW, so on x86 the write cannot
// become visible before it) makes hsa_signal_destroy wait those few
// instructions out (Signal::wait_changes_done) instead of freeing the signal
// under them.
class ChangeScope {
 public:
  explicit ChangeScope(Signal* signal) : signal_(signal) {
    signal_->changing.fetch_add(1, std::memory_order_seq_cst);
  }
  ~ChangeScope() { signal_->changing.fetch_sub(1, std::memory_order_release); }
  ChangeScope(const ChangeScope&) = delete;
  ChangeScope& operator=(const ChangeScope&) = delete;

 private:
  Signal* signal_;
};

inline void Signal::store_release(int64_t v) {
  ChangeScope scope(this);
  __atomic_store_n(value_ptr(), v, __ATOMIC_RELEASE);
  notify_waiters();
}
inline void Signal::subtract_release(int64_t v) {
  ChangeScope scope(this);
  __atomic_fetch_sub(value_ptr(), v, __ATOMIC_RELEASE);
  notify_waiters();
}

inline Signal* to_signal(hsa_signal_t s) {
  return reinterpret_cast<Signal*>(static_cast<uintptr_t>(s.handle));
}
inline hsa_signal_t to_handle(Signal* s) {
  return hsa_signal_t{reinterpret_cast<uintptr_t>(s)};
}

// True when `value` satisfies `condition` against `compare`.
inline bool condition_met(hsa_signal_condition_t condition, int64_t value,
                          int64_t compare) {
  switch (condition) {
    case HSA_SIGNAL_CONDITION_EQ: return value == compare;
    case HSA_SIGNAL_CONDITION_NE: return value != compare;
    case HSA_SIGNAL_CONDITION_LT: return value < compare;
    case HSA_SIGNAL_CONDITION_GTE: return value >= compare;
  }
  return false;
}
inline bool valid_condition(uint32_t condition) {
  return condition <= HSA_SIGNAL_CONDITION_GTE;
}
// An unknown wait-state hint is treated as BLOCKED.
inline hsa_wait_state_t sanitize_hint(const hsa_wait_state_t& hint) {
  return enum_bits(hint) == HSA_WAIT_STATE_ACTIVE ? HSA_WAIT_STATE_ACTIVE : HSA_WAIT_STATE_BLOCKED;
}

// Nanoseconds a waiter polls before sleeping, per wait-state hint
// (Backend::active_spin_ns, blocked_spin_ns; hsa-cpu: 200 and 20 us). A
// futex round trip costs several microseconds (more in a VM); a short poll
// keeps back-to-back handoffs off that path while an idle waiter still
// sleeps.
inline uint64_t spin_ns(hsa_wait_state_t hint) {
  return hint == HSA_WAIT_STATE_ACTIVE ? backend().active_spin_ns : backend().blocked_spin_ns;
}
// Longest sleep of a waiter between two checks of the values it waits for
// (Backend::sleep_recheck_ns; hsa-cpu: 4 ms, ~250 wake-ups per second while
// it waits): bounds how late it sees a store that bypassed the API (value
// pointer, kernel code, a device). Waits on signals only the runtime writes
// (doorbells, in-flight counts) sleep unbounded: nothing that waits on them
// costs CPU while idle.
inline uint64_t sleep_recheck_ns() { return backend().sleep_recheck_ns; }

// Wakes every sleeping waiter of the process (their wait re-checks what it
// waits for): for a runtime with Backend::device_writes, when it sees a
// device's write land, or when something a waiter's condition reads but
// no signal carries changed (a queue stopping). Without device_writes,
// sleepers are not listed and this does nothing.
void wake_all_sleepers();

// Registers `node` on `signals` (null entries skipped) for its lifetime,
// with filters[i] for signals[i] (every change when `filters` is null).
class WaitRegistration {
 public:
  WaitRegistration(WaitNode* node, Signal* const* signals, size_t count,
                   const WaitFilter* filters = nullptr);
  ~WaitRegistration();
  WaitRegistration(const WaitRegistration&) = delete;
  WaitRegistration& operator=(const WaitRegistration&) = delete;
  // False when host memory ran out: nothing is registered, nobody wakes the
  // node, and the waiter must poll.
  bool registered() const { return registered_; }

 private:
  WaitNode* node_;
  Signal* const* signals_;
  size_t count_;
  bool registered_ = true;
};

// Waits until `ready()` is true or `deadline_ns` passes: polls for the hint's
// spin window, then sleeps on `node` registered on `signals` (with
// `filters`, see WaitRegistration), re-checking ready() at least every
// `recheck_ns` (UINT64_MAX: only when notified); `yield_interval_ns` paces
// the poll's yields (SpinPacer). Returns ready().
template <typename Ready>
bool wait_until(Signal* const* signals, size_t count, const WaitFilter* filters,
                uint64_t deadline_ns, hsa_wait_state_t hint, uint64_t recheck_ns,
                Ready&& ready, uint64_t yield_interval_ns = SpinPacer::kYieldIntervalNs) {
  if (ready()) return true;
  const uint64_t start = now_ns();
  const uint64_t spin_end =
      start + spin_ns(hint);
  // Past the first microseconds the pacer yields now and then: the thread we
  // just woke is often queued on this very CPU.
  SpinPacer pacer(start, spin_end < deadline_ns ? spin_end : deadline_ns, yield_interval_ns);
  while (pacer.step()) {
    if (ready()) return true;
  }
  if (ready()) return true;
  if (now_ns() >= deadline_ns) return false;
  WaitNode node;
  WaitRegistration registration(&node, signals, count, filters);
  // Unregistered (host memory ran out), the node is only woken by its
  // timeout: re-check every 100 us.
  if (!registration.registered() && recheck_ns > 100'000) recheck_ns = 100'000;
  for (;;) {
    node.arm();
    if (ready()) return true;
    const uint64_t now = now_ns();
    if (now >= deadline_ns) return false;
    const uint64_t wake = recheck_ns >= deadline_ns - now ? deadline_ns : now + recheck_ns;
    node.sleep_until(wake);
  }
}

// Converts an HSA timeout hint (timestamp ticks = ns) into a deadline.
inline uint64_t deadline_after(uint64_t timeout_ns) {
  const uint64_t now = now_ns();
  return timeout_ns >= UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

// Creates a queue doorbell: an AMD_SIGNAL_KIND_DOORBELL signal (value 0)
// not listed in the user registry. The queue sets amd.queue_ptr.
Signal* create_doorbell_signal();
void destroy_internal_signal(Signal* signal);

// The thread that runs hsa_amd_signal_async_handler handlers and
// hsa_amd_async_function callbacks; also used internally to chain work on
// signal conditions. Thread-safe.
class AsyncHandlerThread {
 public:
  // Returns true to stay registered.
  using Handler = std::function<bool(int64_t value)>;
  AsyncHandlerThread();
  ~AsyncHandlerThread();  // joins; pending handlers are dropped
  void add(Signal* signal, hsa_signal_condition_t condition, int64_t value,
           Handler handler);
  void add_function(std::function<void()> function);

 private:
  struct Entry;
  struct State;
  State* state_;
};

// The runtime's handler thread (started on first use). Null before hsa_init.
AsyncHandlerThread* async_handler_thread();
void shut_down_async_handler_thread();

// Live user signal registry (for hsa_signal_destroy validation and shutdown).
bool signal_registry_contains(Signal* signal);
// True for a live user signal or queue doorbell (handle-taking entry points
// validate with it; the null handle is not live).
bool signal_is_live(hsa_signal_t signal);
void destroy_all_user_signals();

}  // namespace hsa_core

#endif  // HSA_CORE_SIGNAL_H_
