// Queues: an amd_queue_t whose ring lives in pinned, mapped host memory (a
// device kernel may write packets into it), and one processor thread per
// queue that turns AQL packets into work on the queue's CUDA stream:
//   kernel dispatch -> cuLaunchKernel (the kernarg bytes as the parameter
//                      buffer, CU_LAUNCH_PARAM_BUFFER_POINTER)
//   barrier-AND     -> cuStreamWaitValue64(dependency == 0) per pending one
//   barrier-OR      -> a host wait by the processor until one dependency is 0
//   completion      -> cuStreamWriteValue64(signal, value at issue - 1); the
//                      idle processor then polls the signal for a while and
//                      wakes the host's sleepers when it lands
// A profiling queue (hsa_amd_profiling_set_profiler_enabled) also records a
// CUDA event before and after each packet's work (profiling.cpp).
// The stream runs packets in order, so every packet behaves as if its barrier
// bit were set. An INVALID header with work in flight makes the processor
// drain the stream and read the slot again (a device kernel may be writing
// it: the DYNAMIC indirect patch); with nothing in flight it sleeps until the
// doorbell is rung.
//
// Thread-safety: the index functions are lock-free; create/destroy may be
// called from any thread but not concurrently for the same queue.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include "graph_runs.h"
#include <hsa_core/events.h>
#include <hsa_core/executable.h>
#include <hsa_core/packet.h>
#include <hsa_core/queue.h>

#include "runtime.h"

