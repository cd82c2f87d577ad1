/* The saxpy benchmark's kernel (C17, spec/kernels.md): y = a * x + y over n
 * floats on a 2-D grid of SAXPY_ROW work items per row. The peers run the
 * same in saxpy.comp (Vulkan) and an OpenCL C string (PoCL). */
#include <xgpu/kernel.h>

#include "saxpy_shared.h"

typedef struct saxpy_args {
  const float* x;       /* binding 0: n floats */
  float* y;             /* binding 1: n floats, updated in place */
  saxpy_constants_t c;  /* a, n */
} saxpy_args_t;

XGPU_KERNEL_SIZED(saxpy, saxpy_args_t, args, 256u, 1u, 1u) {
  const uint32_t i = xgpu_global_id(1) * SAXPY_ROW + xgpu_global_id(0);
  if (i < args->c.n) args->y[i] = args->c.a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy, 2);
