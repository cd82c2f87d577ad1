// fuzz_kernels_runner: runs the generated kernels of one xgpu executable on
// hsa-cpu through the HSA API (AQL dispatch packets, so that grids need not be
// whole workgroups) and prints one hash per dispatch, or its outputs.
//
//   fuzz_kernels_runner <batch.xgpux> <manifest> [--only <kernel>[,<kernel>...]] [--dump] [--timeout <s>]
//                       [--shuffle <seed>]
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
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
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

#include <xgpu/executable_format.h>
#include <xgpu/host_kernel.h>
#include <xgpu/kernel_print.h>

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

// One dispatch's buffers, filled from its seed. `alloc` gives memory the
// kernel can reach (HSA pool memory, or plain memory for the shuffled runs).
struct Buffers {
  struct View {
    const char* name;     // buffer name in dumps
    void* data;           // the allocation
    size_t count;         // elements
    size_t element_size;  // bytes per element
  };
  std::vector<View> views;
  FzArgs args{};  // the kernarg struct pointing at them

  template <typename Alloc>
  Buffers(const Dispatch& d, Alloc&& alloc) {
    const uint64_t items = uint64_t(d.grid[0]) * d.grid[1] * d.grid[2];
    const uint64_t groups =
        uint64_t(ceil_div(d.grid[0], d.wg[0])) * ceil_div(d.grid[1], d.wg[1]) * ceil_div(d.grid[2], d.wg[2]);
    auto make = [&](const char* name, size_t count, size_t size) {
      return View{name, alloc(count * size), count, size};
    };
    views = {make("in0", kInSize, 4),
             make("in1", kInSize, 4),
             make("out", size_t(items) * d.out_k, 4),
             make("wgout", size_t(groups) * kWgoutPerGroup, 4),
             make("acc", kAccSize, 4),
             make("acc64", kAcc64Size, 8),
             make("facc", kFaccSize, 4),
             make("bins", kBinsSize, 4)};
    Rng rng(d.seed);
    for (auto& v : views) {
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
    args = FzArgs{static_cast<const uint32_t*>(views[0].data), static_cast<const uint32_t*>(views[1].data),
                  static_cast<uint32_t*>(views[2].data), static_cast<uint32_t*>(views[3].data),
                  static_cast<uint32_t*>(views[4].data), static_cast<uint64_t*>(views[5].data),
                  static_cast<float*>(views[6].data), static_cast<uint32_t*>(views[7].data),
                  d.n, {d.c[0], d.c[1], d.c[2], d.c[3]}, d.iters, d.flags, 0};
  }

  uint64_t hash() const {
    uint64_t h = 0xcbf29ce484222325ull;
    for (auto& v : views) {
      const auto* bytes = static_cast<const uint8_t*>(v.data);
      for (size_t i = 0; i < v.count * v.element_size; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
    }
    return h;
  }

  void dump(const Dispatch& d) const {
    std::printf("%s %u %016" PRIx64 "\n", d.kernel.c_str(), d.config, hash());
    for (auto& v : views)
      for (size_t i = 0; i < v.count; ++i) {
        if (v.element_size == 8)
          std::printf("%s %zu %016" PRIx64 "\n", v.name, i, static_cast<const uint64_t*>(v.data)[i]);
        else
          std::printf("%s %zu %08" PRIx32 "\n", v.name, i, static_cast<const uint32_t*>(v.data)[i]);
      }
  }
};

// What one dispatch gave: a hash, or a fault.
enum class Outcome { kOk, kFault, kTimeout, kBounds };

// --checked: each kernel's bounds-checked copy runs (K__xgpu_checked,
// spec/kernels.md "Bounds-checked entries"), given what the driver gives it:
// each binding's length before the print slots, and a print buffer, which
// must stay empty (a report: the copy found an access outside its binding,
// which no generated kernel makes).
bool g_checked = false;
constexpr size_t kCheckedLead = XGPU_PRINT_DISPATCH_SLOT_OFFSET + 8 * 8;  // print slots, 8 binding lengths
constexpr uint64_t kPrintCapacity = 4096;

Outcome run_one(Device& dev, hsa_executable_t executable, const Dispatch& d, double timeout_s, bool dump,
                uint64_t* out_hash) {
  hsa_executable_symbol_t symbol;
  const std::string name = d.kernel + (g_checked ? XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX : "");
  if (hsa_executable_get_symbol_by_name(executable, name.c_str(), &dev.agent, &symbol) != HSA_STATUS_SUCCESS)
    die("no kernel '" + name + "' in the executable");
  uint64_t object = 0;
  uint32_t static_group = 0;
  check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object), "kernel object");
  check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &static_group),
        "group segment size");
  Buffers b(d, [&](size_t bytes) { return dev.alloc(bytes, dev.fine); });
  static_assert(kCheckedLead % 16 == 0);
  const size_t lead = g_checked ? kCheckedLead : 0;
  auto* kernarg_block = static_cast<uint8_t*>(dev.alloc(lead + sizeof(FzArgs), dev.kernarg));
  auto* args = reinterpret_cast<FzArgs*>(kernarg_block + lead);
  *args = b.args;
  xgpu_print_buffer_header_t* prints = nullptr;
  if (g_checked) {
    if (b.views.size() != 8) die("the checked run expects 8 bindings");
    for (size_t i = 0; i < b.views.size(); ++i) {
      const uint64_t length = uint64_t(b.views[i].count) * b.views[i].element_size;
      std::memcpy(reinterpret_cast<uint8_t*>(args) - XGPU_BOUNDS_LENGTH_SLOT_OFFSET(i), &length, sizeof(length));
    }
    prints = static_cast<xgpu_print_buffer_header_t*>(dev.alloc(sizeof(*prints) + kPrintCapacity, dev.fine));
    std::memset(prints, 0, sizeof(*prints));
    prints->magic = XGPU_PRINT_BUFFER_MAGIC;
    prints->version = XGPU_PRINT_BUFFER_VERSION;
    prints->capacity = kPrintCapacity;
    const uint64_t address = uint64_t(reinterpret_cast<uintptr_t>(prints)), tag = 0;
    std::memcpy(reinterpret_cast<uint8_t*>(args) - XGPU_PRINT_BUFFER_SLOT_OFFSET, &address, sizeof(address));
    std::memcpy(reinterpret_cast<uint8_t*>(args) - XGPU_PRINT_DISPATCH_SLOT_OFFSET, &tag, sizeof(tag));
  }

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
  if (outcome == Outcome::kOk && prints && __atomic_load_n(&prints->head, __ATOMIC_ACQUIRE) != 0) {
    // A bounds report: the first record's binding, offset, size and length.
    const auto* record = reinterpret_cast<const xgpu_print_record_t*>(prints + 1);
    const auto* values = reinterpret_cast<const uint64_t*>(record + 1);
    std::fprintf(stderr, "%s: bounds report: kind %u, binding %" PRIu64 ", offset %" PRId64 ", %" PRIu64
                 " bytes, length %" PRIu64 "\n", name.c_str(), unsigned(record->kind), values[0], int64_t(values[1]),
                 values[2], values[3]);
    outcome = Outcome::kBounds;
  }
  if (outcome == Outcome::kOk) {
    *out_hash = b.hash();
    if (dump) b.dump(d);
  } else if (outcome == Outcome::kFault) {
    dev.make_queue();  // a queue in error takes no more packets
  }
  hsa_signal_destroy(done);
  for (auto& v : b.views) hsa_amd_memory_pool_free(v.data);
  hsa_amd_memory_pool_free(kernarg_block);
  if (prints) hsa_amd_memory_pool_free(prints);
  return outcome;
}

