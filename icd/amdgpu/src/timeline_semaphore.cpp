#include "timeline_semaphore.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

#include "common.h"
#include "device.h"
#include "host_memory.h"
#include "trace.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {

struct Semaphore {
  const HsaApi* hsa = nullptr;                   // HSA table (outlives devices)
  std::atomic<uint32_t> references{1};           // the handle's, plus one per live submission
                                                 // listing it (it outlives xgpuDestroySemaphore
                                                 // until they finish with it)
  hsa_signal_t mirror{0};                        // HSA signal holding the payload
  std::mutex mutex;                              // guards the fields below
  uint64_t value = 0;                            // current payload
  XgpuResult failure = XGPU_SUCCESS;             // negative once failed
  std::multimap<uint64_t, Submission*> pending_signals;  // issued, incomplete signallers by value
  std::deque<uint64_t> accepted_signals;         // payloads accepted queue operations will signal, increasing;
                                                 // entries <= value are done (dropped as value rises)
  // Who learns of a new payload only through retirement (so a submission
  // signalling it gets its completion handler at issue,
  // semaphore_announce_signal):
  uint32_t mirror_waiters = 0;                   // host threads waiting on `mirror`
  bool held_on = false;                          // a submission was once held on the host for it with
                                                 // no signaller issued (sticky)
};

namespace {

// The queues' hooks (semaphore_set_signaller_hooks): set when the driver is
// loaded, before any semaphore exists.
const SemaphoreSignallerHooks* g_hooks = nullptr;

// Every semaphore between xgpuCreateSemaphore and xgpuDestroySemaphore, of
// every device (a queue may wait on or signal another device's semaphores).
// Constructed once in static storage and never destroyed: semaphores may be
// destroyed from exit handlers after static destructors ran. Its heap storage
// is given back whenever the set empties, so a driver unloaded with no live
// semaphore leaves nothing behind.
struct LiveSemaphores {
  std::mutex mutex;
  std::unordered_set<const void*> handles;
};
LiveSemaphores& live_semaphores() {
  alignas(LiveSemaphores) static unsigned char storage[sizeof(LiveSemaphores)];
  static LiveSemaphores* live = new (storage) LiveSemaphores;
  return *live;
}

}  // namespace

bool semaphore_retain_live(const void* handle) {
  LiveSemaphores& live = live_semaphores();
  std::lock_guard<std::mutex> lock(live.mutex);
  if (live.handles.count(handle) == 0) return false;
  semaphore_retain(static_cast<Semaphore*>(const_cast<void*>(handle)));
  return true;
}

void semaphore_retain(Semaphore* semaphore) { semaphore->references.fetch_add(1, std::memory_order_relaxed); }

void semaphore_release(Semaphore* semaphore) {
  if (semaphore->references.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  trace_semaphore_freed(semaphore);
  semaphore->hsa->hsa_signal_destroy(semaphore->mirror);
  host_delete_handle(semaphore);
}

void semaphore_advance(Semaphore* semaphore, uint64_t value) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  if (semaphore->failure != XGPU_SUCCESS || value <= semaphore->value) return;
  semaphore->value = value;
  semaphore->hsa->hsa_signal_store_screlease(semaphore->mirror, hsa_signal_value_t(value));
  while (!semaphore->accepted_signals.empty() && semaphore->accepted_signals.front() <= value)
    semaphore->accepted_signals.pop_front();
}

void semaphore_set_signaller_hooks(const SemaphoreSignallerHooks* hooks) { g_hooks = hooks; }

bool semaphore_accept_signal(Semaphore* semaphore, uint64_t value, uint64_t* out_current, uint64_t* out_accepted) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  const uint64_t accepted = semaphore->accepted_signals.empty() ? 0 : semaphore->accepted_signals.back();
  if (value <= semaphore->value || value <= accepted) {
    *out_current = semaphore->value;
    *out_accepted = accepted;
    return false;
  }
  semaphore->accepted_signals.push_back(value);
  return true;
}

