// libxgpu_test_hsa_shim.so: an HSA runtime for the driver's tests that is
// hsa-cpu with chosen calls made to fail. It links hsa-cpu (so every entry
// point it does not define is found through it by dlsym on its handle) and
// wraps a few entry points; selected with XGPU_HSA_LIBRARY=<this library>.
//
// Environment (read at each call, so a test may change it between calls):
//   XGPU_HSA_SHIM_FAIL=<call>[:<attribute>]  that call (for that attribute
//       value, decimal or 0x hex) returns the failure status instead of
//       running; wrapped: hsa_init, hsa_system_get_info, hsa_agent_get_info,
//       hsa_isa_get_info_alt, hsa_amd_memory_pool_get_info,
//       hsa_executable_symbol_get_info, hsa_executable_destroy
//   XGPU_HSA_SHIM_FAIL_STATUS=<n>      the status returned (default HSA_STATUS_ERROR)
//   XGPU_HSA_SHIM_FAIL_COUNT=<n>       only the first n matching calls fail
//   XGPU_HSA_SHIM_NO_KERNEL_DISPATCH=1  no agent reports HSA_AGENT_FEATURE_KERNEL_DISPATCH
//   XGPU_HSA_SHIM_AGENT=<CPU|GPU>:<vendor>  every agent reports that HSA_AGENT_INFO_DEVICE
//       and HSA_AGENT_INFO_VENDOR_NAME (as ROCR's CPU agent "CPU:AMD" would, or a GPU)
//
// Thread-safety: as hsa-cpu's; the failure count is guarded by a mutex.
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#define SHIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint64_t kAnyAttribute = UINT64_MAX;  // the "attribute" of calls that have none
constexpr size_t kVendorNameBytes = 64;          // HSA_AGENT_INFO_VENDOR_NAME's buffer (hsa.h)

std::mutex g_mutex;          // guards the two below
std::string g_counted_spec;  // XGPU_HSA_SHIM_FAIL[_COUNT] the count is for
uint64_t g_failures = 0;     // matching calls failed under g_counted_spec

// The hsa-cpu entry point `name` (never this library's own).
void* real(const char* name) {
  static void* target = dlopen(XGPU_HSA_SHIM_TARGET, RTLD_NOW | RTLD_LOCAL);
  void* symbol = target ? dlsym(target, name) : nullptr;
  if (!symbol) {
    std::fprintf(stderr, "hsa shim: %s not found in %s\n", name, XGPU_HSA_SHIM_TARGET);
    std::abort();
  }
  return symbol;
}

#define SHIM_REAL(name) reinterpret_cast<decltype(&::name)>(real(#name))

// True (and counted) when XGPU_HSA_SHIM_FAIL names `call` and `attribute`.
bool should_fail(const char* call, uint64_t attribute) {
  const char* spec = std::getenv("XGPU_HSA_SHIM_FAIL");
  if (!spec || !*spec) return false;
  const std::string text = spec;
  const size_t colon = text.find(':');
  if (text.substr(0, colon) != call) return false;
  // Without ":<attribute>" the call fails for every attribute.
  if (colon != std::string::npos && std::strtoull(text.c_str() + colon + 1, nullptr, 0) != attribute) return false;
  const char* count = std::getenv("XGPU_HSA_SHIM_FAIL_COUNT");
  if (!count || !*count) return true;
  // The count restarts whenever the configuration changes.
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string configuration = text + "/" + count;
  if (configuration != g_counted_spec) {
    g_counted_spec = configuration;
    g_failures = 0;
  }
  return g_failures++ < std::strtoull(count, nullptr, 0);
}

// An HSA enum argument as its bits, without loading it as the enum (AMD
// extension values lie outside the core enum's range; UBSan flags such loads).
template <typename Enum>
uint32_t bits(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(uint32_t), "HSA enums are 32-bit");
  uint32_t out;
  std::memcpy(&out, &value, sizeof(out));
  return out;
}

hsa_status_t failure_status() {
  const char* status = std::getenv("XGPU_HSA_SHIM_FAIL_STATUS");
  return status && *status ? hsa_status_t(std::strtoul(status, nullptr, 0)) : HSA_STATUS_ERROR;
}

}  // namespace

SHIM_EXPORT hsa_status_t hsa_init() {
  if (should_fail("hsa_init", kAnyAttribute)) return failure_status();
  return SHIM_REAL(hsa_init)();
}

SHIM_EXPORT hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  if (should_fail("hsa_system_get_info", bits(attribute))) return failure_status();
  return SHIM_REAL(hsa_system_get_info)(hsa_system_info_t(bits(attribute)), value);
}

SHIM_EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  const uint32_t attribute_bits = bits(attribute);
  if (should_fail("hsa_agent_get_info", attribute_bits)) return failure_status();
  const hsa_status_t status = SHIM_REAL(hsa_agent_get_info)(agent, hsa_agent_info_t(attribute_bits), value);
  const char* no_dispatch = std::getenv("XGPU_HSA_SHIM_NO_KERNEL_DISPATCH");
  if (status == HSA_STATUS_SUCCESS && attribute_bits == uint32_t(HSA_AGENT_INFO_FEATURE) && no_dispatch && *no_dispatch &&
      std::strcmp(no_dispatch, "0") != 0) {
    uint32_t features = 0;
    std::memcpy(&features, value, sizeof(features));
    features &= ~uint32_t(HSA_AGENT_FEATURE_KERNEL_DISPATCH);
    std::memcpy(value, &features, sizeof(features));
  }
  const char* pretend = std::getenv("XGPU_HSA_SHIM_AGENT");
  if (status == HSA_STATUS_SUCCESS && pretend && std::strchr(pretend, ':')) {
    const std::string text = pretend;
    const std::string type = text.substr(0, text.find(':'));
    const std::string vendor = text.substr(text.find(':') + 1);
    if (attribute_bits == uint32_t(HSA_AGENT_INFO_DEVICE)) {
      const hsa_device_type_t device = type == "GPU" ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
      std::memcpy(value, &device, sizeof(device));
    } else if (attribute_bits == uint32_t(HSA_AGENT_INFO_VENDOR_NAME)) {
      char name[kVendorNameBytes] = {};
      std::strncpy(name, vendor.c_str(), sizeof(name) - 1);
      std::memcpy(value, name, sizeof(name));
    }
  }
  return status;
}

SHIM_EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
  if (should_fail("hsa_isa_get_info_alt", bits(attribute))) return failure_status();
  return SHIM_REAL(hsa_isa_get_info_alt)(isa, hsa_isa_info_t(bits(attribute)), value);
}

SHIM_EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool,
                                                      hsa_amd_memory_pool_info_t attribute, void* value) {
  if (should_fail("hsa_amd_memory_pool_get_info", bits(attribute))) return failure_status();
  return SHIM_REAL(hsa_amd_memory_pool_get_info)(pool, hsa_amd_memory_pool_info_t(bits(attribute)), value);
}

SHIM_EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t symbol,
                                                        hsa_executable_symbol_info_t attribute, void* value) {
  if (should_fail("hsa_executable_symbol_get_info", bits(attribute))) return failure_status();
  return SHIM_REAL(hsa_executable_symbol_get_info)(symbol, hsa_executable_symbol_info_t(bits(attribute)), value);
}

SHIM_EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  // The runtime frees a failed-to-destroy executable at hsa_shut_down.
  if (should_fail("hsa_executable_destroy", kAnyAttribute)) return failure_status();
  return SHIM_REAL(hsa_executable_destroy)(executable);
}
