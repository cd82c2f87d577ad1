// Trace: with XGPU_TRACE=<file> in the environment, the driver writes a
// Chrome / Perfetto trace-event JSON file (array form) of what its queues do:
//
//   - per queue, each submission's spans: "wait" (at the front of the queue
//     until its waits are satisfiable and the rings have room), "issue"
//     (packets written, doorbell rung), "execute" (from the doorbell, or the
//     previous submission's completion, to the completion the host observed),
//     "signal" (semaphore payloads set);
//   - each kernel dispatch with its kernel name, grid and workgroup size,
//     timed by the device (hsa_amd_profiling_get_dispatch_time on a
//     completion signal the dispatch carries while tracing);
//   - alloca / dealloca as the submissions that commit and release memory;
//   - semaphore signals as flow events (arrows) from the signalling
//     submission (or host call) to a waiting submission on another queue;
//   - host waits (xgpuWaitSemaphores, xgpuQueueWaitIdle, xgpuDeviceWaitIdle)
//     and host signals (xgpuSignalSemaphore) on the calling thread's track;
//   - a device loss (a kernel fault, a hang) as an instant event named
//     "device lost" whose args carry the report (fault_report.h);
//   - each read of a submission's print buffer (kernel printf and asserts)
//     as an instant event "kernel prints" with its line, assert and
//     dropped-record counts.
//
// Timestamps are the HSA system clock (the domain the dispatch times are
// given in), in microseconds. Every queue group of spans is laid out on as
// many tracks ("lanes") as it needs so that spans on one track never overlap
// and appear in the file in time order.
//
// The file is valid JSON after every flush (the closing bracket is written
// and then overwritten by the next flush), so a process that dies keeps
// everything up to the last flush; flushes happen when 64 KiB are buffered,
// every 100 ms of traced activity, at xgpuDestroyDevice and at process exit
// (while tracing, the driver is never unloaded, so instances created one
// after another append to one file). "%p" in the file name is replaced by the process id.
//
// Off (XGPU_TRACE unset or empty) every hook is one load of a flag and a
// branch not taken. Thread-safe: one mutex guards the tracer's state; the
// hooks that run under a queue's mutex take it after that one (lock order:
// queue registry, queue, semaphore, tracer).
//
// The hooks are one-line calls from queue.cpp, issue.cpp and
// timeline_semaphore.cpp (and device.cpp at device destroy); all tracing
// logic lives in trace.cpp.
#pragma once

#include <hsa/hsa.h>

#include <atomic>
#include <cstdint>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

struct Device;
struct Queue;
struct Semaphore;
struct Submission;

// True when XGPU_TRACE names a file (set once by trace.cpp when the driver
// is loaded). Header-only, like g_trace_dispatch below, so that code built
// without trace.cpp (the commands half's unit tests) links and never traces.
inline std::atomic<bool> g_trace_enabled{false};
inline bool trace_enabled() { return __builtin_expect(g_trace_enabled.load(std::memory_order_relaxed), 0); }
// trace_dispatch's body, set with g_trace_enabled (the commands half reaches
// the tracer only through this pointer).
using TraceDispatchFunction = void (*)(hsa_kernel_dispatch_packet_t* packet, const char* kernel_name,
                                       bool grid_from_device);
inline std::atomic<TraceDispatchFunction> g_trace_dispatch{nullptr};

// Out-of-line bodies (trace.cpp); call the inline hooks below.
void trace_queue_created_slow(Queue* queue);
void trace_submission_accepted_slow(Submission* submission);
void trace_issue_begin_slow(Submission* submission);
void trace_issue_end_slow(Submission* submission);
void trace_completion_observed_slow(Submission* submission);
void trace_submission_finalized_slow(Submission* submission);
void trace_semaphore_freed_slow(Semaphore* semaphore);
void trace_device_destroyed_slow(Device* device);
void trace_device_lost_slow(Device* device, const char* description);
void trace_prints_slow(Device* device, uint32_t queue_index, uint64_t submission, uint64_t lines, uint64_t asserts,
                       uint64_t dropped);
uint64_t trace_host_call_begin_slow(Device* device);
void trace_host_call_end_slow(Device* device, const char* function, uint64_t begin, const XgpuSemaphore* semaphores,
                              const uint64_t* values, uint32_t count, bool signal);

