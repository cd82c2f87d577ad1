#include "queue.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "common.h"
#include "memory_pool.h"
#include "print_buffer.h"
#include "trace.h"
#include "generated/vuid_ids.h"

#include "queue_internal.h"

// Retirement and completion: prints, finalizing submissions in order,
// completion handlers, queue errors, submission holds.

namespace xgpu::amdgpu {
namespace queue_impl {

// --- kernel prints -------------------------------------------------------------

// Takes a print buffer for `s` (queue lock held): a free one of the queue, or
// a new one; writes its header. Failures are reported (device_allocate).
XgpuResult acquire_print_buffer(Queue* queue, Submission* s) {
  Device* device = queue->device;
  void* buffer = nullptr;
  if (!queue->print_buffers.empty()) {
    buffer = queue->print_buffers.back();
    queue->print_buffers.pop_back();
  } else if (XgpuResult r = device_allocate(device, MemoryKind::kHostCoherent, device->print_buffer_size, &buffer);
             r != XGPU_SUCCESS) {
    return r;
  }
  xgpu_print_buffer_header_t header{};
  header.magic = XGPU_PRINT_BUFFER_MAGIC;
  header.version = XGPU_PRINT_BUFFER_VERSION;
  header.capacity = device->print_buffer_size - sizeof(header);
  std::memcpy(buffer, &header, sizeof(header));
  s->print_buffer = buffer;
  return XGPU_SUCCESS;
}

// Delivers what the kernels of `s` printed (decoded from its print buffer)
// and gives the buffer back to the queue. Returns the submission's status:
// `status`, or XGPU_ERROR_KERNEL_ASSERT when an xgpu_assert failed in a
// submission that otherwise succeeded. No queue lock held.
XgpuResult deliver_prints(Queue* queue, Submission* s, XgpuResult status) {
  Device* device = queue->device;
  void* buffer = s->print_buffer;
  s->print_buffer = nullptr;
  // Work that never completed (a lost device) may still be writing: its
  // records are not read.
  if (status == XGPU_SUCCESS) {
    try {
      const PrintBufferContents contents =
          decode_print_buffer(static_cast<const uint8_t*>(buffer), size_t(device->print_buffer_size));
      const uint64_t command_buffer =
          s->owns_command_buffer ? 0 : uint64_t(reinterpret_cast<uintptr_t>(s->command_buffer_handle));
      // The objects' names are looked up once per submission, and each
      // dispatch's description once per dispatch tag.
      const DeviceReporter reporter(device, {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue))},
                                             {XGPU_OBJECT_TYPE_COMMAND_BUFFER, command_buffer}});
      bool asserted = false;
      uint64_t assert_count = 0;
      for (const PrintLine& line : contents.lines) assert_count += line.assert_failed || line.out_of_bounds;
      trace_prints(device, queue->index, s->sequence, contents.lines.size() - assert_count, assert_count,
                   contents.dropped);
      uint64_t described_tag = 0;
      std::string dispatch;
      std::string message;
      char ids[96];
      // Bounds reports (GPU-assisted validation): the first
      // kBoundsReportsPerDispatch of each dispatch, then how many more.
      constexpr uint64_t kBoundsReportsPerDispatch = 16;
      std::map<uint64_t, std::pair<uint64_t, std::string>> bounds_seen;  // tag -> (reports, dispatch)
      for (const PrintLine& line : contents.lines) {
        if (dispatch.empty() || line.dispatch != described_tag) {
          dispatch = commands_printing_dispatch(s->command_buffer, line.dispatch);
          described_tag = line.dispatch;
        }
        if (line.out_of_bounds) {
          auto& [seen, where] = bounds_seen[line.dispatch];
          if (seen++ == 0) where = dispatch;
          if (seen > kBoundsReportsPerDispatch) continue;
        }
        if (line.local_id[0] == UINT32_MAX && line.local_id[1] == UINT32_MAX && line.local_id[2] == UINT32_MAX)
          // A bounds-checked copy run as work-item loops cannot tell the item.
          std::snprintf(ids, sizeof ids, ", workgroup (%u, %u, %u), work item unknown): ", line.workgroup_id[0],
                        line.workgroup_id[1], line.workgroup_id[2]);
        else
          std::snprintf(ids, sizeof ids, ", workgroup (%u, %u, %u), work item (%u, %u, %u)): ", line.workgroup_id[0],
                        line.workgroup_id[1], line.workgroup_id[2], line.local_id[0], line.local_id[1],
                        line.local_id[2]);
        message.assign(dispatch).append(ids);
        if (line.out_of_bounds) {
          message.append(line.text).append(
              "; the access was not made (a load gives 0): GPU-assisted validation "
              "(XGPU_VALIDATION_GPU_ASSISTED) runs the kernel's bounds-checked copy");
          reporter.report(XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kGpuAssistedOutOfBounds, message);
        } else if (line.assert_failed) {
          asserted = true;
          message.append("assertion failed at ")
              .append(line.text)
              .append("; the submission's signal semaphores fail with XGPU_ERROR_KERNEL_ASSERT (the device is not "
                      "lost)");
          reporter.report(XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kKernelAssert, message);
        } else {
          message.append(line.text);
          reporter.report(XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, msgid::kKernelPrintf, message);
        }
      }
      for (const auto& [tag, seen] : bounds_seen) {
        if (seen.first <= kBoundsReportsPerDispatch) continue;
        reporter.report(XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kGpuAssistedOutOfBounds,
                        seen.second + "): " + std::to_string(seen.first - kBoundsReportsPerDispatch) +
                            " more accesses outside their bindings were not made (the first " +
                            std::to_string(kBoundsReportsPerDispatch) + " are listed above)");
      }
      if (contents.dropped)
        reporter.report(XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kKernelPrintf,
                        std::to_string(contents.dropped) + " xgpu_printf/xgpu_assert record(s) of submission " +
                            std::to_string(s->sequence) + " on queue " + std::to_string(queue->index) +
                            " did not fit its print buffer (XgpuDeviceCreateInfo::printBufferSize " +
                            std::to_string(device->print_buffer_size) + " bytes) and are lost");
      if (!contents.error.empty())
        reporter.report(XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kKernelPrintf,
                        "the print buffer of submission " + std::to_string(s->sequence) + " on queue " +
                            std::to_string(queue->index) + " was overwritten (" + contents.error +
                            "): the records after it are not shown");
      if (asserted) status = XGPU_ERROR_KERNEL_ASSERT;
    } catch (const std::bad_alloc&) {
      // No host memory for the lines: they are lost, the work is not.
    }
  }
  std::lock_guard<std::mutex> lock(queue->mutex);
  try {
    queue->print_buffers.push_back(buffer);
  } catch (const std::bad_alloc&) {
    device_free(device, buffer);
  }
  return status;
}

