// hsa-cpu worker pool: one thread per core running the items of Jobs (the
// workgroups of a kernel dispatch, the chunks of a copy or fill).
//
// A Job is published to a short list shared by all queues of all agents;
// idle workers take the oldest job that still has unclaimed items and claim
// items in batches with one atomic add. The thread that finishes the last
// item calls Job::finish(). The submitter may help run its own job.
//
// Threading: submit() is thread-safe. A Job's items run concurrently on any
// threads; finish() runs once, on whichever thread completed the last item.
#ifndef HSA_CPU_WORKER_POOL_H_
#define HSA_CPU_WORKER_POOL_H_

#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <xgpu/host_kernel.h>

#include "common.h"

namespace hsa_cpu {

class FiberRunner;
struct KernelGuard;

// Per-thread resources a job item may use. One per thread that runs items
// (workers and queue processors); created on first use, never shared.
struct WorkerContext {
  void* group_segment;            // kGroupSegmentMaxBytes, 64-byte aligned
  FiberRunner* fibers;            // fiber-mode runner (stacks pooled)
  KernelGuard* guard;             // contains faults of kernel code (fault.h)
  bool ready;                     // all three exist (false: host memory ran
                                  // out; the thread must run no kernel code)
  static WorkerContext& current();  // this thread's context
};

class Job {
 public:
  explicit Job(uint32_t item_count) : item_count_(item_count) {}
  virtual ~Job() = default;
  // Runs item `index` (0 <= index < item_count).
  virtual void run_item(uint32_t index, WorkerContext& context) = 0;
  // Runs items first .. last - 1 (a claimed batch), in any order; a job
  // whose items are cheaper run together overrides it.
  virtual void run_items(uint32_t first, uint32_t last, WorkerContext& context) {
    for (uint32_t i = first; i < last; ++i) run_item(i, context);
  }
  // Called once after every item ran, on the thread that ran the last one.
  virtual void finish() = 0;

  uint32_t item_count() const { return item_count_; }

 private:
  friend class WorkerPool;
  const uint32_t item_count_;            // items in the job
  uint32_t batch_ = 1;                   // items claimed per atomic add
  std::atomic<uint32_t> next_item_{0};   // first unclaimed item
  std::atomic<uint32_t> items_done_{0};  // items completed
  std::atomic<uint32_t> refs_{1};        // owners: the job's completion +
                                         // each thread currently running it
  Job* prev_ = nullptr;                  // pool list links (pool mutex)
  Job* next_ = nullptr;
  bool listed_ = false;                  // in the pool list (pool mutex)
};

class WorkerPool {
 public:
  explicit WorkerPool(uint32_t worker_count);
  ~WorkerPool();  // joins workers; no job may be pending

  uint32_t worker_count() const { return uint32_t(threads_.size()); }

  // Publishes `job` (ownership passes to the pool; it is deleted after
  // finish()). With `help`, the calling thread runs items of the job until
  // none is left unclaimed before returning.
  void submit(Job* job, bool help);

  // Runs a whole job on the calling thread (no publication, no wake-ups).
  static void run_inline(Job* job);

 private:
  void worker_main();
  // Claims and runs items of `job` until none are left; true if this call
  // completed the job's last item (finish() already called).
  static void drain(Job* job, WorkerContext& context);
  void unlist(Job* job);       // pool mutex held
  static void release(Job* job);

  std::vector<std::thread> threads_;
  std::mutex mutex_;                      // guards the list and stop_
  Job* head_ = nullptr;                   // oldest listed job
  Job* tail_ = nullptr;                   // newest listed job
  bool stop_ = false;
  std::atomic<uint32_t> listed_jobs_{0};  // jobs in the list (lock-free peek)
  std::atomic<uint32_t> epoch_{0};        // futex word bumped per submit
  std::atomic<uint32_t> sleepers_{0};     // workers in futex_wait on epoch_
  std::atomic<uint32_t> failed_workers_{0};  // workers whose context could not be made (they exited)
};

// Nanoseconds an idle worker polls for new jobs before sleeping.
inline constexpr uint64_t kWorkerSpinNs = 20000;

}  // namespace hsa_cpu

#endif  // HSA_CPU_WORKER_POOL_H_
