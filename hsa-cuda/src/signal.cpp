// hsa-cuda as the core's back-end (hsa-core/): signals are the core's, every
// hsa_signal_* entry point and the handler thread included. What is hsa-cuda's
// own is where they live: in pinned, mapped host memory, so a stream can write
// (cuStreamWriteValue64) and wait on (cuStreamWaitValue64) their value. A
// device's write wakes nobody by itself: sleepers re-check every 50 µs, and a
// queue processor that sees a completion signal land wakes them all
// (signals_wake_all).
//
// Thread-safety: every entry point may be called from any thread; the slabs
// are guarded by g_slabs_mutex.
#include <hsa_core/signal.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "runtime.h"

namespace hsa_cuda {
namespace {

constexpr uint64_t kRecheckNs = 50000;  // a device write is seen within 50 µs
constexpr size_t kSlabSignals = 256;
// One Signal per slot (alignas(AMD_SIGNAL_ALIGN_BYTES): its size is a
// multiple of the alignment, so consecutive slots stay aligned).
constexpr size_t kSlotBytes = sizeof(hsa_core::Signal);

struct Slab {
  void* host = nullptr;
  CUdeviceptr device = 0;
};

std::mutex g_slabs_mutex;
std::vector<Slab> g_slabs;   // g_slabs_mutex
std::vector<void*> g_free;   // free slots (g_slabs_mutex)

void* allocate_slot(size_t bytes) {
  if (bytes > kSlotBytes) return nullptr;
  std::lock_guard<std::mutex> lock(g_slabs_mutex);
  if (g_free.empty()) {
    if (g_runtime.agents.empty() || !make_current(g_runtime.agents[0].get())) return nullptr;
    Slab slab;
    CUresult r = g_runtime.cuda.cuMemHostAlloc(&slab.host, kSlabSignals * kSlotBytes,
                                               CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuMemHostGetDevicePointer(&slab.device, slab.host, 0);
    if (r != CUDA_SUCCESS) {
      log_error("hsa_signal_create: pinned memory for signals: %s", cuda_error_text(r).c_str());
      if (slab.host) g_runtime.cuda.cuMemFreeHost(slab.host);
      return nullptr;
    }
    try {
      g_slabs.push_back(slab);
      g_free.reserve(g_free.size() + kSlabSignals);
    } catch (const std::bad_alloc&) {
      g_runtime.cuda.cuMemFreeHost(slab.host);
      return nullptr;
    }
    auto* slots = static_cast<unsigned char*>(slab.host);
    for (size_t i = kSlabSignals; i-- > 0;) g_free.push_back(slots + i * kSlotBytes);
  }
  void* slot = g_free.back();
  g_free.pop_back();
  return slot;
}

void free_slot(void* slot) {
  std::lock_guard<std::mutex> lock(g_slabs_mutex);
  g_free.push_back(slot);  // (reserved when its slab came)
}

// HSA_CUDA_STATS: a doorbell store stamps the doorbell (runtime.h).
void stamp_doorbell(hsa_core::Signal* doorbell) {
  if (!g_runtime.stats) return;
  __atomic_store_n(&doorbell->amd.end_ts, g_last_landed_ns.load(std::memory_order_relaxed), __ATOMIC_RELAXED);
  __atomic_store_n(&doorbell->amd.start_ts, monotonic_ns(), __ATOMIC_RELAXED);
}

// The handler thread (the core's) reads signals in pinned memory, which
// CUDA's own teardown may unmap at exit: a process that ends without
// hsa_shut_down stops it first, as the globals are destroyed (detached
// when the exit happens on it).
struct StopHandlerThreadAtExit {
  ~StopHandlerThreadAtExit() { hsa_core::shut_down_async_handler_thread(); }
} g_stop_handler_thread_at_exit;

}  // namespace

void signals_configure() {
  hsa_core::Backend& b = hsa_core::backend();
  b.blocked_spin_ns = g_runtime.wait_spin_ns;
  b.active_spin_ns = std::max<uint64_t>(g_runtime.wait_spin_ns, 200000);
}

void signals_wake_all() { hsa_core::wake_all_sleepers(); }

void signals_release_all(bool release_cuda) {
  hsa_core::shut_down_async_handler_thread();
  hsa_core::destroy_all_user_signals();
  std::lock_guard<std::mutex> lock(g_slabs_mutex);
  if (release_cuda)
    for (const Slab& slab : g_slabs) g_runtime.cuda.cuMemFreeHost(slab.host);
  g_slabs.clear();
  g_free.clear();
}

bool signal_valid(hsa_signal_t signal) { return hsa_core::signal_is_live(signal); }

amd_signal_t* signal_object(hsa_signal_t signal) { return &hsa_core::to_signal(signal)->amd; }

int64_t signal_value(hsa_signal_t signal) { return hsa_core::to_signal(signal)->load_acquire(); }

CUdeviceptr signal_device_address(hsa_signal_t signal) {
  const uintptr_t address = uintptr_t(signal.handle);
  std::lock_guard<std::mutex> lock(g_slabs_mutex);
  for (const Slab& slab : g_slabs) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(slab.host);
    if (address >= base && address < base + kSlabSignals * kSlotBytes && (address - base) % kSlotBytes == 0)
      return slab.device + (address - base) + offsetof(hsa_core::Signal, amd) + offsetof(amd_signal_t, value);
  }
  return 0;
}

hsa_status_t doorbell_create(hsa_signal_t* out) {
  hsa_core::Signal* doorbell = hsa_core::create_doorbell_signal();
  if (doorbell == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  doorbell->doorbell_value = -1;  // nothing rung yet (packet 0 not published)
  *out = hsa_core::to_handle(doorbell);
  return HSA_STATUS_SUCCESS;
}

void doorbell_destroy(hsa_signal_t doorbell) { hsa_core::destroy_internal_signal(hsa_core::to_signal(doorbell)); }

int64_t signal_wait(hsa_signal_t signal, hsa_signal_condition_t condition, int64_t compare, uint64_t timeout_ns,
                    const std::atomic<bool>* abort) {
  hsa_core::Signal* s = hsa_core::to_signal(signal);
  int64_t value = 0;
  auto ready = [&] {
    value = s->load_acquire();
    return hsa_core::condition_met(condition, value, compare) || (abort && abort->load(std::memory_order_acquire));
  };
  hsa_core::Signal* const signals[1] = {s};
  const hsa_core::WaitFilter filters[1] = {hsa_core::WaitFilter{false, condition, compare}};
  hsa_core::wait_until(signals, 1, filters, hsa_core::deadline_after(timeout_ns), HSA_WAIT_STATE_BLOCKED, kRecheckNs,
                       ready);
  return value;
}

}  // namespace hsa_cuda

// hsa-cuda as the core's back-end.
hsa_core::Backend& hsa_core::backend() {
  static Backend backend = [] {
    Backend b;
    b.name = "hsa-cuda";
    b.build_version = "hsa-cuda " HSA_CUDA_VERSION;
    b.open = hsa_cuda::open_runtime;
    b.close = hsa_cuda::close_runtime;
    hsa_cuda::set_code_object_hooks(b);
    b.initialized = [] { return hsa_cuda::initialized(); };
    b.agent_known = [](hsa_agent_t agent) { return hsa_cuda::to_agent(agent) != nullptr; };
    b.log = [](const char* line) { hsa_cuda::log_error("%s", line); };
    b.signal_storage_allocate = hsa_cuda::allocate_slot;
    b.signal_storage_free = hsa_cuda::free_slot;
    b.blocked_spin_ns = 20000;
    b.active_spin_ns = 200000;
    b.sleep_recheck_ns = hsa_cuda::kRecheckNs;
    b.device_writes = true;
    b.doorbell_stored = hsa_cuda::stamp_doorbell;
    b.signal_destroying = [](Signal* signal) { hsa_cuda::profiling_forget(hsa_core::to_handle(signal)); };
    // A profiled dispatch's times: its events, read into the signal in the
    // system domain (profiling.cpp); device ticks are %globaltimer ns.
    b.dispatch_time = [](hsa_signal_t signal) {
      uint64_t start = 0, end = 0;
      hsa_cuda::profiling_time(signal, &start, &end);
    };
    hsa_cuda::set_memory_hooks(b);
    hsa_cuda::set_agent_hooks(b);
    hsa_cuda::set_queue_hooks(b);
    b.regions_include_host_pools = true;
    b.isa_from_name = hsa_cuda::isa_from_name;
    b.isa_compatible = hsa_cuda::isa_compatible;
    return b;
  }();
  return backend;
}
