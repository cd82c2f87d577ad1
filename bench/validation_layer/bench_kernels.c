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