namespace hsa_cuda {
namespace {

struct Queue {
  amd_queue_t* amd = nullptr;  // hsa_queue_t at offset 0
  Agent* agent = nullptr;
  void* ring = nullptr;
  CUstream stream = nullptr;
  hsa_signal_t doorbell{0};
  bool owns_doorbell = true;  // false for a soft queue: the application's signal
  void (*callback)(hsa_status_t, hsa_queue_t*, void*) = nullptr;
  void* data = nullptr;
  std::thread thread;
  std::atomic<bool> stop{false};
  std::atomic<bool> inactive{false};  // hsa_queue_inactivate: no packet is issued any more
  bool in_flight = false;  // processor thread only
  bool abandoned = false;  // its stream still ran when it was destroyed (read after the join)
  // The packet being issued when the queue profiles and the packet has a
  // completion signal (processor thread only; its start event is recorded).
  ProfiledPacket* profile = nullptr;
  bool failed = false;     // processor thread only
  // The last completion signal issued, its value before, and until when the
  // processor polls it (processor thread only): a device write wakes no
  // host sleeper, so the processor does, for work that ends soon.
  hsa_signal_t watch{0};
  int64_t watch_before = 0;
  uint64_t watch_until = 0;
  // HSA_CUDA_STATS: what the processor spent per packet (processor thread
  // only; read after it is joined).
  struct {
    uint64_t packets = 0, dispatches = 0, total_ns = 0, launch_ns = 0, signal_ns = 0, wait_ns = 0;
    // Stream waits issued (barrier-AND dependencies not yet 0), and how the
    // processor's completion polls ended: the signal landed (sleepers woken)
    // or the window ran out (the sleepers' 50 µs re-check sees it).
    uint64_t stream_waits = 0, poll_landed = 0, poll_expired = 0;
    // Completion signal issued -> its poll saw it land (GPU + the write's
    // way to the host); doorbell rung -> the processor took the packet; the
    // ring's delay after the last landed completion of any queue.
    uint64_t landed_ns = 0, pickups = 0, pickup_ns = 0, ring_after_landed_ns = 0, rings_after_landed = 0;
    uint64_t last_ring = 0, watch_issued = 0;
    // Runs issued through GraphRuns, and their packets.
    uint64_t runs = 0, run_packets = 0;
    // Of those, the runs a graph launch issued: their packets and the time
    // in cuGraphLaunch; and every run's time reading its packets (waits for
    // unpublished ones apart).
    uint64_t graph_runs = 0, graph_packets = 0, graph_launch_ns = 0, run_read_ns = 0, run_wait_ns = 0;
  } stats;
  // Runs of dispatch packets (processor thread only): the run being
  // described, and the graphs of runs seen before.
  RunSignature run;
  GraphRuns graphs;
  // The longest the next run may be (g_runtime.run_first .. run_max): it
  // doubles after a run that reached it, and starts over after a run cut
  // short. Short first runs let the GPU start while the rest is read; long
  // later ones cost the fewest graph launches.
  uint64_t run_limit = 0;
  // The kernel object of the last dispatch and its handle (processor thread
  // only): consecutive dispatches of one kernel look it up once.
  uint64_t kernel_handle = 0;
  uint64_t kernel_generation = 0;
  KernelObject kernel;
};

}  // namespace
std::atomic<uint64_t> g_last_landed_ns{0};
namespace {

uint64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}


uint16_t header_of(const void* slot) {
  return __atomic_load_n(static_cast<const uint16_t*>(slot), __ATOMIC_ACQUIRE);
}

void fail(Queue* q, hsa_status_t status, const char* what) {
  log_error("queue %llu: packet %llu: %s", (unsigned long long)q->amd->hsa_queue.id,
            (unsigned long long)q->amd->read_dispatch_id, what);
  q->failed = true;
  // A memory fault: the system event handler hears of it first, as from
  // ROCR; CUDA names no address (IMPRECISE, address 0).
  if (uint32_t(status) == uint32_t(HSA_STATUS_ERROR_MEMORY_FAULT))
    hsa_core::notify_memory_fault(hsa_agent_t{reinterpret_cast<uint64_t>(q->agent)}, 0, HSA_AMD_MEMORY_FAULT_IMPRECISE);
  if (q->callback) q->callback(status, &q->amd->hsa_queue, q->data);
}

hsa_status_t fault_status(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS: return hsa_status_t(HSA_STATUS_ERROR_MEMORY_FAULT);
    case CUDA_ERROR_ILLEGAL_INSTRUCTION: return hsa_status_t(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
    default: return HSA_STATUS_ERROR_EXCEPTION;
  }
}

// How long after issuing a completion signal the idle processor polls it:
// 1 ms covers a short kernel's whole run (a 64 Mi-float saxpy takes 0.3 ms
// on an H100); longer work is seen by the sleepers' 50 µs re-check.
constexpr uint64_t kPollNs = 1000000;

// Polls the watched completion signal until it changes (then wakes the
// host's sleepers), the doorbell rings, the queue stops or the poll window
// ends. True when the processor should look at the queue again at once.
bool poll_completion(Queue* q, int64_t rung) {
  for (;;) {
    if (signal_value(q->watch) != q->watch_before) {
      q->watch.handle = 0;
      signals_wake_all();
      if (g_runtime.stats) {
        const uint64_t now = now_ns();
        g_last_landed_ns.store(now, std::memory_order_relaxed);
        q->stats.landed_ns += now - q->stats.watch_issued;
        ++q->stats.poll_landed;
      }
      return true;
    }
    if (signal_value(q->doorbell) != rung ||
        q->stop.load(std::memory_order_acquire))
      return true;
    if (monotonic_ns() >= q->watch_until) {
      q->watch.handle = 0;
      if (g_runtime.stats) ++q->stats.poll_expired;
      return false;
    }
    __builtin_ia32_pause();
  }
}

// Run by CUDA after a completion-signal write (a stream host function; it
// calls no CUDA API): the write itself wakes nobody on the host.
void wake_sleepers(void*) { signals_wake_all(); }

// Issues the completion signal's decrement on the stream.
bool complete(Queue* q, hsa_signal_t signal) {
  if (!signal.handle) return true;
  const CUdeviceptr address = signal_device_address(signal);
  if (!address) {
    fail(q, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "the completion signal is not a signal of this runtime");
    return false;
  }
  if (q->profile && q->profile->start)
    profiling_end(q->agent, q->stream, q->profile, signal);
  else
    profiling_forget(signal);
  const int64_t target = signal_value(signal) - 1;
  const uint64_t start = g_runtime.stats ? now_ns() : 0;
  CUresult r = g_runtime.cuda.cuStreamWriteValue64(q->stream, address, uint64_t(target), CU_STREAM_WRITE_VALUE_DEFAULT);
  if (r == CUDA_SUCCESS && g_runtime.host_wake) r = g_runtime.cuda.cuLaunchHostFunc(q->stream, wake_sleepers, nullptr);
  if (g_runtime.stats) q->stats.signal_ns += now_ns() - start;
  if (r != CUDA_SUCCESS) {
    fail(q, fault_status(r), ("cuStreamWriteValue64 / cuLaunchHostFunc: " + cuda_error_text(r)).c_str());
    return false;
  }
  q->watch = signal;
  q->watch_before = target + 1;
  q->watch_until = monotonic_ns() + kPollNs;
  if (g_runtime.stats) q->stats.watch_issued = now_ns();
  q->in_flight = true;
  return true;
}

// The launch a dispatch packet makes: checks the packet (failing the queue
// with what is wrong when `report`, else leaving it be) and fills *record and
// `params` (at least kParamsCapacity bytes) with cuLaunchKernel's arguments.
constexpr size_t kParamsCapacity = 4096 + kGridParamSize;
bool prepare(Queue* q, const hsa_kernel_dispatch_packet_t* p, bool report, LaunchRecord* record, uint8_t* params) {
  auto reject = [&](hsa_status_t status, const std::string& what) {
    if (report) fail(q, status, what.c_str());
    return false;
  };
  const uint64_t generation = hsa_core::kernel_object_generation();
  // (A null kernel object is looked up, and refused, like any other: the
  // queue's cached handle starts at 0.)
  if (p->kernel_object == 0 || p->kernel_object != q->kernel_handle || generation != q->kernel_generation) {
    KernelObject kernel;
    if (!kernel_object_lookup(p->kernel_object, &kernel) || kernel.agent != q->agent) {
      q->kernel_handle = 0;
      return reject(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "kernel_object is not a kernel loaded for this agent");
    }
    q->kernel = std::move(kernel);
    q->kernel_handle = p->kernel_object;
    q->kernel_generation = generation;
  }
  const KernelObject& kernel = q->kernel;
  const uint32_t dims = hsa_core::dispatch_dimensions(p->setup);
  const uint32_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  const uint32_t block[3] = {p->workgroup_size_x, p->workgroup_size_y, p->workgroup_size_z};
  for (uint32_t d = 0; d < 3; ++d) {
    if (dims < 1 || grid[d] == 0 || block[d] == 0 || (d >= dims && (grid[d] != 1 || block[d] != 1)))
      return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "bad dimensions, grid or workgroup size");
    if (grid[d] % block[d] != 0 && !kernel.grid_offset) {
      // CUDA launches whole blocks; the kernel would not know the grid's
      // partial edge.
      return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
                    "the grid size is not a multiple of the workgroup size (not supported on CUDA yet)");
    }
    record->blocks[d] = grid[d] / block[d] + (grid[d] % block[d] != 0);
    record->block[d] = block[d];
    if (record->blocks[d] > unsigned(q->agent->max_grid[d]) || block[d] > unsigned(q->agent->max_block[d]))
      return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "grid or workgroup beyond the device's limits");
  }
  if (kernel.required_size[0] != 0 &&
      (block[0] != kernel.required_size[0] || block[1] != kernel.required_size[1] ||
       block[2] != kernel.required_size[2]))
    return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "workgroup size differs from the kernel's required size");
  if (uint64_t(block[0]) * block[1] * block[2] > uint64_t(kernel.max_threads))
    return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "more work items per workgroup than the kernel allows");
  if (kernel.kernarg_size && !p->kernarg_address)
    return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "null kernarg_address for a kernel with arguments");
  const uint32_t dynamic_shared =
      p->group_segment_size > kernel.group_segment_size ? p->group_segment_size - kernel.group_segment_size : 0;
  if (uint64_t(dynamic_shared) + kernel.group_segment_size > uint64_t(q->agent->shared_per_block))
    return reject(HSA_STATUS_ERROR_INVALID_ALLOCATION, "group segment larger than the device's shared memory per block");
  record->function = kernel.function;
  record->shared = dynamic_shared;
  if (kernel.grid_offset) {
    // The kernarg bytes, then the grid in work items and, for a kernel that
    // may print, the kernarg segment's address (xgpu_nvptx_grid_t: the
    // kernel reads its print slots before that address, host memory the
    // device maps; 0 for the others, which never read it).
    if (kernel.grid_offset > 4096)
      return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "kernarg segment larger than 4096 bytes");
    std::memset(params, 0, kernel.grid_offset + kGridParamSize);
    if (kernel.kernarg_size) std::memcpy(params, p->kernarg_address, kernel.kernarg_size);
    std::memcpy(params + kernel.grid_offset, grid, sizeof(grid));
    const uint64_t kernarg_address = kernel.prints ? uint64_t(reinterpret_cast<uintptr_t>(p->kernarg_address)) : 0;
    std::memcpy(params + kernel.grid_offset + 16, &kernarg_address, sizeof(kernarg_address));
    record->size = kernel.grid_offset + kGridParamSize;
  } else {
    if (kernel.kernarg_size > kParamsCapacity)
      return reject(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "kernarg segment larger than 4096 bytes");
    if (kernel.kernarg_size) std::memcpy(params, p->kernarg_address, kernel.kernarg_size);
    record->size = kernel.kernarg_size;
  }
  return true;
}

