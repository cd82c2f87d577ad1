// Cross-target consistency of an executable's code objects.
#include <algorithm>
#include <string>
#include <vector>

#include "xgpu_executable.h"

namespace xgpu::executable {
namespace {

std::string list_kernels(const CodeObjectInfo& info) {
  std::string names;
  for (const KernelInfo& k : info.kernels) names += (names.empty() ? "" : ", ") + k.name;
  return names.empty() ? "(none)" : names;
}

}  // namespace

Status check(const Executable& executable, std::vector<CodeObjectInfo>* out_infos) {
  std::vector<CodeObjectInfo> local;
  std::vector<CodeObjectInfo>& infos = out_infos ? *out_infos : local;
  infos.clear();
  const std::vector<Entry>& entries = executable.entries();
  for (const Entry& entry : entries) {
    const std::string who(entry.isa_name);
    Status status = check_code_object_rules(entry.kind, entry.code_object);
    if (!status.ok()) return Status::error(who + ": " + status.message());
    CodeObjectInfo info;
    status = read_code_object(entry.kind, entry.code_object, &info);
    if (!status.ok()) return Status::error(who + ": " + status.message());
    infos.push_back(info);
    if (info.isa_name != entry.isa_name) {
      return Status::error(who + ": the code object was built for '" + info.isa_name + "'");
    }
    for (const KernelInfo& k : info.kernels) {
      if (!k.hidden_args.empty()) {
        std::string kinds;
        for (const std::string& h : k.hidden_args) kinds += (kinds.empty() ? "" : ", ") + h;
        return Status::error(who + ": kernel '" + k.name + "' has hidden kernel arguments (" + kinds +
                             "): it uses a compiler built-in that needs implicit arguments; use <xgpu/kernel.h> "
                             "built-ins only");
      }
      if (entry.kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU && k.explicit_arg_count != 1) {
        return Status::error(who + ": kernel '" + k.name + "' has " + std::to_string(k.explicit_arg_count) +
                             " arguments, an xgpu kernel has exactly one (its argument struct)");
      }
      if (entry.kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU && k.uses_dynamic_stack) {
        return Status::error(who + ": kernel '" + k.name +
                             "' uses a dynamic stack (recursion, variable-length arrays or alloca)");
      }
    }
  }
  if (infos.empty()) return {};
  const CodeObjectInfo& first = infos[0];
  const std::string first_isa(entries[0].isa_name);
  for (size_t e = 1; e < infos.size(); ++e) {
    const CodeObjectInfo& other = infos[e];
    const std::string other_isa(entries[e].isa_name);
    bool same_set = first.kernels.size() == other.kernels.size();
    for (size_t k = 0; same_set && k < first.kernels.size(); ++k) {
      same_set = first.kernels[k].name == other.kernels[k].name;
    }
    if (!same_set) {
      return Status::error("kernel sets differ: " + first_isa + " has " + list_kernels(first) + "; " + other_isa +
                           " has " + list_kernels(other));
    }
    for (size_t k = 0; k < first.kernels.size(); ++k) {
      const KernelInfo& a = first.kernels[k];
      const KernelInfo& b = other.kernels[k];
      auto mismatch = [&](const char* what, uint32_t va, uint32_t vb, const char* unit) {
        return Status::error("kernel '" + a.name + "': " + what + " differs: " + std::to_string(va) + unit + " on " +
                             first_isa + ", " + std::to_string(vb) + unit + " on " + other_isa);
      };
      if (a.kernarg_size != b.kernarg_size) return mismatch("kernarg size", a.kernarg_size, b.kernarg_size, " bytes");
      if (a.kernarg_alignment != b.kernarg_alignment) {
        return mismatch("kernarg alignment", a.kernarg_alignment, b.kernarg_alignment, " bytes");
      }
      if (a.group_segment_size != b.group_segment_size) {
        return mismatch("static group segment size", a.group_segment_size, b.group_segment_size, " bytes");
      }
    }
  }
  // From here on every entry holds the same kernels sorted by name, so
  // kernel k is the same kernel in every entry.
  const size_t kernel_count = first.kernels.size();

  // A required workgroup size must fit every AMDGPU target's flat workgroup
  // size limit. The error names the first target (in entry order) whose
  // limit it exceeds: the first point where the running minimum of the
  // limits drops below it. Per kernel, those points are kept in entry order
  // (limits strictly falling), so each requirement is one binary search.
  struct Limit {
    size_t entry;   // entry index
    uint32_t size;  // .max_flat_workgroup_size (work items)
  };
  std::vector<std::vector<Limit>> falling_limits(kernel_count);
  for (size_t k = 0; k < kernel_count; ++k) {
    for (size_t o = 0; o < infos.size(); ++o) {
      const uint32_t limit = infos[o].kernels[k].max_flat_workgroup_size;
      if (limit == 0) continue;  // host: no limit
      if (falling_limits[k].empty() || limit < falling_limits[k].back().size) falling_limits[k].push_back({o, limit});
    }
  }
  for (size_t e = 0; e < infos.size(); ++e) {
    for (size_t k = 0; k < kernel_count; ++k) {
      const KernelInfo& ki = infos[e].kernels[k];
      const uint64_t required = uint64_t{ki.required_workgroup_size[0]} * ki.required_workgroup_size[1] *
                                ki.required_workgroup_size[2];
      const std::vector<Limit>& limits = falling_limits[k];
      if (required == 0 || limits.empty() || required <= limits.back().size) continue;
      auto exceeded = std::partition_point(limits.begin(), limits.end(),
                                           [&](const Limit& l) { return required <= l.size; });
      return Status::error("kernel '" + ki.name + "': required workgroup size " + std::to_string(required) +
                           " work items exceeds the limit " + std::to_string(exceeded->size) + " on " +
                           std::string(entries[exceeded->entry].isa_name));
    }
  }
  return {};
}

}  // namespace xgpu::executable
