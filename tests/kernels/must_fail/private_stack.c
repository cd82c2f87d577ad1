/* Must not build into one executable for AMDGPU and the host: a kernel with
 * barriers whose work items need 64 KiB of private memory (a stack array),
 * more than a host fiber's stack gives kernel code (each target alone
 * builds: the rule compares them). */
#include <xgpu/kernel.h>
typedef struct args { const uint32_t* in; uint32_t* out; } args_t;
#define BIG_PRIVATE_WORDS 16384u
XGPU_KERNEL_BARRIERS(big_private, args_t, args) {
  uint32_t scratch[BIG_PRIVATE_WORDS];
  for (uint32_t i = 0; i < BIG_PRIVATE_WORDS; ++i) scratch[i] = args->in[i] ^ xgpu_local_id(0);
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = scratch[args->in[xgpu_global_id(0)] % BIG_PRIVATE_WORDS];
}
