// Signals: amd_signal_t objects in pinned, mapped host memory, so a stream
// can write (cuStreamWriteValue64) and wait on (cuStreamWaitValue64) their
// value. Host waits poll briefly, then sleep on a process-wide futex word
// that every API store bumps; device writes wake nobody, so a sleeper
// re-checks every kRecheckNs.
//
// Thread-safety: every entry point may be called from any thread.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <functional>
#include <thread>

#include "runtime.h"

namespace hsa_cuda {
namespace {

constexpr uint64_t kRecheckNs = 50000;  // a device write is seen within 50 µs
constexpr uint64_t kSpinNs = 20000;
constexpr size_t kSlabSignals = 1024;

std::atomic<uint32_t> g_generation{0};
std::atomic<uint32_t> g_sleepers{0};

struct Slab {
  void* host = nullptr;
  CUdeviceptr device = 0;
};

std::mutex g_signals_mutex;
std::vector<Slab> g_slabs;
std::vector<amd_signal_t*> g_free;
std::set<uint64_t> g_live;

void sleep_for_change(uint32_t seen, uint64_t timeout_ns) {
  timespec ts{time_t(timeout_ns / 1000000000ull), long(timeout_ns % 1000000000ull)};
  g_sleepers.fetch_add(1, std::memory_order_seq_cst);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&g_generation), FUTEX_WAIT_PRIVATE, seen, &ts, nullptr, 0);
  g_sleepers.fetch_sub(1, std::memory_order_relaxed);
}

bool satisfied(hsa_signal_condition_t condition, int64_t value, int64_t compare) {
  switch (condition) {
    case HSA_SIGNAL_CONDITION_EQ: return value == compare;
    case HSA_SIGNAL_CONDITION_NE: return value != compare;
    case HSA_SIGNAL_CONDITION_LT: return value < compare;
    case HSA_SIGNAL_CONDITION_GTE: return value >= compare;
  }
  return false;
}

// A host wait that has not been satisfied after `waited_ns`: keeps polling
// (true; with `pause` for kSpinNs, then yielding the CPU between polls up to
// g_runtime.wait_spin_ns) or goes to sleep (false). A sleeper is woken by
// the queue processor's poll of a completion, one hand-off later: as CUDA's
// stream synchronization spins while the machine has CPUs to spare, so do
// waits here for up to wait_spin_ns (HSA_CUDA_WAIT_SPIN_US).
bool keep_polling(uint64_t waited_ns) {
  if (waited_ns < kSpinNs) {
    __builtin_ia32_pause();
    return true;
  }
  if (waited_ns < g_runtime.wait_spin_ns) {
    std::this_thread::yield();
    return true;
  }
  return false;
}

volatile int64_t* value_of(hsa_signal_t signal) {
  return &reinterpret_cast<amd_signal_t*>(signal.handle)->value;
}

int64_t load(hsa_signal_t signal, int order) { return __atomic_load_n(value_of(signal), order); }

// --- The handler thread: async handlers and async functions ---------------------

struct Handler {
  hsa_signal_t signal;
  hsa_signal_condition_t condition;
  hsa_signal_value_t value;
  hsa_amd_signal_handler handler;
  void* arg;
};

std::mutex g_handler_mutex;
std::vector<Handler> g_handlers;
std::deque<std::function<void()>> g_functions;
std::atomic<bool> g_handler_stop{false};
// The handler thread. A process may end (exit(), a return from main) with
// it running when nothing called hsa_shut_down; destroying a joinable
// std::thread would end that process in std::terminate. So its end stops
// and joins it, before what it reads (declared above) is destroyed; at an
// exit from a handler, on the thread itself, it is detached.
struct HandlerThread {
  std::thread thread;
  ~HandlerThread();
};
HandlerThread g_handler_thread;

