// hsa-cpu kernel fault containment: a fault (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL) raised while a thread of the runtime runs kernel code ends that
// kernel instead of the process, as a GPU's memory fault ends a wavefront
// and fails its queue rather than the host.
//
// How: the runtime installs one handler for the four signals (on an
// alternate signal stack, so a stack overflow is contained too). A thread
// arms its KernelGuard around each call into kernel code (run_guarded). A
// fault on an armed thread records what happened in the guard and
// longjmp()s back to run_guarded, which returns false; the caller fails the
// dispatch and its queue. Anything else (a fault outside kernel code, on a
// thread that runs no kernel, or a signal sent with kill) goes to the
// handler that was installed before (or the default action, which kills the
// process as it would have without hsa-cpu).
//
// Why longjmp from the handler is safe enough here:
//  - The handler itself only reads a thread-local pointer (initial-exec TLS:
//    a plain %fs-relative load, no allocation), stores a few words into the
//    guard and calls longjmp. Logging, the queue's error callback and the
//    system event handler run later, in ordinary context.
//  - The jump target is a frame below the kernel call on the same thread,
//    still live; what is abandoned is only kernel frames (and in fiber mode
//    the workgroup's fiber stacks, which the runner resets without resuming
//    them). The runtime holds no lock while kernel code runs.
//  - The handler is installed with SA_NODEFER and an empty sa_mask, so the
//    signal mask in the handler is the one of the interrupted code; _setjmp
//    (no mask save) and longjmp therefore leave the mask as it was, without
//    a system call per workgroup.
//  - What cannot be made safe: a kernel that faults while holding a lock it
//    took itself (e.g. inside malloc) leaves it held. Kernels are expected to
//    be self-contained compute code; a GPU offers no more.
//
// Preemption: a dispatch abandoned while one of its workgroups runs (its
// queue inactivated or destroyed, or another workgroup faulted) must stop
// even when that workgroup never returns (an endless loop), or the thread
// running it - and hsa_shut_down, which joins it - would wait forever. A
// thread names, around each call into kernel code, the abort flag of the
// queue it runs for (KernelGuard::cancel); cancel_kernels(flag) sends the
// cancel signal (kCancelSignal) to each thread running kernel code under
// that flag, and the handler, finding the flag set and the guard armed,
// leaves the kernel exactly as a fault does (guard->fault.signal ==
// kCancelSignal). The same reasoning makes it as safe as a fault: the
// runtime holds no lock while kernel code runs, and only kernel frames are
// abandoned. The armed region is kernel code plus, in fiber mode, the
// fiber scheduler (FiberRunner::run), which allocates nothing and whose
// state abandon() resets; what allocates (FiberRunner::prepare) runs before
// arming, so the signal never interrupts the heap. A cancel signal that arrives after the thread left the kernel
// (or before it armed) finds the guard disarmed or the flag unset and is
// ignored. Under ThreadSanitizer, which delays asynchronous signals to its
// next interceptor, a kernel that calls none is not preempted.
//
// Threading: install/uninstall are called by hsa_init / the last
// hsa_shut_down (serialised). Each thread owns its guard.
#ifndef HSA_CPU_FAULT_H_
#define HSA_CPU_FAULT_H_

#include <setjmp.h>
#include <signal.h>

#include <atomic>
#include <cstdint>

#include "common.h"
#include "hsa_cpu_ext.h"

namespace hsa_cpu {

// What a contained fault was.
struct KernelFault {
  int signal = 0;          // SIGSEGV, SIGBUS, SIGFPE or SIGILL
  int code = 0;            // si_code (SEGV_MAPERR, FPE_INTDIV, ...)
  uint64_t address = 0;    // si_addr: the faulting data address (or pc)
  uint64_t pc = 0;         // instruction pointer of the faulting instruction
  uint64_t error_code = 0; // x86 page-fault error code (SIGSEGV), else 0
};

// One per thread that runs kernel code.
struct KernelGuard {
  jmp_buf env;                 // run_guarded's frame
  volatile sig_atomic_t armed; // non-zero while kernel code runs
  KernelFault fault;           // filled by the handler before the jump
  // ThreadSanitizer builds: the thread's own TSan fiber while a fiber-mode
  // work item runs (FiberRunner sets it), so the handler can switch TSan
  // back to the fiber that called _setjmp before it jumps there. Null
  // otherwise, and always null without TSan.
  void* volatile tsan_home_fiber;
  // The abort flag of the queue whose kernel this thread runs (set before
  // arming, cleared after): cancel_kernels finds the thread by it.
  std::atomic<const std::atomic<bool>*> cancel;
};

// The signal that preempts kernel code of an abandoned dispatch: a real-time
// signal, so a sender's tgkill is never merged with or mistaken for a fault.
int cancel_signal();

// Sends the cancel signal to every thread running kernel code under `flag`
// (which the caller has set). Thread-safe.
void cancel_kernels(const std::atomic<bool>* flag);

// Installs the handlers for the four signals, remembering the previous ones.
void install_fault_handlers();
// Restores the previous handlers where hsa-cpu's are still installed.
void uninstall_fault_handlers();

// Makes the calling thread ready to run kernel code: an alternate signal
// stack (unless it has one) and its guard. Undone by release_kernel_thread.
// Null when host memory ran out (the thread must then run no kernel code).
KernelGuard* prepare_kernel_thread();
void release_kernel_thread();
// The calling thread's guard (null when it runs no kernel code).
KernelGuard* current_kernel_guard();

// Work after landing from a fault (sanitizer bookkeeping for the abandoned
// frames). Ordinary context.
void after_contained_fault();

// Runs `body()` (kernel code) armed. True when it returned; false when a
// fault was contained (guard->fault says which).
template <typename Body>
__attribute__((noinline)) bool run_guarded(KernelGuard* guard, Body&& body) {
  if (_setjmp(guard->env) != 0) {
    guard->armed = 0;
    after_contained_fault();
    return false;
  }
  guard->armed = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  body();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  guard->armed = 0;
  return true;
}

// The status ROCR reports for this kind of fault: MEMORY_FAULT for an
// access to an inaccessible address, MEMORY_APERTURE_VIOLATION for one
// beyond the largest legal address, ILLEGAL_INSTRUCTION for SIGILL,
// EXCEPTION (a hardware exception in kernel code) for SIGFPE.
hsa_status_t fault_status(const KernelFault& fault);
// HSA_AMD_MEMORY_FAULT_* bits for the system event.
uint32_t fault_reason_mask(const KernelFault& fault);
// "SIGSEGV (address not mapped)", ...
const char* fault_description(const KernelFault& fault);
// How the faulting instruction accessed the address: a page fault's error
// code says (read, write, instruction fetch); UNKNOWN for anything else.
hsa_cpu_fault_access_t fault_access(const KernelFault& fault);

}  // namespace hsa_cpu

#endif  // HSA_CPU_FAULT_H_
