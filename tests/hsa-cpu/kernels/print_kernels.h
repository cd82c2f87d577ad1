/* Argument structs of print_kernels.c, shared with test_printing.cpp. */
#ifndef HSA_CPU_TEST_PRINT_KERNELS_H_
#define HSA_CPU_TEST_PRINT_KERNELS_H_

#include <stdint.h>

typedef struct print_test_args {
  uint32_t* out;     /* binding: one word per work item of the grid */
  const char* label; /* binding: a NUL-terminated string the records copy */
  uint32_t n;        /* print_items: items that print; assert_items: items that pass */
  uint32_t reserved; /* zero */
} print_test_args_t;

typedef struct print_test_shared {
  uint32_t ring[256]; /* one word per work item of the workgroup */
} print_test_shared_t;

#endif /* HSA_CPU_TEST_PRINT_KERNELS_H_ */
