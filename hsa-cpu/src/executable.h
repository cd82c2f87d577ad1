// hsa-cpu executables: host code objects (x86-64 ELF shared objects holding
// xgpu host kernel descriptors) loaded from memory with dlopen.
//
// A code object is checked before it is mapped: an ELF for another machine
// (an amdgcn object is EM_AMDGPU) or one whose xgpu_host_code_object_info
// names an ISA the agent cannot run is refused with HSA_STATUS_ERROR_INVALID_ISA
// and the reason is logged (HSA_CPU_LOG). Accepted objects are written to a
// memfd and dlopen'ed through /proc/self/fd; the fd is closed right after,
// so no file is left behind. Kernels are found by walking the object's
// dynamic symbol table for `*.kd` symbols.
//
// Threading: all entry points are thread-safe; an executable must not be
// destroyed while another thread uses it or its kernels run.
#ifndef HSA_CPU_EXECUTABLE_H_
#define HSA_CPU_EXECUTABLE_H_

#include <xgpu/host_kernel.h>

#include "common.h"

namespace hsa_cpu {

// Copies the descriptor at `kernel_object` into *out when it is the kernel
// descriptor of a loaded executable (HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT
// of a live symbol); false for any other value, which is never dereferenced.
bool read_kernel_descriptor(uint64_t kernel_object, xgpu_host_kernel_descriptor_t* out);

// Unloads every executable and frees every reader (hsa_shut_down).
void destroy_all_executables();

}  // namespace hsa_cpu

#endif  // HSA_CPU_EXECUTABLE_H_
