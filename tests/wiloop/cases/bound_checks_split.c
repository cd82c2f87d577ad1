/* Item loops split on their bounds checks
 * (tools/xgpu-wiloop/bound_checks.cpp, spec/kernels.md "Work-item loops"
 * step 10). Where the versioning test fails (some item of the loop fails a
 * check: a row of a run of workgroups that holds the grid's first or last
 * column), the original loop is split in three: the items before the range
 * where every check holds, that range with the checks folded, and the items
 * after it, each once and in order. Legality: on iteration k a check's index
 * is (r + k) mod 2^w, so it holds exactly where (r + k) mod 2^w < n; the
 * middle range is a run of such iterations common to every check, clamped to
 * the loop's own. Loops whose checks are not of that form are not split (nor
 * versioned). */
#include <xgpu/kernel.h>

typedef struct stencil_args {
  const float* in;
  float* out;
  uint32_t n, reserved;
} stencil_args_t;

/* Fires: jacobi-2d's edges, j == 0 and j >= n - 1 on the row's index (and
 * the same on i, invariant in the row). */
XGPU_KERNEL(jacobi, stencil_args_t, args) {
  const uint32_t j = xgpu_global_id(0), i = xgpu_global_id(1), n = args->n;
  if (i == 0 || j == 0 || i >= n - 1 || j >= n - 1) return;
  const float* in = args->in;
  args->out[i * n + j] = 0.2f * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1] + in[(i + 1) * n + j] +
                                 in[(i - 1) * n + j]);
}
XGPU_KERNEL_BINDINGS(jacobi, 2);
// The middle range in 64 bits, then LoopConstrainer's three loops.
// IR-LABEL: define internal void @jacobi_xgpu_run_workgroup_(
// IR-DAG: %xgpu.range.lo = add i64
// IR-DAG: %xgpu.range.hi = add i64
// IR-DAG: {{^}}preloop.pseudo.exit{{[0-9]*}}:
// IR-DAG: {{^}}mainloop{{[0-9]*}}:
// IR-DAG: {{^}}postloop{{[0-9]*}}:
// IR-LABEL: define internal void @shifted_xgpu_run_workgroup_(

/* Fires: an index ahead of the item (j + 3 < n), whose range ends early. */
XGPU_KERNEL(shifted, stencil_args_t, args) {
  const uint32_t j = xgpu_global_id(0);
  if (j + 3u < args->n) args->out[j] = args->in[j + 3u];
}
XGPU_KERNEL_BINDINGS(shifted, 2);
// IR-DAG: %xgpu.range.lo = add i64
// IR-DAG: {{^}}mainloop{{[0-9]*}}:
// IR-LABEL: define internal void @item_limit_xgpu_run_workgroup_(

/* Near miss: a bound read per item (not loop-invariant): neither versioned
 * nor split. */
typedef struct limit_args {
  const float* in;
  float* out;
  const uint32_t* limit;
  uint32_t n, reserved;
} limit_args_t;
XGPU_KERNEL(item_limit, limit_args_t, args) {
  const uint32_t j = xgpu_global_id(0);
  if (j < args->limit[j]) args->out[j] = args->in[j];
}
XGPU_KERNEL_BINDINGS(item_limit, 3);

/* Near miss: an index that grows by two per item. */
XGPU_KERNEL(strided, stencil_args_t, args) {
  const uint32_t j = xgpu_global_id(0);
  if (2u * j < args->n) args->out[2u * j] = args->in[2u * j];
}
XGPU_KERNEL_BINDINGS(strided, 2);
// IR-NOT: xgpu.range
// IR-LABEL: define internal void @strided_xgpu_run_workgroup_(
// IR-NOT: xgpu.range
// IR: ret void

// REMARK-NOT: function '{{item_limit|strided}}_xgpu_run_workgroup_':
// REMARK: function 'jacobi_xgpu_run_workgroup_': bound-checks: where they do not all hold, the items in the range where they do run without them, those before and after in loops of their own
// REMARK-NOT: function '{{item_limit|strided}}_xgpu_run_workgroup_':
// REMARK: function 'shifted_xgpu_run_workgroup_': bound-checks: where they do not all hold, the items in the range where they do run without them, those before and after in loops of their own
// REMARK-NOT: function '{{item_limit|strided}}_xgpu_run_workgroup_':
