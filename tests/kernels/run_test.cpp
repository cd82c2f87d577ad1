// Runs the test kernels on hsa-cpu through the HSA API: the code object is
// picked from the xgpu executable with the agent's ISAs, loaded with
// hsa_executable_*, and dispatched with AQL packets on an HSA queue. Results
// are compared with references computed here.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <hsa_cpu_ext.h>
#include <xgpu/host_kernel.h>

#include "test_kernels.h"
#include "xgpu_executable.h"

namespace xe = xgpu::executable;

namespace {

#define HSA_CHECK(call)                                              \
  do {                                                               \
    hsa_status_t status_ = (call);                                   \
    if (status_ != HSA_STATUS_SUCCESS) {                             \
      const char* text_ = nullptr;                                   \
      hsa_status_string(status_, &text_);                            \
      FAIL(#call " failed: " << (text_ ? text_ : "?"));              \
    }                                                                \
  } while (0)

constexpr auto kDispatchTimeout = std::chrono::seconds(20);

// hsa-cpu's worker pool size (hsa-cpu/README.md), read by hsa_init. The
// tests need workgroups to run concurrently (atomics across workgroups), so
// they ask for more than one worker unless the caller chose a count.
constexpr const char* kWorkersVariable = "HSA_CPU_WORKERS";
constexpr const char* kTestWorkers = "4";

struct Dispatch {
  const char* kernel;               // kernel name
  const void* args;                 // argument struct
  size_t args_size;                 // its size in bytes
  uint32_t dimensions;              // 1..3
  uint32_t grid[3];                 // work items per dimension
  uint16_t workgroup[3];            // work items per workgroup
  uint32_t dynamic_group_bytes = 0; // group bytes after the static part
};

// One HSA runtime, one CPU agent, the test executable loaded for it.
class Device {
 public:
  // Loads the entry select() picks for the agent, or the entry for `isa`.
  explicit Device(const std::string& isa = "", const char* file = XGPU_TEST_KERNELS_FILE) {
    setenv(kWorkersVariable, kTestWorkers, /*overwrite=*/0);
    HSA_CHECK(hsa_init());
    initialized_ = true;
    HSA_CHECK(hsa_iterate_agents(
        [](hsa_agent_t agent, void* data) {
          hsa_device_type_t type;
          uint32_t features = 0;
          if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
          if (hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &features) != HSA_STATUS_SUCCESS)
            return HSA_STATUS_ERROR;
          auto* self = static_cast<Device*>(data);
          if (type == HSA_DEVICE_TYPE_CPU && (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) && !self->agent_.handle) {
            self->agent_ = agent;
          }
          return HSA_STATUS_SUCCESS;
        },
        this));
    REQUIRE_MESSAGE(agent_.handle != 0, "no CPU agent with kernel dispatch");
    HSA_CHECK(hsa_agent_iterate_isas(
        agent_,
        [](hsa_isa_t isa, void* data) {
          uint32_t length = 0;
          if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS)
            return HSA_STATUS_ERROR;
          std::string name(length, '\0');
          if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
          while (!name.empty() && name.back() == '\0') name.pop_back();
          static_cast<Device*>(data)->isas_.push_back(name);
          return HSA_STATUS_SUCCESS;
        },
        this));
    REQUIRE(!isas_.empty());
    HSA_CHECK(hsa_agent_iterate_regions(
        agent_,
        [](hsa_region_t region, void* data) {
          auto* self = static_cast<Device*>(data);
          hsa_region_segment_t segment;
          uint32_t flags = 0;
          bool alloc = false;
          hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
          if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
          hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
          hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
          if (!alloc) return HSA_STATUS_SUCCESS;
          if ((flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !self->kernarg_region_.handle) self->kernarg_region_ = region;
          if ((flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) && !self->data_region_.handle) self->data_region_ = region;
          return HSA_STATUS_SUCCESS;
        },
        this));
    REQUIRE(kernarg_region_.handle != 0);
    REQUIRE(data_region_.handle != 0);

    std::ifstream in(file, std::ios::binary);
    REQUIRE(in.good());
    file_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    xe::Status status = xe::Executable::parse(file_, &executable_);
    REQUIRE_MESSAGE(status.ok(), status.message());
    if (isa.empty()) {
      status = executable_.select(isas_, &entry_);
    } else {
      std::vector<std::string> wanted = {isa};
      status = executable_.select(wanted, &entry_);
    }
    REQUIRE_MESSAGE(status.ok(), status.message());

    HSA_CHECK(hsa_code_object_reader_create_from_memory(entry_->code_object.data(), entry_->code_object.size(),
                                                        &reader_));
    HSA_CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                        &executable_handle_));
    HSA_CHECK(hsa_executable_load_agent_code_object(executable_handle_, agent_, reader_, nullptr, nullptr));
    HSA_CHECK(hsa_executable_freeze(executable_handle_, nullptr));
    HSA_CHECK(hsa_queue_create(agent_, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue_));
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &signal_));
  }

  ~Device() {
    if (signal_.handle) hsa_signal_destroy(signal_);
    if (queue_) hsa_queue_destroy(queue_);
    if (executable_handle_.handle) hsa_executable_destroy(executable_handle_);
    if (reader_.handle) hsa_code_object_reader_destroy(reader_);
    for (void* p : allocations_) hsa_memory_free(p);
    if (initialized_) hsa_shut_down();
  }

  const xe::Entry& entry() const { return *entry_; }
  // Workgroups the agent can run at once (hsa-cpu: worker threads).
  uint32_t compute_units() const {
    uint32_t count = 0;
    REQUIRE(hsa_agent_get_info(agent_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &count) ==
            HSA_STATUS_SUCCESS);
    return count;
  }
  const std::vector<std::string>& isas() const { return isas_; }

  template <typename T>
  T* allocate(size_t count) {
    void* p = nullptr;
    HSA_CHECK(hsa_memory_allocate(data_region_, count * sizeof(T) + 1, &p));
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }

  // The host kernel descriptor of `kernel` (hsa-cpu: the kernel object is
  // its address in the loaded code object).
  const xgpu_host_kernel_descriptor_t* descriptor(const char* kernel) {
    hsa_executable_symbol_t symbol;
    HSA_CHECK(hsa_executable_get_symbol_by_name(executable_handle_, (std::string(kernel) + ".kd").c_str(), &agent_,
                                                &symbol));
    uint64_t kernel_object = 0;
    HSA_CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
    return reinterpret_cast<const xgpu_host_kernel_descriptor_t*>(static_cast<uintptr_t>(kernel_object));
  }

  // Dispatches one kernel and waits (bounded) for it to complete.
  void run(const Dispatch& d) {
    void* kernarg = nullptr;
    launch(d, &kernarg);
    const auto deadline = std::chrono::steady_clock::now() + kDispatchTimeout;
    hsa_signal_value_t value = 1;
    while (value != 0 && std::chrono::steady_clock::now() < deadline) {
      value = hsa_signal_wait_scacquire(signal_, HSA_SIGNAL_CONDITION_LT, 1, 100'000'000, HSA_WAIT_STATE_BLOCKED);
    }
    hsa_memory_free(kernarg);
    REQUIRE_MESSAGE(value == 0, d.kernel << " did not complete within " << kDispatchTimeout.count() << " s");
  }

  // Dispatches one kernel that faults and waits (bounded) until the queue
  // has the fault's report (hsa_cpu_ext.h). Returns the packet's id; the
  // queue is broken afterwards.
  uint64_t run_faulting(const Dispatch& d, hsa_cpu_kernel_fault_t* out_fault) {
    void* kernarg = nullptr;
    const uint64_t packet_id = launch(d, &kernarg);
    const auto deadline = std::chrono::steady_clock::now() + kDispatchTimeout;
    hsa_status_t status = HSA_STATUS_INFO_BREAK;
    while (status == HSA_STATUS_INFO_BREAK && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      status = hsa_cpu_queue_get_kernel_fault(queue_, out_fault);
    }
    REQUIRE_MESSAGE(status == HSA_STATUS_SUCCESS, d.kernel << " did not fault within " << kDispatchTimeout.count()
                                                           << " s");
    CHECK(hsa_signal_load_scacquire(signal_) == 1);  // a faulting dispatch never completes
    // Other workgroups may still be leaving the kernel: the arguments are
    // freed with the device, after its queue.
    allocations_.push_back(kernarg);
    return packet_id;
  }

 private:
  // Writes the dispatch packet of `d` and rings the doorbell; returns the
  // packet's id. *out_kernarg: its argument allocation, to free once the
  // dispatch ended.
  uint64_t launch(const Dispatch& d, void** out_kernarg) {
    hsa_executable_symbol_t symbol;
    HSA_CHECK(hsa_executable_get_symbol_by_name(executable_handle_, (std::string(d.kernel) + ".kd").c_str(), &agent_,
                                                &symbol));
    uint64_t kernel_object = 0;
    uint32_t kernarg_size = 0, group_size = 0, private_size = 0;
    HSA_CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
    HSA_CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                             &kernarg_size));
    HSA_CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                             &group_size));
    HSA_CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                             &private_size));
    REQUIRE(kernarg_size == d.args_size);
    void* kernarg = nullptr;
    HSA_CHECK(hsa_memory_allocate(kernarg_region_, kernarg_size, &kernarg));
    std::memcpy(kernarg, d.args, kernarg_size);

    hsa_signal_store_screlease(signal_, 1);
    const uint64_t index = hsa_queue_add_write_index_scacq_screl(queue_, 1);
    REQUIRE(index < queue_->size + hsa_queue_load_read_index_scacquire(queue_));
    auto* packet = static_cast<hsa_kernel_dispatch_packet_t*>(queue_->base_address) + (index % queue_->size);
    std::memset(reinterpret_cast<uint8_t*>(packet) + 4, 0, sizeof(*packet) - 4);
    packet->workgroup_size_x = d.workgroup[0];
    packet->workgroup_size_y = d.workgroup[1];
    packet->workgroup_size_z = d.workgroup[2];
    packet->grid_size_x = d.grid[0];
    packet->grid_size_y = d.grid[1];
    packet->grid_size_z = d.grid[2];
    packet->private_segment_size = private_size;
    packet->group_segment_size = group_size + d.dynamic_group_bytes;
    packet->kernel_object = kernel_object;
    packet->kernarg_address = kernarg;
    packet->completion_signal = signal_;
    const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint16_t setup = static_cast<uint16_t>(d.dimensions << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(packet))
        .store(header | (uint32_t{setup} << 16), std::memory_order_release);
    hsa_signal_store_screlease(queue_->doorbell_signal, static_cast<hsa_signal_value_t>(index));
    *out_kernarg = kernarg;
    return index;
  }

  bool initialized_ = false;
  hsa_agent_t agent_{};
  std::vector<std::string> isas_;
  hsa_region_t kernarg_region_{}, data_region_{};
  std::vector<uint8_t> file_;
  xe::Executable executable_;
  const xe::Entry* entry_ = nullptr;
  hsa_code_object_reader_t reader_{};
  hsa_executable_t executable_handle_{};
  hsa_queue_t* queue_ = nullptr;
  hsa_signal_t signal_{};
  std::vector<void*> allocations_;
};

}  // namespace

