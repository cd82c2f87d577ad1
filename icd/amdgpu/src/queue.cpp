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

namespace xgpu::amdgpu {
namespace {

// --- queue registry (for waking held submissions) ---------------------------

std::mutex g_registry_mutex;          // guards g_queues; held while pumping all queues
std::vector<Queue*> g_queues;         // every live queue of every device
// Static TLS (initial-exec): dynamic TLS of a dlopen()ed library is
// allocated on a thread's first use, and glibc ends the process when that
// allocation fails (host memory exhausted).
__attribute__((tls_model("initial-exec"))) thread_local bool t_waking = false;   // this thread is inside wake_held_submissions
__attribute__((tls_model("initial-exec"))) thread_local bool t_wake_again = false;  // a semaphore changed during the pass
std::atomic<uint32_t> g_holding_queues{0};  // queues whose pending list was non-empty after their last pump

// Records whether `queue` holds submissions (called with queue->mutex held
// whenever its pending list may have changed).
void note_holding_locked(Queue* queue) {
  const bool holding = !queue->pending.empty();
  if (holding == queue->holding) return;
  queue->holding = holding;
  if (holding)
    g_holding_queues.fetch_add(1, std::memory_order_release);
  else
    g_holding_queues.fetch_sub(1, std::memory_order_release);
}

// --- AQL packets ----------------------------------------------------------

uint16_t packet_header(hsa_packet_type_t type, bool barrier, hsa_fence_scope_t acquire,
                       hsa_fence_scope_t release) {
  return uint16_t((type << HSA_PACKET_HEADER_TYPE) | ((barrier ? 1u : 0u) << HSA_PACKET_HEADER_BARRIER) |
                  (acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

uint8_t* packet_slot(const Queue* queue, uint64_t packet_id) {
  return static_cast<uint8_t*>(queue->aql->base_address) +
         (packet_id & (uint64_t(queue->aql_packets) - 1)) * kAqlPacketSize;
}

uint32_t packet_type(const Queue* queue, uint64_t packet_id) {
  const uint16_t header =
      __atomic_load_n(reinterpret_cast<const uint16_t*>(packet_slot(queue, packet_id)), __ATOMIC_ACQUIRE);
  return (header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
}

// Writes a barrier-AND packet and publishes its header last. The first packet
// of a submission carries the barrier bit (the queue is in order across
// submissions); system-scope fences make host and other-queue writes visible.
void write_barrier_and(Queue* queue, uint64_t packet_id, const CompletionSignal* const* dependencies,
                       uint32_t dependency_count, hsa_signal_t completion, bool barrier_bit) {
  // Built aside, then copied: the packet log reads the image, never the
  // slot, which the packet processor may consume (and invalidate) as soon
  // as the header is stored.
  hsa_barrier_and_packet_t image{};
  for (uint32_t i = 0; i < kBarrierAndDependencies; ++i)
    image.dep_signal[i] = i < dependency_count ? dependencies[i]->signal : hsa_signal_t{0};
  image.completion_signal = completion;
  const uint32_t header_and_reserved =
      packet_header(HSA_PACKET_TYPE_BARRIER_AND, barrier_bit, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
  std::memcpy(&image, &header_and_reserved, sizeof(header_and_reserved));
  uint8_t* slot = static_cast<uint8_t*>(packet_slot(queue, packet_id));
  std::memcpy(slot + sizeof(uint32_t), reinterpret_cast<const uint8_t*>(&image) + sizeof(uint32_t),
              kAqlPacketSize - sizeof(uint32_t));
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header_and_reserved, __ATOMIC_RELEASE);
  if (packet_log_enabled())
    packet_log_packet(queue->aql, packet_id, &image, nullptr,
                      dependency_count ? "cross-queue wait" : (completion.handle ? "submission end" : "filler"));
}

// Test hook body: an agent-dispatch packet, which a kernel-dispatch queue
// rejects (hsa-cpu reports HSA_STATUS_ERROR_INVALID_PACKET_FORMAT through the
// queue error callback), so the device is lost the way a real queue fault
// loses it.
void write_test_fault(Queue* queue, uint64_t packet_id, hsa_signal_t completion, bool barrier_bit) {
  hsa_agent_dispatch_packet_t image{};  // logged from here, not from the slot (see write_barrier_and)
  image.completion_signal = completion;
  const uint32_t header_and_type =
      packet_header(HSA_PACKET_TYPE_AGENT_DISPATCH, barrier_bit, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM);
  std::memcpy(&image, &header_and_type, sizeof(header_and_type));
  uint8_t* slot = static_cast<uint8_t*>(packet_slot(queue, packet_id));
  std::memcpy(slot + sizeof(uint32_t), reinterpret_cast<const uint8_t*>(&image) + sizeof(uint32_t),
              kAqlPacketSize - sizeof(uint32_t));
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header_and_type, __ATOMIC_RELEASE);
  if (packet_log_enabled()) packet_log_packet(queue->aql, packet_id, &image, nullptr, "injected fault (test hook)");
}


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
    for (const SemaphoreValue& signal : s->signals) {
      std::lock_guard<std::mutex> lock(signal.semaphore->mutex);
      auto range = signal.semaphore->pending_signals.equal_range(signal.value);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == s) {
          signal.semaphore->pending_signals.erase(it);
          break;
        }
      }
    }
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

enum class IssueOutcome { kIssued, kNoRoom, kFailed };

// IssueTarget::wait_for_ring_space: streaming a command buffer larger than
// the ring. Runs under the queue lock; the packet processor frees slots
// without it. Polls briefly, then yields the core between polls (to the
// packet processor and the dispatches it runs) for a bounded window, then
// sleeps in short steps: yielding alone takes cores from the dispatches
// over a long stream, sleeping alone can overrun on a loaded machine until
// the ring runs dry.
bool wait_for_ring_space(const IssueTarget& target, uint64_t doorbell_value, uint64_t min_read_index,
                         uint64_t* out_read_index) {
  constexpr uint32_t kPolls = 64;                                  // reads of the index before yielding
  constexpr auto kYieldWindow = std::chrono::microseconds(64);     // then yields for this long
  constexpr auto kSleep = std::chrono::microseconds(20);           // then sleeps in these steps
  const auto start = std::chrono::steady_clock::now();
  auto* queue = static_cast<Queue*>(target.runtime_context);
  const HsaApi& hsa = *target.hsa;
  if (doorbell_value != UINT64_MAX)
    hsa.hsa_signal_store_screlease(queue->aql->doorbell_signal, hsa_signal_value_t(doorbell_value));
  for (uint32_t round = 0;; ++round) {
    const uint64_t read = hsa.hsa_queue_load_read_index_scacquire(queue->aql);
    if (read >= min_read_index) {
      *out_read_index = read;
      return true;
    }
    if (queue->broken.load(std::memory_order_acquire) || queue->device->lost) return false;
    if (round < kPolls) continue;
    if (std::chrono::steady_clock::now() - start < kYieldWindow)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(kSleep);
  }
}

// Issues the front submission. Called with queue->mutex held. On kFailed the
// submission's status is set and it is NOT in inflight.
IssueOutcome issue(Queue* queue, Submission* s, std::vector<CompletionSignal*>& dependencies,
                   bool* out_lost, std::string* out_lost_reason) {
  Device* device = queue->device;
  const HsaApi& hsa = *device->hsa;
  const uint32_t dependency_packets =
      uint32_t((dependencies.size() + kBarrierAndDependencies - 1) / kBarrierAndDependencies);
  const uint32_t body_packets = s->kind == SubmissionKind::kCommands ? s->sizes.packet_count : 1;
  const uint64_t packets = uint64_t(dependency_packets) + body_packets;
  // A command buffer larger than the ring is streamed into it by issue
  // (IssueTarget::wait_for_ring_space); its dependency packets must fit.
  const bool streamed = s->kind == SubmissionKind::kCommands && packets > queue->aql_packets;
  if (dependency_packets >= queue->aql_packets || body_packets == 0) {
    s->status = device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, msgid::kUnsupported,
                            "xgpuQueueSubmit: the submission needs " + std::to_string(packets) +
                                " AQL packets; queue " + std::to_string(queue->index) + " holds " +
                                std::to_string(queue->aql_packets));
    return IssueOutcome::kFailed;
  }
  const uint64_t write_index = hsa.hsa_queue_load_write_index_relaxed
                                   ? hsa.hsa_queue_load_write_index_relaxed(queue->aql)
                                   : 0;
  const uint64_t read_index = hsa.hsa_queue_load_read_index_scacquire(queue->aql);
  // (A streamed body waits for its own slots as it goes: only the
  // dependency packets need room now.)
  if (write_index - read_index + (streamed ? dependency_packets : packets) > queue->aql_packets)
    return IssueOutcome::kNoRoom;

  // Kernargs: from the ring, or a dedicated allocation when larger than it.
  uint8_t* kernargs = nullptr;
  uint64_t kernarg_bytes = 0;
  uint64_t kernarg_end = 0;
  if (s->kind == SubmissionKind::kCommands && s->sizes.kernarg_bytes) {
    kernarg_bytes = align_up(s->sizes.kernarg_bytes, kKernargAlignment);
    if (kernarg_bytes > kKernargRingSize) {
      void* ptr = nullptr;
      XgpuResult result = device_allocate(device, MemoryKind::kKernarg, kernarg_bytes, &ptr);
      if (result != XGPU_SUCCESS) {
        s->status = result;
        return IssueOutcome::kFailed;
      }
      s->dedicated_kernargs = ptr;
      kernargs = static_cast<uint8_t*>(ptr);
    } else {
      const uint64_t position = queue->kernarg_head % kKernargRingSize;
      const uint64_t waste = position + kernarg_bytes > kKernargRingSize ? kKernargRingSize - position : 0;
      const uint64_t start = queue->kernarg_head + waste;
      if (start + kernarg_bytes - queue->kernarg_tail > kKernargRingSize) return IssueOutcome::kNoRoom;
      kernargs = queue->kernarg_ring + start % kKernargRingSize;
      kernarg_end = start + kernarg_bytes;
    }
  }

  // A submission whose kernels print gets a print buffer (the queue's
  // free ones first); without one it fails, the device lives on.
  if (s->kind == SubmissionKind::kCommands && s->sizes.prints && s->status == XGPU_SUCCESS && !s->print_buffer) {
    if (XgpuResult r = acquire_print_buffer(queue, s); r != XGPU_SUCCESS) {
      s->status = r;
      if (s->dedicated_kernargs) {
        device_free(device, s->dedicated_kernargs);
        s->dedicated_kernargs = nullptr;
      }
      return IssueOutcome::kFailed;
    }
  }

  CompletionSignal* completion = nullptr;
  std::string error;
  XgpuResult result = device_acquire_completion_signal(device, &completion, &error);
  if (result != XGPU_SUCCESS) {
    s->status = device_fail(device, result, msgid::failure(result), "xgpuQueueSubmit: " + error);
    if (s->dedicated_kernargs) {
      device_free(device, s->dedicated_kernargs);
      s->dedicated_kernargs = nullptr;
    }
    return IssueOutcome::kFailed;
  }
  if (kernarg_end) queue->kernarg_head = kernarg_end;
  s->kernarg_end = kernarg_end;
  s->completion = completion;
  s->dependencies = std::move(dependencies);
  dependencies.clear();
  trace_issue_begin(s);

  // Alloca commits on the host at the point the queue reaches it: its
  // address is published (release) before any later submission on this
  // queue issues, and before its signals are announced below (a waiter on
  // another queue may issue as soon as it sees them and resolve the address).
  // Dealloca returns the range here: later allocas on this queue may reuse it
  // at once, their work being ordered after this point by the barrier bit.
  if (s->kind == SubmissionKind::kAlloca) {
    XgpuResult commit = memory_pool_alloca_commit(s->alloca_buffer, queue);
    if (commit != XGPU_SUCCESS) s->status = commit;
  } else if (s->kind == SubmissionKind::kDealloca) {
    memory_pool_dealloca_issue(s->alloca_buffer, queue);
  }

  const uint64_t first = hsa.hsa_queue_add_write_index_scacq_screl(queue->aql, packets);
  for (uint32_t i = 0; i < dependency_packets; ++i) {
    const uint32_t begin = i * kBarrierAndDependencies;
    const uint32_t count = std::min<uint32_t>(kBarrierAndDependencies, uint32_t(s->dependencies.size()) - begin);
    write_barrier_and(queue, first + i, s->dependencies.data() + begin, count, hsa_signal_t{0},
                      /*barrier_bit=*/i == 0);
  }
  const uint64_t body = first + dependency_packets;
  s->first_packet = first;
  s->body_packet = body;
  s->end_packet = first + packets;
  if (s->kind == SubmissionKind::kCommands && s->status == XGPU_SUCCESS) {
    IssueTarget target;
    target.hsa = &hsa;
    target.device = device;
    target.aql_queue = queue->aql;
    target.first_packet_id = body;
    target.packet_count = body_packets;
    target.kernarg_base = kernargs;
    target.kernarg_capacity = kernarg_bytes;
    target.bindings = s->bindings.data();
    target.binding_count = uint32_t(s->bindings.size());
    target.completion_signal = completion->signal;
    target.order_after_previous = true;
    target.wait_for_ring_space = wait_for_ring_space;
    target.runtime_context = queue;
    target.print_buffer = uint64_t(reinterpret_cast<uintptr_t>(s->print_buffer));
    std::string issue_error, issue_error_id;
    target.out_error = &issue_error;
    target.out_error_id = &issue_error_id;
    XgpuResult issued = command_buffer_issue(s->command_buffer, target);
    if (issued != XGPU_SUCCESS) {
      // Misuse found only now (a binding-table slot or a queue allocation
      // that does not hold what the recording needs): the submission fails,
      // its signal semaphores carry the rule's error, the device lives on
      // (api.md 6.1: device loss is for device faults).
      s->status = issued;
      report_issue_failure(queue, s, issue_error, issue_error_id);
    }
  }

  // Announce the signals, so waiters on other queues of this device can wait
  // for this submission on the device. Only now, once its body is known to
  // run: a waiter that saw the announcement of a submission whose issue then
  // failed would run after it as if it had succeeded. The completion handler
  // (registered below) is what withdraws them. A submission that failed (an
  // alloca that could not be satisfied, a dealloca whose wait failed, a
  // failed issue) is not announced: its waiters stay held until the
  // completion handler fails the semaphores, and fail in turn.
  // Its completion handler is registered now only where something other
  // than a host waiter on its completion signal needs it retired (below);
  // otherwise on demand (queue_watch_completion).
  bool watch_now = s->status != XGPU_SUCCESS || !device->lazy_completion || queue->idle_waiters != 0 ||
                   (s->kind != SubmissionKind::kCommands && s->kind != SubmissionKind::kBarrier) ||
                   g_holding_queues.load(std::memory_order_seq_cst) != 0;
  if (s->status == XGPU_SUCCESS) {
    size_t announced = 0;
    try {
      for (const SemaphoreValue& signal : s->signals) {
        std::lock_guard<std::mutex> lock(signal.semaphore->mutex);
        signal.semaphore->pending_signals.emplace(signal.value, s);
        ++announced;
        if (signal.semaphore->mirror_waiters != 0 || signal.semaphore->held_on) watch_now = true;
      }
    } catch (const std::bad_alloc&) {
      // Host memory ran out half-way: none of its signals is announced, and
      // the submission fails (its packets still complete, so the ring stays
      // consistent; its semaphores fail at its completion).
      for (size_t i = 0; i < announced; ++i) {
        const SemaphoreValue& signal = s->signals[i];
        std::lock_guard<std::mutex> lock(signal.semaphore->mutex);
        auto range = signal.semaphore->pending_signals.equal_range(signal.value);
        for (auto it = range.first; it != range.second; ++it)
          if (it->second == s) {
            signal.semaphore->pending_signals.erase(it);
            break;
          }
      }
      s->status = XGPU_ERROR_OUT_OF_HOST_MEMORY;
      watch_now = true;
    }
  }
  if (s->kind == SubmissionKind::kTestFault && s->status == XGPU_SUCCESS) {
    write_test_fault(queue, body, completion->signal, /*barrier_bit=*/body == first);
  } else if (s->kind != SubmissionKind::kCommands || s->status != XGPU_SUCCESS) {
    // Barrier-only body; after a failed issue, the slots it left unpublished
    // become no-op barriers so the ring stays consistent, the last one
    // carrying the completion signal.
    for (uint64_t id = body; id < first + packets; ++id) {
      const bool last = id == first + packets - 1;
      if (s->kind == SubmissionKind::kCommands && packet_type(queue, id) != HSA_PACKET_TYPE_INVALID) continue;
      write_barrier_and(queue, id, nullptr, 0, last ? completion->signal : hsa_signal_t{0},
                        /*barrier_bit=*/id == first);
    }
  }
  if (packet_log_enabled())
    packet_log_doorbell(queue->aql, first + packets - 1, hsa.hsa_queue_load_read_index_scacquire(queue->aql),
                        first + packets);
  hsa.hsa_signal_store_screlease(queue->aql->doorbell_signal, hsa_signal_value_t(first + packets - 1));
  trace_issue_end(s);
  queue->pending.pop_front();
  if (queue->inflight.empty()) queue->progress_at = std::chrono::steady_clock::now();
  queue->inflight.push_back(s);
  if (watch_now && !register_completion_handler(s, &error)) {
    *out_lost = true;
    *out_lost_reason = "cannot observe submission completion: " + error;
  }
  return IssueOutcome::kIssued;
}

// Issues what can be issued from the front of `queue`; fails submissions
// whose waits failed; completes empty submissions that need no queue.
void pump(Queue* queue) {
  std::vector<Submission*> finished;  // failed, or empty and done at once: finalized in order
  bool announced = false;  // an issued submission announced signals (pending_signals)
  bool holding = false;    // this queue still holds submissions
  bool lost = false;
  std::string lost_reason;
  // What a hold waits for to be retired: its completion handlers are
  // registered after the lock is released (queue_watch_completion).
  std::vector<Submission*> watch;  // held (submission_retain)
  bool watch_inflight = false;     // every submission in flight on this queue
  {
    std::unique_lock<std::mutex> lock(queue->mutex);
    uint32_t no_room_spins = 0;
    while (!queue->pending.empty()) {
      Submission* s = queue->pending.front();
      if (queue->device->lost) {
        s->status = XGPU_ERROR_DEVICE_LOST;
        queue->pending.pop_front();
        finished.push_back(s);
        continue;
      }
      // STATIC indirect counts are read on the host at issue: such a
      // submission waits (on the host) until everything before it on this
      // queue completed and its waits are reached, not merely scheduled.
      const bool reads_memory = s->kind == SubmissionKind::kCommands && s->sizes.reads_memory_at_issue;
      if (reads_memory && !queue->inflight.empty()) {
        watch_inflight = true;
        break;  // a completion pumps again
      }
      std::vector<CompletionSignal*> dependencies;
      XgpuResult wait_status = XGPU_SUCCESS;
      bool ready = true;
      for (const SemaphoreValue& wait : s->waits) {
        Semaphore* semaphore = wait.semaphore;
        std::lock_guard<std::mutex> semaphore_lock(semaphore->mutex);
        if (semaphore->failure != XGPU_SUCCESS) {
          if (wait_status == XGPU_SUCCESS) wait_status = semaphore->failure;
          // A dealloca still returns its memory once every other wait is
          // reached or failed: keep looking at the rest.
          if (s->kind == SubmissionKind::kDealloca) continue;
          break;
        }
        if (semaphore->value >= wait.value) continue;
        auto it = semaphore->pending_signals.lower_bound(wait.value);
        if (!reads_memory && it != semaphore->pending_signals.end()) {
          Submission* signaller = it->second;
          if (signaller->queue == queue) continue;  // in order on this queue
          if (signaller->queue->device == queue->device) {
            completion_signal_retain(signaller->completion);
            dependencies.push_back(signaller->completion);
            continue;
          }
        }
        ready = false;  // wait-before-signal, another device, or a host signal: hold
        // Released by a retirement: that of the issued signaller, or of one
        // issued later (which, seeing held_on, gets its handler at issue).
        if (it != semaphore->pending_signals.end()) {
          add_unwatched(it->second, &watch);
        } else {
          semaphore->held_on = true;
        }
        break;
      }
      if (ready && wait_status != XGPU_SUCCESS && s->kind == SubmissionKind::kDealloca) {
        s->status = wait_status;  // issued (returns the memory in queue order), then its signals fail
      } else if (wait_status != XGPU_SUCCESS || !ready) {
        for (CompletionSignal* dependency : dependencies) completion_signal_release(queue->device, dependency);
        if (!ready) break;
        s->status = wait_status;
        queue->pending.pop_front();
        finished.push_back(s);
        continue;
      }
      // An empty submission (no command buffer) whose waits are all reached
      // on the host, with nothing ahead of it on this queue (nothing in
      // flight, nothing another thread is finalizing; what this pass
      // finalizes is finalized first, in order): its signals are set here,
      // on this thread, without a packet, a completion signal or a hand-off
      // to the packet processor and the completion handler.
      if (s->kind == SubmissionKind::kBarrier && s->status == XGPU_SUCCESS && dependencies.empty() &&
          queue->inflight.empty() && queue->finishing == 0) {
        queue->pending.pop_front();
        finished.push_back(s);
        continue;
      }
      // An alloca ordered after work on other queues by device-side waits
      // commits when it issues, before that work completes, so memory a
      // dealloca it waits for is about to release is not free yet. When the
      // pool cannot place it without growing, hold it until its waits are
      // reached: it then reuses that memory instead of growing or failing.
      if (s->kind == SubmissionKind::kAlloca && s->status == XGPU_SUCCESS && !dependencies.empty() &&
          !memory_pool_alloca_fits(s->alloca_buffer, queue)) {
        for (CompletionSignal* dependency : dependencies) completion_signal_release(queue->device, dependency);
        for (const SemaphoreValue& wait : s->waits) {
          std::lock_guard<std::mutex> semaphore_lock(wait.semaphore->mutex);
          for (auto it = wait.semaphore->pending_signals.lower_bound(wait.value);
               it != wait.semaphore->pending_signals.end(); ++it)
            add_unwatched(it->second, &watch);
        }
        break;  // the completion of what it waits for pumps again
      }
      IssueOutcome outcome = issue(queue, s, dependencies, &lost, &lost_reason);
      if (outcome == IssueOutcome::kFailed) {
        for (CompletionSignal* dependency : dependencies) completion_signal_release(queue->device, dependency);
        queue->pending.pop_front();
        finished.push_back(s);
        if (lost) break;
        continue;
      }
      if (lost) break;  // the device is lost: what is still pending fails with it
      if (outcome == IssueOutcome::kIssued && s->status == XGPU_SUCCESS && !s->signals.empty()) announced = true;
      if (outcome == IssueOutcome::kNoRoom) {
        for (CompletionSignal* dependency : dependencies) completion_signal_release(queue->device, dependency);
        if (!queue->inflight.empty() || queue->finishing) {
          watch_inflight = true;
          break;  // a completion pumps again
        }
        // Nothing in flight: the packet processor is only catching up on
        // its read index. Back off briefly and retry.
        if (++no_room_spins > 100000) {
          queue->broken = true;
          lost = true;
          lost_reason = "queue " + std::to_string(queue->index) + " ring does not drain";
          break;
        }
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        lock.lock();
        continue;
      }
    }
    queue->finishing += uint32_t(finished.size());
    if (queue->pending.size() < kHeldSubmissionsWarning / 2) queue->held_warning_at = kHeldSubmissionsWarning;
    note_holding_locked(queue);
    holding = queue->holding;
  }
  finish_batch(queue, finished);
  if (lost) device_mark_lost(queue->device, lost_reason);
  watch_and_release(watch);
  if (watch_inflight) queue_watch_inflight(queue);
  // Signals just announced may let submissions held on other queues of the
  // device wait for this one on the device (a barrier packet on its
  // completion signal) instead of on the host until it is retired: pump
  // them now.
  if (announced && g_holding_queues.load(std::memory_order_acquire) > (holding ? 1u : 0u)) wake_held_submissions();
}

}  // namespace

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

// --- registry / wake ----------------------------------------------------------

void wake_held_submissions() {
  if (t_waking) {
    t_wake_again = true;
    return;
  }
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  t_waking = true;
  do {
    t_wake_again = false;
    for (Queue* queue : g_queues) pump(queue);
  } while (t_wake_again);
  t_waking = false;
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

// --- queue lifetime ----------------------------------------------------------

XgpuResult queue_create(Device* device, uint32_t index, Queue** out_queue, std::string* out_error) {
  auto queue = std::make_unique<Queue>();
  xgpuSetLoaderMagicValue(queue.get());
  queue->device = device;
  queue->index = index;
  uint32_t packets = std::min<uint32_t>(kDefaultQueuePackets, device->physical->queue_max_packets
                                                                  ? device->physical->queue_max_packets
                                                                  : kDefaultQueuePackets);
  while (packets & (packets - 1)) packets &= packets - 1;  // power of two
  queue->aql_packets = packets;
  void* ring = nullptr;
  XgpuResult result = device_allocate(device, MemoryKind::kKernarg, kKernargRingSize, &ring);
  if (result != XGPU_SUCCESS) {
    *out_error = "allocating the kernarg ring failed";
    return result;
  }
  queue->kernarg_ring = static_cast<uint8_t*>(ring);
  result = device->hsa->hsa_queue_create_checked(out_error, device->agent, packets, HSA_QUEUE_TYPE_SINGLE,
                                                 on_queue_error, static_cast<void*>(queue.get()), UINT32_MAX,
                                                 UINT32_MAX, &queue->aql);
  if (result != XGPU_SUCCESS) {
    device_free(device, ring);
    return result;
  }
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    g_queues.push_back(queue.get());
  }
  trace_queue_created(queue.get());
  *out_queue = queue.release();
  return XGPU_SUCCESS;
}

void queue_destroy(Queue* queue) {
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    g_queues.erase(std::find(g_queues.begin(), g_queues.end(), queue));
  }
  // Whatever is still pending (waiting for a value nobody signals) is failed.
  queue_fail_all(queue, XGPU_ERROR_DEVICE_LOST);
  queue_wait_idle_internal(queue, 5'000'000'000ull);
  if (queue->broken && !queue->errored && queue_hsa_busy(queue)) {
    // A dispatch still runs (a hung kernel): destroying the HSA queue would
    // wait for it forever. The queue and its kernarg ring are left to it.
    queue->abandoned = true;
    device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kDeviceLost,
                  "xgpuDestroyDevice: HSA queue " + std::to_string(queue->index) +
                      " still runs a dispatch that never finished: the queue, its kernarg ring, the device's "
                      "memory, completion signals and builtin kernels are abandoned (leaked), not released under it");
    return;
  }
  // Completion handlers of submissions a host waiter retired may still be
  // on their way (each fires once its signal is below 1, which every
  // retired or failed submission's is): they hold the submission, its
  // completion signal and this queue until they return.
  const auto handlers_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDestroyDrainMs);
  while (queue->handlers.load(std::memory_order_acquire) != 0) {
    if (std::chrono::steady_clock::now() >= handlers_deadline) {
      queue->abandoned = true;
      device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                    "xgpuDestroyDevice: " + std::to_string(queue->handlers.load()) + " completion handler(s) of HSA queue " +
                        std::to_string(queue->index) + " did not run within " + std::to_string(kDestroyDrainMs) +
                        " ms: the queue, its completion signals and the device's memory are abandoned (leaked)");
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  std::string error;
  if (queue->device->hsa->hsa_queue_destroy_checked(&error, queue->aql) != XGPU_SUCCESS)
    device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                  "xgpuDestroyDevice: destroying HSA queue " + std::to_string(queue->index) + " failed: " + error);
  device_free(queue->device, queue->kernarg_ring);
  for (void* buffer : queue->print_buffers) device_free(queue->device, buffer);
  queue->print_buffers.clear();
  // A queue is owned by device->queues (unique_ptr); the caller clears it.
}

