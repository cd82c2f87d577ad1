// hsa-core's executables: code object readers, executables, their symbols
// and variable definitions, for every back-end. A back-end says how a code
// object is loaded for one of its agents and unloaded
// (Backend::load_code_object, unload_code_object) and what it holds
// (LoadedCode: its symbols); the core keeps the objects, checks every
// argument, answers every query and keeps the set of live kernel objects
// that queues check a dispatch's kernel_object against.
//
// Threading: every entry point and function here is thread-safe; one
// executable must not be loaded into, frozen and destroyed concurrently
// (the HSA contract).
#ifndef HSA_CORE_EXECUTABLE_H_
#define HSA_CORE_EXECUTABLE_H_

#include <hsa/hsa.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace hsa_core {

// One symbol of a loaded code object, as the back-end reports it.
struct CodeSymbol {
  std::string name;            // its HSA name (a kernel's ends in ".kd", as ROCR names v3+ kernels)
  bool is_kernel = false;      // a kernel, or else a variable
  // Kernels.
  uint64_t kernel_object = 0;  // HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT (back-end owned)
  uint32_t kernarg_size = 0;
  uint32_t kernarg_alignment = 0;
  uint32_t group_segment_size = 0;
  uint32_t private_segment_size = 0;
  // Variables.
  uint64_t address = 0;        // where it is
  uint64_t size = 0;           // its bytes
};

// What Backend::load_code_object loaded: the back-end's object (the
// hsa_loaded_code_object_t handle; given back to unload_code_object) and
// its symbols.
struct LoadedCode {
  void* object = nullptr;
  std::vector<CodeSymbol> symbols;
};

namespace detail {
std::shared_mutex& registry_mutex();
bool kernel_object_live(uint64_t kernel_object);  // registry_mutex held
extern std::atomic<uint64_t> g_kernel_object_generation;
}  // namespace detail

// Runs `copy()` holding the registry's lock (shared) when `kernel_object`
// is the kernel object of a live symbol, and returns true; false for any
// other value, which is never dereferenced. The object stays loaded while
// `copy` runs.
template <typename Copy>
bool read_kernel_object(uint64_t kernel_object, Copy&& copy) {
  std::shared_lock<std::shared_mutex> lock(detail::registry_mutex());
  if (!detail::kernel_object_live(kernel_object)) return false;
  copy();
  return true;
}

// Counts executable destructions (bumped before their code objects are
// unloaded): a kernel object found live stays live, unchanged, while this
// does not change.
// (Inline: queues read it for every packet.)
inline uint64_t kernel_object_generation() {
  return detail::g_kernel_object_generation.load(std::memory_order_acquire);
}

// Calls visit(object) with each loaded code object's back-end object,
// holding the registry's lock (shared), until visit returns true; returns
// whether one did.
bool find_loaded_code_object(const std::function<bool(void* object)>& visit);

// The last hsa_shut_down: destroys every executable (unloading its code
// objects) and reader left, logging how many there were.
void destroy_all_executables();

}  // namespace hsa_core

#endif  // HSA_CORE_EXECUTABLE_H_
