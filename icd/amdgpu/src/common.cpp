#include "common.h"

#include "xgpu/xgpu_enum_string.h"

#include <cstdlib>
#include <ctime>

namespace xgpu::amdgpu {

const char* result_name(XgpuResult result) { return xgpuResultString(result); }

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
