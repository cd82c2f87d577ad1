// Small helpers shared by the reader's translation units. Internal.
#pragma once

#include <cstdint>

namespace xgpu::executable {

// True when [offset, offset + size) lies inside [0, limit), without overflow.
inline bool range_inside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

}  // namespace xgpu::executable
