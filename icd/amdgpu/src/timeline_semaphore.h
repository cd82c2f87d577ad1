// Timeline semaphores: a 64-bit monotonic payload, mirrored in an HSA signal
// so host waits are HSA GTE waits; a failure status that wakes and fails
// every waiter; the issued submissions that will signal each value (so a
// waiter on another queue of the same device can wait for them on the
// device instead of on the host).
//
// Thread-safety: thread-safe; every mutable field is guarded by `mutex`.
// Lock order: Queue::mutex before Semaphore::mutex; the queue registry
// (queue.cpp) before both.
#pragma once

#include <hsa/hsa.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

struct Device;
struct HsaApi;
struct Submission;

// Value stored in the mirror signal of a failed semaphore: above every
// payload, so every GTE wait returns and then sees the failure.
inline constexpr int64_t kFailedMirrorValue = INT64_MAX;
// Largest payload a semaphore can carry (the mirror is a signed 64-bit HSA signal).
inline constexpr uint64_t kMaxSemaphoreValue = uint64_t(INT64_MAX) - 1;

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
  // signalling it gets its completion handler at issue, queue.cpp):
  uint32_t mirror_waiters = 0;                   // host threads waiting on `mirror`
  bool held_on = false;                          // a submission was once held on the host for it with
                                                 // no signaller issued (sticky)
};

// References: a submission retains every semaphore of its wait and signal
// lists until it is finalized, so the host may destroy a semaphore as soon as
// it observed any signal of that submission.
void semaphore_retain(Semaphore* semaphore);
void semaphore_release(Semaphore* semaphore);
// Retains `semaphore` when it is a live semaphore of this driver (created, not
// yet destroyed, on any device); false otherwise, without touching the object.
// The queue operations take their semaphore lists through it: a destroyed
// semaphore's memory may be freed or reused, and a submission that locked or
// counted it would corrupt whatever lives there now.
bool semaphore_retain_live(const void* handle);

// Raises the payload to `value` (no-op when lower or failed). Does not wake
// held submissions (call wake_held_submissions afterwards).
void semaphore_advance(Semaphore* semaphore, uint64_t value);
// Fails the semaphore (first failure wins). Does not wake held submissions.
void semaphore_fail(Semaphore* semaphore, XgpuResult status);
// Notes that an accepted queue operation will signal `value`: true when it is
// above the payload and above every payload already accepted (the rule
// XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value), else false with
// the payload and the highest accepted one (0: none) for the message.
bool semaphore_accept_signal(Semaphore* semaphore, uint64_t value, uint64_t* out_current, uint64_t* out_accepted);
// Forgets an accepted signal of `value` (a refused or finished operation).
void semaphore_forget_signal(Semaphore* semaphore, uint64_t value);

XgpuResult semaphore_create(XgpuDevice device, const XgpuSemaphoreCreateInfo* info,
                            const XgpuAllocationCallbacks* allocator, XgpuSemaphore* out_semaphore);
void semaphore_destroy(XgpuDevice device, XgpuSemaphore semaphore, const XgpuAllocationCallbacks* allocator);
XgpuResult semaphore_signal(XgpuDevice device, const XgpuSemaphoreSignalInfo* info);
XgpuResult semaphore_wait(XgpuDevice device, const XgpuSemaphoreWaitInfo* info, uint64_t timeout_ns);
XgpuResult semaphore_get_value(XgpuDevice device, XgpuSemaphore semaphore, uint64_t* out_value);
XgpuResult semaphore_fail_entry(XgpuDevice device, XgpuSemaphore semaphore, XgpuResult status);

}  // namespace xgpu::amdgpu
