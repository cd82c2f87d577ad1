/*
 * Helpers shared by the device library's kernels: the one place that looks
 * at the kernel target (besides <xgpu/kernel.h> itself).
 *
 * Thread-safety: not applicable (inline helpers on per-work-item state).
 */
#ifndef XGPU_AMDGPU_DEVICE_COMMON_H_
#define XGPU_AMDGPU_DEVICE_COMMON_H_

#include <xgpu/kernel.h>
#include <xgpu_amdgpu/commands.h>

/* 16 bytes moved by one store of the wide body paths. */
typedef uint32_t xgpu_amdgpu_u32x4 __attribute__((ext_vector_type(4)));

/* The device's timestamp counter.
 *   amdgcn: the constant-rate "realtime" counter (s_memrealtime on gfx9/10,
 *           s_sendmsg_rtn REALTIME on gfx11+), the agent's
 *           HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY (typically 100 MHz).
 *   host:   the x86 time-stamp counter (rdtsc), invariant on current CPUs;
 *           its frequency is the TSC frequency, not the HSA system
 *           timestamp frequency. */
static inline uint64_t xgpu_amdgpu_read_timestamp(void) {
#if defined(XGPU_KERNEL_TARGET_AMDGCN)
  return __builtin_readsteadycounter();
#else
  return __builtin_readcyclecounter();
#endif
}

/* Byte `position` of a pattern replicated to 4 bytes (memory order). */
static inline uint8_t xgpu_amdgpu_pattern_byte(uint32_t pattern, uint64_t position) {
  return (uint8_t)(pattern >> (8u * (uint32_t)(position & 3u)));
}

/* The replicated pattern as it appears in a word starting at byte
 * `position` of the fill (little-endian rotation). */
static inline uint32_t xgpu_amdgpu_pattern_word(uint32_t pattern, uint64_t position) {
  const uint32_t shift = 8u * (uint32_t)(position & 3u);
  return shift == 0 ? pattern : (pattern >> shift) | (pattern << (32u - shift));
}

#endif /* XGPU_AMDGPU_DEVICE_COMMON_H_ */
