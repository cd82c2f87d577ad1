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
