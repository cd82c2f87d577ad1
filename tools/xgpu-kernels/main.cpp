// xgpu-kernels: packs code objects into an xgpu executable, prints what an
// executable holds, and checks that its targets agree.
//
//   xgpu-kernels pack -o <out.xgpux> --entry <isa>=<code object> ...
//   xgpu-kernels inspect [--json] <file.xgpux>
//   xgpu-kernels check <file.xgpux>
//
// `inspect` shows, per kernel and target, the kernarg size and alignment,
// the declared layout (bindings and constant bytes, "-" when the kernel has
// no XGPU_KERNEL_BINDINGS), the group and private segment sizes, the
// workgroup size and how the kernel runs.
//
// Exit status: 0 on success, 1 when the input is invalid, a code object
// cannot be read or the check fails (`inspect` still prints what it could
// read), 2 on a usage error.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xgpu_executable.h"

namespace xe = xgpu::executable;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int usage() {
  std::fprintf(stderr,
               "usage:\n"
               "  xgpu-kernels pack -o <out.xgpux> --entry <isa>=<code object> [--entry ...]\n"
               "  xgpu-kernels inspect [--json] <file.xgpux>\n"
               "  xgpu-kernels check <file.xgpux>\n");
  return kExitUsage;
}

// Reads `path` whole: a folder, a FIFO, a device, a /proc file or a file
// larger than an executable may be is refused before a byte is read.
bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* out_error) {
  xe::Status status = xe::read_file(path.c_str(), out);
  if (!status.ok()) *out_error = status.message();
  return status.ok();
}

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes, std::string* out_error) {
  // Write next to the target and rename, so a failed build never leaves a
  // half-written executable that looks up to date.
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      *out_error = "cannot write '" + temp + "': " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    *out_error = "cannot rename '" + temp + "' to '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

int pack(int argc, char** argv) {
  std::string output;
  std::vector<xe::EntryInput> entries;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "-o" || arg == "--entry") && i + 1 >= argc) return usage();
    if (arg == "-o") {
      output = argv[++i];
    } else if (arg == "--entry") {
      std::string spec = argv[++i];
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
        std::fprintf(stderr, "xgpu-kernels pack: --entry '%s' is not <isa>=<file>\n", spec.c_str());
        return kExitUsage;
      }
      xe::EntryInput entry;
      entry.isa_name = spec.substr(0, eq);
      const std::string path = spec.substr(eq + 1);
      xe::Status status = xe::kind_for_isa(entry.isa_name, &entry.kind);
      if (!status.ok()) {
        std::fprintf(stderr, "xgpu-kernels pack: %s\n", status.message().c_str());
        return kExitFailure;
      }
      std::string error;
      if (!read_file(path, &entry.code_object, &error)) {
        std::fprintf(stderr, "xgpu-kernels pack: %s\n", error.c_str());
        return kExitFailure;
      }
      status = xe::check_code_object_rules(entry.kind, entry.code_object);
      if (!status.ok()) {
        std::fprintf(stderr, "xgpu-kernels pack: %s (%s): %s\n", path.c_str(), entry.isa_name.c_str(),
                     status.message().c_str());
        return kExitFailure;
      }
      entries.push_back(std::move(entry));
    } else {
      std::fprintf(stderr, "xgpu-kernels pack: unknown argument '%s'\n", arg.c_str());
      return usage();
    }
  }
  if (output.empty() || entries.empty()) return usage();
  std::vector<uint8_t> bytes;
  xe::Status status = xe::write(entries, &bytes);
  if (!status.ok()) {
    std::fprintf(stderr, "xgpu-kernels pack: %s\n", status.message().c_str());
    return kExitFailure;
  }
  std::string error;
  if (!write_file(output, bytes, &error)) {
    std::fprintf(stderr, "xgpu-kernels pack: %s\n", error.c_str());
    return kExitFailure;
  }
  return 0;
}

