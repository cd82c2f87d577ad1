/* The sized path (tools/xgpu-wiloop/sized_path.cpp): a barrier kernel of a
 * required workgroup size (x, 1, 1) gets a copy for full workgroups with
 * group memory on the stack. Legality: its arrays' accesses are scoped
 * apart from an access only when every object that access may touch is
 * provably not one of them (underlying objects through select, phi and
 * inttoptr; capture tracking for pointers from memory or integers). */
#include <xgpu/kernel.h>

typedef struct args {
  uint32_t* in;
  uint32_t* out;
  uint32_t n, k;
} args_t;
typedef struct v64 {
  uint32_t v[64];
} v64_t;
typedef struct vw64 {
  uint32_t v[64];
  uint32_t w[64];
} vw64_t;

/* Fires: a tree sum (its loop of barriers unrolled by O3 before the pass);
 * every group access is the array's, every other one (the kernarg's
 * buffers) apart from it. */
XGPU_KERNEL_GROUPSHARED_SIZED(tree, args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = args->in[xgpu_global_id(0)];
  xgpu_barrier();
  for (uint32_t s = 32; s > 0; s >>= 1) {
    if (lid < s) sh->v[lid] += sh->v[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->v[0];
}
XGPU_KERNEL_BINDINGS(tree, 2);
// REMARK: kernel 'tree': sized-path: full workgroups of (64, 1, 1) items {{.*}}; {{[1-9][0-9]*}} accesses to its arrays, {{[1-9][0-9]*}} apart from them, 0 that may touch them unscoped{{$}}
// REMARK: kernel 'tree': work-item-loops:

/* Near miss: more static group memory than the sized path keeps on the
 * stack. */
typedef struct big {
  uint32_t v[5000];
} big_t;
XGPU_KERNEL_GROUPSHARED_SIZED(big_group, args_t, args, big_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid * 70u] = lid;
  xgpu_barrier();
  args->out[lid] = sh->v[(63u - lid) * 70u];
}
XGPU_KERNEL_BINDINGS(big_group, 2);
// REMARK: kernel 'big_group': not sized-path: its static group memory is over 16384 bytes

/* Near miss: a required size that is not one row. */
XGPU_KERNEL_GROUPSHARED_SIZED(square, args_t, args, v64_t, sh, 8, 8, 1) {
  const uint32_t lid = xgpu_local_id(1) * 8u + xgpu_local_id(0);
  sh->v[lid] = lid;
  xgpu_barrier();
  args->out[lid] = sh->v[63u - lid];
}
XGPU_KERNEL_BINDINGS(square, 2);
// REMARK: kernel 'square': not sized-path: its required workgroup size is not (x, 1, 1)
// REMARK: kernel 'square': work-item-loops:

/* Near miss: a group pointer read from a private table may alias the
 * array: those accesses stay unscoped (they once claimed not to alias). */
XGPU_KERNEL_GROUPSHARED_SIZED(table, args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = lid;
  xgpu_barrier();
  if (lid == 0) {
    uint32_t* rows[4] = {sh->v, sh->v + 16, sh->v + 32, sh->v + 48};
    uint32_t* q = rows[args->k & 3u];
    const uint32_t before = sh->v[16u * (args->k & 3u)];
    q[0] = before + 7u;
    args->out[xgpu_workgroup_id(0)] = sh->v[16u * (args->k & 3u)];
  }
}
XGPU_KERNEL_BINDINGS(table, 2);
// REMARK: kernel 'table': sized-path: {{.*}}, {{[1-9][0-9]*}} that may touch them unscoped

/* Near miss: a group pointer chosen by data before a barrier, kept in a
 * per-item slot across it. */
XGPU_KERNEL_GROUPSHARED_SIZED(keptptr, args_t, args, vw64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0), g = xgpu_global_id(0);
  uint32_t* mine = (args->in[g] & 1u) ? &sh->v[lid] : &sh->w[lid];
  sh->v[lid] = 1u;
  sh->w[lid] = 2u;
  xgpu_barrier();
  const uint32_t before = sh->v[lid];
  *mine += 7u;
  args->out[g] = sh->v[lid] - (args->in[g] & 1u) * 7u * before;
}
XGPU_KERNEL_BINDINGS(keptptr, 2);
// REMARK: kernel 'keptptr': sized-path: {{.*}}, {{[1-9][0-9]*}} that may touch them unscoped (an array's address escapes)

/* Near miss: a pointer one past the array, in a volatile local: it escapes,
 * and it stays a pointer (it once became null). */
XGPU_KERNEL_GROUPSHARED_SIZED(end_pointer, args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = 1u;
  xgpu_barrier();
  if (lid == 0) {
    const uint32_t* volatile end = sh->v + 64;
    uint32_t s = 0;
    for (const uint32_t* p = sh->v; p < end; ++p) s += *p;
    args->out[xgpu_workgroup_id(0)] = s;
  }
}
XGPU_KERNEL_BINDINGS(end_pointer, 2);
// REMARK: kernel 'end_pointer': sized-path: {{.*}} (an array's address escapes)
// IR-LABEL: define internal void @end_pointer_xgpu_wi_(
// IR-NOT: store volatile ptr null
// IR: store volatile ptr %{{.*}}, ptr %{{.*}}

/* The kernel's own loop inside a region (here a 256-iteration loop over a
 * buffer) is left to LLVM's unroller: only the item loops the pass builds,
 * and the kernel's loops around them, are unrolled in full after
 * vectorisation. Marked too, each item's copy of the loop was unrolled in
 * full (64 x 256 bodies: a build of tens of seconds,
 * tests/fuzz-kernels/found/compile-time). */
XGPU_KERNEL_GROUPSHARED_SIZED(own_loop, args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  uint32_t s = 0;
  for (uint32_t i = 0; i < 256u; ++i) s = s * 31u + args->in[(lid + i * args->k) & 4095u];
  sh->v[lid] = s;
  xgpu_barrier();
  args->out[xgpu_global_id(0)] = sh->v[63u - lid];
}
XGPU_KERNEL_BINDINGS(own_loop, 2);
// REMARK: kernel 'own_loop': sized-path: {{.*}}; {{[1-9][0-9]*}} loop(s) to unroll after vectorisation, {{[1-9][0-9]*}} of the kernel's own left to LLVM's unroller;