bool queue_hsa_busy(const Queue* queue) {
  const HsaApi& hsa = *queue->device->hsa;
  return hsa.hsa_queue_load_read_index_scacquire(queue->aql) < hsa.hsa_queue_load_write_index_relaxed(queue->aql);
}

bool queue_watchdog_expired(Queue* queue, uint64_t timeout_ms, std::string* out_reason) {
  const HsaApi& hsa = *queue->device->hsa;
  std::lock_guard<std::mutex> lock(queue->mutex);
  if (queue->broken || queue->inflight.empty()) return false;
  const Submission* front = queue->inflight.front();
  // Completed, not retired yet (its completion handler is registered on
  // demand: the watchdog's caller registers it): not running.
  if (hsa.hsa_signal_load_relaxed && hsa.hsa_signal_load_relaxed(front->completion->signal) < 1) return false;
  // Waiting on the device for another queue's work is not running.
  for (const CompletionSignal* dependency : front->dependencies)
    if (hsa.hsa_signal_load_relaxed && hsa.hsa_signal_load_relaxed(dependency->signal) != 0) return false;
  const auto ran = std::chrono::steady_clock::now() - queue->progress_at;
  const uint64_t ran_ms = uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(ran).count());
  if (ran_ms < timeout_ms) return false;
  queue->broken = true;
  *out_reason = fault_report_hang(queue, front, ran_ms, timeout_ms);
  return true;
}

