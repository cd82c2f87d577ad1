// hsa-cpu kernel faults: a kernel that faults (bad address, read-only page,
// non-canonical address, stack overflow, divide by zero, illegal
// instruction) fails its queue with ROCR's status, its completion signal is
// not decremented, the system event handler hears of memory faults, and the
// process, the host and other queues go on; hsa_cpu_queue_get_kernel_fault
// (hsa_cpu_ext.h) names the packet, workgroup, access and source line. A
// fault outside kernel code still kills the process (or reaches the handler
// installed before).
#include <hsa_cpu_ext.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

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

// The fault_line kernels' arguments (kernels/test_kernels.c).
struct FaultLineArgs {
  uint64_t address;
  uint32_t* sink;
  uint32_t write;
  uint32_t faulting_group;
};

// The 1-based line of the test kernels' source that holds `marker`; 0 when
// none does.
uint32_t kernel_source_line(const std::string& marker) {
  std::ifstream source(HSA_CPU_TEST_KERNELS_SOURCE);
  std::string line;
  for (uint32_t number = 1; std::getline(source, line); ++number)
    if (line.find(marker) != std::string::npos) return number;
  return 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A queue whose error callback asks for the fault's report, so a test can
// check that the report is complete when the callback runs.
struct ReportingQueue {
  hsa_queue_t* queue = nullptr;
  std::atomic<int> errors{0};
  hsa_status_t last_error = HSA_STATUS_SUCCESS;    // written before errors
  hsa_status_t report_status = HSA_STATUS_SUCCESS; // hsa_cpu_queue_get_kernel_fault in the callback
  hsa_cpu_kernel_fault_t report{};                 // what it answered

  explicit ReportingQueue(hsa_agent_t agent) {
    REQUIRE(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, &ReportingQueue::callback, this, UINT32_MAX,
                             UINT32_MAX, &queue) == HSA_STATUS_SUCCESS);
  }
  ~ReportingQueue() { CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS); }
  static void callback(hsa_status_t status, hsa_queue_t* source, void* data) {
    auto* self = static_cast<ReportingQueue*>(data);
    self->last_error = status;
    self->report_status = hsa_cpu_queue_get_kernel_fault(source, &self->report);
    self->errors.fetch_add(1, std::memory_order_release);
  }
  bool wait_error(uint64_t timeout_ms = 5000) {
    for (uint64_t i = 0; i < timeout_ms && errors.load(std::memory_order_acquire) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return errors.load(std::memory_order_acquire) != 0;
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
    hsa_cpu_kernel_fault_t report{};
    REQUIRE(hsa_cpu_queue_get_kernel_fault(faulting.queue, &report) == HSA_STATUS_SUCCESS);
    CHECK(report.workgroup_id[0] == groups / 2);
    CHECK(report.workgroup_run == 1);
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
  hsa_cpu_kernel_fault_t report{};
  REQUIRE(hsa_cpu_queue_get_kernel_fault(faulting.queue, &report) == HSA_STATUS_SUCCESS);
  CHECK(report.workgroup_id[0] == first);
  CHECK(report.workgroup_run == last - first + 1);
  release(run);
}

TEST_CASE("each kind of fault reports ROCR's status") {
  Runtime rt;
  Kernels kernels(rt.agent);
  // A page the kernel may read but not write.
  void* read_only = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(read_only != MAP_FAILED);
  constexpr uint32_t kRead = HSA_CPU_FAULT_ACCESS_READ, kWrite = HSA_CPU_FAULT_ACCESS_WRITE,
                     kNoAccess = HSA_CPU_FAULT_ACCESS_UNKNOWN;
  struct Case {
    const char* what;        // the fault
    const char* kernel;      // fault or fault_fiber
    uint32_t mode;           // kFault*
    uint64_t address;        // what it accesses
    uint32_t expected;       // the callback's status (bits)
    int signal;              // the report's signal
    uint32_t access;         // the report's access (hsa_cpu_fault_access_t)
  };
  const Case cases[] = {
      {"write to an unmapped address", "fault", kFaultWrite, kUnmapped, HSA_STATUS_ERROR_MEMORY_FAULT, SIGSEGV,
       kWrite},
      {"write to a read-only page", "fault", kFaultWrite, reinterpret_cast<uint64_t>(read_only),
       HSA_STATUS_ERROR_MEMORY_FAULT, SIGSEGV, kWrite},
      // A general protection fault: no page-fault error code, no address.
      {"read of a non-canonical address", "fault", kFaultRead, kNonCanonical,
       HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, SIGSEGV, kNoAccess},
      {"read of a kernel address", "fault", kFaultRead, kKernelHalf,
       HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, SIGSEGV, kRead},
      {"integer division by zero", "fault", kFaultDivide, 0, HSA_STATUS_ERROR_EXCEPTION, SIGFPE, kNoAccess},
      {"illegal instruction", "fault", kFaultIllegal, 0, HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION, SIGILL, kNoAccess},
      // The guard page below the stack is first touched by a store (a push,
      // or the frame's volatile store).
      {"thread stack overflow", "fault", kFaultStackOverflow, 0, HSA_STATUS_ERROR_MEMORY_FAULT, SIGSEGV, kWrite},
      {"read of an unmapped address in a fiber", "fault_fiber", kFaultRead, kUnmapped, HSA_STATUS_ERROR_MEMORY_FAULT,
       SIGSEGV, kRead},
      {"fiber stack overflow", "fault_fiber", kFaultStackOverflow, 0, HSA_STATUS_ERROR_MEMORY_FAULT, SIGSEGV, kWrite},
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
    hsa_cpu_kernel_fault_t report{};
    REQUIRE(hsa_cpu_queue_get_kernel_fault(q.queue, &report) == HSA_STATUS_SUCCESS);
    CHECK(report.signal == c.signal);
    CHECK(report.access == c.access);
    CHECK(report.kernel_object == kernels.object(c.kernel));
    CHECK(report.workgroup_id[0] == 3);
    if (c.mode == kFaultRead || c.mode == kFaultWrite) {
      if (c.address != kNonCanonical) CHECK(report.address == c.address);  // (a GP fault has none)
    } else if (c.mode != kFaultStackOverflow) {
      CHECK(report.address == report.pc);  // SIGFPE, SIGILL: si_addr is the instruction
    }
    // fault_now (inlined into its kernel or not), or the recursion.
    const std::string function = report.function;
    CAPTURE(function);
    CHECK(function.find(c.mode == kFaultStackOverflow ? "recurse" : "fault") != std::string::npos);
    CHECK(report.code_object_offset != 0);
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

TEST_CASE("hsa_cpu_queue_get_kernel_fault names the packet, the workgroup, the access and the source line") {
  ScopedEnv log_env("HSA_CPU_LOG", "1");
  Runtime rt;
  Kernels kernels(rt.agent);
  uint32_t* sink = rt.alloc<uint32_t>(1);
  struct Case {
    const char* kernel;  // fault_line (loop mode) or fault_line_fiber (fiber mode)
    bool write;          // a store or a load
    uint64_t address;    // what it accesses (both in the never-mapped null page)
    uint32_t groups;     // workgroups of the dispatch
    uint16_t group_size; // items per workgroup
  };
  const Case cases[] = {
      {"fault_line", true, kUnmapped, 8, 1},
      {"fault_line", false, kUnmapped + 0x2460, 8, 1},
      {"fault_line", true, kUnmapped, 1, 1},  // one workgroup: on the queue's own thread
      {"fault_line_fiber", true, kUnmapped, 4, 16},
      {"fault_line_fiber", false, kUnmapped + 0x2460, 4, 16},
  };
  for (const Case& c : cases) {
    const std::string kernel = c.kernel;
    CAPTURE(kernel);
    CAPTURE(c.write);
    CAPTURE(c.groups);
    const std::string marker = "/* " + kernel + (c.write ? ": write */" : ": read */");
    const uint32_t marked_line = kernel_source_line(marker);
    REQUIRE(marked_line != 0);
    const uint32_t faulting_group = c.groups / 2;

    ReportingQueue q(rt.agent);
    hsa_cpu_kernel_fault_t report{};
    // A packet that completes first, so the faulting one is not packet 0.
    CHECK(write_ids_works(rt, kernels, q.queue, 64));
    CHECK(hsa_cpu_queue_get_kernel_fault(q.queue, &report) == HSA_STATUS_INFO_BREAK);

    auto* args = rt.alloc<FaultLineArgs>(1, rt.kernarg_pool);
    *args = FaultLineArgs{c.address, sink, c.write ? 1u : 0u, faulting_group};
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object(c.kernel);
    d.kernarg = args;
    d.grid[0] = c.groups * c.group_size;
    d.workgroup[0] = c.group_size;
    d.completion = done;
    uint64_t packet_id = 0;
    const std::string log = capture_stderr([&] {
      packet_id = dispatch(q.queue, d);
      REQUIRE(q.wait_error());
    });
    INFO("stderr: " << log);
    CHECK(packet_id == 1);
    CHECK(status_bits(q.last_error) == HSA_STATUS_ERROR_MEMORY_FAULT);
    // Complete when the callback ran, and the same afterwards.
    REQUIRE(q.report_status == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_cpu_queue_get_kernel_fault(q.queue, &report) == HSA_STATUS_SUCCESS);
    CHECK(memcmp(&report, &q.report, sizeof(report)) == 0);

    CHECK(report.kernel_object == d.kernel_object);
    CHECK(report.packet_id == packet_id);
    CHECK(report.address == c.address);
    CHECK(report.access == (c.write ? HSA_CPU_FAULT_ACCESS_WRITE : HSA_CPU_FAULT_ACCESS_READ));
    CHECK(report.signal == SIGSEGV);
    CHECK(report.workgroup_id[0] == faulting_group);
    CHECK(report.workgroup_id[1] == 0);
    CHECK(report.workgroup_id[2] == 0);
    CHECK(report.workgroup_run == 1);
    CHECK(std::string(report.description) == "SIGSEGV (address not mapped)");
    CHECK(report.pc != 0);
    CHECK(report.code_object_offset != 0);
    CHECK(report.code_object_offset < report.pc);
    const std::string function = report.function;
    const std::string file = report.file;
    CAPTURE(function);
    CAPTURE(file);
    CHECK(function.find(kernel) != std::string::npos);
#if HSA_CPU_TEST_SOURCE_LINES
    CHECK(ends_with(file, "/kernels/test_kernels.c"));
    CHECK(report.line == marked_line);
    CHECK(report.column != 0);
    // HSA_CPU_LOG names them too.
    CHECK(log.find(" in " + function + " at " + file + ":" + std::to_string(marked_line) + ":") !=
          std::string::npos);
#else
    CHECK(file.empty());
    CHECK(report.line == 0);
    CHECK(report.column == 0);
    CHECK(log.find(" in " + function) != std::string::npos);
#endif
    CHECK(hsa_signal_destroy(done) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_memory_pool_free(args) == HSA_STATUS_SUCCESS);
  }

  // A queue that never faulted has nothing to report; bad arguments.
  Queue healthy(rt.agent);
  CHECK(write_ids_works(rt, kernels, healthy.queue));
  hsa_cpu_kernel_fault_t report{};
  CHECK(hsa_cpu_queue_get_kernel_fault(healthy.queue, &report) == HSA_STATUS_INFO_BREAK);
  CHECK(hsa_cpu_queue_get_kernel_fault(healthy.queue, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_cpu_queue_get_kernel_fault(nullptr, &report) == HSA_STATUS_ERROR_INVALID_QUEUE);
  alignas(64) unsigned char not_a_queue[256] = {};
  CHECK(hsa_cpu_queue_get_kernel_fault(reinterpret_cast<const hsa_queue_t*>(not_a_queue), &report) ==
        HSA_STATUS_ERROR_INVALID_QUEUE);
  CHECK(hsa_amd_memory_pool_free(sink) == HSA_STATUS_SUCCESS);
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
    // Each queue's report is its own fault's.
    hsa_cpu_kernel_fault_t report{};
    REQUIRE(hsa_cpu_queue_get_kernel_fault(queues[size_t(i)]->queue, &report) == HSA_STATUS_SUCCESS);
    CHECK(report.address == kUnmapped + uint64_t(i) * 8);
    CHECK(report.workgroup_id[0] == uint32_t(i));
    CHECK(report.kernel_object == kernels.object(i % 2 ? "fault" : "fault_fiber"));
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

TEST_CASE("a fiber-mode workgroup whose stacks do not fit in host memory fails its queue with OUT_OF_RESOURCES") {
  // Each of the 64 items of a workgroup asks for 1 GiB of private memory:
  // 64 GiB of fiber stacks, far past the address space the child allows
  // itself. The worker cannot map them: the dispatch does not complete, its
  // queue reports OUT_OF_RESOURCES, and the process goes on (the same
  // kernel with no private memory then runs on a new queue).
  const int status = in_child([] {
    Runtime rt;
    Kernels kernels(rt.agent);
    ReportingQueue q(rt.agent);
    uint32_t* ran = rt.alloc<uint32_t>(2);
    auto* args = rt.alloc<FaultArgs>(1, rt.kernarg_pool);
    *args = FaultArgs{0, ran, kFaultNone, UINT32_MAX, 0, 0};
    // The address space in use now plus 1 GiB.
    uint64_t in_use = 0;
    {
      std::ifstream status_file("/proc/self/status");
      std::string line;
      while (std::getline(status_file, line))
        if (line.rfind("VmSize:", 0) == 0) in_use = std::stoull(line.substr(7)) * 1024;
    }
    if (in_use == 0) _exit(6);
    const rlimit limit{in_use + (1ull << 30), in_use + (1ull << 30)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(7);
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("fault_fiber");
    d.kernarg = args;
    d.grid[0] = 2 * 64;
    d.workgroup[0] = 64;
    d.private_bytes = 1u << 30;
    d.completion = done;
    dispatch(q.queue, d);
    if (!q.wait_error()) _exit(8);
    if (q.last_error != HSA_STATUS_ERROR_OUT_OF_RESOURCES) _exit(9);
    if (wait_eq(done, 0, 50 * kMs)) _exit(10);  // it did not complete
    Queue healthy(rt.agent);
    hsa_signal_store_relaxed(done, 1);
    d.private_bytes = 0;
    dispatch(healthy.queue, d);
    if (!wait_eq(done, 0)) _exit(11);
    if (ran[0] != 1 || ran[1] != 1) _exit(12);
    hsa_signal_destroy(done);
    _exit(0);
  });
  INFO("wait status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

}  // TEST_SUITE
