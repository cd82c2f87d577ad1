// hsa-cuda through the HSA API: agents and pools, PTX executables, AQL
// dispatches on CUDA streams, barrier packets, packet errors and device
// faults, and <xgpu/kernel.h> on nvptx. Cases that need a CUDA device print
// why they skip and return when none is present (CI); the "no driver" case
// and the executable reader's PTX case run everywhere.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <fcntl.h>
#include <unistd.h>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "xgpu_executable.h"

namespace {

constexpr uint64_t kSecond = 1000000000ull;

struct Pools {
  hsa_amd_memory_pool_t device{0}, host{0}, kernarg{0}, group{0};
};

struct Kernel {
  uint64_t object = 0;
  uint32_t kernarg_size = 0;
};

struct ErrorLog {
  std::atomic<int> count{0};
  std::atomic<int> status{HSA_STATUS_SUCCESS};
};

void on_queue_error(hsa_status_t status, hsa_queue_t*, void* data) {
  auto* log = static_cast<ErrorLog*>(data);
  log->status.store(status);
  log->count.fetch_add(1);
}

// hsa_init plus the first GPU agent, its pools and the host agent's, and the
// test executable; `ok` is false (with the reason printed once) when no CUDA
// device is present.
struct Gpu {
  bool ok = false;
  hsa_agent_t agent{0};
  hsa_agent_t host_agent{0};
  Pools pools;
  hsa_executable_t executable{0};
  hsa_code_object_reader_t reader{0};

  explicit Gpu(const char* ptx_path = HSA_CUDA_TEST_PTX) {
    if (hsa_init() != HSA_STATUS_SUCCESS) {
      skip("hsa_init failed (no libcuda.so.1: no NVIDIA driver)");
      return;
    }
    // The CUDA device is the kernel-dispatch agent; pinned host memory
    // belongs to the host agent (as system memory to ROCR's CPU agent).
    hsa_iterate_agents(
        [](hsa_agent_t a, void* data) {
          auto* self = static_cast<Gpu*>(data);
          uint32_t features = 0;
          hsa_agent_get_info(a, HSA_AGENT_INFO_FEATURE, &features);
          const bool kernel_agent = (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) != 0;
          // The first GPU's pools and the host's: on a machine of several
          // GPUs another GPU's device memory is not this GPU's to use.
          if (kernel_agent && self->agent.handle) return HSA_STATUS_SUCCESS;
          if (kernel_agent) self->agent = a;
          else self->host_agent = a;
          hsa_amd_agent_iterate_memory_pools(
              a,
              [](hsa_amd_memory_pool_t pool, void* data) {
                auto* pools = static_cast<Pools*>(data);
                hsa_amd_segment_t segment;
                hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
                if (segment == HSA_AMD_SEGMENT_GROUP) {
                  pools->group = pool;
                  return HSA_STATUS_SUCCESS;
                }
                uint32_t flags = 0;
                hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
                if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)
                  pools->kernarg = pool;
                else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
                  pools->device = pool;
                else
                  pools->host = pool;
                return HSA_STATUS_SUCCESS;
              },
              &self->pools);
          return HSA_STATUS_SUCCESS;
        },
        this);
    if (!agent.handle) {
      hsa_shut_down();
      skip("no CUDA device");
      return;
    }
    std::ifstream file(ptx_path, std::ios::binary);
    std::string ptx((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    REQUIRE(!ptx.empty());
    REQUIRE(hsa_code_object_reader_create_from_memory(ptx.data(), ptx.size(), &reader) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                      &executable) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_load_agent_code_object(executable, agent, reader, nullptr, nullptr) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_freeze(executable, nullptr) == HSA_STATUS_SUCCESS);
    ok = true;
  }
  ~Gpu() {
    if (!ok) return;
    hsa_executable_destroy(executable);
    hsa_code_object_reader_destroy(reader);
    hsa_shut_down();
  }
  static void skip(const char* why) {
    static bool said = false;
    if (!said) std::fprintf(stderr, "hsa-cuda tests: %s: skipped\n", why);
    said = true;
  }

  Kernel kernel(const char* name) {
    hsa_executable_symbol_t symbol;
    REQUIRE(hsa_executable_get_symbol_by_name(executable, name, &agent, &symbol) == HSA_STATUS_SUCCESS);
    Kernel k;
    REQUIRE(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k.object) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                           &k.kernarg_size) == HSA_STATUS_SUCCESS);
    return k;
  }
  void* allocate(hsa_amd_memory_pool_t pool, size_t size) {
    void* p = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(pool, size, 0, &p) == HSA_STATUS_SUCCESS);
    return p;
  }
  template <typename Args>
  void* kernargs(const Args& args) {
    void* p = allocate(pools.kernarg, sizeof(Args));
    std::memcpy(p, &args, sizeof(Args));
    return p;
  }
};

uint16_t header(hsa_packet_type_t type, bool barrier = true) {
  return uint16_t(type | (barrier ? 1u << HSA_PACKET_HEADER_BARRIER : 0u) |
                  (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

// Writes `packet` (64 bytes) at the next slot, header last, and rings.
void submit(hsa_queue_t* queue, const void* packet, uint16_t header_word) {
  const uint64_t index = hsa_queue_add_write_index_scacq_screl(queue, 1);
  while (index - hsa_queue_load_read_index_scacquire(queue) >= queue->size) {
  }
  auto* slot = static_cast<uint8_t*>(queue->base_address) + (index & (queue->size - 1)) * 64;
  std::memcpy(slot + 4, static_cast<const uint8_t*>(packet) + 4, 60);
  uint32_t word;
  std::memcpy(&word, packet, 4);
  word = (word & 0xffff0000u) | header_word;
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(index));
}

void dispatch(hsa_queue_t* queue, const Kernel& k, void* kernargs, const uint32_t grid[3], const uint16_t block[3],
              uint32_t dims, hsa_signal_t completion, uint32_t group_segment_size = 0) {
  hsa_kernel_dispatch_packet_t p{};
  p.group_segment_size = group_segment_size;
  p.setup = uint16_t(dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  p.workgroup_size_x = block[0];
  p.workgroup_size_y = block[1];
  p.workgroup_size_z = block[2];
  p.grid_size_x = grid[0];
  p.grid_size_y = grid[1];
  p.grid_size_z = grid[2];
  p.kernel_object = k.object;
  p.kernarg_address = kernargs;
  p.completion_signal = completion;
  submit(queue, &p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH));
}

void dispatch1d(hsa_queue_t* queue, const Kernel& k, void* kernargs, uint32_t items, uint16_t block,
                hsa_signal_t completion) {
  const uint32_t grid[3] = {items, 1, 1};
  const uint16_t wg[3] = {block, 1, 1};
  dispatch(queue, k, kernargs, grid, wg, 1, completion);
}

bool wait_zero(hsa_signal_t signal, uint64_t timeout = 10 * kSecond) {
  return hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 0, timeout, HSA_WAIT_STATE_BLOCKED) == 0;
}

typedef struct {
  float* y;
  const float* x;
  float a;
  uint32_t n;
} saxpy_args_t;
typedef struct {
  uint32_t* out;
  uint32_t value;
} fill_args_t;
typedef struct {
  uint64_t* counter;
} count_args_t;
typedef struct {
  volatile uint32_t* bad;
} fault_args_t;
typedef struct {
  uint64_t* elapsed;
  uint64_t ns;
} spin_args_t;

uint64_t system_now() {
  uint64_t t = 0;
  REQUIRE(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t) == HSA_STATUS_SUCCESS);
  return t;
}

