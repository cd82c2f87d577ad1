/* Binding access records on nvptx (tools/xgpu-wiloop/binding_access.cpp): the
 * kernel's first parameter points at its argument struct (AMDGPU: byref in
 * the constant address space; nvptx: byval), and the record is a constant
 * of the layout records' section (AMDGPU) or an array whose name ends in
 * _xgpu_layout_ (nvptx). */
// TARGET: nvptx
// PASSES: xgpu-binding-access
#include <xgpu/kernel.h>

typedef struct three_args {
  const uint32_t* in;  /* binding 0 */
  uint32_t* out;       /* binding 1 */
  uint32_t* counters;  /* binding 2 */
  uint32_t n;
} three_args_t;

void defined_elsewhere(uint32_t* p);

XGPU_KERNEL(plain, three_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  args->out[i] = args->in[i] * 3u;
  xgpu_atomic_fetch_add(&args->counters[0], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
}
XGPU_KERNEL_BINDINGS(plain, 3);
// REMARK: kernel 'plain' binding access: 0: read, 1: write, 2: atomic
// IR: @plain_xgpu_access_xgpu_layout_ = internal constant [56 x i8] c"XGKA8\00\00\00\03\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00plain\00\00\00"

XGPU_KERNEL(escapes, three_args_t, args) {
  if (xgpu_global_id(0) == 0) defined_elsewhere(args->out);
}
XGPU_KERNEL_BINDINGS(escapes, 3);
// REMARK: kernel 'escapes' binding access: 0: not accessed, 1: unknown (it is passed to 'defined_elsewhere', which this source does not define), 2: not accessed