void semaphore_forget_signal(Semaphore* semaphore, uint64_t value) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  auto& accepted = semaphore->accepted_signals;
  for (auto it = accepted.begin(); it != accepted.end(); ++it) {
    if (*it == value) {
      accepted.erase(it);
      return;
    }
    if (*it > value) return;
  }
}

bool semaphore_announce_signal(Semaphore* semaphore, uint64_t value, Submission* signaller) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  semaphore->pending_signals.emplace(value, signaller);
  return semaphore->mirror_waiters != 0 || semaphore->held_on;
}

void semaphore_withdraw_signal(Semaphore* semaphore, uint64_t value, const Submission* signaller) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  auto range = semaphore->pending_signals.equal_range(value);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second == signaller) {
      semaphore->pending_signals.erase(it);
      break;
    }
  }
}

SemaphoreWaitState semaphore_resolve_wait(Semaphore* semaphore, uint64_t value, SignallerCallback order,
                                          XgpuResult* out_failure) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  if (semaphore->failure != XGPU_SUCCESS) {
    *out_failure = semaphore->failure;
    return SemaphoreWaitState::kFailed;
  }
  if (semaphore->value >= value) return SemaphoreWaitState::kReached;
  auto it = semaphore->pending_signals.lower_bound(value);
  if (it != semaphore->pending_signals.end())
    return order.call(order.context, it->second) ? SemaphoreWaitState::kOrdered : SemaphoreWaitState::kHeld;
  // Released by the retirement of a signaller issued later, which, seeing
  // held_on, gets its completion handler at issue.
  semaphore->held_on = true;
  return SemaphoreWaitState::kHeld;
}

void semaphore_for_each_signaller(Semaphore* semaphore, uint64_t value, SignallerCallback visit) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  for (auto it = semaphore->pending_signals.lower_bound(value); it != semaphore->pending_signals.end(); ++it)
    visit.call(visit.context, it->second);
}

void semaphore_fail(Semaphore* semaphore, XgpuResult status) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  if (semaphore->failure != XGPU_SUCCESS) return;
  semaphore->failure = status;
  semaphore->hsa->hsa_signal_store_screlease(semaphore->mirror, kFailedMirrorValue);
}

XgpuResult semaphore_create(XgpuDevice handle, const XgpuSemaphoreCreateInfo* info,
                            const XgpuAllocationCallbacks* allocator, XgpuSemaphore* out_semaphore) {
  Device* device = device_from_handle(handle);
  if (!device || !info || !out_semaphore) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_semaphore = nullptr;
  if (device->lost) return device_fail_lost(device, "xgpuCreateSemaphore");
  if (info->initialValue > kMaxSemaphoreValue)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, msgid::kUnsupported,
                       "xgpuCreateSemaphore: pCreateInfo->initialValue " + std::to_string(info->initialValue) +
                           " exceeds the largest payload this driver supports (" +
                           std::to_string(kMaxSemaphoreValue) + ")");
  HostPtr<Semaphore> semaphore(host_new<Semaphore>(allocator));
  if (!semaphore)
    return device_fail(device, XGPU_ERROR_OUT_OF_HOST_MEMORY, msgid::kOutOfHostMemory,
                       "xgpuCreateSemaphore: allocating the object's host memory failed");
  semaphore->hsa = device->hsa;
  semaphore->value = info->initialValue;
  std::string error;
  XgpuResult result = device->hsa->hsa_signal_create_checked(
      &error, hsa_signal_value_t(info->initialValue), 0u, nullptr, &semaphore->mirror);
  if (result != XGPU_SUCCESS)
    return device_fail(device, result, msgid::failure(result), "xgpuCreateSemaphore: " + error);
  device_track_handle(device, semaphore.get());
  {
    LiveSemaphores& live = live_semaphores();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.handles.insert(semaphore.get());
  }
  *out_semaphore = to_handle<XgpuSemaphore>(semaphore.release());
  return XGPU_SUCCESS;
}

