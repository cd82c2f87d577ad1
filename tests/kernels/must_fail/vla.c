/* Must not build: a variable-length array (no dynamic stack on AMDGPU). */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; uint32_t n; uint32_t reserved; } args_t;
XGPU_KERNEL(bad_vla, args_t, args) {
  uint32_t scratch[args->n];
  for (uint32_t i = 0; i < args->n; ++i) scratch[i] = i * xgpu_local_id(0);
  args->out[xgpu_global_id(0)] = scratch[args->n / 2];
}