// --- finalization ------------------------------------------------------------

// Sets or fails the submission's semaphores and frees it. No queue lock held.
// Once a payload is set the host may observe it and destroy what the
// submission used (its command buffer, the semaphores it signals), so
// everything else is done first, and the semaphores are kept alive by the
// submission's references until it is deleted.
void finalize(Submission* s) {
  Queue* queue = s->queue;
  Device* device = queue->device;
  XgpuResult status = s->status;
  if (status == XGPU_SUCCESS && device->lost && s->completion) status = XGPU_ERROR_DEVICE_LOST;
  // Withdraw the announced signals first: a waiter that found this
  // submission there retains its completion signal, which must not be
  // recycled while it is still announced. Until the payloads are set below,
  // such a waiter is held and woken by finish_batch.
  if (s->completion) {
    for (const SemaphoreValue& signal : s->signals) semaphore_withdraw_signal(signal.semaphore, signal.value, s);
  }
  // The memory of a dealloca goes back whatever its status (a failed wait
  // still returns it); an alloca drops its reference to the buffer.
  if (s->kind == SubmissionKind::kDealloca) memory_pool_dealloca_complete(s->alloca_buffer);
  if (s->kind == SubmissionKind::kAlloca) memory_pool_alloca_finished(s->alloca_buffer);
  for (CompletionSignal* dependency : s->dependencies) completion_signal_release(device, dependency);
  s->dependencies.clear();
  if (s->dedicated_kernargs) device_free(device, s->dedicated_kernargs);
  // What the kernels printed, before the signals say the work is done; a
  // failed xgpu_assert fails them.
  if (s->print_buffer) status = deliver_prints(queue, s, status);
  if (s->command_buffer) {
    command_buffer_release_after_submit(s->command_buffer);
    if (s->owns_command_buffer) {
      auto destroy = reinterpret_cast<PFN_xgpuDestroyCommandBuffer>(commands_get_proc_addr("xgpuDestroyCommandBuffer"));
      if (destroy) destroy(reinterpret_cast<XgpuDevice>(device), s->command_buffer_handle, nullptr);
    }
  }
  if (status == XGPU_SUCCESS) {
    // The submission ran, so every value it waited for was reached (this
    // also orders payloads the host sees after device-side waits).
    for (const SemaphoreValue& wait : s->waits) semaphore_advance(wait.semaphore, wait.value);
    for (const SemaphoreValue& signal : s->signals) semaphore_advance(signal.semaphore, signal.value);
  } else {
    for (const SemaphoreValue& signal : s->signals) semaphore_fail(signal.semaphore, status);
  }
  trace_submission_finalized(s);
  submission_release(s);
}