void semaphore_destroy(XgpuDevice handle, XgpuSemaphore semaphore_handle,
                       const XgpuAllocationCallbacks* allocator) {
  auto* semaphore = from_handle<Semaphore>(semaphore_handle);
  Device* device = device_from_handle(handle);
  if (!semaphore || !device) return;
  if (!device_release_handle(device, semaphore, vuid::xgpuDestroySemaphore_semaphore_parameter,
                             "xgpuDestroySemaphore: semaphore")) return;
  {
    LiveSemaphores& live = live_semaphores();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.handles.erase(semaphore);
    if (live.handles.empty()) std::unordered_set<const void*>().swap(live.handles);  // frees the buckets
  }
  semaphore_release(semaphore);
}

XgpuResult semaphore_signal(XgpuDevice handle, const XgpuSemaphoreSignalInfo* info) {
  Device* device = device_from_handle(handle);
  if (!device || !info || !info->semaphore) return XGPU_ERROR_INVALID_ARGUMENT;
  auto* semaphore = from_handle<Semaphore>(info->semaphore);
  if (device->lost) return device_fail_lost(device, "xgpuSignalSemaphore");
  if (info->value > kMaxSemaphoreValue)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, msgid::kUnsupported,
                       "xgpuSignalSemaphore: pSignalInfo->value " + std::to_string(info->value) +
                           " exceeds the largest payload this driver supports (" +
                           std::to_string(kMaxSemaphoreValue) + ")");
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    if (semaphore->failure != XGPU_SUCCESS) return semaphore->failure;
    if (info->value <= semaphore->value)
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuSignalSemaphore_pSignalInfo_value,
                         "xgpuSignalSemaphore: pSignalInfo->value " + std::to_string(info->value) +
                             " is not greater than the current payload " +
                             std::to_string(semaphore->value));
    // Accepted queue operations signal values above the payload, in order:
    // the host may only signal below the lowest of them.
    for (uint64_t pending : semaphore->accepted_signals) {
      if (pending <= semaphore->value) continue;
      if (info->value >= pending)
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuSignalSemaphore_pSignalInfo_value,
                           "xgpuSignalSemaphore: pSignalInfo->value " + std::to_string(info->value) +
                               " is not less than the payload " + std::to_string(pending) +
                               " a pending queue operation signals");
      break;
    }
  }
  TraceHostCall trace_call(device, "xgpuSignalSemaphore", &info->semaphore, &info->value, 1, /*signal=*/true);
  semaphore_advance(semaphore, info->value);
  g_hooks->payload_changed();
  return XGPU_SUCCESS;
}

namespace {

// 1: reached, 0: not yet, <0: failed with that status.
int64_t check(Semaphore* semaphore, uint64_t value) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  if (semaphore->failure != XGPU_SUCCESS) return semaphore->failure;
  return semaphore->value >= value ? 1 : 0;
}

hsa_signal_value_t mirror_target(uint64_t value) {
  return hsa_signal_value_t(std::min<uint64_t>(value, uint64_t(kFailedMirrorValue)));
}

