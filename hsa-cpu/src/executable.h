// hsa-cpu's code objects: host code objects (x86-64 ELF shared objects
// holding xgpu host kernel descriptors) loaded from memory with dlopen, as
// the core's back-end (hsa_core::Backend::load_code_object; the core keeps
// the readers, executables and symbols: hsa-core/include/hsa_core/executable.h).
//
// A code object is checked before it is mapped: an ELF for another machine
// (an amdgcn object is EM_AMDGPU) or one whose xgpu_host_code_object_info
// names an ISA the agent cannot run is refused with HSA_STATUS_ERROR_INVALID_ISA
// and the reason is logged (HSA_CPU_LOG). Accepted objects are written to a
// memfd and dlopen'ed through /proc/self/fd; the fd is closed right after,
// so no file is left behind. Kernels are found by walking the object's
// dynamic symbol table for `*.kd` symbols.
//
// Threading: all functions are thread-safe; an executable must not be
// destroyed while another thread uses it or its kernels run.
#ifndef HSA_CPU_EXECUTABLE_H_
#define HSA_CPU_EXECUTABLE_H_

#include <xgpu/host_kernel.h>

#include <hsa_core/backend.h>
#include <hsa_core/executable.h>

#include "common.h"
#include "source_lines.h"

namespace hsa_cpu {

// Copies the descriptor at `kernel_object` into *out when it is the kernel
// descriptor of a loaded executable (HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT
// of a live symbol); false for any other value, which is never dereferenced.
bool read_kernel_descriptor(uint64_t kernel_object, xgpu_host_kernel_descriptor_t* out);

// Counts executable destructions: a kernel object found live stays live
// (and its descriptor unchanged) while this does not change.
inline uint64_t kernel_object_generation() { return hsa_core::kernel_object_generation(); }

// One reader's memo of the last kernel object read_kernel_descriptor
// accepted, so a packet stream dispatching one kernel does not take the
// registry's lock per packet. Thread-compatible (one per queue processor).
struct KernelDescriptorCache {
  uint64_t kernel_object = 0;                 // the object it holds; 0: none
  uint64_t generation = 0;                    // kernel_object_generation() before it was read
  xgpu_host_kernel_descriptor_t descriptor{}; // its descriptor
};

// read_kernel_descriptor through `cache`: the memo answers while no
// executable was destroyed since it was filled (a later load may reuse a
// destroyed kernel object's address).
inline bool read_kernel_descriptor_cached(uint64_t kernel_object, KernelDescriptorCache* cache,
                                          xgpu_host_kernel_descriptor_t* out) {
  const uint64_t generation = kernel_object_generation();
  if (kernel_object != 0 && cache->kernel_object == kernel_object && cache->generation == generation) {
    *out = cache->descriptor;
    return true;
  }
  if (!read_kernel_descriptor(kernel_object, out)) return false;
  cache->kernel_object = kernel_object;
  cache->generation = generation;
  cache->descriptor = *out;
  return true;
}

// What the loaded code objects say of an instruction address (a kernel
// fault's pc).
struct CodeAddress {
  uint64_t offset = 0;    // the address minus the load base of the code object holding it
  SourcePosition source;  // its function, file, line and column (source_lines.h)
};

// True, with *out filled, when a loaded code object holds `pc`. Takes the
// registry's lock (shared) only to copy that object's kept sections and
// parses them holding none. Ordinary context only; may allocate (throws
// std::bad_alloc when host memory runs out).
bool describe_code_address(uint64_t pc, CodeAddress* out);

// Sets the back-end's code object hooks (load_code_object,
// unload_code_object).
void set_code_object_hooks(hsa_core::Backend& backend);

}  // namespace hsa_cpu

#endif  // HSA_CPU_EXECUTABLE_H_
