// CPU kernels benchmark: the same kernels through xgpu's kernel toolchain on
// hsa-cpu (HSA API, the host code object of kernels.c and kernels_plain.c),
// through PoCL (the same kernels in OpenCL C, the peer) and as plain C loops
// on 1 thread and on all cores. Each kernel also runs plainly written
// (kernels_plain.c: the figure "<kernel> (plain)"), and a 16-dispatch chain
// of a small jacobi-2d measures what a dispatch costs. Every figure is the
// median of repeats with min and max, in one run; every result is checked
// equal to the 1-thread C loop's.
//
// Usage: cpu_kernels_bench [--smoke] [--code-objects DIR] [--level LEVEL]
//                          [--only KERNEL[,KERNEL...]] [--repeats N]
//   --smoke: small sizes, for ctest; --code-objects: load the host code
//   objects (and the executable file the xgpu API side loads) from DIR
//   (same file names) instead of the build tree; --level:
//   the highest host level to try (x86-64-v4, -v3 or -v2); --json: one JSON
//   object per figure and per check (bench/run.py), instead of a table;
//   --only: these kernels (a name in kernels.c; atax runs both of its own;
//   compact_indirect: the compaction followed by a DYNAMIC indirect
//   dispatch, through the xgpu API; NAME_plain its plainly written variant;
//   jacobi2d_chain: the 16-dispatch chain; plain: every plain one);
//   --repeats: timed repeats per figure (default 9).
// Barrier kernels run as work-item loops when the build has the pass plugin;
// HSA_CPU_BARRIER_MODE=fibers measures fiber mode instead.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <hsa/hsa.h>
#include <omp.h>
#include <xgpu/xgpu.h>
#include <xgpu/xgpu_enum_string.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cpu_kernels.h"