bool dispatch(Queue* q, const hsa_kernel_dispatch_packet_t* p) {
  LaunchRecord record;
  alignas(16) uint8_t params[kParamsCapacity];
  if (!prepare(q, p, /*report=*/true, &record, params)) return false;
  size_t size = record.size;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  const uint64_t start = g_runtime.stats ? now_ns() : 0;
  CUresult r = g_runtime.cuda.cuLaunchKernel(record.function, record.blocks[0], record.blocks[1], record.blocks[2],
                                             record.block[0], record.block[1], record.block[2], record.shared,
                                             q->stream, nullptr, size ? extra : nullptr);
  if (g_runtime.stats) {
    q->stats.launch_ns += now_ns() - start;
    ++q->stats.dispatches;
  }
  if (r != CUDA_SUCCESS) {
    fail(q, fault_status(r), ("cuLaunchKernel " + q->kernel.name + ": " + cuda_error_text(r)).c_str());
    return false;
  }
  q->in_flight = true;
  return complete(q, p->completion_signal);
}

// A barrier packet's dependency that failed (negative: its producer
// failed): the completion signal takes its value and the queue fails, as on
// every runtime of the core (hsa_core::barrier_dependencies).
bool dependency_failed(Queue* q, const hsa_barrier_and_packet_t* p, int64_t value) {
  if (p->completion_signal.handle) hsa_signal_store_screlease(p->completion_signal, value);
  fail(q, HSA_STATUS_ERROR, "a barrier dependency is negative (its producer failed)");
  return false;
}

