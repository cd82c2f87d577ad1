/* The recording benchmark's two sides (xgpu and the Vulkan peer) behind one
 * interface, so that main() measures both with the same loops.
 *
 * Thread-compatible: one thread drives a side at a time. */
#ifndef RECORDING_BENCH_H_
#define RECORDING_BENCH_H_

#include <stdbool.h>
#include <stdint.h>

#include "recording_shared.h"

/* One side of the comparison. Every function returns nanoseconds of the
 * timed part only (setup and verification are untimed). */
typedef struct bench_side {
  const char* name;  /* column title */
  void* state;       /* the side's own state */
  /* Records begin + bind + `count` x (push 16 B + dispatch(1,1,1) [+ a global
   * memory barrier]) + end into the side's scratch command buffer. */
  uint64_t (*record)(void* state, uint32_t count, bool barriers);
  /* begin + bind + push + one dispatch + end. */
  uint64_t (*record_one)(void* state);
  /* Records the replay buffer once (untimed): `count` dispatches, no barriers. */
  void (*prepare_replay)(void* state, uint32_t count);
  /* Submits the replay buffer and waits for it. */
  uint64_t (*replay)(void* state);
  /* Submits a one-dispatch buffer and waits: submit -> host wait returns. */
  uint64_t (*submit_one)(void* state);
  /* An empty submission that signals a timeline semaphore, and the wait. */
  uint64_t (*empty_submit)(void* state);
  /* Counters: zero them; read them (after the side's work completed). */
  void (*reset_counters)(void* state);
  void (*read_counters)(void* state, uint32_t out[RECORDING_COUNTER_COUNT]);
  void (*destroy)(void* state);
} bench_side_t;

/* Monotonic nanoseconds. */
uint64_t bench_now_ns(void);

/* The constants of dispatch `i` of a recording. */
static inline recording_constants_t bench_constants(uint32_t i) {
  recording_constants_t c = {i % RECORDING_COUNTER_COUNT, i % 7u + 1u, {0, 0}};
  return c;
}

/* Sides; false (with a line on stderr saying why) when unavailable. */
bool xgpu_side_create(bench_side_t* out_side);
bool vulkan_side_create(bench_side_t* out_side);

#endif
