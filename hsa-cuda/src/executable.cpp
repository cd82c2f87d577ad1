// Executables: a code object is PTX text (.target sm_XY). Loading JIT-compiles
// it for the agent (cuModuleLoadDataEx); each `.entry` is a kernel symbol whose
// KERNEL_OBJECT is a runtime-owned KernelObject, validated by the queues.
// The kernarg segment is the entry's parameter buffer: its parameters laid out
// in order at their alignments (one by-value struct for xgpu kernels).
//
// Thread-safety: every entry point may be called from any thread; one
// executable must not be loaded into, frozen and destroyed concurrently.
#include <cstring>

#include "runtime.h"

namespace hsa_cuda {
namespace {

struct Reader {
  std::string bytes;
};

struct Symbol {
  struct Executable* executable;
  KernelObject* kernel;
};

struct Executable {
  bool frozen = false;
  std::vector<std::pair<Agent*, CUmodule>> modules;
  std::vector<std::unique_ptr<KernelObject>> kernels;
  std::vector<std::unique_ptr<Symbol>> symbols;
};

std::mutex g_mutex;
std::set<Reader*> g_readers;
std::set<Executable*> g_executables;
std::set<uint64_t> g_kernel_objects;

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

Executable* to_executable(hsa_executable_t handle) {
  auto* e = reinterpret_cast<Executable*>(handle.handle);
  return g_executables.count(e) ? e : nullptr;
}

}  // namespace

bool kernel_object_lookup(uint64_t handle, KernelObject* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_kernel_objects.count(handle)) return false;
  *out = *reinterpret_cast<KernelObject*>(handle);
  return true;
}

}  // namespace hsa_cuda

using namespace hsa_cuda;

