#include "kernel_metadata.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>

#include "../chassis/object_map.h"
#include "xgpu_executable.h"

namespace xgpu_validation {
namespace {

namespace xe = xgpu::executable;

// Keeps a fact only while every candidate gives the same value.
template <typename T>
void Agree(std::optional<T>& fact, const std::optional<T>& value) {
  if (fact && !(value && *fact == *value)) fact.reset();
}

KernelFacts FactsOf(const xe::KernelInfo& info) {
  KernelFacts facts;
  facts.name = info.name;
  facts.kernarg_size = info.kernarg_size;
  facts.layout = KernelFacts::Layout{info.layout_declared, info.binding_count, info.constant_size};
  facts.required_size = std::array<uint32_t, 3>{info.required_workgroup_size[0], info.required_workgroup_size[1],
                                                info.required_workgroup_size[2]};
  facts.static_memory = info.group_segment_size;
  return facts;
}

std::string Dims(const uint32_t* size) {
  return "(" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + ", " + std::to_string(size[2]) + ")";
}

std::string LayoutText(uint32_t bindings, uint32_t constants) {
  return "bindingCount " + std::to_string(bindings) + ", constantSize " + std::to_string(constants);
}

}  // namespace

const KernelFacts* ExecutableKernels::Find(const char* name) const {
  auto it = std::lower_bound(kernels.begin(), kernels.end(), std::string_view(name),
                             [](const KernelFacts& k, std::string_view n) { return k.name < n; });
  return it != kernels.end() && it->name == name ? &*it : nullptr;
}

std::shared_ptr<const ExecutableKernels> ReadExecutableKernels(const void* bytes, size_t size, const char* isa_name) {
  xe::Executable file;
  if (!xe::Executable::parse(std::span<const uint8_t>(static_cast<const uint8_t*>(bytes), size), &file).ok())
    return nullptr;
  // The code object the driver loads when the device's best ISA names one
  // (Executable::select takes the agent's ISAs best first); else every code
  // object of the device's kind may be the one.
  std::vector<const xe::Entry*> candidates;
  const std::string best(isa_name);
  const xe::Entry* selected = nullptr;
  if (file.select(std::span<const std::string>(&best, 1), &selected).ok()) {
    candidates.push_back(selected);
  } else {
    xgpu_executable_entry_kind_t kind{};
    const bool kind_known = xe::kind_for_isa(best, &kind).ok();
    for (const xe::Entry& entry : file.entries())
      if (!kind_known || entry.kind == kind) candidates.push_back(&entry);
  }
  // Facts of the kernels every readable candidate holds, as far as they agree
  // (an unreadable code object is not the one the driver loaded: it reads its
  // choice the same way and fails xgpuCreateExecutable otherwise).
  std::vector<KernelFacts> merged;
  bool first = true;
  for (const xe::Entry* entry : candidates) {
    xe::CodeObjectInfo info;
    if (!xe::read_code_object(entry->kind, entry->code_object, &info).ok()) continue;
    std::vector<KernelFacts> next;
    for (const xe::KernelInfo& kernel : info.kernels) {
      KernelFacts facts = FactsOf(kernel);
      if (!first) {
        auto it = std::find_if(merged.begin(), merged.end(), [&](const KernelFacts& k) { return k.name == facts.name; });
        if (it == merged.end()) continue;  // not in every candidate: unknown
        Agree(it->kernarg_size, facts.kernarg_size);
        Agree(it->layout, facts.layout);
        Agree(it->required_size, facts.required_size);
        Agree(it->static_memory, facts.static_memory);
        facts = std::move(*it);
      }
      next.push_back(std::move(facts));
    }
    merged = std::move(next);
    first = false;
  }
  if (first) return nullptr;
  auto out = std::make_shared<ExecutableKernels>();
  out->kernels = std::move(merged);
  std::sort(out->kernels.begin(), out->kernels.end(),
            [](const KernelFacts& a, const KernelFacts& b) { return a.name < b.name; });
  return out;
}

std::shared_ptr<const ExecutableKernels> ReadExecutableKernelsFromFile(const char* path, const char* isa_name) {
  // The reader's read_file refuses a FIFO, a device, a folder, /proc files
  // and oversized files before reading (the driver reports why).
  std::vector<uint8_t> bytes;
  if (!xgpu::executable::read_file(path, &bytes).ok()) return nullptr;
  return ReadExecutableKernels(bytes.data(), bytes.size(), isa_name);
}

bool ValidatePipelineKernel(CallContext& ctx, const XgpuPipelineCreateInfo& info, const XgpuPhysicalDeviceLimits& limits,
                            bool given_layout_ok) {
  if (info.pEntryPoint == nullptr) return false;
  const ObjectRecord* executable =
      Objects().Find(XGPU_OBJECT_TYPE_EXECUTABLE, reinterpret_cast<uintptr_t>(info.executable));
  // A handle that is not the call's device's live executable is the implicit rules' to report.
  if (executable == nullptr || executable->device != ctx.device || !executable->kernels) return false;
  const KernelFacts* kernel = executable->kernels->Find(info.pEntryPoint);
  if (kernel == nullptr) return false;  // not a kernel of it: the driver returns XGPU_ERROR_NOT_FOUND
  const ObjectRef object{XGPU_OBJECT_TYPE_EXECUTABLE, executable->handle};
  const std::string of_kernel = "kernel \"" + kernel->name + "\"";
  bool skip = false;

  // The layout: both counts 0 take the one the kernel declares.
  const bool given = info.bindingCount != 0 || info.constantSize != 0;
  bool layout_known = given ? given_layout_ok : false;
  uint32_t binding_count = info.bindingCount;
  uint32_t constant_size = info.constantSize;
  if (kernel->layout && kernel->kernarg_size) {
    const KernelFacts::Layout& declared = *kernel->layout;
    if (!given && declared.declared) {
      binding_count = declared.binding_count;
      constant_size = declared.constant_size;
      layout_known = true;
      const std::string source = " (declared by " + of_kernel + " with XGPU_KERNEL_BINDINGS)";
      if (binding_count > limits.maxBindings) {
        layout_known = false;
        skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_bindingCount, Field{"pCreateInfo->bindingCount"},
                           "0, so the layout is the kernel's: binding count " + std::to_string(binding_count) + source +
                               ", more than limits.maxBindings " + std::to_string(limits.maxBindings),
                           {object});
      }
      if (constant_size % 4 != 0 || constant_size > limits.maxPushConstantsSize) {
        layout_known = false;
        skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_constantSize, Field{"pCreateInfo->constantSize"},
                           "0, so the layout is the kernel's: constant size " + std::to_string(constant_size) + source +
                               (constant_size % 4 != 0 ? ", not a multiple of 4"
                                                       : ", more than limits.maxPushConstantsSize " +
                                                             std::to_string(limits.maxPushConstantsSize)),
                           {object});
      }
    } else if (!given && *kernel->kernarg_size != 0) {
      skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_layout_declared, Field{"pCreateInfo->bindingCount"},
                         "0 and pCreateInfo->constantSize is 0, but " + of_kernel +
                             " declares no layout (its kernarg struct is " + std::to_string(*kernel->kernarg_size) +
                             " bytes): declare XGPU_KERNEL_BINDINGS(" + kernel->name +
                             ", <binding count>) after the kernel, or give both counts",
                         {object});
    } else if (given && declared.declared &&
               (info.bindingCount != declared.binding_count || info.constantSize != declared.constant_size)) {
      layout_known = false;  // one wrong layout is one message
      skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_layout_matches, Field{"pCreateInfo->bindingCount"},
                         std::to_string(info.bindingCount) + " and pCreateInfo->constantSize is " +
                             std::to_string(info.constantSize) + ", but " + of_kernel + " declares " +
                             LayoutText(declared.binding_count, declared.constant_size) +
                             " (XGPU_KERNEL_BINDINGS): give both as 0 to take it",
                         {object});
    } else if (!given) {
      layout_known = true;  // no layout and no kernargs: (0, 0)
    }
    const uint64_t layout_size = uint64_t{binding_count} * 8 + constant_size;
    if (layout_known && layout_size != *kernel->kernarg_size) {
      skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_kernargSize, Field{"pCreateInfo->bindingCount"},
                         std::to_string(binding_count) + " and pCreateInfo->constantSize is " +
                             std::to_string(constant_size) + ": 8 * " + std::to_string(binding_count) + " + " +
                             std::to_string(constant_size) + " = " + std::to_string(layout_size) +
                             " bytes, but the kernarg struct of " + of_kernel + " is " +
                             std::to_string(*kernel->kernarg_size) + " bytes",
                         {object});
    }
  }

  if (kernel->required_size) {
    const uint32_t* size = info.workgroupSize;
    const uint32_t* required = kernel->required_size->data();
    const bool given_size = size[0] != 0 || size[1] != 0 || size[2] != 0;
    const bool has_required = required[0] != 0 || required[1] != 0 || required[2] != 0;
    if (given_size && has_required && !std::equal(size, size + 3, required)) {
      skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize_required, Field{"pCreateInfo->workgroupSize"},
                         Dims(size) + ", but " + of_kernel + " requires " + Dims(required) +
                             " (give it, or (0, 0, 0) to take it)",
                         {object});
    } else if (!given_size && !has_required) {
      skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize_required, Field{"pCreateInfo->workgroupSize"},
                         "(0, 0, 0), but " + of_kernel + " has no required workgroup size to take",
                         {object});
    }
  }

  if (kernel->static_memory && *kernel->static_memory > limits.maxWorkgroupMemorySize) {
    skip |= ctx.Report(Vuid::xgpuCreatePipeline_pCreateInfo_workgroupMemory, Field{"pCreateInfo->pEntryPoint"},
                       "\"" + kernel->name + "\", whose static workgroup memory is " +
                           std::to_string(*kernel->static_memory) + " bytes, more than limits.maxWorkgroupMemorySize " +
                           std::to_string(limits.maxWorkgroupMemorySize),
                       {object});
  }
  return skip;
}

}  // namespace xgpu_validation
