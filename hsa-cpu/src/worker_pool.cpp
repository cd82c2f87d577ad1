#include "worker_pool.h"

#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <new>

#include "fault.h"
#include "fiber.h"
#include "runtime.h"
#include "signal.h"

namespace hsa_cpu {

namespace {

// A thread's context lives behind a pthread key, not in a thread_local
// object: glibc aborts the process when it cannot register a thread_local's
// destructor (host memory exhausted), where a key fails softly. The key goes
// when the runtime is unloaded.
struct Owner {
  WorkerContext context;
  // Host memory running out leaves the context not ready (its thread
  // runs no kernel code) rather than throwing.
  Owner() {
    context.group_segment =
        std::aligned_alloc(XGPU_HOST_GROUP_SEGMENT_ALIGNMENT, kGroupSegmentMaxBytes);
    try {
      context.fibers = new FiberRunner();
    } catch (const std::exception&) {
      context.fibers = nullptr;
    }
    context.guard = prepare_kernel_thread();
    context.ready = context.group_segment != nullptr && context.fibers != nullptr && context.guard != nullptr;
  }
  ~Owner() {
    release_kernel_thread();
    std::free(context.group_segment);
    delete context.fibers;
  }
};

struct OwnerKey {
  pthread_key_t key{};
  bool valid = false;
  OwnerKey() { valid = pthread_key_create(&key, [](void* p) { delete static_cast<Owner*>(p); }) == 0; }
  ~OwnerKey() {
    if (valid) pthread_key_delete(key);
  }
};
OwnerKey g_owner_key;
// Static TLS (initial-exec): dynamic TLS of a dlopen()ed library is
// allocated on a thread's first use, and glibc ends the process when that
// allocation fails (host memory exhausted).
__attribute__((tls_model("initial-exec"))) thread_local Owner* t_owner = nullptr;

}  // namespace

WorkerContext& WorkerContext::current() {
  // Returned when no context can be made: not ready, runs no kernel code.
  static WorkerContext unavailable{nullptr, nullptr, nullptr, false};
  if (t_owner != nullptr) return t_owner->context;
  if (!g_owner_key.valid) return unavailable;
  auto* owner = new (std::nothrow) Owner();
  if (owner == nullptr) return unavailable;
  if (pthread_setspecific(g_owner_key.key, owner) != 0) {
    delete owner;
    return unavailable;
  }
  t_owner = owner;
  return owner->context;
}

// A thread that cannot start (no memory for its stack or its state, a
// thread limit) leaves the pool smaller: with none, submitters run their
// jobs themselves. (std::thread throws std::system_error when the thread
// cannot start, std::bad_alloc when its state cannot be allocated; an
// exception out of here would unwind past the threads already started.)
WorkerPool::WorkerPool(uint32_t worker_count) {
  threads_.reserve(worker_count);
  for (uint32_t i = 0; i < worker_count; ++i) {
    try {
      threads_.emplace_back([this] { worker_main(); });
    } catch (const std::exception& e) {
      log("starting worker thread %u of %u failed (%s): the pool has %u", i + 1, worker_count, e.what(), i);
      break;
    }
    pthread_setname_np(threads_.back().native_handle(), "hsa-cpu-worker");
  }
}

// Workers finish every published job before they exit, so completion
// signals of copies submitted just before hsa_shut_down still fire.
WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&epoch_, INT32_MAX);
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::release(Job* job) {
  if (job->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete job;
}

void WorkerPool::drain(Job* job, WorkerContext& context) {
  const uint32_t count = job->item_count_;
  const uint32_t batch = job->batch_;
  for (;;) {
    const uint32_t first = job->next_item_.fetch_add(batch, std::memory_order_relaxed);
    if (first >= count) return;
    const uint32_t last = first + batch < count ? first + batch : count;
    job->run_items(first, last, context);
    const uint32_t ran = last - first;
    if (job->items_done_.fetch_add(ran, std::memory_order_acq_rel) + ran == count) {
      job->finish();
      release(job);  // the completion's reference
    }
  }
}

void WorkerPool::run_inline(Job* job) {
  drain(job, WorkerContext::current());
}

void WorkerPool::unlist(Job* job) {
  if (!job->listed_) return;
  job->listed_ = false;
  if (job->prev_) job->prev_->next_ = job->next_; else head_ = job->next_;
  if (job->next_) job->next_->prev_ = job->prev_; else tail_ = job->prev_;
  job->prev_ = job->next_ = nullptr;
  listed_jobs_.fetch_sub(1, std::memory_order_relaxed);
  release(job);  // the list's reference
}

void WorkerPool::submit(Job* job, bool help) {
  const uint32_t workers = worker_count() - failed_workers_.load(std::memory_order_relaxed);
  const uint32_t count = job->item_count_;
  // Enough batches for every thread to get several (load balance), few
  // enough that tiny items do not all contend on one counter.
  const uint32_t target_batches = (workers + 1) * 8;
  const uint32_t batch = count / target_batches > 1 ? count / target_batches : 1;
  job->batch_ = batch;
  if (workers == 0) {
    run_inline(job);
    return;
  }
  job->refs_.fetch_add(help ? 2 : 1, std::memory_order_relaxed);  // list (+ helper)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job->listed_ = true;
    job->prev_ = tail_;
    job->next_ = nullptr;
    if (tail_) tail_->next_ = job; else head_ = job;
    tail_ = job;
    listed_jobs_.fetch_add(1, std::memory_order_relaxed);
  }
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  const uint32_t sleepers = sleepers_.load(std::memory_order_seq_cst);
  if (sleepers != 0) {
    // (`batch`, not job->batch_: without `help` the job may already have
    // run to completion and been deleted by the workers.)
    uint32_t wanted = (count + batch - 1) / batch;
    if (help && wanted > 0) --wanted;
    if (wanted > sleepers) wanted = sleepers;
    if (wanted > 0) futex_wake(&epoch_, int(wanted));
  }
  if (help) {
    drain(job, WorkerContext::current());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      unlist(job);
    }
    release(job);  // the helper's reference
  }
}