namespace {

using Clock = std::chrono::steady_clock;

bool g_smoke = false;
const char* g_only = nullptr;  // --only: run this kernel alone
int g_repeats = 9;             // --repeats
int g_failures = 0;
std::string g_code_object_dir;  // --code-objects, or empty: the build tree
std::string g_level;            // --level, or empty: the best the CPU runs
const char* g_level_loaded = "?";  // the host level of the loaded code object
std::string g_api_level = "?";      // the host level the xgpu API's device runs
bool g_json = false;            // --json: one JSON object per line (bench/run.py)

// The host code object at `built` (a path in the build tree), or the file of
// the same name in --code-objects.
std::string code_object(const char* built) {
  if (g_code_object_dir.empty()) return built;
  const char* slash = std::strrchr(built, '/');
  return g_code_object_dir + "/" + (slash ? slash + 1 : built);
}

#define CHECK_HSA(call)                                                                 \
  do {                                                                                  \
    hsa_status_t status_ = (call);                                                      \
    if (status_ != HSA_STATUS_SUCCESS) {                                                \
      const char* text_ = "?";                                                          \
      hsa_status_string(status_, &text_);                                               \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, text_);      \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

struct Stats {
  double median, min, max;  // milliseconds
};

// Runs `body` (after warming up) `repeats` times.
// `setup`, when given, runs before every run of `body`, untimed: what only
// guards the check (clearing an output so that a stale result cannot pass
// for this run's) is not charged to the side that is timed.
Stats measure(const std::function<void()>& body, const std::function<void()>& setup = nullptr) {
  const int repeats = g_smoke ? 1 : g_repeats;
  // Warm-up: at least 100 ms of runs (one in smoke mode). A single run, or
  // 20 ms, left the timed repeats of sub-millisecond figures in some
  // processes at one core's speed for their first tens of milliseconds (an
  // idle second vCPU of the VM): medians up to 2x higher in one run in four;
  // none in ten runs with 100 ms.
  const auto warm_until = Clock::now() + std::chrono::milliseconds(g_smoke ? 0 : 100);
  do {
    if (setup) setup();
    body();
  } while (Clock::now() < warm_until);
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    if (setup) setup();
    const auto start = Clock::now();
    body();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

// The figure's name in --json output: the kernel and its size.
std::string figure_name(const std::string& kernel) {
  struct Size {
    const char* kernel;
    const char* full;
    const char* smoke;
  };
  static const Size sizes[] = {
      {"histogram256", "histogram256 1M u32", "histogram256 4096 u32"},
      {"tree reduction", "tree reduction 1M u32", "tree reduction 4096 u32"},
      {"gemm", "gemm 192^3 float", "gemm 32^3 float"},
      {"atax", "atax 2048^2 float", "atax 64^2 float"},
      {"jacobi-2d", "jacobi-2d 1024^2 float, 10 steps", "jacobi-2d 32^2 float, 10 steps"},
      {"prefix sum", "prefix sum per 256 of 1M u32", "prefix sum per 256 of 4096 u32"},
      {"compaction", "compaction of 1M u32", "compaction of 4096 u32"},
      {"compaction + DYNAMIC indirect", "compaction + DYNAMIC indirect of 1M u32",
       "compaction + DYNAMIC indirect of 4096 u32"},
      // The plainly written variants (kernels_plain.c).
      {"histogram256 (plain)", "histogram256 (plain) 1M u32", "histogram256 (plain) 4096 u32"},
      {"tree reduction (plain)", "tree reduction (plain) 1M u32", "tree reduction (plain) 4096 u32"},
      {"gemm (plain)", "gemm (plain) 192^3 float", "gemm (plain) 32^3 float"},
      {"atax (plain)", "atax (plain) 2048^2 float", "atax (plain) 64^2 float"},
      {"jacobi-2d (plain)", "jacobi-2d (plain) 1024^2 float, 10 steps", "jacobi-2d (plain) 32^2 float, 10 steps"},
      {"jacobi-2d chain, 16 dispatches", "jacobi-2d chain 64^2 float, 16 steps, 16 dispatches",
       "jacobi-2d chain 32^2 float, 16 steps, 16 dispatches"},
      {"jacobi-2d chain, 1 dispatch", "jacobi-2d chain 64^2 float, 1 step, 1 dispatch",
       "jacobi-2d chain 32^2 float, 1 step, 1 dispatch"},
      {"jacobi-2d chain (tiny), 16 dispatches", "jacobi-2d chain 16^2 float, 16 steps, 16 dispatches",
       "jacobi-2d chain 16^2 float, 16 steps, 16 dispatches"},
      {"jacobi-2d chain (tiny), 1 dispatch", "jacobi-2d chain 16^2 float, 1 step, 1 dispatch",
       "jacobi-2d chain 16^2 float, 1 step, 1 dispatch"},
      {"prefix sum (plain)", "prefix sum (plain) per 256 of 1M u32", "prefix sum (plain) per 256 of 4096 u32"},
      {"compaction (plain)", "compaction (plain) of 1M u32", "compaction (plain) of 4096 u32"},
      {"compaction + DYNAMIC indirect (plain)", "compaction + DYNAMIC indirect (plain) of 1M u32",
       "compaction + DYNAMIC indirect (plain) of 4096 u32"},
  };
  for (const Size& size : sizes)
    if (kernel == size.kernel) return g_smoke ? size.smoke : size.full;
  return kernel;
}

// The side's name in --json output (bench/run.py: "xgpu (...)" is ours,
// "OpenCL ..." a product peer, "C loop ..." a baseline).
std::string side_name(const std::string& who) {
  if (who == "xgpu on hsa-cpu") return std::string("xgpu (hsa-cpu, ") + g_level_loaded + ")";
  if (who == "xgpu API, hsa-cpu") return std::string("xgpu (hsa-cpu, ") + g_api_level + ", xgpu API)";
  if (who == "PoCL") return "OpenCL (PoCL)";
  return who;
}

void report(const char* kernel, const char* who, const Stats& s, bool equal) {
  if (!equal) ++g_failures;
  if (g_json) {
    const std::string figure = figure_name(kernel), side = side_name(who);
    printf("{\"bench\": \"cpu_kernels\", \"figure\": \"%s\", \"unit\": \"ms\", \"better\": \"lower\", "
           "\"side\": \"%s\", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g}\n",
           figure.c_str(), side.c_str(), s.median, s.min, s.max);
    // The 1-thread C loop is the reference the others are checked against.
    if (side != "C loop, 1 thread")
      printf("{\"bench\": \"cpu_kernels\", \"check\": \"%s: %s result equal to the 1-thread C loop's\", "
             "\"ok\": %s}\n",
             figure.c_str(), side.c_str(), equal ? "true" : "false");
    return;
  }
  printf("  %-38s %-22s %9.3f ms  (min %8.3f, max %8.3f)  %s\n", kernel, who, s.median, s.min, s.max,
         equal ? "result equal" : "RESULT DIFFERS");
}

// The plain C loop on all cores: `body(first, last)` on one contiguous share
// of [0, count) per thread of OpenMP's team (a persistent pool, as
// `#pragma omp parallel for schedule(static)` would split it).
void parallel_for(uint32_t count, const std::function<void(uint32_t, uint32_t)>& body) {
#pragma omp parallel
  {
    const uint32_t threads = uint32_t(omp_get_num_threads()), t = uint32_t(omp_get_thread_num());
    const uint32_t chunk = (count + threads - 1) / threads;
    const uint32_t first = std::min(count, t * chunk), last = std::min(count, first + chunk);
    if (first < last) body(first, last);
  }
}

// How long OpenMP's idle workers spin after a parallel region, in ms. LLVM's
// libomp (whose omp.h defines KMP_VERSION_MAJOR) says: its KMP_BLOCKTIME,
// which main() makes 5 ms unless the environment sets it. gcc's libgomp has
// no such query; it spins 300000 iterations unless OMP_WAIT_POLICY or
// GOMP_SPINCOUNT say otherwise, "about 3 ms, 5 times longer or shorter by the
// CPU's speed" (libgomp's env.c): 15 ms covers it.
int openmp_spin_ms() {
#ifdef KMP_VERSION_MAJOR
  return kmp_get_blocktime();
#else
  return 15;
#endif
}

// The next figure (xgpu's, on the same cores) must not share the cores with
// OpenMP's spinning workers: measure() of a C loop on all cores, then wait
// until they sleep.
Stats measure_all_cores(const std::function<void()>& body) {
  const Stats stats = measure(body);
  std::this_thread::sleep_for(std::chrono::milliseconds(openmp_spin_ms() + 5));
  return stats;
}

// The compaction's C loop: appends the kept values of in[first, last) to
// out; returns how many it kept.
uint32_t compact_range(const uint32_t* in, uint32_t first, uint32_t last, uint32_t* out) {
  uint32_t kept = 0;
  for (uint32_t i = first; i < last; ++i)
    if ((in[i] & 3u) == 0u) out[kept++] = in[i];
  return kept;
}

// The same on every core: each thread counts what it keeps of its share,
// then writes its values after those of the threads before it (the input
// order is kept). Returns the count kept.
uint32_t compact_all_cores(const uint32_t* in, uint32_t n, uint32_t* out) {
  std::vector<uint32_t> counts(static_cast<size_t>(omp_get_max_threads()));
  uint32_t kept = 0;
#pragma omp parallel
  {
    const uint32_t threads = uint32_t(omp_get_num_threads()), t = uint32_t(omp_get_thread_num());
    const uint32_t chunk = (n + threads - 1) / threads;
    const uint32_t first = std::min(n, t * chunk), last = std::min(n, first + chunk);
    uint32_t mine = 0;
    for (uint32_t i = first; i < last; ++i) mine += (in[i] & 3u) == 0u;
    counts[t] = mine;
#pragma omp barrier
    uint32_t at = 0;
    for (uint32_t u = 0; u < t; ++u) at += counts[u];
    at += compact_range(in, first, last, out + at);
    if (t + 1 == threads) kept = at;
  }
  return kept;
}


// --- hsa-cpu ---------------------------------------------------------------

class Hsa {
 public:
  Hsa() {
    CHECK_HSA(hsa_init());
    CHECK_HSA(hsa_iterate_agents(
        [](hsa_agent_t agent, void* data) {
          hsa_device_type_t type;
          hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
          auto* self = static_cast<Hsa*>(data);
          if (type == HSA_DEVICE_TYPE_CPU && !self->agent_.handle) self->agent_ = agent;
          return HSA_STATUS_SUCCESS;
        },
        this));
    CHECK_HSA(hsa_agent_iterate_regions(
        agent_,
        [](hsa_region_t region, void* data) {
          auto* self = static_cast<Hsa*>(data);
          hsa_region_segment_t segment;
          uint32_t flags = 0;
          hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
          if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
          hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
          if ((flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !self->kernarg_.handle) self->kernarg_ = region;
          if ((flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) && !self->data_.handle) self->data_ = region;
          return HSA_STATUS_SUCCESS;
        },
        this));
    // The best host level this CPU runs (the ICD picks the same way); hsa-cpu
    // refuses a level the CPU lacks. --level x86-64-v3 (or v2) starts the
    // search there instead.
    const char* const levels[] = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};
    const char* const builds[] = {CPU_KERNELS_HOST_V4, CPU_KERNELS_HOST_V3, CPU_KERNELS_HOST_V2};
    bool searching = g_level.empty();
    for (int l = 0; l < 3; ++l) {
      searching = searching || g_level == levels[l];
      if (!searching) continue;
      const char* built = builds[l];
      const std::string path = code_object(built);
      if (hsa_code_object_reader_create_from_file(open_file(path.c_str()), &reader_) != HSA_STATUS_SUCCESS) continue;
      CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                          &executable_));
      if (hsa_executable_load_agent_code_object(executable_, agent_, reader_, nullptr, nullptr) ==
          HSA_STATUS_SUCCESS) {
        level_ = levels[l];
        break;
      }
      hsa_executable_destroy(executable_);
      hsa_code_object_reader_destroy(reader_);
      executable_ = {};
      reader_ = {};
    }
    if (!executable_.handle) {
      fprintf(stderr, "no host code object loads on this CPU\n");
      exit(1);
    }
    CHECK_HSA(hsa_executable_freeze(executable_, nullptr));
    CHECK_HSA(hsa_queue_create(agent_, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue_));
    CHECK_HSA(hsa_signal_create(1, 0, nullptr, &signal_));
    CHECK_HSA(hsa_memory_allocate(kernarg_, size_t{kKernargSlot} * kMaxChain, &kernarg_memory_));
  }
  ~Hsa() {
    hsa_memory_free(kernarg_memory_);
    for (void* p : allocations_) hsa_memory_free(p);
    hsa_signal_destroy(signal_);
    hsa_queue_destroy(queue_);
    hsa_executable_destroy(executable_);
    hsa_code_object_reader_destroy(reader_);
    hsa_shut_down();
  }

  const char* level() const { return level_; }

  template <typename T>
  T* allocate(size_t count) {
    void* p = nullptr;
    CHECK_HSA(hsa_memory_allocate(data_, count * sizeof(T), &p));
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }

  // Dispatches `kernel` and waits for it.
  void run(const char* kernel, const void* args, uint32_t args_size, uint32_t dims, const uint32_t grid[3],
           const uint16_t workgroup[3]) {
    run_chain(kernel, &args, 1, args_size, dims, grid, workgroup);
  }

  // Dispatches `kernel` `count` times, the i-th with args[i], each packet
  // with the barrier bit (it starts when the one before has completed, as
  // after a barrier between dispatches), and waits for the last: one
  // doorbell, one wait. At most kMaxChain.
  static constexpr uint32_t kMaxChain = 32;
  void run_chain(const char* kernel, const void* const* args, uint32_t count, uint32_t args_size, uint32_t dims,
                 const uint32_t grid[3], const uint16_t workgroup[3]) {
    hsa_executable_symbol_t symbol;
    CHECK_HSA(hsa_executable_get_symbol_by_name(executable_, (std::string(kernel) + ".kd").c_str(), &agent_, &symbol));
    uint64_t object = 0;
    uint32_t group = 0;
    CHECK_HSA(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
    CHECK_HSA(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group));
    if (count == 0 || count > kMaxChain || args_size > kKernargSlot) {
      fprintf(stderr, "run_chain: %u dispatches of %u-byte arguments (at most %u of %u)\n", count, args_size,
              kMaxChain, kKernargSlot);
      exit(1);
    }
    hsa_signal_store_screlease(signal_, 1);
    const uint64_t first = hsa_queue_add_write_index_scacq_screl(queue_, count);
    for (uint32_t d = 0; d < count; ++d) {
      void* kernarg = static_cast<uint8_t*>(kernarg_memory_) + size_t{d} * kKernargSlot;
      std::memcpy(kernarg, args[d], args_size);
      const uint64_t index = first + d;
      auto* packet = static_cast<hsa_kernel_dispatch_packet_t*>(queue_->base_address) + (index % queue_->size);
      std::memset(reinterpret_cast<uint8_t*>(packet) + 4, 0, sizeof(*packet) - 4);
      packet->workgroup_size_x = workgroup[0];
      packet->workgroup_size_y = workgroup[1];
      packet->workgroup_size_z = workgroup[2];
      packet->grid_size_x = grid[0];
      packet->grid_size_y = grid[1];
      packet->grid_size_z = grid[2];
      packet->group_segment_size = group;
      packet->kernel_object = object;
      packet->kernarg_address = kernarg;
      packet->completion_signal = d + 1 == count ? signal_ : hsa_signal_t{0};
      // The first packet's barrier bit is clear as in run() before chains
      // existed: nothing before it is in flight.
      const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                              (uint16_t(d > 0) << HSA_PACKET_HEADER_BARRIER) |
                              (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                              (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
      const uint16_t setup = uint16_t(dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
      __atomic_store_n(reinterpret_cast<uint32_t*>(packet), header | (uint32_t{setup} << 16), __ATOMIC_RELEASE);
    }
    hsa_signal_store_screlease(queue_->doorbell_signal, hsa_signal_value_t(first + count - 1));
    while (hsa_signal_wait_scacquire(signal_, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0) {
    }
  }

 private:
  static constexpr uint32_t kKernargSlot = 256;  // bytes of kernarg memory per dispatch of a chain

  static hsa_file_t open_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
      fprintf(stderr, "cannot open %s\n", path);
      exit(1);
    }
    return fileno(f);  // kept open for the process's lifetime
  }

  hsa_agent_t agent_{};
  hsa_region_t kernarg_{}, data_{};
  hsa_code_object_reader_t reader_{};
  hsa_executable_t executable_{};
  hsa_queue_t* queue_ = nullptr;
  hsa_signal_t signal_{};
  void* kernarg_memory_ = nullptr;
  const char* level_ = "?";
  std::vector<void*> allocations_;
};

// --- xgpu API on hsa-cpu ----------------------------------------------------

#define CHECK_XGPU(call)                                                                        \
  do {                                                                                          \
    XgpuResult result_ = (call);                                                                \
    if (result_ != XGPU_SUCCESS) {                                                              \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, xgpuResultString(result_)); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

// The xgpu API through the loader and the AMDGPU ICD, on the physical device
// that runs host code objects (hsa-cpu), with kernels.c's executable file
// (all its code objects; the ICD loads the best host level the CPU runs).
// Used for what the HSA API has no command for: DYNAMIC indirect dispatch.
class XgpuApi {
 public:
  XgpuApi() {
    XgpuInstanceCreateInfo instance_info{};
    instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    if (xgpuCreateInstance(&instance_info, nullptr, &instance_) != XGPU_SUCCESS) {
      instance_ = XGPU_NULL_HANDLE;
      why_ = "no xgpu instance (is XGPU_DRIVER_FILES the AMDGPU ICD's manifest?)";
      return;
    }
    uint32_t count = 0;
    xgpuEnumeratePhysicalDevices(instance_, &count, nullptr);
    std::vector<XgpuPhysicalDevice> physicals(count);
    if (count) xgpuEnumeratePhysicalDevices(instance_, &count, physicals.data());
    XgpuPhysicalDevice physical = XGPU_NULL_HANDLE;
    for (XgpuPhysicalDevice candidate : physicals) {
      XgpuPhysicalDeviceProperties properties;
      xgpuGetPhysicalDeviceProperties(candidate, &properties);
      const std::string isa = properties.isaName;
      if (isa.rfind("x86_64", 0) != 0) continue;  // hsa-cpu's ISA names: x86_64-unknown-linux-gnu--<level>
      physical = candidate;
      const size_t dashes = isa.rfind("--");
      level_ = dashes == std::string::npos ? isa : isa.substr(dashes + 2);
      break;
    }
    if (!physical) {
      why_ = "no hsa-cpu device among the xgpu physical devices";
      return;
    }
    XgpuQueueFamilyProperties families[8];
    uint32_t family_count = 8;
    xgpuGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families);
    const XgpuQueueFlags needed = XGPU_QUEUE_COMPUTE_BIT | XGPU_QUEUE_TRANSFER_BIT;
    family_ = family_count;
    for (uint32_t i = 0; i < family_count && family_ == family_count; ++i)
      if ((families[i].queueFlags & needed) == needed) family_ = i;
    if (family_ == family_count) {
      why_ = "the hsa-cpu device has no compute + transfer queue family";
      return;
    }
    XgpuDeviceQueueCreateInfo queue_info{};
    queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = family_;
    queue_info.queueCount = 1;
    XgpuDeviceCreateInfo device_info{};
    device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    CHECK_XGPU(xgpuCreateDevice(physical, &device_info, nullptr, &device_));
    xgpuGetDeviceQueue(device_, family_, 0, &queue_);
    XgpuPhysicalDeviceMemoryProperties memory;
    xgpuGetPhysicalDeviceMemoryProperties(physical, &memory);
    const XgpuMemoryPropertyFlags wanted =
        XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT | XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    memory_type_ = UINT32_MAX;
    for (uint32_t i = 0; i < memory.memoryTypeCount && memory_type_ == UINT32_MAX; ++i)
      if ((memory.memoryTypes[i].propertyFlags & wanted) == wanted) memory_type_ = i;
    if (memory_type_ == UINT32_MAX) {
      why_ = "the hsa-cpu device has no host-visible coherent memory type";
      return;
    }
    const std::string path = code_object(CPU_KERNELS_EXECUTABLE);
    XgpuExecutableCreateInfo executable_info{};
    executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    executable_info.pFilePath = path.c_str();
    if (xgpuCreateExecutable(device_, &executable_info, nullptr, &executable_) != XGPU_SUCCESS) {
      executable_ = XGPU_NULL_HANDLE;
      why_ = "cannot load " + path;
      return;
    }
    XgpuSemaphoreCreateInfo semaphore_info{};
    semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    CHECK_XGPU(xgpuCreateSemaphore(device_, &semaphore_info, nullptr, &timeline_));
    ok_ = true;
  }
  ~XgpuApi() {
    if (device_) {
      for (XgpuCommandBuffer cb : command_buffers_) xgpuDestroyCommandBuffer(device_, cb, nullptr);
      for (XgpuPipeline p : pipelines_) xgpuDestroyPipeline(device_, p, nullptr);
      for (XgpuBuffer b : buffers_) {
        xgpuUnmapBuffer(device_, b);
        xgpuDestroyBuffer(device_, b, nullptr);
      }
      if (timeline_) xgpuDestroySemaphore(device_, timeline_, nullptr);
      if (executable_) xgpuDestroyExecutable(device_, executable_, nullptr);
      xgpuDestroyDevice(device_, nullptr);
    }
    if (instance_) xgpuDestroyInstance(instance_, nullptr);
  }
  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  const std::string& level() const { return level_; }
  uint32_t family() const { return family_; }
  XgpuDevice device() const { return device_; }

  // A host-visible buffer of `count` T, mapped (the host reads and writes it
  // directly); *mapped is its memory.
  template <typename T>
  XgpuBuffer buffer(size_t count, XgpuBufferUsageFlags usage, T** mapped) {
    XgpuBufferCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = count * sizeof(T);
    info.usage = usage;
    info.memoryTypeIndex = memory_type_;
    XgpuBuffer buffer;
    CHECK_XGPU(xgpuCreateBuffer(device_, &info, nullptr, &buffer));
    CHECK_XGPU(xgpuMapBuffer(device_, buffer, 0, XGPU_WHOLE_SIZE, reinterpret_cast<void**>(mapped)));
    buffers_.push_back(buffer);
    return buffer;
  }
  XgpuPipeline pipeline(const char* kernel, uint32_t workgroup_size, uint32_t workgroup_size_y = 1) {
    XgpuPipelineCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    info.executable = executable_;
    info.pEntryPoint = kernel;  // layout: as kernels.c declares it
    info.workgroupSize[0] = workgroup_size;
    info.workgroupSize[1] = workgroup_size_y;
    info.workgroupSize[2] = 1;
    XgpuPipeline pipeline;
    CHECK_XGPU(xgpuCreatePipeline(device_, &info, nullptr, &pipeline));
    pipelines_.push_back(pipeline);
    return pipeline;
  }
  // A reusable command buffer, begun (the caller records and ends it).
  XgpuCommandBuffer begin() {
    XgpuCommandBufferCreateInfo create_info{};
    create_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    create_info.queueFamilyIndex = family_;
    XgpuCommandBuffer cb;
    CHECK_XGPU(xgpuCreateCommandBuffer(device_, &create_info, nullptr, &cb));
    command_buffers_.push_back(cb);
    XgpuCommandBufferBeginInfo begin_info{};
    begin_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin_info.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
    CHECK_XGPU(xgpuBeginCommandBuffer(cb, &begin_info));
    return cb;
  }
  // Submits `cb` and waits for it (its writes are then visible to the host).
  void submit_and_wait(XgpuCommandBuffer cb) {
    const uint64_t value = ++timeline_value_;
    XgpuSubmitInfo submit{};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.signalSemaphores = {1, &timeline_, &value};
    CHECK_XGPU(xgpuQueueSubmit(queue_, 1, &submit));
    XgpuSemaphoreWaitInfo wait{};
    wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    wait.semaphoreCount = 1;
    wait.pSemaphores = &timeline_;
    wait.pValues = &value;
    CHECK_XGPU(xgpuWaitSemaphores(device_, &wait, 120ull * 1000 * 1000 * 1000));
  }

 private:
  bool ok_ = false;
  std::string why_;
  std::string level_ = "?";
  XgpuInstance instance_ = XGPU_NULL_HANDLE;
  XgpuDevice device_ = XGPU_NULL_HANDLE;
  XgpuQueue queue_ = XGPU_NULL_HANDLE;
  uint32_t family_ = 0;
  uint32_t memory_type_ = 0;
  XgpuExecutable executable_ = XGPU_NULL_HANDLE;
  XgpuSemaphore timeline_ = XGPU_NULL_HANDLE;
  uint64_t timeline_value_ = 0;
  std::vector<XgpuBuffer> buffers_;
  std::vector<XgpuPipeline> pipelines_;
  std::vector<XgpuCommandBuffer> command_buffers_;
};

// A figure whose xgpu API side could not run: a broken build or setup, not
// a choice, so the run fails; the note says why.
void api_missing(const char* figure, const XgpuApi& x) {
  ++g_failures;
  if (g_json)
    printf("{\"bench\": \"cpu_kernels\", \"note\": \"%s: xgpu API: %s\"}\n", figure, x.why().c_str());
  else
    printf("  %-29s xgpu API: %s\n", figure, x.why().c_str());
}

// --- PoCL (OpenCL) ---------------------------------------------------------

const char* kOpenClSource = R"CL(
__kernel void histogram256(__global const uint* in, __global uint* bins, uint n) {
  __local uint local_bins[256];
  uint lid = get_local_id(0), i = get_global_id(0);
  local_bins[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) atomic_inc(&local_bins[in[i] & 255u]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (local_bins[lid] != 0) atomic_add(&bins[lid], local_bins[lid]);
}
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void reduce_sum(__global const uint* in, __global uint* sums, uint n) {
  __local uint partial[256];
  uint lid = get_local_id(0), i = get_global_id(0);
  partial[lid] = i < n ? in[i] : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = 128; stride > 0; stride /= 2) {
    if (lid < stride) partial[lid] += partial[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) sums[get_group_id(0)] = partial[0];
}
__kernel void gemm(__global const float* a, __global const float* b, __global float* c, uint n) {
  uint col = get_global_id(0), row = get_global_id(1);
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (uint k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
__kernel void atax_ax(__global const float* a, __global const float* x, __global float* y, uint n) {
  uint row = get_global_id(0);
  if (row >= n) return;
  float acc = 0.0f;
  for (uint j = 0; j < n; ++j) acc += a[row * n + j] * x[j];
  y[row] = acc;
}
__kernel void atax_atx(__global const float* a, __global const float* x, __global float* y, uint n) {
  uint col = get_global_id(0);
  if (col >= n) return;
  float acc = 0.0f;
  for (uint i = 0; i < n; ++i) acc += a[i * n + col] * x[i];
  y[col] = acc;
}
__kernel void jacobi2d(__global const float* in, __global float* out, uint n) {
  uint j = get_global_id(0), i = get_global_id(1);
  if (i == 0 || j == 0 || i >= n - 1 || j >= n - 1) return;
  out[i * n + j] = 0.2f * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1] + in[(i + 1) * n + j] +
                           in[(i - 1) * n + j]);
}
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void scan256(__global const uint* in, __global uint* out, uint n) {
  __local uint v[256];
  uint lid = get_local_id(0), i = get_global_id(0);
  v[lid] = i < n ? in[i] : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < 256; offset *= 2) {
    uint left = lid >= offset ? v[lid - offset] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    v[lid] += left;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) out[i] = v[lid];
}
__kernel void compact(__global const uint* in, __global uint* out, __global uint* count, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint v = in[i];
  if ((v & 3u) == 0u) out[atomic_inc(count)] = v;
}
__kernel void compact_process(__global const uint* in, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  out[i] = in[i] * 3u + 1u;
}
)CL";

// The plainly written variants (kernels_plain.c) in OpenCL C, the same way.
static_assert(BENCH_PLAIN_TILE == 8 && BENCH_PLAIN_WORKGROUP == 64, "kOpenClPlainSource's sizes are cpu_kernels.h's");
const char* kOpenClPlainSource = R"CL(
__kernel void histogram256_plain(__global const uint* in, __global uint* bins, uint n) {
  __local uint local_bins[256];
  __local uint counted;
  uint lid = get_local_id(0), size = get_local_size(0), i = get_global_id(0);
  for (uint b = lid; b < 256; b += size) local_bins[b] = 0;
  if (lid == 0) counted = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    atomic_inc(&local_bins[in[i] & 255u]);
    atomic_inc(&counted);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (counted == 0) return;
  for (uint b = lid; b < 256; b += size)
    if (local_bins[b] != 0) atomic_add(&bins[b], local_bins[b]);
}
__kernel void reduce_sum_plain(__global const uint* in, __global uint* sums, uint n) {
  __local uint partial[256];
  uint lid = get_local_id(0), size = get_local_size(0), i = get_global_id(0);
  partial[lid] = i < n ? in[i] : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 1; s < size; s *= 2) {
    if (lid % (2 * s) == 0) partial[lid] += partial[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) sums[get_group_id(0)] = partial[0];
}
__kernel void gemm_plain(__global const float* a, __global const float* b, __global float* c, uint n) {
  __local float ta[8][8], tb[8][8];
  uint tx = get_local_id(0), ty = get_local_id(1), col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint t = 0; t < n; t += 8) {
    ta[ty][tx] = row < n && t + tx < n ? a[row * n + t + tx] : 0.0f;
    tb[ty][tx] = t + ty < n && col < n ? b[(t + ty) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < 8; ++k) acc += ta[ty][k] * tb[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < n && col < n) c[row * n + col] = acc;
}
__kernel void atax_ax_plain(__global const float* a, __global const float* x, __global float* y, uint n) {
  __local float partial[64];
  uint lid = get_local_id(0), size = get_local_size(0), row = get_group_id(0);
  float acc = 0.0f;
  for (uint j = lid; j < n; j += size) acc += a[row * n + j] * x[j];
  partial[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = size / 2; s > 0; s /= 2) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) y[row] = partial[0];
}
__kernel void atax_atx_plain(__global const float* a, __global const float* x, __global float* y, uint n) {
  uint col = get_global_id(0);
  if (col < n) {
    float acc = 0.0f;
    for (uint i = 0; i < n; ++i) acc += a[i * n + col] * x[i];
    y[col] = acc;
  }
}
__kernel void jacobi2d_plain(__global const float* in, __global float* out, uint n) {
  uint j = get_global_id(0), i = get_global_id(1);
  if (i > 0 && j > 0 && i < n - 1 && j < n - 1) {
    uint c = i * n + j;
    out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c + n] + in[c - n]);
  }
}
__kernel void scan256_plain(__global const uint* in, __global uint* out, uint n) {
  __local uint buf[2 * 256];
  uint lid = get_local_id(0), size = get_local_size(0), i = get_global_id(0);
  uint pout = 0, pin = 1;
  buf[pout * size + lid] = i < n ? in[i] : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < size; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (lid >= offset)
      buf[pout * size + lid] = buf[pin * size + lid] + buf[pin * size + lid - offset];
    else
      buf[pout * size + lid] = buf[pin * size + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) out[i] = buf[pout * size + lid];
}
/* state: workgroup_count[3], count (compact_plain_state_t) */
__kernel void compact_plain(__global const uint* in, __global uint* out, __global uint* state, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint v = in[i];
  if ((v & 3u) != 0u) return;
  uint slot = atomic_inc(&state[3]);
  out[slot] = v;
  if (slot % 64 == 0) atomic_inc(&state[0]);
}
)CL";