TEST_CASE("the executable provides a code object for the CPU agent's ISA") {
  Device device;
  CHECK(device.entry().kind == XGPU_EXECUTABLE_ENTRY_KIND_HOST);
  CHECK(device.entry().isa_name.starts_with("x86_64-unknown-linux-gnu--"));
  bool listed = false;
  for (const std::string& isa : device.isas()) listed |= isa == device.entry().isa_name;
  CHECK(listed);

  // A file without a host entry: the error names the agent's ISAs and the file's.
  std::vector<xe::EntryInput> gpu_only = {{"amdgcn-amd-amdhsa--gfx942", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {1, 2, 3}}};
  std::vector<uint8_t> bytes;
  REQUIRE(xe::write(gpu_only, &bytes).ok());
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  const xe::Entry* entry = nullptr;
  xe::Status status = executable.select(device.isas(), &entry);
  REQUIRE_FALSE(status.ok());
  CHECK(status.message().find(device.isas()[0]) != std::string::npos);
  CHECK(status.message().find("the executable holds amdgcn-amd-amdhsa--gfx942") != std::string::npos);
}

TEST_CASE("saxpy with a partial last workgroup") {
  Device device;
  constexpr uint32_t n = 1000;  // 15 full workgroups of 64 + one of 40
  constexpr uint32_t sentinel_count = 64;
  float* x = device.allocate<float>(n);
  float* y = device.allocate<float>(n + sentinel_count);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(1000 - i);
  }
  for (uint32_t i = n; i < n + sentinel_count; ++i) y[i] = -1.0f;
  saxpy_args_t args = {x, y, 2.0f, n};
  device.run({"saxpy", &args, sizeof(args), 1, {n, 1, 1}, {64, 1, 1}});
  for (uint32_t i = 0; i < n; ++i) {
    INFO("i = " << i);
    REQUIRE(y[i] == static_cast<float>(2 * i + 1000 - i));
  }
  for (uint32_t i = n; i < n + sentinel_count; ++i) CHECK(y[i] == -1.0f);
}

namespace {

void check_ids(Device& device, uint32_t dimensions, const uint32_t grid[3], const uint16_t workgroup[3]) {
  const uint32_t total = grid[0] * grid[1] * grid[2];
  uint32_t* out = device.allocate<uint32_t>(size_t{total} * XGPU_TEST_IDS_FIELDS);
  std::memset(out, 0xff, size_t{total} * XGPU_TEST_IDS_FIELDS * sizeof(uint32_t));
  ids_args_t args = {out, 0};
  device.run({"ids", &args, sizeof(args), dimensions, {grid[0], grid[1], grid[2]},
              {workgroup[0], workgroup[1], workgroup[2]}});
  uint32_t counts[3];
  for (int d = 0; d < 3; ++d) counts[d] = (grid[d] + workgroup[d] - 1) / workgroup[d];
  for (uint32_t z = 0; z < grid[2]; ++z) {
    for (uint32_t y = 0; y < grid[1]; ++y) {
      for (uint32_t x = 0; x < grid[0]; ++x) {
        const uint32_t* r = out + ((size_t{z} * grid[1] + y) * grid[0] + x) * XGPU_TEST_IDS_FIELDS;
        INFO("item " << x << "," << y << "," << z);
        const uint32_t id[3] = {x, y, z};
        uint32_t local[3], group[3], items[3];
        for (int d = 0; d < 3; ++d) {
          local[d] = id[d] % workgroup[d];
          group[d] = id[d] / workgroup[d];
          const uint32_t left = grid[d] - group[d] * workgroup[d];
          items[d] = left < workgroup[d] ? left : workgroup[d];
        }
        REQUIRE(r[0] == x);
        REQUIRE(r[1] == y);
        REQUIRE(r[2] == z);
        REQUIRE(r[3] == (local[2] * workgroup[1] + local[1]) * workgroup[0] + local[0]);
        REQUIRE(r[4] == (group[2] * counts[1] + group[1]) * counts[0] + group[0]);
        REQUIRE(r[5] == items[0] * items[1] * items[2]);
        REQUIRE(r[6] == counts[0] * counts[1] * counts[2]);
        REQUIRE(r[7] == uint32_t{workgroup[0]} * workgroup[1] * workgroup[2]);
      }
    }
  }
}

}  // namespace

TEST_CASE("2D and 3D ids with partial workgroups in every dimension") {
  Device device;
  SUBCASE("2D") {
    const uint32_t grid[3] = {37, 23, 1};
    const uint16_t workgroup[3] = {8, 4, 1};
    check_ids(device, 2, grid, workgroup);
  }
  SUBCASE("3D") {
    const uint32_t grid[3] = {9, 7, 5};
    const uint16_t workgroup[3] = {4, 2, 3};
    check_ids(device, 3, grid, workgroup);
  }
}

TEST_CASE("ids are exact when the workers run batches of workgroups as runs along x (1-, 2- and 3-D, partial edges)") {
  // Enough workgroups that every batch the pool hands out holds many, so
  // runs start and end inside rows and at the partial last workgroup.
  Device device;
  SUBCASE("1D") {
    const uint32_t grid[3] = {5003, 1, 1};
    const uint16_t workgroup[3] = {7, 1, 1};
    check_ids(device, 1, grid, workgroup);
  }
  SUBCASE("2D") {
    const uint32_t grid[3] = {301, 67, 1};
    const uint16_t workgroup[3] = {8, 4, 1};
    check_ids(device, 2, grid, workgroup);
  }
  SUBCASE("3D") {
    const uint32_t grid[3] = {45, 13, 11};
    const uint16_t workgroup[3] = {4, 2, 3};
    check_ids(device, 3, grid, workgroup);
  }
}

TEST_CASE("a kernel without barriers runs exactly the run of workgroups it is given") {
  Device device;
  // Kernels without barriers take runs; barrier kernels too when they run
  // as work-item loops (the pass loops over the run), as fibers one
  // workgroup.
  CHECK((device.descriptor("ids")->flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) != 0);
  CHECK((device.descriptor("saxpy")->flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) != 0);
  const uint32_t reduce_flags = device.descriptor("reduce")->flags;
  CHECK((reduce_flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) ==
        ((reduce_flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS) ? XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS : 0u));
  const xgpu_host_kernel_descriptor_t* kd = device.descriptor("ids");
  // 2-D grid of 37 x 5 items in 4 x 2 workgroups: 10 x 3 workgroups, the
  // last of each row 1 item wide and the last row 1 item high. Row 2 (one
  // item high) runs workgroup after workgroup; row 1 (two items high)
  // interleaves the run's workgroups row by row.
  const uint32_t grid[3] = {37, 5, 1};
  const uint32_t size[3] = {4, 2, 1};
  const uint32_t total = grid[0] * grid[1];
  std::vector<uint32_t> out(size_t{total} * XGPU_TEST_IDS_FIELDS, 0xffffffffu);
  const ids_args_t args = {out.data(), 0};
  for (const uint32_t row : {1u, 2u}) {
    for (const uint32_t run : {0u, 1u, 4u}) {
      CAPTURE(row);
      CAPTURE(run);
      std::fill(out.begin(), out.end(), 0xffffffffu);
      // Workgroups (6 .. 6 + max(run, 1) - 1, row).
      xgpu_host_workgroup_t wg{};
      const uint32_t first = 6;
      const uint32_t high = row == 2 ? 1 : 2;
      wg.workgroup_id[0] = first;
      wg.workgroup_id[1] = row;
      for (int d = 0; d < 3; ++d) {
        wg.workgroup_size[d] = size[d];
        wg.grid_size[d] = grid[d];
        wg.workgroup_count[d] = (grid[d] + size[d] - 1) / size[d];
      }
      wg.item_count[0] = 4;
      wg.item_count[1] = high;
      wg.item_count[2] = 1;
      wg.dimensions = 2;
      wg.workgroup_run = run;
      kd->run_workgroup(&args, &wg);
      const uint32_t last = first + (run > 1 ? run : 1) - 1;
      CHECK(wg.workgroup_id[1] == row);
      if (high == 1 || run <= 1) {
        // One after another: `wg` names the last workgroup, the partial one
        // for a run of 4.
        CHECK(wg.workgroup_id[0] == last);
        CHECK(wg.workgroup_run == 1);
        CHECK(wg.item_count[0] == (last == 9 ? 1u : 4u));
      } else {
        // Interleaved: `wg` still names the whole run.
        CHECK(wg.workgroup_id[0] == first);
        CHECK(wg.workgroup_run == run);
      }
      for (uint32_t y = 0; y < grid[1]; ++y) {
        for (uint32_t x = 0; x < grid[0]; ++x) {
          INFO("item " << x << "," << y);
          const uint32_t* r = out.data() + (size_t{y} * grid[0] + x) * XGPU_TEST_IDS_FIELDS;
          const bool in_run = y / size[1] == row && x / size[0] >= first && x / size[0] <= last;
          if (!in_run) {
            REQUIRE(r[0] == 0xffffffffu);
            continue;
          }
          REQUIRE(r[0] == x);
          REQUIRE(r[1] == y);
          REQUIRE(r[2] == 0);
          REQUIRE(r[3] == (y % size[1]) * size[0] + x % size[0]);
          REQUIRE(r[4] == row * 10 + x / size[0]);
          REQUIRE(r[5] == (x / size[0] == 9 ? 1u : 4u) * high);
          REQUIRE(r[6] == 30);
          REQUIRE(r[7] == 8);
        }
      }
    }
  }
}

TEST_CASE("atomics across workgroups") {
  Device device;
  // Workgroups only contend when they run on different threads at once.
  REQUIRE(device.compute_units() >= 2);
  constexpr uint32_t n = 1u << 18, bin_count = 17;  // 2048 workgroups
  uint32_t* values = device.allocate<uint32_t>(n);
  uint32_t* bins = device.allocate<uint32_t>(bin_count);
  uint32_t* summary = device.allocate<uint32_t>(2);
  std::vector<uint32_t> expected_bins(bin_count, 0);
  uint32_t expected_sum = 0, expected_max = 0;
  for (uint32_t i = 0; i < n; ++i) {
    values[i] = (i * 7919u) % 1009u;
    ++expected_bins[values[i] % bin_count];
    expected_sum += values[i];
    expected_max = values[i] > expected_max ? values[i] : expected_max;
  }
  std::memset(bins, 0, bin_count * sizeof(uint32_t));
  summary[0] = summary[1] = 0;
  histogram_args_t args = {values, bins, summary, n, bin_count};
  device.run({"histogram", &args, sizeof(args), 1, {n, 1, 1}, {128, 1, 1}});
  for (uint32_t b = 0; b < bin_count; ++b) CHECK(bins[b] == expected_bins[b]);
  CHECK(summary[0] == expected_sum);
  CHECK(summary[1] == expected_max);
}

