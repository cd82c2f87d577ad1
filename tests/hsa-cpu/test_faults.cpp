// hsa-cpu kernel faults: a kernel that faults (bad address, read-only page,
// non-canonical address, stack overflow, divide by zero, illegal
// instruction) fails its queue with ROCR's status, its completion signal is
// not decremented, the system event handler hears of memory faults, and the
// process, the host and other queues go on. A fault outside kernel code
// still kills the process (or reaches the handler installed before).
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

// The fault kernel's arguments and modes (kernels/test_kernels.c).
constexpr uint32_t kFaultRead = 0, kFaultWrite = 1, kFaultDivide = 2, kFaultIllegal = 3, kFaultStackOverflow = 4,
                   kFaultNone = 5;
struct FaultArgs {
  uint64_t address;
  uint32_t* ran;
  uint32_t mode;
  uint32_t faulting_group;
  uint32_t divisor;
  uint32_t depth;
};

// An address no mapping covers: the null page.
constexpr uint64_t kUnmapped = 0x10;
// Non-canonical (bit 63 set, bits 47..62 clear): beyond any legal address.
constexpr uint64_t kNonCanonical = 0x8000000000000000ull;
// Canonical, in the kernel's half: beyond user space.
constexpr uint64_t kKernelHalf = 0xffff800000000000ull;

struct FaultRun {
  hsa_signal_t done{};
  FaultArgs* args = nullptr;
  uint32_t* ran = nullptr;
};

// Dispatches `kernel` (fault or fault_fiber) over `groups` workgroups of
// `group_size` items; workgroup `faulting_group` faults as `mode` says.
FaultRun dispatch_fault(Runtime& rt, Kernels& kernels, hsa_queue_t* queue, const char* kernel, uint32_t mode,
                        uint64_t address, uint32_t groups, uint32_t faulting_group, uint16_t group_size = 1) {
  FaultRun run;
  run.ran = rt.alloc<uint32_t>(groups);
  run.args = rt.alloc<FaultArgs>(1, rt.kernarg_pool);
  *run.args = FaultArgs{address, run.ran, mode, faulting_group, 0, 0};
  run.done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object(kernel);
  d.kernarg = run.args;
  d.grid[0] = groups * group_size;
  d.workgroup[0] = group_size;
  d.completion = run.done;
  dispatch(queue, d);
  return run;
}

void release(FaultRun& run) {
  CHECK(hsa_signal_destroy(run.done) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_pool_free(run.ran) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_memory_pool_free(run.args) == HSA_STATUS_SUCCESS);
}

// Runs write_ids over `items` on `queue` and checks every item ran once.
bool write_ids_works(Runtime& rt, Kernels& kernels, hsa_queue_t* queue, uint32_t items = 4096) {
  uint32_t* out = rt.alloc<uint32_t>(items);
  auto** args = rt.alloc<uint32_t*>(1, rt.kernarg_pool);
  *args = out;
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("write_ids");
  d.kernarg = args;
  d.grid[0] = items;
  d.workgroup[0] = 64;
  d.completion = done;
  dispatch(queue, d);
  bool ok = wait_eq(done, 0);
  for (uint32_t i = 0; ok && i < items; ++i) ok = out[i] == i + 1;
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(args);
  return ok;
}

// Records the system events it is given.
struct EventLog {
  std::atomic<int> count{0};
  hsa_amd_event_t last{};
  static hsa_status_t callback(const hsa_amd_event_t* event, void* data) {
    auto* self = static_cast<EventLog*>(data);
    self->last = *event;
    self->count.fetch_add(1, std::memory_order_release);
    return HSA_STATUS_SUCCESS;
  }
};

}  // namespace

