// hsa-cpu fiber mode: runs the work items of one workgroup as Boost.Context
// fibers so that a kernel's barrier (wg->barrier) can switch between them.
//
// Stacks are mmap'd once per thread with a guard page below each and reused
// for every workgroup that thread runs; steady state allocates nothing.
//
// Threading: thread-compatible; each thread that runs workgroups owns one
// FiberRunner (WorkerContext::fibers).
#ifndef HSA_CPU_FIBER_H_
#define HSA_CPU_FIBER_H_

#include <cstddef>
#include <memory>
#include <vector>

#include <xgpu/host_kernel.h>

namespace hsa_cpu {

// clang's -fsanitize=function check off for one function (gcc has no such
// check, and warns about the attribute).
#if defined(__clang__)
#define HSA_CPU_NO_SANITIZE_FUNCTION __attribute__((no_sanitize("function")))
#else
#define HSA_CPU_NO_SANITIZE_FUNCTION
#endif

// Calls into kernel code: a host code object's entry points. Not checked by
// -fsanitize=function (the sanitized builds' UBSan): kernel code is not built
// with it, and the check reads a signature just before the callee's first
// byte, which for an entry at the start of its code object's text segment
// lies in the unmapped gap before it (a fault the runtime would take for the
// kernel's).
HSA_CPU_NO_SANITIZE_FUNCTION inline void call_kernel_workgroup(xgpu_host_run_workgroup_fn entry,
                                                                          const void* kernarg,
                                                                          xgpu_host_workgroup_t* wg) {
  entry(kernarg, wg);
}
HSA_CPU_NO_SANITIZE_FUNCTION inline void call_kernel_workitem(xgpu_host_run_workitem_fn entry,
                                                                         const void* kernarg, xgpu_host_workgroup_t* wg,
                                                                         const uint32_t local_id[3]) {
  entry(kernarg, wg, local_id);
}

// Stack of one work item when the descriptor asks for no private memory.
inline constexpr size_t kDefaultFiberStackBytes = XGPU_HOST_FIBER_STACK_MIN_BYTES;
// Stack the runtime's own frames need on top of the kernel's private size.
inline constexpr size_t kFiberStackOverheadBytes = XGPU_HOST_FIBER_STACK_RUNTIME_BYTES;

class FiberRunner {
 public:
  FiberRunner();
  ~FiberRunner();
  FiberRunner(const FiberRunner&) = delete;
  FiberRunner& operator=(const FiberRunner&) = delete;

  // Makes ready what run() needs for `wg` (wg->item_count items with at
  // least `private_bytes` of stack each): the stacks, the items' state.
  // Runtime code that allocates, so it runs before the thread arms its
  // KernelGuard: a cancel signal (fault.h) never lands in it, only in run().
  // False, with a log line, when host memory ran out (no fiber runs then).
  bool prepare(const xgpu_host_workgroup_t* wg, size_t private_bytes);

  // Runs every work item of `wg` as a fiber, on what prepare() made ready
  // for this workgroup (it allocates nothing). Items that finish while
  // others still wait at a barrier count as arrived (divergent barriers do
  // not hang).
  void run(const xgpu_host_kernel_descriptor_t* kernel, const void* kernarg,
           xgpu_host_workgroup_t* wg);

  // Forgets the workgroup a contained fault interrupted (see fault.h): its
  // fibers are dropped without being resumed or unwound (their records live
  // on the pooled stacks, so nothing leaks) and the runner is ready for the
  // next workgroup.
  void abandon();

  // Stack bytes a fiber gets for a kernel needing `private_bytes`.
  static size_t stack_bytes_for(size_t private_bytes);

 private:
  struct Item;
  struct Stacks;
  static void barrier(xgpu_host_workgroup_t* wg);
  bool ensure_stacks(size_t count, size_t stack_bytes);

  std::unique_ptr<Stacks> stacks_;   // pooled stacks (mmap)
  std::vector<Item>* items_;         // per work item state, reused
  Item* current_ = nullptr;          // item whose fiber runs now
  size_t prepared_ = 0;              // items prepare() made ready
  void* tsan_home_ = nullptr;        // TSan fiber of the scheduler (TSan builds)
};

}  // namespace hsa_cpu

#endif  // HSA_CPU_FIBER_H_