// When an issued submission will set `semaphore` to `value` (the first
// pending signaller at or above it), waits for its completion signal or the
// mirror, whichever comes first, and retires the completed submissions of
// its queue on this thread: the payload is set here instead of after a
// hand-off to the completion handler's thread (which leaves the submission
// to its host waiters). Returns false when there is no such submission (not
// issued yet, a host signal to come) or the runtime lacks what this needs:
// the caller then waits on the mirror, counted in mirror_waiters (from
// here, under the lock that saw no signaller: a signaller issued from then
// on gets its completion handler at issue, which advances the mirror); it
// calls end_mirror_wait afterwards. True when it waited (the caller
// re-checks the payload and its deadline).
bool wait_for_signaller(const Device* device, Semaphore* semaphore, uint64_t value, uint64_t ticks) {
  const HsaApi& hsa = *device->hsa;
  Submission* signaller = nullptr;
  hsa_signal_t completion{0};
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    if (semaphore->failure != XGPU_SUCCESS || semaphore->value >= value) return true;
    auto it = semaphore->pending_signals.lower_bound(value);
    if (it == semaphore->pending_signals.end() || !hsa.hsa_amd_signal_wait_any || !hsa.hsa_signal_load_scacquire) {
      ++semaphore->mirror_waiters;
      return false;
    }
    // Listed here, the submission is alive (it is withdrawn under this lock
    // before it is finalized); held, it and its completion signal stay so.
    signaller = it->second;
    completion = g_hooks->begin_host_wait(signaller);
  }
  hsa_signal_t signals[2] = {completion, semaphore->mirror};
  hsa_signal_condition_t conditions[2] = {HSA_SIGNAL_CONDITION_LT, HSA_SIGNAL_CONDITION_GTE};
  hsa_signal_value_t values[2] = {1, mirror_target(value)};
  hsa_signal_value_t observed = 0;
  hsa.hsa_amd_signal_wait_any(2, signals, conditions, values, ticks, HSA_WAIT_STATE_BLOCKED, &observed);
  g_hooks->end_host_wait(signaller);
  return true;
}

void end_mirror_wait(Semaphore* semaphore) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  --semaphore->mirror_waiters;
}

// Counts this thread as a mirror waiter of `semaphore` and registers the
// completion handlers of its issued signallers (the mirror advances when
// they are retired). Undone by end_mirror_wait.
void begin_mirror_wait(Semaphore* semaphore) {
  std::vector<Submission*> signallers;
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    ++semaphore->mirror_waiters;
    for (auto& [value, signaller] : semaphore->pending_signals) g_hooks->hold_unwatched(signaller, &signallers);
  }
  g_hooks->watch_and_release(signallers);
}

// A wait-any's mirror waits, for its duration.
class MirrorWaits {
 public:
  explicit MirrorWaits(std::vector<Semaphore*> semaphores) : semaphores_(std::move(semaphores)) {
    for (Semaphore* semaphore : semaphores_) begin_mirror_wait(semaphore);
  }
  ~MirrorWaits() {
    for (Semaphore* semaphore : semaphores_) end_mirror_wait(semaphore);
  }
  MirrorWaits(const MirrorWaits&) = delete;
  MirrorWaits& operator=(const MirrorWaits&) = delete;

 private:
  std::vector<Semaphore*> semaphores_;
};

}  // namespace

