#include "stateless_validation.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace xgpu_validation {
namespace {

constexpr int kMaxChainLength = 64;  // structures followed in a pNext chain before it counts as a loop

struct BaseStructure {
  XgpuStructureType sType;
  const BaseStructure* pNext;
};

std::string StructureTypeText(int64_t value) {
  const char* name = StructureTypeName(value);
  return name ? std::string(name) + " (" + std::to_string(value) + ")" : std::to_string(value);
}

bool Contains(const XgpuStructureType* types, size_t count, XgpuStructureType type) {
  for (size_t n = 0; n < count; ++n) {
    if (types[n] == type) return true;
  }
  return false;
}

}  // namespace

std::string PointerText(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", pointer);
  return text;
}

bool RangeIsMapped(const void* pointer, uint64_t bytes) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(pointer) & ~(page - 1);
  const uintptr_t last = reinterpret_cast<uintptr_t>(pointer) + bytes - 1;
  if (bytes == 0) return true;
  if (last < reinterpret_cast<uintptr_t>(pointer)) return false;  // wraps around
  unsigned char residency[256];
  for (uintptr_t at = begin; at <= last;) {
    const uintptr_t pages = std::min<uintptr_t>((last - at) / page + 1, sizeof(residency));
    // mincore fails with ENOMEM when part of the range is not mapped.
    if (mincore(reinterpret_cast<void*>(at), pages * page, residency) != 0 && errno == ENOMEM) return false;
    at += pages * page;
    if (at == 0) break;
  }
  return true;
}

int64_t FirstInvalidUtf8(const char* s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  for (int64_t n = 0; p[n];) {
    const unsigned char c = p[n];
    int length = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++n;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      length = 2;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4;
      code = c & 0x07;
    } else {
      return n;
    }
    for (int k = 1; k < length; ++k) {
      if ((p[n + k] & 0xC0) != 0x80) return n;
      code = (code << 6) | (p[n + k] & 0x3F);
    }
    const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return n;
    n += length;
  }
  return -1;
}

bool ReportMisaligned(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer, size_t alignment) {
  return ctx.Report(vuid, field, PointerText(pointer) + ", not aligned to the " + std::to_string(alignment) +
                                     " bytes its type needs");
}

bool ReportBadPointer(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer, size_t alignment,
                      uint64_t count) {
  if (pointer == nullptr) {
    return ctx.Report(vuid, field, count == 0 ? std::string("NULL") : "NULL while its count is " + std::to_string(count));
  }
  return ReportMisaligned(ctx, vuid, field, pointer, alignment);
}

bool ReportFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, uint32_t valid,
                 const BitName* names, size_t count, const char* type) {
  char unknown[16];
  std::snprintf(unknown, sizeof(unknown), "0x%X", flags & ~valid);
  return ctx.Report(vuid, field,
                    FlagsText(flags, names, count) + ", whose bits " + unknown + " are not " + type + " values");
}

bool ReportSingleBit(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags, const BitName* names,
                     size_t count, const char* type) {
  const char* why = flags == 0 ? "no bit" : (flags & (flags - 1)) != 0 ? "more than one bit" : "not a bit of it";
  return ctx.Report(vuid, field, FlagsText(flags, names, count) + " (" + why + " of " + type + ")");
}

bool ReportUnmapped(CallContext& ctx, Vuid vuid, const Field& field, const void* pointer, uint64_t bytes) {
  return ctx.Report(vuid, field, PointerText(pointer) + ", but the " + std::to_string(bytes) +
                                     " bytes it must point to are not all mapped memory");
}

static bool CheckString(CallContext& ctx, Vuid vuid, const Field& field, const char* s, bool optional) {
  if (s == nullptr) return optional ? false : ctx.Report(vuid, field, "NULL");
  const int64_t bad = FirstInvalidUtf8(s);
  if (bad < 0) return false;
  char byte[8];
  std::snprintf(byte, sizeof(byte), "0x%02X", static_cast<unsigned char>(s[bad]));
  return ctx.Report(vuid, field, "a string that is not UTF-8 (byte " + std::string(byte) + " at offset " +
                                     std::to_string(bad) + ")");
}

bool CheckRequiredString(CallContext& ctx, Vuid vuid, const Field& field, const char* s) {
  return CheckString(ctx, vuid, field, s, false);
}

bool CheckOptionalString(CallContext& ctx, Vuid vuid, const Field& field, const char* s) {
  return CheckString(ctx, vuid, field, s, true);
}

bool CheckSType(CallContext& ctx, Vuid vuid, const Field& field, XgpuStructureType value, XgpuStructureType expected) {
  if (value == expected) return false;
  return ctx.Report(vuid, field, StructureTypeText(value) + ", not " + StructureTypeText(expected));
}

bool CheckPNext(CallContext& ctx, Vuid vuid, const Field& field, const void* next, const XgpuStructureType* allowed,
                size_t allowed_count, const XgpuStructureType* loader, size_t loader_count) {
  XgpuStructureType seen[kMaxChainLength];
  size_t seen_count = 0;
  auto* s = static_cast<const BaseStructure*>(next);
  for (int n = 0; s != nullptr; ++n, s = s->pNext) {
    if (n == kMaxChainLength) {
      return ctx.Report(vuid, field, "a chain of more than " + std::to_string(kMaxChainLength) +
                                         " structures (a loop?)");
    }
    if (!IsUsablePointer(s)) return ReportMisaligned(ctx, vuid, field, s, alignof(BaseStructure));
    if (Contains(loader, loader_count, s->sType)) continue;
    if (!Contains(allowed, allowed_count, s->sType)) {
      return ctx.Report(vuid, field, "a chain holding a structure of type " + StructureTypeText(s->sType) +
                                         (n ? " at position " + std::to_string(n) : std::string()) +
                                         ", which this structure does not accept");
    }
    if (Contains(seen, seen_count, s->sType)) {
      return ctx.Report(vuid, field, "a chain holding two structures of type " + StructureTypeText(s->sType));
    }
    seen[seen_count++] = s->sType;
  }
  return false;
}

bool CheckReservedFlags(CallContext& ctx, Vuid vuid, const Field& field, uint32_t flags) {
  if (flags == 0) return false;
  char text[16];
  std::snprintf(text, sizeof(text), "0x%X", flags);
  return ctx.Report(vuid, field, text);
}

std::string FlagsText(uint32_t flags, const BitName* names, size_t count) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%X", flags);
  std::string out = text;
  std::string known;
  for (size_t n = 0; n < count; ++n) {
    if (flags & names[n].bit) known += (known.empty() ? "" : " | ") + std::string(names[n].name);
  }
  if (!known.empty()) out += " (" + known + ")";
  return out;
}

bool ReportEnum(CallContext& ctx, Vuid vuid, const Field& field, int64_t value, const char* type) {
  return ctx.Report(vuid, field, std::to_string(value) + ", not a " + type + " value");
}

bool CheckFunctionPointer(CallContext& ctx, Vuid vuid, const Field& field, const void* function) {
  return function == nullptr ? ctx.Report(vuid, field, "NULL") : false;
}

#include "../generated/stateless_checks.inc"

}  // namespace xgpu_validation