void queue_fail_all(Queue* queue, XgpuResult status) {
  std::vector<Submission*> failed;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    while (!queue->pending.empty()) {
      Submission* s = queue->pending.front();
      queue->pending.pop_front();
      s->status = status;
      failed.push_back(s);
    }
    note_holding_locked(queue);
    // In-flight work will not complete on a broken queue: complete it here
    // (the handler then fails its semaphores). Its signals are not recycled
    // while the device is lost. On the device's other queues in-flight work
    // still runs: it completes normally (failing its signals, the device being
    // lost), so nothing it uses is freed under it.
    if (queue->device->lost && queue->broken) {
      for (Submission* s : queue->inflight) {
        s->status = status;
        queue->device->hsa->hsa_signal_store_screlease(s->completion->signal, 0);
      }
    }
    queue->finishing += uint32_t(failed.size());
  }
  finish_batch(queue, failed);
  queue_watch_inflight(queue);  // retirement fails or completes what is in flight
}

XgpuResult queue_wait_idle_internal(Queue* queue, uint64_t timeout_ns) {
  // Retirement empties the queue: what is in flight gets its completion
  // handler, and so does what is issued while this thread waits.
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    ++queue->idle_waiters;
  }
  queue_watch_inflight(queue);
  std::unique_lock<std::mutex> lock(queue->mutex);
  auto idle = [&] { return queue->pending.empty() && queue->inflight.empty() && queue->finishing == 0; };
  bool reached = true;
  if (timeout_ns == UINT64_MAX) {
    queue->idle.wait(lock, idle);
  } else {
    reached = queue->idle.wait_for(lock, std::chrono::nanoseconds(timeout_ns), idle);
  }
  --queue->idle_waiters;
  return reached ? XGPU_SUCCESS : XGPU_TIMEOUT;
}

