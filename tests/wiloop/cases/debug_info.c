// FLAGS: -g
/* Kernels built with debug information (clang -g) through the pass: the
 * functions it writes, copies and inlines (the sized path, the combined
 * tails' function, the recount's copy, fused and jammed loops) keep valid
 * debug locations, so the verifier accepts the module (the pass once
 * wrote IR it rejected under -g, which stopped the build) and the remarks
 * name the kernel's source line. */
#include <xgpu/kernel.h>

typedef struct dbg_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t* count;
  uint32_t n, k;
} dbg_args_t;
typedef struct v64 {
  uint32_t v[64];
} v64_t;

/* A sized kernel: the sized path, inlined into the workgroup function. */
XGPU_KERNEL_GROUPSHARED_SIZED(tree, dbg_args_t, args, v64_t, sh, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  sh->v[lid] = args->in[xgpu_global_id(0)];
  xgpu_barrier();
  for (uint32_t s = 32; s > 0; s >>= 1) {
    if (lid < s) sh->v[lid] += sh->v[lid + s];
    xgpu_barrier();
  }
  if (lid == 0) args->out[xgpu_workgroup_id(0)] = sh->v[0];
}
XGPU_KERNEL_BINDINGS(tree, 3);
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'tree': narrowed-region: region 1 runs the items x < 32 only
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'tree': sized-path: full workgroups of (64, 1, 1) items
// REMARK-NEXT: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'tree': work-item-loops:
// IR-LABEL: define internal void @tree_xgpu_wi_({{.*}}) #{{[0-9]+}} !dbg !{{[0-9]+}} {

/* Combined tail adds (their own function) and kept bins. */
XGPU_KERNEL_GROUPSHARED(histogram, dbg_args_t, args, v64_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = 0;
  xgpu_barrier();
  if (g < args->n)
    xgpu_atomic_fetch_add(&sh->v[args->in[g] % xgpu_workgroup_size(0)], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_WORKGROUP);
  xgpu_barrier();
  if (sh->v[lid] != 0) xgpu_atomic_fetch_add(&args->out[lid], sh->v[lid], XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(histogram, 3);
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'histogram': combined-tails: 1 tail atomic add(s) combined
// REMARK-NEXT: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'histogram': kept-bins: group memory kept
// REMARK-NEXT: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'histogram': work-item-loops:
// IR-LABEL: define internal void @histogram_xgpu_wi_({{.*}}) #{{[0-9]+}} !dbg !{{[0-9]+}} {
// IR: call void @histogram_xgpu_wi_.combine(

/* The recount (a copy of the blocks up to the add). */
XGPU_KERNEL(compact, dbg_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(compact, 3);
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'compact': recount:
// REMARK-NEXT: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'compact': recount-runs:
// REMARK-NEXT: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'compact': aggregated-adds:

/* Aggregated adds waiting at the add. */
XGPU_KERNEL(store_first, dbg_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  if (g >= args->n) return;
  const uint32_t v = args->in[g];
  args->out[g] = 0u;
  if (v > args->k) args->out[xgpu_atomic_fetch_add(args->count, 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT)] = v;
}
XGPU_KERNEL_BINDINGS(store_first, 3);
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'store_first': not recount:
// REMARK-NEXT: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'store_first': aggregated-adds:

/* Fused regions. */
XGPU_KERNEL_GROUPSHARED(scan, dbg_args_t, args, v64_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  sh->v[lid] = g < args->n ? args->in[g] : 0u;
  xgpu_barrier();
  for (uint32_t off = 1; off < 64u; off <<= 1) {
    const uint32_t left = lid >= off ? sh->v[lid - off] : 0u;
    xgpu_barrier();
    sh->v[lid] += left;
    xgpu_barrier();
  }
  if (g < args->n) args->out[g] = sh->v[lid];
}
XGPU_KERNEL_BINDINGS(scan, 3);
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'scan': fused-regions: regions 1 and 2 as one loop over the items in descending order, split at item 1
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: kernel 'scan': work-item-loops:

typedef struct gemm_args {
  const float* a;
  const float* b;
  float* c;
  uint32_t m, n, k, reserved;
} gemm_args_t;
/* Versioned and jammed item loops. */
XGPU_KERNEL(gemm, gemm_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  const uint32_t row = xgpu_global_id(1);
  if (row < args->m && col < args->n) {
    float acc = 0.0f;
    for (uint32_t k = 0; k < args->k; ++k) acc += args->a[row * args->k + k] * args->b[k * args->n + col];
    args->c[row * args->n + col] = acc;
  }
}
XGPU_KERNEL_BINDINGS(gemm, 3);
// REMARK: {{.*}}debug_info.c:{{[0-9]+}}:{{[0-9]+}}: function 'gemm_xgpu_run_workgroup_': unroll-and-jam: the inner loops of 8 items interleaved
// The run's end, the combined adds' function of its own.
// IR-LABEL: define internal void @histogram_xgpu_wi_.combine(
// IR: atomicrmw add
