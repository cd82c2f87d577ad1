#include "executable.h"

#include <algorithm>
#include <iterator>
#include <span>

#include "common.h"
#include "host_memory.h"
#include "xgpu_executable.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {
namespace {

constexpr std::string_view kKernelDescriptorSuffix = ".kd";  // AMDGPU/host kernel symbol suffix

struct SymbolQuery {
  const HsaApi* hsa;                // the table
  std::vector<KernelInfo>* kernels; // kernels found
  std::string error;                // first failure, naming the call and attribute
};

#define XGPU_ATTRIBUTE(attribute) attribute, #attribute

// Queries one symbol attribute; on failure records the message and returns false.
bool symbol_info(SymbolQuery* query, hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t attribute,
                 const char* name, void* value, hsa_status_t* out_status) {
  *out_status = query->hsa->hsa_executable_symbol_get_info(symbol, attribute, value);
  if (*out_status == HSA_STATUS_SUCCESS) return true;
  query->hsa->check("hsa_executable_symbol_get_info", name, *out_status, &query->error);
  return false;
}

hsa_status_t collect_kernel(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t symbol, void* data) {
  auto* query = static_cast<SymbolQuery*>(data);
  hsa_status_t status = HSA_STATUS_SUCCESS;
  hsa_symbol_kind_t kind{};
  if (!symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_TYPE), &kind, &status)) return status;
  if (kind != HSA_SYMBOL_KIND_KERNEL) return HSA_STATUS_SUCCESS;
  uint32_t length = 0;
  if (!symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH), &length, &status))
    return status;
  std::string name(length, '\0');
  if (!symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_NAME), name.data(), &status))
    return status;
  while (!name.empty() && name.back() == '\0') name.pop_back();
  if (name.size() > kKernelDescriptorSuffix.size() && name.ends_with(kKernelDescriptorSuffix))
    name.resize(name.size() - kKernelDescriptorSuffix.size());
  KernelInfo kernel;
  kernel.name = name;
  uint32_t reported_alignment = 0;
  if (!symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT), &kernel.kernel_object,
                   &status) ||
      !symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE),
                   &kernel.kernarg_size, &status) ||
      !symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT),
                   &reported_alignment, &status) ||
      !symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE),
                   &kernel.group_segment_size, &status) ||
      !symbol_info(query, symbol, XGPU_ATTRIBUTE(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE),
                   &kernel.private_segment_size, &status))
    return status;
  // Every kernarg address the ICD writes into a packet is aligned to this.
  kernel.kernarg_alignment = std::max(reported_alignment, kMinKernargSegmentAlignment);
  query->kernels->push_back(std::move(kernel));
  return HSA_STATUS_SUCCESS;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "(none)" : out;
}

// Destroys the HSA objects (reporting failures) and the LoadedExecutable.
void unload(LoadedExecutable* executable) {
  Device* device = executable->device;
  const HsaApi& hsa = *device->hsa;
  std::string error;
  if (executable->executable.handle &&
      hsa.hsa_executable_destroy_checked(&error, executable->executable) != XGPU_SUCCESS)
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                  "unloading the " + executable->isa_name + " code object: " + error);
  if (executable->reader.handle &&
      hsa.hsa_code_object_reader_destroy_checked(&error, executable->reader) != XGPU_SUCCESS)
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, msgid::kHsaCallFailed,
                  "unloading the " + executable->isa_name + " code object: " + error);
  host_delete_handle(executable);
}

}  // namespace