// Reads and parses `path`. `out_hash_error` (inspect) lets a file whose
// structure is sound but whose code object hashes do not match through, with
// the mismatch there, so that inspect can still show what the file holds.
bool load(const std::string& path, std::vector<uint8_t>* bytes, xe::Executable* executable, const char* command,
          std::string* out_hash_error = nullptr) {
  std::string error;
  if (!read_file(path, bytes, &error)) {
    std::fprintf(stderr, "xgpu-kernels %s: %s\n", command, error.c_str());
    return false;
  }
  xe::Status status = xe::Executable::parse(*bytes, executable);
  if (!status.ok() && out_hash_error && xe::Executable::parse_structure(*bytes, false, executable).ok()) {
    *out_hash_error = status.message();
    return true;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "xgpu-kernels %s: %s: %s\n", command, path.c_str(), status.message().c_str());
    return false;
  }
  return true;
}

const char* kind_name(xgpu_executable_entry_kind_t kind) {
  return kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU ? "amdgpu" : kind == XGPU_EXECUTABLE_ENTRY_KIND_NVPTX ? "nvptx" : "host";
}

// Binding `i` of a kernel with a binding access record: "unknown", or "r",
// "w" and "a" (read, write, atomic) combined; "" when not accessed.
std::string access_text(const xe::KernelInfo& k, uint32_t i) {
  const uint64_t bit = uint64_t{1} << i;
  if (k.binding_unknown & bit) return "unknown";
  std::string text;
  if (k.binding_reads & bit) text += 'r';
  if (k.binding_writes & bit) text += 'w';
  if (k.binding_atomics & bit) text += 'a';
  return text;
}

std::string workgroup_text(const xe::KernelInfo& k) {
  if (k.required_workgroup_size[0] != 0) {
    return "required " + std::to_string(k.required_workgroup_size[0]) + "x" +
           std::to_string(k.required_workgroup_size[1]) + "x" + std::to_string(k.required_workgroup_size[2]);
  }
  if (k.max_flat_workgroup_size != 0) return "max " + std::to_string(k.max_flat_workgroup_size);
  return "any";
}

std::string mode_text(const xe::KernelInfo& k, xgpu_executable_entry_kind_t kind) {
  if (kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) {
    return "wave" + std::to_string(k.wavefront_size) + " sgpr " + std::to_string(k.sgpr_count) + " vgpr " +
           std::to_string(k.vgpr_count);
  }
  if (kind == XGPU_EXECUTABLE_ENTRY_KIND_NVPTX) return "ptx";
  const std::string paths = k.wiloop_paths.empty() ? "" : " [" + k.wiloop_paths + "]";
  if (k.workitem_loops) return "work-item loops (barriers)" + paths;
  return (k.uses_barriers ? "fibers (barriers)" : "loop") + paths;
}

