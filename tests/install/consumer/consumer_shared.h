/* What consumer.c and kernels.c share (C11 host code, C17 freestanding kernels). */
#ifndef XGPU_CONSUMER_SHARED_H_
#define XGPU_CONSUMER_SHARED_H_

#include <stdint.h>

#define CONSUMER_WORKGROUP_SIZE 64u /* work items per workgroup */

/* saxpy's constants, after its two bindings. */
typedef struct consumer_constants {
  float a;        /* the scale */
  uint32_t count; /* elements in x and y */
} consumer_constants_t;

#endif /* XGPU_CONSUMER_SHARED_H_ */
