// Helpers shared by the hsa-cpu suites: runtime set-up, test code objects,
// AQL packet submission and bounded waits. Everything goes through the HSA
// API. Thread-compatible (each test owns its fixture).
#ifndef HSA_CPU_TEST_UTIL_H_
#define HSA_CPU_TEST_UTIL_H_

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

namespace hsa_test {

// Nanoseconds (the HSA timestamp unit of hsa-cpu) in one millisecond.
inline constexpr uint64_t kMs = 1000000ull;
// Upper bound for any wait a test expects to succeed.
inline constexpr uint64_t kLongWait = 10000 * kMs;

inline uint16_t header(hsa_packet_type_t type, bool barrier = false,
                       hsa_fence_scope_t acquire = HSA_FENCE_SCOPE_SYSTEM,
                       hsa_fence_scope_t release = HSA_FENCE_SCOPE_SYSTEM) {
  return uint16_t((type << HSA_PACKET_HEADER_TYPE) | ((barrier ? 1 : 0) << HSA_PACKET_HEADER_BARRIER) |
                  (acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

// Runs `fn` with stderr redirected to a temporary file; returns what was
// written to it.
template <typename Fn>
inline std::string capture_stderr(Fn&& fn) {
  fflush(stderr);
  FILE* file = tmpfile();
  REQUIRE(file != nullptr);
  const int saved = dup(STDERR_FILENO);
  REQUIRE(saved >= 0);
  REQUIRE(dup2(fileno(file), STDERR_FILENO) == STDERR_FILENO);
  fn();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string text;
  rewind(file);
  char buffer[512];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  fclose(file);
  return text;
}

// The bits of an HSA status. Extension statuses (0x2000.., 0x3000..) lie
// outside hsa_status_t's range: reading one back from a variable of the
// enum type is undefined behaviour (UBSan's enum check), so results are
// compared as integers.
inline uint32_t status_bits(const hsa_status_t& status) {
  uint32_t bits;
  memcpy(&bits, &status, sizeof(bits));
  return bits;
}

inline std::vector<char> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// CPU seconds of this thread / this process.
inline double thread_cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}
inline double process_cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Sets (or clears, value == nullptr) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1); else unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_;
  std::string old_;
};

// hsa_init on construction, hsa_shut_down on destruction; finds the first
// agent and its pools.
struct Runtime {
  hsa_agent_t agent{};
  hsa_amd_memory_pool_t fine_pool{}, coarse_pool{}, kernarg_pool{}, group_pool{};

  Runtime() {
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_iterate_agents(
                [](hsa_agent_t a, void* data) {
                  *static_cast<hsa_agent_t*>(data) = a;
                  return HSA_STATUS_INFO_BREAK;
                },
                &agent) == HSA_STATUS_INFO_BREAK);
    REQUIRE(hsa_amd_agent_iterate_memory_pools(
                agent,
                [](hsa_amd_memory_pool_t pool, void* data) {
                  auto* self = static_cast<Runtime*>(data);
                  hsa_amd_segment_t segment;
                  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
                  if (segment == HSA_AMD_SEGMENT_GROUP) {
                    self->group_pool = pool;
                    return HSA_STATUS_SUCCESS;
                  }
                  uint32_t flags = 0;
                  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
                  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) self->kernarg_pool = pool;
                  else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) self->coarse_pool = pool;
                  else self->fine_pool = pool;
                  return HSA_STATUS_SUCCESS;
                },
                this) == HSA_STATUS_SUCCESS);
  }
  ~Runtime() { CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS); }

  template <typename T>
  T* alloc(size_t count, hsa_amd_memory_pool_t pool) {
    void* p = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(pool, count * sizeof(T), 0, &p) == HSA_STATUS_SUCCESS);
    memset(p, 0, count * sizeof(T));
    return static_cast<T*>(p);
  }
  template <typename T>
  T* alloc(size_t count) { return alloc<T>(count, fine_pool); }
  // Every agent, in iteration order.
  static std::vector<hsa_agent_t> agents() {
    std::vector<hsa_agent_t> all;
    REQUIRE(hsa_iterate_agents(
                [](hsa_agent_t a, void* data) {
                  static_cast<std::vector<hsa_agent_t>*>(data)->push_back(a);
                  return HSA_STATUS_SUCCESS;
                },
                &all) == HSA_STATUS_SUCCESS);
    return all;
  }
};

inline hsa_signal_t make_signal(hsa_signal_value_t value) {
  hsa_signal_t s{};
  REQUIRE(hsa_signal_create(value, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
  return s;
}

// True when `signal` reaches `value` (EQ) within `timeout_ns`.
inline bool wait_eq(hsa_signal_t signal, hsa_signal_value_t value, uint64_t timeout_ns = kLongWait) {
  return hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, value, timeout_ns,
                                   HSA_WAIT_STATE_BLOCKED) == value;
}

// Reserves one packet slot (waiting for space), returns its index.
inline uint64_t reserve(hsa_queue_t* queue) {
  const uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
  while (index - hsa_queue_load_read_index_scacquire(queue) >= queue->size) std::this_thread::yield();
  return index;
}

template <typename Packet>
Packet* slot(hsa_queue_t* queue, uint64_t index) {
  return reinterpret_cast<Packet*>(static_cast<char*>(queue->base_address) +
                                   (index & (queue->size - 1)) * 64);
}

// Publishes the packet's header (release) and rings the doorbell.
inline void publish(hsa_queue_t* queue, uint64_t index, uint16_t packet_header, uint16_t setup = 0) {
  uint32_t word = uint32_t(packet_header) | (uint32_t(setup) << 16);
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot<char>(queue, index)), word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(index));
}

