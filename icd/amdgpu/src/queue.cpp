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

// Queue lifetime, idle waits, failing everything pending, and the
// watchdog's query.

namespace xgpu::amdgpu {
using namespace queue_impl;

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

}  // namespace xgpu::amdgpu
