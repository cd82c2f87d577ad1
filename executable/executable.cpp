// The executable file container: parse, validate, select, write.
#include "xgpu_executable.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "format_util.h"
#include "xgpu_common/format.h"

namespace xgpu::executable {
namespace {

constexpr std::string_view kAmdgpuIsaPrefix = "amdgcn-amd-amdhsa--";
constexpr std::string_view kHostIsaPrefix = "x86_64-";
constexpr std::string_view kNvptxIsaPrefix = "nvptx64-nvidia-cuda--sm_";

bool is_zero(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  return std::all_of(p, p + size, [](uint8_t b) { return b == 0; });
}

// Validates the NUL-terminated, NUL-padded ISA name field of entry `index`.
Status read_isa_name(const xgpu_executable_entry_t& entry, uint32_t index,
                     std::string_view* out_name) {
  const char* begin = entry.isa_name;
  const void* nul = std::memchr(begin, 0, sizeof(entry.isa_name));
  if (!nul) {
    return Status::error("entry " + std::to_string(index) + ": ISA name is not NUL-terminated within its " +
                         std::to_string(sizeof(entry.isa_name)) + "-byte field");
  }
  size_t length = static_cast<const char*>(nul) - begin;
  if (length == 0) return Status::error("entry " + std::to_string(index) + ": empty ISA name");
  for (size_t i = 0; i < length; ++i) {
    unsigned char c = static_cast<unsigned char>(begin[i]);
    if (c < 0x21 || c > 0x7e) {
      return Status::error("entry " + std::to_string(index) + ": ISA name has a non-printable byte " +
                           xgpu_common::hex(c) + " at position " + std::to_string(i));
    }
  }
  if (!is_zero(begin + length, sizeof(entry.isa_name) - length)) {
    return Status::error("entry " + std::to_string(index) + ": ISA name field '" +
                         std::string(begin, length) + "' is not NUL-padded");
  }
  *out_name = std::string_view(begin, length);
  return {};
}

struct TargetId {
  std::string_view processor;   // everything before the first ':'
  std::vector<std::string_view> features;  // "xnack+", "sramecc-", ...
};

TargetId parse_target_id(std::string_view isa) {
  TargetId id;
  size_t colon = isa.find(':');
  id.processor = isa.substr(0, colon);
  while (colon != std::string_view::npos) {
    size_t next = isa.find(':', colon + 1);
    id.features.push_back(isa.substr(colon + 1, next == std::string_view::npos ? next : next - colon - 1));
    colon = next;
  }
  return id;
}

}  // namespace

Status kind_for_isa(std::string_view isa_name, xgpu_executable_entry_kind_t* out_kind) {
  if (isa_name.starts_with(kAmdgpuIsaPrefix) && isa_name.size() > kAmdgpuIsaPrefix.size()) {
    *out_kind = XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU;
    return {};
  }
  if (isa_name.starts_with(kHostIsaPrefix)) {
    *out_kind = XGPU_EXECUTABLE_ENTRY_KIND_HOST;
    return {};
  }
  if (isa_name.starts_with(kNvptxIsaPrefix) && isa_name.size() > kNvptxIsaPrefix.size()) {
    *out_kind = XGPU_EXECUTABLE_ENTRY_KIND_NVPTX;
    return {};
  }
  return Status::error("ISA name '" + std::string(isa_name) + "' is neither an AMDGPU ISA (" +
                       std::string(kAmdgpuIsaPrefix) + "<target-id>), a host ISA (" +
                       std::string(kHostIsaPrefix) + "...) nor an NVPTX ISA (" + std::string(kNvptxIsaPrefix) +
                       "<N>)");
}

bool isa_compatible(std::string_view entry_isa, std::string_view agent_isa) {
  if (entry_isa == agent_isa) return true;
  if (!entry_isa.starts_with(kAmdgpuIsaPrefix) || !agent_isa.starts_with(kAmdgpuIsaPrefix)) return false;
  TargetId entry = parse_target_id(entry_isa);
  TargetId agent = parse_target_id(agent_isa);
  if (entry.processor != agent.processor) return false;
  for (std::string_view feature : entry.features) {
    if (std::find(agent.features.begin(), agent.features.end(), feature) == agent.features.end()) {
      return false;
    }
  }
  return true;
}

Status Executable::parse(std::span<const uint8_t> bytes, Executable* out_executable) {
  return parse_structure(bytes, /*verify_hashes=*/true, out_executable);
}

Status Executable::parse_structure(std::span<const uint8_t> bytes, bool verify_hashes, Executable* out_executable) {
  Executable result;
  xgpu_executable_header_t header;
  if (bytes.size() < sizeof(header)) {
    return Status::error("truncated executable: " + std::to_string(bytes.size()) +
                         " bytes, the header alone needs " + std::to_string(sizeof(header)));
  }
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (std::memcmp(header.magic, XGPU_EXECUTABLE_MAGIC, XGPU_EXECUTABLE_MAGIC_SIZE) != 0) {
    return Status::error("not an xgpu executable: bad magic (expected \"" XGPU_EXECUTABLE_MAGIC "\\0\")");
  }
  if (header.version == 1) {
    return Status::error("executable format version 1 is no longer read: its code objects carry no SHA-256, so "
                         "corruption could reach the runtime; rebuild the file with this release's xgpu-kernels "
                         "(xgpu_add_kernels) to get format version " +
                         std::to_string(XGPU_EXECUTABLE_FORMAT_VERSION));
  }
  if (header.version != XGPU_EXECUTABLE_FORMAT_VERSION) {
    return Status::error("unsupported executable format version " + std::to_string(header.version) +
                         " (this reader supports " + std::to_string(XGPU_EXECUTABLE_FORMAT_VERSION) + ")");
  }
  if (header.header_size != sizeof(xgpu_executable_header_t)) {
    return Status::error("header_size is " + std::to_string(header.header_size) + ", expected " +
                         std::to_string(sizeof(xgpu_executable_header_t)));
  }
  if (header.entry_size != sizeof(xgpu_executable_entry_t)) {
    return Status::error("entry_size is " + std::to_string(header.entry_size) + ", expected " +
                         std::to_string(sizeof(xgpu_executable_entry_t)));
  }
  if (header.flags != 0) return Status::error("header flags are " + xgpu_common::hex(header.flags) + ", expected 0");
  if (!is_zero(header.reserved, sizeof(header.reserved))) {
    return Status::error("header reserved fields are not zero");
  }
  if (header.file_size > bytes.size()) {
    return Status::error("truncated executable: header says " + std::to_string(header.file_size) +
                         " bytes, the file has " + std::to_string(bytes.size()));
  }
  if (header.file_size < bytes.size()) {
    return Status::error("oversized executable: header says " + std::to_string(header.file_size) +
                         " bytes, the file has " + std::to_string(bytes.size()));
  }
  if (header.entry_count == 0 || header.entry_count > XGPU_EXECUTABLE_MAX_ENTRIES) {
    return Status::error("entry_count is " + std::to_string(header.entry_count) + ", expected 1.." +
                         std::to_string(XGPU_EXECUTABLE_MAX_ENTRIES));
  }
  const uint64_t table_offset = header.entry_table_offset;
  const uint64_t table_size = uint64_t{header.entry_count} * sizeof(xgpu_executable_entry_t);
  if (table_offset < sizeof(header) || table_offset % 8 != 0) {
    return Status::error("entry_table_offset " + std::to_string(table_offset) +
                         " overlaps the header or is not 8-byte aligned");
  }
  if (!range_inside(table_offset, table_size, bytes.size())) {
    return Status::error("entry table [" + std::to_string(table_offset) + ", +" + std::to_string(table_size) +
                         ") extends past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
  }

  struct Range {
    uint64_t begin, end;
    uint32_t index;
  };
  std::vector<Range> ranges;
  ranges.push_back({0, sizeof(header), UINT32_MAX});                          // header
  ranges.push_back({table_offset, table_offset + table_size, UINT32_MAX});  // entry table
  for (uint32_t i = 0; i < header.entry_count; ++i) {
    xgpu_executable_entry_t raw;
    std::memcpy(&raw, bytes.data() + table_offset + uint64_t{i} * sizeof(raw), sizeof(raw));
    Entry entry;
    Status status = read_isa_name(raw, i, &entry.isa_name);
    if (!status.ok()) return status;
    // View the name in the caller's bytes, not in the local copy.
    entry.isa_name = std::string_view(reinterpret_cast<const char*>(bytes.data()) + table_offset +
                                          uint64_t{i} * sizeof(raw) + offsetof(xgpu_executable_entry_t, isa_name),
                                      entry.isa_name.size());
    const std::string who = "entry " + std::to_string(i) + " (" + std::string(entry.isa_name) + ")";
    if (raw.kind != XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU && raw.kind != XGPU_EXECUTABLE_ENTRY_KIND_HOST &&
        raw.kind != XGPU_EXECUTABLE_ENTRY_KIND_NVPTX) {
      return Status::error(who + ": unknown kind " + std::to_string(raw.kind));
    }
    entry.kind = static_cast<xgpu_executable_entry_kind_t>(raw.kind);
    xgpu_executable_entry_kind_t implied;
    status = kind_for_isa(entry.isa_name, &implied);
    if (!status.ok()) return Status::error(who + ": " + status.message());
    if (implied != entry.kind) {
      return Status::error(who + ": kind " + std::to_string(raw.kind) + " does not match the ISA name");
    }
    if (raw.flags != 0) return Status::error(who + ": flags are " + xgpu_common::hex(raw.flags) + ", expected 0");
    if (!is_zero(raw.reserved, sizeof(raw.reserved))) {
      return Status::error(who + ": reserved fields are not zero");
    }
    if (raw.code_object_size == 0) return Status::error(who + ": empty code object");
    if (raw.code_object_offset % XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT != 0) {
      return Status::error(who + ": code object offset " + std::to_string(raw.code_object_offset) +
                           " is not a multiple of " + std::to_string(XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT));
    }
    if (!range_inside(raw.code_object_offset, raw.code_object_size, bytes.size())) {
      return Status::error(who + ": code object [" + std::to_string(raw.code_object_offset) + ", +" +
                           std::to_string(raw.code_object_size) + ") extends past the end of the file (" +
                           std::to_string(bytes.size()) + " bytes)");
    }
    for (const Entry& other : result.entries_) {
      if (other.isa_name == entry.isa_name) {
        return Status::error(who + ": duplicate ISA name (entry " +
                             std::to_string(&other - result.entries_.data()) + " has it too)");
      }
    }
    entry.offset = raw.code_object_offset;
    entry.table_offset = table_offset + uint64_t{i} * sizeof(raw);
    entry.code_object = bytes.subspan(raw.code_object_offset, raw.code_object_size);
    std::memcpy(entry.sha256.data(), raw.code_object_sha256, sizeof(raw.code_object_sha256));
    ranges.push_back({raw.code_object_offset, raw.code_object_offset + raw.code_object_size, i});
    result.entries_.push_back(entry);
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].begin < ranges[i - 1].end) {
      auto name = [&](const Range& r) {
        return r.index == UINT32_MAX ? std::string("the header and entry table")
                                     : "entry " + std::to_string(r.index);
      };
      return Status::error("overlapping ranges: " + name(ranges[i]) + " starts at " +
                           std::to_string(ranges[i].begin) + " inside " + name(ranges[i - 1]) + " [" +
                           std::to_string(ranges[i - 1].begin) + ", " + std::to_string(ranges[i - 1].end) + ")");
    }
  }
  // The bytes outside every range (the alignment padding the writer
  // zero-fills) are zero: damage there is damage too, and no hash covers it.
  // The ranges are sorted and disjoint, so each gap runs from one range's
  // end to the next one's begin (the last to the end of the file).
  for (size_t i = 0; i < ranges.size(); ++i) {
    const uint64_t gap_begin = ranges[i].end;
    const uint64_t gap_end = i + 1 < ranges.size() ? ranges[i + 1].begin : bytes.size();
    for (uint64_t at = gap_begin; at < gap_end; ++at) {
      if (bytes[at] == 0) continue;
      return Status::error("byte " + std::to_string(at) + " is " + xgpu_common::hex(bytes[at]) +
                           ", outside the header, the entry table and every code object, where the file is " +
                           "zero-filled (corrupt executable)");
    }
  }
  // Last, once every range is known to lie in the file: the hashes. Nothing
  // reads a code object's bytes before its hash matched.
  for (size_t i = 0; verify_hashes && i < result.entries_.size(); ++i) {
    const Entry& entry = result.entries_[i];
    const Sha256 actual = sha256(entry.code_object);
    if (actual != entry.sha256) {
      return Status::error("entry " + std::to_string(i) + " (" + std::string(entry.isa_name) +
                           "): code object corrupt: its " + std::to_string(entry.code_object.size()) +
                           " bytes at offset " + std::to_string(entry.offset) + " have SHA-256 " +
                           hex_bytes(actual) + ", the entry says " + hex_bytes(entry.sha256));
    }
  }
  *out_executable = std::move(result);
  return {};
}