class Pocl {
 public:
  Pocl() {
    cl_uint count = 0;
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) {
      why_ = "no OpenCL platform (install pocl-opencl-icd)";
      return;
    }
    std::vector<cl_platform_id> platforms(count);
    clGetPlatformIDs(count, platforms.data(), nullptr);
    for (cl_platform_id p : platforms) {
      char name[256] = {};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name), name, nullptr);
      if (std::strstr(name, "Portable Computing Language")) platform_ = p;
    }
    if (!platform_) {
      why_ = "no PoCL platform among the OpenCL platforms";
      return;
    }
    cl_int err = clGetDeviceIDs(platform_, CL_DEVICE_TYPE_CPU, 1, &device_, nullptr);
    if (err != CL_SUCCESS) {
      why_ = "PoCL has no CPU device";
      return;
    }
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    queue_ = clCreateCommandQueue(context_, device_, 0, &err);
    const char* sources[2] = {kOpenClSource, kOpenClPlainSource};
    program_ = clCreateProgramWithSource(context_, 2, sources, nullptr, &err);
    if (clBuildProgram(program_, 1, &device_, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
      char log[4096] = {};
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, sizeof(log), log, nullptr);
      fprintf(stderr, "PoCL build failed:\n%s\n", log);
      why_ = "the OpenCL C kernels did not build";
      return;
    }
    ok_ = true;
  }
  ~Pocl() {
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    for (auto& [name, k] : kernels_) clReleaseKernel(k);
    if (program_) clReleaseProgram(program_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }
  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }

  // A buffer over host memory (no copies in or out on a CPU device).
  cl_mem wrap(void* host, size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
    buffers_.push_back(m);
    return m;
  }
  // Runs `name` with the buffers and one uint, and waits; maps `sync` back.
  // With `sync` null it only enqueues (the queue is in order).
  void run(const char* name, std::vector<cl_mem> mems, uint32_t n, uint32_t dims, const size_t grid[3],
           const size_t local[3], cl_mem sync, size_t sync_bytes) {
    cl_int err;
    cl_kernel k = nullptr;
    for (auto& [known, kernel] : kernels_)
      if (known == name) k = kernel;
    if (!k) {
      k = clCreateKernel(program_, name, &err);
      kernels_.emplace_back(name, k);
    }
    cl_uint arg = 0;
    for (cl_mem& m : mems) clSetKernelArg(k, arg++, sizeof(cl_mem), &m);
    clSetKernelArg(k, arg, sizeof(n), &n);
    clEnqueueNDRangeKernel(queue_, k, dims, nullptr, grid, local, 0, nullptr, nullptr);
    if (!sync) return;  // a later run() maps and waits
    void* p = clEnqueueMapBuffer(queue_, sync, CL_TRUE, CL_MAP_READ, 0, sync_bytes, 0, nullptr, nullptr, &err);
    clEnqueueUnmapMemObject(queue_, sync, p, 0, nullptr, nullptr);
    clFinish(queue_);
  }

 private:
  bool ok_ = false;
  std::string why_;
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<std::pair<std::string, cl_kernel>> kernels_;  // created on first use
  std::vector<cl_mem> buffers_;
};

