/* What the loader-call benchmark's parts share. */
#ifndef LOADER_CALL_SHARED_H_
#define LOADER_CALL_SHARED_H_

#include <stdint.h>

/* The 16 bytes of push constants of call i; the kernel copies the last ones
 * pushed into its output buffer. */
typedef struct loader_call_constants {
  uint32_t v[4];
} loader_call_constants_t;

static inline loader_call_constants_t loader_call_constants(uint32_t i) {
  loader_call_constants_t c = {{i, i * 3u + 1u, 0x5eedu ^ i, ~i}};
  return c;
}

#endif
