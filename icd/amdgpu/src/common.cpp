#include "common.h"

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace xgpu::amdgpu {

const char* result_name(XgpuResult result) {
  switch (result) {
    case XGPU_SUCCESS: return "XGPU_SUCCESS";
    case XGPU_NOT_READY: return "XGPU_NOT_READY";
    case XGPU_TIMEOUT: return "XGPU_TIMEOUT";
    case XGPU_INCOMPLETE: return "XGPU_INCOMPLETE";
    case XGPU_ERROR_OUT_OF_HOST_MEMORY: return "XGPU_ERROR_OUT_OF_HOST_MEMORY";
    case XGPU_ERROR_OUT_OF_DEVICE_MEMORY: return "XGPU_ERROR_OUT_OF_DEVICE_MEMORY";
    case XGPU_ERROR_INITIALIZATION_FAILED: return "XGPU_ERROR_INITIALIZATION_FAILED";
    case XGPU_ERROR_DEVICE_LOST: return "XGPU_ERROR_DEVICE_LOST";
    case XGPU_ERROR_MEMORY_MAP_FAILED: return "XGPU_ERROR_MEMORY_MAP_FAILED";
    case XGPU_ERROR_LAYER_NOT_PRESENT: return "XGPU_ERROR_LAYER_NOT_PRESENT";
    case XGPU_ERROR_EXTENSION_NOT_PRESENT: return "XGPU_ERROR_EXTENSION_NOT_PRESENT";
    case XGPU_ERROR_FEATURE_NOT_PRESENT: return "XGPU_ERROR_FEATURE_NOT_PRESENT";
    case XGPU_ERROR_INCOMPATIBLE_DRIVER: return "XGPU_ERROR_INCOMPATIBLE_DRIVER";
    case XGPU_ERROR_TOO_MANY_OBJECTS: return "XGPU_ERROR_TOO_MANY_OBJECTS";
    case XGPU_ERROR_INVALID_ARGUMENT: return "XGPU_ERROR_INVALID_ARGUMENT";
    case XGPU_ERROR_INVALID_EXECUTABLE: return "XGPU_ERROR_INVALID_EXECUTABLE";
    case XGPU_ERROR_INCOMPATIBLE_EXECUTABLE: return "XGPU_ERROR_INCOMPATIBLE_EXECUTABLE";
    case XGPU_ERROR_NOT_FOUND: return "XGPU_ERROR_NOT_FOUND";
    case XGPU_ERROR_INVALID_USAGE: return "XGPU_ERROR_INVALID_USAGE";
    case XGPU_ERROR_SEMAPHORE_FAILED: return "XGPU_ERROR_SEMAPHORE_FAILED";
    case XGPU_ERROR_UNKNOWN: return "XGPU_ERROR_UNKNOWN";
    default: return "XgpuResult(?)";
  }
}

int32_t message_id_number(const char* name) {
  if (!name) return 0;
  constexpr uint32_t kOffsetBasis = 0x811C9DC5u;  // FNV-1a 32-bit
  constexpr uint32_t kPrime = 0x01000193u;
  uint32_t hash = kOffsetBasis;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(name); *p; ++p) hash = (hash ^ *p) * kPrime;
  return static_cast<int32_t>(hash);
}

bool is_rule_id(const char* id) {
  static constexpr char kRulePrefix[] = "XGPU-VUID-";
  return id && std::strncmp(id, kRulePrefix, sizeof(kRulePrefix) - 1) == 0;
}

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value && value[0] != '\0' && !(value[0] == '0' && value[1] == '\0');
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace xgpu::amdgpu