// --- the kernels -----------------------------------------------------------

// `plain`: the plainly written kernel (kernels_plain.c) and its OpenCL copy
// instead of the shaped one, as the figure "<kernel> (plain)"; the C loops
// are the same (measured again, beside it). So for the functions below.
void histogram(Hsa& hsa, Pocl& pocl, bool plain) {
  const char* const figure = plain ? "histogram256 (plain)" : "histogram256";
  const uint32_t workgroup = plain ? BENCH_PLAIN_WORKGROUP : BENCH_HISTOGRAM_BINS;
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  uint32_t* in = hsa.allocate<uint32_t>(n);
  uint32_t* bins = hsa.allocate<uint32_t>(BENCH_HISTOGRAM_BINS);
  uint32_t seed = 12345;
  for (uint32_t i = 0; i < n; ++i) in[i] = (seed = seed * 1664525u + 1013904223u);
  std::vector<uint32_t> reference(BENCH_HISTOGRAM_BINS);
  std::vector<uint32_t> out(BENCH_HISTOGRAM_BINS);
  const Stats c1 = measure([&] {
    std::fill(out.begin(), out.end(), 0u);
    for (uint32_t i = 0; i < n; ++i) ++out[in[i] & 255u];
  });
  reference = out;
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] {
    // Each thread counts its share into its own bins, then adds them in.
    std::fill(out.begin(), out.end(), 0u);
    parallel_for(n, [&](uint32_t first, uint32_t last) {
      uint32_t mine[BENCH_HISTOGRAM_BINS] = {};
      for (uint32_t i = first; i < last; ++i) ++mine[in[i] & 255u];
      for (uint32_t b = 0; b < BENCH_HISTOGRAM_BINS; ++b) std::atomic_ref<uint32_t>(out[b]).fetch_add(mine[b]);
    });
  });
  report(figure, "C loop, all cores", call, out == reference);
  // The kernel's own algorithm as a C loop on all cores, for what bounds
  // it: per block of 256 inputs (a workgroup), zero 256 bins, count the
  // block into them, add them into the thread's totals; the totals into
  // `out` at the end, as above. Not a peer of the goals; beside the
  // shaped kernel only.
  if (!plain) {
    const Stats blocks = measure_all_cores([&] {
      std::fill(out.begin(), out.end(), 0u);
      parallel_for(n, [&](uint32_t first, uint32_t last) {
        uint32_t totals[BENCH_HISTOGRAM_BINS] = {};
        for (uint32_t block = first; block < last; block += BENCH_HISTOGRAM_BINS) {
          uint32_t local[BENCH_HISTOGRAM_BINS];
          for (uint32_t b = 0; b < BENCH_HISTOGRAM_BINS; ++b) local[b] = 0;
          for (uint32_t i = block; i < std::min(last, block + BENCH_HISTOGRAM_BINS); ++i) ++local[in[i] & 255u];
          for (uint32_t b = 0; b < BENCH_HISTOGRAM_BINS; ++b) totals[b] += local[b];
        }
        for (uint32_t b = 0; b < BENCH_HISTOGRAM_BINS; ++b) std::atomic_ref<uint32_t>(out[b]).fetch_add(totals[b]);
      });
    });
    report(figure, "C loop, all cores, per-256 bins", blocks, out == reference);
  }
  histogram_args_t args = {in, bins, n, 0};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t wg[3] = {uint16_t(workgroup), 1, 1};
  const Stats x = measure([&] {
    std::fill(bins, bins + BENCH_HISTOGRAM_BINS, 0u);
    hsa.run(plain ? "histogram256_plain" : "histogram256", &args, sizeof(args), 1, grid, wg);
  });
  report(figure, "xgpu on hsa-cpu", x, std::equal(bins, bins + BENCH_HISTOGRAM_BINS, reference.begin()));
  if (pocl.ok()) {
    std::vector<uint32_t> pbins(BENCH_HISTOGRAM_BINS);
    cl_mem min = pocl.wrap(in, n * 4), mbins = pocl.wrap(pbins.data(), BENCH_HISTOGRAM_BINS * 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {workgroup, 1, 1};
    const Stats p = measure([&] {
      std::fill(pbins.begin(), pbins.end(), 0u);
      pocl.run(plain ? "histogram256_plain" : "histogram256", {min, mbins}, n, 1, g, l, mbins, BENCH_HISTOGRAM_BINS * 4);
    });
    report(figure, "PoCL", p, pbins == reference);
  }
}

void reduction(Hsa& hsa, Pocl& pocl, bool plain) {
  const char* const figure = plain ? "tree reduction (plain)" : "tree reduction";
  const char* const kernel = plain ? "reduce_sum_plain" : "reduce_sum";
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  const uint32_t groups = (n + BENCH_REDUCE_WORKGROUP - 1) / BENCH_REDUCE_WORKGROUP;
  uint32_t* in = hsa.allocate<uint32_t>(n);
  uint32_t* sums = hsa.allocate<uint32_t>(groups);
  for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 8;
  std::vector<uint32_t> out(groups), reference;
  auto sum_groups = [&](uint32_t first, uint32_t last) {
    for (uint32_t g = first; g < last; ++g) {
      uint32_t s = 0;
      for (uint32_t i = g * BENCH_REDUCE_WORKGROUP; i < std::min(n, (g + 1) * BENCH_REDUCE_WORKGROUP); ++i) s += in[i];
      out[g] = s;
    }
  };
  const Stats c1 = measure([&] { sum_groups(0, groups); });
  reference = out;
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] { parallel_for(groups, sum_groups); });
  report(figure, "C loop, all cores", call, out == reference);
  reduce_args_t args = {in, sums, n, 0};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t wg[3] = {BENCH_REDUCE_WORKGROUP, 1, 1};
  const Stats x = measure([&] { hsa.run(kernel, &args, sizeof(args), 1, grid, wg); });
  report(figure, "xgpu on hsa-cpu", x, std::equal(sums, sums + groups, reference.begin()));
  if (pocl.ok()) {
    std::vector<uint32_t> psums(groups);
    cl_mem min = pocl.wrap(in, n * 4), msums = pocl.wrap(psums.data(), groups * 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {BENCH_REDUCE_WORKGROUP, 1, 1};
    const Stats p = measure([&] { pocl.run(kernel, {min, msums}, n, 1, g, l, msums, groups * 4); });
    report(figure, "PoCL", p, psums == reference);
  }
}

