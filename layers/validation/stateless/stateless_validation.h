// StatelessValidation: the implicit rules that need nothing but the call's
// parameters (pointers, arrays, strings, sType, pNext, reserved flags, flag
// bits, single bits, enums, function pointers). Its Validate hooks are
// generated from the registry (generated/stateless_checks.inc); the Check*
// functions below are what they call.
//
// Thread-safe: holds no state.
#ifndef XGPU_LAYERS_VALIDATION_STATELESS_STATELESS_VALIDATION_H_
#define XGPU_LAYERS_VALIDATION_STATELESS_STATELESS_VALIDATION_H_

#include <cstdint>
#include <string>

#include <cstdio>
#include <type_traits>

#include "../chassis/hooks.h"

namespace xgpu_validation {

class StatelessValidation : public HookDefaults {
 public:
#include "../generated/stateless_decls.inc"
};

// Whether [pointer, pointer + bytes) is mapped memory (mincore); for the
// pointers nothing cheaper can check (output arrays, optional byte arrays).
bool RangeIsMapped(const void* pointer, uint64_t bytes);
// The offset of the first byte of s that breaks UTF-8, or -1 when s is valid.
int64_t FirstInvalidUtf8(const char* s);
std::string PointerText(const void* pointer);

// The checks below are inline and return at once when the value is right;
// their reports are out of line (cold), so a check inlined into the chassis
// costs a compare and a branch.
[[gnu::cold]] bool ReportMisaligned(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer,
                                    size_t alignment);
// NULL (count 0: a required pointer) or misaligned.
[[gnu::cold]] bool ReportBadPointer(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer,
                                    size_t alignment, uint64_t count);

// A pointer to one structure or value.
template <typename T>
bool CheckRequiredPointer(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer) {
  if (IsUsablePointer(pointer)) [[likely]] return false;
  return ReportBadPointer(ctx, vuid, field, pointer, AlignOf<T>(), 0);
}
template <typename T>
bool CheckOptionalPointer(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer) {
  if (pointer != nullptr && !IsUsablePointer(pointer)) return ReportMisaligned(ctx, vuid, field, pointer, AlignOf<T>());
  return false;
}

// An input array of `count` elements, which may be NULL only when count is 0.
template <typename T>
bool CheckRequiredArray(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer, uint64_t count) {
  if (count == 0 || IsUsablePointer(pointer)) [[likely]] return false;
  return ReportBadPointer(ctx, vuid, field, pointer, AlignOf<T>(), count);
}

bool ReportUnmapped(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer, uint64_t bytes);

template <typename T>
constexpr uint64_t SizeOf() {
  if constexpr (std::is_void_v<T>) {
    return 1;
  } else {
    return sizeof(T);
  }
}

// An input array that may be NULL whatever its count: when not NULL, its
// `count` elements must be mapped memory.
template <typename T>
bool CheckOptionalArray(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer, uint64_t count) {
  if (count == 0 || pointer == nullptr) return false;
  if (!IsUsablePointer(pointer)) return ReportMisaligned(ctx, vuid, field, pointer, AlignOf<T>());
  if (count > UINT64_MAX / SizeOf<T>() || !RangeIsMapped(pointer, count * SizeOf<T>())) {
    return ReportUnmapped(ctx, vuid, field, pointer, count * SizeOf<T>());
  }
  return false;
}

// An enumeration's output array (NULL: only the count is asked for).
template <typename T>
bool CheckOutputArray(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer, uint64_t count) {
  return CheckOptionalArray(ctx, vuid, field, pointer, count);
}

bool CheckRequiredString(CallContext& ctx, Vuid vuid, const Field& field, const char* s);
bool CheckOptionalString(CallContext& ctx, Vuid vuid, const Field& field, const char* s);
bool CheckSType(CallContext& ctx, Vuid vuid, const Field& field, XgpuStructureType value, XgpuStructureType expected);
// A pNext chain: only structures of the `allowed` types, each at most once;
// structures of the `loader` types (the loader's links) are passed over.
bool CheckPNext(CallContext& ctx, Vuid vuid, const Field& field, const void* next, const XgpuStructureType* allowed,
                size_t allowed_count, const XgpuStructureType* loader, size_t loader_count);
bool CheckReservedFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags);
template <size_t N>
bool CheckFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                const BitName (&names)[N], const char* type);
template <size_t N>
bool CheckSingleBit(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                    const BitName (&names)[N], const char* type);
bool ReportEnum(CallContext& ctx, Vuid vuid, const Field& field, int64_t value, const char* type);
bool CheckFunctionPointer(CallContext& ctx, Vuid vuid, const Field& field, const void* function);

// "0x5 (XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_STORAGE_BIT)"; unknown bits as a number.
std::string FlagsText(uint32_t flags, const BitName* names, size_t count);

[[gnu::cold]] bool ReportFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                               const BitName* names, size_t count, const char* type);
[[gnu::cold]] bool ReportSingleBit(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags,
                                   const BitName* names, size_t count, const char* type);

template <size_t N>
bool CheckFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                const BitName (&names)[N], const char* type) {
  if ((flags & ~valid) == 0) [[likely]] return false;
  return ReportFlags(ctx, vuid, field, flags, valid, names, N, type);
}

template <size_t N>
bool CheckSingleBit(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                    const BitName (&names)[N], const char* type) {
  if (flags != 0 && (flags & (flags - 1)) == 0 && (flags & ~valid) == 0) [[likely]] return false;
  return ReportSingleBit(ctx, vuid, field, flags, names, N, type);
}

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_STATELESS_STATELESS_VALIDATION_H_