hsa_amd_profiling_dispatch_time_t dispatch_time(hsa_agent_t agent, hsa_signal_t signal) {
  hsa_amd_profiling_dispatch_time_t time{~0ull, ~0ull};
  REQUIRE(hsa_amd_profiling_get_dispatch_time(agent, signal, &time) == HSA_STATUS_SUCCESS);
  return time;
}

}  // namespace

TEST_SUITE("hsa-cuda") {

TEST_CASE("without the NVIDIA driver hsa_init fails and nothing else runs") {
  setenv("HSA_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  CHECK(hsa_init() == HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  unsetenv("HSA_CUDA_LIBRARY");
  hsa_agent_t none{0};
  CHECK(hsa_iterate_agents([](hsa_agent_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
        HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_queue_create(none, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, nullptr) ==
        HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_CASE("agents, ISA and pools describe the CUDA device") {
  Gpu gpu;
  if (!gpu.ok) return;
  char name[64] = {};
  CHECK(hsa_agent_get_info(gpu.agent, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
  hsa_isa_t isa;
  REQUIRE(hsa_agent_get_info(gpu.agent, HSA_AGENT_INFO_ISA, &isa) == HSA_STATUS_SUCCESS);
  char isa_name[64] = {};
  REQUIRE(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, isa_name) == HSA_STATUS_SUCCESS);
  std::fprintf(stderr, "hsa-cuda tests: agent \"%s\", ISA %s\n", name, isa_name);
  CHECK(std::string(isa_name).rfind("nvptx64-nvidia-cuda--sm_", 0) == 0);
  uint32_t length = 0;
  CHECK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS);
  CHECK(length == std::strlen(isa_name) + 1);
  hsa_device_type_t type;
  CHECK(hsa_agent_get_info(gpu.agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS);
  CHECK(type == HSA_DEVICE_TYPE_GPU);
  uint32_t cus = 0;
  CHECK(hsa_agent_get_info(gpu.agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus) ==
        HSA_STATUS_SUCCESS);
  CHECK(cus > 0);
  REQUIRE(gpu.pools.device.handle);
  REQUIRE(gpu.pools.host.handle);
  REQUIRE(gpu.pools.kernarg.handle);
  bool all = true;
  CHECK(hsa_amd_memory_pool_get_info(gpu.pools.device, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &all) ==
        HSA_STATUS_SUCCESS);
  CHECK_FALSE(all);
  CHECK(hsa_amd_memory_pool_get_info(gpu.pools.host, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &all) ==
        HSA_STATUS_SUCCESS);
  CHECK(all);
  REQUIRE(gpu.pools.group.handle);
  size_t group_size = 0;
  CHECK(hsa_amd_memory_pool_get_info(gpu.pools.group, HSA_AMD_MEMORY_POOL_INFO_SIZE, &group_size) ==
        HSA_STATUS_SUCCESS);
  CHECK(group_size >= 48 * 1024);
  void* none = nullptr;
  // A pool that does not allow allocation: INVALID_ALLOCATION (hsa_ext_amd.h; the core's answer).
  CHECK(hsa_amd_memory_pool_allocate(gpu.pools.group, 64, 0, &none) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  // The host agent owns the pinned pools and dispatches nothing.
  REQUIRE(gpu.host_agent.handle);
  CHECK(hsa_agent_get_info(gpu.host_agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS);
  CHECK(type == HSA_DEVICE_TYPE_CPU);
  hsa_queue_t* queue = nullptr;
  CHECK(hsa_queue_create(gpu.host_agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &queue) ==
        HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  int stack = 0;
  CHECK(hsa_amd_memory_pool_free(&stack) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

TEST_CASE("PTX executables: kernarg size from the entry, refused code objects") {
  Gpu gpu;
  if (!gpu.ok) return;
  CHECK(gpu.kernel("saxpy").kernarg_size == sizeof(saxpy_args_t));
  CHECK(gpu.kernel("fill2d.kd").kernarg_size == 16);
  hsa_executable_symbol_t symbol;
  CHECK(hsa_executable_get_symbol_by_name(gpu.executable, "missing", &gpu.agent, &symbol) ==
        HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  auto load = [&](const std::string& text) {
    hsa_code_object_reader_t reader;
    REQUIRE(hsa_code_object_reader_create_from_memory(text.data(), text.size(), &reader) == HSA_STATUS_SUCCESS);
    hsa_executable_t e;
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &e) ==
            HSA_STATUS_SUCCESS);
    hsa_status_t status = hsa_executable_load_agent_code_object(e, gpu.agent, reader, nullptr, nullptr);
    hsa_executable_destroy(e);
    hsa_code_object_reader_destroy(reader);
    return status;
  };
  CHECK(load("\x7f" "ELF not ptx") == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  {
    // A 64-bit ELF code object (an amdgcn one's header): code for another ISA.
    std::string elf(64, '\0');
    memcpy(elf.data(), "\x7f" "ELF\x02\x01\x01", 7);
    elf[16] = 3;    // e_type ET_DYN
    elf[18] = '\xe0';  // e_machine EM_AMDGPU (224)
    CHECK(load(elf) == HSA_STATUS_ERROR_INVALID_ISA);
  }
  CHECK(load(".version 8.5\n.target sm_999\n.address_size 64\n") == HSA_STATUS_ERROR_INVALID_ISA);
  CHECK(load(".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n") ==
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
}

TEST_CASE("the core's executables on hsa-cuda: readers from files, symbols, definitions and the deprecated calls") {
  Gpu gpu;
  if (!gpu.ok) return;
  // A reader from a file descriptor (the core reads the file; the PTX is
  // the test executable's).
  const int fd = open(HSA_CUDA_TEST_PTX, O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  hsa_code_object_reader_t reader;
  REQUIRE(hsa_code_object_reader_create_from_file(fd, &reader) == HSA_STATUS_SUCCESS);
  close(fd);
  CHECK(hsa_code_object_reader_create_from_file(-1, &reader) == HSA_STATUS_ERROR_INVALID_FILE);
  hsa_executable_t e;
  REQUIRE(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, &e) == HSA_STATUS_SUCCESS);
  hsa_profile_t profile;
  REQUIRE(hsa_executable_get_info(e, HSA_EXECUTABLE_INFO_PROFILE, &profile) == HSA_STATUS_SUCCESS);
  CHECK(profile == HSA_PROFILE_FULL);
  hsa_loaded_code_object_t loaded{0};
  REQUIRE(hsa_executable_load_agent_code_object(e, gpu.agent, reader, nullptr, &loaded) == HSA_STATUS_SUCCESS);
  CHECK(loaded.handle != 0);
  // The host agent runs no code object.
  CHECK(hsa_executable_load_agent_code_object(e, gpu.host_agent, reader, nullptr, nullptr) ==
        HSA_STATUS_ERROR_INVALID_ISA);
  CHECK(hsa_executable_load_program_code_object(e, reader, nullptr, nullptr) ==
        HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  CHECK(hsa_executable_load_code_object(e, gpu.agent, hsa_code_object_t{1}, nullptr) ==
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  int value = 0;
  CHECK(hsa_executable_agent_global_variable_define(e, gpu.agent, "v", &value) == HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_agent_global_variable_define(e, gpu.agent, "v", &value) ==
        HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  CHECK(hsa_executable_global_variable_define(e, "v", &value) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_freeze(e, nullptr) == HSA_STATUS_SUCCESS);
  hsa_executable_state_t state;
  REQUIRE(hsa_executable_get_info(e, HSA_EXECUTABLE_INFO_STATE, &state) == HSA_STATUS_SUCCESS);
  CHECK(state == HSA_EXECUTABLE_STATE_FROZEN);
  CHECK(hsa_executable_load_agent_code_object(e, gpu.agent, reader, nullptr, nullptr) ==
        HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  uint32_t result = 1;
  CHECK(hsa_executable_validate(e, &result) == HSA_STATUS_SUCCESS);
  CHECK(result == 0);

  // Every symbol is a kernel named "<entry>.kd" of the GPU agent, and the
  // deprecated lookup finds each by either name.
  struct Seen {
    hsa_agent_t agent;
    std::vector<std::string> names;
    bool all_kernels_of_agent = true;
  } seen{gpu.agent, {}, true};
  REQUIRE(hsa_executable_iterate_symbols(
              e,
              [](hsa_executable_t, hsa_executable_symbol_t symbol, void* data) {
                auto* seen = static_cast<Seen*>(data);
                hsa_symbol_kind_t kind;
                hsa_agent_t agent;
                uint32_t length = 0;
                hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind);
                hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_AGENT, &agent);
                hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length);
                std::string name(length, '\0');
                hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data());
                if (kind != HSA_SYMBOL_KIND_KERNEL || agent.handle != seen->agent.handle)
                  seen->all_kernels_of_agent = false;
                seen->names.push_back(name);
                return HSA_STATUS_SUCCESS;
              },
              &seen) == HSA_STATUS_SUCCESS);
  CHECK(seen.all_kernels_of_agent);
  CHECK(std::find(seen.names.begin(), seen.names.end(), "saxpy.kd") != seen.names.end());
  hsa_executable_symbol_t by_entry, by_kd;
  REQUIRE(hsa_executable_get_symbol(e, nullptr, "saxpy", gpu.agent, 0, &by_entry) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_executable_get_symbol(e, nullptr, "saxpy.kd", gpu.agent, 0, &by_kd) == HSA_STATUS_SUCCESS);
  CHECK(by_entry.handle == by_kd.handle);
  uint32_t count = 0;
  CHECK(hsa_executable_iterate_program_symbols(
            e, [](hsa_executable_t, hsa_executable_symbol_t, void* data) {
              ++*static_cast<uint32_t*>(data);
              return HSA_STATUS_SUCCESS;
            },
            &count) == HSA_STATUS_SUCCESS);
  CHECK(count == 0);
  // A destroyed executable's kernel object is refused by a queue: the
  // registry forgets it before the module goes.
  uint64_t object = 0;
  REQUIRE(hsa_executable_symbol_get_info(by_kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object) ==
          HSA_STATUS_SUCCESS);
  CHECK(object != 0);
  REQUIRE(hsa_executable_destroy(e) == HSA_STATUS_SUCCESS);
  CHECK(hsa_executable_destroy(e) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  CHECK(hsa_executable_symbol_get_info(by_kd, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object) ==
        HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
  REQUIRE(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
}

TEST_CASE("hsa_amd_memory_fill: device and pinned host memory, inside one allocation") {
  Gpu gpu;
  if (!gpu.ok) return;
  const size_t n = (1u << 20) + 3;
  auto* device = static_cast<uint32_t*>(gpu.allocate(gpu.pools.device, n * 4));
  auto* host = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, n * 4));
  std::vector<uint32_t> out(n, 0);
  REQUIRE(hsa_memory_copy(device, out.data(), n * 4) == HSA_STATUS_SUCCESS);
  // All but the first and last dword: the fill stays inside its range.
  REQUIRE(hsa_amd_memory_fill(device + 1, 0xc0ffee11u, n - 2) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_memory_copy(out.data(), device, n * 4) == HSA_STATUS_SUCCESS);
  CHECK(out[0] == 0);
  CHECK(out[n - 1] == 0);
  CHECK(std::count(out.begin() + 1, out.end() - 1, 0xc0ffee11u) == std::ptrdiff_t(n - 2));
  std::fill_n(host, n, 7u);
  REQUIRE(hsa_amd_memory_fill(host, 0x5au, n - 1) == HSA_STATUS_SUCCESS);
  CHECK(std::count(host, host + n - 1, 0x5au) == std::ptrdiff_t(n - 1));
  CHECK(host[n - 1] == 7u);
  CHECK(hsa_amd_memory_fill(nullptr, 0, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_amd_memory_fill(reinterpret_cast<char*>(device) + 2, 0, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint32_t stack = 0;
  CHECK(hsa_amd_memory_fill(&stack, 0, 1) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  // Past the end of the (page-rounded) allocation.
  CHECK(hsa_amd_memory_fill(device, 0, n + 4096) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
  CHECK(hsa_amd_memory_fill(device, 0, 0) == HSA_STATUS_SUCCESS);
  hsa_amd_memory_pool_free(device);
  hsa_amd_memory_pool_free(host);
}

TEST_CASE("saxpy over device memory the host never touches") {
  Gpu gpu;
  if (!gpu.ok) return;
  const uint32_t n = 1u << 20;
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = float(i % 1000);
    y[i] = float(i % 7);
  }
  auto* dx = static_cast<float*>(gpu.allocate(gpu.pools.device, n * 4));
  auto* dy = static_cast<float*>(gpu.allocate(gpu.pools.device, n * 4));
  REQUIRE(hsa_memory_copy(dx, x.data(), n * 4) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_memory_copy(dy, y.data(), n * 4) == HSA_STATUS_SUCCESS);
  ErrorLog errors;
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 256, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  hsa_signal_t done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  void* args = gpu.kernargs(saxpy_args_t{dy, dx, 3.0f, n});
  dispatch1d(queue, gpu.kernel("saxpy"), args, n, 256, done);
  REQUIRE(wait_zero(done));
  std::vector<float> out(n);
  REQUIRE(hsa_memory_copy(out.data(), dy, n * 4) == HSA_STATUS_SUCCESS);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += out[i] != 3.0f * x[i] + y[i];
  CHECK(wrong == 0);
  CHECK(errors.count == 0);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(args);
  hsa_amd_memory_pool_free(dx);
  hsa_amd_memory_pool_free(dy);
}

TEST_CASE("2D dispatch into pinned host memory") {
  Gpu gpu;
  if (!gpu.ok) return;
  const uint32_t w = 256, h = 64;
  auto* out = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, w * h * 4));
  std::memset(out, 0xff, w * h * 4);
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  hsa_signal_t done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  void* args = gpu.kernargs(fill_args_t{out, 7});
  const uint32_t grid[3] = {w, h, 1};
  const uint16_t block[3] = {32, 4, 1};
  dispatch(queue, gpu.kernel("fill2d"), args, grid, block, 2, done);
  REQUIRE(wait_zero(done));
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < w * h; ++i) wrong += out[i] != 7 + i;
  CHECK(wrong == 0);
  hsa_queue_destroy(queue);
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(args);
  hsa_amd_memory_pool_free(out);
}

TEST_CASE("a thousand dispatches wrap the ring in order") {
  Gpu gpu;
  if (!gpu.ok) return;
  auto* counter = static_cast<uint64_t*>(gpu.allocate(gpu.pools.host, 8));
  *counter = 0;
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  hsa_signal_t done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  void* args = gpu.kernargs(count_args_t{counter});
  const Kernel k = gpu.kernel("count");
  for (int i = 0; i < 1000; ++i) dispatch1d(queue, k, args, 64, 64, i == 999 ? done : hsa_signal_t{0});
  REQUIRE(wait_zero(done));
  CHECK(__atomic_load_n(counter, __ATOMIC_ACQUIRE) == 64000);
  CHECK(hsa_queue_load_read_index_scacquire(queue) == 1000);
  hsa_queue_destroy(queue);
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(args);
  hsa_amd_memory_pool_free(counter);
}

// Writes `count` dispatch packets of `k` at once (bodies, then the headers in
// order, then one ring), the last with `completion`: the way the AMDGPU
// driver submits, so that the processor sees them as one run.
void dispatch_batch(hsa_queue_t* queue, const Kernel& k, void* const* kernargs, uint32_t count, uint32_t items,
                    uint16_t block, hsa_signal_t completion) {
  const uint64_t first = hsa_queue_add_write_index_scacq_screl(queue, count);
  while (first + count - hsa_queue_load_read_index_scacquire(queue) > queue->size) {
  }
  std::vector<uint32_t> words(count);
  for (uint32_t i = 0; i < count; ++i) {
    hsa_kernel_dispatch_packet_t p{};
    p.setup = uint16_t(1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    p.workgroup_size_x = block;
    p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = items;
    p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = k.object;
    p.kernarg_address = kernargs[i];
    p.completion_signal = i + 1 == count ? completion : hsa_signal_t{0};
    auto* slot = static_cast<uint8_t*>(queue->base_address) + ((first + i) & (queue->size - 1)) * 64;
    std::memcpy(slot + 4, reinterpret_cast<const uint8_t*>(&p) + 4, 60);
    uint32_t word;
    std::memcpy(&word, &p, 4);
    words[i] = (word & 0xffff0000u) | header(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  }
  for (uint32_t i = 0; i < count; ++i)
    __atomic_store_n(reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(queue->base_address) +
                                                 ((first + i) & (queue->size - 1)) * 64),
                     words[i], __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(first + count - 1));
}

TEST_CASE("runs of dispatches seen before replay as CUDA graphs, each dispatch with its own arguments") {
  // The second sighting of a run is captured into a graph, later ones launch
  // it (graph_runs.h). Every replay here must add exactly its own launches:
  // y += a_i * x for the run's 16 dispatches (a_i = i + 1: sums exact in
  // float), also after one argument changes in place between replays (the
  // run then differs: not the cached graph), and with HSA_CUDA_GRAPHS=0 the
  // same (checked by the ctest that runs this case with it).
  Gpu gpu;
  if (!gpu.ok) return;
  const uint32_t n = 4096, runs = 16;
  auto* dx = static_cast<float*>(gpu.allocate(gpu.pools.device, n * 4));
  auto* dy = static_cast<float*>(gpu.allocate(gpu.pools.device, n * 4));
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i % 4 + 1);
  REQUIRE(hsa_memory_copy(dx, x.data(), n * 4) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_memory_copy(dy, y.data(), n * 4) == HSA_STATUS_SUCCESS);
  ErrorLog errors;
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 256, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  std::vector<void*> args(runs);
  for (uint32_t i = 0; i < runs; ++i) args[i] = gpu.kernargs(saxpy_args_t{dy, dx, float(i + 1), n});
  const Kernel k = gpu.kernel("saxpy");
  hsa_signal_t done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  float factor = 0.0f;  // the sum of a over every dispatch so far
  for (int replay = 0; replay < 8; ++replay) {
    CAPTURE(replay);
    if (replay == 5) {
      // One argument changes in place: the next replay's run is another.
      static_cast<saxpy_args_t*>(args[3])->a = 100.0f;
    }
    hsa_signal_store_relaxed(done, 1);
    dispatch_batch(queue, k, args.data(), runs, n, 256, done);
    REQUIRE(wait_zero(done));
    for (uint32_t i = 0; i < runs; ++i) factor += static_cast<saxpy_args_t*>(args[i])->a;
    REQUIRE(hsa_memory_copy(y.data(), dy, n * 4) == HSA_STATUS_SUCCESS);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i) wrong += y[i] != factor * x[i];
    REQUIRE(wrong == 0);
  }
  // A run whose middle packet has a completion signal: the run ends there,
  // the signal is decremented once, the rest follows.
  hsa_signal_t middle;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &middle) == HSA_STATUS_SUCCESS);
  for (int replay = 0; replay < 3; ++replay) {
    hsa_signal_store_relaxed(done, 1);
    hsa_signal_store_relaxed(middle, 1);
    dispatch_batch(queue, k, args.data(), 8, n, 256, middle);
    dispatch_batch(queue, k, args.data() + 8, 8, n, 256, done);
    REQUIRE(wait_zero(done));
    CHECK(hsa_signal_load_scacquire(middle) == 0);
    for (uint32_t i = 0; i < runs; ++i) factor += static_cast<saxpy_args_t*>(args[i])->a;
  }
  REQUIRE(hsa_memory_copy(y.data(), dy, n * 4) == HSA_STATUS_SUCCESS);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += y[i] != factor * x[i];
  CHECK(wrong == 0);
  CHECK(errors.count == 0);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  hsa_signal_destroy(done);
  hsa_signal_destroy(middle);
  for (void* a : args) hsa_amd_memory_pool_free(a);
  hsa_amd_memory_pool_free(dx);
  hsa_amd_memory_pool_free(dy);
}

TEST_CASE("a long submission goes in growing runs replayed as CUDA graphs, each dispatch with its own arguments") {
  // 1,000 dispatches in one submission: runs of 16, 32, ... packets up to
  // HSA_CUDA_RUN_MAX (queue.cpp), each captured at its second sighting and
  // launched as a graph after. Every replay must add exactly its own
  // launches (y += a_i * x, a_i = i % 4 + 1: sums exact in float), also when
  // a packet deep in a later run changes its argument between replays.
  Gpu gpu;
  if (!gpu.ok) return;
  const uint32_t n = 1024, count = 1000;
  auto* dx = static_cast<float*>(gpu.allocate(gpu.pools.device, n * 4));
  auto* dy = static_cast<float*>(gpu.allocate(gpu.pools.device, n * 4));
  std::vector<float> x(n), y(n, 0.0f);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i % 4 + 1);
  REQUIRE(hsa_memory_copy(dx, x.data(), n * 4) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_memory_copy(dy, y.data(), n * 4) == HSA_STATUS_SUCCESS);
  ErrorLog errors;
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 4096, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  std::vector<void*> args(count);
  for (uint32_t i = 0; i < count; ++i) args[i] = gpu.kernargs(saxpy_args_t{dy, dx, float(i % 4 + 1), n});
  const Kernel k = gpu.kernel("saxpy");
  hsa_signal_t done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  float factor = 0.0f;
  for (int replay = 0; replay < 5; ++replay) {
    CAPTURE(replay);
    if (replay == 3) static_cast<saxpy_args_t*>(args[700])->a = 8.0f;  // in the run of 496..999
    hsa_signal_store_relaxed(done, 1);
    dispatch_batch(queue, k, args.data(), count, n, 256, done);
    REQUIRE(wait_zero(done));
    for (uint32_t i = 0; i < count; ++i) factor += static_cast<saxpy_args_t*>(args[i])->a;
    REQUIRE(hsa_memory_copy(y.data(), dy, n * 4) == HSA_STATUS_SUCCESS);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i) wrong += y[i] != factor * x[i];
    REQUIRE(wrong == 0);
  }
  CHECK(errors.count == 0);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  hsa_signal_destroy(done);
  for (void* a : args) hsa_amd_memory_pool_free(a);
  hsa_amd_memory_pool_free(dx);
  hsa_amd_memory_pool_free(dy);
}

TEST_CASE("hsa_queue_inactivate: packets after it are not issued; work before it completes") {
  Gpu gpu;
  if (!gpu.ok) return;
  auto* counter = static_cast<uint64_t*>(gpu.allocate(gpu.pools.host, 8));
  *counter = 0;
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  hsa_signal_t before, after;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &before) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_signal_create(1, 0, nullptr, &after) == HSA_STATUS_SUCCESS);
  void* args = gpu.kernargs(count_args_t{counter});
  const Kernel k = gpu.kernel("count");
  dispatch1d(queue, k, args, 64, 64, before);
  REQUIRE(wait_zero(before));
  CHECK(hsa_queue_inactivate(nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  REQUIRE(hsa_queue_inactivate(queue) == HSA_STATUS_SUCCESS);
  dispatch1d(queue, k, args, 64, 64, after);
  // Not issued: the signal keeps its value, the counter and the read index stay.
  CHECK(hsa_signal_wait_scacquire(after, HSA_SIGNAL_CONDITION_EQ, 0, 100 * 1000 * 1000, HSA_WAIT_STATE_BLOCKED) ==
        1);
  CHECK(__atomic_load_n(counter, __ATOMIC_ACQUIRE) == 64);
  CHECK(hsa_queue_load_read_index_scacquire(queue) == 1);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  CHECK(hsa_queue_inactivate(queue) == HSA_STATUS_ERROR_INVALID_QUEUE);
  hsa_signal_destroy(before);
  hsa_signal_destroy(after);
  hsa_amd_memory_pool_free(args);
  hsa_amd_memory_pool_free(counter);
}

TEST_CASE("barrier-AND waits on the stream for a host store and for another queue") {
  Gpu gpu;
  if (!gpu.ok) return;
  auto* counter = static_cast<uint64_t*>(gpu.allocate(gpu.pools.host, 8));
  *counter = 0;
  hsa_queue_t *qa = nullptr, *qb = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &qa) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &qb) == HSA_STATUS_SUCCESS);
  hsa_signal_t gate, a_done, b_done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &gate) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_signal_create(1, 0, nullptr, &a_done) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_signal_create(1, 0, nullptr, &b_done) == HSA_STATUS_SUCCESS);
  void* args = gpu.kernargs(count_args_t{counter});
  const Kernel k = gpu.kernel("count");

  // Queue A: wait for the host's gate, then count 1024.
  hsa_barrier_and_packet_t barrier{};
  barrier.dep_signal[0] = gate;
  submit(qa, &barrier, header(HSA_PACKET_TYPE_BARRIER_AND));
  dispatch1d(qa, k, args, 1024, 256, a_done);
  // Queue B: wait for A, then count 1024 more.
  hsa_barrier_and_packet_t after_a{};
  after_a.dep_signal[2] = a_done;
  submit(qb, &after_a, header(HSA_PACKET_TYPE_BARRIER_AND));
  dispatch1d(qb, k, args, 1024, 256, b_done);

  CHECK(hsa_signal_wait_scacquire(b_done, HSA_SIGNAL_CONDITION_EQ, 0, 50000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  CHECK(__atomic_load_n(counter, __ATOMIC_ACQUIRE) == 0);
  hsa_signal_store_screlease(gate, 0);
  REQUIRE(wait_zero(b_done));
  CHECK(hsa_signal_load_scacquire(a_done) == 0);
  CHECK(__atomic_load_n(counter, __ATOMIC_ACQUIRE) == 2048);
  hsa_queue_destroy(qa);
  hsa_queue_destroy(qb);
  for (hsa_signal_t s : {gate, a_done, b_done}) hsa_signal_destroy(s);
  hsa_amd_memory_pool_free(args);
  hsa_amd_memory_pool_free(counter);
}

TEST_CASE("refused packets reach the queue's error callback") {
  Gpu gpu;
  if (!gpu.ok) return;
  struct Case {
    const char* what;
    hsa_status_t expected;
  };
  for (const Case& c : {Case{"vendor packet type", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
                        Case{"partial workgroup", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
                        Case{"unknown kernel object", HSA_STATUS_ERROR_INVALID_CODE_OBJECT}}) {
    CAPTURE(c.what);
    ErrorLog errors;
    hsa_queue_t* queue = nullptr;
    REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
            HSA_STATUS_SUCCESS);
    hsa_signal_t done;
    REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
    Kernel k = gpu.kernel("count");
    uint64_t* counter = static_cast<uint64_t*>(gpu.allocate(gpu.pools.host, 8));
    void* args = gpu.kernargs(count_args_t{counter});
    if (std::string(c.what) == "vendor packet type") {
      hsa_barrier_and_packet_t p{};
      p.completion_signal = done;
      submit(queue, &p, uint16_t(HSA_PACKET_TYPE_BARRIER_OR + 3));
    } else if (std::string(c.what) == "partial workgroup") {
      dispatch1d(queue, k, args, 100, 64, done);
    } else {
      k.object = 0x1234;
      dispatch1d(queue, k, args, 64, 64, done);
    }
    for (int i = 0; i < 2000 && errors.count == 0; ++i) usleep(1000);
    CHECK(errors.count == 1);
    CHECK(errors.status == c.expected);
    CHECK(hsa_signal_load_scacquire(done) == 1);
    CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
    hsa_signal_destroy(done);
    hsa_amd_memory_pool_free(args);
    hsa_amd_memory_pool_free(counter);
  }
}

// --- <xgpu/kernel.h> on nvptx ---------------------------------------------------

// Runs one dispatch of an xgpu kernel and waits for it.
struct XgpuRun {
  Gpu& gpu;
  hsa_queue_t* queue = nullptr;
  hsa_signal_t done{0};
  ErrorLog errors;
  explicit XgpuRun(Gpu& g) : gpu(g) {
    REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  }
  ~XgpuRun() {
    hsa_queue_destroy(queue);
    hsa_signal_destroy(done);
  }
  template <typename Args>
  void run(const char* name, const Args& args, const uint32_t grid[3], const uint16_t block[3], uint32_t dims,
           uint32_t group = 0) {
    const Kernel k = gpu.kernel(name);
    CHECK(k.kernarg_size == sizeof(Args));
    void* kernargs = gpu.kernargs(args);
    hsa_signal_store_screlease(done, 1);
    dispatch(queue, k, kernargs, grid, block, dims, done, group);
    CHECK(wait_zero(done));
    CHECK(errors.count == 0);
    hsa_amd_memory_pool_free(kernargs);
  }
};

TEST_CASE("kernel.h on nvptx: ids, sizes and counts with partial workgroups in 2D") {
  Gpu gpu(HSA_CUDA_XGPU_PTX);
  if (!gpu.ok) return;
  // A kernel without a required size, and one whose required size (32 x 2 x
  // 1) its code takes as constants: the same ids.
  for (const char* kernel : {"ids", "ids_sized"}) {
  INFO(kernel);
  XgpuRun run(gpu);
  const uint32_t gx = 100, gy = 3;
  auto* out = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, gx * gy * 16 + 64));
  auto* grid_words = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, 64));
  std::memset(out, 0xff, gx * gy * 16 + 64);
  struct {
    uint32_t* out;
    uint32_t* grid;
  } args{out, grid_words};
  const uint32_t grid[3] = {gx, gy, 1};
  const uint16_t block[3] = {32, 2, 1};
  run.run(kernel, args, grid, block, 2);
  uint32_t wrong = 0;
  for (uint32_t y = 0; y < gy; ++y)
    for (uint32_t x = 0; x < gx; ++x) {
      const uint32_t i = y * gx + x;
      const uint32_t local = (y % 2) * 32 + x % 32;
      const uint32_t group = (y / 2) * 4 + x / 32;
      wrong += out[i * 4] != i || out[i * 4 + 1] != (x / 32 == 3 ? 4u : 32u) || out[i * 4 + 2] != local ||
               out[i * 4 + 3] != group;
    }
  CHECK(wrong == 0);
  CHECK(out[gx * gy * 4] == 0xffffffffu);  // nothing past the grid
  const uint32_t expected[6] = {gx, 4, gy, 2, 1, 1};
  for (int w = 0; w < 6; ++w) CHECK(grid_words[w] == expected[w]);
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(grid_words);
  }
}

TEST_CASE("kernel.h on nvptx: a kernel with a required workgroup size refuses a dispatch of another size") {
  Gpu gpu(HSA_CUDA_XGPU_PTX);
  if (!gpu.ok) return;
  XgpuRun run(gpu);
  auto* out = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, 64 * 16));
  auto* grid_words = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, 64));
  std::memset(out, 0xff, 64 * 16);
  struct {
    uint32_t* out;
    uint32_t* grid;
  } args{out, grid_words};
  const Kernel k = gpu.kernel("ids_sized");
  void* kernargs = gpu.kernargs(args);
  const uint32_t grid[3] = {64, 1, 1};
  const uint16_t block[3] = {64, 1, 1};  // required: 32 x 2 x 1
  hsa_signal_store_screlease(run.done, 1);
  dispatch(run.queue, k, kernargs, grid, block, 1, run.done, 0);
  for (int i = 0; i < 5000 && run.errors.count == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(run.errors.count == 1);
  CHECK(run.errors.status.load() == HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  CHECK(hsa_signal_load_scacquire(run.done) == 1);  // it never ran
  CHECK(out[0] == 0xffffffffu);
  hsa_amd_memory_pool_free(kernargs);
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(grid_words);
}

TEST_CASE("kernel.h on nvptx: groupshared and barriers in a partial last workgroup") {
  Gpu gpu(HSA_CUDA_XGPU_PTX);
  if (!gpu.ok) return;
  XgpuRun run(gpu);
  const uint32_t n = 1000, wg = 256;
  auto* in = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, n * 4));
  auto* out = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, n * 4));
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 3 + 1;
  struct {
    const uint32_t* in;
    uint32_t* out;
  } args{in, out};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t block[3] = {uint16_t(wg), 1, 1};
  run.run("reverse", args, grid, block, 1);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t base = i / wg * wg, count = std::min(wg, n - base);
    wrong += out[i] != in[base + count - 1 - (i - base)];
  }
  CHECK(wrong == 0);
  hsa_amd_memory_pool_free(in);
  hsa_amd_memory_pool_free(out);
}

