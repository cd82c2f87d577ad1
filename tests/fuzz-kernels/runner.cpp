// fuzz_kernels_runner: runs the generated kernels of one xgpu executable on
// hsa-cpu through the HSA API (AQL dispatch packets, so that grids need not be
// whole workgroups) and prints one hash per dispatch, or its outputs.
//
//   fuzz_kernels_runner <batch.xgpux> <manifest> [--only <kernel>[,<kernel>...]] [--dump] [--timeout <s>]
//
// The manifest (written by gen.py) has one line per dispatch:
//   <kernel> <config> <dims> <wg x y z> <grid x y z> <dynamic group bytes> <out_k> <n> <c0 c1 c2 c3>
//   <iters> <flags> <seed>
// Every kernel takes gen.py's fz_args_t. Inputs and the initial contents of
// every output buffer come from <seed> alone (xorshift64*), so any two runs of
// one line start from the same bytes.
//
// Output, one line per dispatch: `<kernel> <config> <hash>` (FNV-1a over every
// buffer after the dispatch, inputs included), `<kernel> <config> FAULT` when
// the kernel faulted (a queue error; the queue is recreated), and with --dump,
// after the hash line, `<buffer> <index> <value as hex>` for every element.
// A dispatch that does not finish within the timeout prints `TIMEOUT` and
// ends the process with status 3 (nothing can stop a kernel that never
// returns). Exit status: 0 when every dispatch ran (faults included), 2 on a
// usage or set-up error.
//
// Thread-compatible: one thread drives the runtime; the queue callback only
// sets an atomic flag.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "xgpu_executable.h"

namespace {

// Buffer sizes every generated kernel assumes (gen.py's constants).
constexpr uint32_t kInSize = 4096;      // elements of in0, in1
constexpr uint32_t kAccSize = 128;      // uint32_t counters
constexpr uint32_t kAcc64Size = 32;     // uint64_t counters
constexpr uint32_t kFaccSize = 16;      // float counters
constexpr uint32_t kBinsSize = 2048;    // uint32_t counters
constexpr uint32_t kWgoutPerGroup = 8;  // wgout slots per workgroup

// The kernarg struct of every generated kernel (gen.py's fz_args_t).
struct FzArgs {
  const uint32_t* in0;  // FZ_IN values
  const uint32_t* in1;  // FZ_IN values below 256
  uint32_t* out;        // out_k slots per work item
  uint32_t* wgout;      // kWgoutPerGroup slots per workgroup
  uint32_t* acc;        // kAccSize counters
  uint64_t* acc64;      // kAcc64Size counters
  float* facc;          // kFaccSize counters
  uint32_t* bins;       // kBinsSize counters
  uint32_t n;           // items at or past n may return early
  uint32_t c[4];        // constants
  uint32_t iters;       // uniform trip count
  uint32_t flags;       // uniform branch bits
  uint32_t reserved;    // zero
};
static_assert(sizeof(FzArgs) == 96, "fz_args_t layout");

// One manifest line.
struct Dispatch {
  std::string kernel;        // kernel name
  uint32_t config = 0;       // index of this dispatch among the kernel's
  uint32_t dims = 1;         // packet dimensions
  uint32_t wg[3] = {};       // workgroup size
  uint32_t grid[3] = {};     // grid size (work items)
  uint32_t dyn_bytes = 0;    // dynamic group memory bytes
  uint32_t out_k = 0;        // out slots per item
  uint32_t n = 0;            // FzArgs::n
  uint32_t c[4] = {};        // FzArgs::c
  uint32_t iters = 0;        // FzArgs::iters
  uint32_t flags = 0;        // FzArgs::flags
  uint64_t seed = 0;         // inputs and initial outputs
};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "fuzz_kernels_runner: %s\n", message.c_str());
  std::exit(2);
}

void check(hsa_status_t status, const char* what) {
  if (status != HSA_STATUS_SUCCESS) {
    const char* text = nullptr;
    hsa_status_string(status, &text);
    die(std::string(what) + " failed: " + (text ? text : "unknown status"));
  }
}