XgpuResult executable_load(Device* device, const char* function, const void* data, size_t size,
                           const XgpuAllocationCallbacks* allocator, LoadedExecutable** out_executable) {
  *out_executable = nullptr;
  const HsaApi& hsa = *device->hsa;
  namespace xe = xgpu::executable;
  xe::Executable file;
  xe::Status status = xe::Executable::parse(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size), &file);
  if (!status.ok())
    return device_fail(device, XGPU_ERROR_INVALID_EXECUTABLE, msgid::kInvalidExecutable,
                       std::string(function) + ": " + status.message());
  const xe::Entry* entry = nullptr;
  status = file.select(device->physical->isa_names, &entry);
  if (!status.ok())
    return device_fail(device, XGPU_ERROR_INCOMPATIBLE_EXECUTABLE, msgid::kIncompatibleExecutable,
                       std::string(function) + ": " + status.message());
  // The whole file passes what `xgpu-kernels check` checks (every code
  // object's ELF, metadata and layout records, and the targets' agreement)
  // before the runtime sees a byte of it.
  std::vector<xe::CodeObjectInfo> infos;
  status = xe::check(file, &infos);
  if (!status.ok())
    return device_fail(device, XGPU_ERROR_INVALID_EXECUTABLE, msgid::kInvalidExecutable,
                       std::string(function) + ": " + status.message());
  const xe::CodeObjectInfo& metadata = infos[static_cast<size_t>(entry - file.entries().data())];

  HostPtr<LoadedExecutable> executable(host_new<LoadedExecutable>(allocator));
  if (!executable)
    return device_fail(device, XGPU_ERROR_OUT_OF_HOST_MEMORY, msgid::kOutOfHostMemory,
                       std::string(function) + ": allocating the object's host memory failed");
  executable->device = device;
  executable->isa_name = std::string(entry->isa_name);
  executable->code_object.assign(entry->code_object.begin(), entry->code_object.end());
  std::string error;
  XgpuResult result = hsa.hsa_code_object_reader_create_from_memory_checked(
      &error, static_cast<const void*>(executable->code_object.data()), executable->code_object.size(),
      &executable->reader);
  if (result == XGPU_SUCCESS)
    result = hsa.hsa_executable_create_alt_checked(&error, device->physical->profile,
                                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                                   static_cast<const char*>(nullptr), &executable->executable);
  if (result == XGPU_SUCCESS)
    result = hsa.hsa_executable_load_agent_code_object_checked(&error, executable->executable, device->agent,
                                                               executable->reader, static_cast<const char*>(nullptr),
                                                               static_cast<hsa_loaded_code_object_t*>(nullptr));
  if (result == XGPU_SUCCESS)
    result = hsa.hsa_executable_freeze_checked(&error, executable->executable, static_cast<const char*>(nullptr));
  SymbolQuery query{&hsa, &executable->kernels, {}};
  if (result == XGPU_SUCCESS) {
    result = hsa.hsa_executable_iterate_agent_symbols_checked(&error, executable->executable, device->agent,
                                                              collect_kernel, static_cast<void*>(&query));
    if (!query.error.empty()) {
      error = query.error;  // the symbol query that failed, not the iteration
      if (result == XGPU_SUCCESS) result = XGPU_ERROR_INVALID_EXECUTABLE;
    }
  }
  if (result != XGPU_SUCCESS) {
    unload(executable.release());
    return device_fail(device, result, msgid::failure(result),
                       std::string(function) + ": loading the " + std::string(entry->isa_name) +
                           " code object: " + error);
  }
  for (KernelInfo& kernel : executable->kernels) {
    for (const xe::KernelInfo& meta : metadata.kernels) {
      if (meta.name != kernel.name) continue;
      std::copy(std::begin(meta.required_workgroup_size), std::end(meta.required_workgroup_size),
                kernel.required_workgroup_size);
      if (kernel.kernarg_size == 0) kernel.kernarg_size = meta.kernarg_size;
      if (meta.kernarg_alignment) kernel.kernarg_alignment = std::max(kernel.kernarg_alignment, meta.kernarg_alignment);
      // The reader checked the record against the code object's kernarg
      // size; xgpuCreatePipeline still checks the layout it resolves against
      // the size the runtime reports for the loaded kernel.
      kernel.layout_declared = meta.layout_declared;
      kernel.binding_count = meta.binding_count;
      kernel.constant_size = meta.constant_size;
      kernel.prints = meta.prints;
      kernel.bounds_checked = meta.bounds_checked;
      if (kernel.bounds_checked) kernel.display_name = std::string(xe::checked_kernel_name(kernel.name));
      kernel.access_known = meta.access_known;
      kernel.binding_reads = meta.binding_reads;
      kernel.binding_writes = meta.binding_writes;
      kernel.binding_atomics = meta.binding_atomics;
      kernel.binding_unknown = meta.binding_unknown;
    }
  }
  std::sort(executable->kernels.begin(), executable->kernels.end(),
            [](const KernelInfo& a, const KernelInfo& b) { return a.name < b.name; });
  *out_executable = executable.release();
  return XGPU_SUCCESS;
}

// --- seam ---------------------------------------------------------------------

XgpuResult device_load_executable(Device* device, const void* data, size_t size, LoadedExecutable** out_executable) {
  return executable_load(device, "device library", data, size, nullptr, out_executable);
}

void device_unload_executable(Device*, LoadedExecutable* executable) {
  if (executable) loaded_executable_release(executable);
}

void loaded_executable_retain(LoadedExecutable* executable) {
  executable->refs.fetch_add(1, std::memory_order_relaxed);
}