// Barrier-AND: the dependencies not yet 0 are waited for on the stream
// (cuStreamWaitValue64), so later packets queue behind them on the device.
bool barrier_and(Queue* q, const hsa_barrier_and_packet_t* p) {
  int64_t failed_value = 0;
  if (hsa_core::barrier_dependencies(*p, /*is_or=*/false, &failed_value) == hsa_core::Dependencies::kFailed)
    return dependency_failed(q, p, failed_value);
  for (hsa_signal_t dependency : p->dep_signal) {
    if (!dependency.handle || signal_value(dependency) == 0) continue;
    const CUdeviceptr address = signal_device_address(dependency);
    if (!address) {
      fail(q, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "a dependency is not a signal of this runtime");
      return false;
    }
    const uint64_t start = g_runtime.stats ? now_ns() : 0;
    CUresult r = g_runtime.cuda.cuStreamWaitValue64(q->stream, address, 0, CU_STREAM_WAIT_VALUE_EQ);
    if (g_runtime.stats) {
      q->stats.wait_ns += now_ns() - start;
      ++q->stats.stream_waits;
    }
    if (r != CUDA_SUCCESS) {
      fail(q, fault_status(r), ("cuStreamWaitValue64: " + cuda_error_text(r)).c_str());
      return false;
    }
    q->in_flight = true;
  }
  return complete(q, p->completion_signal);
}

// Barrier-OR (a stream cannot wait for one of several values): waited for
// on the processor's thread.
bool barrier_or(Queue* q, const hsa_barrier_or_packet_t* p) {
  const auto* as_and = reinterpret_cast<const hsa_barrier_and_packet_t*>(p);
  for (;;) {
    int64_t failed_value = 0;
    const hsa_core::Dependencies state = hsa_core::barrier_dependencies(*as_and, /*is_or=*/true, &failed_value);
    if (state == hsa_core::Dependencies::kFailed) return dependency_failed(q, as_and, failed_value);
    if (state == hsa_core::Dependencies::kMet) return complete(q, p->completion_signal);
    if (q->stop.load(std::memory_order_acquire)) return false;
    for (hsa_signal_t dependency : p->dep_signal) {
      if (!dependency.handle) continue;
      signal_wait(dependency, HSA_SIGNAL_CONDITION_LT, 1, 1000000, &q->stop);
      break;
    }
  }
}

// AMD barrier-value: waited for on the processor's thread, as barrier-OR.
bool barrier_value(Queue* q, const hsa_amd_barrier_value_packet_t* p) {
  while (!hsa_core::barrier_value_met(*p)) {
    if (q->stop.load(std::memory_order_acquire)) return false;
    signal_wait(p->signal, HSA_SIGNAL_CONDITION_NE, signal_value(p->signal), 1000000, &q->stop);
  }
  return complete(q, p->completion_signal);
}

// Drains the stream; false (and the queue fails) when the device faulted.
bool drain(Queue* q) {
  if (!q->in_flight) return true;
  CUresult r = g_runtime.cuda.cuStreamSynchronize(q->stream);
  q->in_flight = false;
  if (r != CUDA_SUCCESS) {
    int none = 0;  // CUDA keeps a fault for the whole process
    g_runtime.sticky_fault.compare_exchange_strong(none, int(r));
    fail(q, fault_status(r), ("the device faulted: " + cuda_error_text(r)).c_str());
    return false;
  }
  return true;
}

// How long a destroyed queue's stream may still run before it is abandoned.
constexpr uint64_t kDestroyGraceNs = 2'000'000'000;