void gemm(Hsa& hsa, Pocl& pocl, bool plain) {
  const char* const figure = plain ? "gemm (plain)" : "gemm";
  const char* const kernel = plain ? "gemm_plain" : "gemm";
  const uint16_t side = plain ? BENCH_PLAIN_TILE : 16;  // workgroup: side x side items
  const uint32_t n = g_smoke ? 32 : 192;
  float* a = hsa.allocate<float>(n * n);
  float* b = hsa.allocate<float>(n * n);
  float* c = hsa.allocate<float>(n * n);
  // Small integers: every product and sum is exact, whatever the order.
  for (uint32_t i = 0; i < n * n; ++i) {
    a[i] = float(i * 7 % 5);
    b[i] = float(i * 3 % 7);
  }
  std::vector<float> out(n * n), reference;
  auto rows = [&](uint32_t first, uint32_t last) {
    for (uint32_t i = first; i < last; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (uint32_t k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
        out[i * n + j] = acc;
      }
  };
  const Stats c1 = measure([&] { rows(0, n); });
  reference = out;
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] { parallel_for(n, rows); });
  report(figure, "C loop, all cores", call, out == reference);
  gemm_args_t args = {a, b, c, n, 0};
  const uint32_t grid[3] = {n, n, 1};
  const uint16_t wg[3] = {side, side, 1};
  const Stats x = measure([&] { hsa.run(kernel, &args, sizeof(args), 2, grid, wg); });
  report(figure, "xgpu on hsa-cpu", x, std::equal(c, c + n * n, reference.begin()));
  if (pocl.ok()) {
    std::vector<float> pc(n * n);
    cl_mem ma = pocl.wrap(a, n * n * 4), mb = pocl.wrap(b, n * n * 4), mc = pocl.wrap(pc.data(), n * n * 4);
    const size_t g[3] = {n, n, 1}, l[3] = {side, side, 1};
    const Stats p = measure([&] { pocl.run(kernel, {ma, mb, mc}, n, 2, g, l, mc, n * n * 4); });
    report(figure, "PoCL", p, pc == reference);
  }
}


void atax(Hsa& hsa, Pocl& pocl, bool plain) {
  const char* const figure = plain ? "atax (plain)" : "atax";
  const char* const ax_kernel = plain ? "atax_ax_plain" : "atax_ax";
  const char* const atx_kernel = plain ? "atax_atx_plain" : "atax_atx";
  const uint32_t n = g_smoke ? 64 : 2048;
  float* a = hsa.allocate<float>(size_t{n} * n);
  float* x = hsa.allocate<float>(n);
  float* tmp = hsa.allocate<float>(n);
  float* y = hsa.allocate<float>(n);
  // Small integers: every product and sum is exact (below 2^24), whatever
  // the order.
  for (uint32_t i = 0; i < n * n; ++i) a[i] = float(i * 7 % 3);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i % 3);
  std::vector<float> t(n), out(n), reference;
  auto ax = [&](uint32_t first, uint32_t last) {
    for (uint32_t i = first; i < last; ++i) {
      float acc = 0.0f;
      for (uint32_t j = 0; j < n; ++j) acc += a[size_t{i} * n + j] * x[j];
      t[i] = acc;
    }
  };
  auto atx = [&](uint32_t first, uint32_t last) {
    for (uint32_t j = first; j < last; ++j) {
      float acc = 0.0f;
      for (uint32_t i = 0; i < n; ++i) acc += a[size_t{i} * n + j] * t[i];
      out[j] = acc;
    }
  };
  const Stats c1 = measure([&] {
    ax(0, n);
    atx(0, n);
  });
  reference = out;
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] {
    parallel_for(n, ax);
    parallel_for(n, atx);
  });
  report(figure, "C loop, all cores", call, out == reference);
  const atax_args_t first = {a, x, tmp, n, 0}, second = {a, tmp, y, n, 0};
  const uint32_t grid[3] = {n, 1, 1};
  // The plain A x runs one 64-item workgroup per row.
  const uint32_t ax_grid[3] = {plain ? n * BENCH_PLAIN_WORKGROUP : n, 1, 1};
  const uint16_t wg[3] = {64, 1, 1};
  const Stats xs = measure([&] {
    hsa.run(ax_kernel, &first, sizeof(first), 1, ax_grid, wg);
    hsa.run(atx_kernel, &second, sizeof(second), 1, grid, wg);
  });
  report(figure, "xgpu on hsa-cpu", xs, std::equal(y, y + n, reference.begin()));
  if (pocl.ok()) {
    std::vector<float> pt(n), py(n);
    cl_mem ma = pocl.wrap(a, size_t{n} * n * 4), mx = pocl.wrap(x, n * 4), mt = pocl.wrap(pt.data(), n * 4),
           my = pocl.wrap(py.data(), n * 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {64, 1, 1};
    const size_t ax_g[3] = {ax_grid[0], 1, 1};
    const Stats p = measure([&] {
      pocl.run(ax_kernel, {ma, mx, mt}, n, 1, ax_g, l, nullptr, 0);
      pocl.run(atx_kernel, {ma, mt, my}, n, 1, g, l, my, n * 4);
    });
    report(figure, "PoCL", p, py == reference);
  }
}

// Time steps of jacobi-2d per measurement (in -> out, then out -> in).
constexpr uint32_t kJacobiSteps = 10;

void jacobi(Hsa& hsa, Pocl& pocl, bool plain) {
  const char* const figure = plain ? "jacobi-2d (plain)" : "jacobi-2d";
  const char* const kernel = plain ? "jacobi2d_plain" : "jacobi2d";
  const uint16_t side = plain ? BENCH_PLAIN_TILE : 16;  // workgroup: side x side items
  const uint32_t n = g_smoke ? 32 : 1024;  // a multiple of 16: OpenCL 1.2 needs whole workgroups
  const size_t cells = size_t{n} * n;
  float* grid_a = hsa.allocate<float>(cells);
  float* grid_b = hsa.allocate<float>(cells);
  std::vector<float> initial(cells);
  for (size_t i = 0; i < cells; ++i) initial[i] = float((i * 13) % 17);
  // Every implementation evaluates the same expression in the same order:
  // the floats are equal, not only close.
  std::vector<float> ca(cells), cb(cells), reference;
  auto step = [&](const float* in, float* out, uint32_t first, uint32_t last) {
    for (uint32_t i = std::max(first, 1u); i < std::min(last, n - 1); ++i)
      for (uint32_t j = 1; j < n - 1; ++j)
        out[i * n + j] = 0.2f * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1] + in[(i + 1) * n + j] +
                                 in[(i - 1) * n + j]);
  };
  auto run_c = [&](bool all_cores) {
    ca = initial;
    cb = initial;
    for (uint32_t t = 0; t < kJacobiSteps; ++t) {
      const float* in = t % 2 ? cb.data() : ca.data();
      float* out = t % 2 ? ca.data() : cb.data();
      if (all_cores)
        parallel_for(n, [&](uint32_t first, uint32_t last) { step(in, out, first, last); });
      else
        step(in, out, 0, n);
    }
  };
  const Stats c1 = measure([&] { run_c(false); });
  reference = kJacobiSteps % 2 ? cb : ca;
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] { run_c(true); });
  report(figure, "C loop, all cores", call, (kJacobiSteps % 2 ? cb : ca) == reference);
  const jacobi_args_t forward = {grid_a, grid_b, n, 0}, backward = {grid_b, grid_a, n, 0};
  const uint32_t grid[3] = {n, n, 1};
  const uint16_t wg[3] = {side, side, 1};
  const Stats xs = measure([&] {
    std::copy(initial.begin(), initial.end(), grid_a);
    std::copy(initial.begin(), initial.end(), grid_b);
    for (uint32_t t = 0; t < kJacobiSteps; ++t)
      hsa.run(kernel, t % 2 ? &backward : &forward, sizeof(forward), 2, grid, wg);
  });
  const float* result = kJacobiSteps % 2 ? grid_b : grid_a;
  report(figure, "xgpu on hsa-cpu", xs, std::equal(result, result + cells, reference.begin()));
  if (pocl.ok()) {
    std::vector<float> pa(cells), pb(cells);
    cl_mem ma = pocl.wrap(pa.data(), cells * 4), mb = pocl.wrap(pb.data(), cells * 4);
    const size_t g[3] = {n, n, 1}, l[3] = {side, side, 1};
    const Stats p = measure([&] {
      pa = initial;  // same storage: the buffers use the host memory
      pb = initial;
      for (uint32_t t = 0; t < kJacobiSteps; ++t) {
        const bool last = t + 1 == kJacobiSteps;
        cl_mem out = t % 2 ? ma : mb;
        pocl.run(kernel, {t % 2 ? mb : ma, out}, n, 2, g, l, last ? out : nullptr, cells * 4);
      }
    });
    report(figure, "PoCL", p, (kJacobiSteps % 2 ? pb : pa) == reference);
  }
}

// The 16-dispatch chain: jacobi2d_plain on a small grid (64 x 64, 8 x 8
// workgroups; and a tiny one, 16 x 16: 4 workgroups), kChainSteps time
// steps, one dispatch per step with a barrier between dispatches, as a user
// writes a time loop; the same with one step, so that the difference is
// what the 15 later dispatches cost. Sides: the
// xgpu API (one command buffer: per step the bindings swapped, the constants
// and the dispatch, then a memory barrier; one submit, one wait), the same
// dispatches as HSA packets with the barrier bit (one doorbell, one wait: no
// driver on the way), PoCL (the steps enqueued on an in-order queue, one
// wait), and the C loops (all cores: one OpenMP region per step).
constexpr uint32_t kChainSteps = 16;