void loaded_executable_release(LoadedExecutable* executable) {
  if (executable->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) unload(executable);
}

const KernelInfo* loaded_executable_kernel(const LoadedExecutable* executable, const char* name) {
  if (!executable || !name) return nullptr;
  auto it = std::lower_bound(executable->kernels.begin(), executable->kernels.end(), std::string_view(name),
                             [](const KernelInfo& kernel, std::string_view n) { return kernel.name < n; });
  return it != executable->kernels.end() && it->name == name ? &*it : nullptr;
}

const PipelineInfo* pipeline_info(XgpuPipeline pipeline) {
  auto* p = from_handle<Pipeline>(pipeline);
  return p ? &p->info : nullptr;
}

// --- entry points -------------------------------------------------------------

XgpuResult executable_create(XgpuDevice handle, const XgpuExecutableCreateInfo* info,
                             const XgpuAllocationCallbacks* allocator, XgpuExecutable* out_executable) {
  Device* device = device_from_handle(handle);
  if (!device || !info || !out_executable) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_executable = nullptr;
  if (device->lost) return device_fail_lost(device, "xgpuCreateExecutable");
  std::vector<uint8_t> file;
  const void* data = info->pCode;
  size_t size = info->codeSize;
  if ((data != nullptr) == (info->pFilePath != nullptr))
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateExecutable_pCreateInfo_source,
                       data ? "xgpuCreateExecutable: both pCreateInfo->pCode and pCreateInfo->pFilePath are set "
                              "(exactly one must be)"
                            : "xgpuCreateExecutable: neither pCreateInfo->pCode nor pCreateInfo->pFilePath is set "
                              "(exactly one must be)");
  if (data ? size == 0 : size != 0)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateExecutable_pCreateInfo_codeSize,
                       data ? "xgpuCreateExecutable: pCreateInfo->codeSize is 0 with pCreateInfo->pCode set (must be "
                              "the size of the code, greater than 0)"
                            : "xgpuCreateExecutable: pCreateInfo->codeSize is " + std::to_string(size) +
                                  " with pCreateInfo->pFilePath set (must be 0)");
  if (!data) {
    // A FIFO, a device, a folder, /proc files and oversized files are
    // refused before a byte is read (xgpu::executable::read_file).
    const xgpu::executable::Status read = xgpu::executable::read_file(info->pFilePath, &file);
    if (!read.ok())
      return device_fail(device, XGPU_ERROR_INVALID_EXECUTABLE, msgid::kInvalidExecutable,
                         "xgpuCreateExecutable: pCreateInfo->pFilePath: " + read.message());
    data = file.data();
    size = file.size();
  }
  LoadedExecutable* executable = nullptr;
  XgpuResult result = executable_load(device, "xgpuCreateExecutable", data, size, allocator, &executable);
  if (result != XGPU_SUCCESS) {
    *out_executable = nullptr;
    return result;
  }
  device_track_handle(device, executable);
  *out_executable = to_handle<XgpuExecutable>(executable);
  return XGPU_SUCCESS;
}

void executable_destroy(XgpuDevice device, XgpuExecutable handle, const XgpuAllocationCallbacks*) {
  Device* owner = device_from_handle(device);
  auto* executable = from_handle<LoadedExecutable>(handle);
  if (!owner || !executable) return;
  if (!device_release_handle(owner, executable, vuid::xgpuDestroyExecutable_executable_parameter,
                             "xgpuDestroyExecutable: executable")) return;
  // Pipelines created from it keep it loaded until they are destroyed.
  loaded_executable_release(executable);
}