// Called with queue->mutex held after operations were added to `pending`:
// the count to report when it reached the next warning (0: none).
static size_t held_to_report(Queue* queue) {
  const size_t held = queue->pending.size();
  if (held < queue->held_warning_at) return 0;
  while (queue->held_warning_at <= held) queue->held_warning_at *= 2;
  return held;
}

static void report_held(Queue* queue, size_t held) {
  if (held == 0) return;
  device_report(queue->device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHeldSubmissions,
                "queue " + std::to_string(queue->index) + " holds " + std::to_string(held) +
                    " operations that wait for semaphore payloads not reached yet; they stay (taking host memory) "
                    "until those payloads are signalled or the semaphores failed, which is the application's to do",
                {{XGPU_OBJECT_TYPE_QUEUE, uint64_t(reinterpret_cast<uintptr_t>(queue))}});
}

void queue_accept(Queue* queue, Submission* submission) {
  size_t held = 0;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    trace_submission_accepted(submission);
    submission->sequence = ++queue->accepted;
    queue->pending.push_back(submission);
    held = held_to_report(queue);
  }
  report_held(queue, held);
  pump(queue);
}

// --- entry points --------------------------------------------------------------

Submission::~Submission() {
  for (const SemaphoreValue& wait : waits) semaphore_release(wait.semaphore);
  for (const SemaphoreValue& signal : signals) {
    if (signals_accepted) semaphore_forget_signal(signal.semaphore, signal.value);
    semaphore_release(signal.semaphore);
  }
}

