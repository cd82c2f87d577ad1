/* Unroll-and-jam of item loops (tools/xgpu-wiloop/unroll_and_jam.cpp,
 * spec/kernels.md "Work-item loops" step 11). Legality: an item loop of
 * <xgpu/kernel.h> (kernels without barriers) that holds one inner loop,
 * innermost, whose trip count is the same for every item, in its
 * guard-free copy (step 10), straight-line code around the inner loop,
 * with no atomic, volatile access, call with a memory effect or store that
 * may reach a private array (every item reuses it in turn): 8 items' inner
 * loops are interleaved, each item's operations in their order. Work items
 * are unordered but through atomics and barriers, which these loops lack. */
#include <xgpu/kernel.h>

typedef struct gemm_args {
  const float* a;
  const float* b;
  float* c;
  uint32_t m, n, k, reserved;
} gemm_args_t;

/* Fires: a guarded matrix product, its k loop the same for every item. */
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

/* Fires: the same without bounds checks (guard-free as it is). */
XGPU_KERNEL(gemm_unguarded, gemm_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  const uint32_t row = xgpu_global_id(1);
  float acc = 0.0f;
  for (uint32_t k = 0; k < args->k; ++k) acc += args->a[row * args->k + k] * args->b[k * args->n + col];
  args->c[row * args->n + col] = acc;
}
XGPU_KERNEL_BINDINGS(gemm_unguarded, 3);

/* Near miss: a private array written in the loop body; interleaved items
 * would share it. */
XGPU_KERNEL(gemm_private, gemm_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  const uint32_t row = xgpu_global_id(1);
  if (row < args->m && col < args->n) {
    float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (uint32_t k = 0; k < args->k; ++k) part[(k * 7u + col) % 4u] += args->a[row * args->k + k] * args->b[k * args->n + col];
    args->c[row * args->n + col] = part[0] + part[1] + part[2] + part[3];
  }
}
XGPU_KERNEL_BINDINGS(gemm_private, 3);

/* Near miss: an atomic in the loop body (orders items). Its address
 * differs per item: it is not aggregated, so the item loop stays. */
typedef struct count_args {
  const float* a;
  const float* b;
  float* c;
  uint32_t* hits;
  uint32_t m, n, k, reserved;
} count_args_t;
XGPU_KERNEL(gemm_atomic, count_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  const uint32_t row = xgpu_global_id(1);
  if (row < args->m && col < args->n) {
    float acc = 0.0f;
    for (uint32_t k = 0; k < args->k; ++k) {
      const float p = args->a[row * args->k + k] * args->b[k * args->n + col];
      acc += p;
      if (p != 0.0f) xgpu_atomic_fetch_add(&args->hits[col], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
    }
    args->c[row * args->n + col] = acc;
  }
}
XGPU_KERNEL_BINDINGS(gemm_atomic, 4);

/* Near miss: the inner loop's trip count differs per item (not a
 * candidate: no remark). */
XGPU_KERNEL(triangle, gemm_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  const uint32_t row = xgpu_global_id(1);
  if (row < args->m && col < args->n) {
    float acc = 0.0f;
    for (uint32_t k = 0; k <= col; ++k) acc += args->a[row * args->k + k] * args->b[k * args->n + col];
    args->c[row * args->n + col] = acc;
  }
}
XGPU_KERNEL_BINDINGS(triangle, 3);

/* Near miss: a branch after the inner loop (more than one block after it,
 * a shape UnrollAndJamLoop does not take). */
XGPU_KERNEL(aft_branch, gemm_args_t, args) {
  const uint32_t col = xgpu_global_id(0);
  const uint32_t row = xgpu_global_id(1);
  float acc = 0.0f;
  for (uint32_t k = 0; k < args->k; ++k) acc += args->a[row * args->k + k] * args->b[k * args->n + col];
  if (acc > 0.0f) args->c[row * args->n + col] = acc;
}
XGPU_KERNEL_BINDINGS(aft_branch, 3);

// REMARK: function 'gemm_xgpu_run_workgroup_': bound-checks: an item loop versioned
// REMARK: function 'gemm_xgpu_run_workgroup_': unroll-and-jam: the inner loops of 8 items interleaved
// REMARK: function 'gemm_unguarded_xgpu_run_workgroup_': unroll-and-jam: the inner loops of 8 items interleaved
// REMARK-NOT: function 'gemm_private_xgpu_run_workgroup_': unroll-and-jam:
// (Inlining puts the array's llvm.lifetime.start in the item loop: that is
// what the pass meets first, and names.)
// REMARK: function 'gemm_private_xgpu_run_workgroup_': not unroll-and-jam: an item loop: a private array's lifetime starts or ends in it
// REMARK-NOT: function 'gemm_{{private|atomic}}_xgpu_run_workgroup_': unroll-and-jam:
// REMARK: function 'gemm_atomic_xgpu_run_workgroup_': not unroll-and-jam: an item loop: an atomic, call or other memory effect
// REMARK-NOT: function 'gemm_atomic_xgpu_run_workgroup_': unroll-and-jam:
// REMARK-NOT: function 'triangle_xgpu_run_workgroup_':
// REMARK: function 'aft_branch_xgpu_run_workgroup_': not unroll-and-jam: an item loop: more than one block after the inner loop
// REMARK-NOT: function 'aft_branch_xgpu_run_workgroup_': unroll-and-jam:
