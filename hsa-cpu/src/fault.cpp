#include "fault.h"

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define HSA_CPU_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#include <sanitizer/tsan_interface.h>
#define HSA_CPU_TSAN 1
#endif
#endif

namespace hsa_cpu {
namespace {

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr size_t kFaultSignalCount = sizeof(kFaultSignals) / sizeof(kFaultSignals[0]);

// Bytes of the alternate signal stack of a kernel thread: the handler needs
// little, but a previous handler it chains to (a sanitizer's report, an
// application's crash handler) may need more.
constexpr size_t kAltStackBytes = 64 * 1024;

// The largest user-space address of x86-64 with 4-level paging; a fault
// beyond it (or on a non-canonical address, reported as SI_KERNEL with no
// address) is an aperture violation.
constexpr uint64_t kUserAddressLimit = uint64_t(1) << 47;

// x86 page-fault error code bits (uc_mcontext.gregs[REG_ERR]).
constexpr uint64_t kPageFaultWrite = 1u << 1;    // the access was a write
constexpr uint64_t kPageFaultFetch = 1u << 4;    // instruction fetch

// The guard of the calling thread, read by the handler. initial-exec TLS: a
// plain %fs-relative load in the handler (general-dynamic TLS could call
// __tls_get_addr, which may allocate).
__attribute__((tls_model("initial-exec"))) thread_local KernelGuard* t_guard = nullptr;

// The calling thread's alternate stack when hsa-cpu installed it.
// Static TLS (initial-exec): dynamic TLS of a dlopen()ed library is
// allocated on a thread's first use, and glibc ends the process when that
// allocation fails (host memory exhausted).
__attribute__((tls_model("initial-exec"))) thread_local void* t_altstack = nullptr;

struct sigaction g_previous[kFaultSignalCount];  // handlers before ours
struct sigaction g_previous_cancel;              // the cancel signal's handler before ours
bool g_installed = false;                        // init mutex held
std::atomic<bool> g_cancel_installed{false};     // the cancel handler is ours

// Threads that run kernel code, for cancel_kernels. Never destroyed: a
// thread may release its guard during static destruction.
struct KernelThread {
  pthread_t thread;    // the thread (alive while listed)
  KernelGuard* guard;  // its guard
};
std::mutex& kernel_threads_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}
std::vector<KernelThread>& kernel_threads() {
  static auto* threads = new std::vector<KernelThread>();
  return *threads;
}

size_t signal_index(int sig) {
  for (size_t i = 0; i < kFaultSignalCount; ++i)
    if (kFaultSignals[i] == sig) return i;
  return 0;
}

// What the signal's disposition was before hsa-cpu: call that handler, or
// apply the default action (a fault raised by an instruction recurs when
// the instruction re-executes; a signal sent by someone is raised again).
void chain_to(const struct sigaction& previous, int sig, siginfo_t* info, void* ucontext) {
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (previous.sa_handler == SIG_IGN && info->si_code <= 0) return;  // sent and ignored
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, nullptr);
    if (info->si_code <= 0) raise(sig);
    return;
  }
  previous.sa_handler(sig);
}

void chain(int sig, siginfo_t* info, void* ucontext) { chain_to(g_previous[signal_index(sig)], sig, info, ucontext); }

// Leaves the kernel: the guard's frame returns false from run_guarded.
[[noreturn]] void leave_kernel(KernelGuard* guard) {
#if defined(HSA_CPU_TSAN)
  // A fiber-mode work item faulted: TSan must be on the fiber whose
  // _setjmp it recorded, or its longjmp interceptor finds no buffer.
  if (void* home = guard->tsan_home_fiber) {
    guard->tsan_home_fiber = nullptr;
    __tsan_switch_to_fiber(home, 0);
  }
#endif
  longjmp(guard->env, 1);
}

void on_fault(int sig, siginfo_t* info, void* ucontext) {
  KernelGuard* guard = t_guard;
  // Only a fault the CPU raised (si_code > 0) on a thread inside kernel code.
  if (guard != nullptr && guard->armed && info != nullptr && info->si_code > 0) {
    guard->armed = 0;
    const auto* uc = static_cast<const ucontext_t*>(ucontext);
    guard->fault.signal = sig;
    guard->fault.code = info->si_code;
    guard->fault.address = reinterpret_cast<uint64_t>(info->si_addr);
    guard->fault.pc = uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
    guard->fault.error_code = sig == SIGSEGV ? uint64_t(uc->uc_mcontext.gregs[REG_ERR]) : 0;
    leave_kernel(guard);
  }
  chain(sig, info, ucontext);
}

