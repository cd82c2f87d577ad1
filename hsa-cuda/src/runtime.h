// hsa-cuda internals shared by the runtime's translation units.
//
// Thread-safety: g_runtime's tables (agents, pools, ISAs) are written by the
// first hsa_init and read-only until the last hsa_shut_down (the core
// serialises those). The registries
// (allocations, signals, kernel objects) are guarded by their own mutexes.
#pragma once

#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

#include "cuda_driver.h"

namespace hsa_cuda {

struct Agent;

enum class PoolKind { kDevice, kGroup, kHost, kKernarg };

struct Pool {
  Agent* agent = nullptr;
  PoolKind kind = PoolKind::kDevice;
};

struct Isa {
  std::string name;  // nvptx64-nvidia-cuda--sm_XY
  int sm = 0;        // 10 * major + minor
};

// A CUDA device (kernel dispatch), or the host agent that owns the pinned
// host memory pools, as ROCR's CPU agent owns system memory.
struct Agent {
  bool host = false;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;  // the CUDA device name
  Isa* isa = nullptr;
  int sm_count = 0, max_threads = 0, max_block[3] = {}, max_grid[3] = {};
  int shared_per_block = 0, l2_size = 0, clock_khz = 0, pci_device = 0, pci_bus = 0,
      pci_domain = 0, warp_size = 32;
  size_t total_memory = 0;
  Pool pools[2];  // GPU: device memory, group segment; host: fine-grained, kernarg
  std::atomic<uint32_t> queue_count{0};
};

struct Runtime {
  // Between the first hsa_init and the last hsa_shut_down (the core counts
  // them; open_runtime / close_runtime run under its mutex).
  std::atomic<bool> open{false};
  CudaDriver cuda;
  bool log = false;
  bool stats = false;
  // HSA_CUDA_HOST_WAKE=1: after each completion-signal write the stream
  // also runs a host function that wakes the host's sleeping waiters (off by
  // default: CUDA runs it tens of µs late; the processor's poll is sooner).
  bool host_wake = false;  // HSA_CUDA_STATS: each queue prints its processor's per-packet cost when destroyed
  // Runs of dispatch packets seen before are launched as one CUDA graph
  // (graph_runs.h; HSA_CUDA_GRAPHS=0 turns it off).
  bool graphs = true;
  // A queue's runs of dispatch packets (queue.cpp): the first after the
  // queue stopped at a completion signal, a barrier or an unpublished packet
  // is at most run_first packets long, each next one twice the last, up to
  // run_max (HSA_CUDA_RUN_FIRST, HSA_CUDA_RUN_MAX).
  uint32_t run_first = 16;
  uint32_t run_max = 1024;
  // How long a host wait polls before it sleeps (signal.cpp): 1 ms on a
  // machine of 4 CPUs or more, else 20 µs; HSA_CUDA_WAIT_SPIN_US sets it.
  uint64_t wait_spin_ns = 20000;
  // The first device fault of the process (a CUresult; 0: none). CUDA keeps
  // it for the whole process: no later CUDA call succeeds.
  std::atomic<int> sticky_fault{0};
  // A queue was destroyed while a kernel of it still ran past its grace
  // (queue.cpp): its stream was abandoned, so no CUDA call that waits for
  // the device (a free, an unload, a synchronize, a context's reset or
  // last release) may be made until the process ends.
  std::atomic<bool> abandoned_work{false};
  // Set by hsa_shut_down with abandoned work, for the rest of the process:
  // CUDA cannot stop that kernel, and loading a module waits for it, so a
  // later hsa_init fails at once instead of hanging (runtime.cpp).
  bool abandoned_since_init = false;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<std::unique_ptr<Isa>> isas;
  size_t host_memory = 0;
};

extern Runtime g_runtime;

// The bits of an HSA enum argument, read without loading it as the enum type
// (the core's).
using hsa_core::enum_bits;

bool initialized();
// The back-end's open and close (the core's hsa_init / hsa_shut_down).
hsa_status_t open_runtime();
void close_runtime();
// Logs "hsa-cuda: <message>" to stderr when HSA_CUDA_LOG=1.
void log_error(const char* format, ...) __attribute__((format(printf, 1, 2)));
// The CUDA error's name and description, for messages.
std::string cuda_error_text(CUresult result);
// Makes the agent's primary context current on the calling thread.
bool make_current(const Agent* agent);
Agent* to_agent(hsa_agent_t agent);  // nullptr when unknown
// The core's ISA hooks (runtime.cpp): an ISA of the devices by name, and
// whether PTX built for one runs on another (the driver compiles PTX for
// its own or any later architecture).
bool isa_from_name(const char* name, hsa_isa_t* isa);
bool isa_compatible(hsa_isa_t code_object_isa, hsa_isa_t agent_isa);

// Signals (signal.cpp): the core's (hsa-core/), in pinned host memory the
// devices can write. signals_configure() gives the core the wait tunables
// (at hsa_init); signals_wake_all() wakes every sleeping waiter (a device's
// write landed, or a queue stopped).
void signals_configure();
void signals_wake_all();
// At hsa_shut_down. release_cuda false: the bookkeeping only, no CUDA call
// (a context that still runs abandoned work would make a free wait for it).
void signals_release_all(bool release_cuda);
bool signal_valid(hsa_signal_t signal);
amd_signal_t* signal_object(hsa_signal_t signal);
int64_t signal_value(hsa_signal_t signal);  // acquire load (doorbells too)
// A queue's doorbell: an AMD_SIGNAL_KIND_DOORBELL signal whose value is -1
// until the first ring.
hsa_status_t doorbell_create(hsa_signal_t* out);
void doorbell_destroy(hsa_signal_t doorbell);
CUdeviceptr signal_device_address(hsa_signal_t signal);  // of amd_signal_t::value
// Waits until the condition holds, timeout_ns passes or *abort is set;
// returns the last value seen.
int64_t signal_wait(hsa_signal_t signal, hsa_signal_condition_t condition, int64_t compare, uint64_t timeout_ns,
                    const std::atomic<bool>* abort);
uint64_t monotonic_ns();
// HSA_CUDA_STATS: when a queue processor last woke the host's sleepers
// because a completion signal landed (ns, monotonic_ns). A doorbell store
// records its own time in the doorbell's start_ts and this value in its
// end_ts, so the processor can tell how long a submission took to reach it
// and how long after the last landed completion it was made.
extern std::atomic<uint64_t> g_last_landed_ns;

// Memory
void memory_release_all(bool release_cuda);  // as signals_release_all
// The core's memory hooks (hsa-core/include/hsa_core/memory.h; runtime.cpp).
void set_memory_hooks(hsa_core::Backend& b);
// The core's agent hooks: the agents and their caches (runtime.cpp).
void set_agent_hooks(hsa_core::Backend& b);

// Kernel objects (KERNEL_OBJECT values): validated by the queues.
struct KernelObject {
  uint64_t magic;
  CUfunction function;
  uint32_t kernarg_size;
  uint32_t kernarg_alignment;
  uint32_t grid_offset;           // of the grid parameter in the buffer; 0: none
  uint32_t group_segment_size;    // static shared memory
  uint32_t private_segment_size;  // local memory per thread
  int max_threads;
  // Its required workgroup size (<kernel>_xgpu_required_size_ in the PTX,
  // <xgpu/kernel.h>'s sized kernels; 0,0,0: none): its code takes the size
  // as constants, so a dispatch of another size is refused.
  uint32_t required_size[3];
  // It may print (its flags record, K_xgpu_flags_xgpu_layout_, is in the
  // module): only then does it get the kernarg address, for its print slots
  // (a kernel that does not print never reads it: its launches' parameters
  // stay the same from one submission to the next).
  bool prints;
  Agent* agent;
  std::string name;
};
constexpr uint64_t kKernelObjectMagic = 0x6b2d616475632d78ull;  // "x-cuda-k"
// Bytes of an xgpu kernel's second parameter, xgpu_nvptx_grid_t
// (<xgpu/kernel.h>): grid size[3], a zero word, the kernarg address.
constexpr uint32_t kGridParamSize = 24;
// Copies the KernelObject `handle` names into *out when it is the kernel
// object of a live symbol (hsa_core::read_kernel_object); false otherwise.
bool kernel_object_lookup(uint64_t handle, KernelObject* out);
// Sets the back-end's code object hooks (executable.cpp).
void set_code_object_hooks(hsa_core::Backend& backend);

// Sets the back-end's queue hooks (queue.cpp): the core checks and keeps
// the queues, the back-end makes their rings, streams and processors.
void set_queue_hooks(hsa_core::Backend& backend);

// Dispatch profiling (profiling.cpp). A profiling queue's processor calls
// profiling_begin before a packet's work and profiling_end after it (or
// profiling_abandon when the packet fails in between); an unprofiled packet's
// completion signal goes through profiling_forget.
struct Anchor;  // an event paired with its host time
struct ProfiledPacket {
  CUevent start = nullptr;
  std::shared_ptr<Anchor> anchor;
};
bool profiling_prepare(Agent* agent);  // takes the agent's first anchor
bool profiling_begin(Agent* agent, CUstream stream, ProfiledPacket* packet);
void profiling_end(Agent* agent, CUstream stream, ProfiledPacket* packet, hsa_signal_t signal);
void profiling_abandon(Agent* agent, ProfiledPacket* packet);
void profiling_forget(hsa_signal_t signal);
// The signal's last profiled packet's start and end (system domain ns), or
// what the signal last held (0, 0 when never profiled).
void profiling_time(hsa_signal_t signal, uint64_t* start, uint64_t* end);
void profiling_release_all(bool release_cuda);  // as signals_release_all

}  // namespace hsa_cuda