struct Rng {
  uint64_t state;  // xorshift64* state, never 0
  explicit Rng(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {
    if (state == 0) state = 1;
  }
  uint32_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return uint32_t((state * 0x2545F4914F6CDD1Dull) >> 32);
  }
};

// The agent, its pools and one queue.
struct Device {
  hsa_agent_t agent{};
  hsa_amd_memory_pool_t fine{}, kernarg{};
  hsa_queue_t* queue = nullptr;
  std::atomic<int> queue_errors{0};
  std::vector<std::string> isas;

  static void queue_callback(hsa_status_t, hsa_queue_t*, void* data) {
    static_cast<Device*>(data)->queue_errors.fetch_add(1);
  }
  void make_queue() {
    if (queue) hsa_queue_destroy(queue);
    queue_errors = 0;
    check(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_SINGLE, &Device::queue_callback, this, UINT32_MAX,
                           UINT32_MAX, &queue),
          "hsa_queue_create");
  }
  void* alloc(size_t bytes, hsa_amd_memory_pool_t pool) {
    void* p = nullptr;
    check(hsa_amd_memory_pool_allocate(pool, bytes ? bytes : 4, 0, &p), "hsa_amd_memory_pool_allocate");
    return p;
  }
};

void find_device(Device* device) {
  check(hsa_iterate_agents(
            [](hsa_agent_t a, void* data) {
              uint32_t features = 0;
              hsa_agent_get_info(a, HSA_AGENT_INFO_FEATURE, &features);
              if (!(features & HSA_AGENT_FEATURE_KERNEL_DISPATCH)) return HSA_STATUS_SUCCESS;
              static_cast<Device*>(data)->agent = a;
              return HSA_STATUS_INFO_BREAK;
            },
            device) == HSA_STATUS_INFO_BREAK
            ? HSA_STATUS_SUCCESS
            : HSA_STATUS_ERROR,
        "finding a kernel-dispatch agent");
  check(hsa_amd_agent_iterate_memory_pools(
            device->agent,
            [](hsa_amd_memory_pool_t pool, void* data) {
              auto* d = static_cast<Device*>(data);
              hsa_amd_segment_t segment;
              hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
              if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
              uint32_t flags = 0;
              hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
              if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) d->kernarg = pool;
              else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) d->fine = pool;
              return HSA_STATUS_SUCCESS;
            },
            device),
        "hsa_amd_agent_iterate_memory_pools");
  check(hsa_agent_iterate_isas(
            device->agent,
            [](hsa_isa_t isa, void* data) {
              uint32_t length = 0;
              hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length);
              std::string name(length, '\0');
              hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data());
              while (!name.empty() && name.back() == '\0') name.pop_back();
              static_cast<Device*>(data)->isas.push_back(name);
              return HSA_STATUS_SUCCESS;
            },
            device),
        "hsa_agent_iterate_isas");
}

std::vector<Dispatch> read_manifest(const char* path) {
  std::ifstream in(path);
  if (!in) die(std::string("cannot open manifest '") + path + "'");
  std::vector<Dispatch> all;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Dispatch d;
    s >> d.kernel >> d.config >> d.dims >> d.wg[0] >> d.wg[1] >> d.wg[2] >> d.grid[0] >> d.grid[1] >> d.grid[2] >>
        d.dyn_bytes >> d.out_k >> d.n >> d.c[0] >> d.c[1] >> d.c[2] >> d.c[3] >> d.iters >> d.flags >> d.seed;
    if (!s) die("bad manifest line: " + line);
    all.push_back(d);
  }
  return all;
}

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// One dispatch's buffers (host-visible fine-grained memory).
struct Buffers {
  struct View {
    const char* name;     // buffer name in dumps
    void* data;           // the allocation
    size_t count;         // elements
    size_t element_size;  // bytes per element
  };
  std::vector<View> views;
};

// What one dispatch gave: a hash, or a fault.
enum class Outcome { kOk, kFault, kTimeout };

