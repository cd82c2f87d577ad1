/* The sized path's late unroll (tools/xgpu-wiloop/sized_path.cpp,
 * LateUnrollPass) has a budget: the marked loops of a function, unrolled in
 * full, may be at most kMaxLateUnrolledSize instructions. Over it they stay
 * loops (the kernel keeps the sized path's constants and stack arrays):
 * 1024 items and fifteen barriers once unrolled into ~400,000 instructions,
 * a build of more than ten minutes. */
// PASSES: xgpu-wiloop,xgpu-wiloop-late
#include <xgpu/kernel.h>

typedef struct args {
  uint32_t* in;
  uint32_t* out;
  uint32_t n, k;
} args_t;
typedef struct v64 {
  uint32_t v[64];
} v64_t;
typedef struct v1k {
  uint32_t v[1024];
} v1k_t;

/* Within the budget: a tree sum of 64 items is unrolled in full (no loop
 * is left in its workgroup function). */
XGPU_KERNEL_GROUPSHARED_SIZED(small_tree, args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = args->in[xgpu_global_id(0)];
  xgpu_barrier();
  for (uint32_t s = 32; s > 0; s >>= 1) {
    if (lid < s) sh->v[lid] += sh->v[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->v[0];
}
XGPU_KERNEL_BINDINGS(small_tree, 2);
// REMARK-NOT: kernel 'small_tree': sized-path: its loops stay loops

#define STEP(k) \
  sh->v[(lid * (2u * (k) + 1u)) & 1023u] += args->in[(g + (k)) & 4095u] * ((k) + 3u); \
  xgpu_barrier();

/* Over the budget: 1024 items, sixteen regions. */
XGPU_KERNEL_GROUPSHARED_SIZED(wide_steps, args_t, args, v1k_t, sh, 1024, 1, 1) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  sh->v[lid] = lid;
  xgpu_barrier();
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
  STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14)
  args->out[g] = sh->v[1023u - lid];
}
XGPU_KERNEL_BINDINGS(wide_steps, 2);
// REMARK: kernel 'wide_steps': sized-path: its loops stay loops: unrolled in full they would be about {{[0-9]+}} instructions, over 16384