// The cancel signal: preempts kernel code whose queue's abort flag is set.
void on_cancel(int sig, siginfo_t* info, void* ucontext) {
  KernelGuard* guard = t_guard;
  if (guard != nullptr && guard->armed) {
    const std::atomic<bool>* flag = guard->cancel.load(std::memory_order_relaxed);
    if (flag != nullptr && flag->load(std::memory_order_relaxed)) {
      guard->armed = 0;
      const auto* uc = static_cast<const ucontext_t*>(ucontext);
      guard->fault = KernelFault{};
      guard->fault.signal = sig;
      guard->fault.pc = uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
      leave_kernel(guard);
    }
  }
  // Sent by cancel_kernels and arrived once the kernel had ended: nothing to do.
  if (info != nullptr && info->si_code == SI_TKILL && info->si_pid == getpid()) return;
  chain_to(g_previous_cancel, sig, info, ucontext);
}

}  // namespace

void install_fault_handlers() {
  if (g_installed) return;
  struct sigaction action {};
  action.sa_sigaction = &on_fault;
  // SA_NODEFER + empty mask: the mask inside the handler is the interrupted
  // code's, so the longjmp leaves it unchanged (see fault.h).
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < kFaultSignalCount; ++i) sigaction(kFaultSignals[i], &action, &g_previous[i]);
  // The cancel signal may interrupt the runtime's own waits (a thread that
  // just left its kernel): SA_RESTART resumes them.
  struct sigaction cancel {};
  cancel.sa_sigaction = &on_cancel;
  cancel.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
  sigemptyset(&cancel.sa_mask);
  g_cancel_installed.store(sigaction(cancel_signal(), &cancel, &g_previous_cancel) == 0, std::memory_order_release);
  g_installed = true;
}

void uninstall_fault_handlers() {
  if (!g_installed) return;
  for (size_t i = 0; i < kFaultSignalCount; ++i) {
    struct sigaction current {};
    sigaction(kFaultSignals[i], nullptr, &current);
    // Someone installed a handler after us: theirs stays.
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &on_fault)
      sigaction(kFaultSignals[i], &g_previous[i], nullptr);
  }
  if (g_cancel_installed.exchange(false, std::memory_order_acq_rel)) {
    struct sigaction current {};
    sigaction(cancel_signal(), nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &on_cancel)
      sigaction(cancel_signal(), &g_previous_cancel, nullptr);
  }
  g_installed = false;
}

int cancel_signal() { return SIGRTMAX - 2; }

void cancel_kernels(const std::atomic<bool>* flag) {
  if (!g_cancel_installed.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(kernel_threads_mutex());
  for (const KernelThread& entry : kernel_threads()) {
    if (entry.guard->cancel.load(std::memory_order_seq_cst) == flag) pthread_kill(entry.thread, cancel_signal());
  }
}

KernelGuard* prepare_kernel_thread() {
  if (t_guard != nullptr) return t_guard;
  stack_t current {};
  if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* base = mmap(nullptr, kAltStackBytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED) {
      mprotect(base, page, PROT_NONE);  // guard page below the stack
      stack_t stack {};
      stack.ss_sp = static_cast<char*>(base) + page;
      stack.ss_size = kAltStackBytes;
      stack.ss_flags = 0;
      if (sigaltstack(&stack, nullptr) == 0) {
        t_altstack = base;
      } else {
        munmap(base, kAltStackBytes + page);
        log("sigaltstack failed: %s; a kernel overflowing its stack will not be contained", strerror(errno));
      }
    }
  }
  auto* guard = new (std::nothrow) KernelGuard();
  if (guard == nullptr) return nullptr;
  guard->armed = 0;
  guard->tsan_home_fiber = nullptr;
  guard->cancel.store(nullptr, std::memory_order_relaxed);
  try {
    std::lock_guard<std::mutex> lock(kernel_threads_mutex());
    kernel_threads().push_back({pthread_self(), guard});
  } catch (const std::exception&) {
    delete guard;
    return nullptr;
  }
  t_guard = guard;
  return guard;
}

