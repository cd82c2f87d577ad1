// Queue: one HSA AQL queue plus a kernarg ring, and the in-order scheduler
// of the xgpu submissions made to it.
//
// A submission is accepted at once (xgpuQueueSubmit never blocks) into
// `pending`; the queue issues pending submissions from the front as soon as
// each one's waits are satisfiable and the AQL ring and kernarg ring have
// room. Issued submissions move to `inflight` until their completion signal
// fires; then they are retired in order (their signal semaphores set, ring
// space recycled, every queue pumped again) by whichever thread sees it
// first: the HSA async handler registered on the signal, or a host thread
// waiting for a payload such a submission signals (xgpuWaitSemaphores waits
// on the completion signal itself and retires, so the hand-off to the
// handler thread is off its path). A submission with no work, whose waits
// are reached and with nothing ahead of it on its queue, is retired at once
// by the submitting thread without the HSA queue.
//
// Thread-safety: thread-safe; `mutex` guards the lists and ring counters,
// `retire_mutex` serializes retirement (payloads are set in queue order).
// Lock order: the queue registry, then Queue::retire_mutex, then
// Queue::mutex, then Semaphore::mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "seam.h"
#include "timeline_semaphore.h"

namespace xgpu::amdgpu {

struct MemoryPool;

// AQL packet constants mirroring the HSA definitions.
inline constexpr uint32_t kAqlPacketSize = 64;               // bytes per AQL packet
inline constexpr uint32_t kBarrierAndDependencies = 5;       // dep_signal slots of a barrier-AND packet
inline constexpr uint32_t kDefaultQueuePackets = 4096;       // AQL ring size when the agent allows it
inline constexpr uint64_t kKernargRingSize = 4ull << 20;     // bytes of each queue's kernarg ring
inline constexpr uint64_t kKernargAlignment = 64;            // alignment of each submission's kernargs

struct SemaphoreValue {
  Semaphore* semaphore = nullptr;  // the semaphore
  uint64_t value = 0;              // payload
};

enum class SubmissionKind {
  kCommands,   // a command buffer
  kBarrier,    // wait/signal only: one barrier-AND packet
  kAlloca,     // commit an alloca, then a barrier-AND
  kDealloca,   // release an alloca, then a barrier-AND
  kTestFault,  // test hook: one packet the queue rejects (loses the device)
};

// One accepted submission. Owned by its queue from acceptance to completion.
struct Submission {
  Submission() = default;
  Submission(const Submission&) = delete;
  Submission& operator=(const Submission&) = delete;
  ~Submission();                               // releases the semaphores of waits and signals