// The processor's last act: the stream finishes within kDestroyGraceNs
// (drained, faults reported) or is abandoned - CUDA cannot take back a
// launched kernel, and waiting for one that never ends would make the
// queue's destroy, and hsa_shut_down, wait forever.
void finish_or_abandon(Queue* q) {
  if (!q->in_flight) return;
  const uint64_t deadline = now_ns() + kDestroyGraceNs;
  while (g_runtime.cuda.cuStreamQuery(q->stream) == CUDA_ERROR_NOT_READY) {
    if (now_ns() >= deadline) {
      q->abandoned = true;
      g_runtime.abandoned_work.store(true, std::memory_order_release);
      log_error("queue %llu: destroyed while its stream still runs after %llu ms: the work is abandoned (the "
                "device's context is reset at hsa_shut_down)",
                (unsigned long long)q->amd->hsa_queue.id, (unsigned long long)(kDestroyGraceNs / 1000000));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  drain(q);
}

// What this processor runs beyond dispatches and barrier-AND/OR.
constexpr hsa_core::PacketSupport kPacketSupport{.barrier_value = true};

// Runs shorter than this go packet by packet: a graph pays off over many.
constexpr uint64_t kMinRunPackets = 8;
// How long the processor waits for a packet the writer has reserved but not
// yet published (the doorbell not rung past it), so that a run is not cut
// where the writer happened to be.
constexpr uint64_t kRunWaitNs = 20000;

// Issues the run of dispatch packets that starts at `read` (graph_runs.h):
// consecutive valid dispatch packets up to the first with a completion
// signal (included), a barrier packet, one that is not published, one the
// per-packet path would refuse, or the queue's run_limit. Returns the packets
// issued, 0 when the run is too short (the caller goes packet by packet), or
// -1 when the stream refused it (the queue failed).
int64_t issue_run(Queue* q, uint64_t read, uint64_t write) {
  hsa_queue_t& hq = q->amd->hsa_queue;
  const uint64_t mask = hq.size - 1;
  q->run.clear();
  LaunchRecord record;
  alignas(16) uint8_t params[kParamsCapacity];
  hsa_signal_t last{0};
  uint64_t j = read;
  const uint64_t read_start = g_runtime.stats ? now_ns() : 0;
  uint64_t waited = 0;
  if (q->run_limit == 0) q->run_limit = g_runtime.run_first;
  const uint64_t limit = q->run_limit;
  // (Never past the ring: a producer may reserve indices beyond it before
  // it waits for room, and slot j + size is slot j.)
  while (j - read < limit && j - read < hq.size) {
    if (j >= write) {
      write = __atomic_load_n(&q->amd->write_dispatch_id, __ATOMIC_ACQUIRE);
      if (j >= write) break;
    }
    const auto* slot = static_cast<const uint8_t*>(hq.base_address) + (j & mask) * 64;
    uint16_t header = header_of(slot);
    if ((header & 0xff) == HSA_PACKET_TYPE_INVALID) {
      // Reserved and not yet written: the doorbell (rung with the last
      // packet the writer published) has not reached it. Published and
      // still INVALID: a packet a device kernel will write (the DYNAMIC
      // indirect patch), which ends the run.
      const uint64_t wait_start = now_ns();
      const uint64_t deadline = wait_start + kRunWaitNs;
      while ((header & 0xff) == HSA_PACKET_TYPE_INVALID &&
             signal_value(q->doorbell) < int64_t(j) &&
             now_ns() < deadline && !q->stop.load(std::memory_order_relaxed)) {
        __builtin_ia32_pause();
        header = header_of(slot);
      }
      waited += now_ns() - wait_start;
      if ((header & 0xff) == HSA_PACKET_TYPE_INVALID) break;
    }
    const uint32_t type = header & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
    const char* what = nullptr;
    uint64_t value = 0;
    if (type != HSA_PACKET_TYPE_KERNEL_DISPATCH ||
        hsa_core::check_header(slot, header, kPacketSupport, &what, &value) != HSA_STATUS_SUCCESS)
      break;  // the per-packet path runs or refuses it
    const auto* p = reinterpret_cast<const hsa_kernel_dispatch_packet_t*>(slot);
    if (!prepare(q, p, /*report=*/false, &record, params)) break;
    q->run.add(record, params);
    ++j;
    if (p->completion_signal.handle) {
      last = p->completion_signal;
      break;
    }
  }
  // The next run's limit: twice this one's after a run that reached it
  // (the packets keep coming), the first's after one cut short. A queue's
  // runs therefore start where they started the last time the same packets
  // came: a replayed command buffer's runs match its earlier ones.
  q->run_limit = j - read == limit ? std::min<uint64_t>(limit * 2, g_runtime.run_max) : g_runtime.run_first;
  if (j - read < kMinRunPackets) return 0;
  bool as_graph = false;
  const uint64_t start = g_runtime.stats ? now_ns() : 0;
  const CUresult r = q->graphs.issue(q->stream, q->run, &as_graph);
  if (g_runtime.stats) {
    const uint64_t end = now_ns();
    q->stats.run_read_ns += start - read_start - waited;
    q->stats.run_wait_ns += waited;
    if (as_graph) {
      ++q->stats.graph_runs;
      q->stats.graph_packets += j - read;
      q->stats.graph_launch_ns += end - start;
    }
    q->stats.launch_ns += end - start;
    q->stats.dispatches += j - read;
    ++q->stats.runs;
    q->stats.run_packets += j - read;
  }
  if (r != CUDA_SUCCESS) {
    fail(q, fault_status(r), ("a run of " + std::to_string(j - read) + " kernel launches: " + cuda_error_text(r)).c_str());
    return -1;
  }
  q->in_flight = true;
  if (!complete(q, last)) return -1;
  return int64_t(j - read);
}

// The queue's packet processor: the core's loop (hsa_core::PacketProcessor)
// with how this runtime runs packets (on the queue's CUDA stream: runs of
// dispatches as graphs, the rest packet by packet) and waits when idle.
class Processor final : public hsa_core::PacketProcessor<Processor> {
 public:
  explicit Processor(Queue* q) : PacketProcessor(q->amd, kPacketSupport), q(q) {}

 private:
  friend class hsa_core::PacketProcessor<Processor>;  // calls the hooks below

  bool stopping() { return q->stop.load(std::memory_order_acquire); }

  bool failed() {
    // Inactivated: what the stream holds runs to its end (CUDA cannot take
    // back launched work); nothing more is issued.
    if (q->inactive.load(std::memory_order_acquire)) q->failed = true;
    return q->failed;
  }

  bool wait_failed(int64_t rung) {
    signal_wait(q->doorbell, HSA_SIGNAL_CONDITION_NE, rung, 100000000ull, &q->stop);
    return true;  // until the queue is destroyed
  }

  void idle(uint64_t read, const void*, int64_t rung) {
    if (q->in_flight) {
      const uint64_t write = __atomic_load_n(&q->amd->write_dispatch_id, __ATOMIC_ACQUIRE);
      const CUresult r = g_runtime.cuda.cuStreamQuery(q->stream);
      if (r == CUDA_ERROR_NOT_READY && read >= write) {
        // Idle with work in flight: poll a fresh completion signal, then
        // watch for faults every 200 µs.
        if (q->watch.handle && poll_completion(q, rung)) return;
        signal_wait(q->doorbell, HSA_SIGNAL_CONDITION_NE, rung, 200000, &q->stop);
      } else {
        // Done, faulted, or a submitted slot still INVALID: a kernel in
        // flight may be writing it, so finish the stream and look again.
        drain(q);
      }
      return;
    }
    signal_wait(q->doorbell, HSA_SIGNAL_CONDITION_NE, rung, 100000000ull, &q->stop);
  }

  void refuse(uint64_t, hsa_status_t status, const char* what, uint64_t value) {
    fail(q, status, (std::string(what) + " (" + std::to_string(value) + ")").c_str());
  }

  uint64_t run_packets(uint64_t read, void* slot, uint16_t header) {
    const uint32_t type = hsa_core::decode_header(header).type;
    // A run of dispatch packets (not on a profiling queue: each packet
    // there gets its own events).
    if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH && g_runtime.graphs &&
        !(__atomic_load_n(&q->amd->queue_properties, __ATOMIC_RELAXED) & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING)) {
      const uint64_t write = __atomic_load_n(&q->amd->write_dispatch_id, __ATOMIC_ACQUIRE);
      const int64_t issued = issue_run(q, read, write);
      if (issued < 0) return 0;
      if (issued > 0) {
        if (g_runtime.stats) q->stats.packets += uint64_t(issued);
        return uint64_t(issued);
      }
    }
    bool ok = true;
    const uint64_t start = g_runtime.stats ? now_ns() : 0;
    // Profiling: an event before the packet's work; complete() records the
    // one after it and keeps the pair with the completion signal.
    ProfiledPacket profile;
    if ((__atomic_load_n(&q->amd->queue_properties, __ATOMIC_RELAXED) & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) &&
        reinterpret_cast<const hsa_barrier_and_packet_t*>(slot)->completion_signal.handle &&
        profiling_begin(q->agent, q->stream, &profile))
      q->profile = &profile;
    if (g_runtime.stats) {
      const amd_signal_t* bell = signal_object(q->doorbell);
      const uint64_t ring = __atomic_load_n(&bell->start_ts, __ATOMIC_RELAXED);
      if (ring && ring != q->stats.last_ring && ring <= start) {
        q->stats.last_ring = ring;
        q->stats.pickup_ns += start - ring;
        ++q->stats.pickups;
        const uint64_t landed = __atomic_load_n(&bell->end_ts, __ATOMIC_RELAXED);
        if (landed && landed <= ring) {
          q->stats.ring_after_landed_ns += ring - landed;
          ++q->stats.rings_after_landed;
        }
      }
    }
    if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH)
      ok = dispatch(q, reinterpret_cast<const hsa_kernel_dispatch_packet_t*>(slot));
    else if (type == HSA_PACKET_TYPE_BARRIER_AND)
      ok = barrier_and(q, reinterpret_cast<const hsa_barrier_and_packet_t*>(slot));
    else if (type == HSA_PACKET_TYPE_BARRIER_OR)
      ok = barrier_or(q, reinterpret_cast<const hsa_barrier_or_packet_t*>(slot));
    else  // HSA_PACKET_TYPE_VENDOR_SPECIFIC: a barrier-value packet (check_header)
      ok = barrier_value(q, reinterpret_cast<const hsa_amd_barrier_value_packet_t*>(slot));
    if (q->profile) {
      profiling_abandon(q->agent, &profile);  // when the packet failed before its end event
      q->profile = nullptr;
    }
    if (!ok) return 0;
    if (g_runtime.stats) {
      q->stats.total_ns += now_ns() - start;
      ++q->stats.packets;
    }
    return 1;
  }

  Queue* const q;
};

