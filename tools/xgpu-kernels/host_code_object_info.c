/* The per-code-object info symbol of a host code object (<xgpu/host_kernel.h>).
 * xgpu_add_kernels compiles this file once per host level, with
 * XGPU_HOST_ISA_NAME set to the level's HSA ISA name, and links it with the
 * kernels. */
#include <xgpu/host_kernel.h>

#ifndef XGPU_HOST_ISA_NAME
#error "XGPU_HOST_ISA_NAME must name the host ISA, e.g. \"x86_64-unknown-linux-gnu--x86-64-v3\""
#endif

__attribute__((visibility("default"), used))
const xgpu_host_code_object_info_t xgpu_host_code_object_info = {
    XGPU_HOST_KERNEL_MAGIC,
    XGPU_HOST_KERNEL_ABI_VERSION,
    XGPU_HOST_ISA_NAME,
};