TEST_CASE("workgroup reduction with groupshared memory and barriers matches the CPU reference") {
  Device device;
  constexpr uint32_t n = 5000, workgroup = 256;  // 19 full workgroups + one of 136
  constexpr uint32_t groups = (n + workgroup - 1) / workgroup;
  float* in = device.allocate<float>(n);
  float* out = device.allocate<float>(groups);
  std::vector<float> expected(groups, 0.0f);
  for (uint32_t i = 0; i < n; ++i) {
    in[i] = static_cast<float>((i * 37u) % 101u);  // integers: every sum is exact
    expected[i / workgroup] += in[i];
  }
  reduce_args_t args = {in, out, n};
  device.run({"reduce", &args, sizeof(args), 1, {n, 1, 1}, {workgroup, 1, 1}});
  for (uint32_t g = 0; g < groups; ++g) {
    INFO("workgroup " << g);
    CHECK(out[g] == expected[g]);
  }
}

TEST_CASE("workgroup inclusive scan with barriers and dynamic group memory") {
  Device device;
  constexpr uint32_t n = 1000, workgroup = 128;  // 7 full workgroups + one of 104
  constexpr uint32_t groups = (n + workgroup - 1) / workgroup;
  uint32_t* in = device.allocate<uint32_t>(n);
  uint32_t* out = device.allocate<uint32_t>(n);
  uint32_t* totals = device.allocate<uint32_t>(groups);
  uint32_t* echo = device.allocate<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = (i * 13u) % 29u + 1u;
  scan_args_t args = {in, out, totals, echo, n, 0};
  device.run({"scan", &args, sizeof(args), 1, {n, 1, 1}, {workgroup, 1, 1}, workgroup * sizeof(uint32_t)});
  for (uint32_t g = 0; g < groups; ++g) {
    const uint32_t first = g * workgroup;
    const uint32_t items = n - first < workgroup ? n - first : workgroup;
    uint32_t sum = 0;
    for (uint32_t l = 0; l < items; ++l) {
      sum += in[first + l];
      INFO("workgroup " << g << " item " << l);
      REQUIRE(out[first + l] == sum);
      REQUIRE(echo[first + l] == in[first + (l + 1) % items]);
    }
    CHECK(totals[g] == sum);
  }
}

TEST_CASE("a kernel with a fixed workgroup size") {
  Device device;
  constexpr uint32_t n = 200;
  uint32_t* out = device.allocate<uint32_t>(n);
  fill_args_t args = {out, 1000, n};
  device.run({"fill", &args, sizeof(args), 1, {n, 1, 1}, {XGPU_TEST_FILL_WORKGROUP, 1, 1}});
  for (uint32_t i = 0; i < n; ++i) REQUIRE(out[i] == 1000 + i % XGPU_TEST_FILL_WORKGROUP);
}

TEST_CASE("workgroup-scope atomics on groupshared memory") {
  Device device;
  const uint32_t grid[3] = {20, 6, 1};
  const uint16_t workgroup[3] = {8, 4, 1};  // 3x2 workgroups, partial in x and y
  uint32_t* out = device.allocate<uint32_t>(3 * 6);
  group_atomics_args_t args = {out, 0};
  device.run({"group_atomics", &args, sizeof(args), 2, {grid[0], grid[1], 1}, {workgroup[0], workgroup[1], 1}});
  for (uint32_t gy = 0; gy < 2; ++gy) {
    for (uint32_t gx = 0; gx < 3; ++gx) {
      const uint32_t nx = gx < 2 ? 8 : 4, ny = gy < 1 ? 4 : 2;
      uint32_t max_plus_one = 0, bits = 0;
      for (uint32_t y = 0; y < ny; ++y) {
        for (uint32_t x = 0; x < nx; ++x) {
          const uint32_t lid = y * workgroup[0] + x;
          max_plus_one = lid + 1 > max_plus_one ? lid + 1 : max_plus_one;
          bits ^= lid;
        }
      }
      const uint32_t* r = out + 3 * (gy * 3 + gx);
      INFO("workgroup " << gx << "," << gy);
      CHECK(r[0] == nx * ny);
      CHECK(r[1] == max_plus_one);
      CHECK(r[2] == bits);
    }
  }
}

TEST_CASE("every host level the agent supports runs a loop-mode and a fiber-mode kernel") {
  std::vector<std::string> levels;
  {
    Device device;
    for (const std::string& isa : device.isas()) levels.push_back(isa);
  }
  std::vector<uint8_t> bytes;
  {
    std::ifstream in(XGPU_TEST_KERNELS_FILE, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  int ran = 0;
  for (const std::string& isa : levels) {
    if (!executable.find(isa)) continue;
    INFO(isa);
    Device device(isa);
    REQUIRE(device.entry().isa_name == isa);
    constexpr uint32_t n = 300;
    float* x = device.allocate<float>(n);
    float* y = device.allocate<float>(n);
    float* sums = device.allocate<float>(2);
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i);
      y[i] = 1.0f;
    }
    saxpy_args_t saxpy = {x, y, 3.0f, n};
    device.run({"saxpy", &saxpy, sizeof(saxpy), 1, {n, 1, 1}, {256, 1, 1}});
    for (uint32_t i = 0; i < n; ++i) REQUIRE(y[i] == static_cast<float>(3 * i + 1));
    reduce_args_t reduce = {y, sums, n};
    device.run({"reduce", &reduce, sizeof(reduce), 1, {n, 1, 1}, {256, 1, 1}});
    float expected[2] = {0, 0};
    for (uint32_t i = 0; i < n; ++i) expected[i / 256] += y[i];
    CHECK(sums[0] == expected[0]);
    CHECK(sums[1] == expected[1]);
    ++ran;
  }
  CHECK(ran >= 1);
}

namespace {

// Every host level of a test executable (the basic kernels' by default)
// that the agent runs.
std::vector<std::string> runnable_host_levels(const char* file = XGPU_TEST_KERNELS_FILE) {
  std::vector<std::string> levels;
  {
    Device device;
    for (const std::string& isa : device.isas()) levels.push_back(isa);
  }
  std::vector<uint8_t> bytes;
  std::ifstream in(file, std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  std::vector<std::string> found;
  for (const std::string& isa : levels)
    if (executable.find(isa)) found.push_back(isa);
  return found;
}

}  // namespace

// The host build versions each item loop on its bounds checks holding for
// every item (a guard-free copy) and otherwise splits the checked loop into
// the items before the range where they hold, that range without them, and
// the items after (runs of workgroups make rows as wide as the grid, edges
// included): ragged sizes, rows whose index wraps around 2^32 inside a
// workgroup, n = 0, stencils whose rows hold both edges.
TEST_CASE("bounds-checked kernels match the C reference at every host level (ragged, wrapping, empty)") {
  const std::vector<std::string> levels = runnable_host_levels();
  REQUIRE(!levels.empty());
  struct RowsCase {
    uint32_t n, row, offset, grid_x, grid_y;
    uint16_t workgroup_x, workgroup_y;
  };
  const RowsCase rows_cases[] = {
      {1000, 1000, 0, 1000, 1, 64, 1},             // 1-D, partial last workgroup
      {997, 256, 0, 256, 4, 64, 1},                // 2-D rows, n ends inside a workgroup
      {997, 256, 0, 256, 4, 32, 2},                // 2-D workgroups
      {1000, 300, 0, 300, 4, 128, 1},              // rows longer than n / 4: the last row is partial
      {0, 256, 0, 256, 2, 64, 1},                  // n = 0: nothing is written
      {1000, 0xfffffe00u, 500, 300, 2, 64, 1},     // row 1 starts at -12: wraps inside its first workgroup
      {700, 1000, 0xffffffc0u, 777, 1, 256, 1},    // the first 64 items' indices wrap past 2^32
      {1, 1, 0, 5, 5, 3, 3},                       // one element
  };
  struct StencilCase {
    uint32_t w, h, grid_x, grid_y;
    uint16_t workgroup_x, workgroup_y;
  };
  const StencilCase stencil_cases[] = {
      {37, 29, 40, 30, 16, 4},      // ragged: no dimension a multiple of the workgroup, the grid overhangs
      {1000, 7, 1000, 7, 16, 4},    // rows of a run hold the first and the last column
      {64, 64, 64, 64, 8, 8},       // whole workgroups, both edges in every run
      {3, 3, 3, 3, 1, 1},           // one inner item
      {2, 5, 9, 5, 4, 1},           // no inner column at all
  };
  for (const std::string& isa : levels) {
    INFO(isa);
    Device device(isa);
    for (const RowsCase& rc : rows_cases) {
      INFO("n " << rc.n << " row " << rc.row << " offset " << rc.offset << " grid " << rc.grid_x << "x" << rc.grid_y
                << " workgroup " << rc.workgroup_x << "x" << rc.workgroup_y);
      const uint32_t size = rc.n + 64;  // sentinels past n
      float* x = device.allocate<float>(size);
      float* y = device.allocate<float>(size);
      float* out = device.allocate<float>(size);
      for (uint32_t i = 0; i < size; ++i) {
        x[i] = static_cast<float>(i % 1024);
        y[i] = static_cast<float>(i % 7);
        out[i] = -1.0f;
      }
      guarded_rows_args_t args = {x, y, out, 2.0f, rc.n, rc.row, rc.offset};
      device.run({"guarded_rows", &args, sizeof(args), 2, {rc.grid_x, rc.grid_y, 1},
                  {rc.workgroup_x, rc.workgroup_y, 1}});
      std::vector<float> expected(size, -1.0f);
      for (uint32_t gy = 0; gy < rc.grid_y; ++gy)
        for (uint32_t gx = 0; gx < rc.grid_x; ++gx) {
          const uint32_t i = gy * rc.row + gx + rc.offset;
          if (i < rc.n) expected[i] = 2.0f * x[i] + y[i];
        }
      for (uint32_t i = 0; i < size; ++i) {
        INFO("i = " << i);
        REQUIRE(out[i] == expected[i]);
      }
    }
    for (const StencilCase& sc : stencil_cases) {
      const uint32_t w = sc.w, h = sc.h;
      INFO("stencil " << w << "x" << h << " grid " << sc.grid_x << "x" << sc.grid_y << " workgroup "
                      << sc.workgroup_x << "x" << sc.workgroup_y);
      float* in = device.allocate<float>(w * h);
      float* out = device.allocate<float>(w * h);
      for (uint32_t i = 0; i < w * h; ++i) {
        in[i] = static_cast<float>((i * 37u) % 101u);
        out[i] = -1.0f;
      }
      guarded_stencil_args_t stencil = {in, out, w, h};
      device.run({"guarded_stencil", &stencil, sizeof(stencil), 2, {sc.grid_x, sc.grid_y, 1},
                  {sc.workgroup_x, sc.workgroup_y, 1}});
      for (uint32_t gy = 0; gy < h; ++gy)
        for (uint32_t gx = 0; gx < w; ++gx) {
          const uint32_t i = gy * w + gx;
          const float expected = gx > 0 && gx < w - 1 && gy > 0 && gy < h - 1
                                     ? 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w])
                                     : in[i];
          INFO("x " << gx << " y " << gy);
          REQUIRE(out[i] == expected);
        }
    }
  }
}

