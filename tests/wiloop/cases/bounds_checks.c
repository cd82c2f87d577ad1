/* Bounds-checked copies on the host (tools/xgpu-wiloop/bounds_checks.cpp):
 * each kernel that declares its layout gets K__xgpu_checked, a descriptor
 * K__xgpu_checked.kd naming copies of its entries, copies of the functions
 * they call (with the kernarg address, workgroup record and local id after
 * their own parameters), its layout, access and flags records; in the
 * copies each access through a binding is guarded by the range check and
 * reports through xgpu_bounds_report_. K itself is unchanged. Near misses:
 * a kernel without XGPU_KERNEL_BINDINGS (no copy), group memory (not a
 * binding: not checked), a binding whose pointer escapes (named by the
 * remark). */
// FLAGS: -DXGPU_KERNEL_PRINT_PASS=1 -DXGPU_KERNEL_BOUNDS_CHECKS=1
// PASSES: xgpu-wiloop,xgpu-printing-kernels,xgpu-binding-access,xgpu-bounds-checks
#include <xgpu/kernel.h>

typedef struct copy_args {
  const uint32_t* src;
  uint32_t* dst;
  uint32_t n, shift;
} copy_args_t;

void defined_elsewhere(uint32_t* p);

__attribute__((noinline)) static void put(uint32_t* p, uint32_t v) { *p = v; }

/* Fires: a load and a store. */
XGPU_KERNEL(copy, copy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->dst[i + args->shift] = args->src[i] + 1u;
}
XGPU_KERNEL_BINDINGS(copy, 2);
// REMARK: kernel 'copy': bounds-checked copy 'copy__xgpu_checked' checks {{[0-9]+}} accesses

/* Fires: the store is in a helper that is not inlined, whose copy checks it. */
XGPU_KERNEL(helper, copy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) put(&args->dst[i], args->src[i]);
}
XGPU_KERNEL_BINDINGS(helper, 2);
// REMARK: kernel 'helper': bounds-checked copy 'helper__xgpu_checked' checks {{[0-9]+}} accesses

/* Near miss: group memory is not a binding; only the binding store is checked. */
typedef struct shared_words { uint32_t w[64]; } shared_words_t;
XGPU_KERNEL_GROUPSHARED_SIZED(grouped, copy_args_t, args, shared_words_t, sh, 64, 1, 1) {
  const uint32_t l = xgpu_local_id(0);
  sh->w[l] = l;
  xgpu_barrier();
  args->dst[xgpu_global_id(0)] = sh->w[63u - l];
}
XGPU_KERNEL_BINDINGS(grouped, 2);
// REMARK: kernel 'grouped': bounds-checked copy 'grouped__xgpu_checked' checks {{[0-9]+}} access

/* Named: binding 1 escapes to another source; its own store is still checked. */
XGPU_KERNEL(escapes, copy_args_t, args) {
  args->dst[0] = 1u;
  defined_elsewhere(args->dst);
}
XGPU_KERNEL_BINDINGS(escapes, 2);
// REMARK: kernel 'escapes': bounds-checked copy 'escapes__xgpu_checked' checks {{[0-9]+}} access{{(es)?}}; not checked: binding 1 where its pointer escapes the analysis

/* Named: a pointer that is a binding's or a private array's, chosen by data,
 * cannot be held to the binding's range (the fuzzer's false report). */
XGPU_KERNEL(mixed, copy_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  uint32_t local[4] = {i, i + 1u, i + 2u, i + 3u};
  volatile uint32_t pick = args->shift;
  const uint32_t* from = pick ? &args->src[i] : &local[i & 3u];
  args->dst[i] = *from;
}
XGPU_KERNEL_BINDINGS(mixed, 2);
// REMARK: kernel 'mixed': bounds-checked copy 'mixed__xgpu_checked' checks {{[0-9]+}} access{{(es)?}}; not checked: an access whose pointer may also come from memory other than a binding

/* Near miss: no layout, no copy. */
XGPU_KERNEL(undeclared, copy_args_t, args) { args->dst[0] = args->src[0]; }
// REMARK-NOT: undeclared__xgpu_checked
// IR-NOT: undeclared__xgpu_checked

// The copy's descriptor names the copies of the entries (flags: no WORKGROUP_RUNS).
// IR-DAG: @copy__xgpu_checked.kd = {{.*}}@copy_xgpu_run_workgroup___xgpu_checked
// The flags record: PRINTS | BOUNDS_CHECKED, then the name.
// IR-DAG: c"XGKF(\00\00\00\03\00\00\00\00\00\00\00copy__xgpu_checked\00\00\00\00\00\00"
// The original kernel's entry is unchanged: no check, no report.
// IR: define internal void @copy_xgpu_run_workgroup_(
// IR-NOT: xgpu_bounds_report_
// IR: {{^}}}
// The copy: the binding's start and length from the kernarg segment (length
// at kernarg - 24 for binding 0), the range check, the report.
// IR: define internal void @copy_xgpu_run_workgroup___xgpu_checked(
// IR: sub i64 %{{.*}}, 24
// IR: icmp ule i64
// IR: call void @xgpu_bounds_report_(i64 %{{.*}}, ptr %1, ptr null, i32 0,
// The helper's copy takes the kernarg address, workgroup record and local
// id, and checks its store.
// IR: define internal {{.*}}void @put__xgpu_checked(ptr {{.*}}, i32 {{.*}}, i64 {{.*}}, ptr {{.*}}, ptr {{.*}})
// IR: icmp ule i64
// IR: call void @xgpu_bounds_report_(
