// hsa-cpu queues: AQL ring buffers laid out as ROCR's amd_queue_t, each with
// a packet-processor thread.
//
// The processor owns the read index. It handles packets strictly in order:
// an INVALID header stalls it (it sleeps on the doorbell until the header is
// published), the barrier bit waits for all earlier packets to complete,
// kernel dispatches are split into workgroups on the worker pool (a single
// workgroup runs on the processor thread itself), barrier packets block the
// queue until their dependencies resolve. After a packet is launched its
// slot is handed back by writing an INVALID header, then the read index
// advances. The processor sleeps on the doorbell whenever it has nothing to
// do; it never spins while idle.
//
// A kernel that faults (fault.h) fails its queue like a GPU memory fault:
// the queue stops, its launched dispatches are abandoned (their completion
// signals are not decremented), the system event handler (memory faults)
// and then the queue's error callback are told, on the processor thread.
// The faulting thread, once the queue is stopping, writes the fault's report
// (packet, workgroup, access, source position: hsa_cpu_ext.h) before its
// dispatch can finish, so it is complete before the callback runs.
//
// Threading: the index entry points are lock-free and thread-safe; create,
// destroy and inactivate are thread-safe. The error callback runs on the
// processor thread and must not destroy its own queue.
#ifndef HSA_CPU_QUEUE_H_
#define HSA_CPU_QUEUE_H_

#include <hsa/amd_hsa_queue.h>

#include <thread>

#include "fault.h"
#include "runtime.h"
#include "signal.h"

namespace hsa_cpu {

struct alignas(AMD_QUEUE_ALIGN_BYTES) Queue {
  amd_queue_t amd;                    // ROCR layout; hsa_queue_t* points here
  Agent* agent = nullptr;             // owning agent (null for soft queues)
  Signal* doorbell = nullptr;         // processor wake-up (internal signal)
  bool owns_doorbell = false;         // false for soft queues
  void* ring = nullptr;               // size * 64 bytes of packets (mmap)
  size_t ring_bytes = 0;              // bytes mapped at ring
  void (*callback)(hsa_status_t, hsa_queue_t*, void*) = nullptr;  // errors
  void* callback_data = nullptr;      // passed to callback
  std::atomic<bool> stop{false};      // destroy requested
  std::atomic<bool> inactive{false};  // inactivated or in error: no processing
  std::atomic<bool> abort{false};     // inactivated, a kernel faulted or destroyed
                                      // past its grace (kQueueDestroyGraceNs): the
                                      // remaining workgroups of launched
                                      // dispatches are skipped, their
                                      // completion signals left alone
  std::atomic<hsa_status_t> worker_error{HSA_STATUS_SUCCESS};  // a worker could not run a
                                      // workgroup (OUT_OF_RESOURCES: no host memory)
  std::mutex fault_mutex;             // guards faulted, fault, fault_report
  bool faulted = false;               // a kernel of this queue faulted
  KernelFault fault;                  // the first such fault
  hsa_cpu_kernel_fault_t fault_report{};  // its report (hsa_cpu_queue_get_kernel_fault)
  std::atomic<uint32_t> inflight{0};  // pool dispatches launched, not complete
  // Where the processor ran the queue's dispatches (written by the processor
  // alone, by load and store; hsa_cpu_queue_get_dispatch_counts reads them
  // from any thread).
  std::atomic<uint64_t> dispatches_here{0};   // on the processor's thread (probes included)
  std::atomic<uint64_t> dispatches_pooled{0}; // handed to the worker pool
  std::atomic<uint64_t> dispatch_probes{0};   // on the processor's thread to measure them again
  std::atomic<uint32_t> finishers{0}; // threads inside complete_dispatch
  std::thread processor;              // the packet processor
  std::atomic<bool> processor_done{false};  // the processor's run() returned

  hsa_queue_t* hsa() { return &amd.hsa_queue; }
  uint64_t* read_index() { return const_cast<uint64_t*>(&amd.read_dispatch_id); }
  uint64_t* write_index() { return const_cast<uint64_t*>(&amd.write_dispatch_id); }
  bool profiling() const {
    return (amd.queue_properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING) != 0;
  }
};
static_assert(offsetof(Queue, amd) == 0, "hsa_queue_t* must point at amd_queue_t");

// How long destroying a queue lets its launched dispatches finish before it
// abandons them (preempting their running workgroups).
inline constexpr uint64_t kQueueDestroyGraceNs = 2'000'000'000;

}  // namespace hsa_cpu

#endif  // HSA_CPU_QUEUE_H_
