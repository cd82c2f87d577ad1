// xgpu_executable: reads, validates and writes xgpu executable files
// (<xgpu/executable_format.h>, spec/executable-format.md) and reads the
// kernel metadata of the code objects inside them: the `amdhsa.kernels`
// msgpack note of AMDGPU code objects and the `K.kd` descriptors of host code
// objects (<xgpu/host_kernel.h>), without loading either, and the kernel
// layout and flags records (XGPU_KERNEL_LAYOUT_SECTION) of both.
//
// Every function treats its input as untrusted: offsets and sizes are
// bounds-checked (overflow-safe) and a malformed input yields a Status whose
// message names the field, the value and the limit. Nothing here throws.
//
// Thread-safety: all functions are reentrant; an Executable is immutable after
// parse() and may be shared between threads. Executable and Entry view the
// caller's bytes, which must outlive them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <xgpu/executable_format.h>

namespace xgpu::executable {

// Success, or an error with a message that says what was wrong.
class [[nodiscard]] Status {
 public:
  Status() = default;
  // Bytes outside printable ASCII (names quoted from a corrupt file) are
  // written as \xNN, so a message is always one readable line.
  static Status error(std::string message) { return Status(printable(std::move(message)), true); }
  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  Status(std::string message, bool failed) : message_(std::move(message)), failed_(failed) {}
  static std::string printable(std::string text) {
    auto plain = [](char c) { return c >= 0x20 && c <= 0x7e; };
    bool all_plain = true;
    for (char c : text) all_plain = all_plain && plain(c);
    if (all_plain) return text;
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (char c : text) {
      if (plain(c)) {
        out += c;
      } else {
        const auto byte = static_cast<unsigned char>(c);
        out += {'\\', 'x', kDigits[byte >> 4], kDigits[byte & 0xf]};
      }
    }
    return out;
  }
  std::string message_;
  bool failed_ = false;
};

// A SHA-256 digest (FIPS 180-4).
using Sha256 = std::array<uint8_t, XGPU_EXECUTABLE_CODE_OBJECT_HASH_SIZE>;

// The SHA-256 of `bytes`.
Sha256 sha256(std::span<const uint8_t> bytes);

// `digest` as lowercase hex.
std::string hex_bytes(std::span<const uint8_t> digest);

// One code object of an executable (a view into the file's bytes).
struct Entry {
  std::string_view isa_name;                // HSA ISA name, e.g. "amdgcn-amd-amdhsa--gfx942"
  xgpu_executable_entry_kind_t kind;        // AMDGPU or host code object
  uint64_t offset;                          // file offset of the code object (bytes)
  uint64_t table_offset;                    // file offset of this entry in the entry table (bytes)
  std::span<const uint8_t> code_object;     // the code object's bytes
  Sha256 sha256;                            // the entry's code_object_sha256 (parse() checked it)
};

// A parsed, validated executable file.
class Executable {
 public:
  // Validates `bytes` as a whole executable file (header, entry table, entry
  // ranges, and each code object's SHA-256 against its entry; not the code
  // objects' contents) and records its entries.
  static Status parse(std::span<const uint8_t> bytes, Executable* out_executable);

  // parse() with the hash check left out when `verify_hashes` is false: for
  // rehash() and for readers that report on a file they will not load.
  static Status parse_structure(std::span<const uint8_t> bytes, bool verify_hashes, Executable* out_executable);

  const std::vector<Entry>& entries() const { return entries_; }
  // The entry with exactly this ISA name, or nullptr.
  const Entry* find(std::string_view isa_name) const;

  // Picks the entry for an agent whose ISAs are `agent_isas`, best first (as
  // hsa_agent_iterate_isas reports them). For each agent ISA in order: an
  // entry with the same name wins, else an AMDGPU entry whose target ID is
  // compatible (same processor; every feature the entry states, e.g.
  // `xnack-`, stated the same way by the agent). When none matches, the error
  // names the agent's ISAs and the ISAs the file holds.
  Status select(std::span<const std::string> agent_isas, const Entry** out_entry) const;