XgpuResult accept_signal_values(const Device* device, Submission* s, const char* function, const char* rule,
                                uint32_t submit_index) {
  for (size_t j = 0; j < s->signals.size(); ++j) {
    uint64_t current = 0, accepted = 0;
    if (semaphore_accept_signal(s->signals[j].semaphore, s->signals[j].value, &current, &accepted)) continue;
    for (size_t k = 0; k < j; ++k) semaphore_forget_signal(s->signals[k].semaphore, s->signals[k].value);
    const std::string where =
        submit_index == kNotASubmit ? "pSignalSemaphores->" : "pSubmits[" + std::to_string(submit_index) + "].signalSemaphores.";
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, rule,
                       std::string(function) + ": " + where + "pValues[" + std::to_string(j) + "] " +
                           std::to_string(s->signals[j].value) + " is not greater than the semaphore's payload " +
                           std::to_string(current) +
                           (accepted ? " and every payload of it already pending in a signal list (" +
                                           std::to_string(accepted) + ")"
                                     : std::string()));
  }
  s->signals_accepted = true;
  return XGPU_SUCCESS;
}

const SemaphoreListArgument kQueueAllocaWaits{"xgpuQueueAlloca", "pWaitSemaphores",
                                              vuid::xgpuQueueAlloca_pWaitSemaphores_pSemaphores_parameter,
                                              vuid::xgpuQueueAlloca_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueAllocaSignals{"xgpuQueueAlloca", "pSignalSemaphores",
                                                vuid::xgpuQueueAlloca_pSignalSemaphores_pSemaphores_parameter,
                                                vuid::xgpuQueueAlloca_pSignalSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueDeallocaWaits{"xgpuQueueDealloca", "pWaitSemaphores",
                                                vuid::xgpuQueueDealloca_pWaitSemaphores_pSemaphores_parameter,
                                                vuid::xgpuQueueDealloca_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueDeallocaSignals{"xgpuQueueDealloca", "pSignalSemaphores",
                                                  vuid::xgpuQueueDealloca_pSignalSemaphores_pSemaphores_parameter,
                                                  vuid::xgpuQueueDealloca_pSignalSemaphores_pValues_parameter};

namespace {

const SemaphoreListArgument kQueueSubmitWaits{
    "xgpuQueueSubmit", "waitSemaphores", vuid::xgpuQueueSubmit_pSubmits_waitSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueSubmit_pSubmits_waitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueSubmitSignals{
    "xgpuQueueSubmit", "signalSemaphores", vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueFillBufferWaits{"xgpuQueueFillBuffer", "pWaitSemaphores",
                                                  vuid::xgpuQueueFillBuffer_pWaitSemaphores_pSemaphores_parameter,
                                                  vuid::xgpuQueueFillBuffer_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueFillBufferSignals{
    "xgpuQueueFillBuffer", "pSignalSemaphores", vuid::xgpuQueueFillBuffer_pSignalSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueFillBuffer_pSignalSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueCopyBufferWaits{"xgpuQueueCopyBuffer", "pWaitSemaphores",
                                                  vuid::xgpuQueueCopyBuffer_pWaitSemaphores_pSemaphores_parameter,
                                                  vuid::xgpuQueueCopyBuffer_pWaitSemaphores_pValues_parameter};
const SemaphoreListArgument kQueueCopyBufferSignals{
    "xgpuQueueCopyBuffer", "pSignalSemaphores", vuid::xgpuQueueCopyBuffer_pSignalSemaphores_pSemaphores_parameter,
    vuid::xgpuQueueCopyBuffer_pSignalSemaphores_pValues_parameter};
// The test hook is not an API command: its misuse has the test hook's ID.
const SemaphoreListArgument kTestFaultSignals{"xgpuAmdgpuTestInjectQueueFault", "pSignalSemaphores",
                                              msgid::kTestHook, msgid::kTestHook};

}  // namespace

XgpuResult copy_semaphore_list(const Device* device, const SemaphoreListArgument& argument, uint32_t submit_index,
                               const XgpuSemaphoreList* list, std::vector<SemaphoreValue>* out) {
  out->clear();
  if (!list || list->count == 0) return XGPU_SUCCESS;
  // For messages only: "xgpuQueueSubmit: pSubmits[2].waitSemaphores.", "xgpuQueueAlloca: pWaitSemaphores->".
  auto where = [&] {
    return std::string(argument.function) + ": " +
           (submit_index == kNotASubmit ? std::string(argument.name) + "->"
                                        : "pSubmits[" + std::to_string(submit_index) + "]." + argument.name + ".");
  };
  if (!list->pSemaphores)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.semaphores_id,
                       where() + "pSemaphores is NULL but count is " + std::to_string(list->count));
  if (!list->pValues)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.values_id,
                       where() + "pValues is NULL but count is " + std::to_string(list->count));
  for (uint32_t i = 0; i < list->count; ++i) {
    auto* semaphore = from_handle<Semaphore>(list->pSemaphores[i]);
    if (!semaphore)
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.semaphores_id,
                         where() + "pSemaphores[" + std::to_string(i) + "] is XGPU_NULL_HANDLE");
    if (list->pValues[i] > kMaxSemaphoreValue)
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, msgid::kUnsupported,
                         where() + "pValues[" + std::to_string(i) + "] " + std::to_string(list->pValues[i]) +
                             " exceeds the largest payload this driver supports (" +
                             std::to_string(kMaxSemaphoreValue) + ")");
    if (!semaphore_retain_live(semaphore)) {  // released by ~Submission
      char value[32];
      std::snprintf(value, sizeof(value), "%p", static_cast<void*>(semaphore));
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, argument.semaphores_id,
                         where() + "pSemaphores[" + std::to_string(i) + "] (" + value +
                             ") is not a live semaphore: it was destroyed already or never created");
    }
    out->push_back(SemaphoreValue{semaphore, list->pValues[i]});
  }
  return XGPU_SUCCESS;
}

namespace {

XgpuResult validate_bindings(const Device* device, uint32_t submit_index, const XgpuSubmitInfo& submit,
                             const CommandBuffer* command_buffer, uint32_t capacity) {
  // Messages only.
  auto where = [&] { return "xgpuQueueSubmit: pSubmits[" + std::to_string(submit_index) + "]"; };
  if (submit.bindingCount < capacity)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_bindingCount,
                       where() + ".bindingCount " + std::to_string(submit.bindingCount) +
                           " is less than the command buffer's bindingCapacity " + std::to_string(capacity));
  if (submit.bindingCount && !submit.pBindings)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_pBindings_parameter,
                       where() + ".pBindings is NULL but bindingCount is " + std::to_string(submit.bindingCount));
  for (uint32_t i = 0; i < submit.bindingCount; ++i) {
    const XgpuBufferBinding& binding = submit.pBindings[i];
    auto* buffer = from_handle<Buffer>(binding.buffer);
    if (!buffer) {
      if (i < capacity)
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                           vuid::xgpuQueueSubmit_pSubmits_pBindings_buffer_parameter,
                           where() + ".pBindings[" + std::to_string(i) +
                               "].buffer is XGPU_NULL_HANDLE (the slot is below the command buffer's bindingCapacity " +
                               std::to_string(capacity) + ")");
      continue;
    }
    if (binding.offset >= buffer->size ||
        (binding.size != XGPU_WHOLE_SIZE && (binding.size == 0 || binding.size > buffer->size - binding.offset)))
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_pBindings_range,
                         where() + ".pBindings[" + std::to_string(i) + "]: range (offset " +
                             std::to_string(binding.offset) + ", size " +
                             (binding.size == XGPU_WHOLE_SIZE ? std::string("XGPU_WHOLE_SIZE")
                                                              : std::to_string(binding.size)) +
                             ") is empty or exceeds the buffer's " + std::to_string(buffer->size) + " bytes");
  }
  // What the recording does through each slot needs the buffer's usage bits
  // (and, for STATIC indirect counts, host-visible memory).
  std::string error;
  const char* id = nullptr;
  const XgpuResult usage =
      command_buffer_check_binding_usage(command_buffer, submit.pBindings, submit.bindingCount, &error, &id);
  if (usage != XGPU_SUCCESS) return device_fail(device, usage, id, where() + "." + error);
  return XGPU_SUCCESS;
}