void process(Queue* q) {
  make_current(q->agent);
  Processor processor(q);
  processor.loop();
  finish_or_abandon(q);
  // An abandoned stream may still run a graph: it stays (leaked).
  if (q->abandoned)
    q->graphs.abandon();
  else
    q->graphs.release();
}

void destroy(Queue* q) {
  q->stop.store(true, std::memory_order_release);
  signals_wake_all();
  if (q->thread.joinable()) q->thread.join();
  if (g_runtime.stats && q->stats.packets) {
    const auto& st = q->stats;
    const double n = double(st.packets);
    std::fprintf(stderr,
                 "hsa-cuda: queue %llu: %llu packets (%llu dispatches); per packet %.0f ns in the processor, of "
                 "which cuLaunchKernel %.0f, completion signal (cuStreamWriteValue64 + cuLaunchHostFunc) %.0f, "
                 "cuStreamWaitValue64 %.0f; per dispatch "
                 "cuLaunchKernel %.0f ns; %llu stream waits; completion polls: %llu landed, %llu ran out; "
                 "completion issued -> landed %.0f ns; doorbell -> packet taken %.0f ns (%llu rings); "
                 "ring after the last landed completion %.0f ns; %llu runs of %llu packets (%llu first seen, %llu "
                 "captured, %llu graph launches); runs as graphs: %llu of %llu packets, cuGraphLaunch %.0f ns per "
                 "packet; reading a run %.0f ns per packet, waiting in it for unpublished packets %.0f ns per "
                 "packet\n",
                 (unsigned long long)q->amd->hsa_queue.id, (unsigned long long)st.packets,
                 (unsigned long long)st.dispatches, double(st.total_ns) / n, double(st.launch_ns) / n,
                 double(st.signal_ns) / n, double(st.wait_ns) / n,
                 st.dispatches ? double(st.launch_ns) / double(st.dispatches) : 0.0,
                 (unsigned long long)st.stream_waits, (unsigned long long)st.poll_landed,
                 (unsigned long long)st.poll_expired,
                 st.poll_landed ? double(st.landed_ns) / double(st.poll_landed) : 0.0,
                 st.pickups ? double(st.pickup_ns) / double(st.pickups) : 0.0, (unsigned long long)st.pickups,
                 st.rings_after_landed ? double(st.ring_after_landed_ns) / double(st.rings_after_landed) : 0.0,
                 (unsigned long long)st.runs, (unsigned long long)st.run_packets,
                 (unsigned long long)q->graphs.first_sightings, (unsigned long long)q->graphs.captures,
                 (unsigned long long)q->graphs.graph_launches, (unsigned long long)st.graph_packets,
                 (unsigned long long)st.run_packets,
                 st.graph_packets ? double(st.graph_launch_ns) / double(st.graph_packets) : 0.0,
                 st.run_packets ? double(st.run_read_ns) / double(st.run_packets) : 0.0,
                 st.run_packets ? double(st.run_wait_ns) / double(st.run_packets) : 0.0);
  }
  make_current(q->agent);
  // An abandoned stream may still write completion values: it and the ring
  // stay (leaked) until hsa_shut_down resets the context.
  if (q->stream && !q->abandoned) g_runtime.cuda.cuStreamDestroy(q->stream);
  if (q->ring && !q->abandoned) g_runtime.cuda.cuMemFreeHost(q->ring);
  if (q->doorbell.handle && q->owns_doorbell) doorbell_destroy(q->doorbell);
  std::free(q->amd);
  delete q;
}

}  // namespace

