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

#endif