TEST_CASE("kernel.h on nvptx: dynamic groupshared from the packet's group segment size") {
  Gpu gpu(HSA_CUDA_XGPU_PTX);
  if (!gpu.ok) return;
  XgpuRun run(gpu);
  const uint32_t n = 512, wg = 256;
  auto* out = static_cast<uint32_t*>(gpu.allocate(gpu.pools.host, n * 4));
  struct {
    uint32_t* out;
  } args{out};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t block[3] = {uint16_t(wg), 1, 1};
  run.run("rotate", args, grid, block, 1, wg * 4);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) wrong += out[i] != (i / wg * wg + (i % wg + 1) % wg) * 10;
  CHECK(wrong == 0);
  hsa_amd_memory_pool_free(out);
}

TEST_CASE("kernel.h on nvptx: atomics") {
  Gpu gpu(HSA_CUDA_XGPU_PTX);
  if (!gpu.ok) return;
  XgpuRun run(gpu);
  const uint32_t n = 4096;
  auto* counter = static_cast<uint32_t*>(gpu.allocate(gpu.pools.device, 16));
  auto* order = static_cast<uint32_t*>(gpu.allocate(gpu.pools.device, n * 4));
  const uint32_t zero[4] = {};
  REQUIRE(hsa_memory_copy(counter, zero, 16) == HSA_STATUS_SUCCESS);
  struct {
    uint32_t* counter;
    uint32_t* order;
  } args{counter, order};
  const uint32_t grid[3] = {n, 1, 1};
  const uint16_t block[3] = {256, 1, 1};
  run.run("atomics", args, grid, block, 1);
  uint32_t c[4];
  std::vector<uint32_t> tickets(n);
  REQUIRE(hsa_memory_copy(c, counter, 16) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_memory_copy(tickets.data(), order, n * 4) == HSA_STATUS_SUCCESS);
  CHECK(c[0] == n * (n - 1) / 2);
  CHECK(c[1] == n - 1);
  CHECK(c[2] == n);
  std::vector<bool> seen(n);
  uint32_t duplicates = 0;
  for (uint32_t t : tickets) {
    if (t >= n || seen[t]) ++duplicates;
    else seen[t] = true;
  }
  CHECK(duplicates == 0);
  hsa_amd_memory_pool_free(counter);
  hsa_amd_memory_pool_free(order);
}