void jacobi_chain_on(Hsa& hsa, Pocl& pocl, bool tiny) {
  // A multiple of BENCH_PLAIN_TILE: OpenCL 1.2 needs whole workgroups.
  const uint32_t n = tiny ? 16 : g_smoke ? 32 : 64;
  const size_t cells = size_t{n} * n;
  std::vector<float> initial(cells);
  for (size_t i = 0; i < cells; ++i) initial[i] = float((i * 13) % 17);
  auto step = [&](const float* in, float* out, uint32_t first, uint32_t last) {
    for (uint32_t i = std::max(first, 1u); i < std::min(last, n - 1); ++i)
      for (uint32_t j = 1; j < n - 1; ++j)
        out[i * n + j] = 0.2f * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1] + in[(i + 1) * n + j] +
                                 in[(i - 1) * n + j]);
  };
  XgpuApi x;
  XgpuBuffer bufa = XGPU_NULL_HANDLE, bufb = XGPU_NULL_HANDLE;
  XgpuPipeline pipeline = XGPU_NULL_HANDLE;
  float *xa = nullptr, *xb = nullptr;
  if (x.ok()) {
    g_api_level = x.level();
    bufa = x.buffer(cells, XGPU_BUFFER_USAGE_STORAGE_BIT, &xa);
    bufb = x.buffer(cells, XGPU_BUFFER_USAGE_STORAGE_BIT, &xb);
    pipeline = x.pipeline("jacobi2d_plain", BENCH_PLAIN_TILE, BENCH_PLAIN_TILE);
  }
  float* ha = hsa.allocate<float>(cells);
  float* hb = hsa.allocate<float>(cells);
  std::vector<float> pa(cells), pb(cells);
  cl_mem ma = nullptr, mb = nullptr;
  if (pocl.ok()) {
    ma = pocl.wrap(pa.data(), cells * 4);
    mb = pocl.wrap(pb.data(), cells * 4);
  }
  double median[2][4] = {};  // [16 steps, 1 step][xgpu API, HSA packets, PoCL, C all cores]
  for (const uint32_t steps : {kChainSteps, 1u}) {
    const int row = steps == kChainSteps ? 0 : 1;
    const char* const figure = tiny ? (row == 0 ? "jacobi-2d chain (tiny), 16 dispatches" : "jacobi-2d chain (tiny), 1 dispatch")
                                    : (row == 0 ? "jacobi-2d chain, 16 dispatches" : "jacobi-2d chain, 1 dispatch");
    // Every side evaluates the same expression in the same order.
    std::vector<float> ca(cells), cb(cells), reference;
    auto run_c = [&](bool all_cores) {
      ca = initial;
      cb = initial;
      for (uint32_t t = 0; t < steps; ++t) {
        const float* in = t % 2 ? cb.data() : ca.data();
        float* out = t % 2 ? ca.data() : cb.data();
        if (all_cores)
          parallel_for(n, [&](uint32_t first, uint32_t last) { step(in, out, first, last); });
        else
          step(in, out, 0, n);
      }
    };
    const Stats c1 = measure([&] { run_c(false); });
    reference = steps % 2 ? cb : ca;
    report(figure, "C loop, 1 thread", c1, true);
    const Stats call = measure_all_cores([&] { run_c(true); });
    report(figure, "C loop, all cores", call, (steps % 2 ? cb : ca) == reference);
    median[row][3] = call.median;
    if (x.ok()) {
      XgpuCommandBuffer commands = x.begin();
      xgpuCmdBindPipeline(commands, pipeline);
      const uint32_t constants[2] = {n, 0};  // jacobi_args_t's n and reserved
      xgpuCmdPushConstants(commands, 0, sizeof constants, constants);
      const XgpuBufferRef forward[2] = {xgpuBufferRefWhole(bufa), xgpuBufferRefWhole(bufb)};
      const XgpuBufferRef backward[2] = {xgpuBufferRefWhole(bufb), xgpuBufferRefWhole(bufa)};
      for (uint32_t t = 0; t < steps; ++t) {
        if (t > 0)
          xgpuCmdMemoryBarrier(commands, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                               XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                               XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
        xgpuCmdBindBuffers(commands, 0, 2, t % 2 ? backward : forward);
        xgpuCmdDispatch(commands, n / BENCH_PLAIN_TILE, n / BENCH_PLAIN_TILE, 1);
      }
      CHECK_XGPU(xgpuEndCommandBuffer(commands));
      const Stats xs = measure([&] {
        std::copy(initial.begin(), initial.end(), xa);
        std::copy(initial.begin(), initial.end(), xb);
        x.submit_and_wait(commands);
      });
      const float* result = steps % 2 ? xb : xa;
      report(figure, "xgpu API, hsa-cpu", xs, std::equal(result, result + cells, reference.begin()));
      median[row][0] = xs.median;
    } else {
      api_missing(figure, x);
    }
    const jacobi_args_t forward = {ha, hb, n, 0}, backward = {hb, ha, n, 0};
    const void* chain[Hsa::kMaxChain];
    for (uint32_t t = 0; t < steps; ++t) chain[t] = t % 2 ? &backward : &forward;
    const uint32_t grid[3] = {n, n, 1};
    const uint16_t wg[3] = {BENCH_PLAIN_TILE, BENCH_PLAIN_TILE, 1};
    const Stats hs = measure([&] {
      std::copy(initial.begin(), initial.end(), ha);
      std::copy(initial.begin(), initial.end(), hb);
      hsa.run_chain("jacobi2d_plain", chain, steps, sizeof(forward), 2, grid, wg);
    });
    const float* hresult = steps % 2 ? hb : ha;
    report(figure, "xgpu, HSA packets", hs, std::equal(hresult, hresult + cells, reference.begin()));
    median[row][1] = hs.median;
    if (pocl.ok()) {
      const size_t g[3] = {n, n, 1}, l[3] = {BENCH_PLAIN_TILE, BENCH_PLAIN_TILE, 1};
      const Stats p = measure([&] {
        pa = initial;  // same storage: the buffers use the host memory
        pb = initial;
        for (uint32_t t = 0; t < steps; ++t) {
          const bool last = t + 1 == steps;
          cl_mem out = t % 2 ? ma : mb;
          pocl.run("jacobi2d_plain", {t % 2 ? mb : ma, out}, n, 2, g, l, last ? out : nullptr, cells * 4);
        }
      });
      report(figure, "PoCL", p, (steps % 2 ? pb : pa) == reference);
      median[row][2] = p.median;
    }
  }
  // What each dispatch after the first costs: the two figures' difference
  // over the 15 extra steps (the C loop's: a step on all cores).
  auto per_step = [&](int side) { return (median[0][side] - median[1][side]) * 1000.0 / (kChainSteps - 1); };
  char text[512];
  snprintf(text, sizeof text,
           "jacobi-2d chain %u^2: each step beyond the first ((16-step median - 1-step median) / 15), us: "
           "xgpu API %.1f, HSA packets %.1f, PoCL %.1f, C loop on all cores %.1f",
           n, per_step(0), per_step(1), pocl.ok() ? per_step(2) : 0.0, per_step(3));
  if (g_json)
    printf("{\"bench\": \"cpu_kernels\", \"note\": \"%s\"}\n", text);
  else
    printf("  %s\n", text);
}

void jacobi_chain(Hsa& hsa, Pocl& pocl) {
  jacobi_chain_on(hsa, pocl, false);
  jacobi_chain_on(hsa, pocl, true);
}

void scan(Hsa& hsa, Pocl& pocl, bool plain) {
  const char* const figure = plain ? "prefix sum (plain)" : "prefix sum";
  const char* const kernel = plain ? "scan256_plain" : "scan256";
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  const uint32_t blocks = (n + BENCH_SCAN_WORKGROUP - 1) / BENCH_SCAN_WORKGROUP;
  uint32_t* in = hsa.allocate<uint32_t>(n);
  uint32_t* out = hsa.allocate<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 12;
  std::vector<uint32_t> c(n), reference;
  auto scan_blocks = [&](uint32_t first, uint32_t last) {
    for (uint32_t b = first; b < last; ++b) {
      uint32_t s = 0;
      for (uint32_t i = b * BENCH_SCAN_WORKGROUP; i < std::min(n, (b + 1) * BENCH_SCAN_WORKGROUP); ++i)
        c[i] = s += in[i];
    }
  };
  const Stats c1 = measure([&] { scan_blocks(0, blocks); });
  reference = c;
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] { parallel_for(blocks, scan_blocks); });
  report(figure, "C loop, all cores", call, c == reference);
  scan_args_t args = {in, out, n, 0};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t wg[3] = {BENCH_SCAN_WORKGROUP, 1, 1};
  const Stats xs = measure([&] { hsa.run(kernel, &args, sizeof(args), 1, grid, wg); });
  report(figure, "xgpu on hsa-cpu", xs, std::equal(out, out + n, reference.begin()));
  if (pocl.ok()) {
    std::vector<uint32_t> pout(n);
    cl_mem min = pocl.wrap(in, n * 4), mout = pocl.wrap(pout.data(), n * 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {BENCH_SCAN_WORKGROUP, 1, 1};
    const Stats p = measure([&] { pocl.run(kernel, {min, mout}, n, 1, g, l, mout, n * 4); });
    report(figure, "PoCL", p, pout == reference);
  }
}

void compaction(Hsa& hsa, Pocl& pocl) {
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  uint32_t* in = hsa.allocate<uint32_t>(n);
  uint32_t* out = hsa.allocate<uint32_t>(n);
  uint32_t* count = hsa.allocate<uint32_t>(1);
  uint32_t seed = 777;
  for (uint32_t i = 0; i < n; ++i) in[i] = (seed = seed * 1664525u + 1013904223u) >> 4;
  std::vector<uint32_t> c(n);
  uint32_t kept = 0;
  const Stats c1 = measure([&] { kept = compact_range(in, 0, n, c.data()); });
  // The 1-thread loop keeps input order; the others' order is not defined,
  // so each result is compared as a sorted list.
  std::vector<uint32_t> reference(c.begin(), c.begin() + kept);
  std::sort(reference.begin(), reference.end());
  auto equal_sorted = [&](const uint32_t* values, uint32_t count_kept) {
    std::vector<uint32_t> v(values, values + count_kept);
    std::sort(v.begin(), v.end());
    return v == reference;
  };
  report("compaction", "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] {
    kept = compact_all_cores(in, n, c.data());
  });
  report("compaction", "C loop, all cores", call, equal_sorted(c.data(), kept));
  compact_args_t args = {in, out, count, n, 0};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t wg[3] = {BENCH_COMPACT_WORKGROUP, 1, 1};
  const Stats xs = measure([&] {
    *count = 0;
    hsa.run("compact", &args, sizeof(args), 1, grid, wg);
  });
  report("compaction", "xgpu on hsa-cpu", xs, *count == reference.size() && equal_sorted(out, *count));
  if (pocl.ok()) {
    std::vector<uint32_t> pout(n);
    uint32_t pcount = 0;
    cl_mem min = pocl.wrap(in, n * 4), mout = pocl.wrap(pout.data(), n * 4), mcount = pocl.wrap(&pcount, 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {BENCH_COMPACT_WORKGROUP, 1, 1};
    const Stats p = measure([&] {
      pcount = 0;
      pocl.run("compact", {min, mout, mcount}, n, 1, g, l, mcount, 4);
    });
    report("compaction", "PoCL", p, pcount == reference.size() && equal_sorted(pout.data(), pcount));
  }
}


