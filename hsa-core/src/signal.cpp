#include <hsa_core/signal.h>

#include <pthread.h>

#include <algorithm>
#include <memory>
#include <system_error>
#include <thread>
#include <unordered_set>

#include <cstdarg>
#include <cstdio>
#include <new>

namespace hsa_core {

// ---------------------------------------------------------------------------
// Wait machinery

namespace {

// Sleeping waiters, listed only for a back-end with device_writes.
std::mutex g_sleepers_mutex;
WaitNode* g_sleepers = nullptr;  // g_sleepers_mutex

void list_sleeper(WaitNode* node) {
  std::lock_guard<std::mutex> lock(g_sleepers_mutex);
  node->prev_sleeper = nullptr;
  node->next_sleeper = g_sleepers;
  if (g_sleepers) g_sleepers->prev_sleeper = node;
  g_sleepers = node;
}

void unlist_sleeper(WaitNode* node) {
  std::lock_guard<std::mutex> lock(g_sleepers_mutex);
  if (node->prev_sleeper) node->prev_sleeper->next_sleeper = node->next_sleeper; else g_sleepers = node->next_sleeper;
  if (node->next_sleeper) node->next_sleeper->prev_sleeper = node->prev_sleeper;
  node->prev_sleeper = node->next_sleeper = nullptr;
}

}  // namespace

void WaitNode::sleep_until(uint64_t deadline_ns) {
  const bool listed = backend().device_writes;
  // Listed before it can sleep: a wake_all_sleepers() after the state
  // change below finds it.
  if (listed) list_sleeper(this);
  uint32_t expected = kArmed;
  if (state.compare_exchange_strong(expected, kSleeping, std::memory_order_seq_cst)) {
    const uint64_t now = now_ns();
    if (deadline_ns == UINT64_MAX || deadline_ns > now)
      futex_wait(&state, kSleeping, deadline_ns == UINT64_MAX ? UINT64_MAX : deadline_ns - now);
  }  // (else notified since arm())
  if (listed) unlist_sleeper(this);
}

void wake_all_sleepers() {
  if (!backend().device_writes) return;
  std::lock_guard<std::mutex> lock(g_sleepers_mutex);
  for (WaitNode* node = g_sleepers; node != nullptr; node = node->next_sleeper) node->notify();
}

void log(const char* format, ...) {
  if (backend().log == nullptr) return;
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  backend().log(buffer);
}

Signal::Signal(int64_t initial_value) {
  amd = amd_signal_t{};
  amd.kind = AMD_SIGNAL_KIND_USER;
  amd.value = initial_value;
}

Signal* Signal::create(int64_t initial_value) {
  void* storage = backend().signal_storage_allocate
                      ? backend().signal_storage_allocate(sizeof(Signal))
                      : ::operator new(sizeof(Signal), std::align_val_t(alignof(Signal)), std::nothrow);
  if (storage == nullptr) return nullptr;
  return new (storage) Signal(initial_value);
}

void Signal::destroy(Signal* signal) {
  signal->~Signal();
  if (backend().signal_storage_free)
    backend().signal_storage_free(signal);
  else
    ::operator delete(signal, std::align_val_t(alignof(Signal)));
}

void Signal::notify_slow() {
  std::lock_guard<std::mutex> lock(waiters_mutex);
  const int64_t value = load_relaxed();  // at least as new as our change
  for (const Waiter& w : waiters)
    if (w.filter.any_change || condition_met(w.filter.condition, value, w.filter.compare))
      w.node->notify();
}

void Signal::notify_all_waiters() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (waiter_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(waiters_mutex);
  for (const Waiter& w : waiters) w.node->notify();
}

bool Signal::add_waiter(WaitNode* node, const WaitFilter& filter) {
  std::lock_guard<std::mutex> lock(waiters_mutex);
  try {
    waiters.push_back(Waiter{node, filter});
  } catch (const std::bad_alloc&) {
    return false;  // host memory ran out: the waiter polls instead
  }
  waiter_count.fetch_add(1, std::memory_order_seq_cst);
  return true;
}

void Signal::remove_waiter(WaitNode* node) {
  std::lock_guard<std::mutex> lock(waiters_mutex);
  auto it = std::find_if(waiters.begin(), waiters.end(),
                         [node](const Waiter& w) { return w.node == node; });
  if (it == waiters.end()) return;
  *it = waiters.back();
  waiters.pop_back();
  waiter_count.fetch_sub(1, std::memory_order_relaxed);
}

WaitRegistration::WaitRegistration(WaitNode* node, Signal* const* signals, size_t count,
                                   const WaitFilter* filters)
    : node_(node), signals_(signals), count_(count) {
  for (size_t i = 0; i < count_; ++i) {
    if (signals_[i] == nullptr || signals_[i]->add_waiter(node_, filters ? filters[i] : kAnyChange)) continue;
    // Out of host memory: none stays registered (the node lives on the
    // waiter's stack); the waiter polls.
    for (size_t j = 0; j < i; ++j)
      if (signals_[j] != nullptr) signals_[j]->remove_waiter(node_);
    count_ = 0;
    registered_ = false;
    return;
  }
}

WaitRegistration::~WaitRegistration() {
  for (size_t i = 0; i < count_; ++i)
    if (signals_[i] != nullptr) signals_[i]->remove_waiter(node_);
}


// ---------------------------------------------------------------------------
// Registries

namespace {

struct SignalRegistry {
  std::mutex mutex;
  std::unordered_set<Signal*> signals;   // user signals (hsa_*signal_create)
  std::unordered_set<Signal*> internal;  // queue doorbells
};
SignalRegistry& signal_registry() {
  static SignalRegistry* registry = new SignalRegistry();  // outlives exit
  return *registry;
}

struct SignalGroup {
  std::vector<Signal*> signals;  // members, in creation order
};
struct GroupRegistry {
  std::mutex mutex;
  std::unordered_set<SignalGroup*> groups;
};
GroupRegistry& group_registry() {
  static GroupRegistry* registry = new GroupRegistry();
  return *registry;
}

// Checks a consumer list: a non-empty list needs its pointer, names no agent
// twice (INVALID_ARGUMENT) and only known agents (INVALID_AGENT, as ROCR).
hsa_status_t check_consumers(uint32_t num_consumers, const hsa_agent_t* consumers) {
  if (num_consumers == 0) return HSA_STATUS_SUCCESS;
  if (consumers == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_consumers; ++i) {
    if (!backend().agent_known(consumers[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
    for (uint32_t j = 0; j < i; ++j)
      if (consumers[j].handle == consumers[i].handle) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t create_user_signal(int64_t initial_value, uint64_t attributes,
                                hsa_signal_t* out_signal) {
  Signal* signal = Signal::create(initial_value);
  if (signal == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  signal->attributes = attributes;
  {
    SignalRegistry& r = signal_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    try {
      r.signals.insert(signal);
    } catch (const std::bad_alloc&) {
      Signal::destroy(signal);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
  }
  *out_signal = to_handle(signal);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

bool signal_registry_contains(Signal* signal) {
  SignalRegistry& r = signal_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.signals.count(signal) != 0;
}

bool signal_is_live(hsa_signal_t signal) {
  Signal* s = to_signal(signal);
  if (s == nullptr) return false;
  SignalRegistry& r = signal_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.signals.count(s) != 0 || r.internal.count(s) != 0;
}

Signal* create_doorbell_signal() {
  Signal* signal = Signal::create(0);
  if (signal == nullptr) return nullptr;
  signal->amd.kind = AMD_SIGNAL_KIND_DOORBELL;
  signal->amd.hardware_doorbell_ptr = reinterpret_cast<volatile uint64_t*>(&signal->doorbell_value);
  SignalRegistry& r = signal_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.internal.insert(signal);
  return signal;
}

void destroy_internal_signal(Signal* signal) {
  {
    SignalRegistry& r = signal_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.internal.erase(signal);
  }
  signal->wait_changes_done();
  Signal::destroy(signal);
}

void destroy_all_user_signals() {
  {
    SignalRegistry& r = signal_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.signals.empty()) log("hsa_shut_down: %zu signal(s) still live (destroyed now)", r.signals.size());
    for (Signal* s : r.signals) {
      s->wait_changes_done();
      Signal::destroy(s);
    }
    r.signals.clear();
  }
  GroupRegistry& g = group_registry();
  std::lock_guard<std::mutex> lock(g.mutex);
  for (SignalGroup* group : g.groups) delete group;
  g.groups.clear();
}

// ---------------------------------------------------------------------------
// Async handler thread

struct AsyncHandlerThread::Entry {
  Signal* signal;                    // watched signal
  hsa_signal_condition_t condition;  // condition to meet
  int64_t value;                     // compare value
  Handler handler;                   // called when met; true = keep
};

struct AsyncHandlerThread::State {
  std::mutex mutex;                                // guards the fields below
  std::vector<Entry> pending;                      // added, not yet watched
  std::vector<std::function<void()>> functions;    // to run once
  bool stop = false;
  WaitNode node;                                   // the thread's wake word
  std::thread thread;
};

AsyncHandlerThread::AsyncHandlerThread() : state_(new State()) {
  State* s = state_;
  // (A thread that cannot start throws std::system_error: the state goes,
  // and the entry point that asked returns OUT_OF_RESOURCES.)
  std::unique_ptr<State> owner(s);
  s->thread = std::thread([s] {
    std::vector<Entry> active;
    std::vector<Entry> added;
    std::vector<std::function<void()>> functions;
    uint64_t last_progress_ns = 0;  // when a handler or function last ran
    for (;;) {
      s->node.arm();
      bool stop;
      {
        std::lock_guard<std::mutex> lock(s->mutex);
        if (added.empty()) added.swap(s->pending);  // (else: left over from a round short of memory)
        functions.swap(s->functions);
        stop = s->stop;
      }
      if (stop) break;
      try {
        active.reserve(active.size() + added.size());
      } catch (const std::bad_alloc&) {
        // Host memory ran out: the additions stay in `added` for the next
        // round (which takes no new ones until they are watched).
        for (auto& f : functions) f();
        functions.clear();
        s->node.sleep_until(now_ns() + sleep_recheck_ns());
        continue;
      }
      for (Entry& e : added) {
        // (Unregistered when host memory ran out: the periodic re-check
        // below still sees the signal.)
        e.signal->add_waiter(&s->node, WaitFilter{false, e.condition, e.value});
        active.push_back(std::move(e));
      }
      added.clear();
      bool progressed = !functions.empty();
      for (auto& f : functions) f();
      functions.clear();
      for (size_t i = 0; i < active.size();) {
        const int64_t v = active[i].signal->load_acquire();
        if (condition_met(active[i].condition, v, active[i].value)) {
          progressed = true;
          // Off the signal before the handler runs: what the handler
          // starts (a copy, a completion) may let another thread destroy
          // the signal, and a handler may destroy it itself. Back on if
          // the handler stays registered.
          active[i].signal->remove_waiter(&s->node);
          if (active[i].handler(v)) {
            active[i].signal->add_waiter(&s->node, WaitFilter{false, active[i].condition, active[i].value});
          } else {
            active[i] = std::move(active.back());
            active.pop_back();
            continue;
          }
        }
        ++i;
      }
      if (progressed) {
        last_progress_ns = now_ns();
      } else if (!active.empty() || now_ns() - last_progress_ns < backend().blocked_spin_ns) {
        // A bounded active wait before sleeping, as ROCR's async event
        // thread does (its blocked wait polls before it sleeps): a
        // completion that follows soon is handled without a futex round
        // trip. Also for a while after the last handler ran with nothing
        // left to watch: the next registration (the next submission's
        // completion, typically) then finds this thread awake, and add()
        // costs its caller no futex wake. Ends at the first notify (a
        // watched change, an addition).
        const uint64_t start = now_ns();
        SpinPacer pacer(start, (active.empty() ? last_progress_ns : start) + backend().blocked_spin_ns);
        while (s->node.state.load(std::memory_order_acquire) == WaitNode::kArmed && pacer.step()) {
        }
      }
      // Watched signals may change behind the API (value pointer, kernel
      // code): re-check them periodically; with nothing to watch, sleep.
      if (!progressed)
        s->node.sleep_until(active.empty() ? UINT64_MAX : now_ns() + sleep_recheck_ns());
    }
    for (Entry& e : active) e.signal->remove_waiter(&s->node);
  });
  owner.release();
  char name[16];
  snprintf(name, sizeof(name), "%s-handler", backend().name);
  pthread_setname_np(s->thread.native_handle(), name);
}

AsyncHandlerThread::~AsyncHandlerThread() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  state_->node.notify();
  if (state_->thread.get_id() == std::this_thread::get_id()) {
    // Shut down from a handler (a process that exits there): the thread
    // cannot join itself; it ends after the handler returns, its state
    // left behind.
    state_->thread.detach();
    return;
  }
  state_->thread.join();
  delete state_;
}

void AsyncHandlerThread::add(Signal* signal, hsa_signal_condition_t condition,
                             int64_t value, Handler handler) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->pending.push_back(Entry{signal, condition, value, std::move(handler)});
  }
  state_->node.notify();
}

void AsyncHandlerThread::add_function(std::function<void()> function) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->functions.push_back(std::move(function));
  }
  state_->node.notify();
}

namespace {
std::mutex g_handler_mutex;
AsyncHandlerThread* g_handler_thread = nullptr;
}  // namespace

AsyncHandlerThread* async_handler_thread() {
  std::lock_guard<std::mutex> lock(g_handler_mutex);
  if (g_handler_thread == nullptr) g_handler_thread = new AsyncHandlerThread();
  return g_handler_thread;
}

void shut_down_async_handler_thread() {
  AsyncHandlerThread* t;
  {
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    t = g_handler_thread;
    g_handler_thread = nullptr;
  }
  delete t;
}

}  // namespace hsa_core

// ---------------------------------------------------------------------------
// Entry points

using namespace hsa_core;

HSA_CORE_EXPORT hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value,
                                              uint32_t num_consumers,
                                              const hsa_agent_t* consumers,
                                              hsa_signal_t* signal) {
  HSA_CORE_REQUIRE_INIT();
  if (signal == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t status = check_consumers(num_consumers, consumers); status != HSA_STATUS_SUCCESS) {
    log("hsa_signal_create: invalid consumer list");
    return status;
  }
  return create_user_signal(initial_value, 0, signal);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_signal_create(hsa_signal_value_t initial_value,
                                                  uint32_t num_consumers,
                                                  const hsa_agent_t* consumers,
                                                  uint64_t attributes,
                                                  hsa_signal_t* signal) {
  HSA_CORE_REQUIRE_INIT();
  if (signal == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hsa_status_t status = check_consumers(num_consumers, consumers); status != HSA_STATUS_SUCCESS) {
    log("hsa_amd_signal_create: invalid consumer list");
    return status;
  }
  if (attributes & HSA_AMD_SIGNAL_IPC) {
    log("hsa_amd_signal_create: HSA_AMD_SIGNAL_IPC is not supported");
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (attributes & ~uint64_t(HSA_AMD_SIGNAL_AMD_GPU_ONLY)) {
    log("hsa_amd_signal_create: unknown attributes 0x%llx",
        static_cast<unsigned long long>(attributes));
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return create_user_signal(initial_value, attributes, signal);
}

HSA_CORE_EXPORT hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  HSA_CORE_REQUIRE_INIT();
  if (signal.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Signal* s = to_signal(signal);
  {
    SignalRegistry& r = signal_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.signals.erase(s) == 0) {
      log("hsa_signal_destroy: 0x%llx is not a live signal",
          static_cast<unsigned long long>(signal.handle));
      return HSA_STATUS_ERROR_INVALID_SIGNAL;
    }
  }
  if (backend().signal_destroying) backend().signal_destroying(s);
  s->wait_changes_done();
  Signal::destroy(s);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_signal_value_pointer(hsa_signal_t signal,
                                                         volatile hsa_signal_value_t** value_ptr) {
  HSA_CORE_REQUIRE_INIT();
  if (!signal_is_live(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (value_ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *value_ptr = to_signal(signal)->value_ptr();
  return HSA_STATUS_SUCCESS;
}

// Loads.
#define HSA_CORE_SIGNAL_LOAD(suffix, order)                                    \
  HSA_CORE_EXPORT hsa_signal_value_t hsa_signal_load_##suffix(hsa_signal_t s) { \
    Signal* sig = to_signal(s);                                               \
    return sig ? __atomic_load_n(sig->value_ptr(), order) : 0;                \
  }
HSA_CORE_SIGNAL_LOAD(scacquire, __ATOMIC_ACQUIRE)
HSA_CORE_SIGNAL_LOAD(acquire, __ATOMIC_ACQUIRE)
HSA_CORE_SIGNAL_LOAD(relaxed, __ATOMIC_RELAXED)

// Stores: a normal store wakes waiters, a silent store does not.
#define HSA_CORE_SIGNAL_STORE(name, order, notify)                             \
  HSA_CORE_EXPORT void name(hsa_signal_t s, hsa_signal_value_t value) {        \
    Signal* sig = to_signal(s);                                               \
    if (!sig) return;                                                         \
    if (sig->amd.kind == AMD_SIGNAL_KIND_DOORBELL && backend().doorbell_stored) \
      backend().doorbell_stored(sig);                                         \
    if (!notify) {                                                            \
      __atomic_store_n(sig->value_ptr(), value, order);                       \
      return;                                                                 \
    }                                                                         \
    ChangeScope scope(sig);                                                   \
    __atomic_store_n(sig->value_ptr(), value, order);                         \
    sig->notify_waiters();                                                    \
  }
HSA_CORE_SIGNAL_STORE(hsa_signal_store_relaxed, __ATOMIC_RELAXED, true)
HSA_CORE_SIGNAL_STORE(hsa_signal_store_screlease, __ATOMIC_RELEASE, true)
HSA_CORE_SIGNAL_STORE(hsa_signal_store_release, __ATOMIC_RELEASE, true)
HSA_CORE_SIGNAL_STORE(hsa_signal_silent_store_relaxed, __ATOMIC_RELAXED, false)
HSA_CORE_SIGNAL_STORE(hsa_signal_silent_store_screlease, __ATOMIC_RELEASE, false)

// Read-modify-write operations in all seven order spellings.
#define HSA_CORE_SIGNAL_RMW_ORDERS(X)  \
  X(scacq_screl, __ATOMIC_ACQ_REL)    \
  X(acq_rel, __ATOMIC_ACQ_REL)        \
  X(scacquire, __ATOMIC_ACQUIRE)      \
  X(acquire, __ATOMIC_ACQUIRE)        \
  X(relaxed, __ATOMIC_RELAXED)        \
  X(screlease, __ATOMIC_RELEASE)      \
  X(release, __ATOMIC_RELEASE)

#define HSA_CORE_DEFINE_VOID_OP(op, builtin, suffix, order)                    \
  HSA_CORE_EXPORT void hsa_signal_##op##_##suffix(hsa_signal_t s,              \
                                                 hsa_signal_value_t value) {  \
    Signal* sig = to_signal(s);                                               \
    if (!sig) return;                                                         \
    ChangeScope scope(sig);                                                   \
    builtin(sig->value_ptr(), value, order);                                  \
    sig->notify_waiters();                                                    \
  }
#define HSA_CORE_VOID_OP_ADD(suffix, order) HSA_CORE_DEFINE_VOID_OP(add, __atomic_fetch_add, suffix, order)
#define HSA_CORE_VOID_OP_SUB(suffix, order) HSA_CORE_DEFINE_VOID_OP(subtract, __atomic_fetch_sub, suffix, order)
#define HSA_CORE_VOID_OP_AND(suffix, order) HSA_CORE_DEFINE_VOID_OP(and, __atomic_fetch_and, suffix, order)
#define HSA_CORE_VOID_OP_OR(suffix, order) HSA_CORE_DEFINE_VOID_OP(or, __atomic_fetch_or, suffix, order)
#define HSA_CORE_VOID_OP_XOR(suffix, order) HSA_CORE_DEFINE_VOID_OP(xor, __atomic_fetch_xor, suffix, order)
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_VOID_OP_ADD)
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_VOID_OP_SUB)
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_VOID_OP_AND)
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_VOID_OP_OR)
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_VOID_OP_XOR)

#define HSA_CORE_EXCHANGE(suffix, order)                                       \
  HSA_CORE_EXPORT hsa_signal_value_t hsa_signal_exchange_##suffix(             \
      hsa_signal_t s, hsa_signal_value_t value) {                             \
    Signal* sig = to_signal(s);                                               \
    if (!sig) return 0;                                                       \
    ChangeScope scope(sig);                                                   \
    const int64_t old = __atomic_exchange_n(sig->value_ptr(), value, order);  \
    sig->notify_waiters();                                                    \
    return old;                                                               \
  }
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_EXCHANGE)