TEST_CASE("a kernel with barriers and a fixed workgroup size reverses each workgroup through dynamic group memory") {
  Device device;
  constexpr uint32_t n = 300, workgroup = XGPU_TEST_REVERSE_WORKGROUP;  // 4 full workgroups + one of 44
  uint32_t* in = device.allocate<uint32_t>(n);
  uint32_t* out = device.allocate<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 3u + 7u;
  reverse_args_t args = {in, out, n, 0};
  device.run({"reverse", &args, sizeof(args), 1, {n, 1, 1}, {workgroup, 1, 1}, workgroup * sizeof(uint32_t)});
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t first = i / workgroup * workgroup;
    const uint32_t items = std::min(workgroup, n - first);
    INFO("i = " << i);
    REQUIRE(out[i] == in[first + items - 1 - (i - first)]);
  }
}

TEST_CASE("a C++ kernel (templates, constexpr) matches the CPU reference") {
  Device device;
  constexpr uint32_t n = 777;
  float* in = device.allocate<float>(n);
  float* out = device.allocate<float>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = static_cast<float>(static_cast<int32_t>(i) - 400) / 16.0f;
  poly_clamp_args_t args = {in, out, 0.5f, -2.0f, 1.0f, -3.0f, 100.0f, n};
  device.run({"poly_clamp", &args, sizeof(args), 1, {n, 1, 1}, {128, 1, 1}});
  for (uint32_t i = 0; i < n; ++i) {
    // Exact: x is a multiple of 1/16 in [-25, 24.25], so every product and
    // sum is representable (no rounding, no contraction differences).
    const float x = in[i];
    const float expected = std::clamp((0.5f * x + -2.0f) * x + 1.0f, -3.0f, 100.0f);
    INFO("i = " << i << ", x = " << x);
    REQUIRE(out[i] == expected);
  }
}

TEST_CASE("a C++ kernel with groupshared memory, barriers and a fixed 2D workgroup size matches the CPU reference") {
  Device device;
  constexpr uint32_t width = 45, height = 21, tile = XGPU_TEST_TILE;  // partial tiles in x and y
  constexpr uint32_t tiles_x = (width + tile - 1) / tile, tiles_y = (height + tile - 1) / tile;
  uint32_t* in = device.allocate<uint32_t>(width * height);
  uint32_t* out = device.allocate<uint32_t>(tiles_x * tiles_y);
  for (uint32_t i = 0; i < width * height; ++i) in[i] = (i * 2654435761u) >> 8;
  std::memset(out, 0, tiles_x * tiles_y * sizeof(uint32_t));
  tile_max_args_t args = {in, out, width, height};
  device.run({"tile_max", &args, sizeof(args), 2, {width, height, 1}, {tile, tile, 1}});
  for (uint32_t ty = 0; ty < tiles_y; ++ty) {
    for (uint32_t tx = 0; tx < tiles_x; ++tx) {
      uint32_t expected = 0;
      for (uint32_t y = ty * tile; y < std::min(height, ty * tile + tile); ++y) {
        for (uint32_t x = tx * tile; x < std::min(width, tx * tile + tile); ++x) {
          expected = std::max(expected, in[y * width + x]);
        }
      }
      INFO("tile " << tx << "," << ty);
      CHECK(out[ty * tiles_x + tx] == expected);
    }
  }
}

// --- Work-item loops (tools/xgpu-wiloop); kernels.run.fibers runs the same
// cases with HSA_CPU_BARRIER_MODE=fibers, so both modes match the references.

namespace {

// The carry kernel for one grid, computed a workgroup at a time.
std::vector<uint32_t> carry_reference(const uint32_t* in, uint32_t n, uint32_t grid, uint32_t workgroup,
                                      uint32_t rounds) {
  std::vector<uint32_t> out(n, 0);
  for (uint32_t first = 0; first < grid; first += workgroup) {
    const uint32_t items = grid - first < workgroup ? grid - first : workgroup;
    std::vector<uint32_t> value(items), ring(items);
    std::vector<std::array<uint32_t, 4>> history(items);
    for (uint32_t l = 0; l < items; ++l) {
      value[l] = first + l < n ? in[first + l] : 0u;
      for (uint32_t k = 0; k < 4; ++k) history[l][k] = value[l] + k;
    }
    for (uint32_t r = 0; r < rounds; ++r) {
      ring = value;
      for (uint32_t l = 0; l < items; ++l) {
        value[l] = value[l] * 3u + ring[(l + 1) % items] + history[l][r % 4];
        history[l][r % 4] ^= value[l];
      }
    }
    if (rounds % 2 == 1) {
      ring = value;
      for (uint32_t l = 0; l < items; ++l) value[l] += ring[items - 1 - l];
    }
    for (uint32_t l = 0; l < items; ++l)
      if (first + l < n) out[first + l] = value[l] + history[l][0] + history[l][3];
  }
  return out;
}

}  // namespace

TEST_CASE("work-item loops: values and private arrays live across barriers in loops and conditionals") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t n = 1000;
  uint32_t* in = device.allocate<uint32_t>(n);
  uint32_t* out = device.allocate<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 2654435761u;
  struct Case {
    uint32_t grid, workgroup, rounds;
  };
  // Partial last workgroups, items past n that still reach every barrier,
  // no rounds, an even and an odd count (the conditional barrier).
  for (const Case c : {Case{1000, 128, 5}, Case{1024, 64, 4}, Case{1003, 100, 0}, Case{1000, 1, 3}, Case{1000, 1000, 7}}) {
    INFO("grid " << c.grid << " workgroup " << c.workgroup << " rounds " << c.rounds);
    std::fill(out, out + n, 0u);
    carry_args_t args = {in, out, n, c.rounds};
    device.run({"carry", &args, sizeof(args), 1, {c.grid, 1, 1}, {uint16_t(c.workgroup), 1, 1},
                uint32_t(c.workgroup * sizeof(uint32_t))});
    const std::vector<uint32_t> expected = carry_reference(in, n, c.grid, c.workgroup, c.rounds);
    for (uint32_t i = 0; i < n; ++i) {
      INFO("item " << i);
      REQUIRE(out[i] == expected[i]);
    }
  }
}

TEST_CASE("work-item loops: items that return before a barrier count as arrived") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t n = 777, workgroup = 64, groups = (n + workgroup - 1) / workgroup;
  uint32_t* in = device.allocate<uint32_t>(n);
  uint32_t* out = device.allocate<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = (i * 7u) % 1000u;
  carry_args_t args = {in, out, n, 11};
  device.run({"tail_return", &args, sizeof(args), 1, {groups * workgroup, 1, 1}, {workgroup, 1, 1},
              workgroup * sizeof(uint32_t)});
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t first = i / workgroup * workgroup;
    const uint32_t count = n - first < workgroup ? n - first : workgroup;
    const uint32_t mirror = first + count - 1 - (i - first);
    INFO("item " << i);
    REQUIRE(out[i] == (in[i] + 11) * 2 + in[mirror] + 11);
  }
}

TEST_CASE("work-item loops: 1-, 2- and 3-D workgroups with partial workgroups and groupshared memory") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  struct Case {
    uint32_t dimensions, grid[3];
    uint16_t workgroup[3];
  };
  for (const Case c : {Case{1, {1000, 1, 1}, {256, 1, 1}}, Case{2, {37, 21, 1}, {16, 8, 1}},
                       Case{3, {13, 7, 6}, {4, 4, 2}}, Case{3, {9, 10, 11}, {8, 4, 8}}}) {
    INFO("dimensions " << c.dimensions << " grid " << c.grid[0] << "x" << c.grid[1] << "x" << c.grid[2]);
    const uint32_t total = c.grid[0] * c.grid[1] * c.grid[2];
    uint32_t* out = device.allocate<uint32_t>(total);
    std::fill(out, out + total, 0xdeadbeefu);
    grid_reverse_args_t args = {out};
    device.run({"grid_reverse", &args, sizeof(args), c.dimensions, {c.grid[0], c.grid[1], c.grid[2]},
                {c.workgroup[0], c.workgroup[1], c.workgroup[2]}});
    for (uint32_t gz = 0; gz < c.grid[2]; ++gz)
      for (uint32_t gy = 0; gy < c.grid[1]; ++gy)
        for (uint32_t gx = 0; gx < c.grid[0]; ++gx) {
          const uint32_t g[3] = {gx, gy, gz};
          uint32_t first[3], count[3], local[3];
          for (int d = 0; d < 3; ++d) {
            first[d] = g[d] / c.workgroup[d] * c.workgroup[d];
            count[d] = std::min<uint32_t>(c.workgroup[d], c.grid[d] - first[d]);
            local[d] = g[d] - first[d];
          }
          const uint32_t linear = (local[2] * count[1] + local[1]) * count[0] + local[0];
          uint32_t mirror = count[0] * count[1] * count[2] - 1 - linear;
          uint32_t m[3];
          m[0] = mirror % count[0];
          mirror /= count[0];
          m[1] = mirror % count[1];
          m[2] = mirror / count[1];
          const uint32_t expected = ((first[2] + m[2]) * c.grid[1] + first[1] + m[1]) * c.grid[0] + first[0] + m[0];
          INFO("item " << gx << "," << gy << "," << gz);
          REQUIRE(out[(gz * c.grid[1] + gy) * c.grid[0] + gx] == expected);
        }
  }
}