void WorkerPool::worker_main() {
  WorkerContext& context = WorkerContext::current();
  if (!context.ready) {
    // No memory for what a kernel needs: this worker takes no jobs (the
    // others, and submitters that help, run them).
    failed_workers_.fetch_add(1, std::memory_order_relaxed);
    log("a worker thread could not allocate its kernel context: it takes no jobs");
    return;
  }
  for (;;) {
    // Poll briefly so back-to-back dispatches do not pay a futex round trip,
    // then sleep until a submit bumps the epoch.
    if (listed_jobs_.load(std::memory_order_acquire) == 0) {
      const uint64_t start = now_ns();
      // Yields at every clock read past the first microseconds: a woken
      // thread (the queue processor that publishes the next job) may be
      // queued on this very CPU.
      SpinPacer pacer(start, start + kWorkerSpinNs, /*yield_interval_ns=*/0);
      while (listed_jobs_.load(std::memory_order_acquire) == 0 && pacer.step()) {
      }
    }
    Job* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Skip jobs whose items are all claimed; drop them from the list.
      while (head_ != nullptr &&
             head_->next_item_.load(std::memory_order_relaxed) >= head_->item_count_)
        unlist(head_);
      if (stop_ && head_ == nullptr) return;  // published work still completes
      if (head_ != nullptr) {
        job = head_;
        job->refs_.fetch_add(1, std::memory_order_relaxed);
      }
    }
    if (job == nullptr) {
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      const uint32_t epoch = epoch_.load(std::memory_order_seq_cst);
      if (listed_jobs_.load(std::memory_order_seq_cst) == 0) {
        bool stopping;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          stopping = stop_;
        }
        if (!stopping) futex_wait(&epoch_, epoch, UINT64_MAX);
      }
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      continue;
    }
    drain(job, context);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      unlist(job);
    }
    release(job);
  }
}

}  // namespace hsa_cpu