void discard(std::vector<Submission*>& submissions) {
  for (Submission* s : submissions) {
    if (s->command_buffer) command_buffer_cancel_submit(s->command_buffer);
    delete s;
  }
  submissions.clear();
}

}  // namespace

XgpuResult queue_submit(XgpuQueue handle, uint32_t count, const XgpuSubmitInfo* submits) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueSubmit");
  if (count && !submits)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueSubmit_pSubmits_parameter,
                       "xgpuQueueSubmit: pSubmits is NULL but submitCount is " + std::to_string(count));
  std::vector<Submission*> accepted;
  for (uint32_t i = 0; i < count; ++i) {
    const XgpuSubmitInfo& info = submits[i];
    auto s = std::make_unique<Submission>();
    s->queue = queue;
    XgpuResult result = copy_semaphore_list(device, kQueueSubmitWaits, i, &info.waitSemaphores, &s->waits);
    if (result == XGPU_SUCCESS)
      result = copy_semaphore_list(device, kQueueSubmitSignals, i, &info.signalSemaphores, &s->signals);
    if (result != XGPU_SUCCESS) {
      discard(accepted);
      return result;
    }
    if (info.commandBuffer) {
      auto* command_buffer = reinterpret_cast<CommandBuffer*>(info.commandBuffer);
      const Device* owner = command_buffer_live_device(info.commandBuffer);
      if (!owner) {
        discard(accepted);
        char value[32];
        std::snprintf(value, sizeof(value), "%p", static_cast<const void*>(info.commandBuffer));
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                           vuid::xgpuQueueSubmit_pSubmits_commandBuffer_parameter,
                           "xgpuQueueSubmit: pSubmits[" + std::to_string(i) + "].commandBuffer (" + value +
                               ") is not a live command buffer: it was destroyed already or never created");
      }
      if (owner != device) {
        discard(accepted);
        return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                           vuid::xgpuQueueSubmit_pSubmits_commandBuffer_parent,
                           "xgpuQueueSubmit: pSubmits[" + std::to_string(i) +
                               "].commandBuffer was created on another device than the queue's");
      }
      std::string error;
      const char* id = nullptr;
      result = command_buffer_acquire_for_submit(command_buffer, &error, &id);
      if (result != XGPU_SUCCESS) {
        discard(accepted);
        return device_fail(device, result, id,
                           "xgpuQueueSubmit: pSubmits[" + std::to_string(i) + "].commandBuffer: " + error);
      }
      s->kind = SubmissionKind::kCommands;
      s->command_buffer = command_buffer;
      s->command_buffer_handle = info.commandBuffer;
      s->sizes = command_buffer_issue_sizes(command_buffer);
      result = validate_bindings(device, i, info, command_buffer, s->sizes.binding_capacity);
      if (result != XGPU_SUCCESS) {
        command_buffer_cancel_submit(command_buffer);
        discard(accepted);
        return result;
      }
      if (info.bindingCount) s->bindings.assign(info.pBindings, info.pBindings + info.bindingCount);
    } else {
      s->kind = SubmissionKind::kBarrier;
    }
    result = accept_signal_values(device, s.get(), "xgpuQueueSubmit",
                                  vuid::xgpuQueueSubmit_pSubmits_signalSemaphores_value, i);
    if (result != XGPU_SUCCESS) {
      if (s->command_buffer) command_buffer_cancel_submit(s->command_buffer);
      discard(accepted);
      return result;
    }
    accepted.push_back(s.release());
  }
  size_t held = 0;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    for (Submission* s : accepted) {
      trace_submission_accepted(s);
      s->sequence = ++queue->accepted;
      queue->pending.push_back(s);
    }
    held = held_to_report(queue);
  }
  report_held(queue, held);
  pump(queue);
  return XGPU_SUCCESS;
}