// Finalizes `batch` (popped from `queue`'s pending list with `finishing`
// counted: failed, or empty and done at once) and wakes waiters.
void finish_batch(Queue* queue, std::vector<Submission*>& batch) {
  if (batch.empty()) return;
  for (Submission* s : batch) finalize(s);
  wake_held_submissions();
  std::lock_guard<std::mutex> lock(queue->mutex);
  queue->finishing -= uint32_t(batch.size());
  queue->idle.notify_all();
}

// Retires what completed at the front of `queue`: `known_done` (its handler
// fired; may be null) and, where the runtime lets the signal be read, every
// submission from the front whose completion signal fired; then finalizes
// the done prefix of `inflight` in order. Retirement is serialized per queue
// (retire_mutex), so payloads are set in queue order whichever thread
// retires. `blocking` false: returns false at once when another thread is
// retiring.
bool retire(Queue* queue, Submission* known_done, bool blocking) {
  std::unique_lock<std::mutex> retire_lock(queue->retire_mutex, std::defer_lock);
  if (blocking) {
    retire_lock.lock();
  } else if (!retire_lock.try_lock()) {
    return false;
  }
  const HsaApi& hsa = *queue->device->hsa;
  std::vector<Submission*> observed;  // completions seen by this call
  std::vector<Submission*> batch;     // popped, to finalize
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    if (known_done && !known_done->done) {
      known_done->done = true;
      observed.push_back(known_done);
    }
    if (hsa.hsa_signal_load_scacquire) {
      // Submissions complete in queue order (each one's first packet has
      // the barrier bit): stop at the first that has not.
      for (Submission* s : queue->inflight) {
        if (s->done) continue;
        if (hsa.hsa_signal_load_scacquire(s->completion->signal) >= 1) break;
        s->done = true;
        observed.push_back(s);
      }
    }
    if (!observed.empty()) queue->progress_at = std::chrono::steady_clock::now();
    while (!queue->inflight.empty() && queue->inflight.front()->done) {
      Submission* front = queue->inflight.front();
      queue->inflight.pop_front();
      if (front->kernarg_end) queue->kernarg_tail = std::max(queue->kernarg_tail, front->kernarg_end);
      front->retired.store(true, std::memory_order_release);
      batch.push_back(front);
    }
    queue->finishing += uint32_t(batch.size());
  }
  for (Submission* s : observed) trace_completion_observed(s);
  if (batch.empty()) return true;
  for (Submission* s : batch) finalize(s);
  retire_lock.unlock();
  wake_held_submissions();
  std::lock_guard<std::mutex> lock(queue->mutex);
  queue->finishing -= uint32_t(batch.size());
  queue->idle.notify_all();
  return true;
}

