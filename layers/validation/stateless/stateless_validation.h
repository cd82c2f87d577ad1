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

bool ReportMisaligned(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer, size_t alignment);

// A pointer to one structure or value.
template <typename T>
bool CheckRequiredPointer(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer) {
  if (pointer == nullptr) return ctx.Report(vuid, field, "NULL");
  if (!IsUsablePointer(pointer)) return ReportMisaligned(ctx, vuid, field, pointer, AlignOf<T>());
  return false;
}
template <typename T>
bool CheckOptionalPointer(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer) {
  if (pointer != nullptr && !IsUsablePointer(pointer)) return ReportMisaligned(ctx, vuid, field, pointer, AlignOf<T>());
  return false;
}

// An input array of `count` elements, which may be NULL only when count is 0.
template <typename T>
bool CheckRequiredArray(CallContext& ctx, Vuid vuid, const Field& field, const T* pointer, uint64_t count) {
  if (count == 0) return false;
  if (pointer == nullptr) return ctx.Report(vuid, field, "NULL while its count is " + std::to_string(count));
  if (!IsUsablePointer(pointer)) return ReportMisaligned(ctx, vuid, field, pointer, AlignOf<T>());
  return false;
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

template <size_t N>
bool CheckFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                const BitName (&names)[N], const char* type) {
  if ((flags & ~valid) == 0) return false;
  char unknown[16];
  std::snprintf(unknown, sizeof(unknown), "0x%X", flags & ~valid);
  return ctx.Report(vuid, field, FlagsText(flags, names, N) + ", whose bits " + unknown + " are not " + type + " values");
}

template <size_t N>
bool CheckSingleBit(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                    const BitName (&names)[N], const char* type) {
  if (flags != 0 && (flags & (flags - 1)) == 0 && (flags & ~valid) == 0) return false;
  const char* why = flags == 0 ? "no bit" : (flags & (flags - 1)) != 0 ? "more than one bit" : "not a bit of it";
  return ctx.Report(vuid, field, FlagsText(flags, names, N) + " (" + why + " of " + type + ")");
}

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_STATELESS_STATELESS_VALIDATION_H_
