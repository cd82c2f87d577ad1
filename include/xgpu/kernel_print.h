/*
 * xgpu kernel printing: the print buffer that xgpu_printf() and xgpu_assert()
 * (<xgpu/kernel.h>, spec/kernels.md "Printing and asserts") write records
 * into, and that the driver provides per submission and decodes on the host.
 *
 *   offset 0     xgpu_print_buffer_header_t (64 bytes)
 *   offset 64    the record area: `capacity` bytes of records, each an
 *                xgpu_print_record_t, its values, its strings, padding
 *
 * Where a kernel finds the buffer: the 8 bytes just before its kernarg
 * segment (kernarg address - XGPU_PRINT_BUFFER_SLOT_OFFSET) hold the
 * buffer's address, or 0 for none (the kernel then prints nothing and counts
 * nothing); the 8 bytes before those (XGPU_PRINT_DISPATCH_SLOT_OFFSET) the
 * dispatch's tag, copied into each record. The driver writes the slots only
 * for kernels whose code object says they print (XGPU_KERNEL_FLAG_PRINTS,
 * <xgpu/executable_format.h>).
 *
 * How a work item writes a record: it reserves `size` bytes with one atomic
 * fetch-add on `head` (the old value is the record's offset in the record
 * area); when offset + size > capacity it adds 1 to `dropped` instead and, if
 * at least 8 bytes of its reservation lie inside the record area, writes a
 * zero `size` there (the end mark); otherwise it writes the record. Offsets
 * only grow, so the records that fit fill the record area from offset 0
 * without gaps, in the order they were reserved (a work item's records in
 * program order), and every record after the first that did not fit was
 * dropped too. A reader walks records from offset 0 while offset + 8 <=
 * min(head, capacity) and stops at a record whose size is 0. `head` may pass
 * `capacity`; head - (bytes of the records read) is what was dropped, in
 * bytes, and `dropped` the count.
 *
 * All integers are little-endian (every xgpu target is).
 *
 * Thread-safety: plain data definitions. During a dispatch, kernels update
 * `head` and `dropped` atomically and write each record once, from one work
 * item; the host reads the buffer after the dispatch completed.
 *
 * C99; included by <xgpu/kernel.h> (freestanding kernel code) and by drivers
 * and tests that decode the buffer. Includes <stddef.h> and <stdint.h> only.
 */
#ifndef XGPU_KERNEL_PRINT_H_
#define XGPU_KERNEL_PRINT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "XPRT" little-endian: first word of the buffer. */
#define XGPU_PRINT_BUFFER_MAGIC 0x54525058u
/* Bumped on any incompatible layout change of this header's structs. */
#define XGPU_PRINT_BUFFER_VERSION 2u
/* Bytes between the slot holding the buffer's address and the kernarg
 * segment: the slot is the 8 bytes at kernarg address - 8. */
#define XGPU_PRINT_BUFFER_SLOT_OFFSET 8u
/* The slot before it, at kernarg address - 16: the driver's tag of the
 * dispatch, which each record copies (xgpu_print_record_t.dispatch); the
 * AMDGPU driver puts there the command's index in its command buffer. */
#define XGPU_PRINT_DISPATCH_SLOT_OFFSET 16u

/* Binding lengths of a bounds-checked kernel (XGPU_KERNEL_FLAG_BOUNDS_CHECKED,
 * <xgpu/executable_format.h>): the driver writes binding i's length in
 * bytes (the range the dispatch bound to it) to the 8 bytes at kernarg
 * address - XGPU_BOUNDS_LENGTH_SLOT_OFFSET(i), before the print slots. */
#define XGPU_BOUNDS_LENGTH_SLOT_OFFSET(i) (XGPU_PRINT_DISPATCH_SLOT_OFFSET + 8u * ((uint64_t)(i) + 1u))

/* What a record is (xgpu_print_record_t.kind). */
#define XGPU_PRINT_KIND_PRINTF 1u /* xgpu_printf(): value 0 is the format */
#define XGPU_PRINT_KIND_ASSERT 2u /* a failed xgpu_assert(): condition, file, line */
#define XGPU_PRINT_KIND_BOUNDS 3u /* an access a bounds-checked kernel did not make:
                                     U64 binding, I64 offset of its first byte from
                                     the binding's start, U64 bytes accessed, U64
                                     the binding's length, STR file, U64 line (the
                                     file empty and the line 0 without a line table) */
/* A bounds record's values. */
#define XGPU_PRINT_BOUNDS_VALUE_COUNT 6u

/* What a value is (4 bits per value in xgpu_print_record_t.tags). */
#define XGPU_PRINT_TAG_I64 1u /* signed integer, sign-extended to 64 bits */
#define XGPU_PRINT_TAG_U64 2u /* unsigned integer, zero-extended (also _Bool) */
#define XGPU_PRINT_TAG_F64 3u /* the bits of a double (floats promoted) */
#define XGPU_PRINT_TAG_STR 4u /* a string: the value is its device address
                                 (informational); its bytes follow the values */