TEST_CASE("work-item loops: regions that only the first items of each row run (tree steps)") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  struct Case {
    uint32_t grid[3];
    uint16_t workgroup[3];
  };
  // Rows longer and shorter than every constant (partial workgroups of 3
  // and 1 columns), one row and several. A 1-D workgroup at least as wide
  // as a region's constant runs that region's loop with the constant trip
  // count, a narrower one (or one of several rows) the loop up to its
  // width: 1-D rows as wide as every constant (64, and 48 with a ragged
  // last workgroup of 8 items), rows between the constants (7: wider than
  // 5 and 3, narrower than 10 and 40), 2-D and 3-D workgroups.
  for (const Case c : {Case{{64, 1, 1}, {16, 1, 1}}, Case{{35, 6, 1}, {16, 4, 1}}, Case{{19, 5, 1}, {8, 2, 1}},
                       Case{{5, 3, 1}, {1, 3, 1}}, Case{{40, 2, 1}, {40, 2, 1}}, Case{{128, 1, 1}, {64, 1, 1}},
                       Case{{200, 1, 1}, {48, 1, 1}}, Case{{23, 1, 1}, {7, 1, 1}}, Case{{20, 3, 2}, {8, 3, 2}},
                       Case{{90, 2, 3}, {45, 1, 3}}, Case{{41, 1, 1}, {41, 1, 1}}}) {
    INFO("grid " << c.grid[0] << "x" << c.grid[1] << "x" << c.grid[2] << " workgroup " << c.workgroup[0] << "x"
                 << c.workgroup[1] << "x" << c.workgroup[2]);
    const uint32_t total = c.grid[0] * c.grid[1] * c.grid[2], n = total - 3;
    uint32_t* in = device.allocate<uint32_t>(total);
    uint32_t* out = device.allocate<uint32_t>(total);
    for (uint32_t i = 0; i < total; ++i) in[i] = i * 2654435761u >> 7;
    std::fill(out, out + total, 0xdeadbeefu);
    carry_args_t args = {in, out, n, 0};
    device.run({"x_ranges", &args, sizeof(args), c.grid[2] > 1 ? 3u : 2u, {c.grid[0], c.grid[1], c.grid[2]},
                {c.workgroup[0], c.workgroup[1], c.workgroup[2]},
                uint32_t(c.workgroup[0] * c.workgroup[1] * c.workgroup[2] * sizeof(uint32_t))});
    for (uint32_t gz = 0; gz < c.grid[2]; ++gz)
      for (uint32_t gy = 0; gy < c.grid[1]; ++gy)
        for (uint32_t first = 0; first < c.grid[0]; first += c.workgroup[0]) {
          const uint32_t columns = std::min<uint32_t>(c.workgroup[0], c.grid[0] - first);
          const uint32_t base = (gz * c.grid[1] + gy) * c.grid[0] + first;
          std::vector<uint32_t> v(columns);
          for (uint32_t x = 0; x < columns; ++x) {
            const uint32_t g = base + x;
            v[x] = g < n ? in[g] : 0u;
            if (x < 5) v[x] += 100u;
            if (x < 40) v[x] -= v[x] >> 3;
            if (x <= 6) v[x] *= 3u;
            if (x <= 9) v[x] ^= 0x55u;
            if (x < 3) v[x] += 7u;
          }
          uint32_t sum = 0;
          for (uint32_t x = 0; x < columns; ++x) sum += v[x];
          v[0] = sum;
          for (uint32_t x = 0; x < columns; ++x) {
            const uint32_t g = base + x;
            INFO("item " << first + x << "," << gy << "," << gz);
            REQUIRE(out[g] == (g < n ? v[x] : 0xdeadbeefu));
          }
        }
  }
}

TEST_CASE("work-item loops: groupshared bins kept across a run's workgroups count what each workgroup's would") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  struct Case {
    uint32_t grid[2];
    uint16_t width;
    uint32_t n;
  };
  // Long runs of full workgroups (the bins kept across the run), a ragged
  // last workgroup (its run keeps them per workgroup), items past n, a 2-D
  // grid of one-row workgroups, narrower workgroups, one-item workgroups.
  // (The test's 4 workers split a dispatch into 40 batches: 160 workgroups
  // make runs of 4. Fiber mode, where each item is a fiber, keeps the sizes
  // small.)
  const Case cases[] = {{{64 * 160, 1}, 64, 64 * 160},      {{64 * 120 + 13, 1}, 64, 64 * 120 + 13},
                        {{64 * 150, 1}, 64, 64 * 140 + 5},  {{64 * 40, 3}, 64, 64 * 40 * 3 - 100},
                        {{32 * 200 + 31, 1}, 32, 32 * 200}, {{400, 2}, 1, 700}};
  for (const char* kernel : {"run_bins", "run_bins_over", "run_bins_counted"}) {
    const bool over = std::string(kernel) == "run_bins_over";
    const bool counted = std::string(kernel) == "run_bins_counted";
    for (const Case& c : cases) {
      for (uint32_t weight : {2u}) {
        INFO(kernel << " grid " << c.grid[0] << "x" << c.grid[1] << " width " << c.width << " n " << c.n
                    << " weight " << weight);
        const uint32_t total = c.grid[0] * c.grid[1];
        uint32_t* in = device.allocate<uint32_t>(total);
        uint32_t* out = device.allocate<uint32_t>(XGPU_TEST_RUN_BINS);
        for (uint32_t i = 0; i < total; ++i) in[i] = (i * 2654435761u) >> 11;
        std::fill(out, out + XGPU_TEST_RUN_BINS, 0u);
        run_bins_args_t args = {in, out, c.n, weight};
        device.run({kernel, &args, sizeof(args), 2, {c.grid[0], c.grid[1], 1}, {c.width, 1, 1}, 0});
        std::vector<uint32_t> expected(XGPU_TEST_RUN_BINS);
        for (uint32_t y = 0; y < c.grid[1]; ++y)
          for (uint32_t first = 0; first < c.grid[0]; first += c.width) {
            const uint32_t items = std::min<uint32_t>(c.width, c.grid[0] - first);
            std::vector<uint32_t> bins(items);
            for (uint32_t x = 0; x < items; ++x) {
              const uint32_t g = y * c.grid[0] + first + x;
              if (g < c.n) bins[in[g] % items] += weight;
            }
            for (uint32_t b = 0; b < items; ++b) expected[b] += over ? (bins[b] > weight ? 1u : 0u) : bins[b];
            if (counted) expected[XGPU_TEST_RUN_BINS - 1] += 1000u * items;
          }
        for (uint32_t b = 0; b < XGPU_TEST_RUN_BINS; ++b) {
          INFO("bin " << b);
          REQUIRE(out[b] == expected[b]);
        }
      }
    }
  }
}

TEST_CASE("work-item loops: a kernel of a required size runs its full workgroups on the sized path (every host level)") {
  const std::vector<std::string> levels = runnable_host_levels();
  REQUIRE(!levels.empty());
  for (const std::string& isa : levels) {
    INFO(isa);
    Device device(isa, XGPU_TEST_WILOOP_KERNELS_FILE);
    constexpr uint32_t W = XGPU_TEST_SIZED_WORKGROUP;
    struct Case {
      uint32_t grid;
      uint32_t n;
      bool dynamic;  // dynamic group memory given (and used): never the sized path
    };
    // Full workgroups only (the sized path), items past n in full workgroups
    // (its bounds checks), a ragged last workgroup (the general loops for
    // it), one workgroup, dynamic group memory.
    for (const Case c : {Case{8 * W, 8 * W, false}, Case{8 * W, 8 * W - 13, false}, Case{5 * W + 19, 5 * W + 19, false},
                         Case{W, W, false}, Case{3 * W + 7, 3 * W, true}, Case{4 * W, 4 * W, true}}) {
      INFO("grid " << c.grid << " n " << c.n << (c.dynamic ? " with dynamic group memory" : ""));
      uint32_t* in = device.allocate<uint32_t>(c.grid);
      uint32_t* out = device.allocate<uint32_t>(c.grid);
      for (uint32_t i = 0; i < c.grid; ++i) in[i] = i * 2654435761u >> 9;
      std::fill(out, out + c.grid, 0xdeadbeefu);
      sized_tree_args_t args = {in, out, c.n, c.dynamic ? 1u : 0u};
      device.run({"sized_tree", &args, sizeof(args), 1, {c.grid, 1, 1}, {uint16_t(W), 1, 1},
                  c.dynamic ? uint32_t(W * sizeof(uint32_t)) : 0u});
      for (uint32_t first = 0; first < c.grid; first += W) {
        const uint32_t items = std::min(W, c.grid - first);
        std::vector<uint32_t> mine(items), scan(items);
        uint32_t sum = 0;
        for (uint32_t x = 0; x < items; ++x) {
          mine[x] = first + x < c.n ? in[first + x] : 0u;
          sum += mine[x];
        }
        for (uint32_t x = 0, running = 0; x < items; ++x) scan[x] = running += 3u * mine[x] + 1u;
        for (uint32_t x = 0; x < items; ++x) {
          const uint32_t g = first + x;
          const uint32_t back = c.dynamic ? mine[items - 1u - x] ^ 0x5a5au : 0u;
          INFO("item " << g);
          REQUIRE(out[g] == (g < c.n ? (scan[x] ^ (mine[x] << 1)) + sum + back : 0xdeadbeefu));
        }
      }
    }
  }
}

TEST_CASE("work-item loops: fused regions run in the order their group-memory accesses ask for") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  struct Case {
    uint32_t grid[3];
    uint16_t workgroup[3];
  };
  // One-row workgroups (the fused loops) as wide as every offset and
  // narrower than some (3, 1), ragged last workgroups, a 2-D grid of
  // one-row workgroups; 2-D and 3-D workgroups of several rows (separate
  // loops).
  const Case cases[] = {Case{{1000, 1, 1}, {64, 1, 1}}, Case{{1000, 1, 1}, {48, 1, 1}}, Case{{37, 1, 1}, {64, 1, 1}},
                        Case{{100, 1, 1}, {100, 1, 1}}, Case{{20, 1, 1}, {3, 1, 1}},  Case{{7, 1, 1}, {1, 1, 1}},
                        Case{{37, 9, 1}, {16, 1, 1}},   Case{{37, 9, 1}, {16, 4, 1}}, Case{{20, 3, 2}, {8, 3, 2}}};
  for (const char* kernel : {"fuse_scan", "fuse_up", "fuse_both", "fuse_global"}) {
    const std::string name = kernel;
    for (const Case& c : cases) {
      INFO(name << " grid " << c.grid[0] << "x" << c.grid[1] << "x" << c.grid[2] << " workgroup " << c.workgroup[0]
                << "x" << c.workgroup[1] << "x" << c.workgroup[2]);
      const uint32_t total = c.grid[0] * c.grid[1] * c.grid[2], n = total - 3;
      uint32_t* in = device.allocate<uint32_t>(total);
      uint32_t* out = device.allocate<uint32_t>(total);
      for (uint32_t i = 0; i < total; ++i) in[i] = i * 2654435761u >> 5;
      std::fill(out, out + total, 0xdeadbeefu);
      carry_args_t args = {in, out, n, 0};
      device.run({kernel, &args, sizeof(args), c.grid[2] > 1 ? 3u : 2u, {c.grid[0], c.grid[1], c.grid[2]},
                  {c.workgroup[0], c.workgroup[1], c.workgroup[2]}, uint32_t(c.workgroup[0] * sizeof(uint32_t))});
      std::vector<uint32_t> expected(total);
      for (uint32_t i = 0; i < total; ++i) expected[i] = i < n ? in[i] : 0xdeadbeefu;
      // The first row of every workgroup: its x range starts at `first`.
      for (uint32_t gz = 0; gz < c.grid[2]; gz += c.workgroup[2])
        for (uint32_t gy = 0; gy < c.grid[1]; gy += c.workgroup[1])
          for (uint32_t first = 0; first < c.grid[0]; first += c.workgroup[0]) {
            const uint32_t count = std::min<uint32_t>(c.workgroup[0], c.grid[0] - first);
            const uint32_t base = (gz * c.grid[1] + gy) * c.grid[0] + first;
            std::vector<uint32_t> v(count), step(count);
            for (uint32_t x = 0; x < count; ++x) v[x] = base + x < n ? in[base + x] : 0u;
            if (name == "fuse_scan") {
              for (uint32_t off = 1; off < 64; off *= 2) {
                for (uint32_t x = 0; x < count; ++x) step[x] = x >= off ? v[x - off] : 0u;
                for (uint32_t x = 0; x < count; ++x) v[x] += step[x];
              }
            } else if (name == "fuse_up") {
              for (uint32_t d = 1; d < 16; d = d * 2 + 1) {
                for (uint32_t x = 0; x < count; ++x) step[x] = x + d < count ? v[x + d] : 0u;
                for (uint32_t x = 0; x < count; ++x) v[x] = v[x] * 3u + step[x];
              }
            } else if (name == "fuse_both") {
              for (uint32_t k = 0; k < 3; ++k) {
                for (uint32_t x = 0; x < count; ++x)
                  step[x] = (x > 0 ? v[x - 1] : 0u) + (x + 1 < count ? v[x + 1] : 0u);
                for (uint32_t x = 0; x < count; ++x) v[x] = (v[x] ^ step[x]) + k;
              }
            } else {
              for (uint32_t off = 1; off < 8; off *= 2) {
                for (uint32_t x = 0; x < count; ++x) step[x] = x >= off ? v[x - off] : 0u;
                for (uint32_t x = 0; x < count; ++x) v[x] += base + x < n ? step[x] + off : step[x];
              }
            }
            for (uint32_t x = 0; x < count; ++x)
              if (base + x < n) expected[base + x] = v[x];
          }
      for (uint32_t i = 0; i < total; ++i) {
        INFO("item " << i);
        REQUIRE(out[i] == expected[i]);
      }
    }
  }
}

