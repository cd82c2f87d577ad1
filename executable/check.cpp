// Cross-target consistency of an executable's code objects.
#include <algorithm>
#include <string>
#include <vector>

#include <xgpu/host_kernel.h>

#include "xgpu_executable.h"

namespace xgpu::executable {
namespace {

std::string list_kernels(const CodeObjectInfo& info) {
  std::string names;
  for (const KernelInfo& k : info.kernels) names += (names.empty() ? "" : ", ") + k.name;
  return names.empty() ? "(none)" : names;
}

}  // namespace

uint64_t host_fiber_kernel_stack_bytes(uint32_t private_segment_size) {
  const uint64_t minimum = XGPU_HOST_FIBER_STACK_MIN_BYTES - XGPU_HOST_FIBER_STACK_RUNTIME_BYTES;
  return std::max<uint64_t>(minimum, private_segment_size);
}

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
        return Status::error(who + ": kernel '" + k.name + "' has hidden kernel arguments (" + hidden_args_list(k) +
                             "): " + kHiddenArgsCause);
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
      // A pipeline takes its layout from the code object the agent loads:
      // it must not depend on which one that is.
      if (a.layout_declared != b.layout_declared) {
        return Status::error("kernel '" + a.name + "': its layout (XGPU_KERNEL_BINDINGS) is declared on " +
                             (a.layout_declared ? first_isa : other_isa) + " but not on " +
                             (a.layout_declared ? other_isa : first_isa));
      }
      if (a.binding_count != b.binding_count) {
        return mismatch("declared binding count", a.binding_count, b.binding_count, "");
      }
      // The driver writes the print buffer's address before the kernarg
      // segment of a kernel that prints, whichever code object runs it.
      if (a.bounds_checked != b.bounds_checked) {
        return Status::error("kernel '" + a.name + "': it is a bounds-checked copy (XGPU_KERNEL_FLAG_BOUNDS_CHECKED) on " +
                             (a.bounds_checked ? first_isa : other_isa) + " but not on " +
                             (a.bounds_checked ? other_isa : first_isa));
      }
      if (a.prints != b.prints) {
        return Status::error("kernel '" + a.name + "': it may print (XGPU_KERNEL_FLAG_PRINTS) on " +
                             (a.prints ? first_isa : other_isa) + " but not on " +
                             (a.prints ? other_isa : first_isa));
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

  // A kernel with barriers runs each host work item on a fiber whose stack
  // is fixed when the workgroup starts (<xgpu/host_kernel.h>). The AMDGPU
  // private segment size is the compiler's measure of the same per-item
  // frame (stack arrays, spills): a kernel needing more than the fiber gives
  // kernel code would overflow the fiber's stack on the host.
  struct PrivateNeed {
    size_t entry = 0;    // AMDGPU entry that needs the most
    uint32_t bytes = 0;  // .private_segment_fixed_size there
  };
  std::vector<PrivateNeed> private_needs(kernel_count);
  for (size_t o = 0; o < infos.size(); ++o) {
    if (entries[o].kind != XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) continue;
    for (size_t k = 0; k < kernel_count; ++k) {
      const uint32_t bytes = infos[o].kernels[k].private_segment_size;
      if (bytes > private_needs[k].bytes) private_needs[k] = {o, bytes};
    }
  }
  for (size_t e = 0; e < infos.size(); ++e) {
    if (entries[e].kind != XGPU_EXECUTABLE_ENTRY_KIND_HOST) continue;
    for (size_t k = 0; k < kernel_count; ++k) {
      const KernelInfo& host = infos[e].kernels[k];
      if (!host.uses_barriers) continue;
      const uint64_t stack = host_fiber_kernel_stack_bytes(host.private_segment_size);
      if (private_needs[k].bytes <= stack) continue;
      return Status::error("kernel '" + host.name + "' uses barriers and needs " +
                           std::to_string(private_needs[k].bytes) + " bytes of private memory per work item on " +
                           std::string(entries[private_needs[k].entry].isa_name) +
                           " (.private_segment_fixed_size), more than the " + std::to_string(stack) +
                           " bytes of fiber stack kernel code gets per work item on " + std::string(entries[e].isa_name) +
                           ": keep large arrays in groupshared or global memory");
    }
  }
  return {};
}

}  // namespace xgpu::executable