XgpuResult semaphore_wait(XgpuDevice handle, const XgpuSemaphoreWaitInfo* info, uint64_t timeout_ns) {
  Device* device = device_from_handle(handle);
  if (!device || !info) return XGPU_ERROR_INVALID_ARGUMENT;
  if (info->semaphoreCount == 0) return XGPU_SUCCESS;
  // The arrays are read below: a NULL one (or a NULL element) is refused
  // with its rule instead of being dereferenced.
  if (!info->pSemaphores)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuWaitSemaphores_pWaitInfo_pSemaphores_parameter,
                       "xgpuWaitSemaphores: pWaitInfo->pSemaphores is NULL with semaphoreCount " +
                           std::to_string(info->semaphoreCount));
  if (!info->pValues)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuWaitSemaphores_pWaitInfo_pValues_parameter,
                       "xgpuWaitSemaphores: pWaitInfo->pValues is NULL with semaphoreCount " +
                           std::to_string(info->semaphoreCount));
  for (uint32_t i = 0; i < info->semaphoreCount; ++i)
    if (!info->pSemaphores[i])
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                         vuid::xgpuWaitSemaphores_pWaitInfo_pSemaphores_parameter,
                         "xgpuWaitSemaphores: pWaitInfo->pSemaphores[" + std::to_string(i) + "] is XGPU_NULL_HANDLE");
  const HsaApi& hsa = *device->hsa;
  TraceHostCall trace_call(device, "xgpuWaitSemaphores", info->pSemaphores, info->pValues, info->semaphoreCount, false);
  const uint64_t start = monotonic_ns();
  const uint64_t deadline = timeout_ns == XGPU_INFINITE_TIMEOUT || timeout_ns > UINT64_MAX - start
                                ? UINT64_MAX
                                : start + timeout_ns;
  auto remaining_ticks = [&]() -> uint64_t {
    if (deadline == UINT64_MAX) return UINT64_MAX;
    const uint64_t now = monotonic_ns();
    return now >= deadline ? 0 : device->runtime->ns_to_ticks(deadline - now);
  };
  const uint32_t count = info->semaphoreCount;
  auto semaphore_at = [&](uint32_t i) { return from_handle<Semaphore>(info->pSemaphores[i]); };

  if (info->flags & XGPU_SEMAPHORE_WAIT_ANY_BIT) {
    std::vector<hsa_signal_t> signals(count);
    std::vector<hsa_signal_condition_t> conditions(count, HSA_SIGNAL_CONDITION_GTE);
    std::vector<hsa_signal_value_t> values(count);
    for (uint32_t i = 0; i < count; ++i) {
      signals[i] = semaphore_at(i)->mirror;
      values[i] = mirror_target(info->pValues[i]);
    }
    // Every semaphore's payload is watched through its mirror.
    std::vector<Semaphore*> semaphores(count);
    for (uint32_t i = 0; i < count; ++i) semaphores[i] = semaphore_at(i);
    MirrorWaits mirror_waits(std::move(semaphores));
    for (;;) {
      for (uint32_t i = 0; i < count; ++i) {
        int64_t state = check(semaphore_at(i), info->pValues[i]);
        if (state < 0) return XgpuResult(state);
        if (state == 1) return XGPU_SUCCESS;
      }
      if (device->lost) return XGPU_ERROR_DEVICE_LOST;
      const uint64_t ticks = remaining_ticks();
      if (ticks == 0) return XGPU_TIMEOUT;
      if (hsa.hsa_amd_signal_wait_any) {
        hsa_signal_value_t observed = 0;
        hsa.hsa_amd_signal_wait_any(count, signals.data(), conditions.data(), values.data(), ticks,
                                    HSA_WAIT_STATE_BLOCKED, &observed);
      } else {
        // No wait-any in this runtime: wait on the first in short slices.
        hsa.hsa_signal_wait_scacquire(signals[0], HSA_SIGNAL_CONDITION_GTE, values[0],
                                      std::min<uint64_t>(ticks, device->runtime->ns_to_ticks(1'000'000)),
                                      HSA_WAIT_STATE_BLOCKED);
      }
    }
  }

  if (count > 1) {
    // All of several: a failure of any ends the wait at once (api.md), so
    // the wait is on every semaphore not reached yet - a failed one's mirror
    // jumps to kFailedMirrorValue and wakes it - until each is reached.
    std::vector<Semaphore*> semaphores(count);
    for (uint32_t i = 0; i < count; ++i) semaphores[i] = semaphore_at(i);
    MirrorWaits mirror_waits(semaphores);
    std::vector<hsa_signal_t> signals;
    std::vector<hsa_signal_condition_t> conditions;
    std::vector<hsa_signal_value_t> values;
    signals.reserve(count);
    conditions.reserve(count);
    values.reserve(count);
    for (;;) {
      signals.clear();
      conditions.clear();
      values.clear();
      for (uint32_t i = 0; i < count; ++i) {
        const int64_t state = check(semaphores[i], info->pValues[i]);
        if (state < 0) return XgpuResult(state);
        if (state == 1) continue;
        signals.push_back(semaphores[i]->mirror);
        conditions.push_back(HSA_SIGNAL_CONDITION_GTE);
        values.push_back(mirror_target(info->pValues[i]));
      }
      if (signals.empty()) return XGPU_SUCCESS;
      if (device->lost) return XGPU_ERROR_DEVICE_LOST;
      const uint64_t ticks = remaining_ticks();
      if (ticks == 0) return XGPU_TIMEOUT;
      if (hsa.hsa_amd_signal_wait_any) {
        hsa_signal_value_t observed = 0;
        hsa.hsa_amd_signal_wait_any(uint32_t(signals.size()), signals.data(), conditions.data(), values.data(),
                                    ticks, HSA_WAIT_STATE_BLOCKED, &observed);
      } else {
        hsa.hsa_signal_wait_scacquire(signals[0], HSA_SIGNAL_CONDITION_GTE, values[0],
                                      std::min<uint64_t>(ticks, device->runtime->ns_to_ticks(1'000'000)),
                                      HSA_WAIT_STATE_BLOCKED);
      }
    }
  }

  for (uint32_t i = 0; i < count; ++i) {
    Semaphore* semaphore = semaphore_at(i);
    for (;;) {
      int64_t state = check(semaphore, info->pValues[i]);
      if (state < 0) return XgpuResult(state);
      if (state == 1) break;
      if (device->lost) return XGPU_ERROR_DEVICE_LOST;
      const uint64_t ticks = remaining_ticks();
      if (ticks == 0) return XGPU_TIMEOUT;
      if (wait_for_signaller(device, semaphore, info->pValues[i], ticks)) continue;
      hsa.hsa_signal_wait_scacquire(semaphore->mirror, HSA_SIGNAL_CONDITION_GTE,
                                    mirror_target(info->pValues[i]), ticks, HSA_WAIT_STATE_BLOCKED);
      end_mirror_wait(semaphore);
    }
  }
  return XGPU_SUCCESS;
}