// ---------------------------------------------------------------------------
// Shuffled runs (--shuffle <seed>): a second, independent executor of the host
// code object (<xgpu/host_kernel.h>), which runs the workgroups in a random
// order and, for barrier kernels, every work item as a fiber of its own
// (run_workitem), resuming the items of a workgroup in a new random order after
// each barrier. Group memory starts filled with random bytes. A valid kernel
// gives the same outputs under any schedule, so this run checks the generated
// kernels themselves (races, order-dependent atomics, reads of memory nobody
// wrote) independently of hsa-cpu. Single-threaded.
// ---------------------------------------------------------------------------
struct Shuffler {
  struct Item {
    ucontext_t context;   // the item's fiber
    uint32_t local_id[3]; // its id in the workgroup
    bool done = false;    // returned from run_workitem
  };
  const xgpu_host_kernel_descriptor_t* kernel = nullptr;  // what runs
  const void* kernarg = nullptr;                           // its arguments
  xgpu_host_workgroup_t* wg = nullptr;                      // the workgroup running
  std::vector<Item> items;                                 // its items
  Item* current = nullptr;                                 // the item on the CPU
  ucontext_t scheduler;                                    // where fibers return to
  std::vector<uint8_t*> stacks;                            // one per item slot, reused
  size_t stack_bytes = 0;                                  // bytes of each