int inspect(int argc, char** argv) {
  bool json = false;
  std::string path;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
    } else if (path.empty() && !arg.starts_with("-")) {
      path = arg;
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  std::vector<uint8_t> bytes;
  xe::Executable executable;
  std::string hash_error;
  if (!load(path, &bytes, &executable, "inspect", &hash_error)) return kExitFailure;

  const auto& entries = executable.entries();
  std::vector<xe::CodeObjectInfo> infos(entries.size());
  std::vector<std::string> errors(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    xe::Status status = xe::read_code_object(entries[e].kind, entries[e].code_object, &infos[e]);
    if (!status.ok()) errors[e] = status.message();
  }
  xe::Status check_status = hash_error.empty() ? xe::check(executable) : xe::Status::error(hash_error);
  // The table is printed either way; the exit status says whether the file
  // is usable (same rule as `check`).
  bool failed = !check_status.ok();
  for (const std::string& error : errors) failed |= !error.empty();
  const int exit_code = failed ? kExitFailure : 0;

  if (json) {
    nlohmann::ordered_json root;
    root["file"] = path;
    root["format_version"] = XGPU_EXECUTABLE_FORMAT_VERSION;
    root["check"] = check_status.ok() ? "ok" : check_status.message();
    auto& targets = root["targets"] = nlohmann::ordered_json::array();
    for (size_t e = 0; e < entries.size(); ++e) {
      nlohmann::ordered_json t;
      t["isa"] = std::string(entries[e].isa_name);
      t["kind"] = kind_name(entries[e].kind);
      t["offset"] = entries[e].offset;
      t["size"] = entries[e].code_object.size();
      if (!errors[e].empty()) t["error"] = errors[e];
      t["e_flags"] = infos[e].e_flags;
      auto& kernels = t["kernels"] = nlohmann::ordered_json::array();
      for (const xe::KernelInfo& k : infos[e].kernels) {
        nlohmann::ordered_json j;
        j["name"] = k.name;
        j["kernarg_size"] = k.kernarg_size;
        j["kernarg_alignment"] = k.kernarg_alignment;
        j["group_segment_size"] = k.group_segment_size;
        j["private_segment_size"] = k.private_segment_size;
        j["required_workgroup_size"] = {k.required_workgroup_size[0], k.required_workgroup_size[1],
                                        k.required_workgroup_size[2]};
        // null: the kernel does not declare its layout (XGPU_KERNEL_BINDINGS).
        j["layout"] = k.layout_declared ? nlohmann::ordered_json{{"binding_count", k.binding_count},
                                                                 {"constant_size", k.constant_size}}
                                        : nlohmann::ordered_json(nullptr);
        // XGPU_KERNEL_FLAG_PRINTS: the kernel may write print records.
        j["prints"] = k.prints;
        // XGPU_KERNEL_FLAG_BOUNDS_CHECKED: another kernel's bounds-checked
        // copy (GPU-assisted validation runs it).
        j["bounds_checked"] = k.bounds_checked;
        // Per binding, how the kernel's code accesses it (its binding access
        // record; null without one): "r", "w", "a" combined, "" for not at
        // all, "unknown" where its pointer escapes.
        if (k.access_known) {
          nlohmann::ordered_json access = nlohmann::ordered_json::array();
          for (uint32_t i = 0; i < k.binding_count && i < 64; ++i) access.push_back(access_text(k, i));
          j["binding_access"] = access;
        } else {
          j["binding_access"] = nullptr;
        }
        if (entries[e].kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) {
          j["max_flat_workgroup_size"] = k.max_flat_workgroup_size;
          j["wavefront_size"] = k.wavefront_size;
          j["sgpr_count"] = k.sgpr_count;
          j["vgpr_count"] = k.vgpr_count;
          j["uses_dynamic_stack"] = k.uses_dynamic_stack;
          j["hidden_args"] = k.hidden_args;
        } else {
          j["uses_barriers"] = k.uses_barriers;
          j["workitem_loops"] = k.workitem_loops;
          // The work-item loop pass's paths ([] when it left the kernel alone).
          nlohmann::ordered_json paths = nlohmann::ordered_json::array();
          for (size_t at = 0; at < k.wiloop_paths.size();) {
            size_t end = k.wiloop_paths.find(", ", at);
            if (end == std::string::npos) end = k.wiloop_paths.size();
            paths.push_back(k.wiloop_paths.substr(at, end - at));
            at = end + 2;
          }
          j["wiloop_paths"] = paths;
        }
        kernels.push_back(std::move(j));
      }
      targets.push_back(std::move(t));
    }
    std::printf("%s\n", root.dump(2).c_str());
    return exit_code;
  }

  std::printf("%s: xgpu executable, format %u, %zu targets\n\n", path.c_str(), XGPU_EXECUTABLE_FORMAT_VERSION,
              entries.size());
  std::printf("  %-42s %-7s %9s %9s %s\n", "target", "kind", "offset", "bytes", "kernels");
  for (size_t e = 0; e < entries.size(); ++e) {
    std::printf("  %-42s %-7s %9llu %9zu %s\n", std::string(entries[e].isa_name).c_str(),
                kind_name(entries[e].kind), static_cast<unsigned long long>(entries[e].offset),
                entries[e].code_object.size(),
                errors[e].empty() ? std::to_string(infos[e].kernels.size()).c_str()
                                  : ("error: " + errors[e]).c_str());
  }
  // Kernels in name order, each with one row per target.
  std::map<std::string, std::vector<std::pair<size_t, const xe::KernelInfo*>>> kernels;
  for (size_t e = 0; e < entries.size(); ++e) {
    for (const xe::KernelInfo& k : infos[e].kernels) kernels[k.name].push_back({e, &k});
  }
  for (const auto& [name, rows] : kernels) {
    std::printf("\nkernel %s\n", name.c_str());
    // A bounds-checked copy (XGPU_KERNEL_FLAG_BOUNDS_CHECKED on every entry,
    // which `check` makes sure of): say so once.
    if (!rows.empty() && rows.front().second->bounds_checked)
      std::printf("  the bounds-checked copy of kernel %s (GPU-assisted validation runs it)\n",
                  name.substr(0, name.size() - std::strlen(XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX)).c_str());
    std::printf("  %-42s %8s %6s %8s %9s %8s %8s %6s  %-18s %s\n", "target", "kernarg", "align", "bindings",
                "constants", "group", "private", "prints", "workgroup size", "mode");
    for (const auto& [e, k] : rows) {
      // "-": no XGPU_KERNEL_BINDINGS, pipelines must state the layout.
      const std::string bindings = k->layout_declared ? std::to_string(k->binding_count) : "-";
      const std::string constants = k->layout_declared ? std::to_string(k->constant_size) : "-";
      // "yes": XGPU_KERNEL_FLAG_PRINTS, the driver gives it a print buffer.
      std::printf("  %-42s %8u %6u %8s %9s %8u %8u %6s  %-18s %s\n", std::string(entries[e].isa_name).c_str(),
                  k->kernarg_size, k->kernarg_alignment, bindings.c_str(), constants.c_str(), k->group_segment_size,
                  k->private_segment_size, k->prints ? "yes" : "-", workgroup_text(*k).c_str(),
                  mode_text(*k, entries[e].kind).c_str());
    }
    // How the kernel accesses its bindings, per target whose code object
    // records it (binding access records).
    for (const auto& [e, k] : rows) {
      if (!k->access_known) continue;
      std::string text;
      for (uint32_t i = 0; i < k->binding_count && i < 64; ++i) {
        const std::string one = access_text(*k, i);
        text += (i ? ", " : "") + std::to_string(i) + ": " + (one.empty() ? "-" : one);
      }
      std::printf("  binding access on %s: %s\n", std::string(entries[e].isa_name).c_str(),
                  text.empty() ? "no bindings" : text.c_str());
    }
  }
  std::printf("\ncheck: %s\n", check_status.ok() ? "ok" : check_status.message().c_str());
  return exit_code;
}

int check(int argc, char** argv) {
  if (argc != 1 || argv[0][0] == '-') return usage();
  const std::string path = argv[0];
  std::vector<uint8_t> bytes;
  xe::Executable executable;
  if (!load(path, &bytes, &executable, "check")) return kExitFailure;
  std::vector<xe::CodeObjectInfo> infos;
  xe::Status status = xe::check(executable, &infos);
  if (!status.ok()) {
    std::fprintf(stderr, "xgpu-kernels check: %s: %s\n", path.c_str(), status.message().c_str());
    return kExitFailure;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  if (command == "pack") return pack(argc - 2, argv + 2);
  if (command == "inspect") return inspect(argc - 2, argv + 2);
  if (command == "check") return check(argc - 2, argv + 2);
  if (command == "--help" || command == "-h") {
    usage();
    return 0;
  }
  std::fprintf(stderr, "xgpu-kernels: unknown command '%s'\n", command.c_str());
  return usage();
}