namespace {

std::atomic<uint64_t> g_next_queue_id{0};

// A queue of `agent` with its amd_queue_t and a ring of `size` packets
// (INVALID headers) in pinned host memory the devices map; no doorbell, no
// stream, no processor yet. nullptr when out of memory (nothing is left).
Queue* make_ring_queue(Agent* agent, uint32_t size, hsa_queue_type32_t type, uint32_t features) {
  auto* q = new (std::nothrow) Queue;
  if (q == nullptr) return nullptr;
  q->agent = agent;
  q->amd = static_cast<amd_queue_t*>(std::aligned_alloc(AMD_QUEUE_ALIGN_BYTES, sizeof(amd_queue_t)));
  if (q->amd == nullptr) {
    delete q;
    return nullptr;
  }
  std::memset(static_cast<void*>(q->amd), 0, sizeof(amd_queue_t));
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  if (make_current(agent))
    r = g_runtime.cuda.cuMemHostAlloc(&q->ring, size_t(size) * 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (r != CUDA_SUCCESS) {
    log_error("hsa_queue_create: %s", cuda_error_text(r).c_str());
    q->ring = nullptr;
    destroy(q);
    return nullptr;
  }
  for (uint32_t i = 0; i < size; ++i)
    *reinterpret_cast<uint16_t*>(static_cast<uint8_t*>(q->ring) + size_t(i) * 64) = HSA_PACKET_TYPE_INVALID;
  hsa_queue_t& hq = q->amd->hsa_queue;
  hq.type = type;
  hq.features = features;
  hq.base_address = q->ring;
  hq.size = size;
  hq.id = g_next_queue_id.fetch_add(1);
  return q;
}

// Backend::queue_create: a ring queue with a doorbell, a stream and the
// processor thread, for a queue the core has checked.
hsa_status_t create_queue(const hsa_core::QueueRequest& request, void** object, hsa_queue_t** out) {
  Queue* q = make_ring_queue(to_agent(request.agent), request.size, request.type, HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
  if (q == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  q->callback = request.callback;
  q->data = request.data;
  auto cleanup = [&](hsa_status_t status) {
    destroy(q);
    return status;
  };
  const CUresult r = g_runtime.cuda.cuStreamCreate(&q->stream, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) {
    log_error("hsa_queue_create: %s", cuda_error_text(r).c_str());
    return cleanup(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  }
  if (doorbell_create(&q->doorbell) != HSA_STATUS_SUCCESS) return cleanup(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  q->amd->hsa_queue.doorbell_signal = q->doorbell;
  signal_object(q->doorbell)->queue_ptr = q->amd;
  try {
    q->thread = std::thread(process, q);
  } catch (const std::exception& e) {
    log_error("hsa_queue_create: starting the queue's processor failed: %s", e.what());
    return cleanup(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  }
  *object = q;
  *out = &q->amd->hsa_queue;
  return HSA_STATUS_SUCCESS;
}

// Backend::soft_queue_create: a ring queue on the application's doorbell with
// no processor and no stream, whichever global region was named (the host
// writes its packets; the application's consumer reads them).
hsa_status_t create_soft_queue(uint64_t, uint32_t size, hsa_queue_type32_t type, uint32_t features,
                               hsa_signal_t doorbell, void** object, hsa_queue_t** out) {
  Agent* gpu = nullptr;
  for (const auto& agent : g_runtime.agents)
    if (!agent->host) {
      gpu = agent.get();
      break;
    }
  if (gpu == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  Queue* q = make_ring_queue(gpu, size, type, features);
  if (q == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  q->owns_doorbell = false;
  q->doorbell = doorbell;
  q->amd->hsa_queue.doorbell_signal = doorbell;
  *object = q;
  *out = &q->amd->hsa_queue;
  return HSA_STATUS_SUCCESS;
}

}  // namespace

// The core's queue hooks (hsa_core/queue.h).
void set_queue_hooks(hsa_core::Backend& b) {
  b.queue_create = create_queue;
  b.soft_queue_create = create_soft_queue;
  b.queue_destroy = [](void* object) { destroy(static_cast<Queue*>(object)); };
  b.queue_inactivate = [](void* object) {
    static_cast<Queue*>(object)->inactive.store(true, std::memory_order_release);
    signals_wake_all();
  };
  b.queue_profiling = [](void* object, bool enable) {
    // The agent's first anchor now rather than at the first profiled packet.
    if (enable && !profiling_prepare(static_cast<Queue*>(object)->agent)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    return HSA_STATUS_SUCCESS;
  };
}

}  // namespace hsa_cuda