namespace {

// Records a one-shot internal command buffer with `record` and submits it.
// The caller has checked the command's arguments with its own rules, so the
// recording fails only for the driver's own reasons (the device library,
// memory); those are reported by the commands half and then summarized here.
template <typename Record>
XgpuResult submit_internal(Queue* queue, const char* function, const char* semaphores_rule,
                           const SemaphoreListArgument& waits_argument,
                           const XgpuSemaphoreList* waits, const SemaphoreListArgument& signals_argument,
                           const XgpuSemaphoreList* signals, Record&& record) {
  Device* device = queue->device;
  auto create = reinterpret_cast<PFN_xgpuCreateCommandBuffer>(commands_get_proc_addr("xgpuCreateCommandBuffer"));
  auto destroy = reinterpret_cast<PFN_xgpuDestroyCommandBuffer>(commands_get_proc_addr("xgpuDestroyCommandBuffer"));
  auto begin = reinterpret_cast<PFN_xgpuBeginCommandBuffer>(commands_get_proc_addr("xgpuBeginCommandBuffer"));
  auto end = reinterpret_cast<PFN_xgpuEndCommandBuffer>(commands_get_proc_addr("xgpuEndCommandBuffer"));
  if (!create || !destroy || !begin || !end)
    return device_fail(device, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                       std::string(function) + ": command buffers are not available in this build");
  auto s = std::make_unique<Submission>();
  s->queue = queue;
  XgpuResult result = copy_semaphore_list(device, waits_argument, kNotASubmit, waits, &s->waits);
  if (result == XGPU_SUCCESS) result = copy_semaphore_list(device, signals_argument, kNotASubmit, signals, &s->signals);
  if (result == XGPU_SUCCESS)
    result = accept_signal_values(device, s.get(), function, semaphores_rule, kNotASubmit);
  if (result != XGPU_SUCCESS) return result;
  XgpuCommandBufferCreateInfo create_info{};
  create_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer command_buffer = nullptr;
  const auto device_handle = reinterpret_cast<XgpuDevice>(device);
  result = create(device_handle, &create_info, nullptr, &command_buffer);
  if (result != XGPU_SUCCESS) return result;
  XgpuCommandBufferBeginInfo begin_info{};
  begin_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  result = begin(command_buffer, &begin_info);
  if (result == XGPU_SUCCESS) {
    record(command_buffer);
    result = end(command_buffer);
  }
  auto* internal = reinterpret_cast<CommandBuffer*>(command_buffer);
  std::string error;
  const char* id = nullptr;
  if (result == XGPU_SUCCESS) result = command_buffer_acquire_for_submit(internal, &error, &id);
  if (result != XGPU_SUCCESS) {
    destroy(device_handle, command_buffer, nullptr);
    // Feature/initialization failures of a recording come from the device
    // library's builtin kernels (see the message before this one).
    if (!id)
      id = result == XGPU_ERROR_FEATURE_NOT_PRESENT || result == XGPU_ERROR_INITIALIZATION_FAILED
               ? msgid::kDeviceLibrary
               : msgid::failure(result);
    return device_fail(device, result, id,
                       std::string(function) + ": recording its internal command buffer failed" +
                           (error.empty() ? std::string() : ": " + error));
  }
  s->kind = SubmissionKind::kCommands;
  s->command_buffer = internal;
  s->command_buffer_handle = command_buffer;
  s->owns_command_buffer = true;
  s->sizes = command_buffer_issue_sizes(internal);
  queue_accept(queue, s.release());
  return XGPU_SUCCESS;
}

constexpr XgpuBufferUsageFlags kTransferSrc = XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT;
constexpr XgpuBufferUsageFlags kTransferDst = XGPU_BUFFER_USAGE_TRANSFER_DST_BIT;

}  // namespace

