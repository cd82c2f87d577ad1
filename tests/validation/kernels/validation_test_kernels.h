/* Argument structs of the validation layer tests' kernels (shared by the
 * kernel C17 source and the C++ tests). */
#ifndef XGPU_TESTS_VALIDATION_KERNELS_H_
#define XGPU_TESTS_VALIDATION_KERNELS_H_

#include <stdint.h>

/* y[i] = a * x[i] + y[i] for i < n. 2 bindings + 8 bytes of constants. */
typedef struct validation_saxpy_args {
  const float* x; /* binding 0: n floats */
  float* y;       /* binding 1: n floats */
  float a;        /* scale */
  uint32_t n;     /* element count */
} validation_saxpy_args_t;

/* out[i] = i through 1 KiB of static workgroup memory. 1 binding. */
typedef struct validation_shared_args {
  uint32_t* out; /* binding 0: one uint32_t per work item */
} validation_shared_args_t;

typedef struct validation_shared {
  uint32_t words[256]; /* 1024 bytes of static workgroup memory */
} validation_shared_t;

/* dst[i] = src[i] + 1 for i < n: reads binding 0, writes binding 1. */
typedef struct validation_copy_args {
  const uint32_t* src; /* binding 0 */
  uint32_t* dst;       /* binding 1 */
  uint32_t n;          /* element count */
  uint32_t reserved;   /* zero */
} validation_copy_args_t;

/* Each of n work items adds 1 to counters[0] atomically: binding 0. */
typedef struct validation_count_args {
  uint32_t* counters; /* binding 0 */
  uint32_t n;         /* work items that count */
  uint32_t reserved;  /* zero */
} validation_count_args_t;

/* dst[i + shift] = src[i] + 1 for i < n: with shift > 0 it writes past the
 * end of dst (GPU-assisted validation, test_gpu_assisted.cpp). */
typedef struct validation_overrun_args {
  const uint32_t* src; /* binding 0 */
  uint32_t* dst;       /* binding 1 */
  uint32_t n;          /* element count */
  uint32_t shift;      /* added to each index of dst */
} validation_overrun_args_t;

#endif
