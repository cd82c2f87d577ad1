/* Kernels of the ICD runtime tests. */
#include <xgpu/kernel.h>

#include "icd_test_kernels.h"

XGPU_KERNEL(icd_saxpy, icd_saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(icd_saxpy, 2);

XGPU_KERNEL_SIZED(icd_increment, icd_increment_args_t, args, ICD_TEST_INCREMENT_WORKGROUP, 1u, 1u) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] += 1u;
}
XGPU_KERNEL_BINDINGS(icd_increment, 1);

/* Work item 0 spins until the host stores a non-zero value at *gate (so a
 * test can keep work in flight on a queue for as long as it needs). */
XGPU_KERNEL(icd_spin_until, icd_spin_until_args_t, args) {
  if (xgpu_global_id(0) != 0) return;
  while (xgpu_atomic_load(args->gate, XGPU_ORDER_ACQUIRE, XGPU_SCOPE_SYSTEM) == 0u) {
  }
}
XGPU_KERNEL_BINDINGS(icd_spin_until, 1);

XGPU_KERNEL(icd_scale, icd_scale_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  args->out[i] = args->in[i] * args->mul + args->add;
  args->tags[i] = args->tag ^ args->flags;
}
XGPU_KERNEL_BINDINGS(icd_scale, 3);

/* No XGPU_KERNEL_BINDINGS on purpose: the tests need one kernel whose
 * pipelines cannot take the layout from the kernel. */
XGPU_KERNEL(icd_undeclared, icd_undeclared_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = args->n;
}

/* Dereferences a bad address (the device faults: a test of device loss). */
XGPU_KERNEL(icd_fault, icd_fault_args_t, args) {
  if (xgpu_local_id(0) != 0) return;
  args->out[0] = *(volatile const uint32_t*)(uintptr_t)args->address; /* FAULT-LINE: icd_fault */
}
XGPU_KERNEL_BINDINGS(icd_fault, 1);

/* Kernel printf: two lines per work item, attributed and in order. */
XGPU_KERNEL(icd_print, icd_print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  xgpu_printf("item %u of %u: %.1f %s", i, args->n, 0.5 * (double)i, "named");
  xgpu_printf("done %u", i);
}
XGPU_KERNEL_BINDINGS(icd_print, 0);

/* A kernel assert that fails for ids >= limit (one line per failure). */
XGPU_KERNEL(icd_print_assert, icd_print_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->n) return;
  xgpu_assert(i < args->limit); /* ASSERT-LINE: icd_print_assert */
}
XGPU_KERNEL_BINDINGS(icd_print_assert, 0);

/* Stores to a bad address (fault reports: the store's line is named). */
XGPU_KERNEL(icd_fault_store, icd_fault_store_args_t, args) {
  if (xgpu_local_id(0) != 0 || xgpu_workgroup_id(0) != args->workgroup) return;
  *(volatile uint32_t*)(uintptr_t)args->address = args->value; /* FAULT-LINE: icd_fault_store */
}
XGPU_KERNEL_BINDINGS(icd_fault_store, 0);

XGPU_KERNEL_GROUPSHARED(icd_groupshared, icd_groupshared_args_t, args, icd_groupshared_small_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  shared->words[lid] = lid + 1u;
  xgpu_barrier();
  if (lid == 0) args->out[0] = shared->words[0];
}
XGPU_KERNEL_BINDINGS(icd_groupshared, 1);