 private:
  std::vector<Entry> entries_;
};

// True when a code object built for `entry_isa` runs on an agent whose ISA is
// `agent_isa` (the target ID rule select() uses).
bool isa_compatible(std::string_view entry_isa, std::string_view agent_isa);

// One code object to pack.
struct EntryInput {
  std::string isa_name;                     // HSA ISA name (< XGPU_EXECUTABLE_ISA_NAME_SIZE bytes)
  xgpu_executable_entry_kind_t kind;        // AMDGPU or host
  std::vector<uint8_t> code_object;         // the code object's bytes
};

// Serializes `entries` (in order) into an executable file, each entry with
// its code object's SHA-256.
Status write(std::span<const EntryInput> entries, std::vector<uint8_t>* out_bytes);

// Recomputes every entry's code_object_sha256 of a structurally valid file
// in place, for tools that edit a file's code objects and for tests and
// fuzzers that corrupt them on purpose to reach the checks behind the hash.
Status rehash(std::span<uint8_t> bytes);

// Reads the executable file at `path` whole. Refuses, before reading a byte,
// what is not a regular file (a folder, a FIFO, a device, a socket), an empty
// file (as /proc files report themselves) and a file larger than
// XGPU_EXECUTABLE_MAX_FILE_SIZE; opening never blocks (O_NONBLOCK) and
// nothing here throws. The message names the path and what was wrong.
Status read_file(const char* path, std::vector<uint8_t>* out_bytes);

// The entry kind an ISA name implies: AMDGPU for "amdgcn-amd-amdhsa--*",
// host for "x86_64-*"; error otherwise.
Status kind_for_isa(std::string_view isa_name, xgpu_executable_entry_kind_t* out_kind);

// ---------------------------------------------------------------------------
// Code object metadata.
// ---------------------------------------------------------------------------

// What one code object says about one kernel.
struct KernelInfo {
  std::string name;                          // kernel name (symbol without ".kd")
  uint32_t kernarg_size = 0;                 // bytes of the kernarg segment
  uint32_t kernarg_alignment = 0;            // alignment of the kernarg segment (bytes)
  uint32_t group_segment_size = 0;           // static group (LDS) bytes
  uint32_t private_segment_size = 0;         // per-work-item private bytes (0 = default on host)
  uint32_t required_workgroup_size[3] = {};  // 0,0,0 when not fixed
  uint32_t max_flat_workgroup_size = 0;      // AMDGPU: work items per workgroup limit; host: 0
  uint32_t wavefront_size = 0;               // AMDGPU: 32 or 64; host: 0
  uint32_t sgpr_count = 0;                   // AMDGPU: scalar registers; host: 0
  uint32_t vgpr_count = 0;                   // AMDGPU: vector registers; host: 0
  bool uses_dynamic_stack = false;           // AMDGPU: stack size not known statically
  bool uses_barriers = false;                // host: XGPU_HOST_KERNEL_FLAG_USES_BARRIERS
  bool workitem_loops = false;               // host: XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS
                                             // (barriers run as work-item loops)
  std::string wiloop_paths;                  // host: the paths the work-item loop pass took
                                             // ("sized-path, work-item-loops"; XGPU_HOST_WILOOP_PATHS_SECTION),
                                             // empty when it did not transform the kernel
  uint32_t explicit_arg_count = 0;           // AMDGPU: explicit kernel arguments
  std::vector<std::string> hidden_args;      // AMDGPU: value kinds of hidden arguments
                                             // (xgpu kernels have none)
  bool layout_declared = false;              // the code object holds the kernel's layout record
                                             // (XGPU_KERNEL_BINDINGS); the next two are 0 otherwise
  uint32_t binding_count = 0;                // declared: 8-byte binding pointers at the start
                                             // of the kernarg segment
  uint32_t constant_size = 0;                // declared: bytes of constants after them
                                             // (kernarg_size - 8 * binding_count)
  bool prints = false;                       // its kernel flags record has XGPU_KERNEL_FLAG_PRINTS:
                                             // it may write print records (xgpu_printf, xgpu_assert),
                                             // so the driver writes a print buffer's address before
                                             // its kernarg segment (<xgpu/kernel_print.h>)
  bool bounds_checked = false;               // its kernel flags record has XGPU_KERNEL_FLAG_BOUNDS_CHECKED:
                                             // the bounds-checked copy of another kernel, which reads
                                             // each binding's length before the print slots
  bool access_known = false;                 // its binding access record was read
                                             // (xgpu_kernel_access_record_t); else every
                                             // binding is unknown
  uint32_t access_binding_count = 0;         // the record's binding_count (= binding_count)
  uint64_t binding_reads = 0;                // bit i: the kernel may load through binding i
  uint64_t binding_writes = 0;               // ... store through it
  uint64_t binding_atomics = 0;              // ... access it atomically
  uint64_t binding_unknown = 0;              // ... do anything with it (its pointer escapes)
};

// The name of kernel `kernel`'s bounds-checked copy (XGPU_KERNEL_FLAG_BOUNDS_CHECKED,
// spec/kernels.md "Bounds-checked entries"): K__xgpu_checked.
inline std::string bounds_checked_name(std::string_view kernel) {
  return std::string(kernel) + XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX;
}
// The kernel a bounds-checked copy's name checks (K for K__xgpu_checked);
// any other name unchanged.
inline std::string_view checked_kernel_name(std::string_view name) {
  constexpr std::string_view kSuffix = XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX;
  return name.size() > kSuffix.size() && name.ends_with(kSuffix) ? name.substr(0, name.size() - kSuffix.size()) : name;
}

// What one code object holds.
// A kernel's hidden argument kinds, comma-separated ("hidden_block_count_x, ...").
inline std::string hidden_args_list(const KernelInfo& kernel) {
  std::string kinds;
  const size_t shown = std::min<size_t>(kernel.hidden_args.size(), 3);
  for (size_t i = 0; i < shown; ++i) kinds += (i ? ", " : "") + kernel.hidden_args[i];
  if (kernel.hidden_args.size() > shown) kinds += " and " + std::to_string(kernel.hidden_args.size() - shown) + " more";
  return kinds;
}
// Why an AMDGPU kernel takes hidden arguments, and what to do instead.
inline constexpr const char* kHiddenArgsCause =
    "the AMDGPU compiler adds them to a kernel that makes a call it cannot see through (a call through a "
    "function pointer, or to a helper that was not inlined and whose body it cannot analyse) or that uses a "
    "compiler built-in needing implicit arguments; call helpers directly (static functions, inlined or not) "
    "and use <xgpu/kernel.h>'s built-ins only";

struct CodeObjectInfo {
  std::string isa_name;             // AMDGPU: amdhsa.target; host: the info symbol's ISA name
  uint32_t e_machine = 0;           // ELF machine (EM_AMDGPU, EM_X86_64)
  uint32_t e_flags = 0;             // ELF flags (AMDGPU: EF_AMDGPU_MACH_* in bits 0..7)
  uint32_t amdhsa_version[2] = {};  // AMDGPU: amdhsa.version major, minor
  std::vector<KernelInfo> kernels;  // sorted by name
};

// Reads the kernels of a code object of the given kind, with the layouts
// and kernel flags its XGPU_KERNEL_LAYOUT_SECTION declares. Besides
// malformed records (magic, record_size, name), it rejects a record naming
// no kernel of the code object, two layout records or two flags records for
// one kernel, a layout record whose kernarg_size is not the kernel's, a
// binding count whose 8-byte pointers do not fit in the kernarg segment,
// and a flags record with flag bits it does not know or a non-zero reserved
// word: a declared layout, once read, is always usable, and flags mean what
// the reader thinks they mean.
Status read_code_object(xgpu_executable_entry_kind_t kind, std::span<const uint8_t> code_object,
                        CodeObjectInfo* out_info);

// Structural rules every packed code object obeys: right ELF machine for the
// kind, no writable data (.data/.bss; relocation-only .data.rel.ro, .got and
// .dynamic are allowed), no thread-local storage, no undefined symbols.
Status check_code_object_rules(xgpu_executable_entry_kind_t kind,
                               std::span<const uint8_t> code_object);

// The whole executable: every code object obeys the rules, its metadata
// names the entry's ISA, AMDGPU kernels have no hidden arguments, every
// entry holds the same kernels with the same kernarg size, kernarg alignment
// and static group segment size, and declares the same layout and the same
// printing (XGPU_KERNEL_FLAG_PRINTS) for each (on every entry or on none),
// a required workgroup size fits every
// AMDGPU target's limit, and no kernel with barriers needs more private
// memory on an AMDGPU target than a host fiber's stack gives kernel code.
// `out_infos` (optional) receives each entry's metadata, in entry order; it
// is filled as far as reading succeeded.
Status check(const Executable& executable, std::vector<CodeObjectInfo>* out_infos = nullptr);

// Stack bytes (at least) that kernel code of one work item gets on a host
// fiber when the descriptor's private_segment_size is `private_segment_size`
// (<xgpu/host_kernel.h>, XGPU_HOST_FIBER_STACK_*).
uint64_t host_fiber_kernel_stack_bytes(uint32_t private_segment_size);

}  // namespace xgpu::executable