hsa_status_t hsa_code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                       hsa_code_object_reader_t* code_object_reader) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!code_object || size == 0 || !code_object_reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto* reader = new Reader{std::string(static_cast<const char*>(code_object), size)};
  std::lock_guard<std::mutex> lock(g_mutex);
  g_readers.insert(reader);
  code_object_reader->handle = reinterpret_cast<uint64_t>(reader);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  auto* reader = reinterpret_cast<Reader*>(code_object_reader.handle);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_readers.erase(reader)) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  delete reader;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_create_alt(hsa_profile_t profile, hsa_default_float_rounding_mode_t rounding,
                                       const char* options, hsa_executable_t* executable) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!executable || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL) ||
      unsigned(rounding) > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  (void)options;
  auto* e = new Executable;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_executables.insert(e);
  executable->handle = reinterpret_cast<uint64_t>(e);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t handle, hsa_agent_t agent_handle,
                                                   hsa_code_object_reader_t reader_handle, const char* options,
                                                   hsa_loaded_code_object_t* loaded) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  (void)options;
  std::string text;
  Executable* e;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    e = to_executable(handle);
    if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    auto* reader = reinterpret_cast<Reader*>(reader_handle.handle);
    if (!g_readers.count(reader)) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
    text = reader->bytes;
  }
  Agent* agent = to_agent(agent_handle);
  if (!agent) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (agent->host) return HSA_STATUS_ERROR_INVALID_ISA;  // the host agent runs no code objects
  if (e->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
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
    kernel->group_segment_size = uint32_t(shared);
    kernel->private_segment_size = uint32_t(local);
    kernel->max_threads = threads;
    kernels.push_back(std::move(kernel));
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  e->modules.emplace_back(agent, module);
  for (auto& kernel : kernels) {
    g_kernel_objects.insert(reinterpret_cast<uint64_t>(kernel.get()));
    e->symbols.push_back(std::make_unique<Symbol>(Symbol{e, kernel.get()}));
    e->kernels.push_back(std::move(kernel));
  }
  if (loaded) loaded->handle = reinterpret_cast<uint64_t>(module);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_freeze(hsa_executable_t handle, const char* options) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  (void)options;
  std::lock_guard<std::mutex> lock(g_mutex);
  Executable* e = to_executable(handle);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (e->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  e->frozen = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_destroy(hsa_executable_t handle) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  Executable* e;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    e = to_executable(handle);
    if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    g_executables.erase(e);
    for (auto& kernel : e->kernels) g_kernel_objects.erase(reinterpret_cast<uint64_t>(kernel.get()));
    g_runtime.kernel_objects_generation.fetch_add(1, std::memory_order_release);
  }
  // With abandoned work (a destroyed queue's kernel that never ends) an
  // unload would wait for it: the modules are left to the context, which
  // the process's exit releases.
  if (!g_runtime.abandoned_work.load(std::memory_order_acquire)) {
    for (auto& [agent, module] : e->modules) {
      make_current(agent);
      g_runtime.cuda.cuModuleUnload(module);
    }
  }
  delete e;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_iterate_agent_symbols(hsa_executable_t handle, hsa_agent_t agent,
                                                  hsa_status_t (*callback)(hsa_executable_t, hsa_agent_t,
                                                                           hsa_executable_symbol_t, void*),
                                                  void* data) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  Executable* e;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    e = to_executable(handle);
  }
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  Agent* a = to_agent(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  for (auto& symbol : e->symbols) {
    if (symbol->kernel->agent != a) continue;
    hsa_status_t status =
        callback(handle, agent, hsa_executable_symbol_t{reinterpret_cast<uint64_t>(symbol.get())}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t handle, const char* name,
                                               const hsa_agent_t* agent, hsa_executable_symbol_t* symbol) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!name || !symbol) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(g_mutex);
  Executable* e = to_executable(handle);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  std::string wanted(name);
  if (wanted.size() > 3 && wanted.compare(wanted.size() - 3, 3, ".kd") == 0) wanted.resize(wanted.size() - 3);
  for (auto& s : e->symbols) {
    if (s->kernel->name != wanted) continue;
    if (agent && agent->handle && reinterpret_cast<uint64_t>(s->kernel->agent) != agent->handle) continue;
    symbol->handle = reinterpret_cast<uint64_t>(s.get());
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
}

hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t handle, hsa_executable_symbol_info_t attribute,
                                            void* value) {
  if (!initialized()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const Symbol* symbol = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (Executable* e : g_executables)
      for (auto& s : e->symbols)
        if (reinterpret_cast<uint64_t>(s.get()) == handle.handle) symbol = s.get();
  }
  if (!symbol) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  const KernelObject& k = *symbol->kernel;
  // Names are reported as ROCR reports code object v3+ kernels: "<name>.kd".
  const std::string name = k.name + ".kd";
  auto put32 = [&](uint32_t v) { std::memcpy(value, &v, 4); return HSA_STATUS_SUCCESS; };
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE: {
      hsa_symbol_kind_t kind = HSA_SYMBOL_KIND_KERNEL;
      std::memcpy(value, &kind, sizeof(kind));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH: return put32(uint32_t(name.size()));
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME: std::memcpy(value, name.data(), name.size()); return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE: {
      hsa_symbol_linkage_t linkage = HSA_SYMBOL_LINKAGE_PROGRAM;
      std::memcpy(value, &linkage, sizeof(linkage));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION: *static_cast<bool*>(value) = true; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_AGENT: {
      hsa_agent_t agent{reinterpret_cast<uint64_t>(k.agent)};
      std::memcpy(value, &agent, sizeof(agent));
      return HSA_STATUS_SUCCESS;
    }
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: {
      uint64_t object = reinterpret_cast<uint64_t>(symbol->kernel);
      std::memcpy(value, &object, 8);
      return HSA_STATUS_SUCCESS;
    }
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: return put32(k.kernarg_size);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT: return put32(k.kernarg_alignment);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: return put32(k.group_segment_size);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: return put32(k.private_segment_size);
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK: *static_cast<bool*>(value) = false; return HSA_STATUS_SUCCESS;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}