Status rehash(std::span<uint8_t> bytes) {
  Executable structure;
  Status status = Executable::parse_structure(bytes, /*verify_hashes=*/false, &structure);
  if (!status.ok()) return status;
  for (const Entry& entry : structure.entries()) {
    const Sha256 digest = sha256(entry.code_object);
    std::memcpy(bytes.data() + entry.table_offset + offsetof(xgpu_executable_entry_t, code_object_sha256),
                digest.data(), digest.size());
  }
  return {};
}

const Entry* Executable::find(std::string_view isa_name) const {
  for (const Entry& entry : entries_) {
    if (entry.isa_name == isa_name) return &entry;
  }
  return nullptr;
}

Status Executable::select(std::span<const std::string> agent_isas, const Entry** out_entry) const {
  *out_entry = nullptr;
  for (const std::string& agent_isa : agent_isas) {
    if (const Entry* exact = find(agent_isa)) {
      *out_entry = exact;
      return {};
    }
    // Among compatible entries prefer the most specific (most features).
    const Entry* best = nullptr;
    size_t best_features = 0;
    for (const Entry& entry : entries_) {
      if (!isa_compatible(entry.isa_name, agent_isa)) continue;
      size_t features = parse_target_id(entry.isa_name).features.size();
      if (!best || features > best_features) {
        best = &entry;
        best_features = features;
      }
    }
    if (best) {
      *out_entry = best;
      return {};
    }
  }
  std::string message = "no code object for the agent: agent ISA";
  message += agent_isas.size() == 1 ? " " : "s ";
  if (agent_isas.empty()) message += "(none reported)";
  for (size_t i = 0; i < agent_isas.size(); ++i) {
    message += (i ? ", " : "") + agent_isas[i];
  }
  message += "; the executable holds ";
  for (size_t i = 0; i < entries_.size(); ++i) {
    message += (i ? ", " : "") + std::string(entries_[i].isa_name);
  }
  return Status::error(message);
}