#define XGPU_PRINT_TAG_PTR 5u /* a pointer (its address) */
/* Bits per value in `tags`; value i's tag is (tags >> (4 * i)) & 0xf. */
#define XGPU_PRINT_TAG_BITS 4u
#define XGPU_PRINT_TAG_MASK 0xfu

/* Most values in one record, the printf format included. */
#define XGPU_PRINT_MAX_VALUES 16u
/* Most bytes of one string in a record, its NUL included: a longer string
 * is cut to XGPU_PRINT_MAX_STRING - 1 characters and a NUL. */
#define XGPU_PRINT_MAX_STRING 256u
/* Alignment and size granule of every record (bytes). */
#define XGPU_PRINT_RECORD_ALIGNMENT 8u
/* An assert record's values: STR condition text, STR file, U64 line. */
#define XGPU_PRINT_ASSERT_VALUE_COUNT 3u

/* At the start of the buffer the driver provides. The driver fills magic,
 * version and capacity and zeroes the rest before the dispatch. */
typedef struct xgpu_print_buffer_header {
  uint32_t magic;       /* XGPU_PRINT_BUFFER_MAGIC */
  uint32_t version;     /* XGPU_PRINT_BUFFER_VERSION */
  uint64_t capacity;    /* bytes of the record area after this header */
  uint64_t head;        /* bytes reserved by records so far (kernels' atomic
                           fetch-add; may pass capacity) */
  uint64_t dropped;     /* records that did not fit (kernels' atomic add) */
  uint64_t reserved[4]; /* zero */
} xgpu_print_buffer_header_t;

/* One record, 8-byte aligned in the record area, followed by
 *   uint64_t values[count];
 *   for each value tagged STR, in order: its bytes and a NUL (at most
 *     XGPU_PRINT_MAX_STRING bytes each, longer strings cut);
 *   zero padding to a multiple of XGPU_PRINT_RECORD_ALIGNMENT. */
typedef struct xgpu_print_record {
  uint32_t size;            /* bytes of the whole record, a multiple of 8;
                               0 marks the end of the records */
  uint16_t kind;            /* XGPU_PRINT_KIND_* */
  uint16_t count;           /* values after this header, 1..XGPU_PRINT_MAX_VALUES
                               (printf: the format is value 0) */
  uint32_t workgroup_id[3]; /* the writing work item's workgroup id */
  uint32_t local_id[3];     /* its id in the workgroup */
  uint64_t tags;            /* XGPU_PRINT_TAG_* of value i at bits 4i..4i+3 */
  uint64_t dispatch;        /* the dispatch's tag (the slot at kernarg
                               address - XGPU_PRINT_DISPATCH_SLOT_OFFSET) */
} xgpu_print_record_t;

#if defined(__cplusplus)
#define XGPU_PRINT_STATIC_ASSERT_(e, m) static_assert(e, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define XGPU_PRINT_STATIC_ASSERT_(e, m) _Static_assert(e, m)
#else
#define XGPU_PRINT_STATIC_ASSERT_CAT2_(a, b) a##b
#define XGPU_PRINT_STATIC_ASSERT_CAT_(a, b) XGPU_PRINT_STATIC_ASSERT_CAT2_(a, b)
#define XGPU_PRINT_STATIC_ASSERT_(e, m) \
  typedef char XGPU_PRINT_STATIC_ASSERT_CAT_(xgpu_print_assert_, __LINE__)[(e) ? 1 : -1]
#endif

XGPU_PRINT_STATIC_ASSERT_(sizeof(xgpu_print_buffer_header_t) == 64, "xgpu print buffer header layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_buffer_header_t, version) == 4, "xgpu print buffer header layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_buffer_header_t, capacity) == 8, "xgpu print buffer header layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_buffer_header_t, head) == 16, "xgpu print buffer header layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_buffer_header_t, dropped) == 24, "xgpu print buffer header layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_buffer_header_t, reserved) == 32, "xgpu print buffer header layout");
XGPU_PRINT_STATIC_ASSERT_(sizeof(xgpu_print_record_t) == 48, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_record_t, kind) == 4, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_record_t, count) == 6, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_record_t, workgroup_id) == 8, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_record_t, local_id) == 20, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_record_t, tags) == 32, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(offsetof(xgpu_print_record_t, dispatch) == 40, "xgpu print record layout");
XGPU_PRINT_STATIC_ASSERT_(sizeof(xgpu_print_buffer_header_t) % XGPU_PRINT_RECORD_ALIGNMENT == 0,
                          "the record area starts 8-byte aligned");
XGPU_PRINT_STATIC_ASSERT_(sizeof(xgpu_print_record_t) % XGPU_PRINT_RECORD_ALIGNMENT == 0,
                          "a record's values start 8-byte aligned");
XGPU_PRINT_STATIC_ASSERT_(XGPU_PRINT_MAX_VALUES * XGPU_PRINT_TAG_BITS <= 64, "every value's tag fits in `tags`");

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_KERNEL_PRINT_H_ */
