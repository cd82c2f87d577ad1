// Code objects as the core's back-end (hsa_core::Backend::load_code_object;
// the core keeps the readers, executables and symbols:
// hsa-core/include/hsa_core/executable.h). A code object is PTX text
// (.target sm_XY). Loading JIT-compiles it for the agent
// (cuModuleLoadDataEx); each `.entry` is a kernel symbol, named as ROCR
// names v3+ kernels ("<entry>.kd"), whose KERNEL_OBJECT is a runtime-owned
// KernelObject, validated by the queues.
// The kernarg segment is the entry's parameter buffer: its parameters laid out
// in order at their alignments (one by-value struct for xgpu kernels).
//
// Thread-safety: every function may be called from any thread.
#include <elf.h>

#include <cstdlib>
#include <cstring>

#include <hsa_core/executable.h>

#include "runtime.h"

namespace hsa_cuda {
namespace {

// A code object loaded for one agent: the module and its kernels.
struct Module {
  Agent* agent = nullptr;
  CUmodule module = nullptr;
  std::vector<std::unique_ptr<KernelObject>> kernels;
};

struct Entry {
  std::string name;
  uint32_t size = 0, alignment = 1;  // the whole parameter buffer
  std::vector<uint32_t> offsets, sizes;  // per parameter
};

// The `.entry` declarations of a PTX module and their parameter buffers.
bool parse_entries(const std::string& ptx, std::vector<Entry>* out) {
  size_t at = 0;
  while ((at = ptx.find(".entry ", at)) != std::string::npos) {
    at += 7;
    const size_t open = ptx.find('(', at);
    const size_t close = ptx.find(')', open);
    if (open == std::string::npos || close == std::string::npos) return false;
    Entry entry;
    size_t name_end = open;
    while (name_end > at && (ptx[name_end - 1] == ' ' || ptx[name_end - 1] == '\t')) --name_end;
    entry.name = ptx.substr(at, name_end - at);
    std::string params = ptx.substr(open + 1, close - open - 1);
    size_t p = 0;
    while ((p = params.find(".param", p)) != std::string::npos) {
      size_t end = params.find_first_of(",\n", p);
      std::string decl = params.substr(p, end == std::string::npos ? std::string::npos : end - p);
      p += 6;
      uint32_t align = 0, size = 0;
      if (size_t a = decl.find(".align "); a != std::string::npos) align = uint32_t(std::stoul(decl.substr(a + 7)));
      static const struct { const char* type; uint32_t size; } kTypes[] = {
          {".b8 ", 1}, {".u8 ", 1}, {".s8 ", 1}, {".b16 ", 2}, {".u16 ", 2}, {".s16 ", 2}, {".f16 ", 2},
          {".b32 ", 4}, {".u32 ", 4}, {".s32 ", 4}, {".f32 ", 4}, {".b64 ", 8}, {".u64 ", 8}, {".s64 ", 8},
          {".f64 ", 8}};
      for (const auto& t : kTypes)
        if (decl.find(t.type) != std::string::npos) {
          size = t.size;
          if (!align) align = t.size;
          break;
        }
      if (!size) return false;
      if (size_t b = decl.find('['); b != std::string::npos) size *= uint32_t(std::stoul(decl.substr(b + 1)));
      entry.offsets.push_back((entry.size + align - 1) / align * align);
      entry.sizes.push_back(size);
      entry.size = entry.offsets.back() + size;
      if (align > entry.alignment) entry.alignment = align;
    }
    entry.size = (entry.size + entry.alignment - 1) / entry.alignment * entry.alignment;
    out->push_back(entry);
    at = close;
  }
  return true;
}

// The sm number of a PTX module's `.target`, or -1 when the text is not PTX.
int ptx_target(const std::string& text) {
  if (text.find(".version ") == std::string::npos) return -1;
  size_t at = text.find(".target sm_");
  if (at == std::string::npos) return -1;
  return std::atoi(text.c_str() + at + 11);
}

// <kernel>_xgpu_required_size_ (<xgpu/kernel.h>'s XGPU_KERNEL_NVPTX_REQUIRED_SIZE_):
// three uint32_t in a global of the loaded module; absent: 0,0,0 (none).
bool required_size(CUmodule module, const std::string& kernel, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 0;
  CUdeviceptr global = 0;
  size_t bytes = 0;
  if (g_runtime.cuda.cuModuleGetGlobal(&global, &bytes, module, (kernel + "_xgpu_required_size_").c_str()) !=
      CUDA_SUCCESS)
    return true;
  if (bytes != 3 * sizeof(uint32_t)) return false;
  return g_runtime.cuda.cuMemcpy(reinterpret_cast<CUdeviceptr>(out), global, bytes) == CUDA_SUCCESS;
}

// A 64-bit ELF code object's header (a machine, an object type): code for
// another ISA, not bytes that merely start with the ELF magic.
bool is_elf_code_object(const void* bytes, size_t size) {
  if (size < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr header;
  memcpy(&header, bytes, sizeof(header));
  return memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == ELFCLASS64 &&
         header.e_machine != EM_NONE && (header.e_type == ET_DYN || header.e_type == ET_REL || header.e_type == ET_EXEC);
}

// Backend::load_code_object.
hsa_status_t load_code_object(hsa_agent_t agent_handle, const void* bytes, size_t size, hsa_core::LoadedCode* out) {
  Agent* agent = to_agent(agent_handle);
  if (agent == nullptr) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (agent->host) return HSA_STATUS_ERROR_INVALID_ISA;  // the host agent runs no code objects
  if (is_elf_code_object(bytes, size)) {
    // An ELF code object (amdgcn, a host code object): built for another ISA.
    log_error("hsa_executable_load_agent_code_object: an ELF code object is for another ISA (this agent loads PTX)");
    return HSA_STATUS_ERROR_INVALID_ISA;
  }
  const std::string text(static_cast<const char*>(bytes), size);
  const int target = ptx_target(text);
  if (target < 0) {
    log_error("hsa_executable_load_agent_code_object: the code object is not PTX text (.version, .target sm_XY)");
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  if (target > agent->isa->sm) {
    log_error("hsa_executable_load_agent_code_object: PTX for sm_%d does not run on %s", target,
              agent->isa->name.c_str());
    return HSA_STATUS_ERROR_INVALID_ISA;
  }
  std::vector<Entry> entries;
  if (!parse_entries(text, &entries)) {
    log_error("hsa_executable_load_agent_code_object: a .entry's parameter list is not understood");
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  if (!make_current(agent)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  char log[4096] = {};
  int keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof(log) - 1))};
  CUmodule module = nullptr;
  CUresult r = g_runtime.cuda.cuModuleLoadDataEx(&module, text.c_str(), 2, keys, values);
  if (r != CUDA_SUCCESS) {
    log_error("hsa_executable_load_agent_code_object: cuModuleLoadDataEx: %s: %s", cuda_error_text(r).c_str(), log);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  std::vector<std::unique_ptr<KernelObject>> kernels;
  for (const Entry& entry : entries) {
    auto kernel = std::make_unique<KernelObject>();
    kernel->magic = kKernelObjectMagic;
    kernel->agent = agent;
    kernel->name = entry.name;
    kernel->kernarg_size = entry.size;
    kernel->kernarg_alignment = std::max<uint32_t>(entry.alignment, 16);
    // An xgpu kernel (<xgpu/kernel.h>): the argument struct, then the grid
    // (xgpu_nvptx_grid_t: the grid size and the kernarg segment's address,
    // 24 bytes), which the queue fills from the packet. The kernarg segment
    // is the struct alone.
    if (entry.sizes.size() == 2 && entry.sizes[1] == kGridParamSize) {
      kernel->kernarg_size = entry.sizes[0];
      kernel->grid_offset = entry.offsets[1];
    }
    r = g_runtime.cuda.cuModuleGetFunction(&kernel->function, module, entry.name.c_str());
    int shared = 0, local = 0, threads = 0;
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel->function);
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, kernel->function);
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel->function);
    if (r != CUDA_SUCCESS) {
      log_error("hsa_executable_load_agent_code_object: kernel %s: %s", entry.name.c_str(), cuda_error_text(r).c_str());
      g_runtime.cuda.cuModuleUnload(module);
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    CUdeviceptr flags = 0;
    size_t flags_size = 0;
    const CUresult found = g_runtime.cuda.cuModuleGetGlobal(&flags, &flags_size, module,
                                                            (entry.name + "_xgpu_flags_xgpu_layout_").c_str());
    kernel->prints = found == CUDA_SUCCESS;
    if (!required_size(module, entry.name, kernel->required_size)) {
      log_error("hsa_executable_load_agent_code_object: kernel %s: its required workgroup size is not readable",
                entry.name.c_str());
      g_runtime.cuda.cuModuleUnload(module);
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    kernel->group_segment_size = uint32_t(shared);
    kernel->private_segment_size = uint32_t(local);
    kernel->max_threads = threads;
    kernels.push_back(std::move(kernel));
  }
  auto loaded = std::make_unique<Module>();
  loaded->agent = agent;
  loaded->module = module;
  std::vector<hsa_core::CodeSymbol> symbols;
  for (const auto& kernel : kernels) {
    hsa_core::CodeSymbol symbol;
    symbol.name = kernel->name + ".kd";
    symbol.is_kernel = true;
    symbol.kernel_object = reinterpret_cast<uint64_t>(kernel.get());
    symbol.kernarg_size = kernel->kernarg_size;
    symbol.kernarg_alignment = kernel->kernarg_alignment;
    symbol.group_segment_size = kernel->group_segment_size;
    symbol.private_segment_size = kernel->private_segment_size;
    symbols.push_back(std::move(symbol));
  }
  loaded->kernels = std::move(kernels);
  out->symbols = std::move(symbols);
  out->object = loaded.release();
  return HSA_STATUS_SUCCESS;
}

// Backend::unload_code_object. With abandoned work (a destroyed queue's
// kernel that never ends) an unload would wait for it: the module is left
// to the context, which the process's exit releases.
void unload_code_object(void* object) {
  auto* loaded = static_cast<Module*>(object);
  if (!g_runtime.abandoned_work.load(std::memory_order_acquire)) {
    make_current(loaded->agent);
    g_runtime.cuda.cuModuleUnload(loaded->module);
  }
  delete loaded;
}

}  // namespace

bool kernel_object_lookup(uint64_t handle, KernelObject* out) {
  return hsa_core::read_kernel_object(handle, [&] { *out = *reinterpret_cast<const KernelObject*>(handle); });
}

void set_code_object_hooks(hsa_core::Backend& backend) {
  backend.load_code_object = load_code_object;
  backend.unload_code_object = unload_code_object;
}

}  // namespace hsa_cuda
