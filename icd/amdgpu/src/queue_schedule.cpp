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

// Scheduling and holds: issuing pending submissions in order (waits,
// cross-queue dependencies, ring room, streaming) and waking held ones.

namespace xgpu::amdgpu {
namespace queue_impl {
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
        const bool needs_handler = semaphore_announce_signal(signal.semaphore, signal.value, s);
        ++announced;
        if (needs_handler) watch_now = true;
      }
    } catch (const std::bad_alloc&) {
      // Host memory ran out half-way: none of its signals is announced, and
      // the submission fails (its packets still complete, so the ring stays
      // consistent; its semaphores fail at its completion).
      for (size_t i = 0; i < announced; ++i)
        semaphore_withdraw_signal(s->signals[i].semaphore, s->signals[i].value, s);
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
  bool announced = false;  // an issued submission announced signals (semaphore_announce_signal)
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
      // The first issued signaller of a payload not reached yet (under its
      // semaphore's lock): true when this submission is ordered after it.
      auto order_after = [&](Submission* signaller) {
        if (!reads_memory) {
          if (signaller->queue == queue) return true;  // in order on this queue
          if (signaller->queue->device == queue->device) {
            completion_signal_retain(signaller->completion);
            dependencies.push_back(signaller->completion);
            return true;
          }
        }
        // Another device, or counts read at issue: hold, released by the
        // retirement of the issued signaller.
        add_unwatched(signaller, &watch);
        return false;
      };
      for (const SemaphoreValue& wait : s->waits) {
        XgpuResult failure = XGPU_SUCCESS;
        const SemaphoreWaitState state =
            semaphore_resolve_wait(wait.semaphore, wait.value, signaller_callback(order_after), &failure);
        if (state == SemaphoreWaitState::kFailed) {
          if (wait_status == XGPU_SUCCESS) wait_status = failure;
          // A dealloca still returns its memory once every other wait is
          // reached or failed: keep looking at the rest.
          if (s->kind == SubmissionKind::kDealloca) continue;
          break;
        }
        if (state == SemaphoreWaitState::kHeld) {
          // Wait-before-signal, another device, or a host signal: hold
          // (semaphore_resolve_wait says what releases it).
          ready = false;
          break;
        }
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
        auto hold = [&](Submission* signaller) {
          add_unwatched(signaller, &watch);
          return true;
        };
        for (const SemaphoreValue& wait : s->waits)
          semaphore_for_each_signaller(wait.semaphore, wait.value, signaller_callback(hold));
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
}  // namespace queue_impl

using namespace queue_impl;

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

}  // namespace xgpu::amdgpu
