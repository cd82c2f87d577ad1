#pragma once
// What issue.cpp (issuing a program's packets) and issue_describe.cpp
// (describing its commands for fault messages) share, and only they.
//
// Thread-safety: thread-safe (the program is immutable after End).

#include <cstdint>
#include <string>

#include "command_buffer.h"

namespace xgpu::amdgpu::issue_impl {

// AQL packets a command writes.
inline uint32_t command_packets(const xgpu_amdgpu_command_header_t* command) {
  switch (command->type) {
    case XGPU_AMDGPU_COMMAND_DISPATCH:
    case XGPU_AMDGPU_COMMAND_FILL:
    case XGPU_AMDGPU_COMMAND_COPY:
    case XGPU_AMDGPU_COMMAND_UPDATE:
    case XGPU_AMDGPU_COMMAND_TIMESTAMP:
      return 1;
    case XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT:
      return (command->flags & XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_DYNAMIC) ? 2 : 1;
    default:
      return 0;
  }
}

// --- issue_describe.cpp ---

// The API function that recorded a command of `type`.
const char* function_of(uint32_t type);
// Labels open around command `index` of `program`: "'outer' > 'inner'", or
// empty.
std::string labels_around(const CommandProgram& program, uint32_t index);
// "(70000, 1, 1)"
std::string triple(const uint32_t v[3]);

}  // namespace xgpu::amdgpu::issue_impl
