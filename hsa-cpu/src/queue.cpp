#include "queue.h"

#include <hsa_core/events.h>
#include <hsa_core/packet.h>
#include <hsa_core/queue.h>

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <system_error>

#include "executable.h"
#include "fiber.h"
#include "worker_pool.h"

namespace hsa_cpu {
namespace {

// ---------------------------------------------------------------------------
// Headers: decoded and checked by the core (hsa_core/packet.h)

using hsa_core::decode_header;
using hsa_core::kInvalidHeader;
using hsa_core::load_header;

// Fence scopes: every agent shares the host's coherent memory, so an agent
// or system scope fence is a thread fence; NONE orders nothing.
void acquire_fence(uint16_t scope) {
  if (scope != HSA_FENCE_SCOPE_NONE) std::atomic_thread_fence(std::memory_order_acquire);
}
void release_fence(uint16_t scope) {
  if (scope != HSA_FENCE_SCOPE_NONE) std::atomic_thread_fence(std::memory_order_release);
}
// Decrements a completion signal after the packet's release fence, stamping
// the profiling interval first when the queue profiles.
void signal_completion(Queue* queue, hsa_signal_t completion, uint16_t header,
                       uint64_t start_ns) {
  release_fence(decode_header(header).release_scope);
  Signal* signal = to_signal(completion);
  if (signal == nullptr) return;
  if (queue->profiling()) {
    signal->amd.start_ts = start_ns;
    signal->amd.end_ts = now_ns();
  }
  signal->subtract_release(1);
}

// ---------------------------------------------------------------------------
// Kernel dispatch

// HSA_CPU_BARRIER_MODE=fibers runs barrier kernels as fibers even when their
// code object has work-item loops (to compare the two; read once).
// Read when the library loads, so that a dispatch's test is a load.
const bool g_fibers_forced = [] {
  const char* mode = getenv("HSA_CPU_BARRIER_MODE");
  return mode != nullptr && strcmp(mode, "fibers") == 0;
}();

// Barrier kernels run as fibers unless the build gave them work-item loops.
inline bool runs_as_fibers(const xgpu_host_kernel_descriptor_t& kernel) {
  if ((kernel.flags & XGPU_HOST_KERNEL_FLAG_USES_BARRIERS) == 0) return false;
  if ((kernel.flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS) == 0) return true;
  return g_fibers_forced && kernel.run_workitem != nullptr;
}

// What one kernel's workgroups cost, as its last dispatch on a queue ran
// them: the processor runs a dispatch whose workgroups it expects to take
// less than kInlineWorkNs in all on its own thread (DispatchCosts).
struct KernelCost {
  uint64_t kernel_object = 0;                    // the kernel; 0: free (processor only)
  uint64_t generation = 0;                       // kernel_object_generation() when taken
  std::atomic<uint64_t> ns_per_workgroup{0};     // 0: not measured yet
  uint32_t pooled_in_a_row = 0;                  // dispatches sent to the pool since one ran here (processor only)
};

class DispatchJob final : public Job {
 public:
  DispatchJob(Queue* queue, const hsa_kernel_dispatch_packet_t& packet, uint64_t packet_id,
              const xgpu_host_kernel_descriptor_t& kernel, const uint32_t counts[3],
              uint32_t item_count, uint32_t group_bytes, uint64_t start_ns, bool pooled,
              KernelCost* cost = nullptr)
      : Job(item_count), queue_(queue), packet_(packet), packet_id_(packet_id), kernel_(kernel),
        group_bytes_(group_bytes), start_ns_(start_ns), pooled_(pooled),
        runs_((kernel.flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) != 0 && !runs_as_fibers(kernel)), cost_(cost) {
    for (int d = 0; d < 3; ++d) counts_[d] = counts[d];
    const uint32_t packet_private = packet.private_segment_size;
    private_bytes_ = packet_private > kernel.private_segment_size ? packet_private
                                                                  : kernel.private_segment_size;
  }

  void run_item(uint32_t index, WorkerContext& context) override { run_workgroups(index, 1, context); }

  // A batch runs as runs of consecutive workgroups along x, one call into
  // the kernel per run, when the kernel takes runs (kernels without
  // barriers, and work-item loops that combine atomics across a run).
  // (Timed when the processor keeps the kernel's cost.)
  void run_items(uint32_t first, uint32_t last, WorkerContext& context) override {
    const uint64_t start = cost_ != nullptr ? now_ns() : 0;
    const uint32_t first_index = first, last_index = last;
    if (!runs_) {
      for (uint32_t i = first; i < last; ++i) run_workgroups(i, 1, context);
    } else {
      while (first < last) {
        const uint32_t row_left = counts_[0] - first % counts_[0];
        const uint32_t run = last - first < row_left ? last - first : row_left;
        run_workgroups(first, run, context);
        first += run;
      }
    }
    if (cost_ != nullptr) {
      // Per workgroup, the least any batch took: a thread descheduled in
      // the middle of its batch (more threads than cores) would make the
      // kernel look dearer than it is.
      const uint64_t per = (now_ns() - start) / (last_index - first_index) + 1;
      uint64_t least = least_ns_.load(std::memory_order_relaxed);
      while (per < least && !least_ns_.compare_exchange_weak(least, per, std::memory_order_relaxed)) {
      }
    }
  }