TEST_CASE("work-item loops: atomic adds to one address, aggregated per workgroup, hand out disjoint ranges") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  struct Case {
    uint32_t grid[2];
    uint16_t workgroup[2];
  };
  // Partial workgroups in both dimensions, one item per workgroup, items
  // past n that return at once.
  for (const Case c : {Case{{1000, 1}, {64, 1}}, Case{{37, 29}, {16, 4}}, Case{{300, 2}, {1, 1}},
                       Case{{1024, 1}, {1024, 1}}}) {
    INFO("grid " << c.grid[0] << "x" << c.grid[1] << " workgroup " << c.workgroup[0] << "x" << c.workgroup[1]);
    const uint32_t n = c.grid[0] * c.grid[1] - 5;
    uint32_t* in = device.allocate<uint32_t>(n);
    uint32_t* out = device.allocate<uint32_t>(n);
    uint32_t* starts = device.allocate<uint32_t>(3 * n);
    uint32_t* counters = device.allocate<uint32_t>(3);
    for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 9;
    std::fill(out, out + n, 0xffffffffu);
    std::fill(starts, starts + 3 * n, 0xffffffffu);
    std::fill(counters, counters + 3, 0u);
    append_args_t args = {in, out, starts, counters, n, c.grid[0]};
    device.run({"append", &args, sizeof(args), 2, {c.grid[0], c.grid[1], 1}, {c.workgroup[0], c.workgroup[1], 1}});
    std::vector<uint32_t> kept, expected_kept;
    uint32_t slots = 0, sum = 0;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // [start, start + size)
    for (uint32_t g = 0; g < n; ++g) {
      if (in[g] % 3u != 0u) expected_kept.push_back(g);
      for (uint32_t k = 0; k < in[g] % 4u; ++k) {
        slots += k + 1;
        ranges.emplace_back(starts[g * 3 + k], starts[g * 3 + k] + k + 1);
      }
      sum += in[g] % 5u;
    }
    REQUIRE(counters[0] == expected_kept.size());
    kept.assign(out, out + counters[0]);
    std::sort(kept.begin(), kept.end());
    CHECK(kept == expected_kept);
    REQUIRE(counters[1] == slots);
    CHECK(counters[2] == sum);
    // The ranges tile [0, slots) exactly: every add got its own old value.
    std::sort(ranges.begin(), ranges.end());
    uint32_t next = 0;
    for (const auto& [first, end] : ranges) {
      REQUIRE(first == next);
      next = end;
    }
    CHECK(next == slots);
  }
}

// Aggregated adds reached only through code without effects are counted in
// a first pass over the workgroup and handed out in a second (the item's code
// runs twice up to its add): ragged 2-D grids, 1-item and 1024-item
// workgroups, operands of 0 to 3, two adds on different paths, a loop before
// them and a store on a path that reaches neither. The same body with
// acq_rel adds (not aggregated: one atomic per item) must agree, at every
// host level.
TEST_CASE("work-item loops: aggregated adds counted before they run hand out the ranges one atomic per item does") {
  const std::vector<std::string> levels = runnable_host_levels(XGPU_TEST_WILOOP_KERNELS_FILE);
  REQUIRE(!levels.empty());
  struct Case {
    uint32_t grid[2];
    uint16_t workgroup[2];
  };
  for (const std::string& isa : levels) {
    INFO(isa);
    Device device(isa, XGPU_TEST_WILOOP_KERNELS_FILE);
    for (const Case c : {Case{{1000, 1}, {64, 1}}, Case{{37, 29}, {16, 4}}, Case{{300, 2}, {1, 1}},
                         Case{{1024, 1}, {1024, 1}}, Case{{4100, 1}, {1024, 1}}, Case{{7, 3}, {8, 8}}}) {
      INFO("grid " << c.grid[0] << "x" << c.grid[1] << " workgroup " << c.workgroup[0] << "x" << c.workgroup[1]);
      const uint32_t n = c.grid[0] * c.grid[1] - 5;
      uint32_t* in = device.allocate<uint32_t>(n);
      uint32_t* out = device.allocate<uint32_t>(3 * n);
      uint32_t* out2 = device.allocate<uint32_t>(n);
      uint32_t* side = device.allocate<uint32_t>(n);
      uint32_t* counters = device.allocate<uint32_t>(2);
      for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 9;
      // The C reference: what each item writes, in item order.
      std::vector<uint32_t> expected_out, expected_out2, expected_side(n, 0xffffffffu);
      std::vector<uint32_t> takes(n, 0);
      for (uint32_t g = 0; g < n; ++g) {
        const uint32_t v = in[g], h = recount_hash(v);
        if (h % 3u == 0u) {
          expected_side[g] = h;
        } else if (h & 4u) {
          takes[g] = v % 4u;
          for (uint32_t k = 0; k < v % 4u; ++k) expected_out.push_back(g);
        } else {
          expected_out2.push_back(g);
        }
      }
      std::sort(expected_out2.begin(), expected_out2.end());
      for (const char* kernel : {"recount", "recount_per_item"}) {
        INFO(kernel);
        std::fill(out, out + 3 * n, 0xffffffffu);
        std::fill(out2, out2 + n, 0xffffffffu);
        std::fill(side, side + n, 0xffffffffu);
        std::fill(counters, counters + 2, 0u);
        recount_args_t args = {in, out, out2, side, counters, n, c.grid[0]};
        device.run({kernel, &args, sizeof(args), 2, {c.grid[0], c.grid[1], 1}, {c.workgroup[0], c.workgroup[1], 1}});
        REQUIRE(counters[0] == expected_out.size());
        REQUIRE(counters[1] == expected_out2.size());
        CHECK(std::equal(side, side + n, expected_side.begin()));
        std::vector<uint32_t> kept2(out2, out2 + counters[1]);
        std::sort(kept2.begin(), kept2.end());
        CHECK(kept2 == expected_out2);
        CHECK(std::all_of(out2 + counters[1], out2 + n, [](uint32_t x) { return x == 0xffffffffu; }));
        // Each item's slots are one contiguous range of its own: walking
        // out, every run of one g is as long as that item's take, and
        // every item with a take appears once.
        std::vector<uint32_t> seen(n, 0);
        for (uint32_t at = 0; at < counters[0];) {
          const uint32_t g = out[at];
          REQUIRE(g < n);
          REQUIRE(seen[g] == 0);
          REQUIRE(takes[g] > 0);
          for (uint32_t k = 0; k < takes[g]; ++k) REQUIRE(out[at + k] == g);
          seen[g] = 1;
          at += takes[g];
        }
        for (uint32_t g = 0; g < n; ++g) CHECK(seen[g] == (takes[g] > 0 ? 1u : 0u));
        CHECK(std::all_of(out + counters[0], out + 3 * n, [](uint32_t x) { return x == 0xffffffffu; }));
      }
    }
  }
}

// The host build interleaves the inner loops of several items
// (unroll-and-jam) in the guard-free copy of an item loop, and runs the rest
// (the grid's edge, the last items of a row short of the jam count) item by
// item: ragged sizes, sizes below one workgroup and one jam, one element,
// 1-item workgroups, an empty inner loop, an inner loop whose trip count
// differs per item. Integer-valued floats: every sum is exact, so any
// order gives the reference's floats and a wrong item or index shows.
TEST_CASE("item loops around a uniform inner loop (unroll-and-jam) match the C reference at every host level") {
  const std::vector<std::string> levels = runnable_host_levels(XGPU_TEST_WILOOP_KERNELS_FILE);
  REQUIRE(!levels.empty());
  struct Case {
    uint32_t rows, cols, depth, grid_x, grid_y;
    uint16_t workgroup_x, workgroup_y;
  };
  const Case cases[] = {
      {45, 37, 29, 48, 48, 16, 16},  // ragged: cols and rows end inside workgroups and inside a jam
      {64, 64, 64, 64, 64, 16, 16},  // whole workgroups
      {1, 1, 1, 16, 16, 16, 16},     // one element
      {5, 7, 3, 16, 16, 16, 16},     // smaller than a workgroup and than one jam
      {20, 100, 0, 112, 20, 16, 4},  // an empty inner loop
      {9, 9, 17, 9, 9, 1, 1},        // 1-item workgroups
      {30, 203, 11, 256, 32, 64, 2}, // long rows (workgroup runs), a partial last workgroup
      {3, 70, 40, 70, 3, 7, 3},      // 7-item-wide workgroups: rows end inside a jam
  };
  for (const std::string& isa : levels) {
    INFO(isa);
    Device device(isa, XGPU_TEST_WILOOP_KERNELS_FILE);
    for (const Case& c : cases) {
      INFO("rows " << c.rows << " cols " << c.cols << " depth " << c.depth << " grid " << c.grid_x << "x" << c.grid_y
                   << " workgroup " << c.workgroup_x << "x" << c.workgroup_y);
      const uint32_t a_size = std::max(c.rows * c.depth, c.depth * c.cols) + 1;
      const uint32_t c_size = std::max(c.rows, 1u) * c.cols + 64;  // sentinels past the last row
      float* a = device.allocate<float>(a_size);
      float* b = device.allocate<float>(std::max(c.depth * c.cols, c.depth) + 1);
      float* out = device.allocate<float>(c_size);
      for (uint32_t i = 0; i < a_size; ++i) a[i] = static_cast<float>(static_cast<int32_t>(i * 7u % 17u) - 8);
      for (uint32_t i = 0; i < std::max(c.depth * c.cols, c.depth) + 1; ++i)
        b[i] = static_cast<float>(static_cast<int32_t>(i * 5u % 13u) - 6);
      jam_args_t args = {a, b, out, c.rows, c.cols, c.depth};
      for (const std::string kernel :
           {"jam_matmul", "jam_unguarded", "jam_private", "jam_triangle", "jam_column_sums"}) {
        INFO(kernel);
        const bool columns = kernel == "jam_column_sums";
        // jam_unguarded: a grid of exactly cols x rows (partial workgroups).
        const uint32_t grid_x = kernel == "jam_unguarded" ? c.cols : c.grid_x;
        const uint32_t grid_y = columns ? 1u : kernel == "jam_unguarded" ? c.rows : c.grid_y;
        std::fill(out, out + c_size, -1000.0f);
        device.run({kernel.c_str(), &args, sizeof(args), 2, {grid_x, grid_y, 1},
                    {c.workgroup_x, columns ? uint16_t{1} : c.workgroup_y, 1}});
        std::vector<float> expected(c_size, -1000.0f);
        for (uint32_t row = 0; row < std::min(c.rows, grid_y); ++row)
          for (uint32_t col = 0; col < std::min(c.cols, grid_x); ++col) {
            double sum = 0, partial[4] = {0, 0, 0, 0};
            for (uint32_t k = 0; k < c.depth; ++k) {
              const double product = double(a[row * c.depth + k]) * b[k * c.cols + col];
              if (columns)
                sum += double(a[k * c.cols + col]) * b[k];
              else if (kernel == "jam_matmul" || kernel == "jam_unguarded")
                sum += product;
              else if (kernel == "jam_private")
                partial[(k * 5u + col) % 4u] += product;
              else if (k <= col)
                sum += a[row * c.depth + k];
            }
            if (kernel == "jam_private") sum = ((partial[0] + partial[1]) + partial[2]) + partial[3];
            expected[row * c.cols + col] = static_cast<float>(sum);
          }
        for (uint32_t i = 0; i < c_size; ++i) {
          INFO("i = " << i);
          REQUIRE(out[i] == expected[i]);
        }
      }
    }
  }
}

