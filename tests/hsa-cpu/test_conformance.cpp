// The audit of hsa-cpu/CONFORMANCE.md, which this test reads: every row is
// run (one call that differs from a valid one in the way the case says) and
// its status compared; a row without a test, a test without a row, an
// exported hsa_status_t function without rows, and a `spec` row whose status
// the function's @retval list in the installed headers does not name all
// fail. Also: hsa_init / hsa_shut_down reference counting.
//
// Runtime-neutral: hsa_cpu_tests runs it on hsa-cpu, hsa_cuda_core_tests on
// hsa-cuda (GPU machines). The objects the rows use are made on the first
// kernel agent, from the runtime's test code object (HSA_CPU_TEST_KERNELS,
// kernel HSA_CONFORMANCE_KERNEL); rows of a function the runtime does not
// export (hsa-cpu's own extension) are not run, and the few rows where a
// back-end answers otherwise by its nature are listed, with why, in
// kRuntimeDifferences.
#include <fcntl.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa_cpu_ext.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <unistd.h>

#include <dlfcn.h>

#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "hsa_test_util.h"

using namespace hsa_test;

namespace {

// ---------------------------------------------------------------------------
// Status names

const std::map<std::string, uint32_t>& status_values() {
  static const std::map<std::string, uint32_t> values = {
#define STATUS(name) {#name, uint32_t(name)},
      STATUS(HSA_STATUS_SUCCESS) STATUS(HSA_STATUS_INFO_BREAK) STATUS(HSA_STATUS_ERROR)
      STATUS(HSA_STATUS_ERROR_INVALID_ARGUMENT) STATUS(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION)
      STATUS(HSA_STATUS_ERROR_INVALID_ALLOCATION) STATUS(HSA_STATUS_ERROR_INVALID_AGENT)
      STATUS(HSA_STATUS_ERROR_INVALID_REGION) STATUS(HSA_STATUS_ERROR_INVALID_SIGNAL)
      STATUS(HSA_STATUS_ERROR_INVALID_QUEUE) STATUS(HSA_STATUS_ERROR_OUT_OF_RESOURCES)
      STATUS(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT) STATUS(HSA_STATUS_ERROR_RESOURCE_FREE)
      STATUS(HSA_STATUS_ERROR_NOT_INITIALIZED) STATUS(HSA_STATUS_ERROR_REFCOUNT_OVERFLOW)
      STATUS(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS) STATUS(HSA_STATUS_ERROR_INVALID_INDEX)
      STATUS(HSA_STATUS_ERROR_INVALID_ISA) STATUS(HSA_STATUS_ERROR_INVALID_ISA_NAME)
      STATUS(HSA_STATUS_ERROR_INVALID_CODE_OBJECT) STATUS(HSA_STATUS_ERROR_INVALID_EXECUTABLE)
      STATUS(HSA_STATUS_ERROR_FROZEN_EXECUTABLE) STATUS(HSA_STATUS_ERROR_INVALID_SYMBOL_NAME)
      STATUS(HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED) STATUS(HSA_STATUS_ERROR_VARIABLE_UNDEFINED)
      STATUS(HSA_STATUS_ERROR_EXCEPTION) STATUS(HSA_STATUS_ERROR_INVALID_CODE_SYMBOL)
      STATUS(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL) STATUS(HSA_STATUS_ERROR_INVALID_FILE)
      STATUS(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER) STATUS(HSA_STATUS_ERROR_INVALID_CACHE)
      STATUS(HSA_STATUS_ERROR_INVALID_WAVEFRONT) STATUS(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP)
      STATUS(HSA_STATUS_ERROR_INVALID_RUNTIME_STATE) STATUS(HSA_STATUS_ERROR_FATAL)
      STATUS(HSA_STATUS_ERROR_INVALID_MEMORY_POOL) STATUS(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION)
      STATUS(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION) STATUS(HSA_STATUS_ERROR_MEMORY_FAULT)
      STATUS(HSA_STATUS_CU_MASK_REDUCED) STATUS(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM)
      STATUS(HSA_EXT_STATUS_ERROR_INVALID_MODULE) STATUS(HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE)
      STATUS(HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED) STATUS(HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH)
      STATUS(HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED) STATUS(HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH)
      STATUS(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED) STATUS(HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED)
      STATUS(HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED)
      STATUS(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED)
#undef STATUS
  };
  return values;
}

std::string status_name(uint32_t bits) {
  for (const auto& [name, value] : status_values())
    if (value == bits) return name;
  return "status " + std::to_string(bits);
}

// ---------------------------------------------------------------------------
// The tables of CONFORMANCE.md

struct Row {
  std::string function;  // the entry point
  std::string text;      // the case
  std::string expected;  // a status name, or a value (second table)
  std::string basis;     // spec, ROCR, hsa-cpu; empty in the second table
  int line;              // in CONFORMANCE.md
  std::string key() const { return function + " | " + text; }
};

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  const size_t last = s.find_last_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

std::string between_backticks(const std::string& cell) {
  const size_t open = cell.find('`');
  const size_t close = cell.find('`', open + 1);
  return open == std::string::npos || close == std::string::npos ? "" : cell.substr(open + 1, close - open - 1);
}

std::vector<Row> read_table() {
  std::ifstream file(HSA_CPU_CONFORMANCE);
  REQUIRE(file.good());
  std::vector<Row> rows;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.rfind("| `", 0) != 0) continue;  // table body rows only
    std::vector<std::string> cells;
    std::stringstream stream(line);
    std::string cell;
    while (std::getline(stream, cell, '|')) cells.push_back(trim(cell));
    // "| a | b | c |" splits into "", a, b, c
    REQUIRE_MESSAGE((cells.size() == 4 || cells.size() == 5), "CONFORMANCE.md line " << number);
    Row row{between_backticks(cells[1]), cells[2], between_backticks(cells[3]), cells.size() == 5 ? cells[4] : "",
            number};
    rows.push_back(row);
  }
  return rows;
}

// ---------------------------------------------------------------------------
// The @retval lists of the installed headers

std::map<std::string, std::set<std::string>> header_retvals() {
  std::map<std::string, std::set<std::string>> lists;
  std::map<std::string, std::string> copydoc;
  for (const char* header : {"hsa.h", "hsa_ext_amd.h", "hsa_ext_image.h", "hsa_ext_finalize.h"}) {
    std::ifstream file(std::string(HSA_CPU_HSA_HEADERS) + "/" + header);
    REQUIRE(file.good());
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    for (size_t open = text.find("/**"); open != std::string::npos; open = text.find("/**", open + 3)) {
      const size_t close = text.find("*/", open);
      if (close == std::string::npos) break;
      const size_t paren = text.find('(', close);
      const size_t semicolon = text.find_first_of(";{", close);
      if (paren == std::string::npos || paren > semicolon) continue;
      // The declaration: "hsa_status_t [HSA_API] [HSA_DEPRECATED] name".
      std::stringstream declaration(text.substr(close + 2, paren - close - 2));
      std::vector<std::string> tokens;
      for (std::string token; declaration >> token;) tokens.push_back(token);
      if (tokens.empty() || std::find(tokens.begin(), tokens.end(), "hsa_status_t") == tokens.end()) continue;
      const std::string name = tokens.back();
      const std::string doc = text.substr(open, close - open);
      std::set<std::string>& statuses = lists[name];
      for (size_t at = doc.find("@retval"); at != std::string::npos; at = doc.find("@retval", at + 7)) {
        std::stringstream rest(doc.substr(at + 7, 80));
        std::string status;
        rest >> status;
        if (status.rfind("::", 0) == 0) status = status.substr(2);
        statuses.insert(status);
      }
      const size_t copy = doc.find("@copydoc");
      if (copy != std::string::npos) {
        std::stringstream rest(doc.substr(copy + 8, 80));
        rest >> copydoc[name];
      }
    }
  }
  for (const auto& [name, source] : copydoc)
    if (lists[name].empty()) lists[name] = lists[source];
  return lists;
}

// ---------------------------------------------------------------------------
// The objects the rows use

struct Fx {
  hsa_agent_t agent{};
  hsa_amd_memory_pool_t pool{}, group_pool{}, coarse_pool{};
  hsa_region_t region{}, group_region{};
  hsa_isa_t isa{};
  hsa_wavefront_t wavefront{};
  hsa_cache_t cache{};
  hsa_queue_t* queue = nullptr;
  hsa_signal_t signal{};             // value 7
  hsa_signal_group_t group{};        // {signal}
  hsa_executable_t exec{};           // the test kernels, frozen
  hsa_executable_t open_exec{};      // empty, unfrozen
  hsa_code_object_reader_t reader{}; // the test kernels
  hsa_executable_symbol_t kernel{};  // HSA_CONFORMANCE_KERNEL
  hsa_ext_program_t program{};
  void* allocation = nullptr;        // kAllocationBytes from pool
  std::vector<char> kernels;         // the test kernels' bytes
  alignas(64) unsigned char unknown[512] = {};  // no registry holds this address
  alignas(64) unsigned char out[1024] = {};     // where queries write
  hsa_ext_image_descriptor_t image{};
  hsa_ext_image_region_t image_region{};
  hsa_amd_image_descriptor_t image_layout{};
  hsa_ext_sampler_descriptor_t sampler{};
  hsa_dim3_t dim{};

  static constexpr size_t kAllocationBytes = 4096;

  uint64_t bad() const { return reinterpret_cast<uintptr_t>(unknown); }
  hsa_agent_t bad_agent() const { return hsa_agent_t{bad()}; }
  hsa_signal_t bad_signal() const { return hsa_signal_t{bad()}; }
  hsa_queue_t* bad_queue() { return reinterpret_cast<hsa_queue_t*>(unknown); }
  void* o() { return out; }

  Fx() {
    image.geometry = HSA_EXT_IMAGE_GEOMETRY_2D;
    image.width = image.height = 16;
    image.format = {HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA};
  }

  // After hsa_init.
  void create() {
    for (hsa_agent_t a : Runtime::agents()) {
      uint32_t features = 0;
      REQUIRE(hsa_agent_get_info(a, HSA_AGENT_INFO_FEATURE, &features) == HSA_STATUS_SUCCESS);
      if ((features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) != 0) {
        agent = a;
        break;
      }
    }
    REQUIRE(agent.handle != 0);
    REQUIRE(hsa_amd_agent_iterate_memory_pools(
                agent,
                [](hsa_amd_memory_pool_t p, void* data) {
                  auto* self = static_cast<Fx*>(data);
                  hsa_amd_segment_t segment;
                  uint32_t flags = 0;
                  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
                  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
                  // A global pool: fine-grained where the agent has one,
                  // else its first (a GPU's device memory).
                  if (segment == HSA_AMD_SEGMENT_GROUP) self->group_pool = p;
                  else if (flags == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) self->pool = p;
                  else if (segment == HSA_AMD_SEGMENT_GLOBAL && self->coarse_pool.handle == 0 &&
                           (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) == 0)
                    self->coarse_pool = p;
                  return HSA_STATUS_SUCCESS;
                },
                this) == HSA_STATUS_SUCCESS);
    if (pool.handle == 0) pool = coarse_pool;
    REQUIRE(pool.handle != 0);
    REQUIRE(group_pool.handle != 0);
    region = hsa_region_t{pool.handle};  // pools are regions (hsa-cpu/README.md)
    group_region = hsa_region_t{group_pool.handle};
    REQUIRE(hsa_agent_get_info(agent, HSA_AGENT_INFO_ISA, &isa) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_isa_iterate_wavefronts(
                isa,
                [](hsa_wavefront_t w, void* data) {
                  *static_cast<hsa_wavefront_t*>(data) = w;
                  return HSA_STATUS_INFO_BREAK;
                },
                &wavefront) == HSA_STATUS_INFO_BREAK);
    REQUIRE(hsa_agent_iterate_caches(
                agent,
                [](hsa_cache_t c, void* data) {
                  *static_cast<hsa_cache_t*>(data) = c;
                  return HSA_STATUS_INFO_BREAK;
                },
                &cache) == HSA_STATUS_INFO_BREAK);
    REQUIRE(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue) ==
            HSA_STATUS_SUCCESS);
    signal = make_signal(7);
    REQUIRE(hsa_signal_group_create(1, &signal, 1, &agent, &group) == HSA_STATUS_SUCCESS);
    kernels = read_file(HSA_CPU_TEST_KERNELS);
    REQUIRE(hsa_code_object_reader_create_from_memory(kernels.data(), kernels.size(), &reader) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exec) ==
            HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_load_agent_code_object(exec, agent, reader, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_freeze(exec, nullptr) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_get_symbol_by_name(exec, HSA_CONFORMANCE_KERNEL, &agent, &kernel) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                      &open_exec) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                   nullptr, &program) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_memory_pool_allocate(pool, kAllocationBytes, 0, &allocation) == HSA_STATUS_SUCCESS);
  }

  void destroy() {
    CHECK(hsa_amd_memory_pool_free(allocation) == HSA_STATUS_SUCCESS);
    CHECK(hsa_ext_program_destroy(program) == HSA_STATUS_SUCCESS);
    CHECK(hsa_executable_destroy(open_exec) == HSA_STATUS_SUCCESS);
    CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
    CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_group_destroy(group) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_destroy(signal) == HSA_STATUS_SUCCESS);
    CHECK(hsa_queue_destroy(queue) == HSA_STATUS_SUCCESS);
  }
};

// Callbacks that do nothing (or stop at once).
hsa_status_t agent_break(hsa_agent_t, void*) { return HSA_STATUS_INFO_BREAK; }
void no_function(void*) {}
bool no_handler(hsa_signal_value_t, void*) { return false; }
void no_deallocation(void*, void*) {}
hsa_status_t no_event(const hsa_amd_event_t*, void*) { return HSA_STATUS_SUCCESS; }
hsa_status_t no_alloc(size_t, hsa_callback_data_t, void**) { return HSA_STATUS_SUCCESS; }

// Helpers below return status bits already.
uint32_t status_bits(uint32_t bits) { return bits; }
using hsa_test::status_bits;

// A status row: the call's status bits. A value row: the call's value.
using Case = std::function<uint64_t(Fx&)>;

std::map<std::string, Case>& cases() {
  static std::map<std::string, Case> all;
  return all;
}

struct Register {
  Register(const char* function, const char* text, Case c) {
    const std::string key = std::string(function) + " | " + text;
    if (!cases().emplace(key, std::move(c)).second) FAIL("two tests for the row " << key);
  }
};

#define ROW_CONCAT2(a, b) a##b
#define ROW_CONCAT(a, b) ROW_CONCAT2(a, b)
// ROW(function, case, call): the status `call` returns (f: the Fx).
#define ROW(function, text, ...)                                                  \
  const Register ROW_CONCAT(row_, __LINE__)(#function, text, [](Fx& f) -> uint64_t { \
    (void)f;                                                                      \
    return status_bits(__VA_ARGS__);                                              \
  })
// VALUE(function, case, body): the value `body` (a lambda body) returns.
#define VALUE(function, text, ...) \
  const Register ROW_CONCAT(row_, __LINE__)(#function, text, [](Fx& f) -> uint64_t { (void)f; __VA_ARGS__ })

constexpr const char* kNotInit = "not initialized";

// ---------------------------------------------------------------------------
// Initialization, notifications, system and agent information

const Register init_nested("hsa_init", "nested (the runtime is already initialized)", [](Fx&) -> uint64_t {
  const uint32_t status = status_bits(hsa_init());
  hsa_shut_down();
  return status;
});
ROW(hsa_shut_down, "not initialized (more shut downs than inits)", hsa_shut_down());
const Register shut_down_nested("hsa_shut_down", "nested (one of two inits)", [](Fx&) -> uint64_t {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  return status_bits(hsa_shut_down());
});

ROW(hsa_status_string, kNotInit, hsa_status_string(HSA_STATUS_SUCCESS, reinterpret_cast<const char**>(f.o())));
ROW(hsa_status_string, "NULL status_string", hsa_status_string(HSA_STATUS_SUCCESS, nullptr));
ROW(hsa_status_string, "unknown status",
    hsa_status_string(static_cast<hsa_status_t>(0x5555), reinterpret_cast<const char**>(f.o())));
ROW(hsa_status_string, "an extension's status (HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED)",
    hsa_status_string(static_cast<hsa_status_t>(0x3000), reinterpret_cast<const char**>(f.o())));

ROW(hsa_system_get_info, kNotInit, hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, f.o()));
ROW(hsa_system_get_info, "NULL value", hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, nullptr));
ROW(hsa_system_get_info, "unknown attribute", hsa_system_get_info(static_cast<hsa_system_info_t>(0x7777), f.o()));
ROW(hsa_extension_get_name, kNotInit,
    hsa_extension_get_name(HSA_EXTENSION_IMAGES, reinterpret_cast<const char**>(f.o())));
ROW(hsa_extension_get_name, "unknown extension",
    hsa_extension_get_name(0x1234, reinterpret_cast<const char**>(f.o())));
ROW(hsa_extension_get_name, "NULL name", hsa_extension_get_name(HSA_EXTENSION_IMAGES, nullptr));
ROW(hsa_system_extension_supported, kNotInit,
    hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, reinterpret_cast<bool*>(f.o())));
