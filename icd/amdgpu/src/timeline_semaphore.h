// Timeline semaphores: a 64-bit monotonic payload, mirrored in an HSA signal
// so host waits are HSA GTE waits; a failure status that wakes and fails
// every waiter; the issued submissions that will signal each value (so a
// waiter on another queue of the same device can wait for them on the
// device instead of on the host).
//
// The semaphore keeps its state to itself (timeline_semaphore.cpp): the
// queues reach it through the functions below, and it reaches the queues
// only through the hooks they register (SemaphoreSignallerHooks).
//
// Thread-safety: thread-safe; every mutable field is guarded by the
// semaphore's mutex. Lock order: Queue::mutex before the semaphore's mutex;
// the queue registry (queue.cpp) before both. The hooks and callbacks say
// which they are called under.
#pragma once

#include <hsa/hsa.h>

#include <cstdint>
#include <vector>

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

struct Semaphore;  // timeline_semaphore.cpp

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

// --- issued signallers (queue_schedule.cpp, queue_retire.cpp) ---
// A `Submission` is opaque here: an issued queue operation that will set a
// payload, listed from its issue until it is finalized.

// Lists `signaller`, issued, as the one that will set `value`, so that
// waiters on other queues of its device can wait for it on the device and
// host waiters on its completion signal. True when someone learns of a new
// payload of this semaphore only through retirement (a host thread waits on
// its mirror, or a queue operation was once held on the host for it with no
// signaller issued): the signaller then needs its completion handler now.
// May throw std::bad_alloc, listing nothing.
bool semaphore_announce_signal(Semaphore* semaphore, uint64_t value, Submission* signaller);
// Unlists `signaller` as the one that sets `value` (no-op when not listed).
// Done before it is finalized: a waiter that found it listed holds it.
void semaphore_withdraw_signal(Semaphore* semaphore, uint64_t value, const Submission* signaller);

// A queue's call about one listed signaller, made under the semaphore's
// mutex (so the signaller is alive while it runs): `call(context,
// signaller)`. signaller_callback(f) wraps a callable `bool(Submission*)`
// that outlives the call it is passed to.
struct SignallerCallback {
  bool (*call)(void* context, Submission* signaller);
  void* context;
};
template <typename F>
SignallerCallback signaller_callback(F& f) {
  return {[](void* context, Submission* signaller) -> bool { return (*static_cast<F*>(context))(signaller); }, &f};
}

// Where a queue operation's wait for `value` stands.
enum class SemaphoreWaitState {
  kFailed,   // the semaphore failed: *out_failure is its status
  kReached,  // the payload is at or above `value`
  kOrdered,  // `order` took the first listed signaller of `value` or above and returned true
             // (the operation is ordered after it: on its queue, or on the device)
  kHeld,     // not satisfiable now: `order` returned false (and retained what wakes the
             // operation), or nothing listed will set it (a later announcement of a signaller
             // then asks for its completion handler: semaphore_announce_signal)
};
SemaphoreWaitState semaphore_resolve_wait(Semaphore* semaphore, uint64_t value, SignallerCallback order,
                                          XgpuResult* out_failure);
// Calls `visit` (result ignored) for every listed signaller of a payload at
// or above `value`, in payload order.
void semaphore_for_each_signaller(Semaphore* semaphore, uint64_t value, SignallerCallback visit);

// What a semaphore needs of the queues, registered by them (queue_retire.cpp,
// when the driver is loaded) so that the semaphore never calls into them.
struct SemaphoreSignallerHooks {
  // Under the semaphore's mutex, `signaller` listed: a host thread's hold on
  // it, counted as waiting on its completion signal (its completion handler
  // then leaves the retirement to that thread); returns that signal.
  hsa_signal_t (*begin_host_wait)(Submission* signaller);
  // Without the mutex, after that wait: stops counting the thread; then
  // retire needed: completed, the signaller's queue is retired on this
  // thread (its payloads are set), else its completion handler is registered;
  // drops the hold.
  void (*end_host_wait)(Submission* signaller);
  // Under the semaphore's mutex, `signaller` listed: unless its completion
  // handler is registered, holds it and appends it to `out`.
  void (*hold_unwatched)(Submission* signaller, std::vector<Submission*>* out);
  // Without the mutex, for what hold_unwatched held: registers the completion
  // handlers and drops the holds (watch_and_release); or, first retiring
  // (on this thread) the queue of each that completed, does so for the
  // others (settle_and_release).
  void (*watch_and_release)(std::vector<Submission*>& held);
  void (*settle_and_release)(std::vector<Submission*>& held);
  // A payload was set or a semaphore failed by the host: queue operations
  // held for it may have become ready.
  void (*payload_changed)();
};
// Registers the queues' hooks (once, before any semaphore is used).
void semaphore_set_signaller_hooks(const SemaphoreSignallerHooks* hooks);

XgpuResult semaphore_create(XgpuDevice device, const XgpuSemaphoreCreateInfo* info,
                            const XgpuAllocationCallbacks* allocator, XgpuSemaphore* out_semaphore);
void semaphore_destroy(XgpuDevice device, XgpuSemaphore semaphore, const XgpuAllocationCallbacks* allocator);
XgpuResult semaphore_signal(XgpuDevice device, const XgpuSemaphoreSignalInfo* info);
XgpuResult semaphore_wait(XgpuDevice device, const XgpuSemaphoreWaitInfo* info, uint64_t timeout_ns);
XgpuResult semaphore_get_value(XgpuDevice device, XgpuSemaphore semaphore, uint64_t* out_value);
XgpuResult semaphore_fail_entry(XgpuDevice device, XgpuSemaphore semaphore, XgpuResult status);

}  // namespace xgpu::amdgpu