// The HSA async handler of a submission's completion signal. A host waiter
// may have retired the submission already; the handler's hold keeps it
// allocated until here either way.
bool on_completion(hsa_signal_value_t, void* arg) {
  auto* s = static_cast<Submission*>(arg);
  Queue* queue = s->queue;
  // A host thread waiting on this completion retires it (a waiter that
  // stops waiting looks at the signal once more after it stopped counting
  // itself, and retires what fired): the handler's thread stays off its
  // path. Payloads of other submissions do not wait for it: each has its
  // own handler, and retirement pops every completed one from the front.
  if (!s->retired.load(std::memory_order_acquire) && s->host_waiters.load(std::memory_order_seq_cst) == 0)
    retire(queue, s, /*blocking=*/true);
  submission_release(s);
  queue->handlers.fetch_sub(1, std::memory_order_release);  // the last touch of the queue
  return false;  // one shot
}

void report_queue_error(hsa_status_t status, hsa_queue_t* source, Queue* queue);

// The runtime's error callback of an HSA queue (a C callback: nothing may
// be thrown back into the runtime). Without host memory for the message
// the device is still lost, with no words.
void on_queue_error(hsa_status_t status, hsa_queue_t* source, void* data) {
  auto* queue = static_cast<Queue*>(data);
  queue->errored = true;
  queue->broken = true;
  try {
    report_queue_error(status, source, queue);
  } catch (const std::exception&) {
    device_mark_lost(queue->device, std::string());
  }
}

void report_queue_error(hsa_status_t status, hsa_queue_t* source, Queue* queue) {
  const std::string status_text = queue->device->hsa->status_string(status);
  // A packet the commands half wrote on purpose (an indirect dispatch whose
  // counts exceed the limits) says which command failed; read it before the
  // loss completes the submission and recycles its kernargs.
  // (Skipped when the device was already lost another way: its submissions
  // may be finalized already.)
  std::string command;
  if (!queue->device->lost_claimed.load() && commands_describe_queue_error(source ? source : queue->aql, &command)) {
    device_mark_lost(queue->device, command + "; HSA queue " + std::to_string(queue->index) + " reported " + status_text,
                     {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue))}});
    return;
  }
  // Otherwise the fault report: the queue, the operation, the command and
  // its kernel, the address and what it falls in (fault_report.h).
  uint64_t command_buffer = 0;
  const std::string reason = queue->device->lost_claimed.load()
                                 ? "HSA queue " + std::to_string(queue->index) + " reported " + status_text
                                 : fault_report_queue_error(queue, status, status_text, source, &command_buffer);
  device_mark_lost(queue->device, reason,
                   {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue))},
                    {XGPU_OBJECT_TYPE_COMMAND_BUFFER, command_buffer}});
}

// Reports a submission whose issue failed: with the rule it broke (its
// VUID), or msgid::kIssueFailed when the failure cites none.
void report_issue_failure(Queue* queue, const Submission* s, const std::string& error, const std::string& rule) {
  const uint64_t command_buffer =
      s->owns_command_buffer ? 0 : uint64_t(reinterpret_cast<uintptr_t>(s->command_buffer_handle));
  const std::string text = "queue " + std::to_string(queue->index) +
                           ": xgpuQueueSubmit: issuing the command buffer failed: " + error +
                           "; the submission does not run and its signal semaphores fail with " +
                           result_name(s->status) + " (the device is not lost)";
  const std::initializer_list<ReportObject> objects = {
      {XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue))},
      {XGPU_OBJECT_TYPE_COMMAND_BUFFER, command_buffer}};
  if (rule.empty()) {
    device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kIssueFailed, text, objects);
    return;
  }
  // device_report keeps the ID only for the call: a stable copy is not needed.
  device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, rule.c_str(), text, objects);
}

// Registers `s`'s completion handler unless it is registered already (s
// alive). False, with the runtime's error, when the runtime refuses: its
// completion will never be seen, so the queue is broken and the caller loses
// the device.
bool register_completion_handler(Submission* s, std::string* out_error) {
  if (s->watched.exchange(true, std::memory_order_acq_rel)) return true;
  Queue* queue = s->queue;
  s->holders.fetch_add(1, std::memory_order_relaxed);  // the handler's (on_completion drops it)
  queue->handlers.fetch_add(1, std::memory_order_relaxed);
  const XgpuResult result = queue->device->hsa->hsa_amd_signal_async_handler_checked(
      out_error, s->completion->signal, HSA_SIGNAL_CONDITION_LT, hsa_signal_value_t(1), on_completion,
      static_cast<void*>(s));
  if (result == XGPU_SUCCESS) return true;
  s->holders.fetch_sub(1, std::memory_order_relaxed);
  queue->handlers.fetch_sub(1, std::memory_order_relaxed);
  queue->broken = true;
  return false;
}
}  // namespace queue_impl

