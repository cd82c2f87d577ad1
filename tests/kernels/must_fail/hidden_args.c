/* Must not build: a compiler built-in that needs hidden kernel arguments
 * (on amdgcn, the COV5 workgroup size reads the implicit argument block). */
#include <xgpu/kernel.h>
typedef struct args { uint32_t* out; } args_t;
XGPU_KERNEL(bad_hidden, args_t, args) {
#if defined(__AMDGCN__)
  args->out[0] = __builtin_amdgcn_workgroup_size_x();
#else
  args->out[0] = xgpu_workgroup_size(0);
#endif
}