XgpuResult pipeline_create(XgpuDevice handle, const XgpuPipelineCreateInfo* info,
                           const XgpuAllocationCallbacks* allocator, XgpuPipeline* out_pipeline) {
  Device* device = device_from_handle(handle);
  if (!device || !info || !out_pipeline) return XGPU_ERROR_INVALID_ARGUMENT;
  *out_pipeline = nullptr;
  if (device->lost) return device_fail_lost(device, "xgpuCreatePipeline");
  auto* executable = from_handle<LoadedExecutable>(info->executable);
  if (!executable)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                       vuid::xgpuCreatePipeline_pCreateInfo_executable_parameter,
                       "xgpuCreatePipeline: pCreateInfo->executable is XGPU_NULL_HANDLE");
  if (!info->pEntryPoint)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                       vuid::xgpuCreatePipeline_pCreateInfo_pEntryPoint_parameter,
                       "xgpuCreatePipeline: pCreateInfo->pEntryPoint is NULL");
  const KernelInfo* kernel = loaded_executable_kernel(executable, info->pEntryPoint);
  if (!kernel) {
    std::vector<std::string> names;
    for (const KernelInfo& k : executable->kernels)
      if (!k.bounds_checked) names.push_back(k.name);  // not the copies GPU-assisted validation runs
    return device_fail(device, XGPU_ERROR_NOT_FOUND, msgid::kEntryPointNotFound,
                       std::string("xgpuCreatePipeline: kernel \"") + info->pEntryPoint +
                           "\" is not in the executable (its kernels: " + join(names) + ")");
  }
  // The layout: bindingCount = constantSize = 0 takes the one the kernel
  // declares (XGPU_KERNEL_BINDINGS); given values must match it.
  uint32_t binding_count = info->bindingCount;
  uint32_t constant_size = info->constantSize;
  const bool from_kernel = binding_count == 0 && constant_size == 0;
  auto layout_text = [](uint32_t bindings, uint32_t constants) {
    return "bindingCount " + std::to_string(bindings) + ", constantSize " + std::to_string(constants);
  };
  if (from_kernel && kernel->layout_declared) {
    binding_count = kernel->binding_count;
    constant_size = kernel->constant_size;
  } else if (from_kernel && kernel->kernarg_size != 0) {
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_layout_declared,
                       "xgpuCreatePipeline: bindingCount and constantSize are 0 but kernel \"" + kernel->name +
                           "\" declares no layout (its kernarg struct is " + std::to_string(kernel->kernarg_size) +
                           " bytes): declare XGPU_KERNEL_BINDINGS(" + kernel->name +
                           ", <binding count>) after the kernel, or give both bindingCount and constantSize");
  } else if (!from_kernel && kernel->layout_declared &&
             (binding_count != kernel->binding_count || constant_size != kernel->constant_size)) {
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_layout_matches,
                       "xgpuCreatePipeline: layout " + layout_text(binding_count, constant_size) + " differs from " +
                           layout_text(kernel->binding_count, kernel->constant_size) + " that kernel \"" +
                           kernel->name + "\" declares (XGPU_KERNEL_BINDINGS); give both as 0 to use it");
  }
  const char* source = from_kernel ? " (declared by the kernel)" : "";
  const XgpuPhysicalDeviceLimits& limits = device->physical->properties.limits;
  if (binding_count > limits.maxBindings)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_bindingCount,
                       "xgpuCreatePipeline: bindingCount " + std::to_string(binding_count) + source +
                           " exceeds maxBindings " + std::to_string(limits.maxBindings));
  if (constant_size % 4 != 0 || constant_size > limits.maxPushConstantsSize)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_constantSize,
                       "xgpuCreatePipeline: constantSize " + std::to_string(constant_size) + source +
                           " must be a multiple of 4 and at most " + std::to_string(limits.maxPushConstantsSize));
  const uint64_t layout_size = uint64_t(binding_count) * 8 + constant_size;
  if (layout_size != kernel->kernarg_size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_kernargSize,
                       "xgpuCreatePipeline: layout of \"" + kernel->name + "\"" + source + " (bindingCount " +
                           std::to_string(binding_count) + " * 8 + constantSize " + std::to_string(constant_size) +
                           " = " + std::to_string(layout_size) + " bytes) differs from the kernel's kernarg size " +
                           std::to_string(kernel->kernarg_size) + " bytes");
  uint32_t size[3] = {info->workgroupSize[0], info->workgroupSize[1], info->workgroupSize[2]};
  const bool given = size[0] || size[1] || size[2];
  const bool required = kernel->required_workgroup_size[0] != 0;
  if (!given) {
    if (!required)
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                         vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize_required,
                         "xgpuCreatePipeline: workgroupSize is 0,0,0 but kernel \"" + kernel->name +
                             "\" has no required workgroup size");
    std::copy(kernel->required_workgroup_size, kernel->required_workgroup_size + 3, size);
  }
  auto dims = [](const uint32_t* s) {
    return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
  };
  if (given && required && !std::equal(size, size + 3, kernel->required_workgroup_size))
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                       vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize_required,
                       "xgpuCreatePipeline: workgroupSize " + dims(size) + " differs from kernel \"" + kernel->name +
                           "\"'s required size " + dims(kernel->required_workgroup_size));
  uint64_t invocations = 1;
  for (int i = 0; i < 3; ++i) {
    if (size[i] == 0 || size[i] > limits.maxWorkgroupSize[i])
      return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize,
                         "xgpuCreatePipeline: workgroupSize " + dims(size) + ": dimension " + std::to_string(i) +
                             " must be in [1, " + std::to_string(limits.maxWorkgroupSize[i]) + "]");
    invocations *= size[i];
  }
  if (invocations > limits.maxWorkgroupInvocations)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_workgroupSize,
                       "xgpuCreatePipeline: workgroupSize " + dims(size) + " has " + std::to_string(invocations) +
                           " work items, above maxWorkgroupInvocations " +
                           std::to_string(limits.maxWorkgroupInvocations));
  if (kernel->group_segment_size > limits.maxWorkgroupMemorySize)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreatePipeline_pCreateInfo_workgroupMemory,
                       "xgpuCreatePipeline: kernel \"" + kernel->name + "\" has " +
                           std::to_string(kernel->group_segment_size) +
                           " bytes of static workgroup memory, above limits.maxWorkgroupMemorySize " +
                           std::to_string(limits.maxWorkgroupMemorySize));
  HostPtr<Pipeline> pipeline(host_new<Pipeline>(allocator));
  if (!pipeline)
    return device_fail(device, XGPU_ERROR_OUT_OF_HOST_MEMORY, msgid::kOutOfHostMemory,
                       "xgpuCreatePipeline: allocating the object's host memory failed");
  pipeline->device = device;
  loaded_executable_retain(executable);
  pipeline->executable = executable;
  pipeline->info.kernel = *kernel;
  pipeline->info.binding_count = binding_count;
  pipeline->info.constant_size = constant_size;
  std::copy(size, size + 3, pipeline->info.workgroup_size);
  device_track_handle(device, pipeline.get());
  *out_pipeline = to_handle<XgpuPipeline>(pipeline.release());
  return XGPU_SUCCESS;
}

