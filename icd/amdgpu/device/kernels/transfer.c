/*
 * Fill and copy: grid-stride kernels (1D) for any size and alignment.
 *
 * Both split [0, length) of the destination into a head (bytes up to the
 * first 16-byte aligned destination address), a body of 16-byte aligned
 * units written with one wide store each, and a tail of leftover bytes. Every
 * work item takes units id, id + grid, id + 2 grid, ... so one grid of any
 * size covers any length; head and tail bytes are spread the same way.
 */
#include "device_common.h"

/* Splits `length` bytes at `dst` into head bytes, 16-byte units and tail. */
static inline void xgpu_amdgpu_split(const uint8_t* dst, uint64_t length, uint64_t* out_head,
                                     uint64_t* out_units) {
  uint64_t head = (XGPU_AMDGPU_TRANSFER_UNIT - ((uintptr_t)dst & (XGPU_AMDGPU_TRANSFER_UNIT - 1u))) &
                  (XGPU_AMDGPU_TRANSFER_UNIT - 1u);
  if (head > length) head = length;
  *out_head = head;
  *out_units = (length - head) / XGPU_AMDGPU_TRANSFER_UNIT;
}

XGPU_KERNEL(xgpu_amdgpu_fill, xgpu_amdgpu_fill_args_t, args) {
  const uint64_t stride = (uint64_t)xgpu_grid_size(0);
  const uint64_t id = (uint64_t)xgpu_global_id(0);
  uint8_t* const dst = args->dst;
  const uint64_t length = args->length;
  const uint32_t pattern = args->pattern;
  uint64_t head, units;
  xgpu_amdgpu_split(dst, length, &head, &units);
  const uint64_t tail = head + units * XGPU_AMDGPU_TRANSFER_UNIT;

  for (uint64_t b = id; b < head; b += stride) dst[b] = xgpu_amdgpu_pattern_byte(pattern, b);
  const uint32_t word = xgpu_amdgpu_pattern_word(pattern, head);
  const xgpu_amdgpu_u32x4 value = {word, word, word, word};
  for (uint64_t u = id; u < units; u += stride) {
    void* p = __builtin_assume_aligned(dst + head + u * XGPU_AMDGPU_TRANSFER_UNIT, 16);
    __builtin_memcpy_inline(p, &value, sizeof(value));
  }
  for (uint64_t b = tail + id; b < length; b += stride) dst[b] = xgpu_amdgpu_pattern_byte(pattern, b);
}
XGPU_KERNEL_BINDINGS(xgpu_amdgpu_fill, 1);

XGPU_KERNEL(xgpu_amdgpu_copy, xgpu_amdgpu_copy_args_t, args) {
  const uint64_t stride = (uint64_t)xgpu_grid_size(0);
  const uint64_t id = (uint64_t)xgpu_global_id(0);
  const uint8_t* const src = args->src;
  uint8_t* const dst = args->dst;
  const uint64_t length = args->length;
  uint64_t head, units;
  xgpu_amdgpu_split(dst, length, &head, &units);
  const uint64_t tail = head + units * XGPU_AMDGPU_TRANSFER_UNIT;

  for (uint64_t b = id; b < head; b += stride) dst[b] = src[b];
  const uint8_t* const body_src = src + head;
  uint8_t* const body_dst = dst + head;
  if (((uintptr_t)body_src & (XGPU_AMDGPU_TRANSFER_UNIT - 1u)) == 0) {
    /* Source and destination co-aligned: aligned wide loads. */
    for (uint64_t u = id; u < units; u += stride) {
      xgpu_amdgpu_u32x4 v;
      __builtin_memcpy_inline(&v, __builtin_assume_aligned(body_src + u * XGPU_AMDGPU_TRANSFER_UNIT, 16),
                              sizeof(v));
      __builtin_memcpy_inline(__builtin_assume_aligned(body_dst + u * XGPU_AMDGPU_TRANSFER_UNIT, 16), &v,
                              sizeof(v));
    }
  } else {
    /* Misaligned source: unaligned loads (the compiler picks the widest the
     * target allows), aligned wide stores. */
    for (uint64_t u = id; u < units; u += stride) {
      xgpu_amdgpu_u32x4 v;
      __builtin_memcpy_inline(&v, body_src + u * XGPU_AMDGPU_TRANSFER_UNIT, sizeof(v));
      __builtin_memcpy_inline(__builtin_assume_aligned(body_dst + u * XGPU_AMDGPU_TRANSFER_UNIT, 16), &v,
                              sizeof(v));
    }
  }
  for (uint64_t b = tail + id; b < length; b += stride) dst[b] = src[b];
}
XGPU_KERNEL_BINDINGS(xgpu_amdgpu_copy, 2);
