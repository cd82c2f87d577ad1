/* Scalar item loops of the sized path (tools/xgpu-wiloop/sized_path.cpp,
 * item_decided_branch and the late unroll's budget, unrolled_size): an
 * innermost item loop of a sized copy that branches on the item through an
 * operation that is not a line in it, with constants only, is kept from the
 * loop vectoriser, unrolled in full by the last step, where each item's
 * branch folds, and what is left is widened by the SLP vectoriser.
 * Legality: no transform of the kernel's meaning is involved (vectorise or
 * not, unroll or not); the budget's count is an estimate only. */
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

/* Fires: an interleaved tree (`lid % (2 * s) == 0`, the way a first tree
 * reduction is written; no declared size). Each copy's steps branch on
 * the item in a way that is not a line in it, so their loops stay scalar
 * (vectorised, that branch would be a mask over every item) and, unrolled,
 * fold to the items that add: the budget counts only those (without that,
 * the 256-item copy's 8 steps of 256 items were over it and stayed loops,
 * 10x slower than vector code). Its steps' loops are unrolled in full and
 * the SLP vectoriser of the last step sums the registers left. */
XGPU_KERNEL_GROUPSHARED(interleaved_tree, args_t, args, v1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  sh->v[lid & 1023u] = args->in[xgpu_global_id(0)];
  xgpu_barrier();
  for (uint32_t s = 1; s < size; s *= 2u) {
    if (lid % (2u * s) == 0) sh->v[lid & 1023u] += sh->v[(lid + s) & 1023u];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->v[0];
}
XGPU_KERNEL_BINDINGS(interleaved_tree, 2);
// REMARK: kernel 'interleaved_tree': sized-path: {{.*}}(256's copy: {{[0-9]+}} loop(s) to unroll after vectorisation, {{[1-9][0-9]*}} of them scalar (a branch the item decides, not in a line);
// REMARK-NOT: kernel 'interleaved_tree': sized-path: the loops of its copy

/* Near miss: the halving tree's `lid < s` is a line in the item (the
 * vectoriser narrows it well): its loops are not kept scalar. */
XGPU_KERNEL_GROUPSHARED(halving_tree, args_t, args, v1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  sh->v[lid & 1023u] = args->in[xgpu_global_id(0)];
  xgpu_barrier();
  for (uint32_t s = size / 2u; s > 0; s /= 2u) {
    if (lid < s) sh->v[lid & 1023u] += sh->v[(lid + s) & 1023u];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->v[0];
}
XGPU_KERNEL_BINDINGS(halving_tree, 2);
// REMARK-NOT: kernel 'halving_tree': sized-path: {{.*}} of them scalar

/* Near miss: the modulus is the kernel's argument, not a constant: the
 * branch would not fold, so the loop is vectorised as before. */
XGPU_KERNEL_GROUPSHARED_SIZED(runtime_modulus, args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = args->in[xgpu_global_id(0)];
  xgpu_barrier();
  if (lid % (args->k | 1u) == 0) sh->v[lid] += sh->v[63u - lid];
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(runtime_modulus, 2);
// REMARK-NOT: kernel 'runtime_modulus': sized-path: {{.*}} of them scalar
