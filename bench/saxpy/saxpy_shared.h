/* What the saxpy benchmark's host program and its xgpu kernel share. */
#ifndef SAXPY_SHARED_H_
#define SAXPY_SHARED_H_

#include <stdint.h>

/* Work items per row of the 2-D grid: element i = row * SAXPY_ROW + column,
 * so that no dimension's workgroup count exceeds the peers' limits (Vulkan
 * guarantees 65535 workgroups per dimension). */
#define SAXPY_ROW (256u * 1024u)

/* Elements per work item of the diagnostic kernel `saxpy_chunk`. */
#define SAXPY_CHUNK 1024u

/* The constants after the two bindings. */
typedef struct saxpy_constants {
  float a;     /* y = a * x + y */
  uint32_t n;  /* elements */
} saxpy_constants_t;

#endif