XgpuResult semaphore_get_value(XgpuDevice handle, XgpuSemaphore semaphore_handle, uint64_t* out_value) {
  Device* device = device_from_handle(handle);
  auto* semaphore = from_handle<Semaphore>(semaphore_handle);
  if (!device || !semaphore || !out_value) return XGPU_ERROR_INVALID_ARGUMENT;
  // The payload rises when its signallers are retired: those that completed
  // are retired here (nobody may be waiting for them, and their completion
  // handlers are registered on demand); the others get their handlers, so
  // the payload advances without another call.
  std::vector<Submission*> signallers;
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    for (auto& [value, signaller] : semaphore->pending_signals) g_hooks->hold_unwatched(signaller, &signallers);
  }
  g_hooks->settle_and_release(signallers);
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  *out_value = semaphore->value;
  // A semaphore failed earlier reports its own status; otherwise a lost
  // device reports the loss (spec §6.1).
  if (semaphore->failure != XGPU_SUCCESS) return semaphore->failure;
  return device->lost ? XGPU_ERROR_DEVICE_LOST : XGPU_SUCCESS;
}

XgpuResult semaphore_fail_entry(XgpuDevice handle, XgpuSemaphore semaphore_handle, XgpuResult status) {
  Device* device = device_from_handle(handle);
  auto* semaphore = from_handle<Semaphore>(semaphore_handle);
  if (!device || !semaphore) return XGPU_ERROR_INVALID_ARGUMENT;
  if (device->lost) return device_fail_lost(device, "xgpuFailSemaphore");
  if (status >= 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuFailSemaphore_status,
                       "xgpuFailSemaphore: status " + std::to_string(int(status)) + " is not an error (must be negative)");
  semaphore_fail(semaphore, status);
  g_hooks->payload_changed();
  return XGPU_SUCCESS;
}

}  // namespace xgpu::amdgpu
