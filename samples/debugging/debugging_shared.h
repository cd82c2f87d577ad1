/*
 * What the host program and the kernels of the debugging sample share.
 * Included by C11 host code and by C17 kernels (freestanding: <stdint.h>
 * only).
 */
#ifndef SAMPLES_DEBUGGING_DEBUGGING_SHARED_H_
#define SAMPLES_DEBUGGING_DEBUGGING_SHARED_H_

#include <stdint.h>

/* Work items per workgroup of both kernels. */
#define DEBUGGING_WORKGROUP_SIZE 256u

/* Constants of `integrate`, after its binding (float* positions). */
typedef struct integrate_constants {
  uint32_t particle_count; /* particles: 2 floats (x, y) each */
  float dt;                /* time step */
} integrate_constants_t;

/* Constants of `wait_for_flag`, after its binding (const uint32_t* flag). */
typedef struct wait_constants {
  uint32_t expected; /* the value the kernel waits to see */
  uint32_t reserved; /* zero */
} wait_constants_t;

#endif /* SAMPLES_DEBUGGING_DEBUGGING_SHARED_H_ */
