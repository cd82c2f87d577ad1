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

/* The same work with SAXPY_CHUNK consecutive elements per work item: a
 * diagnostic beside `saxpy`, showing what the host code path reaches when
 * the cost per work item and per workgroup is spread over many elements. */
XGPU_KERNEL_SIZED(saxpy_chunk, saxpy_args_t, args, 64u, 1u, 1u) {
  const uint32_t first = xgpu_global_id(0) * SAXPY_CHUNK;
  const uint32_t end = first + SAXPY_CHUNK < args->c.n ? first + SAXPY_CHUNK : args->c.n;
  const float a = args->c.a;
  const float* x = args->x;
  float* y = args->y;
  for (uint32_t i = first; i < end; ++i) y[i] = a * x[i] + y[i];
}
XGPU_KERNEL_BINDINGS(saxpy_chunk, 2);