void handler_loop() {
  while (!g_handler_stop.load(std::memory_order_acquire)) {
    const uint32_t seen = g_generation.load(std::memory_order_acquire);
    std::vector<Handler> ready;
    std::deque<std::function<void()>> functions;
    bool waiting = false;
    {
      std::lock_guard<std::mutex> lock(g_handler_mutex);
      functions.swap(g_functions);
      for (size_t i = 0; i < g_handlers.size();) {
        const Handler& h = g_handlers[i];
        if (satisfied(h.condition, load(h.signal, __ATOMIC_ACQUIRE), h.value)) {
          ready.push_back(h);
          g_handlers.erase(g_handlers.begin() + long(i));
        } else {
          ++i;
        }
      }
      waiting = !g_handlers.empty();
    }
    for (auto& function : functions) function();
    for (const Handler& h : ready) {
      if (h.handler(load(h.signal, __ATOMIC_ACQUIRE), h.arg)) {
        std::lock_guard<std::mutex> lock(g_handler_mutex);
        g_handlers.push_back(h);
      }
    }
    if (ready.empty() && functions.empty()) {
      // With handlers pending, spin kSpinNs for a change (as host waits do)
      // before sleeping: a futex wake-up costs the handler, and the driver's
      // submission it may release, several µs.
      if (waiting) {
        const uint64_t until = monotonic_ns() + kSpinNs;
        while (g_generation.load(std::memory_order_acquire) == seen && monotonic_ns() < until &&
               !g_handler_stop.load(std::memory_order_acquire))
          __builtin_ia32_pause();
        if (g_generation.load(std::memory_order_acquire) != seen) continue;
      }
      sleep_for_change(seen, waiting ? kRecheckNs : 100000000ull);
    }
  }
}

void start_handler_thread() {
  // Called with g_handler_mutex held.
  if (g_handler_thread.thread.joinable()) return;
  g_handler_stop.store(false);
  g_handler_thread.thread = std::thread(handler_loop);
}

}  // namespace

void signals_wake_all() {
  g_generation.fetch_add(1, std::memory_order_seq_cst);
  if (g_sleepers.load(std::memory_order_seq_cst) != 0)
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&g_generation), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr,
            nullptr, 0);
}

HandlerThread::~HandlerThread() {
  if (!thread.joinable()) return;
  if (thread.get_id() == std::this_thread::get_id()) {
    thread.detach();
    return;
  }
  g_handler_stop.store(true, std::memory_order_release);
  signals_wake_all();
  thread.join();
}

bool signal_valid(hsa_signal_t signal) {
  std::lock_guard<std::mutex> lock(g_signals_mutex);
  return g_live.count(signal.handle) != 0;
}

amd_signal_t* signal_object(hsa_signal_t signal) { return reinterpret_cast<amd_signal_t*>(signal.handle); }

CUdeviceptr signal_device_address(hsa_signal_t signal) {
  std::lock_guard<std::mutex> lock(g_signals_mutex);
  const uintptr_t address = uintptr_t(signal.handle);
  for (const Slab& slab : g_slabs) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(slab.host);
    if (address >= base && address < base + kSlabSignals * sizeof(amd_signal_t))
      return slab.device + (address - base) + offsetof(amd_signal_t, value);
  }
  return 0;
}

void signals_release_all(bool release_cuda) {
  {
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    g_handler_stop.store(true, std::memory_order_release);
    g_handlers.clear();
  }
  signals_wake_all();
  if (g_handler_thread.thread.joinable()) g_handler_thread.thread.join();
  std::lock_guard<std::mutex> lock(g_signals_mutex);
  if (!g_live.empty()) log_error("hsa_shut_down: %zu signals were left alive", g_live.size());
  if (release_cuda)
    for (const Slab& slab : g_slabs) g_runtime.cuda.cuMemFreeHost(slab.host);
  g_slabs.clear();
  g_free.clear();
  g_live.clear();
}