KernelGuard* current_kernel_guard() { return t_guard; }

void release_kernel_thread() {
  KernelGuard* guard = t_guard;
  if (guard != nullptr) {
    std::lock_guard<std::mutex> lock(kernel_threads_mutex());
    std::vector<KernelThread>& threads = kernel_threads();
    for (size_t i = 0; i < threads.size(); ++i) {
      if (threads[i].guard == guard) {
        threads[i] = threads.back();
        threads.pop_back();
        break;
      }
    }
  }
  t_guard = nullptr;
  delete guard;
  if (t_altstack != nullptr) {
    stack_t disable {};
    disable.ss_flags = SS_DISABLE;
    sigaltstack(&disable, nullptr);
    munmap(t_altstack, kAltStackBytes + size_t(sysconf(_SC_PAGESIZE)));
    t_altstack = nullptr;
  }
}

void after_contained_fault() {
#if defined(HSA_CPU_ASAN)
  // The abandoned kernel frames below this one keep their redzones
  // poisoned; a later call reusing that stack would be reported. (ASan's
  // longjmp interceptor ran on the signal stack.)
  __asan_handle_no_return();
#endif
}

hsa_status_t fault_status(const KernelFault& fault) {
  switch (fault.signal) {
    case SIGSEGV:
      if (fault.code == SI_KERNEL || fault.address >= kUserAddressLimit)
        return static_cast<hsa_status_t>(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
      return static_cast<hsa_status_t>(HSA_STATUS_ERROR_MEMORY_FAULT);
    case SIGBUS: return static_cast<hsa_status_t>(HSA_STATUS_ERROR_MEMORY_FAULT);
    case SIGILL: return static_cast<hsa_status_t>(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
    default: return HSA_STATUS_ERROR_EXCEPTION;  // SIGFPE: an arithmetic exception
  }
}

uint32_t fault_reason_mask(const KernelFault& fault) {
  if (fault.signal == SIGSEGV && fault.code == SI_KERNEL) return HSA_AMD_MEMORY_FAULT_IMPRECISE;
  // (A page never touched is not present yet; the access is still refused
  // by its protection, SEGV_ACCERR, and the error code says how.)
  if (fault.signal == SIGSEGV && fault.code == SEGV_ACCERR) {
    if (fault.error_code & kPageFaultWrite) return HSA_AMD_MEMORY_FAULT_READ_ONLY;
    if (fault.error_code & kPageFaultFetch) return HSA_AMD_MEMORY_FAULT_NX;
  }
  return HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT;
}

hsa_cpu_fault_access_t fault_access(const KernelFault& fault) {
  if (fault.signal != SIGSEGV) return HSA_CPU_FAULT_ACCESS_UNKNOWN;
  // Page faults only: a general protection fault (SI_KERNEL, a non-canonical
  // address) has no page-fault error code.
  bool page_fault = fault.code == SEGV_MAPERR || fault.code == SEGV_ACCERR;
#if defined(SEGV_PKUERR)
  page_fault = page_fault || fault.code == SEGV_PKUERR;
#endif
  if (!page_fault) return HSA_CPU_FAULT_ACCESS_UNKNOWN;
  if (fault.error_code & kPageFaultFetch) return HSA_CPU_FAULT_ACCESS_EXECUTE;
  if (fault.error_code & kPageFaultWrite) return HSA_CPU_FAULT_ACCESS_WRITE;
  return HSA_CPU_FAULT_ACCESS_READ;
}

const char* fault_description(const KernelFault& fault) {
  switch (fault.signal) {
    case SIGSEGV:
      if (fault.code == SI_KERNEL) return "SIGSEGV (general protection: a non-canonical address)";
      if (fault.code == SEGV_ACCERR) return "SIGSEGV (access not permitted)";
      return "SIGSEGV (address not mapped)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return fault.code == FPE_INTDIV ? "SIGFPE (integer divide by zero)" : "SIGFPE (arithmetic exception)";
    default: return "fault";
  }
}

}  // namespace hsa_cpu
