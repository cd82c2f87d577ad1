/* Argument structs of the teardown tests' kernels (shared by the kernel
 * source and the C++ tests). */
#ifndef XGPU_TEARDOWN_KERNELS_H_
#define XGPU_TEARDOWN_KERNELS_H_

#include <stdint.h>

/* Spins until *gate != 0 (the host releases it). */
typedef struct teardown_spin_args {
  uint32_t* gate; /* binding 0: one word the host sets */
} teardown_spin_args_t;

/* out[i] = i for i < n. */
typedef struct teardown_iota_args {
  uint32_t* out; /* binding 0: n words */
  uint32_t n;    /* element count */
  uint32_t pad;  /* zero */
} teardown_iota_args_t;

#endif