// A failed CAS changes nothing and wakes nobody; its failure order may not be
// stronger than an acquire (release-only orders fail relaxed).
#define HSA_CORE_CAS(suffix, order)                                            \
  HSA_CORE_EXPORT hsa_signal_value_t hsa_signal_cas_##suffix(                  \
      hsa_signal_t s, hsa_signal_value_t expected, hsa_signal_value_t value) { \
    Signal* sig = to_signal(s);                                               \
    if (!sig) return 0;                                                       \
    ChangeScope scope(sig);                                                   \
    int64_t observed = expected;                                              \
    constexpr int failure = (order == __ATOMIC_RELEASE) ? __ATOMIC_RELAXED    \
                            : (order == __ATOMIC_ACQ_REL) ? __ATOMIC_ACQUIRE  \
                                                          : order;            \
    if (__atomic_compare_exchange_n(sig->value_ptr(), &observed, value,       \
                                    false, order, failure))                   \
      sig->notify_waiters();                                                  \
    return observed;                                                          \
  }
HSA_CORE_SIGNAL_RMW_ORDERS(HSA_CORE_CAS)

namespace {

// The enums by reference: read as bits until checked (an out-of-range value
// must not be loaded as the enum).
hsa_signal_value_t signal_wait(hsa_signal_t signal, const hsa_signal_condition_t& condition,
                               hsa_signal_value_t compare_value, uint64_t timeout_hint,
                               const hsa_wait_state_t& wait_state_hint, int order) {
  Signal* sig = to_signal(signal);
  if (sig == nullptr) return 0;
  if (!valid_condition(enum_bits(condition))) return sig->load_acquire();
  int64_t observed = 0;
  auto ready = [&] {
    observed = __atomic_load_n(sig->value_ptr(),
                               order == __ATOMIC_ACQUIRE ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED);
    return condition_met(condition, observed, compare_value);
  };
  Signal* const signals[1] = {sig};
  const WaitFilter filters[1] = {WaitFilter{false, condition, compare_value}};
  wait_until(signals, 1, filters, deadline_after(timeout_hint), sanitize_hint(wait_state_hint),
             sleep_recheck_ns(), ready);
  return observed;
}

}  // namespace

