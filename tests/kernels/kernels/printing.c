/* Kernels that print, and siblings that do not: the build's pass plugin
 * gives the first a kernel flags record with XGPU_KERNEL_FLAG_PRINTS on
 * every target (tools/xgpu-wiloop/printing_kernels.cpp), and none to the
 * others; every AMDGPU target still has no hidden kernel arguments (the
 * print slot is read before the kernarg segment, and xgpu_print_emit_ is a
 * direct call, also from a helper that was not inlined). */
#include <xgpu/kernel.h>

#include "test_kernels.h"

__attribute__((noinline)) static void print_report(XGPU_CTX_PARAM, uint32_t value, const char* what) {
  xgpu_printf("%s: %u\n", what, value);
}

XGPU_KERNEL(print_values, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  xgpu_printf("%u %d %ld %lu %c %d %f %f %s %p\n", i, -(int32_t)i, (long)i - 7, (unsigned long)i << 40,
              (char)('a' + i % 26u), (_Bool)(i & 1u), 0.25f * (float)i, 1e300, "text", (const void*)args->out);
  args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(print_values, 1);

XGPU_KERNEL(print_assert, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  xgpu_assert(i < args->n);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(print_assert, 1);

XGPU_KERNEL(print_in_helper, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) print_report(XGPU_CTX, i, "helper");
}
XGPU_KERNEL_BINDINGS(print_in_helper, 1);

XGPU_KERNEL_GROUPSHARED(print_barriers, print_test_args_t, args, print_test_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->ring[lid] = xgpu_global_id(0);
  xgpu_barrier();
  const uint32_t next = shared->ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
  xgpu_printf("%u sees %u\n", xgpu_global_id(0), next);
  if (xgpu_global_id(0) < args->n) args->out[xgpu_global_id(0)] = next;
}
XGPU_KERNEL_BINDINGS(print_barriers, 1);

/* The siblings: the same shapes without printing. */
XGPU_KERNEL(quiet_values, print_test_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = i;
}
XGPU_KERNEL_BINDINGS(quiet_values, 1);

XGPU_KERNEL_GROUPSHARED(quiet_barriers, print_test_args_t, args, print_test_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->ring[lid] = xgpu_global_id(0);
  xgpu_barrier();
  if (xgpu_global_id(0) < args->n)
    args->out[xgpu_global_id(0)] = shared->ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
}
XGPU_KERNEL_BINDINGS(quiet_barriers, 1);
