/* Must not build for AMDGPU: a call through a function pointer. The AMDGPU
 * compiler then gives the kernel hidden arguments (it cannot see what the
 * callee reads), which the packer reports with their cause. */
#include <xgpu/kernel.h>
typedef struct args {
  float* x;
  uint32_t n, op;
} args_t;
__attribute__((noinline)) static float twice(float v) { return 2.0f * v; }
__attribute__((noinline)) static float plus_one(float v) { return v + 1.0f; }
XGPU_KERNEL(indirect, args_t, args) {
  float (*const ops[2])(float) = {twice, plus_one};
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->x[i] = ops[args->op & 1u](args->x[i]);
}
XGPU_KERNEL_BINDINGS(indirect, 1);