struct Dispatch {
  uint64_t kernel_object = 0;
  const void* kernarg = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint16_t workgroup[3] = {1, 1, 1};
  uint16_t dims = 1;
  uint32_t group_bytes = 0;
  uint32_t private_bytes = 0;  // the packet's private_segment_size
  hsa_signal_t completion{};
  bool barrier = false;
};

// Writes a kernel-dispatch packet; returns its index.
inline uint64_t dispatch(hsa_queue_t* queue, const Dispatch& d, bool do_publish = true) {
  const uint64_t index = reserve(queue);
  auto* p = slot<hsa_kernel_dispatch_packet_t>(queue, index);
  p->workgroup_size_x = d.workgroup[0];
  p->workgroup_size_y = d.workgroup[1];
  p->workgroup_size_z = d.workgroup[2];
  p->reserved0 = 0;
  p->grid_size_x = d.grid[0];
  p->grid_size_y = d.grid[1];
  p->grid_size_z = d.grid[2];
  p->private_segment_size = d.private_bytes;
  p->group_segment_size = d.group_bytes;
  p->kernel_object = d.kernel_object;
  p->kernarg_address = const_cast<void*>(d.kernarg);
  p->reserved2 = 0;
  p->completion_signal = d.completion;
  if (do_publish)
    publish(queue, index, header(HSA_PACKET_TYPE_KERNEL_DISPATCH, d.barrier),
            uint16_t(d.dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS));
  return index;
}

// Writes a barrier-AND/OR packet; returns its index.
inline uint64_t barrier(hsa_queue_t* queue, hsa_packet_type_t type, std::vector<hsa_signal_t> deps,
                        hsa_signal_t completion, bool barrier_bit = false, bool do_publish = true) {
  const uint64_t index = reserve(queue);
  auto* p = slot<hsa_barrier_and_packet_t>(queue, index);
  p->reserved0 = 0;
  p->reserved1 = 0;
  for (int i = 0; i < 5; ++i) p->dep_signal[i] = i < int(deps.size()) ? deps[size_t(i)] : hsa_signal_t{0};
  p->reserved2 = 0;
  p->completion_signal = completion;
  if (do_publish) publish(queue, index, header(type, barrier_bit));
  return index;
}

// The test host code object (or the given one) loaded into one executable
// for one agent.
struct Kernels {
  hsa_executable_t executable{};
  hsa_code_object_reader_t reader{};
  std::vector<char> bytes;

  explicit Kernels(hsa_agent_t agent, const char* path = HSA_CPU_TEST_KERNELS) : Kernels(agent, read_file(path)) {}
  // A host code object's bytes.
  Kernels(hsa_agent_t agent, std::vector<char> code_object) : bytes(std::move(code_object)) {
    REQUIRE(!bytes.empty());
    REQUIRE(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &reader) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      nullptr, &executable) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_load_agent_code_object(executable, agent, reader, nullptr, nullptr) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_freeze(executable, nullptr) == HSA_STATUS_SUCCESS);
    agent_ = agent;
  }
  ~Kernels() {
    CHECK(hsa_executable_destroy(executable) == HSA_STATUS_SUCCESS);
    CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  }
  uint64_t object(const char* name) const {
    hsa_executable_symbol_t symbol;
    REQUIRE(hsa_executable_get_symbol_by_name(executable, name, &agent_, &symbol) == HSA_STATUS_SUCCESS);
    uint64_t object = 0;
    REQUIRE(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object) ==
            HSA_STATUS_SUCCESS);
    return object;
  }

 private:
  hsa_agent_t agent_{};
};

// A queue with a callback recording the first error it reports.
struct Queue {
  hsa_queue_t* queue = nullptr;
  std::atomic<int> errors{0};
  std::atomic<hsa_status_t> last_error{HSA_STATUS_SUCCESS};

  Queue(hsa_agent_t agent, uint32_t size = 256) {
    REQUIRE(hsa_queue_create(agent, size, HSA_QUEUE_TYPE_MULTI, &Queue::callback, this, UINT32_MAX,
                             UINT32_MAX, &queue) == HSA_STATUS_SUCCESS);
  }
  ~Queue() { CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS); }
  static void callback(hsa_status_t status, hsa_queue_t*, void* data) {
    auto* self = static_cast<Queue*>(data);
    self->last_error.store(status);
    self->errors.fetch_add(1);
  }
  bool wait_error(uint64_t timeout_ms = 5000) {
    for (uint64_t i = 0; i < timeout_ms && errors.load() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return errors.load() != 0;
  }
};

}  // namespace hsa_test

#endif  // HSA_CPU_TEST_UTIL_H_
