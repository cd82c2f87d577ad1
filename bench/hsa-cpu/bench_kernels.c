/* The kernels the hsa-cpu benchmark dispatches (a hand-written host code
 * object, independent of the kernel toolchain). */
#include <xgpu/host_kernel.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT const xgpu_host_code_object_info_t xgpu_host_code_object_info = {
    XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION, "x86_64-unknown-linux-gnu--x86-64"};

typedef struct { uint32_t unused; } empty_args_t;

/* Exported so the benchmark's "direct call" peer can call it without HSA. */
EXPORT void bench_empty_workgroup(const void* kernarg, xgpu_host_workgroup_t* wg) {
  (void)kernarg;
  (void)wg;
  __asm__ volatile("" ::: "memory");
}

EXPORT const xgpu_host_kernel_descriptor_t empty_kd __asm__("empty.kd") = {
    XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION, "empty", bench_empty_workgroup, 0,
    sizeof(empty_args_t), _Alignof(empty_args_t), 0, 0, {0, 0, 0}, 0};