using namespace queue_impl;

const char* submission_kind_name(SubmissionKind kind) {
  switch (kind) {
    case SubmissionKind::kCommands: return "xgpuQueueSubmit";
    case SubmissionKind::kBarrier: return "xgpuQueueSubmit (wait/signal only)";
    case SubmissionKind::kAlloca: return "xgpuQueueAlloca";
    case SubmissionKind::kDealloca: return "xgpuQueueDealloca";
    case SubmissionKind::kTestFault: return "the injected fault (test hook)";
  }
  return "a queue operation";
}
void queue_retire_completed(Queue* queue) { retire(queue, nullptr, /*blocking=*/true); }

void queue_watch_completion(Submission* s) {
  if (s->watched.load(std::memory_order_acquire)) return;
  std::string error;
  if (!register_completion_handler(s, &error))
    device_mark_lost(s->queue->device, "cannot observe submission completion: " + error);
}

void add_unwatched(Submission* s, std::vector<Submission*>* out) {
  if (s->watched.load(std::memory_order_acquire)) return;
  submission_retain(s);
  out->push_back(s);
}

void watch_and_release(std::vector<Submission*>& held) {
  for (Submission* s : held) {
    queue_watch_completion(s);
    submission_release(s);
  }
  held.clear();
}

void queue_watch_inflight(Queue* queue) {
  std::vector<Submission*> unwatched;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    for (Submission* s : queue->inflight) add_unwatched(s, &unwatched);
  }
  watch_and_release(unwatched);
}

void submission_retain(Submission* s) { s->holders.fetch_add(1, std::memory_order_relaxed); }

// Drops one hold on `s` (Submission::holders); the last frees it and gives
// its completion signal back. The completion handler holds it until it has
// run: the runtime watches the signal until then, so it must not be reused.
void submission_release(Submission* s) {
  if (s->holders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (s->completion) completion_signal_release(s->queue->device, s->completion);
  delete s;  // releases the semaphores
}

// --- the semaphores' hooks -----------------------------------------------------

namespace {

// Retire needed, or a handler: completed, `s`'s queue is retired on this
// thread; not completed (a host wait timed out, or the payload was reached
// another way), someone else must see it complete, so its completion handler
// is registered.
void retire_or_watch(Submission* s) {
  const HsaApi& hsa = *s->queue->device->hsa;
  if (hsa.hsa_signal_load_scacquire && hsa.hsa_signal_load_scacquire(s->completion->signal) < 1)
    queue_retire_completed(s->queue);
  else
    queue_watch_completion(s);
}

hsa_signal_t begin_host_wait(Submission* s) {
  submission_retain(s);
  s->host_waiters.fetch_add(1, std::memory_order_seq_cst);
  return s->completion->signal;
}

void end_host_wait(Submission* s) {
  s->host_waiters.fetch_sub(1, std::memory_order_seq_cst);
  // Looked at after this thread stopped counting itself: a completion
  // handler that saw it counted left the retirement to it.
  retire_or_watch(s);
  submission_release(s);
}

void settle_and_release(std::vector<Submission*>& held) {
  for (Submission* s : held) {
    retire_or_watch(s);
    submission_release(s);
  }
  held.clear();
}

const SemaphoreSignallerHooks kSemaphoreHooks{
    begin_host_wait, end_host_wait, add_unwatched, watch_and_release, settle_and_release, wake_held_submissions,
};
// Registered when the driver is loaded, before any semaphore can exist.
[[maybe_unused]] const bool g_semaphore_hooks_set = (semaphore_set_signaller_hooks(&kSemaphoreHooks), true);

}  // namespace

}  // namespace xgpu::amdgpu
