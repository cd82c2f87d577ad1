/* Shared by the benchmark's host code (C11) and its kernels (C17). */
#ifndef BENCH_INDIRECT_ALLOCA_BENCH_SHARED_H_
#define BENCH_INDIRECT_ALLOCA_BENCH_SHARED_H_

#include <stdint.h>

/* Work items per workgroup of both kernels. */
#define BENCH_WORKGROUP_SIZE 64u

/* Constants of write_slice, after its two bindings. */
typedef struct bench_slice_constants {
  uint32_t element_count; /* elements per slice */
  uint32_t slice;         /* which slice this dispatch writes */
} bench_slice_constants_t;

/* Constants of accumulate, after its three bindings. */
typedef struct bench_accumulate_constants {
  uint32_t element_count; /* elements of input, scratch and output */
  uint32_t reserved;      /* zero */
} bench_accumulate_constants_t;

static inline uint32_t slice_value(uint32_t input, uint32_t slice) {
  return input * (slice + 1u) + slice;
}

#endif /* BENCH_INDIRECT_ALLOCA_BENCH_SHARED_H_ */
