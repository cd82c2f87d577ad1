// How xgpuinfo shows values: the helpers the generated printers
// (generated/device_info.h) and main.cpp share. Text lines go to stdout.
#pragma once

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu_common/format.h"

namespace xgpuinfo {

using nlohmann::ordered_json;

constexpr int kNameWidth = 30;                     // text: column of a member's value
constexpr double kBytesPerMiB = 1024.0 * 1024.0;   // text: sizes from this many bytes up also in MiB

inline std::string Version(uint32_t v) {
  return std::to_string(XGPU_API_VERSION_MAJOR(v)) + "." + std::to_string(XGPU_API_VERSION_MINOR(v)) + "." +
         std::to_string(XGPU_API_VERSION_PATCH(v));
}

// A fixed-size char member up to its NUL (or its size).
inline std::string Text(const char* chars, size_t size) { return std::string(chars, strnlen(chars, size)); }

// A registry name without its type's prefix and the "_BIT" suffix:
// XGPU_QUEUE_COMPUTE_BIT -> COMPUTE (names from xgpu_enum_string.h).
inline std::string ShortName(std::string name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) == 0) name.erase(0, prefix.size());
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "_BIT") == 0) name.erase(name.size() - 4);
  return name;
}

// The short names of the bits set in flags ("A | B" from the generated
// *FlagsString); unknown bits as one hexadecimal number; none for 0.
inline std::vector<std::string> FlagNames(uint32_t flags, const char* names, const std::string& prefix) {
  std::vector<std::string> out;
  if (flags == 0) return out;
  const std::string text = names;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find(" | ", begin);
    if (end == std::string::npos) end = text.size();
    out.push_back(ShortName(text.substr(begin, end - begin), prefix));
    begin = end + 3;
  }
  return out;
}

inline std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " | ") + p;
  return out.empty() ? "0" : out;
}

// "N bytes", and its size in MiB from 1 MiB up.
inline std::string Bytes(uint64_t value) {
  std::string out = std::to_string(value) + " bytes";
  if (double(value) >= kBytesPerMiB) {
    char mib[48];
    std::snprintf(mib, sizeof(mib), " (%.1f MiB)", double(value) / kBytesPerMiB);
    out += mib;
  }
  return out;
}

template <typename T, size_t N>
ordered_json NumberArray(const T (&values)[N]) {
  ordered_json out = ordered_json::array();
  for (const T& v : values) out.push_back(v);
  return out;
}

// "<indent>name<padding> value".
inline void Line(int indent, const char* name, const std::string& value) {
  std::printf("%*s%-*s %s\n", indent, "", kNameWidth - indent, name, value.c_str());
}

// "<indent>name:" (a structure follows, indented) or "<indent>name: count".
inline void Heading(int indent, const char* name) { std::printf("%*s%s:\n", indent, "", name); }
inline void Heading(int indent, const char* name, size_t count) {
  std::printf("%*s%s: %zu\n", indent, "", name, count);
}

// "<indent>[i] text" (one element of an array).
inline void Element(int indent, size_t index, const std::string& text) {
  std::printf("%*s[%zu] %s\n", indent, "", index, text.c_str());
}

// Appends "name value" to a one-line form, comma-separated.
inline void Append(std::string* out, const char* name, const std::string& value) {
  *out += (out->empty() ? "" : ", ") + std::string(name) + " " + value;
}

}  // namespace xgpuinfo
