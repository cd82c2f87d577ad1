/* The consumer's kernel (C17, <xgpu/kernel.h>): y[i] = a * x[i] + y[i]. */
#include <xgpu/kernel.h>

#include "consumer_shared.h"

typedef struct saxpy_args {
  const float* x;             /* binding 0: count values */
  float* y;                   /* binding 1: count values, updated in place */
  consumer_constants_t c;     /* constants */
} saxpy_args_t;

XGPU_KERNEL(saxpy, saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->c.count) args->y[i] = args->c.a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy, 2);

/* A kernel with groupshared memory and a barrier: each workgroup of up to 64
 * items reverses its part of y. Built, not run: the installed SDK's
 * xgpu_add_kernels turns it into work-item loops when the SDK has the
 * xgpu-wiloop plugin (tests/install/consumer.cmake inspects it). */
typedef struct reverse_shared {
  float v[64];
} reverse_shared_t;
XGPU_KERNEL_GROUPSHARED_SIZED(reverse64, saxpy_args_t, args, reverse_shared_t, shared, 64, 1, 1) {
  const uint32_t lid = xgpu_local_id(0);
  const uint32_t i = xgpu_global_id(0);
  shared->v[lid] = i < args->c.count ? args->y[i] : 0.0f;
  xgpu_barrier();
  if (i < args->c.count) args->y[i] = shared->v[63u - lid];
}
XGPU_KERNEL_BINDINGS(reverse64, 2);
