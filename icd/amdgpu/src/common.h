// Shared helpers of the runtime half: handle casts, error reporting helpers,
// environment flags.
//
// Thread-safety: everything here is stateless or thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_icd.h"
#include "xgpu_common/format.h"

namespace xgpu::amdgpu {

// Non-dispatchable handles are the object's address.
template <typename Object, typename Handle>
Object* from_handle(Handle handle) {
  return reinterpret_cast<Object*>(handle);
}
template <typename Handle, typename Object>
Handle to_handle(Object* object) {
  return reinterpret_cast<Handle>(object);
}

// "XGPU_ERROR_OUT_OF_DEVICE_MEMORY" etc.
const char* result_name(XgpuResult result);

// messageIdNumber of a message ID (spec/api.md 1.5): the 32-bit FNV-1a hash
// of the name's bytes as int32_t; 0 for nullptr.
int32_t message_id_number(const char* name);
// True when `id` names a valid-usage rule ("XGPU-VUID-..."): its messages
// have type VALIDATION, the others GENERAL.
bool is_rule_id(const char* id);

// True when the environment variable is set to something other than "" or "0".
bool env_flag(const char* name);

// Rounds `value` up to a multiple of the power of two `alignment`.
constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

// Nanoseconds of a monotonic clock.
uint64_t monotonic_ns();

// "0x1f": a value in hexadecimal for messages.
using xgpu_common::hex;  // "0x1f" (common/include/xgpu_common/format.h)

}  // namespace xgpu::amdgpu