HSA_CORE_EXPORT hsa_signal_value_t hsa_signal_wait_scacquire(
    hsa_signal_t signal, hsa_signal_condition_t condition, hsa_signal_value_t compare_value,
    uint64_t timeout_hint, hsa_wait_state_t wait_state_hint) {
  return signal_wait(signal, condition, compare_value, timeout_hint, wait_state_hint,
                     __ATOMIC_ACQUIRE);
}
HSA_CORE_EXPORT hsa_signal_value_t hsa_signal_wait_acquire(
    hsa_signal_t signal, hsa_signal_condition_t condition, hsa_signal_value_t compare_value,
    uint64_t timeout_hint, hsa_wait_state_t wait_state_hint) {
  return signal_wait(signal, condition, compare_value, timeout_hint, wait_state_hint,
                     __ATOMIC_ACQUIRE);
}
HSA_CORE_EXPORT hsa_signal_value_t hsa_signal_wait_relaxed(
    hsa_signal_t signal, hsa_signal_condition_t condition, hsa_signal_value_t compare_value,
    uint64_t timeout_hint, hsa_wait_state_t wait_state_hint) {
  return signal_wait(signal, condition, compare_value, timeout_hint, wait_state_hint,
                     __ATOMIC_RELAXED);
}

namespace {

// Waits until one of `count` conditions holds; returns its index or
// UINT32_MAX when the deadline passed.
uint32_t wait_any(uint32_t count, const hsa_signal_t* handles,
                  const hsa_signal_condition_t* conditions, const hsa_signal_value_t* values,
                  uint64_t deadline, hsa_wait_state_t hint, int64_t* out_value) {
  std::vector<Signal*> signals;
  std::vector<WaitFilter> filters;
  try {
    signals.resize(count);
    filters.resize(count);
  } catch (const std::bad_alloc&) {
    // Out of host memory: poll the handles themselves until one holds.
    for (;;) {
      for (uint32_t i = 0; i < count; ++i) {
        Signal* signal = to_signal(handles[i]);
        if (signal == nullptr) continue;
        const int64_t v = signal->load_acquire();
        if (condition_met(conditions[i], v, values[i])) {
          if (out_value) *out_value = v;
          return i;
        }
      }
      const uint64_t now = now_ns();
      if (now >= deadline) return UINT32_MAX;
      const timespec pause{0, long(std::min<uint64_t>(deadline - now, 100'000))};
      nanosleep(&pause, nullptr);
    }
  }
  for (uint32_t i = 0; i < count; ++i) {
    signals[i] = to_signal(handles[i]);
    filters[i] = WaitFilter{false, conditions[i], values[i]};
  }
  uint32_t index = UINT32_MAX;
  int64_t observed = 0;
  auto ready = [&] {
    for (uint32_t i = 0; i < count; ++i) {
      if (signals[i] == nullptr) continue;
      const int64_t v = signals[i]->load_acquire();
      if (condition_met(conditions[i], v, values[i])) {
        index = i;
        observed = v;
        return true;
      }
    }
    return false;
  };
  if (wait_until(signals.data(), count, filters.data(), deadline, hint, sleep_recheck_ns(), ready) &&
      out_value)
    *out_value = observed;
  return index;
}

}  // namespace

HSA_CORE_EXPORT uint32_t hsa_amd_signal_wait_any(uint32_t signal_count, hsa_signal_t* signals,
                                                hsa_signal_condition_t* conds,
                                                hsa_signal_value_t* values,
                                                uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                                hsa_signal_value_t* satisfying_value) {
  if (!backend().initialized() || signal_count == 0 || signals == nullptr || conds == nullptr ||
      values == nullptr)
    return UINT32_MAX;
  for (uint32_t i = 0; i < signal_count; ++i)
    if (!valid_condition(enum_bits(conds[i]))) return UINT32_MAX;
  return wait_any(signal_count, signals, conds, values, deadline_after(timeout_hint),
                  sanitize_hint(wait_hint), satisfying_value);
}

HSA_CORE_EXPORT hsa_status_t hsa_signal_group_create(uint32_t num_signals,
                                                    const hsa_signal_t* signals,
                                                    uint32_t num_consumers,
                                                    const hsa_agent_t* consumers,
                                                    hsa_signal_group_t* signal_group) {
  HSA_CORE_REQUIRE_INIT();
  // The HSA 1.2 header also refuses an empty consumer list; ROCR accepts it
  // (programs written for ROCR pass none), and so does the core.
  if (num_signals == 0 || signals == nullptr || signal_group == nullptr) {
    log("hsa_signal_group_create: empty signal list or null pointer");
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (hsa_status_t status = check_consumers(num_consumers, consumers); status != HSA_STATUS_SUCCESS) return status;
  auto* group = new SignalGroup();
  for (uint32_t i = 0; i < num_signals; ++i) {
    // The null signal is an invalid argument; an unknown one an invalid
    // signal (as ROCR).
    if (signals[i].handle == 0 || !signal_is_live(signals[i])) {
      delete group;
      log("hsa_signal_group_create: signal %u (0x%llx) is not a live signal", i,
          static_cast<unsigned long long>(signals[i].handle));
      return signals[i].handle == 0 ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_ERROR_INVALID_SIGNAL;
    }
    group->signals.push_back(to_signal(signals[i]));
  }
  GroupRegistry& r = group_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.groups.insert(group);
  signal_group->handle = reinterpret_cast<uintptr_t>(group);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_signal_group_destroy(hsa_signal_group_t signal_group) {
  HSA_CORE_REQUIRE_INIT();
  auto* group = reinterpret_cast<SignalGroup*>(static_cast<uintptr_t>(signal_group.handle));
  {
    GroupRegistry& r = group_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (group == nullptr || r.groups.erase(group) == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
  }
  delete group;
  return HSA_STATUS_SUCCESS;
}

namespace {

hsa_status_t group_wait_any(hsa_signal_group_t signal_group,
                            const hsa_signal_condition_t* conditions,
                            const hsa_signal_value_t* compare_values,
                            hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                            hsa_signal_value_t* value) {
  HSA_CORE_REQUIRE_INIT();
  auto* group = reinterpret_cast<SignalGroup*>(static_cast<uintptr_t>(signal_group.handle));
  {
    GroupRegistry& r = group_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (group == nullptr || r.groups.count(group) == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
  }
  if (conditions == nullptr || compare_values == nullptr || signal == nullptr || value == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const uint32_t count = uint32_t(group->signals.size());
  for (uint32_t i = 0; i < count; ++i)
    if (!valid_condition(enum_bits(conditions[i]))) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<hsa_signal_t> handles(count);
  for (uint32_t i = 0; i < count; ++i) handles[i] = to_handle(group->signals[i]);
  int64_t observed = 0;
  const uint32_t index = wait_any(count, handles.data(), conditions, compare_values, UINT64_MAX,
                                  sanitize_hint(wait_state_hint), &observed);
  if (index == UINT32_MAX) return HSA_STATUS_ERROR;
  *signal = handles[index];
  *value = observed;
  return HSA_STATUS_SUCCESS;
}

}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_signal_group_wait_any_scacquire(
    hsa_signal_group_t signal_group, const hsa_signal_condition_t* conditions,
    const hsa_signal_value_t* compare_values, hsa_wait_state_t wait_state_hint,
    hsa_signal_t* signal, hsa_signal_value_t* value) {
  return group_wait_any(signal_group, conditions, compare_values, wait_state_hint, signal, value);
}
HSA_CORE_EXPORT hsa_status_t hsa_signal_group_wait_any_relaxed(
    hsa_signal_group_t signal_group, const hsa_signal_condition_t* conditions,
    const hsa_signal_value_t* compare_values, hsa_wait_state_t wait_state_hint,
    hsa_signal_t* signal, hsa_signal_value_t* value) {
  return group_wait_any(signal_group, conditions, compare_values, wait_state_hint, signal, value);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_signal_async_handler(hsa_signal_t signal,
                                                         hsa_signal_condition_t cond,
                                                         hsa_signal_value_t value,
                                                         hsa_amd_signal_handler handler,
                                                         void* arg) {
  HSA_CORE_REQUIRE_INIT();
  if (!signal_is_live(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  Signal* sig = to_signal(signal);
  if (handler == nullptr || !valid_condition(enum_bits(cond))) {
    log("hsa_amd_signal_async_handler: null handler or invalid condition %u", enum_bits(cond));
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  try {
    async_handler_thread()->add(sig, cond, value, [handler, arg](int64_t v) { return handler(v, arg); });
  } catch (const std::exception& e) {
    log("hsa_amd_signal_async_handler: %s", e.what());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_async_function(void (*callback)(void* arg), void* arg) {
  HSA_CORE_REQUIRE_INIT();
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    async_handler_thread()->add_function([callback, arg] { callback(arg); });
  } catch (const std::exception& e) {
    log("hsa_amd_async_function: %s", e.what());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}