TEST_SUITE("faults") {

TEST_CASE("a kernel reading an unmapped address fails its queue with MEMORY_FAULT; the process goes on") {
  ScopedEnv log_env("HSA_CPU_LOG", "1");
  Runtime rt;
  Kernels kernels(rt.agent);
  for (uint32_t groups : {1u, 64u}) {  // on the queue's own thread, and on the workers
    CAPTURE(groups);
    Queue faulting(rt.agent), other(rt.agent);
    FaultRun run;
    const std::string log = capture_stderr([&] {
      run = dispatch_fault(rt, kernels, faulting.queue, "fault", kFaultRead, kUnmapped, groups, groups / 2);
      REQUIRE(faulting.wait_error());
    });
    INFO("stderr: " << log);
    CHECK(faulting.errors.load() == 1);
    CHECK(status_bits(faulting.last_error.load()) == HSA_STATUS_ERROR_MEMORY_FAULT);
    CHECK(log.find("faulted in workgroup (" + std::to_string(groups / 2) + ", 0, 0): SIGSEGV (address not mapped) "
                   "at address 0x10") != std::string::npos);
    CHECK(log.find("kernel 'fault'") != std::string::npos);
    // The dispatch did not complete, and nothing behind it runs.
    hsa_signal_t later = make_signal(1);
    barrier(faulting.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, later);
    CHECK_FALSE(wait_eq(run.done, 0, 30 * kMs));
    CHECK(hsa_signal_load_scacquire(run.done) == 1);
    CHECK(hsa_signal_load_scacquire(later) == 1);
    CHECK(__atomic_load_n(&run.ran[groups / 2], __ATOMIC_ACQUIRE) == 0);
    // Another queue of the agent, and a new one, work as before.
    CHECK(write_ids_works(rt, kernels, other.queue));
    {
      Queue fresh(rt.agent);
      CHECK(write_ids_works(rt, kernels, fresh.queue));
    }
    CHECK(other.errors.load() == 0);
    hsa_signal_destroy(later);
    release(run);
  }
}

TEST_CASE("a fault inside a run of workgroups names the workgroup that faulted") {
  ScopedEnv log_env("HSA_CPU_LOG", "1");
  Runtime rt;
  Kernels kernels(rt.agent);
  // 1000 workgroups: the pool's batches (tens of workgroups) run as runs, and
  // workgroup 500 is not the first of its run.
  for (uint32_t groups : {64u, 1000u}) {
    CAPTURE(groups);
    Queue faulting(rt.agent);
    FaultRun run;
    const std::string log = capture_stderr([&] {
      run = dispatch_fault(rt, kernels, faulting.queue, "fault_runs", kFaultRead, kUnmapped, groups, groups / 2);
      REQUIRE(faulting.wait_error());
    });
    INFO("stderr: " << log);
    CHECK(status_bits(faulting.last_error.load()) == HSA_STATUS_ERROR_MEMORY_FAULT);
    CHECK(log.find("kernel 'fault_runs' faulted in workgroup (" + std::to_string(groups / 2) +
                   ", 0, 0): SIGSEGV (address not mapped) at address 0x10") != std::string::npos);
    CHECK(__atomic_load_n(&run.ran[groups / 2], __ATOMIC_ACQUIRE) == 0);
    CHECK_FALSE(wait_eq(run.done, 0, 30 * kMs));
    release(run);
  }
  // A kernel that leaves `wg` naming its whole run: the log names the range,
  // which holds the faulting workgroup.
  const uint32_t groups = 1000;
  Queue faulting(rt.agent);
  FaultRun run;
  const std::string log = capture_stderr([&] {
    run = dispatch_fault(rt, kernels, faulting.queue, "fault_runs_whole", kFaultRead, kUnmapped, groups, groups / 2);
    REQUIRE(faulting.wait_error());
  });
  INFO("stderr: " << log);
  const std::string prefix = "kernel 'fault_runs_whole' faulted in workgroup";
  const size_t at = log.find(prefix);
  REQUIRE(at != std::string::npos);
  unsigned first = 0, last = 0;
  if (log.compare(at + prefix.size(), 2, "s ") == 0) {
    REQUIRE(std::sscanf(log.c_str() + at + prefix.size(), "s (%u..%u, 0, 0)", &first, &last) == 2);
    CHECK(first < last);
  } else {  // a run of one workgroup
    REQUIRE(std::sscanf(log.c_str() + at + prefix.size(), " (%u, 0, 0)", &first) == 1);
    last = first;
  }
  CHECK(first <= groups / 2);
  CHECK(groups / 2 <= last);
  release(run);
}

TEST_CASE("each kind of fault reports ROCR's status") {
  Runtime rt;
  Kernels kernels(rt.agent);
  // A page the kernel may read but not write.
  void* read_only = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(read_only != MAP_FAILED);
  struct Case {
    const char* what;        // the fault
    const char* kernel;      // fault or fault_fiber
    uint32_t mode;           // kFault*
    uint64_t address;        // what it accesses
    uint32_t expected;       // the callback's status (bits)
  };
  const Case cases[] = {
      {"write to an unmapped address", "fault", kFaultWrite, kUnmapped, HSA_STATUS_ERROR_MEMORY_FAULT},
      {"write to a read-only page", "fault", kFaultWrite, reinterpret_cast<uint64_t>(read_only),
       HSA_STATUS_ERROR_MEMORY_FAULT},
      {"read of a non-canonical address", "fault", kFaultRead, kNonCanonical,
       HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION},
      {"read of a kernel address", "fault", kFaultRead, kKernelHalf,
       HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION},
      {"integer division by zero", "fault", kFaultDivide, 0, HSA_STATUS_ERROR_EXCEPTION},
      {"illegal instruction", "fault", kFaultIllegal, 0, HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION},
      {"thread stack overflow", "fault", kFaultStackOverflow, 0, HSA_STATUS_ERROR_MEMORY_FAULT},
      {"read of an unmapped address in a fiber", "fault_fiber", kFaultRead, kUnmapped, HSA_STATUS_ERROR_MEMORY_FAULT},
      {"fiber stack overflow", "fault_fiber", kFaultStackOverflow, 0, HSA_STATUS_ERROR_MEMORY_FAULT},
  };
  for (const Case& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    Queue q(rt.agent);
    const bool fibers = std::string(c.kernel) == "fault_fiber";
    FaultRun run = dispatch_fault(rt, kernels, q.queue, c.kernel, c.mode, c.address, 8, 3, fibers ? 16 : 1);
    REQUIRE(q.wait_error());
    CHECK(q.errors.load() == 1);
    CHECK(status_bits(q.last_error.load()) == c.expected);
    CHECK(hsa_signal_load_scacquire(run.done) == 1);
    if (c.mode == kFaultStackOverflow) CHECK(run.args->depth > 4);  // it did recurse first
    release(run);
  }
  munmap(read_only, 4096);
  // The threads that contained those faults still run kernels, in both
  // modes (the fiber runner dropped the interrupted workgroup's fibers).
  Queue q(rt.agent);
  CHECK(write_ids_works(rt, kernels, q.queue));
  FaultRun clean = dispatch_fault(rt, kernels, q.queue, "fault_fiber", kFaultNone, 0, 32, 0, 64);
  CHECK(wait_eq(clean.done, 0));
  for (uint32_t g = 0; g < 32; ++g) CHECK(clean.ran[g] == 1);
  CHECK(q.errors.load() == 0);
  release(clean);
}

TEST_CASE("the system event handler hears of a memory fault with its address, before the queue callback") {
  Runtime rt;
  Kernels kernels(rt.agent);
  static EventLog events;
  events.count = 0;
  REQUIRE(hsa_amd_register_system_event_handler(&EventLog::callback, &events) == HSA_STATUS_SUCCESS);
  CHECK(hsa_amd_register_system_event_handler(&EventLog::callback, &events) == HSA_STATUS_ERROR);
  CHECK(hsa_amd_register_system_event_handler(nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  void* read_only = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(read_only != MAP_FAILED);
  struct Case {
    uint32_t mode;     // kFault*
    uint64_t address;  // accessed
    uint32_t reason;   // HSA_AMD_MEMORY_FAULT_* expected
  };
  const Case cases[] = {
      {kFaultRead, kUnmapped + 0x1230, HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT},
      {kFaultWrite, reinterpret_cast<uint64_t>(read_only) + 8, HSA_AMD_MEMORY_FAULT_READ_ONLY},
  };
  int expected_events = 0;
  for (const Case& c : cases) {
    CAPTURE(c.address);
    Queue q(rt.agent);
    FaultRun run = dispatch_fault(rt, kernels, q.queue, "fault", c.mode, c.address, 4, 1);
    REQUIRE(q.wait_error());
    ++expected_events;
    CHECK(events.count.load(std::memory_order_acquire) == expected_events);  // already there
    CHECK(events.last.event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT);
    CHECK(events.last.memory_fault.agent.handle == rt.agent.handle);
    CHECK(events.last.memory_fault.virtual_address == c.address);
    CHECK(events.last.memory_fault.fault_reason_mask == c.reason);
    release(run);
  }
  // Not a memory fault: no memory fault event.
  Queue q(rt.agent);
  FaultRun run = dispatch_fault(rt, kernels, q.queue, "fault", kFaultDivide, 0, 4, 1);
  REQUIRE(q.wait_error());
  CHECK(q.last_error.load() == HSA_STATUS_ERROR_EXCEPTION);
  CHECK(events.count.load() == expected_events);
  release(run);
  munmap(read_only, 4096);
}

TEST_CASE("faults on several queues at once: each queue reports its own, once; the host goes on") {
  ScopedEnv workers("HSA_CPU_WORKERS", "4");
  Runtime rt;
  Kernels kernels(rt.agent);
  constexpr int kQueues = 4;
  std::vector<std::unique_ptr<Queue>> queues;
  std::vector<FaultRun> runs;
  for (int i = 0; i < kQueues; ++i) queues.push_back(std::make_unique<Queue>(rt.agent));
  for (int i = 0; i < kQueues; ++i)
    runs.push_back(dispatch_fault(rt, kernels, queues[size_t(i)]->queue, i % 2 ? "fault" : "fault_fiber",
                                  kFaultRead, kUnmapped + uint64_t(i) * 8, 16, uint32_t(i), i % 2 ? 1 : 8));
  // The host keeps computing meanwhile.
  uint64_t sum = 0;
  for (uint64_t i = 0; i < 1000000; ++i) sum += i;
  CHECK(sum == 499999500000ull);
  for (int i = 0; i < kQueues; ++i) {
    CAPTURE(i);
    REQUIRE(queues[size_t(i)]->wait_error());
    CHECK(status_bits(queues[size_t(i)]->last_error.load()) == HSA_STATUS_ERROR_MEMORY_FAULT);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < kQueues; ++i) {
    CHECK(queues[size_t(i)]->errors.load() == 1);
    CHECK(hsa_signal_load_scacquire(runs[size_t(i)].done) == 1);
    release(runs[size_t(i)]);
  }
  Queue healthy(rt.agent);
  CHECK(write_ids_works(rt, kernels, healthy.queue, 100000));
}

TEST_CASE("hsa_queue_inactivate abandons a running dispatch: its running workgroups stop, it does not complete") {
  ScopedEnv workers("HSA_CPU_WORKERS", "1");
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue q(rt.agent);
  // Every workgroup of the gate kernel holds until released (no thread has
  // id 0), so two run (the worker's and the queue's own) and 14 wait.
  struct GateArgs { uint32_t* held; const uint32_t* release; uint32_t* finished; int32_t processor_tid; };
  constexpr uint32_t kGroups = 16;
  uint32_t* state = rt.alloc<uint32_t>(3);  // held, release, finished
  auto* args = rt.alloc<GateArgs>(1, rt.kernarg_pool);
  *args = GateArgs{&state[0], &state[1], &state[2], 0};
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("gate");
  d.kernarg = args;
  d.grid[0] = kGroups;
  d.completion = done;
  dispatch(q.queue, d);
  for (int i = 0; i < 5000 && __atomic_load_n(&state[0], __ATOMIC_ACQUIRE) < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(__atomic_load_n(&state[0], __ATOMIC_ACQUIRE) == 2);
  CHECK(hsa_queue_inactivate(q.queue) == HSA_STATUS_SUCCESS);
  // The two running ones are preempted (fault.h): released afterwards, they
  // do not finish; the other 14 never run.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  __atomic_store_n(&state[1], 1u, __ATOMIC_RELEASE);
  CHECK_FALSE(wait_eq(done, 0, 50 * kMs));
  CHECK(__atomic_load_n(&state[2], __ATOMIC_ACQUIRE) == 0);
  CHECK(q.errors.load() == 0);  // inactivating is not an error
  hsa_signal_destroy(done);
}

namespace {

// Runs `child` in a forked process (no core file; a failed REQUIRE ends it
// with status 5); returns its wait status.
template <typename Child>
int in_child(Child&& child) {
  fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    try {
      child();
    } catch (...) {
      _exit(5);
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return status;
}

constexpr int kPreviousHandlerExit = 42;
void previous_handler(int) { _exit(kPreviousHandlerExit); }

}  // namespace

TEST_CASE("a fault outside kernel code still ends the process, or reaches the handler installed before") {
  // The default action before hsa_init: still the default after it.
  const int status = in_child([] {
    signal(SIGSEGV, SIG_DFL);  // (the test framework has its own handler)
    if (hsa_init() != HSA_STATUS_SUCCESS) _exit(3);
    *reinterpret_cast<volatile uint32_t*>(kUnmapped) = 1;  // host code, not a kernel
    _exit(0);                                              // survived: wrong
  });
  INFO("wait status " << status);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGSEGV);
  // An application handler installed before hsa_init gets host faults; a
  // kernel fault in the same process is contained and never reaches it.
  const int chained = in_child([] {
    struct sigaction action {};
    action.sa_handler = &previous_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, nullptr);
    {
      Runtime rt;
      Kernels kernels(rt.agent);
      Queue q(rt.agent);
      FaultRun run = dispatch_fault(rt, kernels, q.queue, "fault", kFaultRead, kUnmapped, 4, 0);
      if (!q.wait_error() || status_bits(q.last_error.load()) != HSA_STATUS_ERROR_MEMORY_FAULT) _exit(4);
      release(run);
      *reinterpret_cast<volatile uint32_t*>(kUnmapped) = 1;  // host code: the application's handler
    }
    _exit(0);
  });
  CHECK(WIFEXITED(chained));
  CHECK(WEXITSTATUS(chained) == kPreviousHandlerExit);
  // After the last hsa_shut_down the previous handler is back in place.
  struct sigaction before {}, after {};
  sigaction(SIGSEGV, nullptr, &before);
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  sigaction(SIGSEGV, nullptr, &after);
  CHECK(reinterpret_cast<void*>(after.sa_sigaction) == reinterpret_cast<void*>(before.sa_sigaction));
  CHECK(after.sa_flags == before.sa_flags);
}

}  // TEST_SUITE