Outcome run_one(Device& dev, hsa_executable_t executable, const Dispatch& d, double timeout_s, bool dump,
                uint64_t* out_hash) {
  hsa_executable_symbol_t symbol;
  if (hsa_executable_get_symbol_by_name(executable, d.kernel.c_str(), &dev.agent, &symbol) != HSA_STATUS_SUCCESS)
    die("no kernel '" + d.kernel + "' in the executable");
  uint64_t object = 0;
  uint32_t static_group = 0;
  check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object), "kernel object");
  check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &static_group),
        "group segment size");

  const uint64_t items = uint64_t(d.grid[0]) * d.grid[1] * d.grid[2];
  const uint64_t groups =
      uint64_t(ceil_div(d.grid[0], d.wg[0])) * ceil_div(d.grid[1], d.wg[1]) * ceil_div(d.grid[2], d.wg[2]);
  Rng rng(d.seed);
  auto make = [&](const char* name, size_t count, size_t size) {
    void* p = dev.alloc(count * size, dev.fine);
    return Buffers::View{name, p, count, size};
  };
  Buffers b;
  b.views = {make("in0", kInSize, 4),
             make("in1", kInSize, 4),
             make("out", size_t(items) * d.out_k, 4),
             make("wgout", size_t(groups) * kWgoutPerGroup, 4),
             make("acc", kAccSize, 4),
             make("acc64", kAcc64Size, 8),
             make("facc", kFaccSize, 4),
             make("bins", kBinsSize, 4)};
  for (auto& v : b.views) {
    if (!std::strcmp(v.name, "facc")) {
      auto* f = static_cast<float*>(v.data);
      for (size_t i = 0; i < v.count; ++i) f[i] = float(int(rng.next() % 201u) - 100);
    } else if (v.element_size == 8) {
      auto* u = static_cast<uint64_t*>(v.data);
      for (size_t i = 0; i < v.count; ++i) u[i] = uint64_t(rng.next()) << 32 | rng.next();
    } else {
      auto* u = static_cast<uint32_t*>(v.data);
      const bool small = !std::strcmp(v.name, "in1");
      for (size_t i = 0; i < v.count; ++i) u[i] = small ? rng.next() & 255u : rng.next();
    }
  }
  auto* args = static_cast<FzArgs*>(dev.alloc(sizeof(FzArgs), dev.kernarg));
  *args = FzArgs{static_cast<const uint32_t*>(b.views[0].data), static_cast<const uint32_t*>(b.views[1].data),
                 static_cast<uint32_t*>(b.views[2].data), static_cast<uint32_t*>(b.views[3].data),
                 static_cast<uint32_t*>(b.views[4].data), static_cast<uint64_t*>(b.views[5].data),
                 static_cast<float*>(b.views[6].data), static_cast<uint32_t*>(b.views[7].data),
                 d.n, {d.c[0], d.c[1], d.c[2], d.c[3]}, d.iters, d.flags, 0};

  hsa_signal_t done{};
  check(hsa_signal_create(1, 0, nullptr, &done), "hsa_signal_create");
  hsa_queue_t* q = dev.queue;
  const uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
  auto* packet = reinterpret_cast<hsa_kernel_dispatch_packet_t*>(static_cast<char*>(q->base_address) +
                                                                  (index & (q->size - 1)) * sizeof(hsa_kernel_dispatch_packet_t));
  packet->workgroup_size_x = uint16_t(d.wg[0]);
  packet->workgroup_size_y = uint16_t(d.wg[1]);
  packet->workgroup_size_z = uint16_t(d.wg[2]);
  packet->reserved0 = 0;
  packet->grid_size_x = d.grid[0];
  packet->grid_size_y = d.grid[1];
  packet->grid_size_z = d.grid[2];
  packet->private_segment_size = 0;
  packet->group_segment_size = static_group + d.dyn_bytes;
  packet->kernel_object = object;
  packet->kernarg_address = args;
  packet->reserved2 = 0;
  packet->completion_signal = done;
  const uint16_t header = uint16_t((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                   (1 << HSA_PACKET_HEADER_BARRIER) |
                                   (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                   (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  const uint32_t word = uint32_t(header) | (uint32_t(d.dims) << (16 + HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS));
  __atomic_store_n(reinterpret_cast<uint32_t*>(packet), word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, hsa_signal_value_t(index));

  const auto start = std::chrono::steady_clock::now();
  Outcome outcome = Outcome::kOk;
  for (;;) {
    if (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 10'000'000, HSA_WAIT_STATE_BLOCKED) == 0) break;
    if (dev.queue_errors.load() != 0) {
      outcome = Outcome::kFault;
      break;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) {
      return Outcome::kTimeout;  // the kernel still runs: nothing is freed
    }
  }
  if (outcome == Outcome::kOk) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (auto& v : b.views) {
      const auto* bytes = static_cast<const uint8_t*>(v.data);
      for (size_t i = 0; i < v.count * v.element_size; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
    }
    *out_hash = h;
    if (dump) {
      std::printf("%s %u %016" PRIx64 "\n", d.kernel.c_str(), d.config, h);
      for (auto& v : b.views)
        for (size_t i = 0; i < v.count; ++i) {
          if (v.element_size == 8)
            std::printf("%s %zu %016" PRIx64 "\n", v.name, i, static_cast<const uint64_t*>(v.data)[i]);
          else
            std::printf("%s %zu %08" PRIx32 "\n", v.name, i, static_cast<const uint32_t*>(v.data)[i]);
        }
    }
  } else {
    dev.make_queue();  // a queue in error takes no more packets
  }
  hsa_signal_destroy(done);
  for (auto& v : b.views) hsa_amd_memory_pool_free(v.data);
  hsa_amd_memory_pool_free(args);
  return outcome;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: fuzz_kernels_runner <batch.xgpux> <manifest> [--only <kernel>[,<kernel>...]] [--dump] "
                 "[--timeout <seconds>]\n");
    return 2;
  }
  std::set<std::string> only;
  bool dump = false;
  double timeout_s = 60;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dump")) {
      dump = true;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      std::string list = argv[++i], name;
      std::istringstream s(list);
      while (std::getline(s, name, ',')) only.insert(name);
    } else if (!std::strcmp(argv[i], "--timeout") && i + 1 < argc) {
      timeout_s = std::atof(argv[++i]);
    } else {
      die(std::string("unknown argument '") + argv[i] + "'");
    }
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) die(std::string("cannot open '") + argv[1] + "'");
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  const std::vector<Dispatch> dispatches = read_manifest(argv[2]);

  check(hsa_init(), "hsa_init");
  Device dev;
  find_device(&dev);
  xgpu::executable::Executable parsed;
  if (auto s = xgpu::executable::Executable::parse(bytes, &parsed); !s.ok()) die(s.message());
  const xgpu::executable::Entry* entry = nullptr;
  if (auto s = parsed.select(dev.isas, &entry); !s.ok()) die(s.message());
  hsa_code_object_reader_t reader;
  check(hsa_code_object_reader_create_from_memory(entry->code_object.data(), entry->code_object.size(), &reader),
        "hsa_code_object_reader_create_from_memory");
  hsa_executable_t executable;
  check(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &executable),
        "hsa_executable_create_alt");
  check(hsa_executable_load_agent_code_object(executable, dev.agent, reader, nullptr, nullptr),
        "hsa_executable_load_agent_code_object");
  check(hsa_executable_freeze(executable, nullptr), "hsa_executable_freeze");
  dev.make_queue();

  for (const Dispatch& d : dispatches) {
    if (!only.empty() && !only.count(d.kernel)) continue;
    uint64_t hash = 0;
    const Outcome outcome = run_one(dev, executable, d, timeout_s, dump, &hash);
    if (outcome == Outcome::kTimeout) {
      std::printf("%s %u TIMEOUT\n", d.kernel.c_str(), d.config);
      std::fflush(stdout);
      std::_Exit(3);
    }
    if (outcome == Outcome::kFault) std::printf("%s %u FAULT\n", d.kernel.c_str(), d.config);
    else if (!dump) std::printf("%s %u %016" PRIx64 "\n", d.kernel.c_str(), d.config, hash);
    std::fflush(stdout);
  }
  hsa_queue_destroy(dev.queue);
  hsa_executable_destroy(executable);
  hsa_code_object_reader_destroy(reader);
  hsa_shut_down();
  return 0;
}