  static Shuffler* self;  // the one scheduler (makecontext passes no pointer portably)

  static void entry() {
    Item* item = self->current;
    self->kernel->run_workitem(self->kernarg, self->wg, item->local_id);
    item->done = true;  // uc_link returns to the scheduler
  }
  static void barrier(xgpu_host_workgroup_t*) { swapcontext(&self->current->context, &self->scheduler); }

  void run_workgroup_as_fibers(Rng& rng) {
    const uint32_t n = wg->item_count[0] * wg->item_count[1] * wg->item_count[2];
    items.assign(n, Item{});
    while (stacks.size() < n) stacks.push_back(static_cast<uint8_t*>(std::malloc(stack_bytes)));
    uint32_t i = 0;
    for (uint32_t z = 0; z < wg->item_count[2]; ++z)
      for (uint32_t y = 0; y < wg->item_count[1]; ++y)
        for (uint32_t x = 0; x < wg->item_count[0]; ++x, ++i) {
          Item& it = items[i];
          it.local_id[0] = x, it.local_id[1] = y, it.local_id[2] = z;
          getcontext(&it.context);
          it.context.uc_stack.ss_sp = stacks[i];
          it.context.uc_stack.ss_size = stack_bytes;
          it.context.uc_link = &scheduler;
          makecontext(&it.context, &Shuffler::entry, 0);
        }
    std::vector<uint32_t> order(n);
    for (;;) {
      uint32_t alive = 0;
      for (uint32_t k = 0; k < n; ++k)
        if (!items[k].done) order[alive++] = k;
      if (!alive) break;
      for (uint32_t k = alive; k > 1; --k) std::swap(order[k - 1], order[rng.next() % k]);
      for (uint32_t k = 0; k < alive; ++k) {
        current = &items[order[k]];
        swapcontext(&scheduler, &current->context);
      }
    }
  }
};
Shuffler* Shuffler::self = nullptr;

