/* Kernels that print, built by the kernel toolchain with its pass plugin,
 * for the hsa-cpu suite "printing" (test_printing.cpp), which dispatches
 * them directly with a print buffer's address in the 8 bytes before their
 * kernarg segment (<xgpu/kernel_print.h>) and decodes the records. */
#include <xgpu/kernel.h>

#include "print_kernels.h"

/* Two records per item whose global linear id g is below n, in program
 * order, with a value of every conversion; then out[g] = g + 1. */
XGPU_KERNEL(print_items, print_test_args_t, args) {
  const uint32_t g = xgpu_global_linear_id();
  if (g >= args->n) return;
  xgpu_printf("first %u %d %f %s\n", g, -(int32_t)g, 0.5f * (float)g, args->label);
  xgpu_printf("second %lld %llu %p %c %d %s\n", (long long)g - 1000, (unsigned long long)g << 33,
              (void*)&args->out[g], (char)('a' + g % 26u), (_Bool)(g & 1u), "literal");
  args->out[g] = g + 1u;
}
XGPU_KERNEL_BINDINGS(print_items, 2);

/* One record before the barrier and one after it, per item: every item's
 * "before" is reserved before any item's "after" of its workgroup. Then
 * out[g] = the next item's global id. */
XGPU_KERNEL_GROUPSHARED(print_around_barrier, print_test_args_t, args, print_test_shared_t, shared) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t g = xgpu_global_id(0);
  shared->ring[lid] = g;
  xgpu_printf("before %u\n", g);
  xgpu_barrier();
  const uint32_t next = shared->ring[(lid + 1u) % xgpu_workgroup_item_count(0)];
  xgpu_printf("after %u %u\n", g, next);
  args->out[g] = next;
}
XGPU_KERNEL_BINDINGS(print_around_barrier, 2);

/* An assert that fails for the items at and past n; every item goes on to
 * write out[g] = g + 1 all the same. */
XGPU_KERNEL(assert_items, print_test_args_t, args) {
  const uint32_t g = xgpu_global_id(0);
  xgpu_assert(g < args->n); /* ASSERT-LINE */
  args->out[g] = g + 1u;
}
XGPU_KERNEL_BINDINGS(assert_items, 2);
