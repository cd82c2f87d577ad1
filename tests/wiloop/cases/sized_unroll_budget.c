/* The sized path's late unroll (tools/xgpu-wiloop/sized_path.cpp,
 * LateUnrollPass) has a budget: the marked loops of one sized copy, unrolled
 * in full, may be at most kMaxLateUnrolledSize instructions. Over it they
 * stay loops (the kernel keeps the sized path's constants and stack arrays):
 * 1024 items and fifteen barriers once unrolled into ~400,000 instructions,
 * a build of more than ten minutes. Each copy of a kernel without a
 * declared size (64, 128 and 256 items, inlined into one workgroup
 * function) is held to the budget on its own. */
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
// REMARK-NOT: kernel 'small_tree': sized-path: the loops of its copy

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
// REMARK: kernel 'wide_steps': sized-path: the loops of its copy for (1024, 1, 1) items stay loops: unrolled in full they would be about {{[0-9]+}} instructions, over 16384

/* Copies by the dispatch's size (no declared size), a barrier loop of
 * size / 32 steps: the copies for 64 and 128 items fit the budget and are
 * unrolled; the one for 256 items (8 steps of 256 items) does not, and
 * only it keeps its loops (with one budget for the three, none was). */
XGPU_KERNEL_GROUPSHARED(steps_by_size, args_t, args, v1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0), g = xgpu_global_id(0);
  sh->v[lid] = lid;
  xgpu_barrier();
  for (uint32_t k = 0; k < size / 32u; ++k) {
    sh->v[(lid * (2u * k + 1u)) & 1023u] += args->in[(g + k) & 4095u] * (k + 3u);
    xgpu_barrier();
  }
  args->out[g] = sh->v[(size - 1u - lid) & 1023u];
}
XGPU_KERNEL_BINDINGS(steps_by_size, 2);
// REMARK-NOT: kernel 'steps_by_size': sized-path: the loops of its copy for (64, 1, 1)
// REMARK-NOT: kernel 'steps_by_size': sized-path: the loops of its copy for (128, 1, 1)
// REMARK: kernel 'steps_by_size': sized-path: the loops of its copy for (256, 1, 1) items stay loops: unrolled in full they would be about {{[0-9]+}} instructions, over 16384
