#include "deadlock.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>

#include <pthread.h>

#include "../chassis/object_map.h"
#include "../hazards/warnings.h"
#include "../pending/pending_work.h"

namespace xgpu_validation {
namespace {

std::atomic<uint64_t> g_first_thread{0};  // the first thread that called in (0: none yet)
std::atomic<bool> g_many_threads{false};  // another thread called in since

// A thread that has exited can signal nothing, so a new thread given the
// same number standing for it changes no answer.
uint64_t ThisThread() { return CallingThread(); }

uint64_t H(const void* handle) { return reinterpret_cast<uintptr_t>(handle); }

}  // namespace

thread_local constinit bool t_calling_thread_noted __attribute__((tls_model("initial-exec"))) = false;

void NoteNewCallingThread() {
  t_calling_thread_noted = true;
  if (g_many_threads.load(std::memory_order_relaxed)) return;
  const uint64_t self = ThisThread();
  uint64_t first = g_first_thread.load(std::memory_order_relaxed);
  if (first == self) return;
  if (first == 0 && g_first_thread.compare_exchange_strong(first, self)) return;
  if (first != self) g_many_threads.store(true);
}

bool OnlyCallingThread() {
  return !g_many_threads.load() && g_first_thread.load() == ThisThread();
}

bool PendingWork::ValidateWaitSemaphores(CallContext& ctx, XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo,
                                         uint64_t timeout) const {
  if (timeout != UINT64_MAX || !Enabled(ctx) || !ctx.CanCallDown() || !OnlyCallingThread()) return false;
  if (!IsUsablePointer(pWaitInfo) || pWaitInfo->semaphoreCount == 0 || !IsUsablePointer(pWaitInfo->pSemaphores) ||
      !IsUsablePointer(pWaitInfo->pValues) || ctx.DeviceTable().GetSemaphoreValue == nullptr) {
    return false;
  }
  std::map<uint64_t, uint64_t> values;  // semaphore -> value it can reach
  auto value_of = [&](uint64_t semaphore, uint64_t* value) {
    auto it = values.find(semaphore);
    if (it != values.end()) {
      *value = it->second;
      return true;
    }
    uint64_t v = 0;
    // A semaphore that cannot be asked (failed, or of another device) may end the wait: nothing certain.
    if (ctx.DeviceTable().GetSemaphoreValue(device, reinterpret_cast<XgpuSemaphore>(semaphore), &v) != XGPU_SUCCESS) {
      return false;
    }
    values[semaphore] = v;
    *value = v;
    return true;
  };
  std::lock_guard lock(mutex_);
  // Which pending operations can still run, queue by queue in order.
  std::map<uint64_t, size_t> next;  // queue -> index of its first operation not known to run
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& [handle, q] : queues_) {
      size_t& n = next[handle];
      while (n < q.signalling.size()) {
        const Op& op = q.signalling[n];
        if (op.seq <= q.completed) {
          ++n;
          continue;
        }
        bool met = true;
        for (const auto& [semaphore, payload] : op.waits) {
          uint64_t v = 0;
          if (!value_of(semaphore, &v)) return false;
          met = met && v >= payload;
        }
        if (!met) break;
        for (const auto& [semaphore, payload] : op.signals) {
          uint64_t v = 0;
          if (!value_of(semaphore, &v)) return false;
          values[semaphore] = std::max(v, payload);
        }
        ++n;
        progress = true;
      }
    }
  }
  const bool any = (pWaitInfo->flags & XGPU_SEMAPHORE_WAIT_ANY_BIT) != 0;
  std::string unmet;
  uint32_t unmet_count = 0;
  std::vector<ObjectRef> objects;
  for (uint32_t k = 0; k < pWaitInfo->semaphoreCount; ++k) {
    const uint64_t semaphore = H(pWaitInfo->pSemaphores[k]);
    uint64_t v = 0;
    if (!value_of(semaphore, &v)) return false;
    if (v >= pWaitInfo->pValues[k]) {
      if (any) return false;
      continue;
    }
    ++unmet_count;
    const ObjectRecord* record = Objects().Find(XGPU_OBJECT_TYPE_SEMAPHORE, semaphore);
    if (!unmet.empty()) unmet += "; ";
    unmet += "pWaitInfo->pSemaphores[" + std::to_string(k) + "] (" + (record ? Describe(record) : "a semaphore") +
             ") waits for " + std::to_string(pWaitInfo->pValues[k]) + ", and nothing pending can take it above " +
             std::to_string(v);
    objects.push_back({XGPU_OBJECT_TYPE_SEMAPHORE, semaphore});
  }
  if (unmet_count == 0) return false;
  ReportWarning(ctx, Warning::kDeadlock,
                std::string("xgpuWaitSemaphores: a certain deadlock: timeout is UINT64_MAX and ") + unmet +
                    " (the operations that signal it are held, with their queue, by waits nothing can satisfy, or "
                    "there are none), and this thread is the only one that has called into xgpu, so no host "
                    "signal or later submission can come",
                objects);
  return false;
}

}  // namespace xgpu_validation
