/* A barrier the work-item loop transform cannot reach: it sits in a
 * recursive helper that cannot be inlined. Host only (recursion needs a
 * dynamic stack on AMDGPU); the build must say the kernel keeps fiber mode. */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; uint32_t depth; uint32_t reserved; } args_t;
__attribute__((noinline)) static uint32_t levels(XGPU_CTX_BARRIER_PARAM, uint32_t depth) {
  if (depth == 0) return 1;
  xgpu_barrier();
  return levels(XGPU_CTX_BARRIER, depth - 1) + levels(XGPU_CTX_BARRIER, depth / 2);
}
XGPU_KERNEL_BARRIERS(recursive_barrier, args_t, args) {
  args->out[xgpu_global_id(0)] = levels(XGPU_CTX_BARRIER, args->depth);
}
