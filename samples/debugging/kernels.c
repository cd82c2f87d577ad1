/*
 * Kernels of the debugging sample. `report` prints and asserts; the other two
 * are WRONG on purpose: the sample shows what xgpu reports when a kernel
 * faults or hangs.
 */
#include <xgpu/kernel.h>

#include "debugging_shared.h"

typedef struct report_args {
  const float* positions;          /* binding 0: particle_count * 2 floats (x, y) */
  integrate_constants_t constants; /* push constants (dt unused) */
} report_args_t;

/* Prints the first particles and checks that every particle is above the
 * ground: xgpu_printf lines arrive as messages when the submission
 * completes; a failed xgpu_assert fails the submission's semaphores. */
XGPU_KERNEL(report, report_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i >= args->constants.particle_count) return;
  const float y = args->positions[2u * i + 1u];
  if (i < 4u) xgpu_printf("particle %u at height %.2f", i, (double)y);
  xgpu_assert(y >= 0.0f); /* the host puts one particle below ground */
}
XGPU_KERNEL_BINDINGS(report, 1);

typedef struct integrate_args {
  float* positions;                /* binding 0: particle_count * 2 floats (x, y) */
  integrate_constants_t constants; /* push constants */
} integrate_args_t;

/* Moves each particle one step down. The bug: the bounds check uses `>`
 * where it needs `>=`, so work item n (the host rounds the workgroup count
 * up) touches the particle after the last one - 0 to 4 bytes past the end
 * of the buffer. */
XGPU_KERNEL(integrate, integrate_args_t, args) {
  const uint32_t i = xgpu_global_id(0);
  if (i > args->constants.particle_count) return; /* BUG: should be >= */
  args->positions[2u * i + 1u] -= 9.81f * args->constants.dt;
}
XGPU_KERNEL_BINDINGS(integrate, 1);

typedef struct wait_args {
  const uint32_t* flag;        /* binding 0: one word */
  wait_constants_t constants;  /* push constants */
} wait_args_t;

/* Waits until *flag == expected. The bug: nobody ever writes it, so the
 * kernel never ends (a hang the driver's watchdog catches). */
XGPU_KERNEL(wait_for_flag, wait_args_t, args) {
  while (xgpu_atomic_load(args->flag, XGPU_ORDER_ACQUIRE, XGPU_SCOPE_SYSTEM) != args->constants.expected) {
  }
}
XGPU_KERNEL_BINDINGS(wait_for_flag, 1);
