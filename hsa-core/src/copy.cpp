// hsa_amd_memory_async_copy and the copy profiling entry points (copy.h).
#include "hsa_core/copy.h"

#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <memory>
#include <new>
#include <vector>

#include "hsa_core/backend.h"
#include "hsa_core/platform.h"
#include "hsa_core/signal.h"

namespace hsa_core {
namespace {

std::atomic<bool> g_profiling{false};  // hsa_amd_profiling_async_copy_enable

// One copy waiting for its dependencies (in order), then for its bytes.
struct PendingCopy {
  void* dst;
  hsa_agent_t dst_agent;
  const void* src;
  hsa_agent_t src_agent;
  size_t size;
  std::vector<Signal*> deps;
  Signal* completion;
  uint64_t start_ns = 0;  // profiling: when the bytes started moving (0: off)
};

void complete(Signal* completion, uint64_t start_ns) {
  std::atomic_thread_fence(std::memory_order_release);
  if (start_ns != 0) {
    completion->amd.start_ts = start_ns;
    completion->amd.end_ts = now_ns();
  }
  completion->subtract_release(1);
}

// Every dependency met (value 0): the bytes move.
void start(std::unique_ptr<PendingCopy> copy) {
  if (g_profiling.load(std::memory_order_relaxed)) copy->start_ns = now_ns();
  if (copy->size == 0) {
    complete(copy->completion, copy->start_ns);
    return;
  }
  PendingCopy* raw = copy.release();  // copy_done takes it back
  backend().copy(raw->dst, raw->dst_agent, raw->src, raw->src_agent, raw->size, raw);
}

// A dependency carries an error value: the copy is skipped, the completion
// signal takes the value.
void fail(const PendingCopy& copy, size_t index, int64_t value) {
  log("async copy: dependency %zu carries error value %lld; copy skipped", index, static_cast<long long>(value));
  copy.completion->store_release(value);
}

// Waits (on the handler thread) for deps[index..] in order, then starts.
void continue_copy(std::shared_ptr<std::unique_ptr<PendingCopy>> copy, size_t index) {
  PendingCopy& c = **copy;
  while (index < c.deps.size() && c.deps[index]->load_acquire() == 0) ++index;
  if (index == c.deps.size()) {
    start(std::move(*copy));
    return;
  }
  const int64_t v = c.deps[index]->load_acquire();
  if (v < 0) {
    fail(c, index, v);
    return;
  }
  async_handler_thread()->add(c.deps[index], HSA_SIGNAL_CONDITION_LT, 1, [copy, index](int64_t value) {
    if (value < 0)
      fail(**copy, index, value);
    else
      continue_copy(copy, index + 1);
    return false;
  });
}

}  // namespace

void copy_done(void* context, bool ok) {
  std::unique_ptr<PendingCopy> copy(static_cast<PendingCopy*>(context));
  if (ok)
    complete(copy->completion, copy->start_ns);
  else
    copy->completion->store_release(-1);
}

}  // namespace hsa_core

using hsa_core::backend;

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                                       size_t size, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                       hsa_signal_t completion_signal) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(dst_agent) || !backend().agent_known(src_agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if ((size != 0 && (dst == nullptr || src == nullptr)) || (num_dep_signals != 0 && dep_signals == nullptr) ||
      completion_signal.handle == 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!hsa_core::signal_is_live(completion_signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  for (uint32_t i = 0; i < num_dep_signals; ++i)
    if (!hsa_core::signal_is_live(dep_signals[i])) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (backend().copy == nullptr) {
    hsa_core::log("hsa_amd_memory_async_copy: this runtime has no asynchronous copy");
    return HSA_STATUS_ERROR;
  }
  try {
    auto copy = std::make_unique<hsa_core::PendingCopy>();
    copy->dst = dst;
    copy->dst_agent = dst_agent;
    copy->src = src;
    copy->src_agent = src_agent;
    copy->size = size;
    copy->completion = hsa_core::to_signal(completion_signal);
    copy->deps.reserve(num_dep_signals);
    for (uint32_t i = 0; i < num_dep_signals; ++i) copy->deps.push_back(hsa_core::to_signal(dep_signals[i]));
    hsa_core::continue_copy(std::make_shared<std::unique_ptr<hsa_core::PendingCopy>>(std::move(copy)), 0);
  } catch (const std::bad_alloc&) {
    hsa_core::log("hsa_amd_memory_async_copy: out of host memory");
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_profiling_async_copy_enable(bool enable) {
  HSA_CORE_REQUIRE_INIT();
  hsa_core::g_profiling.store(enable, std::memory_order_relaxed);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_profiling_get_async_copy_time(hsa_signal_t signal, hsa_amd_profiling_async_copy_time_t* time) {
  HSA_CORE_REQUIRE_INIT();
  if (!hsa_core::signal_is_live(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_core::Signal* s = hsa_core::to_signal(signal);
  time->start = s->amd.start_ts;
  time->end = s->amd.end_ts;
  return HSA_STATUS_SUCCESS;
}