// Run alone (its own process): a device fault poisons the CUDA context.
TEST_CASE("dispatch profiling: device times of a spin kernel in the system timestamp domain") {
  Gpu gpu;
  if (!gpu.ok) return;
  hsa_queue_t* queue = nullptr;
  ErrorLog errors;
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  hsa_signal_t done[3];
  for (hsa_signal_t& s : done) REQUIRE(hsa_signal_create(1, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
  auto* elapsed = static_cast<uint64_t*>(gpu.allocate(gpu.pools.host, 3 * 8));
  const uint64_t spin_ns = 2000000;  // 2 ms of the GPU's global timer
  void* args[3];
  for (int i = 0; i < 3; ++i) args[i] = gpu.kernargs(spin_args_t{elapsed + i, spin_ns});
  const Kernel spin = gpu.kernel("spin");
  // The anchor pairing GPU and host time is known to within half of a window
  // of at most 10 µs (src/profiling.cpp); cuEventElapsedTime resolves 0.5 µs.
  const uint64_t slack = 10000;

  // Argument rules (ROCR's statuses).
  hsa_amd_profiling_dispatch_time_t time{};
  CHECK(hsa_amd_profiling_set_profiler_enabled(nullptr, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_queue_t not_a_queue{};
  CHECK(hsa_amd_profiling_set_profiler_enabled(&not_a_queue, 1) == HSA_STATUS_ERROR_INVALID_QUEUE);
  CHECK(hsa_amd_profiling_get_dispatch_time(gpu.host_agent, done[0], &time) == HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_amd_profiling_get_dispatch_time(gpu.agent, hsa_signal_t{0}, &time) == HSA_STATUS_ERROR_INVALID_SIGNAL);
  CHECK(hsa_amd_profiling_get_dispatch_time(gpu.agent, done[0], nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Profiling off: the dispatch is not timed (0, 0 on a signal never profiled).
  dispatch1d(queue, spin, args[0], 1, 1, done[0]);
  REQUIRE(wait_zero(done[0]));
  time = dispatch_time(gpu.agent, done[0]);
  CHECK(time.start == 0);
  CHECK(time.end == 0);

  // On: one dispatch at a time, inside [host before the submission, host
  // after the wait], as long as the kernel spun.
  REQUIRE(hsa_amd_profiling_set_profiler_enabled(queue, 1) == HSA_STATUS_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    hsa_signal_store_relaxed(done[0], 1);
    const uint64_t before = system_now();
    dispatch1d(queue, spin, args[0], 1, 1, done[0]);
    REQUIRE(wait_zero(done[0]));
    const uint64_t after = system_now();
    time = dispatch_time(gpu.agent, done[0]);
    std::fprintf(stderr,
                 "hsa-cuda tests: profiled spin of %llu ns: %llu ns on the device (kernel's own %llu ns); "
                 "start %lld ns after the submission began, end %lld ns before the wait returned\n",
                 (unsigned long long)spin_ns, (unsigned long long)(time.end - time.start),
                 (unsigned long long)elapsed[0], (long long)(time.start - before), (long long)(after - time.end));
    CHECK(time.end >= time.start);
    CHECK(time.start + slack >= before);
    CHECK(time.end <= after + slack);
    CHECK(elapsed[0] >= spin_ns);
    CHECK(time.end - time.start + 1000 >= elapsed[0]);
    CHECK(time.end - time.start <= elapsed[0] + 500000);  // launch and events: well under 0.5 ms
    // A second query reads the same times (kept with the signal).
    const hsa_amd_profiling_dispatch_time_t again = dispatch_time(gpu.agent, done[0]);
    CHECK(again.start == time.start);
    CHECK(again.end == time.end);
  }

  // Three in a row on the stream, queried after the last: in stream order.
  for (hsa_signal_t s : done) hsa_signal_store_relaxed(s, 1);
  const uint64_t before = system_now();
  for (int i = 0; i < 3; ++i) dispatch1d(queue, spin, args[i], 1, 1, done[i]);
  REQUIRE(wait_zero(done[2]));
  const uint64_t after = system_now();
  hsa_amd_profiling_dispatch_time_t times[3];
  for (int i = 0; i < 3; ++i) {
    REQUIRE(wait_zero(done[i]));
    times[i] = dispatch_time(gpu.agent, done[i]);
    CHECK(times[i].end - times[i].start + 1000 >= spin_ns);
    if (i) CHECK(times[i].start + 1000 >= times[i - 1].end);
  }
  CHECK(times[0].start + slack >= before);
  CHECK(times[2].end <= after + slack);
  CHECK(times[2].end - times[0].start + 1000 >= 3 * spin_ns);

  // A barrier-AND packet is timed too: it ends after the host opens its gate.
  hsa_signal_t gate;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &gate) == HSA_STATUS_SUCCESS);
  hsa_signal_store_relaxed(done[1], 1);
  hsa_barrier_and_packet_t barrier{};
  barrier.dep_signal[0] = gate;
  barrier.completion_signal = done[1];
  submit(queue, &barrier, header(HSA_PACKET_TYPE_BARRIER_AND));
  usleep(2000);
  const uint64_t opened = system_now();
  hsa_signal_store_screlease(gate, 0);
  REQUIRE(wait_zero(done[1]));
  time = dispatch_time(gpu.agent, done[1]);
  CHECK(time.end >= time.start);
  CHECK(time.start <= opened + slack);
  CHECK(time.end + slack >= opened);

  // Off again: a signal profiled but never queried, then used unprofiled,
  // reads 0, 0 (its pair is dropped with the reuse).
  hsa_signal_store_relaxed(done[2], 1);
  dispatch1d(queue, spin, args[2], 1, 1, done[2]);
  REQUIRE(wait_zero(done[2]));
  REQUIRE(hsa_amd_profiling_set_profiler_enabled(queue, 0) == HSA_STATUS_SUCCESS);
  hsa_signal_store_relaxed(done[2], 1);
  dispatch1d(queue, spin, args[2], 1, 1, done[2]);
  REQUIRE(wait_zero(done[2]));
  time = dispatch_time(gpu.agent, done[2]);
  CHECK(time.start == 0);
  CHECK(time.end == 0);

  CHECK(errors.count == 0);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  for (hsa_signal_t s : done) hsa_signal_destroy(s);
  hsa_signal_destroy(gate);
  for (void* a : args) hsa_amd_memory_pool_free(a);
  hsa_amd_memory_pool_free(elapsed);
}

// Run alone (its own process): the abandoned kernel's context is reset.
TEST_CASE("a kernel that never ends: the queue's destroy abandons it within its bound, hsa_shut_down returns "
          "at once, and a later hsa_init refuses at once") {
  if (!std::getenv("HSA_CUDA_TEST_HANG")) return;
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  double destroy_s = 0, shut_down_s = 0;
  {
    std::optional<Gpu> holder;
    holder.emplace();
    Gpu& gpu = *holder;
    if (!gpu.ok) return;
    ErrorLog errors;
    hsa_queue_t* queue = nullptr;
    REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
            HSA_STATUS_SUCCESS);
    hsa_signal_t done;
    REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
    auto* elapsed = static_cast<uint64_t*>(gpu.allocate(gpu.pools.host, 8));
    // An hour of the GPU's timer: for this test, a kernel that never ends.
    void* args = gpu.kernargs(spin_args_t{elapsed, 3600ull * 1000000000ull});
    dispatch1d(queue, gpu.kernel("spin"), args, 1, 1, done);
    usleep(100000);
    CHECK(hsa_signal_load_scacquire(done) == 1);  // still running
    const Clock::time_point destroy_start = Clock::now();
    CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
    destroy_s = seconds_since(destroy_start);
    CHECK(hsa_signal_load_scacquire(done) == 1);  // abandoned, never completed
    hsa_signal_destroy(done);
    // The executable, then hsa_shut_down, with the kernel still running.
    const Clock::time_point shut_down_start = Clock::now();
    holder.reset();
    shut_down_s = seconds_since(shut_down_start);
  }
  std::fprintf(stderr, "hsa-cuda tests: a kernel that never ends: hsa_queue_destroy %.3f s, hsa_shut_down %.3f s\n",
               destroy_s, shut_down_s);
  CHECK(destroy_s >= 1.9);  // the 2 s grace
  CHECK(destroy_s < 4.0);
  CHECK(shut_down_s < 10.0);
  // CUDA cannot stop the kernel, and loading a module would wait for it:
  // hsa_init says so at once for the rest of the process.
  const Clock::time_point init_start = Clock::now();
  CHECK(hsa_init() == HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  CHECK(seconds_since(init_start) < 1.0);
}

TEST_CASE("a faulting kernel is a queue error, not a dead process") {
  if (!std::getenv("HSA_CUDA_TEST_FAULT")) return;
  Gpu gpu;
  if (!gpu.ok) return;
  ErrorLog errors;
  hsa_queue_t* queue = nullptr;
  REQUIRE(hsa_queue_create(gpu.agent, 64, HSA_QUEUE_TYPE_SINGLE, on_queue_error, &errors, 0, 0, &queue) ==
          HSA_STATUS_SUCCESS);
  hsa_signal_t done;
  REQUIRE(hsa_signal_create(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
  void* args = gpu.kernargs(fault_args_t{reinterpret_cast<volatile uint32_t*>(uintptr_t(0x10))});
  dispatch1d(queue, gpu.kernel("fault"), args, 1, 1, done);
  for (int i = 0; i < 5000 && errors.count == 0; ++i) usleep(1000);
  CHECK(errors.count == 1);
  CHECK(errors.status == HSA_STATUS_ERROR_MEMORY_FAULT);
  CHECK(hsa_signal_load_scacquire(done) == 1);
  CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  hsa_signal_destroy(done);
}

}  // TEST_SUITE

// --- The executable reader on PTX (runs everywhere: no device needed) -------------

namespace {
std::vector<uint8_t> read_bytes(const char* path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_SUITE("hsa-cuda") {

TEST_CASE("NVPTX code objects: kernels, kernarg, groupshared and layouts read from the PTX text") {
  namespace xe = xgpu::executable;
  const std::vector<uint8_t> ptx = read_bytes(HSA_CUDA_XGPU_PTX);
  REQUIRE(!ptx.empty());
  xgpu_executable_entry_kind_t kind;
  REQUIRE(xe::kind_for_isa("nvptx64-nvidia-cuda--sm_90", &kind).ok());
  CHECK(kind == XGPU_EXECUTABLE_ENTRY_KIND_NVPTX);
  CHECK_FALSE(xe::kind_for_isa("nvptx64-nvidia-cuda--sm_", &kind).ok());
  CHECK(xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, ptx).ok());
  xe::CodeObjectInfo info;
  const xe::Status status = xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, ptx, &info);
  REQUIRE_MESSAGE(status.ok(), status.message());
  CHECK(info.isa_name == "nvptx64-nvidia-cuda--sm_90");
  REQUIRE(info.kernels.size() == 5);  // sorted by name
  CHECK(info.kernels[0].name == "atomics");
  CHECK(info.kernels[1].name == "ids");
  CHECK(info.kernels[1].kernarg_size == 16);
  CHECK(info.kernels[1].kernarg_alignment == 8);
  CHECK(info.kernels[1].layout_declared);
  CHECK(info.kernels[1].binding_count == 2);
  CHECK(info.kernels[1].constant_size == 0);
  CHECK(info.kernels[1].required_workgroup_size[0] == 0);
  CHECK_FALSE(info.kernels[0].layout_declared);
  CHECK(info.kernels[2].name == "ids_sized");
  CHECK(info.kernels[2].required_workgroup_size[0] == 32);
  CHECK(info.kernels[2].required_workgroup_size[1] == 2);
  CHECK(info.kernels[2].required_workgroup_size[2] == 1);
  CHECK(info.kernels[3].name == "reverse");
  CHECK(info.kernels[3].group_segment_size == 1024);
  CHECK(info.kernels[4].name == "rotate");
  CHECK(info.kernels[4].kernarg_size == 8);
  CHECK(info.kernels[4].group_segment_size == 0);

  auto text = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  const std::string header = ".version 8.5\n.target sm_90\n.address_size 64\n";
  CHECK_FALSE(xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, text("not ptx")).ok());
  CHECK_FALSE(xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX,
                                          text(header + ".global .align 4 .b8 counter[4];\n")).ok());
  CHECK_FALSE(xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_NVPTX,
                                          text(header + ".extern .func (.param .b32 r) puts(.param .b64 s);\n")).ok());
  // An entry without the grid parameter is not an xgpu kernel.
  const xe::Status one_param = xe::read_code_object(
      XGPU_EXECUTABLE_ENTRY_KIND_NVPTX, text(header + ".visible .entry k(\n\t.param .align 8 .b8 k_param_0[16]\n)\n{\n\tret;\n}\n"),
      &info);
  CHECK_FALSE(one_param.ok());
  CHECK(one_param.message().find("two (its argument struct, the grid)") != std::string::npos);
}

}  // TEST_SUITE