Status write(std::span<const EntryInput> entries, std::vector<uint8_t>* out_bytes) {
  out_bytes->clear();
  if (entries.empty() || entries.size() > XGPU_EXECUTABLE_MAX_ENTRIES) {
    return Status::error("an executable holds 1.." + std::to_string(XGPU_EXECUTABLE_MAX_ENTRIES) +
                         " code objects, got " + std::to_string(entries.size()));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const EntryInput& entry = entries[i];
    if (entry.isa_name.empty() || entry.isa_name.size() >= XGPU_EXECUTABLE_ISA_NAME_SIZE) {
      return Status::error("ISA name '" + entry.isa_name + "' must have 1.." +
                           std::to_string(XGPU_EXECUTABLE_ISA_NAME_SIZE - 1) + " characters");
    }
    xgpu_executable_entry_kind_t implied;
    Status status = kind_for_isa(entry.isa_name, &implied);
    if (!status.ok()) return status;
    if (implied != entry.kind) {
      return Status::error("ISA name '" + entry.isa_name + "' does not match the entry kind " +
                           std::to_string(entry.kind));
    }
    if (entry.code_object.empty()) return Status::error("empty code object for " + entry.isa_name);
    for (size_t j = 0; j < i; ++j) {
      if (entries[j].isa_name == entry.isa_name) {
        return Status::error("duplicate ISA name '" + entry.isa_name + "'");
      }
    }
  }
  auto align_up = [](uint64_t v) {
    return (v + XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT - 1) / XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT *
           XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT;
  };
  xgpu_executable_header_t header = {};
  std::memcpy(header.magic, XGPU_EXECUTABLE_MAGIC, XGPU_EXECUTABLE_MAGIC_SIZE);
  header.version = XGPU_EXECUTABLE_FORMAT_VERSION;
  header.header_size = sizeof(xgpu_executable_header_t);
  header.entry_size = sizeof(xgpu_executable_entry_t);
  header.entry_count = static_cast<uint32_t>(entries.size());
  header.entry_table_offset = sizeof(xgpu_executable_header_t);
  uint64_t cursor = header.entry_table_offset + entries.size() * sizeof(xgpu_executable_entry_t);
  std::vector<xgpu_executable_entry_t> table(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    xgpu_executable_entry_t& raw = table[i];
    raw = {};
    std::memcpy(raw.isa_name, entries[i].isa_name.data(), entries[i].isa_name.size());
    cursor = align_up(cursor);
    raw.code_object_offset = cursor;
    raw.code_object_size = entries[i].code_object.size();
    raw.kind = entries[i].kind;
    const Sha256 digest = sha256(entries[i].code_object);
    std::memcpy(raw.code_object_sha256, digest.data(), digest.size());
    cursor += raw.code_object_size;
  }
  header.file_size = cursor;
  out_bytes->assign(cursor, 0);
  std::memcpy(out_bytes->data(), &header, sizeof(header));
  std::memcpy(out_bytes->data() + header.entry_table_offset, table.data(),
              table.size() * sizeof(xgpu_executable_entry_t));
  for (size_t i = 0; i < entries.size(); ++i) {
    std::memcpy(out_bytes->data() + table[i].code_object_offset, entries[i].code_object.data(),
                entries[i].code_object.size());
  }
  return {};
}

}  // namespace xgpu::executable