ROW(hsa_system_extension_supported, "unknown extension",
    hsa_system_extension_supported(0x1234, 1, 0, reinterpret_cast<bool*>(f.o())));
ROW(hsa_system_extension_supported, "NULL result", hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, nullptr));
ROW(hsa_system_extension_supported, "a known extension (images 1.0: not supported)",
    hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, reinterpret_cast<bool*>(f.o())));
ROW(hsa_system_major_extension_supported, kNotInit,
    hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, reinterpret_cast<uint16_t*>(f.out),
                                         reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_system_major_extension_supported, "unknown extension",
    hsa_system_major_extension_supported(0x1234, 1, reinterpret_cast<uint16_t*>(f.out),
                                         reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_system_major_extension_supported, "NULL version_minor",
    hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, nullptr, reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_system_major_extension_supported, "NULL result",
    hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, reinterpret_cast<uint16_t*>(f.out), nullptr));
ROW(hsa_system_get_extension_table, kNotInit, hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 0, f.o()));
ROW(hsa_system_get_extension_table, "unknown extension", hsa_system_get_extension_table(0x1234, 1, 0, f.o()));
ROW(hsa_system_get_extension_table, "NULL table", hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 0, nullptr));
ROW(hsa_system_get_extension_table, "a known extension that is not supported",
    hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 0, f.o()));
ROW(hsa_system_get_major_extension_table, kNotInit,
    hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 64, f.o()));
ROW(hsa_system_get_major_extension_table, "unknown extension",
    hsa_system_get_major_extension_table(0x1234, 1, 64, f.o()));
ROW(hsa_system_get_major_extension_table, "NULL table",
    hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 64, nullptr));
ROW(hsa_system_get_major_extension_table, "a known extension that is not supported",
    hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 64, f.o()));
ROW(hsa_iterate_agents, kNotInit, hsa_iterate_agents(&agent_break, nullptr));
ROW(hsa_iterate_agents, "NULL callback", hsa_iterate_agents(nullptr, nullptr));
ROW(hsa_iterate_agents, "the callback returns HSA_STATUS_INFO_BREAK", hsa_iterate_agents(&agent_break, nullptr));

ROW(hsa_agent_get_info, kNotInit, hsa_agent_get_info(f.agent, HSA_AGENT_INFO_NAME, f.o()));
ROW(hsa_agent_get_info, "unknown agent", hsa_agent_get_info(f.bad_agent(), HSA_AGENT_INFO_NAME, f.o()));
ROW(hsa_agent_get_info, "NULL value", hsa_agent_get_info(f.agent, HSA_AGENT_INFO_NAME, nullptr));
ROW(hsa_agent_get_info, "unknown attribute", hsa_agent_get_info(f.agent, static_cast<hsa_agent_info_t>(0x7777), f.o()));
ROW(hsa_agent_get_info, "HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT",
    hsa_agent_get_info(f.agent, static_cast<hsa_agent_info_t>(HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT),
                       f.o()));
ROW(hsa_agent_get_exception_policies, kNotInit,
    hsa_agent_get_exception_policies(f.agent, HSA_PROFILE_FULL, reinterpret_cast<uint16_t*>(f.o())));
ROW(hsa_agent_get_exception_policies, "unknown agent",
    hsa_agent_get_exception_policies(f.bad_agent(), HSA_PROFILE_FULL, reinterpret_cast<uint16_t*>(f.o())));
ROW(hsa_agent_get_exception_policies, "unknown profile",
    hsa_agent_get_exception_policies(f.agent, static_cast<hsa_profile_t>(7), reinterpret_cast<uint16_t*>(f.o())));
ROW(hsa_agent_get_exception_policies, "NULL mask", hsa_agent_get_exception_policies(f.agent, HSA_PROFILE_FULL, nullptr));
ROW(hsa_agent_extension_supported, kNotInit,
    hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, f.agent, 1, 0, reinterpret_cast<bool*>(f.o())));
ROW(hsa_agent_extension_supported, "unknown agent",
    hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, f.bad_agent(), 1, 0, reinterpret_cast<bool*>(f.o())));
ROW(hsa_agent_extension_supported, "unknown extension",
    hsa_agent_extension_supported(0x1234, f.agent, 1, 0, reinterpret_cast<bool*>(f.o())));
ROW(hsa_agent_extension_supported, "NULL result", hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, f.agent, 1, 0, nullptr));
ROW(hsa_agent_major_extension_supported, kNotInit,
    hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, f.agent, 1, reinterpret_cast<uint16_t*>(f.out),
                                        reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_agent_major_extension_supported, "unknown agent",
    hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, f.bad_agent(), 1, reinterpret_cast<uint16_t*>(f.out),
                                        reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_agent_major_extension_supported, "unknown extension",
    hsa_agent_major_extension_supported(0x1234, f.agent, 1, reinterpret_cast<uint16_t*>(f.out),
                                        reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_agent_major_extension_supported, "NULL version_minor",
    hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, f.agent, 1, nullptr, reinterpret_cast<bool*>(f.out + 8)));
ROW(hsa_agent_major_extension_supported, "NULL result",
    hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, f.agent, 1, reinterpret_cast<uint16_t*>(f.out), nullptr));