// Blocking wait shared by hsa_signal_wait_* and the queues' host-side waits.
int64_t signal_wait(hsa_signal_t signal, hsa_signal_condition_t condition, int64_t compare, uint64_t timeout_ns,
                    const std::atomic<bool>* abort) {
  const uint64_t start = monotonic_ns();
  const uint64_t deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
  for (;;) {
    const uint32_t seen = g_generation.load(std::memory_order_acquire);
    const int64_t value = load(signal, __ATOMIC_ACQUIRE);
    if (satisfied(condition, value, compare)) return value;
    const uint64_t now = monotonic_ns();
    if (now >= deadline || (abort && abort->load(std::memory_order_acquire))) return value;
    if (keep_polling(now - start)) continue;
    sleep_for_change(seen, std::min(kRecheckNs, deadline - now));
  }
}

}  // namespace hsa_cuda

using namespace hsa_cuda;

hsa_status_t hsa_amd_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                   const hsa_agent_t* consumers, uint64_t attributes, hsa_signal_t* signal) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!signal || (num_consumers && !consumers)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_consumers; ++i)
    if (!to_agent(consumers[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  (void)attributes;
  std::lock_guard<std::mutex> lock(g_signals_mutex);
  if (g_free.empty()) {
    if (g_runtime.agents.empty() || !make_current(g_runtime.agents[0].get()))
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    Slab slab;
    CUresult r = g_runtime.cuda.cuMemHostAlloc(&slab.host, kSlabSignals * sizeof(amd_signal_t),
                                               CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuMemHostGetDevicePointer(&slab.device, slab.host, 0);
    if (r != CUDA_SUCCESS) {
      log_error("hsa_signal_create: pinned memory for signals: %s", cuda_error_text(r).c_str());
      if (slab.host) g_runtime.cuda.cuMemFreeHost(slab.host);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    g_slabs.push_back(slab);
    auto* objects = static_cast<amd_signal_t*>(slab.host);
    for (size_t i = kSlabSignals; i-- > 0;) g_free.push_back(&objects[i]);
  }
  amd_signal_t* object = g_free.back();
  g_free.pop_back();
  std::memset(static_cast<void*>(object), 0, sizeof(*object));
  object->kind = AMD_SIGNAL_KIND_USER;
  __atomic_store_n(&object->value, initial_value, __ATOMIC_RELEASE);
  signal->handle = reinterpret_cast<uint64_t>(object);
  g_live.insert(signal->handle);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                               const hsa_agent_t* consumers, hsa_signal_t* signal) {
  return hsa_amd_signal_create(initial_value, num_consumers, consumers, 0, signal);
}

hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (signal.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (signal_valid(signal)) profiling_forget(signal);  // its profiled packet's events
  std::lock_guard<std::mutex> lock(g_signals_mutex);
  if (!g_live.erase(signal.handle)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  auto* object = reinterpret_cast<amd_signal_t*>(signal.handle);
  object->kind = AMD_SIGNAL_KIND_INVALID;
  g_free.push_back(object);
  return HSA_STATUS_SUCCESS;
}

#define HSA_CUDA_LOAD(name, order) \
  hsa_signal_value_t name(hsa_signal_t signal) { return signal.handle ? load(signal, order) : 0; }
HSA_CUDA_LOAD(hsa_signal_load_scacquire, __ATOMIC_ACQUIRE)
HSA_CUDA_LOAD(hsa_signal_load_relaxed, __ATOMIC_RELAXED)
HSA_CUDA_LOAD(hsa_signal_load_acquire, __ATOMIC_ACQUIRE)

// HSA_CUDA_STATS: a doorbell store stamps the doorbell (runtime.h).
void stamp_doorbell(hsa_signal_t signal) {
  amd_signal_t* object = reinterpret_cast<amd_signal_t*>(signal.handle);
  if (!g_runtime.stats || object->kind != AMD_SIGNAL_KIND_DOORBELL) return;
  __atomic_store_n(&object->end_ts, g_last_landed_ns.load(std::memory_order_relaxed), __ATOMIC_RELAXED);
  __atomic_store_n(&object->start_ts, monotonic_ns(), __ATOMIC_RELAXED);
}

#define HSA_CUDA_STORE(name, order, wake)                                 \
  void name(hsa_signal_t signal, hsa_signal_value_t value) {              \
    if (!signal.handle) return;                                           \
    stamp_doorbell(signal);                                               \
    __atomic_store_n(value_of(signal), value, order);                     \
    if (wake) signals_wake_all();                                         \
  }
HSA_CUDA_STORE(hsa_signal_store_relaxed, __ATOMIC_RELAXED, true)
HSA_CUDA_STORE(hsa_signal_store_screlease, __ATOMIC_RELEASE, true)
HSA_CUDA_STORE(hsa_signal_store_release, __ATOMIC_RELEASE, true)
HSA_CUDA_STORE(hsa_signal_silent_store_relaxed, __ATOMIC_RELAXED, false)
HSA_CUDA_STORE(hsa_signal_silent_store_screlease, __ATOMIC_RELEASE, false)

#define HSA_CUDA_RMW(name, op, order)                                     \
  void name(hsa_signal_t signal, hsa_signal_value_t value) {              \
    if (!signal.handle) return;                                           \
    op(value_of(signal), value, order);                                   \
    signals_wake_all();                                                   \
  }
HSA_CUDA_RMW(hsa_signal_add_relaxed, __atomic_fetch_add, __ATOMIC_RELAXED)
HSA_CUDA_RMW(hsa_signal_add_scacq_screl, __atomic_fetch_add, __ATOMIC_ACQ_REL)
HSA_CUDA_RMW(hsa_signal_add_screlease, __atomic_fetch_add, __ATOMIC_RELEASE)
HSA_CUDA_RMW(hsa_signal_subtract_relaxed, __atomic_fetch_sub, __ATOMIC_RELAXED)
HSA_CUDA_RMW(hsa_signal_subtract_scacq_screl, __atomic_fetch_sub, __ATOMIC_ACQ_REL)
HSA_CUDA_RMW(hsa_signal_subtract_screlease, __atomic_fetch_sub, __ATOMIC_RELEASE)

hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                             hsa_signal_value_t compare_value, uint64_t timeout_hint,
                                             hsa_wait_state_t wait_state_hint) {
  (void)wait_state_hint;
  if (!signal.handle) return 0;
  return signal_wait(signal, condition, compare_value, timeout_hint, nullptr);
}

hsa_signal_value_t hsa_signal_wait_relaxed(hsa_signal_t signal, hsa_signal_condition_t condition,
                                           hsa_signal_value_t compare_value, uint64_t timeout_hint,
                                           hsa_wait_state_t wait_state_hint) {
  return hsa_signal_wait_scacquire(signal, condition, compare_value, timeout_hint, wait_state_hint);
}

uint32_t hsa_amd_signal_wait_any(uint32_t signal_count, hsa_signal_t* signals, hsa_signal_condition_t* conds,
                                 hsa_signal_value_t* values, uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                 hsa_signal_value_t* satisfying_value) {
  (void)wait_hint;
  const uint64_t start = monotonic_ns();
  const uint64_t deadline = timeout_hint > UINT64_MAX - start ? UINT64_MAX : start + timeout_hint;
  for (;;) {
    const uint32_t seen = g_generation.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < signal_count; ++i) {
      if (!signals[i].handle) continue;
      const int64_t value = load(signals[i], __ATOMIC_ACQUIRE);
      if (satisfied(conds[i], value, values[i])) {
        if (satisfying_value) *satisfying_value = value;
        return i;
      }
    }
    const uint64_t now = monotonic_ns();
    if (now >= deadline) return UINT32_MAX;
    if (keep_polling(now - start)) continue;
    sleep_for_change(seen, std::min(kRecheckNs, deadline - now));
  }
}

hsa_status_t hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t cond,
                                          hsa_signal_value_t value, hsa_amd_signal_handler handler, void* arg) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!handler) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!signal_valid(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  {
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    g_handlers.push_back(Handler{signal, cond, value, handler, arg});
    start_handler_thread();
  }
  signals_wake_all();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_async_function(void (*callback)(void* arg), void* arg) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  {
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    g_functions.push_back([callback, arg] { callback(arg); });
    start_handler_thread();
  }
  signals_wake_all();
  return HSA_STATUS_SUCCESS;
}