void pipeline_destroy(XgpuDevice device, XgpuPipeline handle, const XgpuAllocationCallbacks*) {
  auto* pipeline = from_handle<Pipeline>(handle);
  Device* owner = device_from_handle(device);
  if (!pipeline || !owner) return;
  if (!device_release_handle(owner, pipeline, vuid::xgpuDestroyPipeline_pipeline_parameter,
                             "xgpuDestroyPipeline: pipeline")) return;
  loaded_executable_release(pipeline->executable);
  host_delete_handle(pipeline);
}

void pipeline_get_properties(XgpuDevice, XgpuPipeline handle, XgpuPipelineProperties* out_properties) {
  if (!out_properties) return;
  *out_properties = {};
  const auto* pipeline = from_handle<Pipeline>(handle);
  if (!pipeline) return;
  std::copy(pipeline->info.workgroup_size, pipeline->info.workgroup_size + 3, out_properties->workgroupSize);
  out_properties->bindingCount = pipeline->info.binding_count;
  out_properties->constantSize = pipeline->info.constant_size;
  out_properties->kernargSize = pipeline->info.kernel.kernarg_size;
  out_properties->staticWorkgroupMemorySize = pipeline->info.kernel.group_segment_size;
  out_properties->privateMemorySize = pipeline->info.kernel.private_segment_size;
  for (int d = 0; d < 3; ++d)
    out_properties->maxWorkgroupCount[d] =
        max_workgroup_count(device_limits(pipeline->device), pipeline->info.workgroup_size, d);
  // How the kernel accesses each binding: its code object's binding access
  // record where the kernel declares the layout the pipeline uses; else
  // unknown (any access).
  const KernelInfo& kernel = pipeline->info.kernel;
  const bool known = kernel.access_known && kernel.layout_declared &&
                     kernel.binding_count == pipeline->info.binding_count;
  const uint32_t bindings = std::min<uint32_t>(pipeline->info.binding_count, XGPU_MAX_PIPELINE_BINDINGS);
  for (uint32_t i = 0; i < bindings; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    XgpuBindingAccessFlags access = 0;
    if (!known || (kernel.binding_unknown & bit)) {
      access = XGPU_BINDING_ACCESS_READ_BIT | XGPU_BINDING_ACCESS_WRITE_BIT | XGPU_BINDING_ACCESS_ATOMIC_BIT |
               XGPU_BINDING_ACCESS_UNKNOWN_BIT;
    } else {
      if (kernel.binding_reads & bit) access |= XGPU_BINDING_ACCESS_READ_BIT;
      if (kernel.binding_writes & bit) access |= XGPU_BINDING_ACCESS_WRITE_BIT;
      if (kernel.binding_atomics & bit) access |= XGPU_BINDING_ACCESS_ATOMIC_BIT;
    }
    out_properties->bindingAccess[i] = access;
  }
}

}  // namespace xgpu::amdgpu
