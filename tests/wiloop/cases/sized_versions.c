/* Sized copies by the dispatch's workgroup size (tools/xgpu-wiloop/plugin.cpp,
 * sized_path.cpp: fold_sizes): a barrier kernel without a required size whose
 * barriers sit in loops gets copies for workgroups of (64, 1, 1), (128, 1, 1)
 * and (256, 1, 1) items when, the size folded to a constant, those loops
 * unroll and the copy's regions need no dispatcher. The workgroup function
 * runs a copy only for a full workgroup of its size without dynamic group
 * memory (checked at run time), so the copies are right for any dispatch.
 * A kernel with a required size gets the same folding and unrolling. */
#include <xgpu/kernel.h>

typedef struct args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t n, k;
} args_t;
typedef struct a1k {
  uint32_t a[1024];
} a1k_t;

/* Fires: the textbook's interleaved tree, the size read at run time. */
XGPU_KERNEL_GROUPSHARED(tree_by_size, args_t, args, a1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0), g = xgpu_global_id(0);
  sh->a[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t s = 1; s < size; s *= 2u) {
    if (lid % (2u * s) == 0) sh->a[lid] += sh->a[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->a[0];
}
XGPU_KERNEL_BINDINGS(tree_by_size, 2);
// REMARK: kernel 'tree_by_size': sized-path: full workgroups of (64, 1, 1), (128, 1, 1) or (256, 1, 1) items, by the dispatch's workgroup size (the kernel declares none), run with group memory and per-item slots on the stack (256's copy: {{.*}})
// REMARK: kernel 'tree_by_size': work-item-loops:
// IR-LABEL: define internal void @tree_by_size_xgpu_wi_(
// IR: switch i32 %{{.*}}, label %{{.*}} [
// IR-NEXT: i32 64, label %xgpu.sized.call64
// IR-NEXT: i32 128, label %xgpu.sized.call128
// IR-NEXT: i32 256, label %xgpu.sized.call256

/* Fires too, with a required size: the loop the size decides unrolls in the
 * copy (it once needed the dispatcher, and the sized path was refused). */
XGPU_KERNEL_GROUPSHARED_SIZED(tree_declared, args_t, args, a1k_t, sh, 128, 1, 1) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0), g = xgpu_global_id(0);
  sh->a[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t s = 1; s < size; s *= 2u) {
    if (lid % (2u * s) == 0) sh->a[lid] += sh->a[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->a[0];
}
XGPU_KERNEL_BINDINGS(tree_declared, 2);
// REMARK: kernel 'tree_declared': sized-path: full workgroups of (128, 1, 1) items run with group memory and per-item slots on the stack;

/* Near miss: the barrier loop's trip count is the kernarg's k, not the
 * size: the first copy still needs the dispatcher, and no copy is made. */
XGPU_KERNEL_GROUPSHARED(steps_by_k, args_t, args, a1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  sh->a[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t i = 0; i < args->k; ++i) {
    const uint32_t next = sh->a[(lid + 1u) % xgpu_workgroup_size(0)];
    xgpu_barrier();
    sh->a[lid] += next;
    xgpu_barrier();
  }
  args->out[g] = sh->a[lid];
}
XGPU_KERNEL_BINDINGS(steps_by_k, 2);
// REMARK: kernel 'steps_by_k': not sized-path: a copy for workgroups of (64, 1, 1) items (the kernel declares no size): its regions need a dispatcher
// REMARK-NOT: kernel 'steps_by_k': sized-path:

/* Nothing to say: no barrier in a loop (the straight kernel's regions
 * need no copy to be fast). */
XGPU_KERNEL_GROUPSHARED(straight, args_t, args, a1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  sh->a[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  args->out[g] = sh->a[xgpu_workgroup_size(0) - 1u - lid];
}
XGPU_KERNEL_BINDINGS(straight, 2);
// REMARK-NOT: kernel 'straight': {{(not )?}}sized-path

/* Copies for 64 and 128 items, none for 256: its barrier loop of size / 4
 * steps, unrolled in full, leaves the 256 copy more regions than it can
 * run without a dispatcher; the remark says why the larger size has none. */
XGPU_KERNEL_GROUPSHARED(rotate_quarter, args_t, args, a1k_t, sh) {
  const uint32_t lid = xgpu_local_id(0), size = xgpu_workgroup_size(0);
  const uint32_t g = xgpu_global_id(0);
  sh->a[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  uint32_t acc = 0;
  for (uint32_t s = 0; s < size / 4u; ++s) {
    acc += sh->a[(lid + s) % size];
    xgpu_barrier();
  }
  if (g < args->n) args->out[g] = acc;
}
XGPU_KERNEL_BINDINGS(rotate_quarter, 2);
// REMARK: kernel 'rotate_quarter': not sized-path: no copy for workgroups of (256, 1, 1) items or more (the smaller sizes have one): {{.+}}
// REMARK: kernel 'rotate_quarter': sized-path: full workgroups of (64, 1, 1) or (128, 1, 1) items
