// How the project's host code writes values into messages: one helper per
// kind of value, shared by the ICD, the validation layer, the executable
// reader and the tools, so every message spells a value the same way.
//
// Header-only, C++20; thread-safe (pure functions).
#ifndef XGPU_COMMON_FORMAT_H_
#define XGPU_COMMON_FORMAT_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "xgpu/xgpu.h"

namespace xgpu_common {

// "0x1f": a value in hexadecimal, with the 0x prefix (handles, addresses,
// flags, magics).
inline std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// A size or offset argument: XGPU_WHOLE_SIZE by name, any other value in
// decimal.
inline std::string size_text(uint64_t value) {
  if (value == XGPU_WHOLE_SIZE) return "XGPU_WHOLE_SIZE";
  return std::to_string(value);
}

}  // namespace xgpu_common

#endif  // XGPU_COMMON_FORMAT_H_
