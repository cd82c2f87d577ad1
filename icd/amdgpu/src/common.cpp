#include "common.h"

#include <cstdio>

#include "xgpu/xgpu_enum_string.h"

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace xgpu::amdgpu {

const char* result_name(XgpuResult result) { return xgpuResultString(result); }

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