TEST_CASE("work-item loops: a kernel the transform leaves to fibers still matches its reference") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t n = 500, workgroup = 64, groups = (n + workgroup - 1) / workgroup, rounds = 3;
  uint32_t* in = device.allocate<uint32_t>(n);
  uint32_t* out = device.allocate<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 31u;
  carry_args_t args = {in, out, n, rounds};
  device.run({"big_private", &args, sizeof(args), 1, {groups * workgroup, 1, 1}, {workgroup, 1, 1},
              workgroup * sizeof(uint32_t)});
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t first = i / workgroup * workgroup, lid = i - first;
    const uint32_t next = first + (lid + 1) % workgroup;
    const uint32_t ring = (next < n ? in[next] : 0u) + ((lid + 1) % workgroup * 7u % 1024u) * rounds;
    INFO("item " << i);
    REQUIRE(out[i] == in[i] + (lid * 13u % 1024u) * rounds + ring);
  }
}

namespace {

// tail_bins / tail_bins_by_group (test_kernels.h) over a grid[0] x grid[1]
// grid of size[0] x size[1] workgroups, for the workgroups along x from
// `first` to `last` (all by default).
// (`returns`: tail_bins_return.)
std::vector<uint32_t> tail_bins_reference(const uint32_t* in, uint32_t n, const uint32_t grid[2],
                                          const uint16_t size[2], bool by_group, uint32_t first = 0,
                                          uint32_t last = UINT32_MAX, bool returns = false) {
  const uint32_t bins = uint32_t(size[0]) * size[1];
  std::vector<uint32_t> out(size_t{by_group ? 3u : 2u} * bins, 0);
  for (uint32_t wy = 0; wy * size[1] < grid[1]; ++wy)
    for (uint32_t wx = first; wx * size[0] < grid[0] && wx <= last; ++wx) {
      const uint32_t w = std::min<uint32_t>(size[0], grid[0] - wx * size[0]);
      const uint32_t h = std::min<uint32_t>(size[1], grid[1] - wy * size[1]);
      std::vector<uint32_t> sub(bins, 0);
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          const uint32_t g = (wy * size[1] + y) * grid[0] + wx * size[0] + x;
          if (g < n) ++sub[in[g] % (w * h) / w * size[0] + in[g] % (w * h) % w];
        }
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          const uint32_t g = (wy * size[1] + y) * grid[0] + wx * size[0] + x;
          if (returns && g >= n) continue;
          out[(by_group ? wx % 3u : wy % 2u) * bins + y * size[0] + x] += sub[y * size[0] + x];
        }
    }
  return out;
}

// The workgroup record the kernel last stored, read by a fault handler.
xgpu_host_workgroup_t* g_fault_workgroup = nullptr;

void report_fault_workgroup(int) {
  _exit(int(g_fault_workgroup->workgroup_run * 16u + g_fault_workgroup->workgroup_id[0]));
}

}  // namespace

TEST_CASE("work-item loops: tail atomic adds combined across runs of workgroups match the C reference") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  // With work-item loops every barrier kernel takes runs: tail_bins combines
  // its tail adds across the run; tail_bins_by_group's address depends on
  // the workgroup's x id: its adds as written, in each workgroup of the run.
  const uint32_t loops = device.descriptor("tail_bins")->flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS;
  CHECK((device.descriptor("tail_bins")->flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) ==
        (loops ? XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS : 0u));
  CHECK((device.descriptor("tail_bins_by_group")->flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) ==
        (loops ? XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS : 0u));
  CHECK((device.descriptor("tail_bins_return")->flags & XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS) ==
        (loops ? XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS : 0u));
  struct Case {
    uint32_t grid[2];
    uint16_t size[2];
  };
  // Ragged 1-D, one partial workgroup, one full, many (runs of many
  // workgroups on every worker), ragged 2-D (bins of two rows of
  // workgroups), one item per workgroup, the largest workgroup.
  for (const Case c : {Case{{1000, 1}, {64, 1}}, Case{{50, 1}, {64, 1}}, Case{{64, 1}, {64, 1}},
                       Case{{20011, 1}, {32, 1}}, Case{{37, 29}, {8, 4}}, Case{{300, 2}, {1, 1}},
                       Case{{5000, 1}, {1024, 1}}}) {
    for (const int variant : {0, 1, 2}) {
      const bool by_group = variant == 1, returns = variant == 2;
      const char* kernel = returns ? "tail_bins_return" : by_group ? "tail_bins_by_group" : "tail_bins";
      INFO(kernel << " grid " << c.grid[0] << "x" << c.grid[1] << " workgroup " << c.size[0] << "x" << c.size[1]);
      const uint32_t total = c.grid[0] * c.grid[1], n = total - 3;
      const uint32_t bin_count = (by_group ? 3u : 2u) * c.size[0] * c.size[1];
      uint32_t* in = device.allocate<uint32_t>(n);
      uint32_t* bins = device.allocate<uint32_t>(bin_count);
      for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 7;
      std::fill(bins, bins + bin_count, 0u);
      tail_bins_args_t args = {in, bins, n};
      device.run({kernel, &args, sizeof(args), 2, {c.grid[0], c.grid[1], 1}, {c.size[0], c.size[1], 1},
                  uint32_t(c.size[0] * c.size[1] * sizeof(uint32_t))});
      const std::vector<uint32_t> expected =
          tail_bins_reference(in, n, c.grid, c.size, by_group, 0, UINT32_MAX, returns);
      for (uint32_t b = 0; b < bin_count; ++b) {
        INFO("bin " << b);
        REQUIRE(bins[b] == expected[b]);
      }
    }
  }
}

