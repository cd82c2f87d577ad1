/* Shared by the recording benchmark's kernel (C17) and its host program. */
#ifndef RECORDING_SHARED_H_
#define RECORDING_SHARED_H_

#include <stdint.h>

/* Counters every dispatch adds to: dispatch i adds `value` to
 * counters[i % RECORDING_COUNTER_COUNT], so a replayed command buffer leaves
 * a result both sides must match. */
enum { RECORDING_COUNTER_COUNT = 64 };

/* The 16 bytes of push constants every dispatch sets. */
typedef struct recording_constants {
  uint32_t index;    /* counter this dispatch adds to */
  uint32_t value;    /* what it adds */
  uint32_t pad[2];   /* zero: 16 bytes, as the Vulkan overhead benchmarks push */
} recording_constants_t;

#endif