  Queue* queue = nullptr;                      // the queue it was submitted to
  uint64_t sequence = 0;                       // 1-based order of acceptance on its queue
  uint64_t first_packet = 0;                   // set at issue: its first AQL packet id,
  uint64_t body_packet = 0;                    // the first after its dependency barriers,
  uint64_t end_packet = 0;                     // and one past its last (fault reports)
  SubmissionKind kind = SubmissionKind::kBarrier;  // what it does
  CommandBuffer* command_buffer = nullptr;     // kCommands: acquired for submit
  XgpuCommandBuffer command_buffer_handle = nullptr;  // handle, for owned ones
  bool owns_command_buffer = false;            // internal one-shot: destroyed at completion
  std::vector<XgpuBufferBinding> bindings;     // the binding table (copied)
  std::vector<SemaphoreValue> waits;           // payloads to reach first (semaphores retained)
  std::vector<SemaphoreValue> signals;         // payloads to set on completion (semaphores retained)
  IssueSizes sizes;                            // kCommands: what issue needs
  Buffer* alloca_buffer = nullptr;             // kAlloca/kDealloca: the buffer (alloca holds a reference)
  bool signals_accepted = false;               // its signal payloads are noted in their semaphores
  // Set at issue:
  CompletionSignal* completion = nullptr;      // on the last packet
  std::vector<CompletionSignal*> dependencies; // other queues' completion signals waited for
  uint64_t kernarg_end = 0;                    // ring position after its kernargs (0: none)
  void* dedicated_kernargs = nullptr;          // kernargs too large for the ring
  void* print_buffer = nullptr;                // IssueSizes::prints: its print buffer (queue's pool)
  bool done = false;                           // completion observed (guarded by Queue::mutex)
  XgpuResult status = XGPU_SUCCESS;            // negative: failed (signals get failed)
  std::atomic<bool> retired{false};            // taken off `inflight` to be finalized (set under
                                               // Queue::mutex; the handler reads it without)
  std::atomic<uint32_t> holders{1};            // the queue's hold (dropped once finalized) plus the
                                               // completion handler's while registered, plus one per
                                               // host waiter on it; the last one frees the submission
                                               // and its completion signal
  std::atomic<uint32_t> host_waiters{0};       // host threads waiting on its completion signal to retire
                                               // it (its handler then leaves the retirement to them)
  std::atomic<bool> watched{false};            // its completion handler is registered (at issue, or
                                               // later by queue_watch_completion)
};

// Pending operations on a queue at which a warning says how many are held
// (then at each doubling; api.md: held operations are not bounded).
inline constexpr size_t kHeldSubmissionsWarning = 65536;

struct Queue {
  XgpuLoaderData loader_data;                  // loader's word (must be first)
  Device* device = nullptr;                    // owner
  uint32_t index = 0;                          // index in family 0
  hsa_queue_t* aql = nullptr;                  // the HSA queue
  std::atomic<bool> broken{false};             // its work will never complete (HSA queue error,
                                               // completions unobservable, ring stuck)
  uint32_t aql_packets = 0;                    // ring size in packets
  uint8_t* kernarg_ring = nullptr;             // kernarg memory (kernarg pool), kKernargRingSize bytes
  std::atomic<uint32_t> handlers{0};           // completion handlers registered and not yet returned
  std::mutex retire_mutex;                     // held while retiring (popping and finalizing) in order
  std::mutex mutex;                            // guards the fields below
  std::condition_variable idle;                // notified when pending+inflight+finishing drain
  std::deque<Submission*> pending;             // accepted, not issued, in order
  std::deque<Submission*> inflight;            // issued, not completed, in issue order
  std::chrono::steady_clock::time_point progress_at{};  // last completion, or the issue that
                                               // ended an idle spell (the watchdog's clock)
  bool abandoned = false;                      // destroy left its HSA queue running (leaked)
  std::atomic<bool> errored{false};            // the runtime reported a queue error: it stopped
  size_t held_warning_at = kHeldSubmissionsWarning;  // pending count of the next held-operations warning
  bool holding = false;                        // `pending` was non-empty after the last pump (counted
                                               // in queue.cpp's number of holding queues)
  uint32_t finishing = 0;                      // completed, being finalized outside the lock
  uint64_t kernarg_head = 0;                   // next free ring byte (monotonic)
  uint64_t kernarg_tail = 0;                   // oldest live ring byte (monotonic)
  uint64_t accepted = 0;                       // operations accepted (Submission::sequence)
  std::vector<void*> print_buffers;            // free print buffers (Device::print_buffer_size bytes)
  uint32_t idle_waiters = 0;                   // threads in queue_wait_idle_internal (each submission
                                               // issued meanwhile gets its completion handler at issue)
};

// The API call that queued a submission of `kind`.
const char* submission_kind_name(SubmissionKind kind);

// Creates / destroys a queue (destroy waits for nothing: callers idle first).
XgpuResult queue_create(Device* device, uint32_t index, Queue** out_queue, std::string* out_error);
void queue_destroy(Queue* queue);

// Accepts a submission (takes ownership) and pumps the queue.
void queue_accept(Queue* queue, Submission* submission);
// Watchdog: true (with the reason) when the oldest operation in flight on
// `queue` has run `timeout_ms` without the queue completing anything and
// without waiting for another queue; the queue is then marked broken (the
// dispatch itself cannot be stopped: should it end, the queue drains and is
// destroyed normally). The caller marks the device lost.
bool queue_watchdog_expired(Queue* queue, uint64_t timeout_ms, std::string* out_reason);
// Whether the HSA queue has packets it has not finished (read index behind
// the write index).
bool queue_hsa_busy(const Queue* queue);
// Pumps every live queue (after a semaphore payload or failure changed).
void wake_held_submissions();
// Retires, in order, the submissions at the front of `queue` whose completion
// signals fired, on the calling thread (what the completion handler does).
void queue_retire_completed(Queue* queue);
// Completion handlers are registered on demand ("Submission", README): a
// submission whose completion a host waiter observes and retires itself needs
// none. These register the handler of `submission` (alive: held by the
// caller, or listed where its owner withdraws it under a lock the caller
// holds), or of every submission in flight on `queue`, unless registered
// already. A registration the runtime refuses loses the device. Called
// without the queue's or a semaphore's lock held.
void queue_watch_completion(Submission* submission);
void queue_watch_inflight(Queue* queue);
// Collecting under a lock, registering after it: add_unwatched retains
// `submission` into `out` unless its handler is registered (call with the
// lock that keeps it listed held); watch_and_release registers the handlers
// of `held` and drops those holds (call without the lock).
void add_unwatched(Submission* submission, std::vector<Submission*>* out);
void watch_and_release(std::vector<Submission*>& held);
// A host waiter's hold on an issued submission (taken where the submission
// is known to be alive, e.g. under its semaphore's lock while it is listed
// by semaphore_announce_signal), and its release.
void submission_retain(Submission* submission);
void submission_release(Submission* submission);
// Fails everything pending and in flight (device lost).
void queue_fail_all(Queue* queue, XgpuResult status);
// Waits until nothing is pending or in flight on the queue.
XgpuResult queue_wait_idle_internal(Queue* queue, uint64_t timeout_ns);

// Entry points.
XgpuResult queue_submit(XgpuQueue queue, uint32_t count, const XgpuSubmitInfo* submits);
XgpuResult queue_fill_buffer(XgpuQueue queue, const XgpuSemaphoreList* waits,
                             const XgpuSemaphoreList* signals, XgpuBuffer dst, XgpuDeviceSize offset,
                             XgpuDeviceSize size, const void* pattern, uint32_t pattern_size);
XgpuResult queue_copy_buffer(XgpuQueue queue, const XgpuSemaphoreList* waits,
                             const XgpuSemaphoreList* signals, XgpuBuffer src, XgpuDeviceSize src_offset,
                             XgpuBuffer dst, XgpuDeviceSize dst_offset, XgpuDeviceSize size);
XgpuResult queue_wait_idle(XgpuQueue queue);
// Queue-ordered allocation (queue_alloca.cpp).
XgpuResult queue_alloca(XgpuQueue queue, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                        XgpuMemoryPool pool, XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* out_buffer);
XgpuResult queue_dealloca(XgpuQueue queue, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                          XgpuBuffer buffer);
// Test hook (xgpuAmdgpuTestInjectQueueFault, reachable through
// xgpuGetDeviceProcAddr only when XGPU_AMDGPU_TEST_HOOKS=1): enters the queue
// in order like a submission and, when issued, writes one packet the HSA
// queue rejects, so the queue error callback loses the device.
using PFN_xgpuAmdgpuTestInjectQueueFault = XgpuResult (*)(XgpuQueue queue, const XgpuSemaphoreList* signals);
XgpuResult queue_test_inject_fault(XgpuQueue queue, const XgpuSemaphoreList* signals);

// Helpers shared by queue_submit.cpp and queue_alloca.cpp.

// One semaphore-list argument of a queue command, for its messages: where it
// is and the rules of its arrays (string literals).
struct SemaphoreListArgument {
  const char* function;       // the command, e.g. "xgpuQueueAlloca"
  const char* name;           // the argument, e.g. "pWaitSemaphores"; for xgpuQueueSubmit the
                              // member of pSubmits[submit_index], e.g. "waitSemaphores"
  const char* semaphores_id;  // rule of pSemaphores (NULL array or element)
  const char* values_id;      // rule of pValues (NULL array)
};
inline constexpr uint32_t kNotASubmit = UINT32_MAX;  // submit_index of commands other than xgpuQueueSubmit

// Copies `list` into `out` (retaining each semaphore), checking its arrays;
// on a violation reports it with the argument's rule and fails.
// Notes the signal payloads of `s` in their semaphores (each must be above
// the payload and every payload already accepted: `rule`); on failure reports
// it, notes none and returns XGPU_ERROR_INVALID_ARGUMENT. ~Submission forgets them.
XgpuResult accept_signal_values(const Device* device, Submission* s, const char* function, const char* rule,
                                uint32_t submit_index);
XgpuResult copy_semaphore_list(const Device* device, const SemaphoreListArgument& argument, uint32_t submit_index,
                               const XgpuSemaphoreList* list, std::vector<SemaphoreValue>* out);

}  // namespace xgpu::amdgpu
