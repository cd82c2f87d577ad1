/* The kernel the recorded dispatches name (its work is not measured). */
#include <xgpu/kernel.h>

typedef struct bench_scale_args {
  const float* x; /* binding 0 */
  float* y;       /* binding 1 */
  float a;        /* scale */
  uint32_t n;     /* element count */
} bench_scale_args_t;

XGPU_KERNEL(bench_scale, bench_scale_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i];
}

/* GPU-assisted validation's cost (README.md): z[i] = a * x[i] + y[i], whose
 * layout is declared, so that the build adds its bounds-checked copy. */
typedef struct bench_axpy_args {
  const float* x; /* binding 0 */
  const float* y; /* binding 1 */
  float* z;       /* binding 2 */
  float a;        /* scale */
  uint32_t n;     /* element count */
} bench_axpy_args_t;

XGPU_KERNEL(bench_axpy, bench_axpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->z[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(bench_axpy, 3);