  // Runs `run` workgroups from linear index `index`, all in one row along x.
  void run_workgroups(uint32_t index, uint32_t run, WorkerContext& context) {
    xgpu_host_workgroup_t wg;
    const uint32_t x = index % counts_[0];
    const uint32_t yz = index / counts_[0];
    const uint32_t y = yz % counts_[1];
    const uint32_t z = yz / counts_[1];
    wg.workgroup_id[0] = x;
    wg.workgroup_id[1] = y;
    wg.workgroup_id[2] = z;
    wg.workgroup_size[0] = packet_.workgroup_size_x;
    wg.workgroup_size[1] = packet_.workgroup_size_y;
    wg.workgroup_size[2] = packet_.workgroup_size_z;
    wg.grid_size[0] = packet_.grid_size_x;
    wg.grid_size[1] = packet_.grid_size_y;
    wg.grid_size[2] = packet_.grid_size_z;
    for (int d = 0; d < 3; ++d) {
      wg.workgroup_count[d] = counts_[d];
      const uint64_t first = uint64_t(wg.workgroup_id[d]) * wg.workgroup_size[d];
      const uint64_t left = wg.grid_size[d] - first;
      wg.item_count[d] = uint32_t(left < wg.workgroup_size[d] ? left : wg.workgroup_size[d]);
    }
    wg.dimensions = hsa_core::dispatch_dimensions(packet_.setup);
    wg.group_segment = group_bytes_ != 0 ? context.group_segment : nullptr;
    wg.group_segment_size = group_bytes_;
    wg.workgroup_run = runs_ ? run : 0;
    wg.barrier = nullptr;
    wg.runtime = nullptr;
    // A dispatch whose kernel faulted, or whose queue was inactivated or
    // failed, runs no more workgroups (as a GPU stops its waves); one that
    // is abandoned while this workgroup runs preempts it (fault.h). The
    // thread names the queue's abort flag before it reads it (both seq_cst),
    // so an abort either is seen here or finds the thread to preempt.
    // A thread without its kernel context, or without the fiber stacks this
    // workgroup needs (host memory ran out), runs no kernel code: the
    // dispatch is abandoned and its queue fails with OUT_OF_RESOURCES.
    // prepare() allocates, so it runs before the guard is armed: a cancel
    // signal only ever interrupts kernel code and the fiber scheduler.
    const bool fibers = runs_as_fibers(kernel_);
    if (!context.ready || (fibers && !context.fibers->prepare(&wg, private_bytes_))) [[unlikely]] {
      skipped_.store(true, std::memory_order_relaxed);
      hsa_status_t none = HSA_STATUS_SUCCESS;
      queue_->worker_error.compare_exchange_strong(none, HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      queue_->abort.store(true, std::memory_order_seq_cst);
      queue_->inactive.store(true, std::memory_order_seq_cst);
      queue_->doorbell->notify_all_waiters();
      return;
    }
    context.guard->cancel.store(&queue_->abort, std::memory_order_seq_cst);
    if (faulted_.load(std::memory_order_relaxed) || queue_->abort.load(std::memory_order_seq_cst)) {
      context.guard->cancel.store(nullptr, std::memory_order_relaxed);
      skipped_.store(true, std::memory_order_relaxed);
      return;
    }
    const bool returned = run_guarded(context.guard, [&] {
      if (fibers)
        context.fibers->run(&kernel_, packet_.kernarg_address, &wg);
      else
        call_kernel_workgroup(kernel_.run_workgroup, packet_.kernarg_address, &wg);
    });
    context.guard->cancel.store(nullptr, std::memory_order_relaxed);
    if (!returned && context.guard->fault.signal == cancel_signal()) {
      // Preempted: the dispatch was abandoned, its workgroup ends here.
      if (fibers) context.fibers->abandon();
      skipped_.store(true, std::memory_order_relaxed);
      return;
    }
    // A run's kernel records which of its workgroups it is running: one
    // (workgroup_run 1), or the whole run when it interleaves their items.
    if (!returned) {
      const uint32_t ran = wg.workgroup_run > 1 ? wg.workgroup_run : 1;
      contained_fault(context, wg.workgroup_id[0], wg.workgroup_id[0] + ran - 1, y, z, fibers);
    }
  }

  // Pool jobs also retire the queue's in-flight count and wake a processor
  // waiting on it (barrier bit, destroy); `finishers` keeps the queue alive
  // until this thread is done touching it.
  // A dispatch that faulted or was abandoned does not complete: its
  // completion signal is left as it was.
  void finish() override {
    Queue* queue = queue_;
    const bool completed = !faulted_.load(std::memory_order_relaxed) && !skipped_.load(std::memory_order_relaxed);
    // (The slot may have been given to another kernel meanwhile: the
    // figure is then one misjudged dispatch, never a wrong result.)
    if (cost_ != nullptr && completed)
      cost_->ns_per_workgroup.store(least_ns_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    if (!pooled_) {
      if (completed) signal_completion(queue, packet_.completion_signal, packet_.header, start_ns_);
      return;
    }
    queue->finishers.fetch_add(1, std::memory_order_seq_cst);
    if (completed) signal_completion(queue, packet_.completion_signal, packet_.header, start_ns_);
    queue->inflight.fetch_sub(1, std::memory_order_seq_cst);
    queue->doorbell->notify_waiters();
    queue->finishers.fetch_sub(1, std::memory_order_release);
  }

 private:
  // Called on the faulting thread, in ordinary context, after the guard
  // brought it back from the kernel: fails the dispatch and its queue, then
  // describes the fault (its source position read from the code object's
  // line table, holding no lock a kernel thread needs), logs it and, for the
  // queue's first fault, records the report hsa_cpu_queue_get_kernel_fault
  // answers. The dispatch finishes only after this returns, so the report
  // is complete before the processor reports the fault.
  void contained_fault(WorkerContext& context, uint32_t x, uint32_t x_last, uint32_t y, uint32_t z, bool fibers) {
    if (fibers) context.fibers->abandon();
    const KernelFault fault = context.guard->fault;
    faulted_.store(true, std::memory_order_relaxed);
    queue_->abort.store(true, std::memory_order_seq_cst);
    queue_->inactive.store(true, std::memory_order_seq_cst);
    cancel_kernels(&queue_->abort);  // its other workgroups still running
    queue_->doorbell->notify_all_waiters();

    bool first;
    {
      std::lock_guard<std::mutex> lock(queue_->fault_mutex);
      first = !queue_->faulted;
    }
    if (!first && !log_enabled()) return;  // a later fault of the queue: nobody reads its description
    hsa_cpu_kernel_fault_t report;
    describe(fault, x, x_last, y, z, &report);
    log_fault(report, fault);
    if (!first) return;
    std::lock_guard<std::mutex> lock(queue_->fault_mutex);
    if (!queue_->faulted) {
      queue_->faulted = true;
      queue_->fault = fault;
      queue_->fault_report = report;
    }
  }

  // The report of `fault` (workgroups x..x_last along x, y, z).
  void describe(const KernelFault& fault, uint32_t x, uint32_t x_last, uint32_t y, uint32_t z,
                hsa_cpu_kernel_fault_t* out) const {
    *out = hsa_cpu_kernel_fault_t{};
    out->kernel_object = packet_.kernel_object;
    out->packet_id = packet_id_;
    out->address = fault.address;
    out->pc = fault.pc;
    out->access = fault_access(fault);
    out->signal = fault.signal;
    out->workgroup_id[0] = x;
    out->workgroup_id[1] = y;
    out->workgroup_id[2] = z;
    out->workgroup_run = x_last - x + 1;
    copy_string(out->description, sizeof(out->description), fault_description(fault));
    // Host memory running out while the sections are read leaves the
    // source position unknown (nothing is thrown on a worker thread).
    try {
      CodeAddress where;
      if (describe_code_address(fault.pc, &where)) {
        out->code_object_offset = where.offset;
        out->line = where.source.line;
        out->column = where.source.column;
        copy_string(out->function, sizeof(out->function), where.source.function.c_str());
        copy_string(out->file, sizeof(out->file), where.source.file.c_str());
      }
    } catch (const std::bad_alloc&) {
    }
  }

  void log_fault(const hsa_cpu_kernel_fault_t& report, const KernelFault& fault) const {
    if (!log_enabled()) return;
    const char* status_name = "?";
    hsa_status_string(fault_status(fault), &status_name);
    char workgroups[32];
    const uint32_t x = report.workgroup_id[0];
    if (report.workgroup_run > 1)
      snprintf(workgroups, sizeof workgroups, "s (%u..%u", x, x + report.workgroup_run - 1);
    else
      snprintf(workgroups, sizeof workgroups, " (%u", x);
    // " in <function> at <file>:<line>:<column>", as much as is known.
    char source[sizeof(report.function) + sizeof(report.file) + 48] = "";
    int used = 0;
    if (report.function[0] != '\0') used = snprintf(source, sizeof source, " in %s", report.function);
    if (report.file[0] != '\0' && used >= 0 && size_t(used) < sizeof source) {
      if (report.column != 0)
        snprintf(source + used, sizeof source - size_t(used), " at %s:%u:%u", report.file, report.line, report.column);
      else
        snprintf(source + used, sizeof source - size_t(used), " at %s:%u", report.file, report.line);
    }
    log("queue %llu: kernel '%s' faulted in workgroup%s, %u, %u): %s at address 0x%llx, pc 0x%llx%s (%.*s); "
        "the dispatch is abandoned and the queue stops",
        static_cast<unsigned long long>(queue_->amd.hsa_queue.id), kernel_.name ? kernel_.name : "?", workgroups,
        report.workgroup_id[1], report.workgroup_id[2], report.description,
        static_cast<unsigned long long>(report.address), static_cast<unsigned long long>(report.pc), source,
        static_cast<int>(strcspn(status_name, ":")), status_name);
  }

  // Copies `text` into dst[size], cut to fit and always terminated.
  static void copy_string(char* dst, size_t size, const char* text) {
    const size_t length = strnlen(text, size - 1);
    memcpy(dst, text, length);
    dst[length] = '\0';
  }

 public:

 private:
  Queue* queue_;                              // issuing queue
  hsa_kernel_dispatch_packet_t packet_;       // copy: the slot is reused
  uint64_t packet_id_;                        // its AQL packet id (read index)
  xgpu_host_kernel_descriptor_t kernel_;      // copy of the descriptor
  uint32_t counts_[3];                        // workgroups per dimension
  uint32_t group_bytes_;                      // group segment per workgroup
  size_t private_bytes_;                      // per-item private bytes
  uint64_t start_ns_;                         // launch time (profiling)
  bool pooled_;                               // runs on the worker pool
  // Runs of workgroups per call: the descriptor's WORKGROUP_RUNS, unless
  // fibers run the kernel (one workgroup each, HSA_CPU_BARRIER_MODE).
  bool runs_;
  std::atomic<bool> faulted_{false};          // a workgroup faulted
  std::atomic<bool> skipped_{false};          // a workgroup was not run
  KernelCost* cost_;                          // where its cost is kept, or null
  std::atomic<uint64_t> least_ns_{UINT64_MAX};  // least time per workgroup of a batch (with cost_)
};

// Below this much work in all (the kernel's last measured cost per
// workgroup times the dispatch's workgroups), a dispatch runs on the
// processor's thread alone: handing workgroups to the pool's threads and
// waiting for them costs a few microseconds on its own (a 64x64 jacobi
// step of 64 workgroups, 1.4 us of work on one core, took 4-5 us more per
// dispatch through the pool on a 2-core VM). Workgroups have no forward
// progress guarantee towards each other, so any of them may run one after
// another.
constexpr uint64_t kInlineWorkNs = 5000;

// The pool measures a kernel dearer than the processor's thread alone does
// (its batches are small, each timed with two clock reads of ~30 ns on the
// development VM, and half the data was last written on another core): a
// 64x64 jacobi step measured 28 ns per workgroup here and 106-136 through
// the pool, so one dispatch sent to the pool (its first, or one whose run
// here was preempted) kept every later one there. Every kProbeEvery-th
// dispatch in a row that the pool would take, of a kernel measured at most
// kProbeFactor times the limit, runs here instead and is measured again.
// At worst that probe costs one dispatch of kProbeFactor x kInlineWorkNs
// on one thread per kProbeEvery dispatches.
constexpr uint32_t kProbeEvery = 16;
constexpr uint64_t kProbeFactor = 4;

// HSA_CPU_INLINE_DISPATCH_NS overrides kInlineWorkNs (0: every dispatch of
// more than one workgroup goes to the pool); read by each queue's processor
// when it starts.
uint64_t inline_dispatch_ns() {
  const char* v = getenv("HSA_CPU_INLINE_DISPATCH_NS");
  if (v == nullptr || v[0] == '\0') return kInlineWorkNs;
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = strtoull(v, &end, 10);
  if (errno != 0 || *end != '\0' || parsed > 1000000000ull) {
    log("ignoring HSA_CPU_INLINE_DISPATCH_NS=%s: expected nanoseconds in [0, 10^9]", v);
    return kInlineWorkNs;
  }
  return parsed;
}

// The processor's memo of kernels' costs: a few kernels, the oldest
// replaced.
struct DispatchCosts {
  static constexpr unsigned kSlots = 8;
  KernelCost slots[kSlots];
  unsigned next = 0;

  KernelCost* find(uint64_t kernel_object) {
    const uint64_t generation = kernel_object_generation();
    for (KernelCost& slot : slots)
      if (slot.kernel_object == kernel_object && slot.generation == generation) return &slot;
    KernelCost& slot = slots[next];
    next = (next + 1) % kSlots;
    slot.kernel_object = kernel_object;
    slot.generation = generation;
    slot.ns_per_workgroup.store(0, std::memory_order_relaxed);
    slot.pooled_in_a_row = 0;
    return &slot;
  }
};

enum class PacketStatus {
  kDone,             // packet launched / completed; hand the slot back
  kInvalid,          // malformed packet: error callback, queue stops
  kDependencyError,  // a dependency signal was negative: queue stops
  kStopped,          // destroy or inactivate while waiting
};

// Statuses a refused dispatch reports, as ROCR maps the packet processor's
// errors (a malformed header is the core's: hsa_core::check_header):
// dimensions, grid and workgroup sizes outside the agent's limits (or that
// do not fit the kernel) are INCOMPATIBLE_ARGUMENTS; a kernel object that is
// not a loaded kernel is INVALID_CODE_OBJECT; a group segment larger than
// the agent's is INVALID_ALLOCATION.
constexpr hsa_status_t kPacketSizes = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
constexpr hsa_status_t kPacketCode = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
constexpr hsa_status_t kPacketGroupSegment = HSA_STATUS_ERROR_INVALID_ALLOCATION;

// Adds one to a count only the processor writes (others read it):
// a load and a store, no locked read-modify-write per dispatch.
void count_one(std::atomic<uint64_t>& count) {
  count.store(count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// What this processor runs beyond dispatches and barrier-AND/OR.
constexpr hsa_core::PacketSupport kPacketSupport{.barrier_value = true};

struct Processor final : hsa_core::PacketProcessor<Processor> {
  explicit Processor(Queue* q) : PacketProcessor(&q->amd, kPacketSupport), queue(q) {}

  Queue* queue;
  hsa_status_t packet_error = HSA_STATUS_SUCCESS;  // status of the refused packet
  bool error_reported = false;                     // the callback was called
  KernelDescriptorCache descriptor_cache;          // the last kernel object dispatched
  DispatchCosts costs;                             // recent kernels' cost per workgroup
  const uint64_t inline_work_ns = inline_dispatch_ns();  // run here below this much work

  // Destroyed, inactivated, or failed (report_error inactivates the queue):
  // the loop ends.
  bool stopping() {
    return queue->stop.load(std::memory_order_acquire) ||
           queue->inactive.load(std::memory_order_acquire);
  }
  bool failed() { return false; }  // a failure inactivates: stopping()
  bool wait_failed(int64_t) { return false; }

  // Sleeps on the doorbell (any change) plus `extra` signals (filtered)
  // until ready() or stop. Only the runtime writes the doorbell and the
  // in-flight count (through the API), so a doorbell-only wait sleeps until
  // notified; `extra` signals may be written behind the API (value pointer,
  // kernel code), so waits on them re-check every sleep_recheck_ns().
  template <typename Ready>
  void wait(Signal* const* extra, const WaitFilter* extra_filters, size_t extra_count,
            Ready&& ready) {
    Signal* signals[8];
    WaitFilter filters[8];
    size_t n = 0;
    signals[n] = queue->doorbell;
    filters[n++] = kAnyChange;
    for (size_t i = 0; i < extra_count && n < 8; ++i, ++n) {
      signals[n] = extra[i];
      filters[n] = extra_filters[i];
    }
    // Yields at every clock read of the poll: what it waits for is mostly
    // an application thread writing packets (one that streams a large
    // command buffer waits for this processor in turn), which may be queued
    // on this very CPU.
    wait_until(signals, n, filters, UINT64_MAX, HSA_WAIT_STATE_BLOCKED,
               extra_count == 0 ? UINT64_MAX : sleep_recheck_ns(),
               [&] { return stopping() || ready(); }, /*yield_interval_ns=*/0);
  }

  void wait_idle() {
    wait(nullptr, nullptr, 0,
         [&] { return queue->inflight.load(std::memory_order_acquire) == 0; });
  }

  // Refuses the packet: the queue reports `status` (ROCR's status for this
  // kind of packet error, see kPacket* below) and stops.
  PacketStatus invalid(hsa_status_t status, const char* what, unsigned long long value) {
    const char* name = "?";
    hsa_status_string(status, &name);
    log("queue %llu: packet at index %llu refused (%.*s): %s (%llu)",
        static_cast<unsigned long long>(queue->amd.hsa_queue.id),
        static_cast<unsigned long long>(*queue->read_index()),
        static_cast<int>(strcspn(name, ":")), name, what, value);
    packet_error = status;
    return PacketStatus::kInvalid;
  }

  // `packet_id`: the packet's AQL id (the read index it was read at).
  PacketStatus dispatch(const hsa_kernel_dispatch_packet_t& packet, uint64_t packet_id) {
    const uint32_t dims = hsa_core::dispatch_dimensions(packet.setup);
    if (dims < 1 || dims > 3) return invalid(kPacketSizes, "setup dimensions not in [1, 3]", dims);
    const uint32_t wg_size[3] = {packet.workgroup_size_x, packet.workgroup_size_y,
                                 packet.workgroup_size_z};
    const uint32_t grid[3] = {packet.grid_size_x, packet.grid_size_y, packet.grid_size_z};
    for (uint32_t d = 0; d < 3; ++d) {
      if (wg_size[d] == 0) return invalid(kPacketSizes, "workgroup size is 0 in a dimension", d);
      if (grid[d] == 0) return invalid(kPacketSizes, "grid size is 0 in a dimension", d);
      if (d >= dims && (wg_size[d] != 1 || grid[d] != 1))
        return invalid(kPacketSizes, "unused dimension must have grid and workgroup size 1", d);
    }
    const uint64_t items_per_group = uint64_t(wg_size[0]) * wg_size[1] * wg_size[2];
    if (items_per_group > kWorkgroupMaxSize)
      return invalid(kPacketSizes, "workgroup exceeds the maximum work items", items_per_group);
    if (packet.kernel_object == 0) return invalid(kPacketCode, "null kernel object", 0);
    xgpu_host_kernel_descriptor_t kernel;
    if (!read_kernel_descriptor_cached(packet.kernel_object, &descriptor_cache, &kernel))
      return invalid(kPacketCode, "kernel object is not a kernel of a loaded executable", packet.kernel_object);
    if (kernel.magic != XGPU_HOST_KERNEL_MAGIC)
      return invalid(kPacketCode, "kernel object is not an xgpu host kernel descriptor (magic)", kernel.magic);
    if (kernel.abi_version != XGPU_HOST_KERNEL_ABI_VERSION)
      return invalid(kPacketCode, "unsupported host kernel ABI version", kernel.abi_version);
    const bool fibers = runs_as_fibers(kernel);
    if (fibers ? kernel.run_workitem == nullptr : kernel.run_workgroup == nullptr)
      return invalid(kPacketCode, "descriptor lacks the entry point its flags need", kernel.flags);
    for (uint32_t d = 0; d < 3; ++d)
      if (kernel.required_workgroup_size[d] != 0 && kernel.required_workgroup_size[d] != wg_size[d])
        return invalid(kPacketSizes, "workgroup size differs from the kernel's required size", wg_size[d]);
    if (kernel.kernarg_size != 0 && packet.kernarg_address == nullptr)
      return invalid(kPacketSizes, "null kernarg address for a kernel with arguments", kernel.kernarg_size);
    // AQL's group_segment_size is the dispatch's total (static + dynamic);
    // a producer that passes only the dynamic part still gets the static.
    const uint32_t group_bytes = packet.group_segment_size > kernel.group_segment_size
                                     ? packet.group_segment_size
                                     : kernel.group_segment_size;
    if (group_bytes > kGroupSegmentMaxBytes)
      return invalid(kPacketGroupSegment, "group segment exceeds the agent's maximum", group_bytes);
    uint32_t counts[3];
    uint64_t total = 1;
    for (uint32_t d = 0; d < 3; ++d) {
      counts[d] = uint32_t((uint64_t(grid[d]) + wg_size[d] - 1) / wg_size[d]);
      total *= counts[d];
    }
    if (total > UINT32_MAX) return invalid(kPacketSizes, "more than 2^32-1 workgroups", total);

    const uint64_t start_ns = queue->profiling() ? now_ns() : 0;
    if (total == 1) {
      // One workgroup cannot use a second thread: run it right here.
      count_one(queue->dispatches_here);
      DispatchJob job(queue, packet, packet_id, kernel, counts, 1, group_bytes, start_ns, false);
      job.run_item(0, WorkerContext::current());
      job.finish();
      return PacketStatus::kDone;
    }
    KernelCost* cost = costs.find(packet.kernel_object);
    const uint64_t per_workgroup = cost->ns_per_workgroup.load(std::memory_order_relaxed);
    const bool here = per_workgroup != 0 && per_workgroup <= inline_work_ns / total;
    const bool probe = !here && per_workgroup != 0 && per_workgroup <= kProbeFactor * inline_work_ns / total &&
                       ++cost->pooled_in_a_row % kProbeEvery == 0;
    if (here || probe) {
      cost->pooled_in_a_row = 0;
      count_one(queue->dispatches_here);
      if (probe) count_one(queue->dispatch_probes);
      // Little work: on this thread, measured again.
      DispatchJob job(queue, packet, packet_id, kernel, counts, uint32_t(total), group_bytes, start_ns, false, cost);
      job.run_items(0, uint32_t(total), WorkerContext::current());
      job.finish();
      return PacketStatus::kDone;
    }
    auto* job = new (std::nothrow) DispatchJob(queue, packet, packet_id, kernel, counts, uint32_t(total),
                                               group_bytes, start_ns, true, cost);
    if (job == nullptr)  // no host memory for the job: the queue fails (never a throw on its thread)
      return invalid(HSA_STATUS_ERROR_OUT_OF_RESOURCES, "no host memory for the dispatch's job of workgroups", total);
    queue->inflight.fetch_add(1, std::memory_order_relaxed);
    count_one(queue->dispatches_pooled);
    runtime()->workers->submit(job, /*help=*/true);
    return PacketStatus::kDone;
  }

  // Barrier-AND and barrier-OR: waits until the core says the dependencies
  // are met or failed (hsa_core::barrier_dependencies).
  PacketStatus barrier(const hsa_barrier_and_packet_t& packet, bool is_or, int64_t* out_error) {
    Signal* deps[5];
    size_t count = 0;
    for (const hsa_signal_t& dep : packet.dep_signal)
      if (dep.handle != 0) deps[count++] = to_signal(dep);
    int64_t negative = 0;
    hsa_core::Dependencies state = hsa_core::barrier_dependencies(packet, is_or, &negative);
    auto ready = [&] {
      state = hsa_core::barrier_dependencies(packet, is_or, &negative);
      return state != hsa_core::Dependencies::kWaiting;
    };
    // Dependencies matter once they reach 0 or below (met or failed).
    const WaitFilter met_or_failed[5] = {
        {false, HSA_SIGNAL_CONDITION_LT, 1}, {false, HSA_SIGNAL_CONDITION_LT, 1},
        {false, HSA_SIGNAL_CONDITION_LT, 1}, {false, HSA_SIGNAL_CONDITION_LT, 1},
        {false, HSA_SIGNAL_CONDITION_LT, 1}};
    if (state == hsa_core::Dependencies::kWaiting) wait(deps, met_or_failed, count, ready);
    if (state == hsa_core::Dependencies::kWaiting) return PacketStatus::kStopped;  // woken by stop
    if (state == hsa_core::Dependencies::kFailed) {
      *out_error = negative;
      return PacketStatus::kDependencyError;
    }
    return PacketStatus::kDone;
  }

  PacketStatus barrier_value(const hsa_amd_barrier_value_packet_t& packet) {
    Signal* signal = to_signal(packet.signal);
    if (signal == nullptr) return PacketStatus::kDone;
    auto ready = [&] { return hsa_core::barrier_value_met(packet); };
    if (!ready()) wait(&signal, &kAnyChange, 1, ready);
    if (!ready() && stopping()) return PacketStatus::kStopped;
    return PacketStatus::kDone;
  }

  // Handles the packet in `slot` (header already observed valid), read at
  // index `read`. Kept out of the loop: inlined, it made the loop's
  // registers spill and replay 6-8 % slower (recording_bench, 1000
  // dispatches: 86-90 ns per dispatch inlined, 79-80 out of line).
  [[gnu::noinline]] PacketStatus process(const void* slot, uint16_t header, uint64_t read, int64_t* out_error) {
    alignas(64) unsigned char packet[kAqlPacketBytes];
    memcpy(packet, slot, sizeof(packet));
    memcpy(packet, &header, sizeof(header));
    const hsa_core::PacketHeader h = decode_header(header);  // checked by the loop (check_header)
    const uint16_t type = h.type;
    if (h.barrier) {
      wait_idle();
      if (stopping()) return PacketStatus::kStopped;
    }
    acquire_fence(h.acquire_scope);
    switch (type) {
      case HSA_PACKET_TYPE_KERNEL_DISPATCH:
        return dispatch(*reinterpret_cast<const hsa_kernel_dispatch_packet_t*>(packet), read);
      case HSA_PACKET_TYPE_BARRIER_AND:
      case HSA_PACKET_TYPE_BARRIER_OR: {
        const auto& p = *reinterpret_cast<const hsa_barrier_and_packet_t*>(packet);
        const PacketStatus status = barrier(p, type == HSA_PACKET_TYPE_BARRIER_OR, out_error);
        if (status == PacketStatus::kDone) signal_completion(queue, p.completion_signal, header, 0);
        return status;
      }
      case HSA_PACKET_TYPE_VENDOR_SPECIFIC: {
        const auto& p = *reinterpret_cast<const hsa_amd_barrier_value_packet_t*>(packet);
        const PacketStatus status = barrier_value(p);
        if (status == PacketStatus::kDone) signal_completion(queue, p.completion_signal, header, 0);
        return status;
      }
      default:  // refused by the loop's check_header
        return invalid(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "unknown packet type", type);
    }
  }

  // Nothing published at `read`: never skip it, sleep until the doorbell
  // rings (any change) and the header is written.
  void idle(uint64_t, const void* slot, int64_t) {
    wait(nullptr, nullptr, 0,
         [&] { return decode_header(load_header(slot)).type != HSA_PACKET_TYPE_INVALID; });
  }

  void refuse(uint64_t, hsa_status_t status, const char* what, uint64_t value) {
    invalid(status, what, value);
    report_error(packet_error);
  }

  // One packet at a time: 1 when it ran, 0 when the queue stops or fails.
  uint64_t run_packets(uint64_t read, void* slot, uint16_t header) {
    int64_t dependency_error = 0;
    switch (process(slot, header, read, &dependency_error)) {
      case PacketStatus::kDone:
        return 1;
      case PacketStatus::kStopped:
        return 0;
      case PacketStatus::kInvalid:
        report_error(packet_error);
        return 0;
      case PacketStatus::kDependencyError: {
        // Propagate the error value to whoever waits on this barrier, then
        // stop: later packets were ordered after a failed dependency.
        const auto* p = reinterpret_cast<const hsa_barrier_and_packet_t*>(slot);
        if (Signal* completion = to_signal(p->completion_signal)) completion->store_release(dependency_error);
        log("queue %llu: barrier at index %llu has a dependency with error value %lld",
            static_cast<unsigned long long>(queue->amd.hsa_queue.id), static_cast<unsigned long long>(read),
            static_cast<long long>(dependency_error));
        report_error(HSA_STATUS_ERROR);
        return 0;
      }
    }
    return 0;
  }

  void report_error(hsa_status_t status) {
    queue->inactive.store(true, std::memory_order_release);
    if (error_reported) return;  // a queue reports one error, as in ROCR
    error_reported = true;
    if (queue->callback != nullptr) queue->callback(status, queue->hsa(), queue->callback_data);
  }

  // A contained kernel fault of this queue: the system event handler hears
  // of a memory fault (HSA_AMD_GPU_MEMORY_FAULT_EVENT with its address),
  // then the queue's callback gets ROCR's status for the fault. Not while
  // the queue is being destroyed (the callback may not see a dying queue).
  void report_fault() {
    KernelFault fault;
    bool faulted;
    {
      std::lock_guard<std::mutex> lock(queue->fault_mutex);
      if (error_reported) return;
      faulted = queue->faulted;
      fault = queue->fault;
    }
    if (queue->stop.load(std::memory_order_acquire)) return;
    if (!faulted) {
      // No fault, but a worker had no host memory to run a workgroup.
      const hsa_status_t worker = queue->worker_error.load(std::memory_order_acquire);
      if (worker == HSA_STATUS_SUCCESS) return;
      log("queue %llu: a worker had no host memory to run a dispatch's workgroup: the queue fails",
          static_cast<unsigned long long>(queue->amd.hsa_queue.id));
      report_error(worker);
      return;
    }
    const hsa_status_t status = fault_status(fault);
    if (fault.signal == SIGSEGV || fault.signal == SIGBUS)
      hsa_core::notify_memory_fault(to_handle(queue->agent), fault.address, fault_reason_mask(fault));
    report_error(status);
  }

  void run() {
    if (!WorkerContext::current().ready) {
      // The processor runs kernel code itself (single workgroups, helping):
      // without its context the queue cannot work.
      log("queue %llu: no host memory for the packet processor's kernel context: the queue fails",
          static_cast<unsigned long long>(queue->amd.hsa_queue.id));
      report_error(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      return;
    }
    loop();
    // Launched dispatches still reference the queue: let them finish. A
    // fault is reported once they all have, when the queue has stopped (as
    // a GPU's queue has when its error is reported): whoever hears of it may
    // free what the dispatches use, their kernels' code included, while
    // another worker would still be in a faulted dispatch's workgroup.
    wait_until(&queue->doorbell, 1, nullptr, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, UINT64_MAX,
               [&] { return queue->inflight.load(std::memory_order_acquire) == 0; });
    report_fault();
  }
};

// ---------------------------------------------------------------------------
// Creation / destruction

std::atomic<uint64_t> g_next_queue_id{0};

// A live queue (the core's registry), or nullptr.
Queue* lookup_queue(const hsa_queue_t* handle) { return static_cast<Queue*>(hsa_core::queue_object(handle)); }

hsa_status_t make_queue(uint32_t size, hsa_queue_type32_t type, Signal* doorbell,
                        bool owns_doorbell, Queue** out_queue) {
  auto* queue = new (std::nothrow) Queue();
  if (queue == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  queue->ring_bytes = size_t(size) * kAqlPacketBytes;
  void* ring = mmap(nullptr, queue->ring_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ring == MAP_FAILED) {
    delete queue;
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  queue->ring = ring;
  for (uint32_t i = 0; i < size; ++i)
    *reinterpret_cast<uint16_t*>(static_cast<unsigned char*>(ring) + size_t(i) * kAqlPacketBytes) =
        kInvalidHeader;
  queue->amd = amd_queue_t{};
  hsa_queue_t& q = queue->amd.hsa_queue;
  q.type = type;
  q.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  q.base_address = ring;
  q.doorbell_signal = to_handle(doorbell);
  q.size = size;
  q.id = g_next_queue_id.fetch_add(1, std::memory_order_relaxed);
  queue->amd.queue_properties = AMD_QUEUE_PROPERTIES_IS_PTR64;
  queue->amd.read_dispatch_id_field_base_byte_offset =
      uint32_t(offsetof(amd_queue_t, read_dispatch_id) - offsetof(amd_queue_t, hsa_queue));
  const uint32_t workers = runtime()->workers->worker_count();
  queue->amd.max_cu_id = workers != 0 ? workers - 1 : 0;
  queue->doorbell = doorbell;
  queue->owns_doorbell = owns_doorbell;
  *out_queue = queue;
  return HSA_STATUS_SUCCESS;
}

void free_queue(Queue* queue) {
  queue->stop.store(true, std::memory_order_seq_cst);
  queue->doorbell->notify_all_waiters();
  if (queue->processor.joinable()) {
    // Launched dispatches may finish within kQueueDestroyGraceNs; after that
    // they are abandoned (as hsa_queue_inactivate does), their running
    // workgroups preempted, so destroying a queue - and hsa_shut_down - ends
    // even under a kernel that never returns.
    const uint64_t deadline = now_ns() + kQueueDestroyGraceNs;
    while (!queue->processor_done.load(std::memory_order_acquire) && now_ns() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!queue->processor_done.load(std::memory_order_acquire)) {
      log("queue %llu: destroyed while a dispatch still runs after %llu ms: the dispatch is abandoned",
          static_cast<unsigned long long>(queue->amd.hsa_queue.id),
          static_cast<unsigned long long>(kQueueDestroyGraceNs / 1'000'000));
      queue->abort.store(true, std::memory_order_seq_cst);
      queue->inactive.store(true, std::memory_order_seq_cst);
      cancel_kernels(&queue->abort);
      queue->doorbell->notify_all_waiters();
    }
    queue->processor.join();
  }
  // A finishing dispatch may still be inside complete_dispatch.
  while (queue->finishers.load(std::memory_order_acquire) != 0) sched_yield();
  munmap(queue->ring, queue->ring_bytes);
  if (queue->owns_doorbell) destroy_internal_signal(queue->doorbell);
  delete queue;
}

}  // namespace

namespace {

// Backend::queue_create: the ring, the doorbell and the packet processor of
// a queue the core has checked.
hsa_status_t create_queue(const hsa_core::QueueRequest& request, void** object, hsa_queue_t** out) {
  Agent* a = runtime()->agent(request.agent);
  Signal* doorbell = create_doorbell_signal();
  if (doorbell == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  Queue* q = nullptr;
  hsa_status_t status = make_queue(request.size, request.type, doorbell, true, &q);
  if (status != HSA_STATUS_SUCCESS) {
    destroy_internal_signal(doorbell);
    return status;
  }
  doorbell->amd.queue_ptr = &q->amd;
  q->agent = a;
  q->callback = request.callback;
  q->callback_data = request.data;
  try {
    q->processor = std::thread([q] {
      Processor processor{q};
      try {
        processor.run();
      } catch (const std::exception& e) {
        // Host memory ran out where the processor could not answer it: the
        // queue fails (nothing is thrown out of its thread).
        log("queue %llu: %s: the queue fails", static_cast<unsigned long long>(q->amd.hsa_queue.id), e.what());
        q->abort.store(true, std::memory_order_seq_cst);
        cancel_kernels(&q->abort);
        processor.report_error(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      }
      q->processor_done.store(true, std::memory_order_release);
    });
  } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for the thread's state
    log("hsa_queue_create: starting the queue's packet processor failed: %s", e.what());
    free_queue(q);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  char name[16];
  snprintf(name, sizeof(name), "hsa-cpu-q%llu", static_cast<unsigned long long>(q->amd.hsa_queue.id));
  pthread_setname_np(q->processor.native_handle(), name);
  *object = q;
  *out = q->hsa();
  return HSA_STATUS_SUCCESS;
}

// Backend::soft_queue_create: a ring on the application's doorbell, no processor.
hsa_status_t create_soft_queue(uint64_t, uint32_t size, hsa_queue_type32_t type, uint32_t features,
                               hsa_signal_t doorbell, void** object, hsa_queue_t** out) {
  Queue* q = nullptr;
  const hsa_status_t status = make_queue(size, type, to_signal(doorbell), false, &q);
  if (status != HSA_STATUS_SUCCESS) return status;
  q->amd.hsa_queue.features = features;
  *object = q;
  *out = q->hsa();
  return HSA_STATUS_SUCCESS;
}

// Backend::queue_inactivate: "aborts any pending executions": launched
// dispatches run no more workgroups and do not complete.
void inactivate_queue(void* object) {
  auto* q = static_cast<Queue*>(object);
  q->abort.store(true, std::memory_order_seq_cst);
  q->inactive.store(true, std::memory_order_seq_cst);
  cancel_kernels(&q->abort);  // workgroups running now stop too (fault.h)
  q->doorbell->notify_all_waiters();
}

}  // namespace

// The core's queue hooks (hsa_core/queue.h).
void set_queue_hooks(hsa_core::Backend& b) {
  b.queue_create = create_queue;
  b.soft_queue_create = create_soft_queue;
  b.queue_destroy = [](void* object) { free_queue(static_cast<Queue*>(object)); };
  b.queue_inactivate = inactivate_queue;
}

}  // namespace hsa_cpu

using namespace hsa_cpu;

// hsa_cpu_ext.h: the layout is the contract with callers that dlsym the
// entry point (no header version is checked at run time).
static_assert(sizeof(hsa_cpu_kernel_fault_t) == 776, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, packet_id) == 8, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, code_object_offset) == 32, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, access) == 40, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, workgroup_id) == 48, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, line) == 64, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, description) == 72, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, function) == 136, "hsa_cpu_kernel_fault_t layout");
static_assert(offsetof(hsa_cpu_kernel_fault_t, file) == 264, "hsa_cpu_kernel_fault_t layout");

HSA_CPU_EXPORT hsa_status_t hsa_cpu_queue_get_kernel_fault(const hsa_queue_t* queue,
                                                           hsa_cpu_kernel_fault_t* out_fault) {
  HSA_CPU_REQUIRE_INIT();
  Queue* q = lookup_queue(queue);
  if (q == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (out_fault == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(q->fault_mutex);
  if (!q->faulted) return HSA_STATUS_INFO_BREAK;
  *out_fault = q->fault_report;
  return HSA_STATUS_SUCCESS;
}

HSA_CPU_EXPORT hsa_status_t hsa_cpu_queue_get_dispatch_counts(const hsa_queue_t* queue,
                                                              hsa_cpu_dispatch_counts_t* out_counts) {
  HSA_CPU_REQUIRE_INIT();
  Queue* q = lookup_queue(queue);
  if (q == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (out_counts == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  out_counts->on_processor = q->dispatches_here.load(std::memory_order_relaxed);
  out_counts->pooled = q->dispatches_pooled.load(std::memory_order_relaxed);
  out_counts->probes = q->dispatch_probes.load(std::memory_order_relaxed);
  return HSA_STATUS_SUCCESS;
}