// The compaction plainly written (compact_plain: the shape of
// samples/indirect_dispatch's filter, 64-item workgroups): beside the kept
// values and their count it counts the workgroups of a pass over them
// (checked equal to ceil(count / 64), from the 1-thread C loop's count).
void compaction_plain(Hsa& hsa, Pocl& pocl) {
  const char* const figure = "compaction (plain)";
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  uint32_t* in = hsa.allocate<uint32_t>(n);
  uint32_t* out = hsa.allocate<uint32_t>(n);
  auto* state = hsa.allocate<compact_plain_state_t>(1);
  uint32_t seed = 777;
  for (uint32_t i = 0; i < n; ++i) in[i] = (seed = seed * 1664525u + 1013904223u) >> 4;
  std::vector<uint32_t> c(n);
  uint32_t kept = 0;
  const Stats c1 = measure([&] { kept = compact_range(in, 0, n, c.data()); });
  std::vector<uint32_t> reference(c.begin(), c.begin() + kept);
  std::sort(reference.begin(), reference.end());
  const uint32_t groups = uint32_t((reference.size() + BENCH_PLAIN_WORKGROUP - 1) / BENCH_PLAIN_WORKGROUP);
  // The kept values as a sorted list (their order is not defined), the
  // count and the workgroup counts exactly.
  auto equal = [&](const uint32_t* values, const compact_plain_state_t& s) {
    if (s.count != reference.size() || s.workgroup_count[0] != groups || s.workgroup_count[1] != 1 ||
        s.workgroup_count[2] != 1)
      return false;
    std::vector<uint32_t> v(values, values + s.count);
    std::sort(v.begin(), v.end());
    return v == reference;
  };
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] { kept = compact_all_cores(in, n, c.data()); });
  std::vector<uint32_t> sorted(c.begin(), c.begin() + kept);
  std::sort(sorted.begin(), sorted.end());
  report(figure, "C loop, all cores", call, sorted == reference);
  compact_plain_args_t args = {in, out, state, n, 0};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t wg[3] = {BENCH_PLAIN_WORKGROUP, 1, 1};
  const compact_plain_state_t reset = {{0, 1, 1}, 0};
  const Stats xs = measure([&] {
    *state = reset;
    hsa.run("compact_plain", &args, sizeof(args), 1, grid, wg);
  });
  report(figure, "xgpu on hsa-cpu", xs, equal(out, *state));
  // The same dispatch through the xgpu API (a recorded command buffer, its
  // state reset by xgpuCmdUpdateBuffer): what the API adds to the HSA
  // packet above.
  XgpuApi x;
  if (!x.ok()) {
    api_missing(figure, x);
  } else {
    g_api_level = x.level();
    uint32_t *xin, *xout;
    compact_plain_state_t* xstate;
    const XgpuBuffer bin = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xin);
    const XgpuBuffer bout = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xout);
    const XgpuBuffer bstate =
        x.buffer(1, XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, &xstate);
    std::copy(in, in + n, xin);
    const XgpuPipeline filter = x.pipeline("compact_plain", BENCH_PLAIN_WORKGROUP);
    XgpuCommandBuffer cb = x.begin();
    const XgpuBufferRef state_ref = xgpuBufferRefWhole(bstate);
    xgpuCmdUpdateBuffer(cb, &state_ref, sizeof reset, &reset);
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
    xgpuCmdBindPipeline(cb, filter);
    const XgpuBufferRef bindings[3] = {xgpuBufferRefWhole(bin), xgpuBufferRefWhole(bout), state_ref};
    xgpuCmdBindBuffers(cb, 0, 3, bindings);
    const uint32_t constants[2] = {n, 0};  // compact_plain_args_t's n and reserved
    xgpuCmdPushConstants(cb, 0, sizeof constants, constants);
    xgpuCmdDispatch(cb, (n + BENCH_PLAIN_WORKGROUP - 1) / BENCH_PLAIN_WORKGROUP, 1, 1);
    CHECK_XGPU(xgpuEndCommandBuffer(cb));
    const Stats xa = measure([&] { x.submit_and_wait(cb); },
                             // Stale results cannot pass for this repeat's.
                             [&] { std::fill(xout, xout + n, 0u); });
    report(figure, "xgpu API, hsa-cpu", xa, equal(xout, *xstate));
  }
  if (pocl.ok()) {
    std::vector<uint32_t> pout(n);
    compact_plain_state_t pstate = reset;
    cl_mem min = pocl.wrap(in, n * 4), mout = pocl.wrap(pout.data(), n * 4),
           mstate = pocl.wrap(&pstate, sizeof pstate);
    const size_t g[3] = {n, 1, 1}, l[3] = {BENCH_PLAIN_WORKGROUP, 1, 1};
    const Stats p = measure([&] {
      pstate = reset;
      pocl.run("compact_plain", {min, mout, mstate}, n, 1, g, l, mstate, sizeof pstate);
    });
    report(figure, "PoCL", p, equal(pout.data(), pstate));
  }
}

// The compaction followed by a second pass over the kept values, sized by
// the kept count: through the xgpu API, one command buffer whose second
// dispatch is a DYNAMIC indirect one (its workgroup counts written on the
// device from the count, by compact_groups); PoCL (OpenCL 1.2, no device
// enqueue) reads the count back on the host and enqueues the second kernel
// with a global size made from it; the C loops run the two loops.
void compaction_indirect(Hsa&, Pocl& pocl) {
  const char* const figure = "compaction + DYNAMIC indirect";
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  std::vector<uint32_t> in(n);
  uint32_t seed = 777;
  for (uint32_t i = 0; i < n; ++i) in[i] = (seed = seed * 1664525u + 1013904223u) >> 4;
  std::vector<uint32_t> c(n), c2(n);
  uint32_t kept = 0;
  const Stats c1 = measure([&] {
    kept = compact_range(in.data(), 0, n, c.data());
    for (uint32_t i = 0; i < kept; ++i) c2[i] = bench_compact_transform(c[i]);
  });
  // Compared as sorted lists (the kernels' order is not defined), the count
  // exactly.
  std::vector<uint32_t> reference(c2.begin(), c2.begin() + kept);
  std::sort(reference.begin(), reference.end());
  auto equal_sorted = [&](const uint32_t* values, uint32_t count_kept) {
    if (count_kept != reference.size()) return false;
    std::vector<uint32_t> v(values, values + count_kept);
    std::sort(v.begin(), v.end());
    return v == reference;
  };
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] {
    kept = compact_all_cores(in.data(), n, c.data());
    parallel_for(kept, [&](uint32_t first, uint32_t last) {
      for (uint32_t i = first; i < last; ++i) c2[i] = bench_compact_transform(c[i]);
    });
  });
  report(figure, "C loop, all cores", call, equal_sorted(c2.data(), kept));

  XgpuApi x;
  if (!x.ok()) {
    api_missing(figure, x);
  } else {
    g_api_level = x.level();
    uint32_t *xin, *xout, *xcount, *xgroups, *xout2;
    const XgpuBuffer bin = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xin);
    const XgpuBuffer bout = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xout);
    const XgpuBuffer bcount =
        x.buffer(1, XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, &xcount);
    const XgpuBuffer bgroups = x.buffer(3, XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT, &xgroups);
    const XgpuBuffer bout2 = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xout2);
    std::copy(in.begin(), in.end(), xin);
    const XgpuPipeline compact = x.pipeline("compact", BENCH_COMPACT_WORKGROUP);
    const XgpuPipeline groups = x.pipeline("compact_groups", 1);
    const XgpuPipeline process = x.pipeline("compact_process", BENCH_COMPACT_WORKGROUP);
    // One command buffer, recorded once: the count reset, the compaction,
    // the workgroup counts from the count, the DYNAMIC indirect dispatch.
    XgpuCommandBuffer cb = x.begin();
    const XgpuBufferRef count_ref = xgpuBufferRefWhole(bcount);
    const uint32_t zero = 0;
    xgpuCmdFillBuffer(cb, &count_ref, &zero, sizeof zero);
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
    xgpuCmdBindPipeline(cb, compact);
    const XgpuBufferRef compact_bindings[3] = {xgpuBufferRefWhole(bin), xgpuBufferRefWhole(bout), count_ref};
    xgpuCmdBindBuffers(cb, 0, 3, compact_bindings);
    const uint32_t constants[2] = {n, 0};  // compact_args_t's n and reserved
    xgpuCmdPushConstants(cb, 0, sizeof constants, constants);
    xgpuCmdDispatch(cb, (n + BENCH_COMPACT_WORKGROUP - 1) / BENCH_COMPACT_WORKGROUP, 1, 1);
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
    xgpuCmdBindPipeline(cb, groups);
    const XgpuBufferRef groups_bindings[2] = {count_ref, xgpuBufferRefWhole(bgroups)};
    xgpuCmdBindBuffers(cb, 0, 2, groups_bindings);
    xgpuCmdDispatch(cb, 1, 1, 1);
    // The counts feed the indirect dispatch (INDIRECT_READ); the kept values
    // and the count are read by its kernel.
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_INDIRECT_BIT | XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                         XGPU_ACCESS_INDIRECT_READ_BIT | XGPU_ACCESS_SHADER_READ_BIT);
    xgpuCmdBindPipeline(cb, process);
    const XgpuBufferRef process_bindings[3] = {xgpuBufferRefWhole(bout), xgpuBufferRefWhole(bout2), count_ref};
    xgpuCmdBindBuffers(cb, 0, 3, process_bindings);
    const XgpuBufferRef groups_ref = xgpuBufferRefRange(bgroups, 0, 3 * sizeof(uint32_t));
    xgpuCmdDispatchIndirect(cb, &groups_ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    CHECK_XGPU(xgpuEndCommandBuffer(cb));
    const Stats xs = measure(
        [&] {
          *xgroups = 0;
          x.submit_and_wait(cb);
        },
        // Stale results from the previous repeat cannot pass for this one's.
        [&] { std::fill(xout2, xout2 + n, 0u); });
    const uint32_t expected_groups =
        uint32_t((reference.size() + BENCH_COMPACT_WORKGROUP - 1) / BENCH_COMPACT_WORKGROUP);
    report(figure, "xgpu API, hsa-cpu", xs, *xgroups == expected_groups && equal_sorted(xout2, *xcount));
  }

  if (pocl.ok()) {
    std::vector<uint32_t> pout(n), pout2(n);
    uint32_t pcount = 0;
    cl_mem min = pocl.wrap(in.data(), n * 4), mout = pocl.wrap(pout.data(), n * 4), mcount = pocl.wrap(&pcount, 4),
           mout2 = pocl.wrap(pout2.data(), n * 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {BENCH_COMPACT_WORKGROUP, 1, 1};
    const Stats p = measure([&] {
      pcount = 0;
      pocl.run("compact", {min, mout, mcount}, n, 1, g, l, mcount, 4);  // waits: the count is read here
      if (pcount == 0) return;  // OpenCL 1.2 has no empty NDRange
      const size_t g2[3] = {(pcount + BENCH_COMPACT_WORKGROUP - 1) / BENCH_COMPACT_WORKGROUP * BENCH_COMPACT_WORKGROUP,
                            1, 1};
      pocl.run("compact_process", {mout, mout2}, pcount, 1, g2, l, mout2, size_t{pcount} * 4);
    }, [&] { std::fill(pout2.begin(), pout2.end(), 0u); });
    report(figure, "PoCL", p, equal_sorted(pout2.data(), pcount));
  }
}

