/*
 * What the host program and the kernels of the indirect_dispatch sample share:
 * the layout of the buffer the indirect dispatch reads, the constants the
 * filter kernel receives, and the predicate and transform themselves (plain
 * C, so the host's reference computes exactly what the kernels compute).
 *
 * Included by C11 host code and by C17 kernels (freestanding: <stdint.h> and
 * <stdbool.h> only).
 */
#ifndef SAMPLES_INDIRECT_DISPATCH_FILTER_SHARED_H_
#define SAMPLES_INDIRECT_DISPATCH_FILTER_SHARED_H_

#include <stdbool.h>
#include <stdint.h>

/* Work items per workgroup of both kernels. */
#define FILTER_WORKGROUP_SIZE 64u
#define PROCESS_WORKGROUP_SIZE 64u

/* Value the process kernel leaves in output[] for elements that were
 * filtered out (the command buffer fills output[] with it first). */
#define OUTPUT_NOT_PROCESSED 0xFFFFFFFFu

/* The state buffer. xgpuCmdDispatchIndirect reads workgroup_count[3] at
 * offset 0; the rest is the sample's own bookkeeping. */
typedef struct indirect_state {
  uint32_t workgroup_count[3]; /* x, y, z workgroups of the process dispatch */
  uint32_t survivor_count;     /* elements that passed the filter */
  uint32_t workgroups_run;     /* workgroups the process dispatch really ran */
  uint32_t reserved[3];        /* zero; pads the struct to 32 bytes */
} indirect_state_t;
_Static_assert(sizeof(indirect_state_t) == 32, "indirect_state_t is 32 bytes");

/* Constants of the filter kernel, after its three bindings. */
typedef struct filter_constants {
  uint32_t element_count; /* elements in input[] */
  uint32_t keep_percent;  /* keep values whose last two decimal digits are below this */
} filter_constants_t;

/* The predicate: about keep_percent % of uniformly distributed values pass. */
static inline bool filter_keep(uint32_t value, uint32_t keep_percent) {
  return value % 100u < keep_percent;
}

/* What the process kernel computes for each survivor. */
static inline uint32_t process_transform(uint32_t value) {
  return value * 3u + 1u;
}

#endif /* SAMPLES_INDIRECT_DISPATCH_FILTER_SHARED_H_ */
