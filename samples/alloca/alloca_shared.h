/*
 * What the host program and the kernels of the alloca sample share. Included
 * by C11 host code and by C17 kernels (freestanding: <stdint.h> only).
 */
#ifndef SAMPLES_ALLOCA_ALLOCA_SHARED_H_
#define SAMPLES_ALLOCA_ALLOCA_SHARED_H_

#include <stdint.h>

/* Work items per workgroup of both kernels. */
#define ALLOCA_WORKGROUP_SIZE 256u

/* Constants of both kernels, after their three bindings. */
typedef struct alloca_constants {
  uint32_t element_count; /* elements in input[], scratch[] and output[] */
  uint32_t reserved;      /* zero */
} alloca_constants_t;

/* What one iteration stores in scratch for element i: the input plus the
 * iteration number, so that every iteration's scratch content differs. */
static inline uint32_t scratch_value(uint32_t input, uint32_t iteration) {
  return input * 2u + iteration;
}

#endif /* SAMPLES_ALLOCA_ALLOCA_SHARED_H_ */
