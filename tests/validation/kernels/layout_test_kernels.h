/* Argument structs of the kernels of the validation layer's kernel-metadata
 * tests (shared by the kernel C17 sources and the C++ tests). */
#ifndef XGPU_TESTS_VALIDATION_LAYOUT_TEST_KERNELS_H_
#define XGPU_TESTS_VALIDATION_LAYOUT_TEST_KERNELS_H_

#include <stdint.h>

/* out[i] = value for i < n. 1 binding + 8 bytes of constants (16 bytes). */
typedef struct validation_layout_args {
  uint32_t* out;  /* binding 0: n words */
  uint32_t n;     /* element count */
  uint32_t value; /* what to store */
} validation_layout_args_t;

/* validation_sized's required workgroup size (x, y, 1). */
#define VALIDATION_SIZED_X 32u
#define VALIDATION_SIZED_Y 2u

/* 68 KiB: above the 64 KiB limits.maxWorkgroupMemorySize of hsa-cpu. */
typedef struct validation_shared_large {
  uint32_t words[17 * 1024];
} validation_shared_large_t;

#endif