ROW(hsa_agent_iterate_caches, kNotInit,
    hsa_agent_iterate_caches(f.agent, [](hsa_cache_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_agent_iterate_caches, "unknown agent",
    hsa_agent_iterate_caches(f.bad_agent(), [](hsa_cache_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_agent_iterate_caches, "NULL callback", hsa_agent_iterate_caches(f.agent, nullptr, nullptr));
ROW(hsa_cache_get_info, kNotInit, hsa_cache_get_info(f.cache, HSA_CACHE_INFO_SIZE, f.o()));
ROW(hsa_cache_get_info, "unknown cache", hsa_cache_get_info(hsa_cache_t{f.bad()}, HSA_CACHE_INFO_SIZE, f.o()));
ROW(hsa_cache_get_info, "NULL value", hsa_cache_get_info(f.cache, HSA_CACHE_INFO_SIZE, nullptr));
ROW(hsa_cache_get_info, "unknown attribute", hsa_cache_get_info(f.cache, static_cast<hsa_cache_info_t>(77), f.o()));
ROW(hsa_agent_iterate_isas, kNotInit,
    hsa_agent_iterate_isas(f.agent, [](hsa_isa_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_agent_iterate_isas, "unknown agent",
    hsa_agent_iterate_isas(f.bad_agent(), [](hsa_isa_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_agent_iterate_isas, "NULL callback", hsa_agent_iterate_isas(f.agent, nullptr, nullptr));
ROW(hsa_isa_from_name, kNotInit,
    hsa_isa_from_name("x86_64-unknown-linux-gnu--x86-64", reinterpret_cast<hsa_isa_t*>(f.o())));
ROW(hsa_isa_from_name, "NULL name", hsa_isa_from_name(nullptr, reinterpret_cast<hsa_isa_t*>(f.o())));
ROW(hsa_isa_from_name, "NULL isa", hsa_isa_from_name("x86_64-unknown-linux-gnu--x86-64", nullptr));
ROW(hsa_isa_from_name, "unknown name (an amdgcn ISA)",
    hsa_isa_from_name("amdgcn-amd-amdhsa--gfx942", reinterpret_cast<hsa_isa_t*>(f.o())));
ROW(hsa_isa_get_info, kNotInit, hsa_isa_get_info(f.isa, HSA_ISA_INFO_NAME_LENGTH, 0, f.o()));
ROW(hsa_isa_get_info, "unknown isa", hsa_isa_get_info(hsa_isa_t{f.bad()}, HSA_ISA_INFO_NAME_LENGTH, 0, f.o()));
ROW(hsa_isa_get_info, "NULL value", hsa_isa_get_info(f.isa, HSA_ISA_INFO_NAME_LENGTH, 0, nullptr));
ROW(hsa_isa_get_info, "unknown attribute", hsa_isa_get_info(f.isa, static_cast<hsa_isa_info_t>(77), 0, f.o()));
ROW(hsa_isa_get_info, "call convention index out of range",
    hsa_isa_get_info(f.isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, 1, f.o()));
ROW(hsa_isa_get_info, "index out of range with an attribute that is not a call convention's",
    hsa_isa_get_info(f.isa, HSA_ISA_INFO_NAME_LENGTH, 1, f.o()));
ROW(hsa_isa_get_info_alt, kNotInit, hsa_isa_get_info_alt(f.isa, HSA_ISA_INFO_NAME_LENGTH, f.o()));
ROW(hsa_isa_get_info_alt, "unknown isa", hsa_isa_get_info_alt(hsa_isa_t{f.bad()}, HSA_ISA_INFO_NAME_LENGTH, f.o()));
ROW(hsa_isa_get_info_alt, "NULL value", hsa_isa_get_info_alt(f.isa, HSA_ISA_INFO_NAME_LENGTH, nullptr));
ROW(hsa_isa_get_info_alt, "unknown attribute", hsa_isa_get_info_alt(f.isa, static_cast<hsa_isa_info_t>(77), f.o()));
ROW(hsa_isa_get_exception_policies, kNotInit,
    hsa_isa_get_exception_policies(f.isa, HSA_PROFILE_FULL, reinterpret_cast<uint16_t*>(f.o())));
ROW(hsa_isa_get_exception_policies, "unknown isa",
    hsa_isa_get_exception_policies(hsa_isa_t{f.bad()}, HSA_PROFILE_FULL, reinterpret_cast<uint16_t*>(f.o())));
ROW(hsa_isa_get_exception_policies, "unknown profile",
    hsa_isa_get_exception_policies(f.isa, static_cast<hsa_profile_t>(7), reinterpret_cast<uint16_t*>(f.o())));
ROW(hsa_isa_get_exception_policies, "NULL mask", hsa_isa_get_exception_policies(f.isa, HSA_PROFILE_FULL, nullptr));
ROW(hsa_isa_get_round_method, kNotInit,
    hsa_isa_get_round_method(f.isa, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ, reinterpret_cast<hsa_round_method_t*>(f.o())));
ROW(hsa_isa_get_round_method, "unknown isa",
    hsa_isa_get_round_method(hsa_isa_t{f.bad()}, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ,
                             reinterpret_cast<hsa_round_method_t*>(f.o())));
ROW(hsa_isa_get_round_method, "unknown fp_type",
    hsa_isa_get_round_method(f.isa, static_cast<hsa_fp_type_t>(3), HSA_FLUSH_MODE_FTZ,
                             reinterpret_cast<hsa_round_method_t*>(f.o())));
ROW(hsa_isa_get_round_method, "unknown flush_mode",
    hsa_isa_get_round_method(f.isa, HSA_FP_TYPE_32, static_cast<hsa_flush_mode_t>(3),
                             reinterpret_cast<hsa_round_method_t*>(f.o())));
ROW(hsa_isa_get_round_method, "NULL round_method",
    hsa_isa_get_round_method(f.isa, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ, nullptr));
ROW(hsa_isa_compatible, kNotInit, hsa_isa_compatible(f.isa, f.isa, reinterpret_cast<bool*>(f.o())));
ROW(hsa_isa_compatible, "unknown code_object_isa",
    hsa_isa_compatible(hsa_isa_t{f.bad()}, f.isa, reinterpret_cast<bool*>(f.o())));
ROW(hsa_isa_compatible, "unknown agent_isa", hsa_isa_compatible(f.isa, hsa_isa_t{f.bad()}, reinterpret_cast<bool*>(f.o())));
ROW(hsa_isa_compatible, "NULL result", hsa_isa_compatible(f.isa, f.isa, nullptr));
ROW(hsa_isa_iterate_wavefronts, kNotInit,
    hsa_isa_iterate_wavefronts(f.isa, [](hsa_wavefront_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_isa_iterate_wavefronts, "unknown isa",
    hsa_isa_iterate_wavefronts(hsa_isa_t{f.bad()}, [](hsa_wavefront_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_isa_iterate_wavefronts, "NULL callback", hsa_isa_iterate_wavefronts(f.isa, nullptr, nullptr));
ROW(hsa_wavefront_get_info, kNotInit, hsa_wavefront_get_info(f.wavefront, HSA_WAVEFRONT_INFO_SIZE, f.o()));
ROW(hsa_wavefront_get_info, "unknown wavefront",
    hsa_wavefront_get_info(hsa_wavefront_t{f.bad()}, HSA_WAVEFRONT_INFO_SIZE, f.o()));
ROW(hsa_wavefront_get_info, "NULL value", hsa_wavefront_get_info(f.wavefront, HSA_WAVEFRONT_INFO_SIZE, nullptr));
ROW(hsa_wavefront_get_info, "unknown attribute",
    hsa_wavefront_get_info(f.wavefront, static_cast<hsa_wavefront_info_t>(7), f.o()));

// ---------------------------------------------------------------------------
// Signals

ROW(hsa_signal_create, kNotInit, hsa_signal_create(1, 0, nullptr, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_signal_create, "NULL signal", hsa_signal_create(1, 0, nullptr, nullptr));
ROW(hsa_signal_create, "NULL consumers with num_consumers 1",
    hsa_signal_create(1, 1, nullptr, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_signal_create, "the same consumer twice",
    hsa_signal_create(1, 2, std::vector<hsa_agent_t>{f.agent, f.agent}.data(), reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_signal_create, "unknown consumer",
    hsa_signal_create(1, 1, std::vector<hsa_agent_t>{f.bad_agent()}.data(), reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_signal_create, kNotInit, hsa_amd_signal_create(1, 0, nullptr, 0, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_signal_create, "NULL signal", hsa_amd_signal_create(1, 0, nullptr, 0, nullptr));
ROW(hsa_amd_signal_create, "NULL consumers with num_consumers 1",
    hsa_amd_signal_create(1, 1, nullptr, 0, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_signal_create, "the same consumer twice",
    hsa_amd_signal_create(1, 2, std::vector<hsa_agent_t>{f.agent, f.agent}.data(), 0,
                          reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_signal_create, "unknown consumer",
    hsa_amd_signal_create(1, 1, std::vector<hsa_agent_t>{f.bad_agent()}.data(), 0,
                          reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_signal_create, "HSA_AMD_SIGNAL_IPC (no IPC)",
    hsa_amd_signal_create(1, 0, nullptr, HSA_AMD_SIGNAL_IPC, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_signal_create, "unknown attribute bits",
    hsa_amd_signal_create(1, 0, nullptr, uint64_t(1) << 40, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_signal_destroy, kNotInit, hsa_signal_destroy(f.signal));
ROW(hsa_signal_destroy, "the null signal", hsa_signal_destroy(hsa_signal_t{0}));
ROW(hsa_signal_destroy, "unknown signal", hsa_signal_destroy(f.bad_signal()));
ROW(hsa_signal_destroy, "a queue's doorbell signal", hsa_signal_destroy(f.queue->doorbell_signal));
ROW(hsa_amd_signal_value_pointer, kNotInit,
    hsa_amd_signal_value_pointer(f.signal, reinterpret_cast<volatile hsa_signal_value_t**>(f.o())));
ROW(hsa_amd_signal_value_pointer, "the null signal",
    hsa_amd_signal_value_pointer(hsa_signal_t{0}, reinterpret_cast<volatile hsa_signal_value_t**>(f.o())));
ROW(hsa_amd_signal_value_pointer, "unknown signal",
    hsa_amd_signal_value_pointer(f.bad_signal(), reinterpret_cast<volatile hsa_signal_value_t**>(f.o())));
ROW(hsa_amd_signal_value_pointer, "NULL value_ptr", hsa_amd_signal_value_pointer(f.signal, nullptr));
ROW(hsa_amd_signal_async_handler, kNotInit,
    hsa_amd_signal_async_handler(f.signal, HSA_SIGNAL_CONDITION_EQ, 0, &no_handler, nullptr));
ROW(hsa_amd_signal_async_handler, "the null signal",
    hsa_amd_signal_async_handler(hsa_signal_t{0}, HSA_SIGNAL_CONDITION_EQ, 0, &no_handler, nullptr));
ROW(hsa_amd_signal_async_handler, "unknown signal",
    hsa_amd_signal_async_handler(f.bad_signal(), HSA_SIGNAL_CONDITION_EQ, 0, &no_handler, nullptr));
ROW(hsa_amd_signal_async_handler, "NULL handler",
    hsa_amd_signal_async_handler(f.signal, HSA_SIGNAL_CONDITION_EQ, 0, nullptr, nullptr));
ROW(hsa_amd_signal_async_handler, "unknown condition",
    hsa_amd_signal_async_handler(f.signal, static_cast<hsa_signal_condition_t>(9), 0, &no_handler, nullptr));
ROW(hsa_amd_async_function, kNotInit, hsa_amd_async_function(&no_function, nullptr));
ROW(hsa_amd_async_function, "NULL callback", hsa_amd_async_function(nullptr, nullptr));
ROW(hsa_signal_group_create, kNotInit,
    hsa_signal_group_create(1, &f.signal, 1, &f.agent, reinterpret_cast<hsa_signal_group_t*>(f.o())));
ROW(hsa_signal_group_create, "num_signals 0",
    hsa_signal_group_create(0, &f.signal, 1, &f.agent, reinterpret_cast<hsa_signal_group_t*>(f.o())));
ROW(hsa_signal_group_create, "NULL signals",
    hsa_signal_group_create(1, nullptr, 1, &f.agent, reinterpret_cast<hsa_signal_group_t*>(f.o())));
ROW(hsa_signal_group_create, "NULL signal_group", hsa_signal_group_create(1, &f.signal, 1, &f.agent, nullptr));
ROW(hsa_signal_group_create, "the null signal in the list",
    hsa_signal_group_create(1, std::vector<hsa_signal_t>{hsa_signal_t{0}}.data(), 1, &f.agent,
                            reinterpret_cast<hsa_signal_group_t*>(f.o())));
ROW(hsa_signal_group_create, "unknown signal in the list",
    hsa_signal_group_create(1, std::vector<hsa_signal_t>{f.bad_signal()}.data(), 1, &f.agent,
                            reinterpret_cast<hsa_signal_group_t*>(f.o())));
ROW(hsa_signal_group_create, "NULL consumers with num_consumers 1",
    hsa_signal_group_create(1, &f.signal, 1, nullptr, reinterpret_cast<hsa_signal_group_t*>(f.o())));
ROW(hsa_signal_group_create, "unknown consumer",
    hsa_signal_group_create(1, &f.signal, 1, std::vector<hsa_agent_t>{f.bad_agent()}.data(),
                            reinterpret_cast<hsa_signal_group_t*>(f.o())));
VALUE(hsa_signal_group_create, "no consumers", {
  hsa_signal_group_t group{};
  const uint32_t status = status_bits(hsa_signal_group_create(1, &f.signal, 0, nullptr, &group));
  if (status == HSA_STATUS_SUCCESS) CHECK(hsa_signal_group_destroy(group) == HSA_STATUS_SUCCESS);
  return status;
});
ROW(hsa_signal_group_destroy, kNotInit, hsa_signal_group_destroy(f.group));
ROW(hsa_signal_group_destroy, "the null group", hsa_signal_group_destroy(hsa_signal_group_t{0}));
ROW(hsa_signal_group_destroy, "unknown group", hsa_signal_group_destroy(hsa_signal_group_t{f.bad()}));

// A group wait on `group` for the condition `condition` against 7 (the
// signal's value); `null` names the pointer argument passed as NULL.
// (Conditions travel as bits: an out-of-range value must not be loaded as
// the enum, which UBSan reports.)
uint32_t group_wait(bool relaxed, hsa_signal_group_t group, uint32_t condition, const char* null) {
  hsa_signal_condition_t conditions[1];
  memcpy(conditions, &condition, sizeof(condition));
  const hsa_signal_value_t values[1] = {7};
  hsa_signal_t which{};
  hsa_signal_value_t value = 0;
  const std::string n = null;
  auto* fn = relaxed ? &hsa_signal_group_wait_any_relaxed : &hsa_signal_group_wait_any_scacquire;
  return status_bits(fn(group, n == "conditions" ? nullptr : conditions, n == "compare_values" ? nullptr : values,
                        HSA_WAIT_STATE_BLOCKED, n == "signal" ? nullptr : &which, n == "value" ? nullptr : &value));
}
ROW(hsa_signal_group_wait_any_scacquire, kNotInit, group_wait(false, f.group, HSA_SIGNAL_CONDITION_EQ, ""));
ROW(hsa_signal_group_wait_any_scacquire, "unknown group",
    group_wait(false, hsa_signal_group_t{f.bad()}, HSA_SIGNAL_CONDITION_EQ, ""));
ROW(hsa_signal_group_wait_any_scacquire, "NULL conditions",
    group_wait(false, f.group, HSA_SIGNAL_CONDITION_EQ, "conditions"));
ROW(hsa_signal_group_wait_any_scacquire, "NULL compare_values",
    group_wait(false, f.group, HSA_SIGNAL_CONDITION_EQ, "compare_values"));
ROW(hsa_signal_group_wait_any_scacquire, "NULL signal", group_wait(false, f.group, HSA_SIGNAL_CONDITION_EQ, "signal"));
ROW(hsa_signal_group_wait_any_scacquire, "NULL value", group_wait(false, f.group, HSA_SIGNAL_CONDITION_EQ, "value"));
ROW(hsa_signal_group_wait_any_scacquire, "unknown condition",
    group_wait(false, f.group, 9, ""));
ROW(hsa_signal_group_wait_any_relaxed, kNotInit, group_wait(true, f.group, HSA_SIGNAL_CONDITION_EQ, ""));
ROW(hsa_signal_group_wait_any_relaxed, "unknown group",
    group_wait(true, hsa_signal_group_t{f.bad()}, HSA_SIGNAL_CONDITION_EQ, ""));
ROW(hsa_signal_group_wait_any_relaxed, "NULL conditions", group_wait(true, f.group, HSA_SIGNAL_CONDITION_EQ, "conditions"));
ROW(hsa_signal_group_wait_any_relaxed, "NULL value", group_wait(true, f.group, HSA_SIGNAL_CONDITION_EQ, "value"));
ROW(hsa_signal_group_wait_any_relaxed, "a condition already met", group_wait(true, f.group, HSA_SIGNAL_CONDITION_EQ, ""));

// ---------------------------------------------------------------------------
// Queues

// (A queue a row made after all is destroyed: nothing is left alive.)
uint32_t create_queue(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type, uint32_t group_bytes,
                      hsa_queue_t** out) {
  const hsa_status_t status = hsa_queue_create(agent, size, type, nullptr, nullptr, UINT32_MAX, group_bytes, out);
  if (status == HSA_STATUS_SUCCESS) CHECK(hsa_queue_destroy(*out) == HSA_STATUS_SUCCESS);
  return status_bits(status);
}
// One byte more than the agent's group segment (its group pool's size).
uint32_t above_group_segment(const Fx& f) {
  size_t size = 0;
  REQUIRE(hsa_amd_memory_pool_get_info(f.group_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
  return uint32_t(size + 1);
}
ROW(hsa_queue_create, kNotInit, create_queue(f.agent, 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "unknown agent",
    create_queue(f.bad_agent(), 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "size 0", create_queue(f.agent, 0, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "size not a power of two",
    create_queue(f.agent, 100, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "size above HSA_AGENT_INFO_QUEUE_MAX_SIZE",
    create_queue(f.agent, 1u << 30, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "unknown queue type", create_queue(f.agent, 64, 77, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "HSA_QUEUE_TYPE_COOPERATIVE (not supported by the agent)",
    create_queue(f.agent, 64, HSA_QUEUE_TYPE_COOPERATIVE, UINT32_MAX, reinterpret_cast<hsa_queue_t**>(f.o())));
ROW(hsa_queue_create, "NULL queue", create_queue(f.agent, 64, HSA_QUEUE_TYPE_MULTI, UINT32_MAX, nullptr));
ROW(hsa_queue_create, "group segment above the agent's",
    create_queue(f.agent, 64, HSA_QUEUE_TYPE_MULTI, above_group_segment(f), reinterpret_cast<hsa_queue_t**>(f.o())));

uint32_t soft_queue(hsa_region_t region, uint32_t size, hsa_queue_type32_t type, uint32_t features,
                    hsa_signal_t doorbell, hsa_queue_t** out) {
  return status_bits(hsa_soft_queue_create(region, size, type, features, doorbell, out));
}
#define SOFT_OUT reinterpret_cast<hsa_queue_t**>(f.o())
ROW(hsa_soft_queue_create, kNotInit,
    soft_queue(f.region, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "unknown region",
    soft_queue(hsa_region_t{f.bad()}, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "the group region",
    soft_queue(f.group_region, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "size 0",
    soft_queue(f.region, 0, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "size not a power of two",
    soft_queue(f.region, 100, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "unknown queue type",
    soft_queue(f.region, 64, 77, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "no features", soft_queue(f.region, 64, HSA_QUEUE_TYPE_MULTI, 0, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "unknown feature bits", soft_queue(f.region, 64, HSA_QUEUE_TYPE_MULTI, 0x80, f.signal, SOFT_OUT));
ROW(hsa_soft_queue_create, "the null doorbell signal",
    soft_queue(f.region, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, hsa_signal_t{0}, SOFT_OUT));
ROW(hsa_soft_queue_create, "unknown doorbell signal",
    soft_queue(f.region, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.bad_signal(), SOFT_OUT));
ROW(hsa_soft_queue_create, "NULL queue",
    soft_queue(f.region, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, f.signal, nullptr));
ROW(hsa_queue_destroy, kNotInit, hsa_queue_destroy(f.queue));
ROW(hsa_queue_destroy, "NULL queue", hsa_queue_destroy(nullptr));
ROW(hsa_queue_destroy, "unknown queue", hsa_queue_destroy(f.bad_queue()));
ROW(hsa_queue_inactivate, kNotInit, hsa_queue_inactivate(f.queue));
ROW(hsa_queue_inactivate, "NULL queue", hsa_queue_inactivate(nullptr));
ROW(hsa_queue_inactivate, "unknown queue", hsa_queue_inactivate(f.bad_queue()));
ROW(hsa_amd_profiling_set_profiler_enabled, kNotInit, hsa_amd_profiling_set_profiler_enabled(f.queue, 0));
ROW(hsa_amd_profiling_set_profiler_enabled, "NULL queue", hsa_amd_profiling_set_profiler_enabled(nullptr, 0));
ROW(hsa_amd_profiling_set_profiler_enabled, "unknown queue", hsa_amd_profiling_set_profiler_enabled(f.bad_queue(), 0));
ROW(hsa_amd_queue_cu_set_mask, kNotInit, hsa_amd_queue_cu_set_mask(f.queue, 32, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_set_mask, "NULL queue", hsa_amd_queue_cu_set_mask(nullptr, 32, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_set_mask, "unknown queue",
    hsa_amd_queue_cu_set_mask(f.bad_queue(), 32, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_set_mask, "num_cu_mask_count not a multiple of 32",
    hsa_amd_queue_cu_set_mask(f.queue, 33, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_set_mask, "NULL cu_mask with num_cu_mask_count 32", hsa_amd_queue_cu_set_mask(f.queue, 32, nullptr));
ROW(hsa_amd_queue_cu_set_mask, "num_cu_mask_count 0 and NULL cu_mask (resets the mask)",
    hsa_amd_queue_cu_set_mask(f.queue, 0, nullptr));
ROW(hsa_amd_queue_cu_get_mask, kNotInit, hsa_amd_queue_cu_get_mask(f.queue, 32, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_get_mask, "NULL queue", hsa_amd_queue_cu_get_mask(nullptr, 32, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_get_mask, "unknown queue",
    hsa_amd_queue_cu_get_mask(f.bad_queue(), 32, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_get_mask, "num_cu_mask_count 0", hsa_amd_queue_cu_get_mask(f.queue, 0, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_get_mask, "num_cu_mask_count not a multiple of 32",
    hsa_amd_queue_cu_get_mask(f.queue, 33, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_amd_queue_cu_get_mask, "NULL cu_mask", hsa_amd_queue_cu_get_mask(f.queue, 32, nullptr));
ROW(hsa_amd_queue_set_priority, kNotInit, hsa_amd_queue_set_priority(f.queue, HSA_AMD_QUEUE_PRIORITY_NORMAL));
ROW(hsa_amd_queue_set_priority, "NULL queue", hsa_amd_queue_set_priority(nullptr, HSA_AMD_QUEUE_PRIORITY_NORMAL));
ROW(hsa_amd_queue_set_priority, "unknown queue", hsa_amd_queue_set_priority(f.bad_queue(), HSA_AMD_QUEUE_PRIORITY_NORMAL));
ROW(hsa_amd_queue_set_priority, "unknown priority",
    hsa_amd_queue_set_priority(f.queue, static_cast<hsa_amd_queue_priority_t>(9)));
// hsa-cpu's own extension: looked up, so that the audit also links against
// a runtime without it (its rows are then not run).
hsa_status_t kernel_fault(const hsa_queue_t* queue, hsa_cpu_kernel_fault_t* out) {
  using Fn = hsa_status_t (*)(const hsa_queue_t*, hsa_cpu_kernel_fault_t*);
  static const auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "hsa_cpu_queue_get_kernel_fault"));
  REQUIRE(reinterpret_cast<void*>(fn) != nullptr);
  return fn(queue, out);
}
hsa_status_t dispatch_counts(const hsa_queue_t* queue, hsa_cpu_dispatch_counts_t* out) {
  using Fn = hsa_status_t (*)(const hsa_queue_t*, hsa_cpu_dispatch_counts_t*);
  static const auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "hsa_cpu_queue_get_dispatch_counts"));
  REQUIRE(reinterpret_cast<void*>(fn) != nullptr);
  return fn(queue, out);
}
ROW(hsa_cpu_queue_get_kernel_fault, kNotInit,
    kernel_fault(f.queue, reinterpret_cast<hsa_cpu_kernel_fault_t*>(f.o())));
ROW(hsa_cpu_queue_get_kernel_fault, "NULL queue",
    kernel_fault(nullptr, reinterpret_cast<hsa_cpu_kernel_fault_t*>(f.o())));
ROW(hsa_cpu_queue_get_kernel_fault, "unknown queue",
    kernel_fault(f.bad_queue(), reinterpret_cast<hsa_cpu_kernel_fault_t*>(f.o())));
ROW(hsa_cpu_queue_get_kernel_fault, "NULL out_fault", kernel_fault(f.queue, nullptr));
ROW(hsa_cpu_queue_get_dispatch_counts, kNotInit,
    dispatch_counts(f.queue, reinterpret_cast<hsa_cpu_dispatch_counts_t*>(f.o())));
ROW(hsa_cpu_queue_get_dispatch_counts, "NULL queue",
    dispatch_counts(nullptr, reinterpret_cast<hsa_cpu_dispatch_counts_t*>(f.o())));
ROW(hsa_cpu_queue_get_dispatch_counts, "unknown queue",
    dispatch_counts(f.bad_queue(), reinterpret_cast<hsa_cpu_dispatch_counts_t*>(f.o())));
ROW(hsa_cpu_queue_get_dispatch_counts, "NULL out_counts", dispatch_counts(f.queue, nullptr));
ROW(hsa_cpu_queue_get_dispatch_counts, "a queue",
    dispatch_counts(f.queue, reinterpret_cast<hsa_cpu_dispatch_counts_t*>(f.o())));
ROW(hsa_cpu_queue_get_kernel_fault, "a queue without a kernel fault",
    kernel_fault(f.queue, reinterpret_cast<hsa_cpu_kernel_fault_t*>(f.o())));

// ---------------------------------------------------------------------------
// Memory

ROW(hsa_agent_iterate_regions, kNotInit,
    hsa_agent_iterate_regions(f.agent, [](hsa_region_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_agent_iterate_regions, "unknown agent",
    hsa_agent_iterate_regions(f.bad_agent(), [](hsa_region_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_agent_iterate_regions, "NULL callback", hsa_agent_iterate_regions(f.agent, nullptr, nullptr));
ROW(hsa_region_get_info, kNotInit, hsa_region_get_info(f.region, HSA_REGION_INFO_SIZE, f.o()));
ROW(hsa_region_get_info, "unknown region", hsa_region_get_info(hsa_region_t{f.bad()}, HSA_REGION_INFO_SIZE, f.o()));
ROW(hsa_region_get_info, "NULL value", hsa_region_get_info(f.region, HSA_REGION_INFO_SIZE, nullptr));
ROW(hsa_region_get_info, "unknown attribute", hsa_region_get_info(f.region, static_cast<hsa_region_info_t>(0x7777), f.o()));
ROW(hsa_amd_agent_iterate_memory_pools, kNotInit,
    hsa_amd_agent_iterate_memory_pools(f.agent, [](hsa_amd_memory_pool_t, void*) { return HSA_STATUS_SUCCESS; },
                                       nullptr));
ROW(hsa_amd_agent_iterate_memory_pools, "unknown agent",
    hsa_amd_agent_iterate_memory_pools(f.bad_agent(),
                                       [](hsa_amd_memory_pool_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_amd_agent_iterate_memory_pools, "NULL callback", hsa_amd_agent_iterate_memory_pools(f.agent, nullptr, nullptr));
ROW(hsa_amd_memory_pool_get_info, kNotInit, hsa_amd_memory_pool_get_info(f.pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, f.o()));
ROW(hsa_amd_memory_pool_get_info, "unknown pool",
    hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{f.bad()}, HSA_AMD_MEMORY_POOL_INFO_SIZE, f.o()));
ROW(hsa_amd_memory_pool_get_info, "NULL value", hsa_amd_memory_pool_get_info(f.pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, nullptr));
ROW(hsa_amd_memory_pool_get_info, "unknown attribute",
    hsa_amd_memory_pool_get_info(f.pool, static_cast<hsa_amd_memory_pool_info_t>(0x777), f.o()));
ROW(hsa_amd_agent_memory_pool_get_info, kNotInit,
    hsa_amd_agent_memory_pool_get_info(f.agent, f.pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, f.o()));
ROW(hsa_amd_agent_memory_pool_get_info, "unknown agent",
    hsa_amd_agent_memory_pool_get_info(f.bad_agent(), f.pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, f.o()));
ROW(hsa_amd_agent_memory_pool_get_info, "unknown pool",
    hsa_amd_agent_memory_pool_get_info(f.agent, hsa_amd_memory_pool_t{f.bad()}, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                       f.o()));
ROW(hsa_amd_agent_memory_pool_get_info, "NULL value",
    hsa_amd_agent_memory_pool_get_info(f.agent, f.pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, nullptr));
ROW(hsa_amd_agent_memory_pool_get_info, "unknown attribute",
    hsa_amd_agent_memory_pool_get_info(f.agent, f.pool, static_cast<hsa_amd_agent_memory_pool_info_t>(0x777), f.o()));

#define OUT_PTR reinterpret_cast<void**>(f.o())
ROW(hsa_memory_allocate, kNotInit, hsa_memory_allocate(f.region, 64, OUT_PTR));
ROW(hsa_memory_allocate, "unknown region", hsa_memory_allocate(hsa_region_t{f.bad()}, 64, OUT_PTR));
ROW(hsa_memory_allocate, "NULL ptr", hsa_memory_allocate(f.region, 64, nullptr));
ROW(hsa_memory_allocate, "size 0", hsa_memory_allocate(f.region, 0, OUT_PTR));
ROW(hsa_memory_allocate, "the group region (no runtime allocation)", hsa_memory_allocate(f.group_region, 64, OUT_PTR));
ROW(hsa_memory_allocate, "size above HSA_REGION_INFO_ALLOC_MAX_SIZE", hsa_memory_allocate(f.region, SIZE_MAX, OUT_PTR));
ROW(hsa_amd_memory_pool_allocate, kNotInit, hsa_amd_memory_pool_allocate(f.pool, 64, 0, OUT_PTR));
ROW(hsa_amd_memory_pool_allocate, "unknown pool", hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t{f.bad()}, 64, 0, OUT_PTR));
ROW(hsa_amd_memory_pool_allocate, "NULL ptr", hsa_amd_memory_pool_allocate(f.pool, 64, 0, nullptr));
ROW(hsa_amd_memory_pool_allocate, "size 0", hsa_amd_memory_pool_allocate(f.pool, 0, 0, OUT_PTR));
ROW(hsa_amd_memory_pool_allocate, "flags not 0", hsa_amd_memory_pool_allocate(f.pool, 64, 1, OUT_PTR));
ROW(hsa_amd_memory_pool_allocate, "the group pool (no runtime allocation)",
    hsa_amd_memory_pool_allocate(f.group_pool, 64, 0, OUT_PTR));
ROW(hsa_amd_memory_pool_allocate, "size above HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE",
    hsa_amd_memory_pool_allocate(f.pool, SIZE_MAX, 0, OUT_PTR));
VALUE(hsa_amd_memory_pool_allocate, "more than the pool's HSA_AMD_MEMORY_POOL_INFO_SIZE in all", {
  // Two allocations of more than half the pool each: the second does not fit.
  size_t size = 0;
  REQUIRE(hsa_amd_memory_pool_get_info(f.pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS);
  const size_t half = size / 2 + 4096;
  void* first = nullptr;
  void* second = nullptr;
  const uint32_t first_status = status_bits(hsa_amd_memory_pool_allocate(f.pool, half, 0, &first));
  const uint32_t second_status = status_bits(hsa_amd_memory_pool_allocate(f.pool, half, 0, &second));
  if (first_status == HSA_STATUS_SUCCESS) CHECK(hsa_amd_memory_pool_free(first) == HSA_STATUS_SUCCESS);
  if (second_status == HSA_STATUS_SUCCESS) CHECK(hsa_amd_memory_pool_free(second) == HSA_STATUS_SUCCESS);
  return second_status;
});
ROW(hsa_memory_free, kNotInit, hsa_memory_free(f.allocation));
ROW(hsa_memory_free, "NULL ptr", hsa_memory_free(nullptr));
ROW(hsa_memory_free, "a pointer the runtime did not allocate", hsa_memory_free(f.o()));
ROW(hsa_memory_free, "a pointer inside an allocation", hsa_memory_free(static_cast<char*>(f.allocation) + 64));
ROW(hsa_amd_memory_pool_free, kNotInit, hsa_amd_memory_pool_free(f.allocation));
ROW(hsa_amd_memory_pool_free, "NULL ptr", hsa_amd_memory_pool_free(nullptr));
ROW(hsa_amd_memory_pool_free, "a pointer the runtime did not allocate", hsa_amd_memory_pool_free(f.o()));
ROW(hsa_amd_memory_pool_free, "a pointer inside an allocation",
    hsa_amd_memory_pool_free(static_cast<char*>(f.allocation) + 64));
ROW(hsa_memory_register, kNotInit, hsa_memory_register(f.o(), 64));
ROW(hsa_memory_register, "NULL ptr (no operation)", hsa_memory_register(nullptr, 64));
ROW(hsa_memory_register, "size 0", hsa_memory_register(f.o(), 0));
ROW(hsa_memory_deregister, kNotInit, hsa_memory_deregister(f.o(), 64));
ROW(hsa_memory_deregister, "memory never registered", hsa_memory_deregister(f.o(), 64));
ROW(hsa_memory_assign_agent, kNotInit, hsa_memory_assign_agent(f.allocation, f.agent, HSA_ACCESS_PERMISSION_RW));
ROW(hsa_memory_assign_agent, "unknown agent", hsa_memory_assign_agent(f.allocation, f.bad_agent(), HSA_ACCESS_PERMISSION_RW));
ROW(hsa_memory_assign_agent, "NULL ptr", hsa_memory_assign_agent(nullptr, f.agent, HSA_ACCESS_PERMISSION_RW));
ROW(hsa_memory_assign_agent, "unknown access permission",
    hsa_memory_assign_agent(f.allocation, f.agent, static_cast<hsa_access_permission_t>(9)));
ROW(hsa_memory_copy, kNotInit, hsa_memory_copy(f.out, f.out + 64, 16));
ROW(hsa_memory_copy, "NULL dst", hsa_memory_copy(nullptr, f.out + 64, 16));
ROW(hsa_memory_copy, "NULL src", hsa_memory_copy(f.out, nullptr, 16));
ROW(hsa_amd_memory_fill, kNotInit, hsa_amd_memory_fill(f.allocation, 0, 4));
ROW(hsa_amd_memory_fill, "NULL ptr", hsa_amd_memory_fill(nullptr, 0, 4));
ROW(hsa_amd_memory_fill, "ptr not 4-byte aligned", hsa_amd_memory_fill(static_cast<char*>(f.allocation) + 1, 0, 4));
ROW(hsa_amd_memory_fill, "memory the runtime did not allocate", hsa_amd_memory_fill(f.o(), 0, 4));
ROW(hsa_amd_memory_fill, "past the end of an allocation",
    hsa_amd_memory_fill(f.allocation, 0, Fx::kAllocationBytes / 4 + 1));

uint32_t async_copy(Fx& f, void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, uint32_t deps,
                    const hsa_signal_t* dep_signals, hsa_signal_t completion) {
  return status_bits(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, 16, deps, dep_signals, completion));
}
#define COPY_DST f.allocation
#define COPY_SRC reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(f.allocation) + 2048)  // (null before init)
ROW(hsa_amd_memory_async_copy, kNotInit, async_copy(f, COPY_DST, f.agent, COPY_SRC, f.agent, 0, nullptr, f.signal));
ROW(hsa_amd_memory_async_copy, "unknown dst_agent",
    async_copy(f, COPY_DST, f.bad_agent(), COPY_SRC, f.agent, 0, nullptr, f.signal));
ROW(hsa_amd_memory_async_copy, "unknown src_agent",
    async_copy(f, COPY_DST, f.agent, COPY_SRC, f.bad_agent(), 0, nullptr, f.signal));
ROW(hsa_amd_memory_async_copy, "NULL dst", async_copy(f, nullptr, f.agent, COPY_SRC, f.agent, 0, nullptr, f.signal));
ROW(hsa_amd_memory_async_copy, "NULL src", async_copy(f, COPY_DST, f.agent, nullptr, f.agent, 0, nullptr, f.signal));
ROW(hsa_amd_memory_async_copy, "the null completion signal",
    async_copy(f, COPY_DST, f.agent, COPY_SRC, f.agent, 0, nullptr, hsa_signal_t{0}));
ROW(hsa_amd_memory_async_copy, "unknown completion signal",
    async_copy(f, COPY_DST, f.agent, COPY_SRC, f.agent, 0, nullptr, f.bad_signal()));
ROW(hsa_amd_memory_async_copy, "NULL dep_signals with num_dep_signals 1",
    async_copy(f, COPY_DST, f.agent, COPY_SRC, f.agent, 1, nullptr, f.signal));
ROW(hsa_amd_memory_async_copy, "unknown dependency signal",
    async_copy(f, COPY_DST, f.agent, COPY_SRC, f.agent, 1, std::vector<hsa_signal_t>{f.bad_signal()}.data(), f.signal));

uint32_t copy_rect(Fx& f, bool null_dst, uint32_t direction, hsa_agent_t agent, hsa_signal_t completion) {
  const hsa_pitched_ptr_t pitched{f.allocation, 64, 1024};
  const hsa_dim3_t origin{0, 0, 0}, range{16, 4, 1};
  return status_bits(hsa_amd_memory_async_copy_rect(null_dst ? nullptr : &pitched, &origin, &pitched, &origin, &range,
                                                    agent, static_cast<hsa_amd_copy_direction_t>(direction), 0,
                                                    nullptr, completion));
}
ROW(hsa_amd_memory_async_copy_rect, kNotInit, copy_rect(f, false, hsaHostToHost, f.agent, f.signal));
ROW(hsa_amd_memory_async_copy_rect, "NULL dst", copy_rect(f, true, hsaHostToHost, f.agent, f.signal));
ROW(hsa_amd_memory_async_copy_rect, "unknown direction", copy_rect(f, false, 9, f.agent, f.signal));
ROW(hsa_amd_memory_async_copy_rect, "the null completion signal", copy_rect(f, false, hsaHostToHost, f.agent, hsa_signal_t{0}));
ROW(hsa_amd_memory_async_copy_rect, "unknown copy_agent", copy_rect(f, false, hsaHostToHost, f.bad_agent(), f.signal));
ROW(hsa_amd_memory_async_copy_rect, "a CPU copy_agent (the copy needs SDMA)",
    copy_rect(f, false, hsaHostToHost, f.agent, f.signal));

ROW(hsa_amd_agents_allow_access, kNotInit, hsa_amd_agents_allow_access(1, &f.agent, nullptr, f.allocation));
ROW(hsa_amd_agents_allow_access, "num_agents 0", hsa_amd_agents_allow_access(0, &f.agent, nullptr, f.allocation));
ROW(hsa_amd_agents_allow_access, "NULL agents", hsa_amd_agents_allow_access(1, nullptr, nullptr, f.allocation));
ROW(hsa_amd_agents_allow_access, "flags not NULL",
    hsa_amd_agents_allow_access(1, &f.agent, reinterpret_cast<const uint32_t*>(f.o()), f.allocation));
ROW(hsa_amd_agents_allow_access, "NULL ptr", hsa_amd_agents_allow_access(1, &f.agent, nullptr, nullptr));
ROW(hsa_amd_agents_allow_access, "unknown agent",
    hsa_amd_agents_allow_access(1, std::vector<hsa_agent_t>{f.bad_agent()}.data(), nullptr, f.allocation));
ROW(hsa_amd_agents_allow_access, "memory the runtime did not allocate",
    hsa_amd_agents_allow_access(1, &f.agent, nullptr, f.o()));
ROW(hsa_amd_memory_pool_can_migrate, kNotInit, hsa_amd_memory_pool_can_migrate(f.pool, f.pool, reinterpret_cast<bool*>(f.o())));
ROW(hsa_amd_memory_pool_can_migrate, "unknown src_memory_pool",
    hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t{f.bad()}, f.pool, reinterpret_cast<bool*>(f.o())));
ROW(hsa_amd_memory_pool_can_migrate, "unknown dst_memory_pool",
    hsa_amd_memory_pool_can_migrate(f.pool, hsa_amd_memory_pool_t{f.bad()}, reinterpret_cast<bool*>(f.o())));
ROW(hsa_amd_memory_pool_can_migrate, "NULL result", hsa_amd_memory_pool_can_migrate(f.pool, f.pool, nullptr));
ROW(hsa_amd_memory_migrate, kNotInit, hsa_amd_memory_migrate(f.allocation, f.pool, 0));
ROW(hsa_amd_memory_migrate, "unknown pool", hsa_amd_memory_migrate(f.allocation, hsa_amd_memory_pool_t{f.bad()}, 0));
ROW(hsa_amd_memory_migrate, "NULL ptr", hsa_amd_memory_migrate(nullptr, f.pool, 0));
ROW(hsa_amd_memory_migrate, "flags not 0", hsa_amd_memory_migrate(f.allocation, f.pool, 1));
ROW(hsa_amd_memory_lock, kNotInit, hsa_amd_memory_lock(f.out, 64, nullptr, 0, OUT_PTR));
ROW(hsa_amd_memory_lock, "NULL host_ptr", hsa_amd_memory_lock(nullptr, 64, nullptr, 0, OUT_PTR));
ROW(hsa_amd_memory_lock, "size 0", hsa_amd_memory_lock(f.out, 0, nullptr, 0, OUT_PTR));
ROW(hsa_amd_memory_lock, "NULL agent_ptr", hsa_amd_memory_lock(f.out, 64, nullptr, 0, nullptr));
ROW(hsa_amd_memory_lock, "agents with num_agent 0", hsa_amd_memory_lock(f.out, 64, &f.agent, 0, OUT_PTR));
ROW(hsa_amd_memory_lock, "NULL agents with num_agent 1", hsa_amd_memory_lock(f.out, 64, nullptr, 1, OUT_PTR));
ROW(hsa_amd_memory_lock, "unknown agent",
    hsa_amd_memory_lock(f.out, 64, std::vector<hsa_agent_t>{f.bad_agent()}.data(), 1, OUT_PTR));
ROW(hsa_amd_memory_lock_to_pool, kNotInit, hsa_amd_memory_lock_to_pool(f.out, 64, nullptr, 0, f.pool, 0, OUT_PTR));
ROW(hsa_amd_memory_lock_to_pool, "unknown pool",
    hsa_amd_memory_lock_to_pool(f.out, 64, nullptr, 0, hsa_amd_memory_pool_t{f.bad()}, 0, OUT_PTR));
ROW(hsa_amd_memory_lock_to_pool, "flags not 0", hsa_amd_memory_lock_to_pool(f.out, 64, nullptr, 0, f.pool, 1, OUT_PTR));
ROW(hsa_amd_memory_lock_to_pool, "NULL host_ptr", hsa_amd_memory_lock_to_pool(nullptr, 64, nullptr, 0, f.pool, 0, OUT_PTR));
ROW(hsa_amd_memory_lock_to_pool, "unknown agent",
    hsa_amd_memory_lock_to_pool(f.out, 64, std::vector<hsa_agent_t>{f.bad_agent()}.data(), 1, f.pool, 0, OUT_PTR));
ROW(hsa_amd_memory_unlock, kNotInit, hsa_amd_memory_unlock(f.out));
ROW(hsa_amd_memory_unlock, "memory never locked", hsa_amd_memory_unlock(f.out));

uint32_t pointer_info(const void* ptr, uint32_t size, bool null_info, bool accessible_without_alloc) {
  hsa_amd_pointer_info_t info{};
  info.size = size;
  uint32_t count = 0;
  hsa_agent_t* list = nullptr;
  const uint32_t status = status_bits(
      hsa_amd_pointer_info(ptr, null_info ? nullptr : &info, nullptr, accessible_without_alloc ? &count : nullptr,
                           accessible_without_alloc ? &list : nullptr));
  return status;
}
ROW(hsa_amd_pointer_info, kNotInit, pointer_info(f.allocation, sizeof(hsa_amd_pointer_info_t), false, false));
ROW(hsa_amd_pointer_info, "NULL ptr", pointer_info(nullptr, sizeof(hsa_amd_pointer_info_t), false, false));
ROW(hsa_amd_pointer_info, "NULL info", pointer_info(f.allocation, sizeof(hsa_amd_pointer_info_t), true, false));
ROW(hsa_amd_pointer_info, "info->size too small for the type field", pointer_info(f.allocation, 4, false, false));
ROW(hsa_amd_pointer_info, "accessible agents asked for without alloc",
    pointer_info(f.allocation, sizeof(hsa_amd_pointer_info_t), false, true));
ROW(hsa_amd_pointer_info, "a pointer the runtime does not know (type UNKNOWN)",
    pointer_info(f.out, sizeof(hsa_amd_pointer_info_t), false, false));
ROW(hsa_amd_pointer_info_set_userdata, kNotInit, hsa_amd_pointer_info_set_userdata(f.allocation, nullptr));
ROW(hsa_amd_pointer_info_set_userdata, "a pointer the runtime does not know", hsa_amd_pointer_info_set_userdata(f.o(), nullptr));
ROW(hsa_amd_register_deallocation_callback, kNotInit,
    hsa_amd_register_deallocation_callback(f.allocation, &no_deallocation, nullptr));
ROW(hsa_amd_register_deallocation_callback, "NULL ptr",
    hsa_amd_register_deallocation_callback(nullptr, &no_deallocation, nullptr));
ROW(hsa_amd_register_deallocation_callback, "NULL callback",
    hsa_amd_register_deallocation_callback(f.allocation, nullptr, nullptr));
ROW(hsa_amd_register_deallocation_callback, "memory the runtime did not allocate",
    hsa_amd_register_deallocation_callback(f.o(), &no_deallocation, nullptr));
ROW(hsa_amd_deregister_deallocation_callback, kNotInit,
    hsa_amd_deregister_deallocation_callback(f.allocation, &no_deallocation));
ROW(hsa_amd_deregister_deallocation_callback, "NULL callback", hsa_amd_deregister_deallocation_callback(f.allocation, nullptr));
ROW(hsa_amd_deregister_deallocation_callback, "a callback never registered",
    hsa_amd_deregister_deallocation_callback(f.allocation, &no_deallocation));
ROW(hsa_amd_deregister_deallocation_callback, "memory the runtime did not allocate",
    hsa_amd_deregister_deallocation_callback(f.o(), &no_deallocation));

uint32_t svm(bool set, void* ptr, size_t size, uint64_t attribute, uint64_t value, bool null_list = false) {
  hsa_amd_svm_attribute_pair_t pair{attribute, value};
  auto* fn = set ? &hsa_amd_svm_attributes_set : &hsa_amd_svm_attributes_get;
  return status_bits(fn(ptr, size, null_list ? nullptr : &pair, 1));
}
ROW(hsa_amd_svm_attributes_set, kNotInit,
    svm(true, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED));
ROW(hsa_amd_svm_attributes_set, "NULL ptr",
    svm(true, nullptr, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED));
ROW(hsa_amd_svm_attributes_set, "size 0",
    svm(true, f.allocation, 0, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED));
ROW(hsa_amd_svm_attributes_set, "NULL attribute_list with attribute_count 1",
    svm(true, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0, true));
ROW(hsa_amd_svm_attributes_set, "HSA_AMD_SVM_ATTRIB_ACCESS_QUERY (a query)",
    svm(true, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, f.agent.handle));
ROW(hsa_amd_svm_attributes_set, "unknown attribute", svm(true, f.allocation, 4096, 0x777, 0));
ROW(hsa_amd_svm_attributes_set, "unknown global flag", svm(true, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 9));
ROW(hsa_amd_svm_attributes_set, "unknown agent",
    svm(true, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, f.bad()));
ROW(hsa_amd_svm_attributes_set, "valid attributes (accepted, nothing to change)",
    svm(true, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, f.agent.handle));
ROW(hsa_amd_svm_attributes_get, kNotInit, svm(false, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0));
ROW(hsa_amd_svm_attributes_get, "NULL ptr", svm(false, nullptr, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0));
ROW(hsa_amd_svm_attributes_get, "HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE (a setting)",
    svm(false, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, f.agent.handle));
ROW(hsa_amd_svm_attributes_get, "unknown agent in HSA_AMD_SVM_ATTRIB_ACCESS_QUERY",
    svm(false, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, f.bad()));
ROW(hsa_amd_svm_attributes_get, "valid queries", svm(false, f.allocation, 4096, HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0));
ROW(hsa_amd_svm_prefetch_async, kNotInit, hsa_amd_svm_prefetch_async(f.allocation, 4096, f.agent, 0, nullptr, f.signal));
ROW(hsa_amd_svm_prefetch_async, "NULL ptr", hsa_amd_svm_prefetch_async(nullptr, 4096, f.agent, 0, nullptr, f.signal));
ROW(hsa_amd_svm_prefetch_async, "unknown agent",
    hsa_amd_svm_prefetch_async(f.allocation, 4096, f.bad_agent(), 0, nullptr, f.signal));
ROW(hsa_amd_svm_prefetch_async, "the null completion signal",
    hsa_amd_svm_prefetch_async(f.allocation, 4096, f.agent, 0, nullptr, hsa_signal_t{0}));
ROW(hsa_amd_coherency_get_type, kNotInit, hsa_amd_coherency_get_type(f.agent, reinterpret_cast<hsa_amd_coherency_type_t*>(f.o())));
ROW(hsa_amd_coherency_get_type, "unknown agent",
    hsa_amd_coherency_get_type(f.bad_agent(), reinterpret_cast<hsa_amd_coherency_type_t*>(f.o())));
ROW(hsa_amd_coherency_get_type, "NULL type", hsa_amd_coherency_get_type(f.agent, nullptr));
ROW(hsa_amd_coherency_set_type, kNotInit, hsa_amd_coherency_set_type(f.agent, HSA_AMD_COHERENCY_TYPE_COHERENT));
ROW(hsa_amd_coherency_set_type, "unknown agent", hsa_amd_coherency_set_type(f.bad_agent(), HSA_AMD_COHERENCY_TYPE_COHERENT));
ROW(hsa_amd_coherency_set_type, "unknown type", hsa_amd_coherency_set_type(f.agent, static_cast<hsa_amd_coherency_type_t>(9)));
ROW(hsa_amd_profiling_async_copy_enable, kNotInit, hsa_amd_profiling_async_copy_enable(false));
ROW(hsa_amd_profiling_get_async_copy_time, kNotInit,
    hsa_amd_profiling_get_async_copy_time(f.signal, reinterpret_cast<hsa_amd_profiling_async_copy_time_t*>(f.o())));
ROW(hsa_amd_profiling_get_async_copy_time, "the null signal",
    hsa_amd_profiling_get_async_copy_time(hsa_signal_t{0}, reinterpret_cast<hsa_amd_profiling_async_copy_time_t*>(f.o())));
ROW(hsa_amd_profiling_get_async_copy_time, "unknown signal",
    hsa_amd_profiling_get_async_copy_time(f.bad_signal(), reinterpret_cast<hsa_amd_profiling_async_copy_time_t*>(f.o())));
ROW(hsa_amd_profiling_get_async_copy_time, "NULL time", hsa_amd_profiling_get_async_copy_time(f.signal, nullptr));
ROW(hsa_amd_profiling_get_dispatch_time, kNotInit,
    hsa_amd_profiling_get_dispatch_time(f.agent, f.signal, reinterpret_cast<hsa_amd_profiling_dispatch_time_t*>(f.o())));
ROW(hsa_amd_profiling_get_dispatch_time, "unknown agent",
    hsa_amd_profiling_get_dispatch_time(f.bad_agent(), f.signal,
                                        reinterpret_cast<hsa_amd_profiling_dispatch_time_t*>(f.o())));
ROW(hsa_amd_profiling_get_dispatch_time, "unknown signal",
    hsa_amd_profiling_get_dispatch_time(f.agent, f.bad_signal(),
                                        reinterpret_cast<hsa_amd_profiling_dispatch_time_t*>(f.o())));
ROW(hsa_amd_profiling_get_dispatch_time, "NULL time", hsa_amd_profiling_get_dispatch_time(f.agent, f.signal, nullptr));
ROW(hsa_amd_profiling_convert_tick_to_system_domain, kNotInit,
    hsa_amd_profiling_convert_tick_to_system_domain(f.agent, 1, reinterpret_cast<uint64_t*>(f.o())));
ROW(hsa_amd_profiling_convert_tick_to_system_domain, "unknown agent",
    hsa_amd_profiling_convert_tick_to_system_domain(f.bad_agent(), 1, reinterpret_cast<uint64_t*>(f.o())));
ROW(hsa_amd_profiling_convert_tick_to_system_domain, "NULL system_tick",
    hsa_amd_profiling_convert_tick_to_system_domain(f.agent, 1, nullptr));
ROW(hsa_amd_register_system_event_handler, kNotInit, hsa_amd_register_system_event_handler(&no_event, nullptr));
ROW(hsa_amd_register_system_event_handler, "NULL callback", hsa_amd_register_system_event_handler(nullptr, nullptr));
VALUE(hsa_amd_register_system_event_handler, "a second handler", {
  hsa_amd_register_system_event_handler(&no_event, nullptr);  // the first (unless one is there)
  return status_bits(hsa_amd_register_system_event_handler(&no_event, nullptr));
});

// ---------------------------------------------------------------------------
// Code objects and executables

#define READER_OUT reinterpret_cast<hsa_code_object_reader_t*>(f.o())
#define EXEC_OUT reinterpret_cast<hsa_executable_t*>(f.o())
ROW(hsa_code_object_reader_create_from_memory, kNotInit,
    hsa_code_object_reader_create_from_memory(f.out, 64, READER_OUT));
ROW(hsa_code_object_reader_create_from_memory, "NULL code_object",
    hsa_code_object_reader_create_from_memory(nullptr, 64, READER_OUT));
ROW(hsa_code_object_reader_create_from_memory, "size 0", hsa_code_object_reader_create_from_memory(f.out, 0, READER_OUT));
ROW(hsa_code_object_reader_create_from_memory, "NULL code_object_reader",
    hsa_code_object_reader_create_from_memory(f.out, 64, nullptr));
ROW(hsa_code_object_reader_create_from_file, kNotInit, hsa_code_object_reader_create_from_file(0, READER_OUT));
ROW(hsa_code_object_reader_create_from_file, "NULL code_object_reader", hsa_code_object_reader_create_from_file(0, nullptr));
ROW(hsa_code_object_reader_create_from_file, "an invalid file descriptor (-1)",
    hsa_code_object_reader_create_from_file(-1, READER_OUT));
VALUE(hsa_code_object_reader_create_from_file, "a descriptor that is not a regular file", {
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const uint32_t status = status_bits(hsa_code_object_reader_create_from_file(fd, READER_OUT));
  close(fd);
  return status;
});
VALUE(hsa_code_object_reader_create_from_file, "a 64 GiB sparse file (more than a code object may be)", {
  char path[] = "/tmp/hsa-cpu-sparse-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  unlink(path);
  uint32_t status = HSA_STATUS_ERROR_INVALID_FILE;  // a file system without sparse files: nothing to try
  if (ftruncate(fd, off_t{64} << 30) == 0) status = status_bits(hsa_code_object_reader_create_from_file(fd, READER_OUT));
  close(fd);
  return status;
});
ROW(hsa_code_object_reader_destroy, kNotInit, hsa_code_object_reader_destroy(f.reader));
ROW(hsa_code_object_reader_destroy, "unknown reader", hsa_code_object_reader_destroy(hsa_code_object_reader_t{f.bad()}));
ROW(hsa_executable_create, kNotInit, hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, EXEC_OUT));
ROW(hsa_executable_create, "NULL executable",
    hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, nullptr));
ROW(hsa_executable_create, "unknown profile",
    hsa_executable_create(static_cast<hsa_profile_t>(7), HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, EXEC_OUT));
ROW(hsa_executable_create, "unknown state",
    hsa_executable_create(HSA_PROFILE_FULL, static_cast<hsa_executable_state_t>(7), nullptr, EXEC_OUT));
VALUE(hsa_executable_create, "FROZEN state", {
  hsa_executable_t exec{};
  const uint32_t status = status_bits(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_FROZEN, nullptr, &exec));
  if (status == HSA_STATUS_SUCCESS) CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  return status;
});
ROW(hsa_executable_create_alt, kNotInit,
    hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, EXEC_OUT));
ROW(hsa_executable_create_alt, "NULL executable",
    hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, nullptr));
ROW(hsa_executable_create_alt, "unknown profile",
    hsa_executable_create_alt(static_cast<hsa_profile_t>(7), HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, EXEC_OUT));
ROW(hsa_executable_create_alt, "unknown rounding mode",
    hsa_executable_create_alt(HSA_PROFILE_FULL, static_cast<hsa_default_float_rounding_mode_t>(7), nullptr, EXEC_OUT));
ROW(hsa_executable_destroy, kNotInit, hsa_executable_destroy(f.exec));
ROW(hsa_executable_destroy, "unknown executable", hsa_executable_destroy(hsa_executable_t{f.bad()}));

// Loads `bytes` into a new executable for the agent; the status.
uint32_t load_bytes(Fx& f, const std::vector<char>& bytes) {
  hsa_code_object_reader_t reader{};
  REQUIRE(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &reader) == HSA_STATUS_SUCCESS);
  hsa_executable_t exec{};
  REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exec) ==
          HSA_STATUS_SUCCESS);
  const uint32_t status = status_bits(hsa_executable_load_agent_code_object(exec, f.agent, reader, nullptr, nullptr));
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
  return status;
}
ROW(hsa_executable_load_agent_code_object, kNotInit,
    hsa_executable_load_agent_code_object(f.open_exec, f.agent, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_agent_code_object, "unknown executable",
    hsa_executable_load_agent_code_object(hsa_executable_t{f.bad()}, f.agent, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_agent_code_object, "unknown agent",
    hsa_executable_load_agent_code_object(f.open_exec, f.bad_agent(), f.reader, nullptr, nullptr));
ROW(hsa_executable_load_agent_code_object, "unknown reader",
    hsa_executable_load_agent_code_object(f.open_exec, f.agent, hsa_code_object_reader_t{f.bad()}, nullptr, nullptr));
ROW(hsa_executable_load_agent_code_object, "a frozen executable",
    hsa_executable_load_agent_code_object(f.exec, f.agent, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_agent_code_object, "an amdgcn code object (another ISA)",
    load_bytes(f, read_file(HSA_CPU_TEST_AMDGCN)));
ROW(hsa_executable_load_agent_code_object, "bytes that are not an ELF image", load_bytes(f, std::vector<char>(256, 'x')));
ROW(hsa_executable_load_program_code_object, kNotInit,
    hsa_executable_load_program_code_object(f.open_exec, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_program_code_object, "unknown executable",
    hsa_executable_load_program_code_object(hsa_executable_t{f.bad()}, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_program_code_object, "unknown reader",
    hsa_executable_load_program_code_object(f.open_exec, hsa_code_object_reader_t{f.bad()}, nullptr, nullptr));
ROW(hsa_executable_load_program_code_object, "a frozen executable",
    hsa_executable_load_program_code_object(f.exec, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_program_code_object, "a host code object (an agent code object)",
    hsa_executable_load_program_code_object(f.open_exec, f.reader, nullptr, nullptr));
ROW(hsa_executable_load_code_object, kNotInit,
    hsa_executable_load_code_object(f.open_exec, f.agent, hsa_code_object_t{f.bad()}, nullptr));
ROW(hsa_executable_load_code_object, "unknown executable",
    hsa_executable_load_code_object(hsa_executable_t{f.bad()}, f.agent, hsa_code_object_t{f.bad()}, nullptr));
ROW(hsa_executable_load_code_object, "unknown agent",
    hsa_executable_load_code_object(f.open_exec, f.bad_agent(), hsa_code_object_t{f.bad()}, nullptr));
ROW(hsa_executable_load_code_object, "a frozen executable",
    hsa_executable_load_code_object(f.exec, f.agent, hsa_code_object_t{f.bad()}, nullptr));
ROW(hsa_executable_load_code_object, "any v2 code object",
    hsa_executable_load_code_object(f.open_exec, f.agent, hsa_code_object_t{f.bad()}, nullptr));
ROW(hsa_executable_freeze, kNotInit, hsa_executable_freeze(f.exec, nullptr));
ROW(hsa_executable_freeze, "unknown executable", hsa_executable_freeze(hsa_executable_t{f.bad()}, nullptr));
ROW(hsa_executable_freeze, "a frozen executable", hsa_executable_freeze(f.exec, nullptr));
ROW(hsa_executable_get_info, kNotInit, hsa_executable_get_info(f.exec, HSA_EXECUTABLE_INFO_STATE, f.o()));
ROW(hsa_executable_get_info, "unknown executable",
    hsa_executable_get_info(hsa_executable_t{f.bad()}, HSA_EXECUTABLE_INFO_STATE, f.o()));
ROW(hsa_executable_get_info, "NULL value", hsa_executable_get_info(f.exec, HSA_EXECUTABLE_INFO_STATE, nullptr));
ROW(hsa_executable_get_info, "unknown attribute",
    hsa_executable_get_info(f.exec, static_cast<hsa_executable_info_t>(77), f.o()));

// Defines `name` twice in a new executable (agent variables when `agent`);
// the second status.
uint32_t define_twice(Fx& f, bool agent) {
  hsa_executable_t exec{};
  REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exec) ==
          HSA_STATUS_SUCCESS);
  auto define = [&] {
    return agent ? hsa_executable_agent_global_variable_define(exec, f.agent, "twice", f.out)
                 : hsa_executable_global_variable_define(exec, "twice", f.out);
  };
  CHECK(define() == HSA_STATUS_SUCCESS);
  const uint32_t second = status_bits(define());
  CHECK(hsa_executable_destroy(exec) == HSA_STATUS_SUCCESS);
  return second;
}
ROW(hsa_executable_global_variable_define, kNotInit, hsa_executable_global_variable_define(f.open_exec, "v", f.o()));
ROW(hsa_executable_global_variable_define, "unknown executable",
    hsa_executable_global_variable_define(hsa_executable_t{f.bad()}, "v", f.o()));
ROW(hsa_executable_global_variable_define, "NULL variable_name",
    hsa_executable_global_variable_define(f.open_exec, nullptr, f.o()));
ROW(hsa_executable_global_variable_define, "NULL address", hsa_executable_global_variable_define(f.open_exec, "v", nullptr));
ROW(hsa_executable_global_variable_define, "a frozen executable", hsa_executable_global_variable_define(f.exec, "v", f.o()));
ROW(hsa_executable_global_variable_define, "a name defined before", define_twice(f, false));
ROW(hsa_executable_agent_global_variable_define, kNotInit,
    hsa_executable_agent_global_variable_define(f.open_exec, f.agent, "v", f.o()));
ROW(hsa_executable_agent_global_variable_define, "unknown executable",
    hsa_executable_agent_global_variable_define(hsa_executable_t{f.bad()}, f.agent, "v", f.o()));
ROW(hsa_executable_agent_global_variable_define, "unknown agent",
    hsa_executable_agent_global_variable_define(f.open_exec, f.bad_agent(), "v", f.o()));
ROW(hsa_executable_agent_global_variable_define, "NULL variable_name",
    hsa_executable_agent_global_variable_define(f.open_exec, f.agent, nullptr, f.o()));
ROW(hsa_executable_agent_global_variable_define, "a frozen executable",
    hsa_executable_agent_global_variable_define(f.exec, f.agent, "v", f.o()));
ROW(hsa_executable_agent_global_variable_define, "a name defined before for the agent", define_twice(f, true));
ROW(hsa_executable_readonly_variable_define, kNotInit,
    hsa_executable_readonly_variable_define(f.open_exec, f.agent, "v", f.o()));
ROW(hsa_executable_readonly_variable_define, "unknown executable",
    hsa_executable_readonly_variable_define(hsa_executable_t{f.bad()}, f.agent, "v", f.o()));
ROW(hsa_executable_readonly_variable_define, "unknown agent",
    hsa_executable_readonly_variable_define(f.open_exec, f.bad_agent(), "v", f.o()));
ROW(hsa_executable_readonly_variable_define, "NULL variable_name",
    hsa_executable_readonly_variable_define(f.open_exec, f.agent, nullptr, f.o()));
ROW(hsa_executable_readonly_variable_define, "a frozen executable",
    hsa_executable_readonly_variable_define(f.exec, f.agent, "v", f.o()));
ROW(hsa_executable_validate, kNotInit, hsa_executable_validate(f.exec, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_executable_validate, "unknown executable",
    hsa_executable_validate(hsa_executable_t{f.bad()}, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_executable_validate, "NULL result", hsa_executable_validate(f.exec, nullptr));
ROW(hsa_executable_validate_alt, kNotInit, hsa_executable_validate_alt(f.exec, nullptr, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_executable_validate_alt, "unknown executable",
    hsa_executable_validate_alt(hsa_executable_t{f.bad()}, nullptr, reinterpret_cast<uint32_t*>(f.o())));
ROW(hsa_executable_validate_alt, "NULL result", hsa_executable_validate_alt(f.exec, nullptr, nullptr));
#define SYMBOL_OUT reinterpret_cast<hsa_executable_symbol_t*>(f.o())
ROW(hsa_executable_get_symbol_by_name, kNotInit, hsa_executable_get_symbol_by_name(f.exec, HSA_CONFORMANCE_KERNEL, &f.agent, SYMBOL_OUT));
ROW(hsa_executable_get_symbol_by_name, "unknown executable",
    hsa_executable_get_symbol_by_name(hsa_executable_t{f.bad()}, HSA_CONFORMANCE_KERNEL, &f.agent, SYMBOL_OUT));
ROW(hsa_executable_get_symbol_by_name, "NULL symbol_name",
    hsa_executable_get_symbol_by_name(f.exec, nullptr, &f.agent, SYMBOL_OUT));
ROW(hsa_executable_get_symbol_by_name, "NULL symbol", hsa_executable_get_symbol_by_name(f.exec, HSA_CONFORMANCE_KERNEL, &f.agent, nullptr));
ROW(hsa_executable_get_symbol_by_name, "unknown name",
    hsa_executable_get_symbol_by_name(f.exec, "no_such_kernel", &f.agent, SYMBOL_OUT));
VALUE(hsa_executable_get_symbol_by_name, "unknown agent", {
  const hsa_agent_t bad = f.bad_agent();
  return status_bits(hsa_executable_get_symbol_by_name(f.exec, HSA_CONFORMANCE_KERNEL, &bad, SYMBOL_OUT));
});
ROW(hsa_executable_get_symbol, kNotInit, hsa_executable_get_symbol(f.exec, nullptr, HSA_CONFORMANCE_KERNEL, f.agent, 0, SYMBOL_OUT));
ROW(hsa_executable_get_symbol, "unknown executable",
    hsa_executable_get_symbol(hsa_executable_t{f.bad()}, nullptr, HSA_CONFORMANCE_KERNEL, f.agent, 0, SYMBOL_OUT));
ROW(hsa_executable_get_symbol, "NULL symbol_name", hsa_executable_get_symbol(f.exec, nullptr, nullptr, f.agent, 0, SYMBOL_OUT));
ROW(hsa_executable_get_symbol, "NULL symbol", hsa_executable_get_symbol(f.exec, nullptr, HSA_CONFORMANCE_KERNEL, f.agent, 0, nullptr));
ROW(hsa_executable_get_symbol, "unknown name",
    hsa_executable_get_symbol(f.exec, nullptr, "no_such_kernel", f.agent, 0, SYMBOL_OUT));
ROW(hsa_executable_symbol_get_info, kNotInit,
    hsa_executable_symbol_get_info(f.kernel, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, f.o()));
ROW(hsa_executable_symbol_get_info, "unknown symbol",
    hsa_executable_symbol_get_info(hsa_executable_symbol_t{f.bad()}, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, f.o()));
ROW(hsa_executable_symbol_get_info, "NULL value", hsa_executable_symbol_get_info(f.kernel, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, nullptr));
ROW(hsa_executable_symbol_get_info, "unknown attribute",
    hsa_executable_symbol_get_info(f.kernel, static_cast<hsa_executable_symbol_info_t>(777), f.o()));
ROW(hsa_executable_symbol_get_info, "a variable attribute of a kernel symbol",
    hsa_executable_symbol_get_info(f.kernel, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, f.o()));
ROW(hsa_executable_iterate_symbols, kNotInit,
    hsa_executable_iterate_symbols(
        f.exec, [](hsa_executable_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_executable_iterate_symbols, "unknown executable",
    hsa_executable_iterate_symbols(
        hsa_executable_t{f.bad()}, [](hsa_executable_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; },
        nullptr));
ROW(hsa_executable_iterate_symbols, "NULL callback", hsa_executable_iterate_symbols(f.exec, nullptr, nullptr));
ROW(hsa_executable_iterate_agent_symbols, kNotInit,
    hsa_executable_iterate_agent_symbols(
        f.exec, f.agent, [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; },
        nullptr));
ROW(hsa_executable_iterate_agent_symbols, "unknown executable",
    hsa_executable_iterate_agent_symbols(
        hsa_executable_t{f.bad()}, f.agent,
        [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_executable_iterate_agent_symbols, "unknown agent",
    hsa_executable_iterate_agent_symbols(
        f.exec, f.bad_agent(),
        [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_executable_iterate_agent_symbols, "NULL callback",
    hsa_executable_iterate_agent_symbols(f.exec, f.agent, nullptr, nullptr));
ROW(hsa_executable_iterate_program_symbols, kNotInit,
    hsa_executable_iterate_program_symbols(
        f.exec, [](hsa_executable_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_executable_iterate_program_symbols, "unknown executable",
    hsa_executable_iterate_program_symbols(
        hsa_executable_t{f.bad()}, [](hsa_executable_t, hsa_executable_symbol_t, void*) { return HSA_STATUS_SUCCESS; },
        nullptr));
ROW(hsa_executable_iterate_program_symbols, "NULL callback", hsa_executable_iterate_program_symbols(f.exec, nullptr, nullptr));

// v2 code objects: none can exist, so every handle is unknown.
#define CODE_OBJECT hsa_code_object_t{f.bad()}
ROW(hsa_code_object_serialize, kNotInit,
    hsa_code_object_serialize(CODE_OBJECT, &no_alloc, {}, nullptr, OUT_PTR, reinterpret_cast<size_t*>(f.out + 8)));
ROW(hsa_code_object_serialize, "NULL alloc_callback",
    hsa_code_object_serialize(CODE_OBJECT, nullptr, {}, nullptr, OUT_PTR, reinterpret_cast<size_t*>(f.out + 8)));
ROW(hsa_code_object_serialize, "NULL serialized_code_object",
    hsa_code_object_serialize(CODE_OBJECT, &no_alloc, {}, nullptr, nullptr, reinterpret_cast<size_t*>(f.out + 8)));
ROW(hsa_code_object_serialize, "NULL serialized_code_object_size",
    hsa_code_object_serialize(CODE_OBJECT, &no_alloc, {}, nullptr, OUT_PTR, nullptr));
ROW(hsa_code_object_serialize, "any code object (none can exist)",
    hsa_code_object_serialize(CODE_OBJECT, &no_alloc, {}, nullptr, OUT_PTR, reinterpret_cast<size_t*>(f.out + 8)));
#define CODE_OBJECT_OUT reinterpret_cast<hsa_code_object_t*>(f.out + 64)
ROW(hsa_code_object_deserialize, kNotInit, hsa_code_object_deserialize(f.out, 64, nullptr, CODE_OBJECT_OUT));
ROW(hsa_code_object_deserialize, "NULL serialized_code_object",
    hsa_code_object_deserialize(nullptr, 64, nullptr, CODE_OBJECT_OUT));
ROW(hsa_code_object_deserialize, "size 0", hsa_code_object_deserialize(f.out, 0, nullptr, CODE_OBJECT_OUT));
ROW(hsa_code_object_deserialize, "NULL code_object", hsa_code_object_deserialize(f.out, 64, nullptr, nullptr));
ROW(hsa_code_object_deserialize, "bytes that are no v2 code object",
    hsa_code_object_deserialize(f.out, 64, nullptr, CODE_OBJECT_OUT));
ROW(hsa_code_object_destroy, kNotInit, hsa_code_object_destroy(CODE_OBJECT));
ROW(hsa_code_object_destroy, "any code object (none can exist)", hsa_code_object_destroy(CODE_OBJECT));
ROW(hsa_code_object_get_info, kNotInit, hsa_code_object_get_info(CODE_OBJECT, HSA_CODE_OBJECT_INFO_VERSION, f.o()));
ROW(hsa_code_object_get_info, "NULL value", hsa_code_object_get_info(CODE_OBJECT, HSA_CODE_OBJECT_INFO_VERSION, nullptr));
ROW(hsa_code_object_get_info, "any code object (none can exist)",
    hsa_code_object_get_info(CODE_OBJECT, HSA_CODE_OBJECT_INFO_VERSION, f.o()));
#define CODE_SYMBOL_OUT reinterpret_cast<hsa_code_symbol_t*>(f.o())
ROW(hsa_code_object_get_symbol, kNotInit, hsa_code_object_get_symbol(CODE_OBJECT, "k", CODE_SYMBOL_OUT));
ROW(hsa_code_object_get_symbol, "NULL symbol_name", hsa_code_object_get_symbol(CODE_OBJECT, nullptr, CODE_SYMBOL_OUT));
ROW(hsa_code_object_get_symbol, "NULL symbol", hsa_code_object_get_symbol(CODE_OBJECT, "k", nullptr));
ROW(hsa_code_object_get_symbol, "any code object (none can exist)",
    hsa_code_object_get_symbol(CODE_OBJECT, "k", CODE_SYMBOL_OUT));
ROW(hsa_code_object_get_symbol_from_name, kNotInit,
    hsa_code_object_get_symbol_from_name(CODE_OBJECT, nullptr, "k", CODE_SYMBOL_OUT));
ROW(hsa_code_object_get_symbol_from_name, "NULL symbol_name",
    hsa_code_object_get_symbol_from_name(CODE_OBJECT, nullptr, nullptr, CODE_SYMBOL_OUT));
ROW(hsa_code_object_get_symbol_from_name, "any code object (none can exist)",
    hsa_code_object_get_symbol_from_name(CODE_OBJECT, nullptr, "k", CODE_SYMBOL_OUT));
ROW(hsa_code_object_iterate_symbols, kNotInit,
    hsa_code_object_iterate_symbols(
        CODE_OBJECT, [](hsa_code_object_t, hsa_code_symbol_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_code_object_iterate_symbols, "NULL callback", hsa_code_object_iterate_symbols(CODE_OBJECT, nullptr, nullptr));
ROW(hsa_code_object_iterate_symbols, "any code object (none can exist)",
    hsa_code_object_iterate_symbols(
        CODE_OBJECT, [](hsa_code_object_t, hsa_code_symbol_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_code_symbol_get_info, kNotInit,
    hsa_code_symbol_get_info(hsa_code_symbol_t{f.bad()}, HSA_CODE_SYMBOL_INFO_TYPE, f.o()));
ROW(hsa_code_symbol_get_info, "NULL value", hsa_code_symbol_get_info(hsa_code_symbol_t{f.bad()}, HSA_CODE_SYMBOL_INFO_TYPE, nullptr));
ROW(hsa_code_symbol_get_info, "any code symbol (none can exist)",
    hsa_code_symbol_get_info(hsa_code_symbol_t{f.bad()}, HSA_CODE_SYMBOL_INFO_TYPE, f.o()));

// ---------------------------------------------------------------------------
// Images and samplers

#define MASK_OUT reinterpret_cast<uint32_t*>(f.o())
#define GEOMETRY HSA_EXT_IMAGE_GEOMETRY_2D
#define LINEAR HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR
#define OPAQUE HSA_EXT_IMAGE_DATA_LAYOUT_OPAQUE
#define RW HSA_ACCESS_PERMISSION_RW
#define IMAGE_INFO_OUT reinterpret_cast<hsa_ext_image_data_info_t*>(f.o())
#define IMAGE_OUT reinterpret_cast<hsa_ext_image_t*>(f.out + 512)
#define IMAGE hsa_ext_image_t{f.bad()}
ROW(hsa_ext_image_get_capability, kNotInit, hsa_ext_image_get_capability(f.agent, GEOMETRY, &f.image.format, MASK_OUT));
ROW(hsa_ext_image_get_capability, "unknown agent",
    hsa_ext_image_get_capability(f.bad_agent(), GEOMETRY, &f.image.format, MASK_OUT));
ROW(hsa_ext_image_get_capability, "unknown geometry",
    hsa_ext_image_get_capability(f.agent, static_cast<hsa_ext_image_geometry_t>(77), &f.image.format, MASK_OUT));
ROW(hsa_ext_image_get_capability, "NULL image_format", hsa_ext_image_get_capability(f.agent, GEOMETRY, nullptr, MASK_OUT));
ROW(hsa_ext_image_get_capability, "NULL capability_mask",
    hsa_ext_image_get_capability(f.agent, GEOMETRY, &f.image.format, nullptr));
ROW(hsa_ext_image_get_capability, "any format (capability NOT_SUPPORTED)",
    hsa_ext_image_get_capability(f.agent, GEOMETRY, &f.image.format, MASK_OUT));
ROW(hsa_ext_image_get_capability_with_layout, kNotInit,
    hsa_ext_image_get_capability_with_layout(f.agent, GEOMETRY, &f.image.format, LINEAR, MASK_OUT));
ROW(hsa_ext_image_get_capability_with_layout, "unknown agent",
    hsa_ext_image_get_capability_with_layout(f.bad_agent(), GEOMETRY, &f.image.format, LINEAR, MASK_OUT));
ROW(hsa_ext_image_get_capability_with_layout, "NULL image_format",
    hsa_ext_image_get_capability_with_layout(f.agent, GEOMETRY, nullptr, LINEAR, MASK_OUT));
ROW(hsa_ext_image_get_capability_with_layout, "the OPAQUE layout",
    hsa_ext_image_get_capability_with_layout(f.agent, GEOMETRY, &f.image.format, OPAQUE, MASK_OUT));
ROW(hsa_ext_image_get_capability_with_layout, "NULL capability_mask",
    hsa_ext_image_get_capability_with_layout(f.agent, GEOMETRY, &f.image.format, LINEAR, nullptr));
ROW(hsa_ext_image_get_capability_with_layout, "any format (capability NOT_SUPPORTED)",
    hsa_ext_image_get_capability_with_layout(f.agent, GEOMETRY, &f.image.format, LINEAR, MASK_OUT));
ROW(hsa_ext_image_data_get_info, kNotInit, hsa_ext_image_data_get_info(f.agent, &f.image, RW, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info, "unknown agent", hsa_ext_image_data_get_info(f.bad_agent(), &f.image, RW, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info, "NULL image_descriptor", hsa_ext_image_data_get_info(f.agent, nullptr, RW, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info, "unknown access permission",
    hsa_ext_image_data_get_info(f.agent, &f.image, static_cast<hsa_access_permission_t>(9), IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info, "NULL image_data_info", hsa_ext_image_data_get_info(f.agent, &f.image, RW, nullptr));
ROW(hsa_ext_image_data_get_info, "any format", hsa_ext_image_data_get_info(f.agent, &f.image, RW, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info_with_layout, kNotInit,
    hsa_ext_image_data_get_info_with_layout(f.agent, &f.image, RW, LINEAR, 64, 0, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info_with_layout, "unknown agent",
    hsa_ext_image_data_get_info_with_layout(f.bad_agent(), &f.image, RW, LINEAR, 64, 0, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info_with_layout, "NULL image_descriptor",
    hsa_ext_image_data_get_info_with_layout(f.agent, nullptr, RW, LINEAR, 64, 0, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info_with_layout, "the OPAQUE layout",
    hsa_ext_image_data_get_info_with_layout(f.agent, &f.image, RW, OPAQUE, 64, 0, IMAGE_INFO_OUT));
ROW(hsa_ext_image_data_get_info_with_layout, "NULL image_data_info",
    hsa_ext_image_data_get_info_with_layout(f.agent, &f.image, RW, LINEAR, 64, 0, nullptr));
ROW(hsa_ext_image_data_get_info_with_layout, "any format",
    hsa_ext_image_data_get_info_with_layout(f.agent, &f.image, RW, LINEAR, 64, 0, IMAGE_INFO_OUT));
ROW(hsa_ext_image_create, kNotInit, hsa_ext_image_create(f.agent, &f.image, f.out, RW, IMAGE_OUT));
ROW(hsa_ext_image_create, "unknown agent", hsa_ext_image_create(f.bad_agent(), &f.image, f.out, RW, IMAGE_OUT));
ROW(hsa_ext_image_create, "NULL image_descriptor", hsa_ext_image_create(f.agent, nullptr, f.out, RW, IMAGE_OUT));
ROW(hsa_ext_image_create, "NULL image_data", hsa_ext_image_create(f.agent, &f.image, nullptr, RW, IMAGE_OUT));
ROW(hsa_ext_image_create, "unknown access permission",
    hsa_ext_image_create(f.agent, &f.image, f.out, static_cast<hsa_access_permission_t>(9), IMAGE_OUT));
ROW(hsa_ext_image_create, "NULL image", hsa_ext_image_create(f.agent, &f.image, f.out, RW, nullptr));
ROW(hsa_ext_image_create, "any format", hsa_ext_image_create(f.agent, &f.image, f.out, RW, IMAGE_OUT));
ROW(hsa_ext_image_create_with_layout, kNotInit,
    hsa_ext_image_create_with_layout(f.agent, &f.image, f.out, RW, LINEAR, 64, 0, IMAGE_OUT));
ROW(hsa_ext_image_create_with_layout, "unknown agent",
    hsa_ext_image_create_with_layout(f.bad_agent(), &f.image, f.out, RW, LINEAR, 64, 0, IMAGE_OUT));
ROW(hsa_ext_image_create_with_layout, "NULL image_descriptor",
    hsa_ext_image_create_with_layout(f.agent, nullptr, f.out, RW, LINEAR, 64, 0, IMAGE_OUT));
ROW(hsa_ext_image_create_with_layout, "the OPAQUE layout",
    hsa_ext_image_create_with_layout(f.agent, &f.image, f.out, RW, OPAQUE, 64, 0, IMAGE_OUT));
ROW(hsa_ext_image_create_with_layout, "NULL image",
    hsa_ext_image_create_with_layout(f.agent, &f.image, f.out, RW, LINEAR, 64, 0, nullptr));
ROW(hsa_ext_image_create_with_layout, "any format",
    hsa_ext_image_create_with_layout(f.agent, &f.image, f.out, RW, LINEAR, 64, 0, IMAGE_OUT));
ROW(hsa_ext_image_destroy, kNotInit, hsa_ext_image_destroy(f.agent, IMAGE));
ROW(hsa_ext_image_destroy, "unknown agent", hsa_ext_image_destroy(f.bad_agent(), IMAGE));
ROW(hsa_ext_image_destroy, "any image (none can exist)", hsa_ext_image_destroy(f.agent, IMAGE));
ROW(hsa_ext_image_copy, kNotInit, hsa_ext_image_copy(f.agent, IMAGE, &f.dim, IMAGE, &f.dim, &f.dim));
ROW(hsa_ext_image_copy, "unknown agent", hsa_ext_image_copy(f.bad_agent(), IMAGE, &f.dim, IMAGE, &f.dim, &f.dim));
ROW(hsa_ext_image_copy, "NULL src_offset", hsa_ext_image_copy(f.agent, IMAGE, nullptr, IMAGE, &f.dim, &f.dim));
ROW(hsa_ext_image_copy, "NULL dst_offset", hsa_ext_image_copy(f.agent, IMAGE, &f.dim, IMAGE, nullptr, &f.dim));
ROW(hsa_ext_image_copy, "NULL range", hsa_ext_image_copy(f.agent, IMAGE, &f.dim, IMAGE, &f.dim, nullptr));
ROW(hsa_ext_image_copy, "any image (none can exist)", hsa_ext_image_copy(f.agent, IMAGE, &f.dim, IMAGE, &f.dim, &f.dim));
ROW(hsa_ext_image_import, kNotInit, hsa_ext_image_import(f.agent, f.out, 64, 0, IMAGE, &f.image_region));
ROW(hsa_ext_image_import, "unknown agent", hsa_ext_image_import(f.bad_agent(), f.out, 64, 0, IMAGE, &f.image_region));
ROW(hsa_ext_image_import, "NULL src_memory", hsa_ext_image_import(f.agent, nullptr, 64, 0, IMAGE, &f.image_region));
ROW(hsa_ext_image_import, "NULL image_region", hsa_ext_image_import(f.agent, f.out, 64, 0, IMAGE, nullptr));
ROW(hsa_ext_image_import, "any image (none can exist)", hsa_ext_image_import(f.agent, f.out, 64, 0, IMAGE, &f.image_region));
ROW(hsa_ext_image_export, kNotInit, hsa_ext_image_export(f.agent, IMAGE, f.out, 64, 0, &f.image_region));
ROW(hsa_ext_image_export, "unknown agent", hsa_ext_image_export(f.bad_agent(), IMAGE, f.out, 64, 0, &f.image_region));
ROW(hsa_ext_image_export, "NULL dst_memory", hsa_ext_image_export(f.agent, IMAGE, nullptr, 64, 0, &f.image_region));
ROW(hsa_ext_image_export, "NULL image_region", hsa_ext_image_export(f.agent, IMAGE, f.out, 64, 0, nullptr));
ROW(hsa_ext_image_export, "any image (none can exist)", hsa_ext_image_export(f.agent, IMAGE, f.out, 64, 0, &f.image_region));
ROW(hsa_ext_image_clear, kNotInit, hsa_ext_image_clear(f.agent, IMAGE, f.out, &f.image_region));
ROW(hsa_ext_image_clear, "unknown agent", hsa_ext_image_clear(f.bad_agent(), IMAGE, f.out, &f.image_region));
ROW(hsa_ext_image_clear, "NULL data", hsa_ext_image_clear(f.agent, IMAGE, nullptr, &f.image_region));
ROW(hsa_ext_image_clear, "NULL image_region", hsa_ext_image_clear(f.agent, IMAGE, f.out, nullptr));
ROW(hsa_ext_image_clear, "any image (none can exist)", hsa_ext_image_clear(f.agent, IMAGE, f.out, &f.image_region));
#define SAMPLER_OUT reinterpret_cast<hsa_ext_sampler_t*>(f.o())
ROW(hsa_ext_sampler_create, kNotInit, hsa_ext_sampler_create(f.agent, &f.sampler, SAMPLER_OUT));
ROW(hsa_ext_sampler_create, "unknown agent", hsa_ext_sampler_create(f.bad_agent(), &f.sampler, SAMPLER_OUT));
ROW(hsa_ext_sampler_create, "NULL sampler_descriptor", hsa_ext_sampler_create(f.agent, nullptr, SAMPLER_OUT));
ROW(hsa_ext_sampler_create, "NULL sampler", hsa_ext_sampler_create(f.agent, &f.sampler, nullptr));
ROW(hsa_ext_sampler_create, "any descriptor", hsa_ext_sampler_create(f.agent, &f.sampler, SAMPLER_OUT));
ROW(hsa_ext_sampler_destroy, kNotInit, hsa_ext_sampler_destroy(f.agent, hsa_ext_sampler_t{f.bad()}));
ROW(hsa_ext_sampler_destroy, "unknown agent", hsa_ext_sampler_destroy(f.bad_agent(), hsa_ext_sampler_t{f.bad()}));
ROW(hsa_ext_sampler_destroy, "any sampler (none can exist)", hsa_ext_sampler_destroy(f.agent, hsa_ext_sampler_t{f.bad()}));
ROW(hsa_amd_image_create, kNotInit, hsa_amd_image_create(f.agent, &f.image, &f.image_layout, f.out, RW, IMAGE_OUT));
ROW(hsa_amd_image_create, "unknown agent",
    hsa_amd_image_create(f.bad_agent(), &f.image, &f.image_layout, f.out, RW, IMAGE_OUT));
ROW(hsa_amd_image_create, "NULL image_descriptor",
    hsa_amd_image_create(f.agent, nullptr, &f.image_layout, f.out, RW, IMAGE_OUT));
ROW(hsa_amd_image_create, "NULL image_layout", hsa_amd_image_create(f.agent, &f.image, nullptr, f.out, RW, IMAGE_OUT));
ROW(hsa_amd_image_create, "NULL image_data",
    hsa_amd_image_create(f.agent, &f.image, &f.image_layout, nullptr, RW, IMAGE_OUT));
ROW(hsa_amd_image_create, "NULL image", hsa_amd_image_create(f.agent, &f.image, &f.image_layout, f.out, RW, nullptr));
ROW(hsa_amd_image_create, "any format", hsa_amd_image_create(f.agent, &f.image, &f.image_layout, f.out, RW, IMAGE_OUT));
#define IMAGE_2D_LIMIT static_cast<hsa_agent_info_t>(HSA_EXT_AGENT_INFO_IMAGE_2D_MAX_ELEMENTS)
ROW(hsa_amd_image_get_info_max_dim, kNotInit, hsa_amd_image_get_info_max_dim(f.agent, IMAGE_2D_LIMIT, f.o()));
ROW(hsa_amd_image_get_info_max_dim, "unknown agent", hsa_amd_image_get_info_max_dim(f.bad_agent(), IMAGE_2D_LIMIT, f.o()));
ROW(hsa_amd_image_get_info_max_dim, "NULL value", hsa_amd_image_get_info_max_dim(f.agent, IMAGE_2D_LIMIT, nullptr));
ROW(hsa_amd_image_get_info_max_dim, "an attribute that is no image limit",
    hsa_amd_image_get_info_max_dim(f.agent, HSA_AGENT_INFO_NAME, f.o()));
ROW(hsa_amd_image_get_info_max_dim, "an image limit (0: no images)",
    hsa_amd_image_get_info_max_dim(f.agent, IMAGE_2D_LIMIT, f.o()));

// ---------------------------------------------------------------------------
// Finalization

#define PROGRAM_OUT reinterpret_cast<hsa_ext_program_t*>(f.o())
#define MODEL HSA_MACHINE_MODEL_LARGE
#define ROUNDING HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR
#define PROGRAM hsa_ext_program_t{f.bad()}
ROW(hsa_ext_program_create, kNotInit, hsa_ext_program_create(MODEL, HSA_PROFILE_FULL, ROUNDING, nullptr, PROGRAM_OUT));
ROW(hsa_ext_program_create, "NULL program", hsa_ext_program_create(MODEL, HSA_PROFILE_FULL, ROUNDING, nullptr, nullptr));
ROW(hsa_ext_program_create, "unknown machine model",
    hsa_ext_program_create(static_cast<hsa_machine_model_t>(7), HSA_PROFILE_FULL, ROUNDING, nullptr, PROGRAM_OUT));
ROW(hsa_ext_program_create, "unknown profile",
    hsa_ext_program_create(MODEL, static_cast<hsa_profile_t>(7), ROUNDING, nullptr, PROGRAM_OUT));
ROW(hsa_ext_program_create, "unknown rounding mode",
    hsa_ext_program_create(MODEL, HSA_PROFILE_FULL, static_cast<hsa_default_float_rounding_mode_t>(7), nullptr,
                           PROGRAM_OUT));
ROW(hsa_ext_program_destroy, kNotInit, hsa_ext_program_destroy(f.program));
ROW(hsa_ext_program_destroy, "unknown program", hsa_ext_program_destroy(PROGRAM));
ROW(hsa_ext_program_add_module, kNotInit, hsa_ext_program_add_module(f.program, reinterpret_cast<hsa_ext_module_t>(f.o())));
ROW(hsa_ext_program_add_module, "unknown program", hsa_ext_program_add_module(PROGRAM, reinterpret_cast<hsa_ext_module_t>(f.o())));
ROW(hsa_ext_program_add_module, "any BRIG module (no finalizer)",
    hsa_ext_program_add_module(f.program, reinterpret_cast<hsa_ext_module_t>(f.o())));
ROW(hsa_ext_program_iterate_modules, kNotInit,
    hsa_ext_program_iterate_modules(
        f.program, [](hsa_ext_program_t, hsa_ext_module_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_ext_program_iterate_modules, "unknown program",
    hsa_ext_program_iterate_modules(
        PROGRAM, [](hsa_ext_program_t, hsa_ext_module_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr));
ROW(hsa_ext_program_iterate_modules, "NULL callback", hsa_ext_program_iterate_modules(f.program, nullptr, nullptr));
ROW(hsa_ext_program_get_info, kNotInit, hsa_ext_program_get_info(f.program, HSA_EXT_PROGRAM_INFO_PROFILE, f.o()));
ROW(hsa_ext_program_get_info, "unknown program", hsa_ext_program_get_info(PROGRAM, HSA_EXT_PROGRAM_INFO_PROFILE, f.o()));
ROW(hsa_ext_program_get_info, "NULL value", hsa_ext_program_get_info(f.program, HSA_EXT_PROGRAM_INFO_PROFILE, nullptr));
ROW(hsa_ext_program_get_info, "unknown attribute",
    hsa_ext_program_get_info(f.program, static_cast<hsa_ext_program_info_t>(77), f.o()));
#define FINALIZE(program, isa, out) \
  hsa_ext_program_finalize(program, isa, 0, hsa_ext_control_directives_t{}, nullptr, HSA_CODE_OBJECT_TYPE_PROGRAM, out)
ROW(hsa_ext_program_finalize, kNotInit, FINALIZE(f.program, f.isa, CODE_OBJECT_OUT));
ROW(hsa_ext_program_finalize, "unknown program", FINALIZE(PROGRAM, f.isa, CODE_OBJECT_OUT));
ROW(hsa_ext_program_finalize, "unknown isa", FINALIZE(f.program, hsa_isa_t{f.bad()}, CODE_OBJECT_OUT));
ROW(hsa_ext_program_finalize, "NULL code_object", FINALIZE(f.program, f.isa, nullptr));
ROW(hsa_ext_program_finalize, "an empty program (no finalizer)", FINALIZE(f.program, f.isa, CODE_OBJECT_OUT));

// ---------------------------------------------------------------------------
// IPC and interop

#define IPC_OUT reinterpret_cast<hsa_amd_ipc_memory_t*>(f.o())
#define IPC_HANDLE reinterpret_cast<const hsa_amd_ipc_memory_t*>(f.unknown)
ROW(hsa_amd_ipc_memory_create, kNotInit, hsa_amd_ipc_memory_create(f.allocation, Fx::kAllocationBytes, IPC_OUT));
ROW(hsa_amd_ipc_memory_create, "NULL ptr", hsa_amd_ipc_memory_create(nullptr, Fx::kAllocationBytes, IPC_OUT));
ROW(hsa_amd_ipc_memory_create, "len 0", hsa_amd_ipc_memory_create(f.allocation, 0, IPC_OUT));
ROW(hsa_amd_ipc_memory_create, "NULL handle", hsa_amd_ipc_memory_create(f.allocation, Fx::kAllocationBytes, nullptr));
ROW(hsa_amd_ipc_memory_create, "an allocation (memory is private to the process)",
    hsa_amd_ipc_memory_create(f.allocation, Fx::kAllocationBytes, IPC_OUT));
ROW(hsa_amd_ipc_memory_attach, kNotInit, hsa_amd_ipc_memory_attach(IPC_HANDLE, 4096, 1, &f.agent, OUT_PTR));
ROW(hsa_amd_ipc_memory_attach, "NULL handle", hsa_amd_ipc_memory_attach(nullptr, 4096, 1, &f.agent, OUT_PTR));
ROW(hsa_amd_ipc_memory_attach, "len 0", hsa_amd_ipc_memory_attach(IPC_HANDLE, 0, 1, &f.agent, OUT_PTR));
ROW(hsa_amd_ipc_memory_attach, "NULL mapped_ptr", hsa_amd_ipc_memory_attach(IPC_HANDLE, 4096, 1, &f.agent, nullptr));
ROW(hsa_amd_ipc_memory_attach, "unknown agent",
    hsa_amd_ipc_memory_attach(IPC_HANDLE, 4096, 1, std::vector<hsa_agent_t>{f.bad_agent()}.data(), OUT_PTR));
ROW(hsa_amd_ipc_memory_attach, "any handle (none can exist)", hsa_amd_ipc_memory_attach(IPC_HANDLE, 4096, 1, &f.agent, OUT_PTR));
ROW(hsa_amd_ipc_memory_detach, kNotInit, hsa_amd_ipc_memory_detach(f.o()));
ROW(hsa_amd_ipc_memory_detach, "a pointer never attached", hsa_amd_ipc_memory_detach(f.o()));
ROW(hsa_amd_ipc_signal_create, kNotInit, hsa_amd_ipc_signal_create(f.signal, IPC_OUT));
ROW(hsa_amd_ipc_signal_create, "the null signal", hsa_amd_ipc_signal_create(hsa_signal_t{0}, IPC_OUT));
ROW(hsa_amd_ipc_signal_create, "NULL handle", hsa_amd_ipc_signal_create(f.signal, nullptr));
ROW(hsa_amd_ipc_signal_create, "a signal (none is IPC-capable)", hsa_amd_ipc_signal_create(f.signal, IPC_OUT));
ROW(hsa_amd_ipc_signal_attach, kNotInit, hsa_amd_ipc_signal_attach(IPC_HANDLE, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_ipc_signal_attach, "NULL handle", hsa_amd_ipc_signal_attach(nullptr, reinterpret_cast<hsa_signal_t*>(f.o())));
ROW(hsa_amd_ipc_signal_attach, "NULL signal", hsa_amd_ipc_signal_attach(IPC_HANDLE, nullptr));
ROW(hsa_amd_ipc_signal_attach, "any handle (none can exist)",
    hsa_amd_ipc_signal_attach(IPC_HANDLE, reinterpret_cast<hsa_signal_t*>(f.o())));
#define MAP(num, agents, size, ptr) hsa_amd_interop_map_buffer(num, agents, 3, 0, size, ptr, nullptr, nullptr)
#define SIZE_OUT reinterpret_cast<size_t*>(f.out + 8)
ROW(hsa_amd_interop_map_buffer, kNotInit, MAP(1, &f.agent, SIZE_OUT, OUT_PTR));
ROW(hsa_amd_interop_map_buffer, "num_agents 0", MAP(0, &f.agent, SIZE_OUT, OUT_PTR));
ROW(hsa_amd_interop_map_buffer, "NULL agents", MAP(1, nullptr, SIZE_OUT, OUT_PTR));
ROW(hsa_amd_interop_map_buffer, "NULL size", MAP(1, &f.agent, nullptr, OUT_PTR));
ROW(hsa_amd_interop_map_buffer, "NULL ptr", MAP(1, &f.agent, SIZE_OUT, nullptr));
VALUE(hsa_amd_interop_map_buffer, "unknown agent", {
  hsa_agent_t bad = f.bad_agent();
  return status_bits(MAP(1, &bad, SIZE_OUT, OUT_PTR));
});
ROW(hsa_amd_interop_map_buffer, "any interop handle (no graphics interop)", MAP(1, &f.agent, SIZE_OUT, OUT_PTR));
ROW(hsa_amd_interop_unmap_buffer, kNotInit, hsa_amd_interop_unmap_buffer(f.o()));
ROW(hsa_amd_interop_unmap_buffer, "a pointer never mapped", hsa_amd_interop_unmap_buffer(f.o()));

// ---------------------------------------------------------------------------
// Entry points without a status (values)

// Runs `call` for every memory order of `ops`; the values' OR.
template <typename... Fn>
uint64_t all_orders(Fn... ops) {
  uint64_t combined = 0;
  (void)std::initializer_list<int>{(combined |= uint64_t(ops()), 0)...};
  return combined;
}
#define QUEUE_ORDERS(op, ...)                                                                              \
  all_orders([&] { return op##_scacquire(__VA_ARGS__); }, [&] { return op##_acquire(__VA_ARGS__); },     \
             [&] { return op##_relaxed(__VA_ARGS__); })
#define RMW_ORDERS(op, ...)                                                                                 \
  all_orders([&] { return op##_scacq_screl(__VA_ARGS__); }, [&] { return op##_acq_rel(__VA_ARGS__); },      \
             [&] { return op##_scacquire(__VA_ARGS__); }, [&] { return op##_acquire(__VA_ARGS__); },        \
             [&] { return op##_relaxed(__VA_ARGS__); }, [&] { return op##_screlease(__VA_ARGS__); },        \
             [&] { return op##_release(__VA_ARGS__); })
VALUE(hsa_queue_load_read_index_scacquire, "NULL queue", return QUEUE_ORDERS(hsa_queue_load_read_index, nullptr););
VALUE(hsa_queue_load_write_index_scacquire, "NULL queue", return QUEUE_ORDERS(hsa_queue_load_write_index, nullptr););
VALUE(hsa_queue_add_write_index_scacq_screl, "NULL queue", return RMW_ORDERS(hsa_queue_add_write_index, nullptr, 1););
VALUE(hsa_queue_cas_write_index_scacq_screl, "NULL queue", return RMW_ORDERS(hsa_queue_cas_write_index, nullptr, 0, 1););
VALUE(hsa_queue_store_write_index_relaxed, "NULL queue: nothing happens", {
  hsa_queue_store_write_index_relaxed(nullptr, 5);
  hsa_queue_store_write_index_screlease(nullptr, 5);
  hsa_queue_store_write_index_release(nullptr, 5);
  return 0;
});
VALUE(hsa_queue_store_read_index_relaxed, "NULL queue: nothing happens", {
  hsa_queue_store_read_index_relaxed(nullptr, 5);
  hsa_queue_store_read_index_screlease(nullptr, 5);
  hsa_queue_store_read_index_release(nullptr, 5);
  return 0;
});
VALUE(hsa_signal_load_scacquire, "the null signal", return QUEUE_ORDERS(hsa_signal_load, hsa_signal_t{0}););
VALUE(hsa_signal_store_relaxed, "the null signal: nothing happens", {
  hsa_signal_store_relaxed(hsa_signal_t{0}, 5);
  hsa_signal_store_screlease(hsa_signal_t{0}, 5);
  hsa_signal_store_release(hsa_signal_t{0}, 5);
  hsa_signal_silent_store_relaxed(hsa_signal_t{0}, 5);
  hsa_signal_silent_store_screlease(hsa_signal_t{0}, 5);
  return uint64_t(hsa_signal_load_relaxed(f.signal) - 7);  // and no other signal changed
});
#define VOID_RMW(op)                                                                          \
  all_orders([&] { op##_scacq_screl(hsa_signal_t{0}, 5); return 0; },                         \
             [&] { op##_acq_rel(hsa_signal_t{0}, 5); return 0; },                             \
             [&] { op##_scacquire(hsa_signal_t{0}, 5); return 0; },                           \
             [&] { op##_acquire(hsa_signal_t{0}, 5); return 0; },                             \
             [&] { op##_relaxed(hsa_signal_t{0}, 5); return 0; },                             \
             [&] { op##_screlease(hsa_signal_t{0}, 5); return 0; },                           \
             [&] { op##_release(hsa_signal_t{0}, 5); return 0; })
VALUE(hsa_signal_add_scacq_screl, "the null signal: nothing happens", {
  return VOID_RMW(hsa_signal_add) | VOID_RMW(hsa_signal_subtract) | VOID_RMW(hsa_signal_and) |
         VOID_RMW(hsa_signal_or) | VOID_RMW(hsa_signal_xor) | uint64_t(hsa_signal_load_relaxed(f.signal) - 7);
});
VALUE(hsa_signal_exchange_scacq_screl, "the null signal", return RMW_ORDERS(hsa_signal_exchange, hsa_signal_t{0}, 5););
VALUE(hsa_signal_cas_scacq_screl, "the null signal", return RMW_ORDERS(hsa_signal_cas, hsa_signal_t{0}, 0, 5););
#define WAITS(signal, condition)                                                                                     \
  all_orders([&] { return hsa_signal_wait_scacquire(signal, condition, 0, 1000000, HSA_WAIT_STATE_BLOCKED); },      \
             [&] { return hsa_signal_wait_acquire(signal, condition, 0, 1000000, HSA_WAIT_STATE_BLOCKED); },        \
             [&] { return hsa_signal_wait_relaxed(signal, condition, 0, 1000000, HSA_WAIT_STATE_BLOCKED); })
VALUE(hsa_signal_wait_scacquire, "the null signal", return WAITS(hsa_signal_t{0}, HSA_SIGNAL_CONDITION_EQ););
VALUE(hsa_signal_wait_scacquire, "unknown condition: the signal's value (7), at once",
      return WAITS(f.signal, static_cast<hsa_signal_condition_t>(9)););
uint64_t wait_any(uint32_t count, hsa_signal_t* signals, uint32_t condition) {
  hsa_signal_condition_t conditions[1];
  memcpy(conditions, &condition, sizeof(condition));
  hsa_signal_value_t values[1] = {7};
  hsa_signal_value_t value = 0;
  return hsa_amd_signal_wait_any(count, signals, conditions, values, 1000000, HSA_WAIT_STATE_BLOCKED, &value);
}
VALUE(hsa_amd_signal_wait_any, kNotInit, return wait_any(1, &f.signal, HSA_SIGNAL_CONDITION_EQ););
VALUE(hsa_amd_signal_wait_any, "signal_count 0", return wait_any(0, &f.signal, HSA_SIGNAL_CONDITION_EQ););
VALUE(hsa_amd_signal_wait_any, "NULL signals", return wait_any(1, nullptr, HSA_SIGNAL_CONDITION_EQ););
VALUE(hsa_amd_signal_wait_any, "unknown condition",
      return wait_any(1, &f.signal, 9););
VALUE(hsa_amd_signal_wait_any, "a condition already met (its index)", return wait_any(1, &f.signal, HSA_SIGNAL_CONDITION_EQ););

// The runtime under test: "hsa-cpu" or "hsa-cuda" (its build version's first word).
std::string runtime_name() {
  const char* version = nullptr;
  REQUIRE(hsa_system_get_info(static_cast<hsa_system_info_t>(HSA_AMD_SYSTEM_INFO_BUILD_VERSION), &version) ==
          HSA_STATUS_SUCCESS);
  REQUIRE(version != nullptr);
  const std::string text(version);
  return text.substr(0, text.find(' '));
}

// Rows a back-end answers otherwise by its nature: runtime, row, what it
// answers instead, and why.
struct Difference {
  const char* runtime;
  const char* key;
  const char* expected;
  const char* why;
};
const Difference kRuntimeDifferences[] = {
    {"hsa-cuda", "hsa_queue_create | HSA_QUEUE_TYPE_COOPERATIVE (not supported by the agent)", "HSA_STATUS_SUCCESS",
     "its GPU agents take cooperative queues (HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES)"},
    {"hsa-cuda", "hsa_amd_svm_attributes_set | valid attributes (accepted, nothing to change)", "HSA_STATUS_ERROR",
     "no SVM (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED false): the SVM calls fail after their checks"},
    {"hsa-cuda", "hsa_amd_svm_attributes_get | valid queries", "HSA_STATUS_ERROR",
     "no SVM (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED false): the SVM calls fail after their checks"},
};

const Difference* difference_of(const std::string& runtime, const std::string& key) {
  for (const Difference& d : kRuntimeDifferences)
    if (d.runtime != nullptr && runtime == d.runtime && key == d.key) return &d;
  return nullptr;
}

// Whether the runtime exports the row's function (hsa-cpu's own extension is
// not everyone's).
bool exported(const Row& row) { return dlsym(RTLD_DEFAULT, row.function.c_str()) != nullptr; }

uint64_t expected_value(const std::string& text) {
  if (text == "UINT32_MAX") return UINT32_MAX;
  return std::stoull(text);
}

}  // namespace

TEST_SUITE("conformance") {

TEST_CASE("every row of CONFORMANCE.md has a test, every test a row, every exported status function rows") {
  const std::vector<Row> rows = read_table();
  REQUIRE(rows.size() > 500);
  std::set<std::string> keys;
  std::set<std::string> functions_with_rows, functions_not_initialized;
  for (const Row& row : rows) {
    CAPTURE(row.line);
    INFO(row.key());
    CHECK(keys.insert(row.key()).second);  // no row twice
    CHECK(cases().count(row.key()) == 1);
    functions_with_rows.insert(row.function);
    if (row.text == kNotInit) functions_not_initialized.insert(row.function);
    if (!row.basis.empty()) {
      CHECK((row.basis == "spec" || row.basis == "ROCR" || row.basis == "hsa-cpu"));
      CHECK(status_values().count(row.expected) == 1);
    }
  }
  for (const auto& [key, c] : cases()) {
    INFO(key);
    CHECK(keys.count(key) == 1);
  }
  // Every hsa_status_t entry point of the headers that hsa-cpu exports.
  const auto lists = header_retvals();
  REQUIRE(lists.size() > 120);
  int exported = 0;
  for (const auto& [function, statuses] : lists) {
    if (dlsym(RTLD_DEFAULT, function.c_str()) == nullptr) continue;
    ++exported;
    INFO(function);
    CHECK(functions_with_rows.count(function) == 1);
    if (function != "hsa_init" && function != "hsa_shut_down") CHECK(functions_not_initialized.count(function) == 1);
  }
  CHECK(exported >= 130);
}

TEST_CASE("a row whose basis is the specification expects a status the function's @retval list names") {
  const auto lists = header_retvals();
  for (const Row& row : read_table()) {
    if (row.basis != "spec") continue;
    INFO(row.key() << " (CONFORMANCE.md line " << row.line << ")");
    const auto list = lists.find(row.function);
    REQUIRE(list != lists.end());
    CHECK(list->second.count(row.expected) == 1);
  }
}

TEST_CASE("every function answers as its rows say: before hsa_init, then for each bad argument") {
  const std::vector<Row> rows = read_table();
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  const std::string runtime = runtime_name();
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  Fx f;
  auto check_row = [&](const Row& row) {
    INFO(row.key() << " (CONFORMANCE.md line " << row.line << ", " << runtime << ")");
    const auto c = cases().find(row.key());
    REQUIRE(c != cases().end());
    const uint64_t got = c->second(f);
    const Difference* d = difference_of(runtime, row.key());
    const std::string& expected = d != nullptr ? std::string(d->expected) : row.expected;
    if (row.basis.empty())
      CHECK(got == expected_value(expected));
    else
      CHECK_MESSAGE(got == status_values().at(expected), "got " << status_name(uint32_t(got)));
  };
  // Before hsa_init.
  for (const Row& row : rows) {
    if (row.text != kNotInit && row.key() != "hsa_shut_down | not initialized (more shut downs than inits)")
      continue;
    if (exported(row)) check_row(row);
  }
  // Initialized: one runtime for every other row (the log names anything a
  // row left alive at the end).
  ScopedEnv log_env("HSA_CPU_LOG", "1");
  ScopedEnv cuda_log_env("HSA_CUDA_LOG", "1");
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  f.create();
  int ran = 0;
  std::string log = capture_stderr([&] {
    for (const Row& row : rows) {
      if (row.text == kNotInit || row.key() == "hsa_shut_down | not initialized (more shut downs than inits)")
        continue;
      if (!exported(row)) continue;
      check_row(row);
      ++ran;
    }
    f.destroy();
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
  });
  CHECK(ran > 350);
  INFO(log);
  CHECK(log.find("still live") == std::string::npos);
}

TEST_CASE("hsa_init and hsa_shut_down are reference counted") {
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  // An object created under the second init outlives its shut down.
  hsa_signal_t signal = make_signal(3);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_load_relaxed(signal) == 3);
  hsa_agent_t agent{};
  CHECK(hsa_iterate_agents(&agent_break, nullptr) == HSA_STATUS_INFO_BREAK);
  // The last shut down ends the runtime: everything says so.
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(signal) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_iterate_agents(&agent_break, nullptr) == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);  // still, not a count below zero
  // A new runtime knows no handle of the old one.
  REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(signal) == HSA_STATUS_ERROR_INVALID_SIGNAL);
  CHECK(hsa_iterate_agents(
            [](hsa_agent_t a, void* data) {
              *static_cast<hsa_agent_t*>(data) = a;
              return HSA_STATUS_INFO_BREAK;
            },
            &agent) == HSA_STATUS_INFO_BREAK);
  CHECK(agent.handle != 0);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  // Many nested inits are counted one by one.
  for (int i = 0; i < 1000; ++i) REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
  for (int i = 0; i < 999; ++i) REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  uint16_t major = 0;
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_shut_down() == HSA_STATUS_SUCCESS);
  CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_ERROR_NOT_INITIALIZED);
}

}  // TEST_SUITE