// The same plainly written: compact_plain counts the workgroups of the
// second pass itself (no compact_groups dispatch), as samples/indirect_dispatch's
// filter does, and compact_process_plain reads the count from the same
// state; 64-item workgroups. PoCL reads the state back on the host and
// enqueues compact_process over the counted workgroups.
void compaction_indirect_plain(Hsa&, Pocl& pocl) {
  const char* const figure = "compaction + DYNAMIC indirect (plain)";
  const uint32_t n = g_smoke ? 4096 : 1u << 20;
  std::vector<uint32_t> in(n);
  uint32_t seed = 777;
  for (uint32_t i = 0; i < n; ++i) in[i] = (seed = seed * 1664525u + 1013904223u) >> 4;
  std::vector<uint32_t> c(n), c2(n);
  uint32_t kept = 0;
  const Stats c1 = measure([&] {
    kept = compact_range(in.data(), 0, n, c.data());
    for (uint32_t i = 0; i < kept; ++i) c2[i] = bench_compact_transform(c[i]);
  });
  std::vector<uint32_t> reference(c2.begin(), c2.begin() + kept);
  std::sort(reference.begin(), reference.end());
  const uint32_t groups = uint32_t((reference.size() + BENCH_PLAIN_WORKGROUP - 1) / BENCH_PLAIN_WORKGROUP);
  auto equal_sorted = [&](const uint32_t* values, uint32_t count_kept) {
    if (count_kept != reference.size()) return false;
    std::vector<uint32_t> v(values, values + count_kept);
    std::sort(v.begin(), v.end());
    return v == reference;
  };
  report(figure, "C loop, 1 thread", c1, true);
  const Stats call = measure_all_cores([&] {
    kept = compact_all_cores(in.data(), n, c.data());
    parallel_for(kept, [&](uint32_t first, uint32_t last) {
      for (uint32_t i = first; i < last; ++i) c2[i] = bench_compact_transform(c[i]);
    });
  });
  report(figure, "C loop, all cores", call, equal_sorted(c2.data(), kept));

  XgpuApi x;
  if (!x.ok()) {
    api_missing(figure, x);
  } else {
    g_api_level = x.level();
    uint32_t *xin, *xout, *xout2;
    compact_plain_state_t* xstate;
    const XgpuBuffer bin = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xin);
    const XgpuBuffer bout = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xout);
    const XgpuBuffer bstate = x.buffer(
        1, XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT,
        &xstate);
    const XgpuBuffer bout2 = x.buffer(n, XGPU_BUFFER_USAGE_STORAGE_BIT, &xout2);
    std::copy(in.begin(), in.end(), xin);
    const XgpuPipeline filter = x.pipeline("compact_plain", BENCH_PLAIN_WORKGROUP);
    const XgpuPipeline process = x.pipeline("compact_process_plain", BENCH_PLAIN_WORKGROUP);
    XgpuCommandBuffer cb = x.begin();
    const XgpuBufferRef state_ref = xgpuBufferRefWhole(bstate);
    const compact_plain_state_t reset = {{0, 1, 1}, 0};
    xgpuCmdUpdateBuffer(cb, &state_ref, sizeof reset, &reset);
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_SHADER_WRITE_BIT);
    xgpuCmdBindPipeline(cb, filter);
    const XgpuBufferRef filter_bindings[3] = {xgpuBufferRefWhole(bin), xgpuBufferRefWhole(bout), state_ref};
    xgpuCmdBindBuffers(cb, 0, 3, filter_bindings);
    const uint32_t constants[2] = {n, 0};  // compact_plain_args_t's n and reserved
    xgpuCmdPushConstants(cb, 0, sizeof constants, constants);
    xgpuCmdDispatch(cb, (n + BENCH_PLAIN_WORKGROUP - 1) / BENCH_PLAIN_WORKGROUP, 1, 1);
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_INDIRECT_BIT | XGPU_PIPELINE_STAGE_DISPATCH_BIT,
                         XGPU_ACCESS_INDIRECT_READ_BIT | XGPU_ACCESS_SHADER_READ_BIT);
    xgpuCmdBindPipeline(cb, process);
    const XgpuBufferRef process_bindings[3] = {xgpuBufferRefWhole(bout), xgpuBufferRefWhole(bout2), state_ref};
    xgpuCmdBindBuffers(cb, 0, 3, process_bindings);
    const XgpuBufferRef counts_ref = xgpuBufferRefRange(bstate, 0, 3 * sizeof(uint32_t));
    xgpuCmdDispatchIndirect(cb, &counts_ref, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    CHECK_XGPU(xgpuEndCommandBuffer(cb));
    const Stats xs = measure([&] { x.submit_and_wait(cb); },
                             // Stale results cannot pass for this repeat's.
                             [&] { std::fill(xout2, xout2 + n, 0u); });
    report(figure, "xgpu API, hsa-cpu", xs,
           xstate->workgroup_count[0] == groups && equal_sorted(xout2, xstate->count));
  }

  if (pocl.ok()) {
    std::vector<uint32_t> pout(n), pout2(n);
    compact_plain_state_t pstate = {};
    cl_mem min = pocl.wrap(in.data(), n * 4), mout = pocl.wrap(pout.data(), n * 4),
           mstate = pocl.wrap(&pstate, sizeof pstate), mout2 = pocl.wrap(pout2.data(), n * 4);
    const size_t g[3] = {n, 1, 1}, l[3] = {BENCH_PLAIN_WORKGROUP, 1, 1};
    const Stats p = measure([&] {
      pstate = {{0, 1, 1}, 0};
      pocl.run("compact_plain", {min, mout, mstate}, n, 1, g, l, mstate, sizeof pstate);  // waits: read here
      if (pstate.workgroup_count[0] == 0) return;  // OpenCL 1.2 has no empty NDRange
      const size_t g2[3] = {size_t{pstate.workgroup_count[0]} * BENCH_PLAIN_WORKGROUP, 1, 1};
      pocl.run("compact_process", {mout, mout2}, pstate.count, 1, g2, l, mout2, size_t{pstate.count} * 4);
    }, [&] { std::fill(pout2.begin(), pout2.end(), 0u); });
    report(figure, "PoCL", p, pstate.workgroup_count[0] == groups && equal_sorted(pout2.data(), pstate.count));
  }
}
}  // namespace

int main(int argc, char** argv) {
  // The xgpu API side finds the AMDGPU ICD of this build tree unless told
  // otherwise (it drives hsa-cpu through the ICD).
  setenv("XGPU_DRIVER_FILES", CPU_KERNELS_DRIVER_MANIFEST, 0);
  // Read by libomp when the first parallel region starts (measure_all_cores).
  setenv("KMP_BLOCKTIME", "5", 0);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      g_smoke = true;
    } else if (std::strcmp(argv[i], "--code-objects") == 0 && i + 1 < argc) {
      g_code_object_dir = argv[++i];
    } else if (std::strcmp(argv[i], "--json") == 0) {
      g_json = true;
    } else if (std::strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
      g_level = argv[++i];
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      g_only = argv[++i];
    } else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      g_repeats = std::atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--smoke] [--code-objects DIR] [--level x86-64-vN] [--only KERNEL] [--repeats N] [--json]\n",
              argv[0]);
      return 2;
    }
  }
  Hsa hsa;
  Pocl pocl;
  g_level_loaded = hsa.level();
  const char* mode = getenv("HSA_CPU_BARRIER_MODE");
  const bool fibers = mode && std::strcmp(mode, "fibers") == 0;
  if (g_json) {
    printf("{\"bench\": \"cpu_kernels\", \"note\": \"%u cores; host code object %s; barrier kernels: %s\"}\n",
           std::thread::hardware_concurrency(), hsa.level(),
           fibers ? "fibers (HSA_CPU_BARRIER_MODE=fibers)" : "work-item loops when the build made them");
    if (!pocl.ok()) printf("{\"bench\": \"cpu_kernels\", \"note\": \"PoCL: %s\"}\n", pocl.why().c_str());
  } else {
    printf("CPU kernels (%u cores; host code object %s; barrier kernels: %s)%s\n",
           std::thread::hardware_concurrency(), hsa.level(),
           fibers ? "fibers (HSA_CPU_BARRIER_MODE=fibers)" : "work-item loops when the build made them",
           g_smoke ? " [smoke]" : "");
    if (!pocl.ok()) printf("  PoCL: %s\n", pocl.why().c_str());
  }
  // Each plainly written variant right after its kernel. --only takes a
  // comma-separated list of these names; "plain" stands for every plain one.
  const struct {
    const char* name;
    bool plain;
    void (*run)(Hsa&, Pocl&);
  } kernels[] = {
      {"histogram256", false, [](Hsa& h, Pocl& p) { histogram(h, p, false); }},
      {"histogram256_plain", true, [](Hsa& h, Pocl& p) { histogram(h, p, true); }},
      {"reduce_sum", false, [](Hsa& h, Pocl& p) { reduction(h, p, false); }},
      {"reduce_sum_plain", true, [](Hsa& h, Pocl& p) { reduction(h, p, true); }},
      {"gemm", false, [](Hsa& h, Pocl& p) { gemm(h, p, false); }},
      {"gemm_plain", true, [](Hsa& h, Pocl& p) { gemm(h, p, true); }},
      {"atax", false, [](Hsa& h, Pocl& p) { atax(h, p, false); }},
      {"atax_plain", true, [](Hsa& h, Pocl& p) { atax(h, p, true); }},
      {"jacobi2d", false, [](Hsa& h, Pocl& p) { jacobi(h, p, false); }},
      {"jacobi2d_plain", true, [](Hsa& h, Pocl& p) { jacobi(h, p, true); }},
      {"jacobi2d_chain", true, jacobi_chain},
      {"scan256", false, [](Hsa& h, Pocl& p) { scan(h, p, false); }},
      {"scan256_plain", true, [](Hsa& h, Pocl& p) { scan(h, p, true); }},
      {"compact", false, compaction},
      {"compact_plain", true, compaction_plain},
      {"compact_indirect", false, compaction_indirect},
      {"compact_indirect_plain", true, compaction_indirect_plain},
  };
  auto selected = [&](const char* name, bool plain) {
    if (!g_only) return true;
    const std::string list = std::string(",") + g_only + ",";
    return list.find("," + std::string(name) + ",") != std::string::npos ||
           (plain && list.find(",plain,") != std::string::npos);
  };
  bool any = false;
  for (const auto& kernel : kernels) {
    if (!selected(kernel.name, kernel.plain)) continue;
    kernel.run(hsa, pocl);
    any = true;
  }
  if (!any) {
    std::string names;
    for (const auto& kernel : kernels) names += std::string(names.empty() ? "" : ", ") + kernel.name;
    fprintf(stderr, "--only %s: no such kernel (%s; plain: every plain one)\n", g_only, names.c_str());
    return 2;
  }
  if (g_failures && !g_json) printf("%d results differ\n", g_failures);
  return g_failures ? 1 : 0;
}