// queue_create: enables the HSA queue's profiling (dispatch timestamps).
inline void trace_queue_created(Queue* queue) {
  if (trace_enabled()) trace_queue_created_slow(queue);
}
// A submission entered its queue's pending list (xgpuQueueSubmit,
// xgpuQueueAlloca, xgpuQueueDealloca, xgpuQueueFillBuffer, ...).
inline void trace_submission_accepted(Submission* submission) {
  if (trace_enabled()) trace_submission_accepted_slow(submission);
}
// The queue starts writing the submission's packets (under the queue mutex;
// on this thread until trace_issue_end, dispatches belong to it).
inline void trace_issue_begin(Submission* submission) {
  if (trace_enabled()) trace_issue_begin_slow(submission);
}
// Issue of a kernel dispatch packet (before its body is copied into the
// ring): names it and, when it carries no completion signal, gives it one so
// the device stamps its start and end. `grid_from_device`: a DYNAMIC
// indirect dispatch whose grid the device writes.
inline void trace_dispatch(hsa_kernel_dispatch_packet_t* packet, const char* kernel_name,
                           bool grid_from_device = false) {
  if (trace_enabled()) {
    if (TraceDispatchFunction body = g_trace_dispatch.load(std::memory_order_relaxed))
      body(packet, kernel_name, grid_from_device);
  }
}
// The doorbell was rung.
inline void trace_issue_end(Submission* submission) {
  if (trace_enabled()) trace_issue_end_slow(submission);
}
// The completion handler saw the submission's completion signal (before the
// signal goes back to its pool): reads the dispatches' device timestamps.
inline void trace_completion_observed(Submission* submission) {
  if (trace_enabled()) trace_completion_observed_slow(submission);
}
// The submission's semaphores are set or failed; it is about to be freed.
// Writes its spans and flows.
inline void trace_submission_finalized(Submission* submission) {
  if (trace_enabled()) trace_submission_finalized_slow(submission);
}
// A semaphore's memory is about to be freed (its address may be reused).
inline void trace_semaphore_freed(Semaphore* semaphore) {
  if (trace_enabled()) trace_semaphore_freed_slow(semaphore);
}
// xgpuDestroyDevice, after its queues are idle and destroyed: frees the
// tracer's signals of the device and flushes the file.
inline void trace_device_destroyed(Device* device) {
  if (trace_enabled()) trace_device_destroyed_slow(device);
}
// The device was lost (a fault, a hang): an instant event on the calling
// thread's track carrying the report, flushed at once.
inline void trace_device_lost(Device* device, const char* description) {
  if (trace_enabled()) trace_device_lost_slow(device, description);
}
// A submission's print buffer was read (kernel printf and asserts): an
// instant event "kernel prints" with the counts.
inline void trace_prints(Device* device, uint32_t queue_index, uint64_t submission, uint64_t lines, uint64_t asserts,
                         uint64_t dropped) {
  if (trace_enabled()) trace_prints_slow(device, queue_index, submission, lines, asserts, dropped);
}

// A host call on the calling thread's track, as one line at the top of the
// call: `TraceHostCall trace_call(device, "xgpuWaitSemaphores", info->pSemaphores,
// info->pValues, info->semaphoreCount, false);` writes a span from there to
// the end of the scope. `signal`: the call sets the payloads (a flow source
// for later waiters on queues).
class TraceHostCall {
 public:
  TraceHostCall(Device* device, const char* function, const XgpuSemaphore* semaphores, const uint64_t* values,
                uint32_t count, bool signal)
      : device_(device), function_(function), semaphores_(semaphores), values_(values), count_(count),
        signal_(signal), begin_(trace_enabled() ? trace_host_call_begin_slow(device) : 0) {}
  ~TraceHostCall() {
    if (begin_) trace_host_call_end_slow(device_, function_, begin_, semaphores_, values_, count_, signal_);
  }
  TraceHostCall(const TraceHostCall&) = delete;
  TraceHostCall& operator=(const TraceHostCall&) = delete;

 private:
  Device* device_;
  const char* function_;
  const XgpuSemaphore* semaphores_;
  const uint64_t* values_;
  uint32_t count_;
  bool signal_;
  uint64_t begin_;
};

}  // namespace xgpu::amdgpu
