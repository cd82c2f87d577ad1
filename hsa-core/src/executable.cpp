// Executables for both back-ends (executable.h): readers, executables,
// symbols and variable definitions, every argument check and query; the
// back-end loads and unloads code objects (Backend::load_code_object,
// unload_code_object).
#include <hsa_core/executable.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_set>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

namespace hsa_core {
namespace {

// A kernel's name ends in this (ROCR's v3+ code objects); a lookup by the
// kernel's own name finds it too.
constexpr char kKernelSuffix[] = ".kd";

struct CodeObjectReader {
  std::vector<unsigned char> bytes;  // private copy of the code object
};

struct Executable;

struct Symbol {
  Executable* executable;  // owner
  hsa_agent_t agent;       // the agent its code object was loaded for
  CodeSymbol code;
};

struct LoadedObject {
  hsa_agent_t agent;
  void* object;  // the back-end's
};

// An external variable definition (hsa_executable_*_variable_define).
struct VariableDefinition {
  std::string name;   // the variable's name
  uint64_t agent;     // agent allocation: its agent's handle; program: 0
  void* address;      // where the application placed it
};

struct Executable {
  hsa_profile_t profile;
  hsa_default_float_rounding_mode_t rounding;
  hsa_executable_state_t state;  // Registry::mutex
  std::vector<LoadedObject> objects;
  std::vector<std::unique_ptr<Symbol>> symbols;
  // External variables the application defined. The back-ends resolve every
  // symbol when a code object is loaded, so nothing reads them; they are
  // kept so that a second definition of the same name is refused as the
  // specification asks.
  std::vector<VariableDefinition> definitions;  // Registry::mutex
};

struct Registry {
  std::shared_mutex mutex;
  std::unordered_set<CodeObjectReader*> readers;
  std::unordered_set<Executable*> executables;
  std::unordered_set<Symbol*> symbols;
  std::unordered_set<uint64_t> kernel_objects;  // live kernel objects
};
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

CodeObjectReader* lookup_reader(hsa_code_object_reader_t handle) {
  auto* reader = reinterpret_cast<CodeObjectReader*>(static_cast<uintptr_t>(handle.handle));
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return r.readers.count(reader) ? reader : nullptr;
}

Executable* lookup_executable(hsa_executable_t handle) {
  auto* exec = reinterpret_cast<Executable*>(static_cast<uintptr_t>(handle.handle));
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return r.executables.count(exec) ? exec : nullptr;
}

Symbol* lookup_symbol(hsa_executable_symbol_t handle) {
  auto* symbol = reinterpret_cast<Symbol*>(static_cast<uintptr_t>(handle.handle));
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return r.symbols.count(symbol) ? symbol : nullptr;
}

hsa_executable_symbol_t to_handle(const Symbol* s) { return hsa_executable_symbol_t{reinterpret_cast<uintptr_t>(s)}; }
hsa_executable_t to_handle(const Executable* e) { return hsa_executable_t{reinterpret_cast<uintptr_t>(e)}; }

bool frozen(const Executable* exec) {
  std::shared_lock<std::shared_mutex> lock(registry().mutex);
  return exec->state == HSA_EXECUTABLE_STATE_FROZEN;
}

void destroy_executable(Executable* exec) {
  Registry& r = registry();
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    for (auto& s : exec->symbols) {
      r.symbols.erase(s.get());
      if (s->code.is_kernel) r.kernel_objects.erase(s->code.kernel_object);
    }
    // Before the objects are unloaded: a memo filled before this point no
    // longer answers once their addresses can be reused.
    detail::g_kernel_object_generation.fetch_add(1, std::memory_order_acq_rel);
  }
  for (const LoadedObject& o : exec->objects) backend().unload_code_object(o.object);
  delete exec;
}

// Largest file hsa_code_object_reader_create_from_file reads (1 GiB): a
// code object is far smaller, and a sparse file must not be read whole.
constexpr uint64_t kMaxCodeObjectFileBytes = uint64_t{1} << 30;

// `size` bytes from `bytes` (zeros when null) into *out; false when the
// memory cannot be had (no exception leaves the HSA API).
bool copy_bytes(const unsigned char* bytes, size_t size, std::vector<unsigned char>* out) {
  try {
    if (bytes) out->assign(bytes, bytes + size);
    else out->resize(size);
    return true;
  } catch (const std::bad_alloc&) {
    log("code object reader: cannot allocate %zu bytes", size);
    return false;
  }
}

hsa_status_t create_reader(std::vector<unsigned char>&& bytes, hsa_code_object_reader_t* out) {
  auto* reader = new (std::nothrow) CodeObjectReader();
  if (reader == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  reader->bytes = std::move(bytes);
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  try {
    r.readers.insert(reader);
  } catch (const std::bad_alloc&) {
    delete reader;
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  out->handle = reinterpret_cast<uintptr_t>(reader);
  return HSA_STATUS_SUCCESS;
}

// The enums are taken by reference and read as bits until checked: a value
// outside an enum's range must not be loaded as the enum.
hsa_status_t create_executable(const hsa_profile_t& profile, const hsa_default_float_rounding_mode_t& rounding,
                               const hsa_executable_state_t& state, hsa_executable_t* executable) {
  if (executable == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (enum_bits(profile) > HSA_PROFILE_FULL) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (enum_bits(rounding) > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // Both states are valid initial states (a FROZEN one accepts no code
  // object, but is a valid executable).
  if (enum_bits(state) != HSA_EXECUTABLE_STATE_UNFROZEN && enum_bits(state) != HSA_EXECUTABLE_STATE_FROZEN)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto* exec = new (std::nothrow) Executable();
  if (exec == nullptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  exec->profile = profile;
  exec->rounding = rounding;
  exec->state = state;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  try {
    r.executables.insert(exec);
  } catch (const std::bad_alloc&) {
    delete exec;
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  *executable = to_handle(exec);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                    hsa_code_object_reader_t code_object_reader,
                                    hsa_loaded_code_object_t* loaded_code_object) {
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  CodeObjectReader* reader = lookup_reader(code_object_reader);
  if (reader == nullptr) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  if (frozen(exec)) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;

  LoadedCode loaded;
  const hsa_status_t status = backend().load_code_object(agent, reader->bytes.data(), reader->bytes.size(), &loaded);
  if (status != HSA_STATUS_SUCCESS) return status;
  // Host memory running out before the registry holds every symbol undoes
  // what was registered and unloads the object again.
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  const size_t symbols_before = exec->symbols.size();
  try {
    exec->objects.push_back(LoadedObject{agent, loaded.object});
    for (CodeSymbol& code : loaded.symbols) {
      exec->symbols.push_back(std::make_unique<Symbol>(Symbol{exec, agent, std::move(code)}));
      Symbol* s = exec->symbols.back().get();
      r.symbols.insert(s);
      if (s->code.is_kernel) r.kernel_objects.insert(s->code.kernel_object);
    }
  } catch (const std::bad_alloc&) {
    for (size_t i = symbols_before; i < exec->symbols.size(); ++i) {
      r.symbols.erase(exec->symbols[i].get());
      if (exec->symbols[i]->code.is_kernel) r.kernel_objects.erase(exec->symbols[i]->code.kernel_object);
    }
    exec->symbols.resize(symbols_before);
    if (!exec->objects.empty() && exec->objects.back().object == loaded.object) exec->objects.pop_back();
    lock.unlock();
    backend().unload_code_object(loaded.object);
    throw;
  }
  if (loaded_code_object) loaded_code_object->handle = reinterpret_cast<uintptr_t>(loaded.object);
  return HSA_STATUS_SUCCESS;
}

// Finds `name`, or a kernel named `name` + ".kd", among the executable's
// symbols for `agent` (any agent when null).
Symbol* find_symbol(Executable* exec, const char* name, const hsa_agent_t* agent) {
  const std::string wanted(name);
  const std::string wanted_kernel = wanted + kKernelSuffix;
  for (auto& s : exec->symbols) {
    if (agent != nullptr && s->agent.handle != agent->handle) continue;
    if (s->code.name == wanted || (s->code.is_kernel && s->code.name == wanted_kernel)) return s.get();
  }
  return nullptr;
}

// Snapshot of symbol handles so callbacks may use the API freely.
std::vector<Symbol*> symbols_of(Executable* exec, const hsa_agent_t* agent) {
  std::shared_lock<std::shared_mutex> lock(registry().mutex);
  std::vector<Symbol*> out;
  for (auto& s : exec->symbols)
    if (agent == nullptr || s->agent.handle == agent->handle) out.push_back(s.get());
  return out;
}

// hsa_executable_{global,agent_global,readonly}_variable_define. `agent`
// is null for a program allocation (global_variable_define).
hsa_status_t define_variable(const char* function, hsa_executable_t executable, const hsa_agent_t* agent,
                             const char* variable_name, void* address) {
  HSA_CORE_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (agent != nullptr && !backend().agent_known(*agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (variable_name == nullptr || address == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const uint64_t agent_handle = agent != nullptr ? agent->handle : 0;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  for (const VariableDefinition& d : exec->definitions) {
    if (d.name == variable_name && d.agent == agent_handle) {
      log("%s: '%s' is already defined in this executable", function, variable_name);
      return HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED;
    }
  }
  try {
    exec->definitions.push_back(VariableDefinition{variable_name, agent_handle, address});
  } catch (const std::bad_alloc&) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  return HSA_STATUS_SUCCESS;
}

}  // namespace

namespace detail {
std::atomic<uint64_t> g_kernel_object_generation{0};
std::shared_mutex& registry_mutex() { return registry().mutex; }
bool kernel_object_live(uint64_t kernel_object) { return registry().kernel_objects.count(kernel_object) != 0; }
}  // namespace detail


bool find_loaded_code_object(const std::function<bool(void* object)>& visit) {
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  for (const Executable* exec : r.executables)
    for (const LoadedObject& o : exec->objects)
      if (visit(o.object)) return true;
  return false;
}

void destroy_all_executables() {
  Registry& r = registry();
  std::unordered_set<Executable*> executables;
  std::unordered_set<CodeObjectReader*> readers;
  {
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    executables.swap(r.executables);
    readers.swap(r.readers);
  }
  if (!executables.empty() || !readers.empty())
    log("hsa_shut_down: %zu executable(s) and %zu code object reader(s) still live (destroyed now)",
        executables.size(), readers.size());
  for (Executable* e : executables) destroy_executable(e);
  for (CodeObjectReader* reader : readers) delete reader;
}

}  // namespace hsa_core

using namespace hsa_core;

HSA_CORE_EXPORT hsa_status_t hsa_code_object_reader_create_from_memory(
    const void* code_object, size_t size, hsa_code_object_reader_t* code_object_reader) {
  HSA_CORE_REQUIRE_INIT();
  if (code_object == nullptr || size == 0 || code_object_reader == nullptr)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<unsigned char> copy;
  if (!copy_bytes(static_cast<const unsigned char*>(code_object), size, &copy))
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  return create_reader(std::move(copy), code_object_reader);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_reader_create_from_file(hsa_file_t file,
                                                                     hsa_code_object_reader_t* code_object_reader) {
  HSA_CORE_REQUIRE_INIT();
  if (code_object_reader == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  struct stat st;
  if (fstat(file, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    log("hsa_code_object_reader_create_from_file: fd %d is not a readable, non-empty file", file);
    return HSA_STATUS_ERROR_INVALID_FILE;
  }
  if (uint64_t(st.st_size) > kMaxCodeObjectFileBytes) {
    log("hsa_code_object_reader_create_from_file: fd %d is %lld bytes, more than the %llu a code object may have",
        file, static_cast<long long>(st.st_size), static_cast<unsigned long long>(kMaxCodeObjectFileBytes));
    return HSA_STATUS_ERROR_INVALID_FILE;
  }
  std::vector<unsigned char> bytes;
  if (!copy_bytes(nullptr, size_t(st.st_size), &bytes)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = pread(file, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return HSA_STATUS_ERROR_INVALID_FILE;
    done += size_t(n);
  }
  return create_reader(std::move(bytes), code_object_reader);
}

HSA_CORE_EXPORT hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  HSA_CORE_REQUIRE_INIT();
  auto* reader = reinterpret_cast<CodeObjectReader*>(static_cast<uintptr_t>(code_object_reader.handle));
  {
    Registry& r = registry();
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    if (reader == nullptr || r.readers.erase(reader) == 0) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  }
  delete reader;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_create(hsa_profile_t profile, hsa_executable_state_t executable_state,
                                                   const char* options, hsa_executable_t* executable) {
  HSA_CORE_REQUIRE_INIT();
  (void)options;
  return create_executable(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, executable_state, executable);
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_create_alt(hsa_profile_t profile,
                                                       hsa_default_float_rounding_mode_t default_float_rounding_mode,
                                                       const char* options, hsa_executable_t* executable) {
  HSA_CORE_REQUIRE_INIT();
  (void)options;
  return create_executable(profile, default_float_rounding_mode, HSA_EXECUTABLE_STATE_UNFROZEN, executable);
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  HSA_CORE_REQUIRE_INIT();
  auto* exec = reinterpret_cast<Executable*>(static_cast<uintptr_t>(executable.handle));
  {
    Registry& r = registry();
    std::unique_lock<std::shared_mutex> lock(r.mutex);
    if (exec == nullptr || r.executables.erase(exec) == 0) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  }
  destroy_executable(exec);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                                   hsa_code_object_reader_t code_object_reader,
                                                                   const char* options,
                                                                   hsa_loaded_code_object_t* loaded_code_object) {
  HSA_CORE_REQUIRE_INIT();
  (void)options;
  // Host memory running out while the symbols are collected is a status,
  // not an exception through the C API.
  try {
    return load_agent_code_object(executable, agent, code_object_reader, loaded_code_object);
  } catch (const std::bad_alloc&) {
    log("hsa_executable_load_agent_code_object: out of host memory");
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_load_program_code_object(hsa_executable_t executable,
                                                                     hsa_code_object_reader_t code_object_reader,
                                                                     const char* options,
                                                                     hsa_loaded_code_object_t* loaded_code_object) {
  HSA_CORE_REQUIRE_INIT();
  (void)options;
  (void)loaded_code_object;
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (lookup_reader(code_object_reader) == nullptr) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  if (frozen(exec)) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  // "Not compatible with the implementation": every code object here is an
  // agent code object.
  log("hsa_executable_load_program_code_object: this runtime's code objects are agent code objects; use "
      "hsa_executable_load_agent_code_object");
  return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  HSA_CORE_REQUIRE_INIT();
  (void)options;
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  if (exec->state == HSA_EXECUTABLE_STATE_FROZEN) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  exec->state = HSA_EXECUTABLE_STATE_FROZEN;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_get_info(hsa_executable_t executable, hsa_executable_info_t attribute,
                                                     void* value) {
  HSA_CORE_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_INFO_PROFILE: *static_cast<hsa_profile_t*>(value) = exec->profile; break;
    case HSA_EXECUTABLE_INFO_STATE: {
      std::shared_lock<std::shared_mutex> lock(registry().mutex);
      *static_cast<hsa_executable_state_t*>(value) = exec->state;
      break;
    }
    case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      *static_cast<hsa_default_float_rounding_mode_t*>(value) = exec->rounding;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_validate(hsa_executable_t executable, uint32_t* result) {
  HSA_CORE_REQUIRE_INIT();
  if (lookup_executable(executable) == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = 0;  // every loaded object was checked when it was loaded
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_validate_alt(hsa_executable_t executable, const char* options,
                                                         uint32_t* result) {
  (void)options;
  return hsa_executable_validate(executable, result);
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable, const char* symbol_name,
                                                               const hsa_agent_t* agent,
                                                               hsa_executable_symbol_t* symbol) {
  HSA_CORE_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (symbol_name == nullptr || symbol == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (agent != nullptr && !backend().agent_known(*agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  Symbol* s;
  {
    std::shared_lock<std::shared_mutex> lock(registry().mutex);
    s = find_symbol(exec, symbol_name, agent);
  }
  if (s == nullptr) {
    log("hsa_executable_get_symbol_by_name: no symbol '%s' (nor '%s%s')", symbol_name, symbol_name, kKernelSuffix);
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  }
  *symbol = to_handle(s);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_get_symbol(hsa_executable_t executable, const char* module_name,
                                                       const char* symbol_name, hsa_agent_t agent,
                                                       int32_t call_convention, hsa_executable_symbol_t* symbol) {
  (void)module_name;
  (void)call_convention;
  return hsa_executable_get_symbol_by_name(executable, symbol_name, &agent, symbol);
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                                                            hsa_executable_symbol_info_t attribute, void* value) {
  HSA_CORE_REQUIRE_INIT();
  Symbol* s = lookup_symbol(executable_symbol);
  if (s == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const CodeSymbol& code = s->code;
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
      *static_cast<hsa_symbol_kind_t*>(value) = code.is_kernel ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = uint32_t(code.name.size());
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
      std::memcpy(value, code.name.data(), code.name.size());
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = 0;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME:
      return HSA_STATUS_SUCCESS;  // program/agent linkage: no module name
    case HSA_EXECUTABLE_SYMBOL_INFO_AGENT:
      *static_cast<hsa_agent_t*>(value) = s->agent;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
      *static_cast<hsa_symbol_linkage_t*>(value) = HSA_SYMBOL_LINKAGE_PROGRAM;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION:
      *static_cast<bool*>(value) = true;
      return HSA_STATUS_SUCCESS;
    default: break;
  }
  if (!code.is_kernel) {
    switch (enum_bits(attribute)) {
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
        *static_cast<uint64_t*>(value) = code.address;
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
        *static_cast<hsa_variable_allocation_t*>(value) = HSA_VARIABLE_ALLOCATION_AGENT;
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
        *static_cast<hsa_variable_segment_t*>(value) = HSA_VARIABLE_SEGMENT_GLOBAL;
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT: {
        // The largest power of two (up to 16) dividing the address.
        uint32_t align = 16;
        while (align > 1 && code.address % align != 0) align /= 2;
        *static_cast<uint32_t*>(value) = align;
        return HSA_STATUS_SUCCESS;
      }
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
        *static_cast<uint32_t*>(value) = uint32_t(code.size);
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST:
        *static_cast<bool*>(value) = false;
        return HSA_STATUS_SUCCESS;
      default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  switch (enum_bits(attribute)) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      *static_cast<uint64_t*>(value) = code.kernel_object;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = code.kernarg_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
      *static_cast<uint32_t*>(value) = code.kernarg_alignment;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = code.group_segment_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = code.private_segment_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
      *static_cast<bool*>(value) = false;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
      *static_cast<uint32_t*>(value) = 0;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_iterate_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_executable_symbol_t symbol, void* data), void* data) {
  HSA_CORE_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (Symbol* s : symbols_of(exec, nullptr)) {
    const hsa_status_t status = callback(executable, to_handle(s), data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_agent_t agent, hsa_executable_symbol_t symbol, void* data),
    void* data) {
  HSA_CORE_REQUIRE_INIT();
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (Symbol* s : symbols_of(exec, &agent)) {
    const hsa_status_t status = callback(executable, agent, to_handle(s), data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_iterate_program_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_executable_symbol_t symbol, void* data), void* data) {
  HSA_CORE_REQUIRE_INIT();
  (void)data;
  if (lookup_executable(executable) == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;  // agent code objects define agent symbols only
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_global_variable_define(hsa_executable_t executable,
                                                                   const char* variable_name, void* address) {
  return define_variable("hsa_executable_global_variable_define", executable, nullptr, variable_name, address);
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_agent_global_variable_define(hsa_executable_t executable,
                                                                         hsa_agent_t agent,
                                                                         const char* variable_name, void* address) {
  return define_variable("hsa_executable_agent_global_variable_define", executable, &agent, variable_name, address);
}

HSA_CORE_EXPORT hsa_status_t hsa_executable_readonly_variable_define(hsa_executable_t executable, hsa_agent_t agent,
                                                                     const char* variable_name, void* address) {
  return define_variable("hsa_executable_readonly_variable_define", executable, &agent, variable_name, address);
}

// v2 code objects (hsa_code_object_t) exist in neither runtime: every handle
// is invalid once the executable and agent are.
HSA_CORE_EXPORT hsa_status_t hsa_executable_load_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                             hsa_code_object_t code_object, const char* options) {
  HSA_CORE_REQUIRE_INIT();
  (void)code_object;
  (void)options;
  Executable* exec = lookup_executable(executable);
  if (exec == nullptr) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (frozen(exec)) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  log("hsa_executable_load_code_object: this runtime has no v2 code objects; load code objects through "
      "hsa_executable_load_agent_code_object");
  return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
}