void run_shuffled(void* library, const Dispatch& d, uint64_t seed, bool dump, uint64_t* out_hash) {
  const std::string symbol = d.kernel + XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX;
  auto* kernel = static_cast<const xgpu_host_kernel_descriptor_t*>(dlsym(library, symbol.c_str()));
  if (!kernel || kernel->magic != XGPU_HOST_KERNEL_MAGIC) die("no kernel '" + d.kernel + "' in the code object");
  std::vector<void*> allocations;
  Buffers b(d, [&](size_t bytes) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    allocations.push_back(p);
    return p;
  });
  Rng rng(seed ^ d.seed * 0x9E3779B97F4A7C15ull);
  const uint32_t counts[3] = {ceil_div(d.grid[0], d.wg[0]), ceil_div(d.grid[1], d.wg[1]), ceil_div(d.grid[2], d.wg[2])};
  std::vector<uint32_t> order(size_t(counts[0]) * counts[1] * counts[2]);
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[rng.next() % k]);
  const uint32_t group_bytes = std::max(kernel->group_segment_size, kernel->group_segment_size + d.dyn_bytes);
  auto* group = static_cast<uint8_t*>(std::aligned_alloc(XGPU_HOST_GROUP_SEGMENT_ALIGNMENT, (group_bytes + 63) / 64 * 64 + 64));
  Shuffler s;
  Shuffler::self = &s;
  s.kernel = kernel;
  s.kernarg = &b.args;
  s.stack_bytes = std::max<size_t>(XGPU_HOST_FIBER_STACK_MIN_BYTES, kernel->private_segment_size +
                                                                          XGPU_HOST_FIBER_STACK_RUNTIME_BYTES);
  const bool fibers = (kernel->flags & XGPU_HOST_KERNEL_FLAG_USES_BARRIERS) && kernel->run_workitem;
  for (uint32_t linear : order) {
    xgpu_host_workgroup_t wg{};
    const uint32_t id[3] = {linear % counts[0], linear / counts[0] % counts[1], linear / counts[0] / counts[1]};
    for (int k = 0; k < 3; ++k) {
      wg.workgroup_id[k] = id[k];
      wg.workgroup_size[k] = d.wg[k];
      wg.grid_size[k] = d.grid[k];
      wg.workgroup_count[k] = counts[k];
      wg.item_count[k] = std::min(d.wg[k], d.grid[k] - id[k] * d.wg[k]);
    }
    wg.dimensions = d.dims;
    for (uint32_t k = 0; k < group_bytes; ++k) group[k] = uint8_t(rng.next());  // nobody may read these
    wg.group_segment = group_bytes ? group : nullptr;
    wg.group_segment_size = group_bytes;
    wg.workgroup_run = 1;
    wg.runtime = &s;
    s.wg = &wg;
    if (fibers) {
      wg.barrier = &Shuffler::barrier;
      s.run_workgroup_as_fibers(rng);
    } else {
      kernel->run_workgroup(&b.args, &wg);
    }
  }
  *out_hash = b.hash();
  if (dump) b.dump(d);
  for (uint8_t* stack : s.stacks) std::free(stack);
  std::free(group);
  for (void* p : allocations) std::free(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: fuzz_kernels_runner <batch.xgpux> <manifest> [--only <kernel>[,<kernel>...]] [--dump] "
                 "[--timeout <seconds>] [--shuffle <seed>]\n");
    return 2;
  }
  std::set<std::string> only;
  bool dump = false;
  double timeout_s = 60;
  bool shuffle = false;
  uint64_t shuffle_seed = 0;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dump")) {
      dump = true;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      std::string list = argv[++i], name;
      std::istringstream s(list);
      while (std::getline(s, name, ',')) only.insert(name);
    } else if (!std::strcmp(argv[i], "--checked")) {
      g_checked = true;
    } else if (!std::strcmp(argv[i], "--timeout") && i + 1 < argc) {
      timeout_s = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--shuffle") && i + 1 < argc) {
      shuffle = true;
      shuffle_seed = std::strtoull(argv[++i], nullptr, 0);
    } else {
      die(std::string("unknown argument '") + argv[i] + "'");
    }
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) die(std::string("cannot open '") + argv[1] + "'");
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  const std::vector<Dispatch> dispatches = read_manifest(argv[2]);

  if (shuffle) {
    // The host code object, loaded as a shared object of this process.
    xgpu::executable::Executable parsed;
    if (auto s = xgpu::executable::Executable::parse(bytes, &parsed); !s.ok()) die(s.message());
    const xgpu::executable::Entry* entry = nullptr;
    for (const auto& e : parsed.entries())
      if (e.kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST && !entry) entry = &e;
    if (!entry) die("no host code object in the executable");
    const int fd = memfd_create("fuzz-kernels-code-object", 0);
    if (fd < 0 || write(fd, entry->code_object.data(), entry->code_object.size()) != ssize_t(entry->code_object.size()))
      die("cannot write the code object to a memfd");
    void* library = dlopen(("/proc/self/fd/" + std::to_string(fd)).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) die(std::string("dlopen: ") + dlerror());
    for (const Dispatch& d : dispatches) {
      if (!only.empty() && !only.count(d.kernel)) continue;
      uint64_t hash = 0;
      run_shuffled(library, d, shuffle_seed, dump, &hash);
      if (!dump) std::printf("%s %u %016" PRIx64 "\n", d.kernel.c_str(), d.config, hash);
      std::fflush(stdout);
    }
    return 0;
  }

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
    else if (outcome == Outcome::kBounds) std::printf("%s %u BOUNDS\n", d.kernel.c_str(), d.config);
    else if (!dump) std::printf("%s %u %016" PRIx64 "\n", d.kernel.c_str(), d.config, hash);
    std::fflush(stdout);
  }
  hsa_queue_destroy(dev.queue);
  hsa_executable_destroy(executable);
  hsa_code_object_reader_destroy(reader);
  hsa_shut_down();
  return 0;
}