XgpuResult queue_fill_buffer(XgpuQueue handle, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                             XgpuBuffer dst, XgpuDeviceSize offset, XgpuDeviceSize size, const void* pattern,
                             uint32_t pattern_size) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueFillBuffer");
  auto fill = reinterpret_cast<PFN_xgpuCmdFillBuffer>(commands_get_proc_addr("xgpuCmdFillBuffer"));
  if (!fill)
    return device_fail(device, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                       "xgpuQueueFillBuffer: xgpuCmdFillBuffer is not available in this build");
  // This command's rules, checked here so that the internal xgpuCmdFillBuffer
  // records without error.
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_patternSize,
                       "xgpuQueueFillBuffer: patternSize is " + std::to_string(pattern_size) + " (must be 1, 2 or 4)");
  if (!pattern)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_pPattern_parameter,
                       "xgpuQueueFillBuffer: pPattern is NULL");
  const auto* buffer = from_handle<Buffer>(dst);
  if (!buffer)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_dstBuffer_parameter,
                       "xgpuQueueFillBuffer: dstBuffer is XGPU_NULL_HANDLE");
  if (!device_handle_live(device, dst, vuid::xgpuQueueFillBuffer_dstBuffer_parameter,
                          "xgpuQueueFillBuffer: dstBuffer"))
    return XGPU_ERROR_INVALID_ARGUMENT;
  if (offset % pattern_size != 0 || offset >= buffer->size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_dstOffset,
                       "xgpuQueueFillBuffer: dstOffset " + std::to_string(offset) +
                           " is not a multiple of patternSize " + std::to_string(pattern_size) +
                           " less than the size of dstBuffer (" + std::to_string(buffer->size) + " bytes)");
  if (size != XGPU_WHOLE_SIZE && (size == 0 || size % pattern_size != 0 || size > buffer->size - offset))
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueFillBuffer_size,
                       "xgpuQueueFillBuffer: size " + std::to_string(size) +
                           " is not a non-zero multiple of patternSize " + std::to_string(pattern_size) +
                           " with dstOffset (" + std::to_string(offset) + ") + size at most the size of dstBuffer (" +
                           std::to_string(buffer->size) + " bytes)");
  if ((buffer->usage & kTransferDst) != kTransferDst)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueFillBuffer_dstBuffer_usage,
                       "xgpuQueueFillBuffer: dstBuffer was not created with XGPU_BUFFER_USAGE_TRANSFER_DST_BIT");
  // XGPU_WHOLE_SIZE: to the end of the buffer, rounded down to the pattern.
  const XgpuDeviceSize length =
      size == XGPU_WHOLE_SIZE ? (buffer->size - offset) / pattern_size * pattern_size : size;
  return submit_internal(queue, "xgpuQueueFillBuffer", vuid::xgpuQueueFillBuffer_semaphores, kQueueFillBufferWaits, waits, kQueueFillBufferSignals, signals,
                         [&](XgpuCommandBuffer command_buffer) {
                           if (length == 0) return;  // less than one pattern to the end: nothing to fill
                           const XgpuBufferRef ref = xgpuBufferRefRange(dst, offset, length);
                           fill(command_buffer, &ref, pattern, pattern_size);
                         });
}

XgpuResult queue_copy_buffer(XgpuQueue handle, const XgpuSemaphoreList* waits, const XgpuSemaphoreList* signals,
                             XgpuBuffer src, XgpuDeviceSize src_offset, XgpuBuffer dst, XgpuDeviceSize dst_offset,
                             XgpuDeviceSize size) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuQueueCopyBuffer");
  auto copy = reinterpret_cast<PFN_xgpuCmdCopyBuffer>(commands_get_proc_addr("xgpuCmdCopyBuffer"));
  if (!copy)
    return device_fail(device, XGPU_ERROR_FEATURE_NOT_PRESENT, msgid::kUnsupported,
                       "xgpuQueueCopyBuffer: xgpuCmdCopyBuffer is not available in this build");
  // This command's rules, checked here so that the internal xgpuCmdCopyBuffer
  // records without error.
  const auto* source = from_handle<Buffer>(src);
  const auto* destination = from_handle<Buffer>(dst);
  if (!source)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_srcBuffer_parameter,
                       "xgpuQueueCopyBuffer: srcBuffer is XGPU_NULL_HANDLE");
  if (!destination)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_dstBuffer_parameter,
                       "xgpuQueueCopyBuffer: dstBuffer is XGPU_NULL_HANDLE");
  if (!device_handle_live(device, src, vuid::xgpuQueueCopyBuffer_srcBuffer_parameter,
                          "xgpuQueueCopyBuffer: srcBuffer") ||
      !device_handle_live(device, dst, vuid::xgpuQueueCopyBuffer_dstBuffer_parameter,
                          "xgpuQueueCopyBuffer: dstBuffer"))
    return XGPU_ERROR_INVALID_ARGUMENT;
  if (size == 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_size,
                       "xgpuQueueCopyBuffer: size is 0 (must be at least 1)");
  if (size > source->size || src_offset > source->size - size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_srcRange,
                       "xgpuQueueCopyBuffer: srcOffset (" + std::to_string(src_offset) + ") + size (" +
                           std::to_string(size) + ") exceeds the size of srcBuffer (" + std::to_string(source->size) +
                           " bytes)");
  if (size > destination->size || dst_offset > destination->size - size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_dstRange,
                       "xgpuQueueCopyBuffer: dstOffset (" + std::to_string(dst_offset) + ") + size (" +
                           std::to_string(size) + ") exceeds the size of dstBuffer (" +
                           std::to_string(destination->size) + " bytes)");
  if (source == destination && src_offset < dst_offset + size && dst_offset < src_offset + size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuQueueCopyBuffer_overlap,
                       "xgpuQueueCopyBuffer: srcBuffer is dstBuffer and the ranges at srcOffset " +
                           std::to_string(src_offset) + " and dstOffset " + std::to_string(dst_offset) + " of " +
                           std::to_string(size) + " bytes overlap");
  if ((source->usage & kTransferSrc) != kTransferSrc)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueCopyBuffer_srcBuffer_usage,
                       "xgpuQueueCopyBuffer: srcBuffer was not created with XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT");
  if ((destination->usage & kTransferDst) != kTransferDst)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueCopyBuffer_dstBuffer_usage,
                       "xgpuQueueCopyBuffer: dstBuffer was not created with XGPU_BUFFER_USAGE_TRANSFER_DST_BIT");
  return submit_internal(queue, "xgpuQueueCopyBuffer", vuid::xgpuQueueCopyBuffer_semaphores, kQueueCopyBufferWaits, waits, kQueueCopyBufferSignals, signals,
                         [&](XgpuCommandBuffer command_buffer) {
                           const XgpuBufferRef src_ref = xgpuBufferRefRange(src, src_offset, size);
                           const XgpuBufferRef dst_ref = xgpuBufferRefRange(dst, dst_offset, size);
                           copy(command_buffer, &src_ref, &dst_ref, size);
                         });
}

XgpuResult queue_test_inject_fault(XgpuQueue handle, const XgpuSemaphoreList* signals) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  Device* device = queue->device;
  if (device->lost) return device_fail_lost(device, "xgpuAmdgpuTestInjectQueueFault");
  auto s = std::make_unique<Submission>();
  s->queue = queue;
  s->kind = SubmissionKind::kTestFault;
  XgpuResult result = copy_semaphore_list(device, kTestFaultSignals, kNotASubmit, signals, &s->signals);
  if (result == XGPU_SUCCESS)
    result = accept_signal_values(device, s.get(), "xgpuAmdgpuTestInjectQueueFault", msgid::kTestHook, kNotASubmit);
  if (result != XGPU_SUCCESS) return result;
  queue_accept(queue, s.release());
  return XGPU_SUCCESS;
}

XgpuResult queue_wait_idle(XgpuQueue handle) {
  auto* queue = reinterpret_cast<Queue*>(handle);
  if (!queue) return XGPU_ERROR_INVALID_ARGUMENT;
  TraceHostCall trace_call(queue->device, "xgpuQueueWaitIdle", nullptr, nullptr, 0, false);
  XgpuResult result = queue_wait_idle_internal(queue, UINT64_MAX);
  if (result != XGPU_SUCCESS) return result;
  return queue->device->lost ? XGPU_ERROR_DEVICE_LOST : XGPU_SUCCESS;
}

}  // namespace xgpu::amdgpu
