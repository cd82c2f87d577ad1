/* Test kernels of the icd-commands end-to-end suite. */
#include <xgpu/kernel.h>

typedef struct saxpy_args {
  const float* x;  /* binding: n floats */
  float* y;        /* binding: n floats */
  float a;         /* constant */
  uint32_t n;      /* constant: element count */
} saxpy_args_t;

XGPU_KERNEL(saxpy, saxpy_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->y[i] = args->a * args->x[i] + args->y[i];
}
XGPU_KERNEL_BINDINGS(saxpy, 2);

/* Pipeline stage: out[i] = in[i] * scale + bias. */
typedef struct scale_args {
  const float* in;  /* binding */
  float* out;       /* binding */
  float scale;      /* constant */
  float bias;       /* constant */
  uint32_t n;       /* constant */
  uint32_t reserved; /* 0 */
} scale_args_t;

XGPU_KERNEL(scale_bias, scale_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->out[i] = args->in[i] * args->scale + args->bias;
}
XGPU_KERNEL_BINDINGS(scale_bias, 2);

/* Slowly writes `value` to every element (a busy loop first, so a reader
 * that is not ordered after it can observe the old contents). */
typedef struct slow_write_args {
  uint32_t* buf;    /* binding */
  uint32_t value;   /* constant */
  uint32_t n;       /* constant */
  uint32_t spin;    /* constant: busy-loop iterations */
  uint32_t reserved; /* 0 */
} slow_write_args_t;

XGPU_KERNEL(slow_write, slow_write_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  volatile uint32_t sink = 0;
  for (uint32_t s = 0; s < args->spin; ++s) sink = sink + s;
  if (i < args->n) args->buf[i] = args->value;
}
XGPU_KERNEL_BINDINGS(slow_write, 1);

/* dst[i] = src[i] + 1. */
typedef struct increment_args {
  const uint32_t* src; /* binding */
  uint32_t* dst;       /* binding */
  uint32_t n;          /* constant */
  uint32_t reserved;   /* 0 */
} increment_args_t;

XGPU_KERNEL(increment, increment_args_t, args) {
  uint32_t i = xgpu_global_id(0);
  if (i < args->n) args->dst[i] = args->src[i] + 1u;
}
XGPU_KERNEL_BINDINGS(increment, 2);

/* One work item writes uint32_t counts[3]. */
typedef struct make_counts_args {
  uint32_t* counts;  /* binding */
  uint32_t x, y, z;  /* constants */
  uint32_t reserved; /* 0 */
} make_counts_args_t;

XGPU_KERNEL(make_counts, make_counts_args_t, args) {
  if (xgpu_global_id(0) == 0) {
    args->counts[0] = args->x;
    args->counts[1] = args->y;
    args->counts[2] = args->z;
  }
}
XGPU_KERNEL_BINDINGS(make_counts, 1);

/* Records every work item: out[0] += 1 (atomic), out[1 + linear id] = id+1,
 * out[1 + limit .. +3] = grid size. */
typedef struct mark_args {
  uint32_t* out;     /* binding */
  uint32_t limit;    /* constant: slots after out[0] */
  uint32_t reserved; /* 0 */
} mark_args_t;

XGPU_KERNEL(mark, mark_args_t, args) {
  uint32_t id = xgpu_global_linear_id();
  xgpu_atomic_fetch_add(&args->out[0], 1u, XGPU_ORDER_RELAXED, XGPU_SCOPE_AGENT);
  if (id < args->limit) args->out[1 + id] = id + 1u;
  if (id == 0) {
    args->out[1 + args->limit] = xgpu_grid_size(0);
    args->out[2 + args->limit] = xgpu_grid_size(1);
    args->out[3 + args->limit] = xgpu_grid_size(2);
  }
}
XGPU_KERNEL_BINDINGS(mark, 1);
