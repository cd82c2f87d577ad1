/* Item loops versioned on their bounds checks
 * (tools/xgpu-wiloop/bound_checks.cpp, spec/kernels.md "Work-item loops"
 * step 10). Legality: a compare of an index that grows by one per
 * iteration of an innermost item loop (start + item, any width) with a
 * loop-invariant bound — i < n, i >= n, i != 0 — holds on every iteration
 * when start < n and the loop's last counter value is below n - start (no
 * index wraps then); a copy with the checks folded runs when they all
 * hold, the original loop otherwise. Other conditions are left alone (and
 * no remark is made for them). */
#include <xgpu/kernel.h>

typedef struct saxpy_args {
  const float* x;
  float* y;
  float a;
  uint32_t n;
} saxpy_args_t;

/* Fires: the guarded saxpy, if (i < n). */
XGPU_KERNEL(saxpy, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy, 2);
// The test (the first index below n, and room for the loop's last one),
// then the copy, whose check is true.
// IR-LABEL: define internal void @saxpy_xgpu_run_workgroup_(
// IR: %[[START:xgpu.split.start[0-9]*]] = icmp ult
// IR: %[[FITS:xgpu.split.fits[0-9]*]] = icmp ult
// IR-NEXT: and i1 %[[START]], %[[FITS]]
// IR: br i1 %{{[0-9]+}}, label %[[COPY:xgpu.split.ph[0-9]*.xgpu.nocheck]], label %xgpu.split.ph
// IR: [[COPY]]:
// IR: br i1 true,
// IR-LABEL: define internal void @saxpy_return_xgpu_run_workgroup_(

/* Fires: the early return, if (i >= n) return. */
XGPU_KERNEL(saxpy_return, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  args->y[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy_return, 2);

/* Fires: two checks, i < n and i > 0 (i != 0). */
XGPU_KERNEL(diff, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n && i > 0) args->y[i] = args->x[i] - args->x[i - 1];
}
XGPU_KERNEL_BINDINGS(diff, 2);

typedef struct stencil_args {
  const float* in;
  float* out;
  uint32_t width, height;
} stencil_args_t;
/* Fires: a 2-D stencil with edge checks on x (the item loop's index) and
 * on y (invariant in it). */
XGPU_KERNEL(stencil, stencil_args_t, args) {
  const uint32_t x = xgpu_global_id(0);
  const uint32_t y = xgpu_global_id(1);
  if (x == 0 || y == 0 || x + 1 >= args->width || y + 1 >= args->height) return;
  const uint32_t w = args->width;
  args->out[y * w + x] = 0.25f * (args->in[y * w + x - 1] + args->in[y * w + x + 1] + args->in[(y - 1) * w + x] +
                                  args->in[(y + 1) * w + x]);
}
XGPU_KERNEL_BINDINGS(stencil, 2);

typedef struct staged_args {
  const uint32_t* in;
  uint32_t* out;
  uint32_t n, reserved;
} staged_args_t;
typedef struct staged_shared {
  uint32_t v[256];
} staged_shared_t;
/* Fires: the regions' loops of a barrier kernel too. */
XGPU_KERNEL_GROUPSHARED(staged, staged_args_t, args, staged_shared_t, sh) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  if (g < args->n) sh->v[lid] = args->in[g];
  xgpu_barrier();
  if (g < args->n) args->out[g] = sh->v[lid] * 2u;
}
XGPU_KERNEL_BINDINGS(staged, 2);

/* Near miss: no check at all. */
XGPU_KERNEL(unguarded, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  args->y[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(unguarded, 2);

/* Near miss: an index that grows by two per item. */
XGPU_KERNEL(strided, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (2u * i < args->n) args->y[2u * i] = args->a * args->x[2u * i];
}
XGPU_KERNEL_BINDINGS(strided, 2);

/* Near miss: a condition on data. */
XGPU_KERNEL(data_check, saxpy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (args->x[i] < args->a) args->y[i] = args->a;
}
XGPU_KERNEL_BINDINGS(data_check, 2);

/* Near miss: a bound that differs per item. */
typedef struct limit_args {
  const float* x;
  float* y;
  const uint32_t* limit;
  uint32_t n, reserved;
} limit_args_t;
XGPU_KERNEL(item_bound, limit_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->limit[i]) args->y[i] = args->x[i];
}
XGPU_KERNEL_BINDINGS(item_bound, 3);

/* Near miss: a signed compare. */
XGPU_KERNEL(signed_check, saxpy_args_t, args) {
  const int32_t i = (int32_t)xgpu_global_id(0);
  if (i < (int32_t)args->n) args->y[i] = args->a * args->x[i];
}
XGPU_KERNEL_BINDINGS(signed_check, 2);

// The barrier kernel's plan comes first, then each function's loops.
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
// REMARK: kernel 'staged': work-item-loops:
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
// REMARK: function 'saxpy_xgpu_run_workgroup_': bound-checks: an item loop versioned: a copy without its bounds checks runs where they all hold
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
// REMARK: function 'saxpy_return_xgpu_run_workgroup_': bound-checks: an item loop versioned: a copy without its bounds checks runs where they all hold
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
// REMARK: function 'diff_xgpu_run_workgroup_': bound-checks: an item loop versioned: a copy without its bounds checks runs where they all hold
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
// REMARK: function 'stencil_xgpu_run_workgroup_': bound-checks: an item loop versioned: a copy without its bounds checks runs where they all hold
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
// REMARK: function 'staged_xgpu_wi_': bound-checks: an item loop versioned: a copy without its bounds checks runs where they all hold
// REMARK-NOT: function '{{unguarded|strided|data_check|item_bound|signed_check}}_xgpu_run_workgroup_':
