/*
 * What the host program and the kernels of the multi_device sample share.
 * Included by C11 host code and by C17 kernels (freestanding: <stdint.h>
 * only).
 */
#ifndef SAMPLES_MULTI_DEVICE_MULTI_DEVICE_SHARED_H_
#define SAMPLES_MULTI_DEVICE_MULTI_DEVICE_SHARED_H_

#include <stdint.h>

/* Work items per workgroup of the kernel, and the bins of the histogram. */
#define MULTI_DEVICE_WORKGROUP_SIZE 256u
#define MULTI_DEVICE_BINS 256u

/* The kernel's constants, after its two bindings. */
typedef struct multi_device_constants {
  uint32_t element_count; /* elements of this device's share */
  uint32_t reserved;      /* zero */
} multi_device_constants_t;

/* The value element i of the whole input holds (the host fills each
 * device's share with it), and the bin it counts in: a hash, so that every
 * bin gets a share and a device that counted another share is caught. */
static inline uint32_t multi_device_value(uint32_t i) {
  uint32_t x = i * 2654435761u;
  x ^= x >> 15;
  x *= 2246822519u;
  return x ^ (x >> 13);
}
static inline uint32_t multi_device_bin(uint32_t value) { return (value >> 7) & (MULTI_DEVICE_BINS - 1u); }

#endif /* SAMPLES_MULTI_DEVICE_MULTI_DEVICE_SHARED_H_ */