TEST_CASE("work-item loops: a run with combined tail atomics runs its workgroups and names what it runs") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  const xgpu_host_kernel_descriptor_t* kd = device.descriptor("tail_bins");
  if ((kd->flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS) == 0) return;  // fibers: no runs
  // 600 items in workgroups of 64: 10 workgroups, the last 24 items wide.
  // Runs from workgroup 6: of 0 (one), 1 and 4 (to the partial last one).
  const uint32_t grid[2] = {600, 1};
  const uint16_t size[2] = {64, 1};
  const uint32_t n = 597, first = 6;
  alignas(XGPU_HOST_GROUP_SEGMENT_ALIGNMENT) static uint32_t group[64];
  std::vector<uint32_t> in(n), bins(128);
  for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 7;
  auto workgroup = [&](uint32_t run) {
    xgpu_host_workgroup_t wg{};
    wg.workgroup_id[0] = first;
    wg.workgroup_size[0] = size[0];
    wg.workgroup_size[1] = wg.workgroup_size[2] = 1;
    wg.grid_size[0] = grid[0];
    wg.grid_size[1] = wg.grid_size[2] = 1;
    wg.workgroup_count[0] = 10;
    wg.workgroup_count[1] = wg.workgroup_count[2] = 1;
    wg.item_count[0] = 64;
    wg.item_count[1] = wg.item_count[2] = 1;
    wg.dimensions = 1;
    wg.group_segment = group;
    wg.group_segment_size = sizeof group;
    wg.workgroup_run = run;
    return wg;
  };
  for (const uint32_t run : {0u, 1u, 4u}) {
    CAPTURE(run);
    std::fill(bins.begin(), bins.end(), 0u);
    tail_bins_args_t args = {in.data(), bins.data(), n};
    xgpu_host_workgroup_t wg = workgroup(run);
    kd->run_workgroup(&args, &wg);
    const uint32_t length = run > 1 ? run : 1;
    CHECK(bins == tail_bins_reference(in.data(), n, grid, size, false, first, first + length - 1));
    // The combined adds ran last, for the whole run: `wg` names it.
    CHECK(wg.workgroup_id[0] == first);
    CHECK(wg.workgroup_run == length);
  }

  // Faults, in a child process whose fault handler exits with what `wg`
  // named: workgroup_run * 16 + workgroup_id[0].
  auto fault_names = [&](const uint32_t* input, uint32_t* output) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      static xgpu_host_workgroup_t wg;
      wg = workgroup(4);
      g_fault_workgroup = &wg;
      struct sigaction action {};
      action.sa_handler = report_fault_workgroup;
      sigaction(SIGSEGV, &action, nullptr);
      sigaction(SIGBUS, &action, nullptr);
      tail_bins_args_t args = {input, output, n};
      kd->run_workgroup(&args, &wg);
      _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
  };
  // Workgroup 8's input starts on a page nobody may read: the fault is in
  // workgroup 8, which `wg` names alone.
  const long page = sysconf(_SC_PAGESIZE);
  auto* pages = static_cast<uint8_t*>(mmap(nullptr, size_t(2 * page), PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(pages != MAP_FAILED);
  REQUIRE(mprotect(pages + page, size_t(page), PROT_NONE) == 0);
  const auto* guarded = reinterpret_cast<const uint32_t*>(pages + page) - 8 * 64;
  CHECK(fault_names(guarded, bins.data()) == 1 * 16 + 8);
  // The bins unmapped: the fault is in the run's combined adds, which
  // belong to the whole run (workgroups 6..9).
  CHECK(fault_names(in.data(), reinterpret_cast<uint32_t*>(uintptr_t{0x10})) == 4 * 16 + 6);
  munmap(pages, size_t(2 * page));
}

TEST_CASE("work-item loops: kernels the transform once got wrong compute what they must (regressions)") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t W = XGPU_TEST_REGRESSION_WORKGROUP;
  constexpr uint32_t kGroups = 256, N = kGroups * W;
  uint32_t* in = device.allocate<uint32_t>(2 * N);
  uint32_t* out = device.allocate<uint32_t>(2 * N);
  struct Case {
    const char* kernel;
    uint32_t outputs;  // out[0 .. outputs) checked
    uint32_t expected;
  };
  const uint32_t k = 2;
  for (const Case c : {Case{"regression_sized_end", kGroups, W}, Case{"regression_sized_table", kGroups, 16u * (k & 3u) + 7u},
                       Case{"regression_kept_peek", N, 1u}, Case{"regression_sized_keptptr", N, 1u}}) {
    INFO(c.kernel);
    for (uint32_t i = 0; i < 2 * N; ++i) in[i] = i, out[i] = 0;
    regression_args_t args = {in, out, N, k};
    device.run({c.kernel, &args, sizeof(args), 1, {N, 1, 1}, {uint16_t(W), 1, 1}});
    uint32_t wrong = 0, first = 0;
    for (uint32_t i = 0; i < c.outputs; ++i)
      if (out[i] != c.expected && wrong++ == 0) first = i;
    INFO("first wrong: out[" << first << "] = " << out[first]);
    CHECK(wrong == 0);
    if (std::string(c.kernel) == "regression_kept_peek") {
      // Each bin of each workgroup got one add: 256 workgroups' worth.
      wrong = 0;
      for (uint32_t lid = 0; lid < W; ++lid) wrong += out[N + lid] != kGroups;
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("work-item loops: bins kept across a run are not given adds of another width (regression)") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t W = XGPU_TEST_REGRESSION_WORKGROUP;
  constexpr uint32_t kGroups = 256, N = kGroups * W;
  uint32_t* in = device.allocate<uint32_t>(N);
  uint32_t* out = device.allocate<uint32_t>(W);
  for (uint32_t g = 0; g < N; ++g) in[g] = g % W < 50u ? 0u : g % W;
  std::fill(out, out + W, 0u);
  regression_args_t args = {in, out, N, 0};
  device.run({"regression_kept_byte_adds", &args, sizeof(args), 1, {N, 1, 1}, {uint16_t(W), 1, 1}});
  for (uint32_t b = 0; b < W; ++b) {
    INFO("bin " << b);
    CHECK(out[b] == (b == 0 ? 50u * kGroups : b < 50u ? 0u : kGroups));
  }
}

TEST_CASE("work-item loops: bins kept across a run through a bin address kept in a slot count every add") {
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t W = XGPU_TEST_REGRESSION_WORKGROUP;
  for (const uint32_t n : {256u * W, 97u * W + 13u, W - 5u}) {
    INFO("n " << n);
    const uint32_t grid = (n + W - 1) / W * W;
    uint32_t* in = device.allocate<uint32_t>(grid);
    uint32_t* out = device.allocate<uint32_t>(W);
    std::vector<uint32_t> expected(W, 0);
    for (uint32_t g = 0; g < grid; ++g) {
      in[g] = (g * 2654435761u) ^ (g << 13);
      if (g < n) expected[in[g] % W] += (in[g] & 0x10000u) ? 2u : 1u;
    }
    std::fill(out, out + W, 0u);
    regression_args_t args = {in, out, n, 0};
    device.run({"regression_kept_twice", &args, sizeof(args), 1, {grid, 1, 1}, {uint16_t(W), 1, 1}});
    for (uint32_t b = 0; b < W; ++b) {
      INFO("bin " << b);
      CHECK(out[b] == expected[b]);
    }
  }
}

TEST_CASE("work-item loops: barrier loops the workgroup size decides compute the same at every size") {
  // The transform gives such kernels sized copies for some sizes (the
  // size folded, the loops unrolled); the other sizes, partial workgroups,
  // 2-D workgroups and dynamic group memory run the general loops.
  Device device("", XGPU_TEST_WILOOP_KERNELS_FILE);
  constexpr uint32_t kMax = 64u * 1024u;
  uint32_t* in = device.allocate<uint32_t>(kMax);
  for (uint32_t g = 0; g < kMax; ++g) in[g] = (g * 2654435761u) >> 20;
  uint32_t* out = device.allocate<uint32_t>(kMax);
  struct Shape {
    uint16_t x, y;
    uint32_t grid_x, n, dynamic_bytes;
  };
  for (const Shape s : {Shape{64, 1, 64u * 40u, 64u * 40u, 0}, Shape{128, 1, 128u * 20u, 128u * 20u - 3u, 0},
                        Shape{256, 1, 256u * 16u + 100u, 256u * 16u + 77u, 0}, Shape{32, 1, 32u * 9u, 32u * 9u, 0},
                        Shape{100, 1, 100u * 7u + 1u, 100u * 7u + 1u, 0}, Shape{512, 1, 512u * 3u, 512u * 3u, 0},
                        Shape{1024, 1, 1024u * 2u, 1024u * 2u - 1u, 0}, Shape{256, 1, 256u * 4u, 256u * 4u, 64},
                        Shape{64, 2, 64u * 8u, 64u * 8u - 5u, 0}}) {
    INFO("workgroup (" << s.x << ", " << s.y << "), grid x " << s.grid_x << ", n " << s.n << ", dynamic bytes "
                       << s.dynamic_bytes);
    const uint32_t groups = (s.grid_x + s.x - 1) / s.x, rows = 2u * s.y;
    auto v = [&](uint32_t g) { return g < s.n ? in[g] : 0u; };
    sizes_args_t args = {in, out, s.n, 0};
    std::string first;
    uint32_t wrong = 0;
    std::fill(out, out + kMax, 0xdeadbeefu);
    device.run({"sizes_tree", &args, sizeof(args), 2, {s.grid_x, rows, 1}, {s.x, s.y, 1}, s.dynamic_bytes});
    for (uint32_t row = 0; row < rows; ++row)
      for (uint32_t w = 0; w < groups; ++w) {
        uint32_t sum = 0;
        for (uint32_t g = w * s.x; g < std::min((w + 1) * s.x, s.grid_x); ++g) sum += v(g);
        const uint32_t got = out[row * groups + w];
        if (got != sum && wrong++ == 0)
          first = "tree: row " + std::to_string(row) + " workgroup " + std::to_string(w) + ": " + std::to_string(got) +
                  ", expected " + std::to_string(sum);
      }
    std::fill(out, out + kMax, 0xdeadbeefu);
    device.run({"sizes_scan", &args, sizeof(args), 2, {s.grid_x, rows, 1}, {s.x, s.y, 1}, s.dynamic_bytes});
    for (uint32_t row = 0; row < rows; ++row)
      for (uint32_t g = 0, sum = 0; g < s.n; ++g) {
        sum = g % s.x == 0 ? v(g) : sum + v(g);
        const uint32_t got = out[row * s.grid_x + g];
        if (got != sum && wrong++ == 0)
          first = "scan: row " + std::to_string(row) + " item " + std::to_string(g) + ": " + std::to_string(got) +
                  ", expected " + std::to_string(sum);
      }
    INFO(first);
    CHECK(wrong == 0);
  }
}

namespace {

// The 1-based line of the fault kernels' source that holds `mark`; 0 when
// none does.
uint32_t fault_kernels_line(const std::string& mark) {
  std::ifstream source(XGPU_TEST_FAULT_KERNELS_SOURCE);
  std::string line;
  for (uint32_t number = 1; std::getline(source, line); ++number)
    if (line.find(mark) != std::string::npos) return number;
  return 0;
}

}  // namespace

// kernels.run runs the barrier kernel as work-item loops (or as fibers
// without the pass plugin), kernels.run.fibers as fibers.
TEST_CASE("a kernel fault names its source line from the host code object's line table") {
  struct Case {
    const char* kernel;  // fault_line_items or fault_line_barriers
    const char* mark;    // the comment on its faulting statement
    uint32_t access;     // hsa_cpu_fault_access_t
  };
  const Case cases[] = {
      {"fault_line_items", "/* fault_line_items: the store */", HSA_CPU_FAULT_ACCESS_WRITE},
      {"fault_line_barriers", "/* fault_line_barriers: the load */", HSA_CPU_FAULT_ACCESS_READ},
  };
  for (const Case& c : cases) {
    CAPTURE(c.kernel);
    const uint32_t marked_line = fault_kernels_line(c.mark);
    REQUIRE(marked_line != 0);
    Device device("", XGPU_TEST_FAULT_KERNELS_FILE);
    constexpr uint32_t kItems = 1024, kGroup = 64, kFaultingItem = 300;
    constexpr uint64_t kTarget = 0x40;  // in the null page, which is never mapped
    uint32_t* out = device.allocate<uint32_t>(kItems);
    // First a dispatch in which no item faults: the faulting one is packet 1.
    fault_line_args_t args = {out, kTarget, UINT32_MAX, 0};
    device.run({c.kernel, &args, sizeof(args), 1, {kItems, 1, 1}, {kGroup, 1, 1}});
    for (uint32_t i = 0; i < kItems; ++i) REQUIRE(out[i] == i);
    args.faulting_item = kFaultingItem;
    hsa_cpu_kernel_fault_t report{};
    const uint64_t packet_id = device.run_faulting({c.kernel, &args, sizeof(args), 1, {kItems, 1, 1}, {kGroup, 1, 1}},
                                                   &report);
    CHECK(packet_id == 1);
    CHECK(report.packet_id == packet_id);
    CHECK(report.kernel_object == reinterpret_cast<uintptr_t>(device.descriptor(c.kernel)));
    CHECK(report.address == kTarget);
    CHECK(report.access == c.access);
    CHECK(report.signal == SIGSEGV);
    // The faulting item's workgroup, or a run of workgroups holding it.
    CHECK(report.workgroup_id[0] <= kFaultingItem / kGroup);
    CHECK(kFaultingItem / kGroup < report.workgroup_id[0] + report.workgroup_run);
    const std::string function = report.function;
    const std::string file = report.file;
    CAPTURE(function);
    CAPTURE(file);
    CHECK(function.find(c.kernel) != std::string::npos);
    CHECK(report.code_object_offset != 0);
#if XGPU_TEST_SOURCE_LINES
    CHECK(file.size() > std::strlen("/kernels/fault_lines.c"));
    CHECK(file.ends_with("/kernels/fault_lines.c"));
    CHECK(report.line == marked_line);
    CHECK(report.column != 0);
#endif
  }
}
