// Issue: translating a recorded program into AQL packets and kernargs for one
// submission (spec/command-buffer-format.md, "Issue"). Per command: a copy
// plus resolving references. Headers are published in packet order after
// every body is written.
//
// Thread-safety: thread-safe; several submissions of one program may be
// issued concurrently (each into its own reserved ranges).
#pragma once

#include <cstdint>
#include <string>

#include "command_buffer.h"
#include "seam.h"

namespace xgpu::amdgpu {

// Resolves `ref` for a submission with `bindings`: on success stores the
// device address and the length in bytes. On failure fills *out_error.
bool resolve_buffer_ref(const xgpu_amdgpu_buffer_ref_t& ref, const XgpuBufferBinding* bindings,
                        uint32_t binding_count, uint64_t* out_address, uint64_t* out_length,
                        std::string* out_error);

// AQL header (16 bits) from its fields.
uint16_t make_packet_header(uint32_t type, bool barrier, uint32_t acquire_scope, uint32_t release_scope);

XgpuResult issue_program(const CommandBuffer& command_buffer, IssueTarget& target);

}  // namespace xgpu::amdgpu
