/*
 * The device-encoded command format of the AMDGPU ICD
 * (spec/command-buffer-format.md is the prose version of this header).
 *
 * A recorded command buffer is an immutable program in device-visible memory:
 * blocks of commands, each command a plain C struct starting with
 * xgpu_amdgpu_command_header_t, each block terminated by a RETURN or a
 * BRANCH to the next block. Everything that changes per submission is
 * symbolic: buffer references are fat (concrete address, binding-table slot,
 * queue-alloca buffer), AQL packet and kernarg positions are offsets relative
 * to what the submission reserves. One recording can therefore be issued many
 * times, concurrently, each command independently of the others.
 *
 * Also defined here: the kernarg structs of the device library's kernels,
 * shared by the kernels (icd/amdgpu/device/kernels) and the host code that
 * fills them (icd/amdgpu/src).
 *
 * Plain C17 (also valid C++20); includes only <stdint.h>/<stddef.h>.
 * Every layout is fixed by static asserts: the layout is the contract.
 *
 * Thread-safety: not applicable (type definitions only). A recorded program
 * is immutable after xgpuEndCommandBuffer and may be read concurrently.
 */
#ifndef XGPU_AMDGPU_COMMANDS_H_
#define XGPU_AMDGPU_COMMANDS_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
#define XGPU_AMDGPU_STATIC_ASSERT(e, m) static_assert(e, m)
#else
#define XGPU_AMDGPU_STATIC_ASSERT(e, m) _Static_assert(e, m)
#endif

/* Marks a pointer (or 64-bit address) that may point into device memory:
 * dereferencing it from the host may be slow (or impossible on a discrete
 * GPU's coarse-grained memory). No effect on code generation. */
#define XGPU_AMDGPU_DEVICE_PTR

/* ---------------------------------------------------------------------------
 * AQL constants used by the command format (mirroring hsa.h so that device
 * code, which cannot include hsa.h, uses the same values; the host build
 * checks them against hsa.h in issue.cpp).
 * ------------------------------------------------------------------------- */

#define XGPU_AMDGPU_AQL_PACKET_SIZE 64u            /* bytes per AQL packet */
#define XGPU_AMDGPU_AQL_PACKET_TYPE_INVALID 1u     /* HSA_PACKET_TYPE_INVALID */
#define XGPU_AMDGPU_AQL_PACKET_TYPE_KERNEL_DISPATCH 2u /* HSA_PACKET_TYPE_KERNEL_DISPATCH */
#define XGPU_AMDGPU_AQL_PACKET_TYPE_BARRIER_AND 3u /* HSA_PACKET_TYPE_BARRIER_AND */
/* A packet type no HSA packet processor accepts: publishing it makes the
 * queue fail with HSA_STATUS_ERROR_INVALID_PACKET_FORMAT. Written for an
 * indirect dispatch whose counts exceed the device limits (by issue for
 * STATIC, by the patch kernel for DYNAMIC); its kernarg_address field holds
 * the address of an xgpu_amdgpu_indirect_error_t that says why. */
#define XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR 0xFFu

/* ---------------------------------------------------------------------------
 * Fat buffer references
 * ------------------------------------------------------------------------- */

typedef enum xgpu_amdgpu_buffer_ref_kind_e {
  /* `value` is the device address of the buffer's first byte. */
  XGPU_AMDGPU_BUFFER_REF_KIND_CONCRETE = 0,
  /* Binding-table slot `slot` of the submission; `value` is 0. */
  XGPU_AMDGPU_BUFFER_REF_KIND_SLOT = 1,
  /* A queue-alloca buffer: `value` is the HOST address of the runtime's
   * BufferInfo, whose device_address is read (acquire) when the submission
   * is issued. Only host-side issue resolves this kind. */
  XGPU_AMDGPU_BUFFER_REF_KIND_ALLOCA = 2,
  /* Recording only: `value` is an offset into the command buffer's read-only
   * data; rewritten to CONCRETE at end of recording (never in a program). */
  XGPU_AMDGPU_BUFFER_REF_KIND_RODATA = 3,
} xgpu_amdgpu_buffer_ref_kind_t;

/* `slot` value of every kind but SLOT. */
#define XGPU_AMDGPU_NO_SLOT UINT32_MAX

/* `length` value: up to the end of the buffer or binding range, resolved
 * when the reference is resolved. */
#define XGPU_AMDGPU_WHOLE_LENGTH UINT64_MAX

typedef struct xgpu_amdgpu_buffer_ref {
  uint32_t kind;    /* xgpu_amdgpu_buffer_ref_kind_t */
  uint32_t slot;    /* binding-table slot (kind SLOT), else XGPU_AMDGPU_NO_SLOT */
  uint64_t value;   /* base address (CONCRETE) or BufferInfo host address (ALLOCA) */
  uint64_t offset;  /* bytes from the base (or from the slot's binding offset) */
  uint64_t length;  /* bytes, or XGPU_AMDGPU_WHOLE_LENGTH */
} xgpu_amdgpu_buffer_ref_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_buffer_ref_t) == 32, "buffer ref size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_buffer_ref_t, value) == 8, "buffer ref value");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_buffer_ref_t, offset) == 16, "buffer ref offset");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_buffer_ref_t, length) == 24, "buffer ref length");

/* ---------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------- */

typedef enum xgpu_amdgpu_command_type_e {
  XGPU_AMDGPU_COMMAND_RETURN = 0,            /* end of the program */
  XGPU_AMDGPU_COMMAND_BRANCH = 1,            /* continue in another block */
  XGPU_AMDGPU_COMMAND_DISPATCH = 2,          /* xgpuCmdDispatch: one kernel-dispatch packet */
  XGPU_AMDGPU_COMMAND_DISPATCH_INDIRECT = 3, /* xgpuCmdDispatchIndirect: 1 (STATIC) or 2 (DYNAMIC) packets */
  XGPU_AMDGPU_COMMAND_FILL = 4,              /* xgpuCmdFillBuffer: a device-library dispatch */
  XGPU_AMDGPU_COMMAND_COPY = 5,              /* xgpuCmdCopyBuffer: a device-library dispatch */
  XGPU_AMDGPU_COMMAND_UPDATE = 6,            /* xgpuCmdUpdateBuffer: a copy from the read-only data */
  XGPU_AMDGPU_COMMAND_TIMESTAMP = 7,         /* xgpuCmdWriteTimestamp: a device-library dispatch */
  XGPU_AMDGPU_COMMAND_BARRIER = 8,           /* xgpuCmdPipelineBarrier: no packet (next packet's barrier bit) */
  XGPU_AMDGPU_COMMAND_DEBUG_LABEL = 9,       /* xgpuCmd{Begin,End,Insert}DebugLabel: no packet */
  XGPU_AMDGPU_COMMAND_TYPE_COUNT = 10,
} xgpu_amdgpu_command_type_t;

/* xgpu_amdgpu_command_header_t::flags */
typedef enum xgpu_amdgpu_command_flag_bits_e {
  /* The command's first packet waits for every earlier packet of the
   * submission (AQL barrier bit, agent-scope acquire): a barrier preceded it. */
  XGPU_AMDGPU_COMMAND_FLAG_BARRIER = 0x1,
  /* The command's kernargs were built once at end of recording
   * (xgpu_amdgpu_dispatch_t::prebuilt_kernarg_address); issue copies nothing. */
  XGPU_AMDGPU_COMMAND_FLAG_PREBUILT_KERNARGS = 0x2,
  /* DISPATCH_INDIRECT: counts are read on the host at issue (one packet). */
  XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_STATIC = 0x4,
  /* DISPATCH_INDIRECT: a patch kernel completes the dispatch packet on the
   * device (two packets). */
  XGPU_AMDGPU_COMMAND_FLAG_INDIRECT_DYNAMIC = 0x8,
  /* The kernel prints (xgpu_printf / xgpu_assert, <xgpu/kernel_print.h>): its
   * kernargs are per-submission, and issue stores the submission's print
   * buffer address in the 8 bytes before them. */
  XGPU_AMDGPU_COMMAND_FLAG_PRINTS = 0x10,
  /* With PRINTS: the kernel is a bounds-checked copy
   * (XGPU_KERNEL_FLAG_BOUNDS_CHECKED): issue also stores each binding's
   * length before the print slots (XGPU_BOUNDS_LENGTH_SLOT_OFFSET,
   * <xgpu/kernel_print.h>). */
  XGPU_AMDGPU_COMMAND_FLAG_BOUNDS_CHECKED = 0x20,
} xgpu_amdgpu_command_flag_bits_t;

/* Every command starts with this header. Commands are 8-byte aligned and
 * never straddle blocks. */
typedef struct xgpu_amdgpu_command_header {
  uint8_t type;             /* xgpu_amdgpu_command_type_t */
  uint8_t flags;            /* xgpu_amdgpu_command_flag_bits_t */
  uint16_t size;            /* bytes of the whole command, header included; multiple of 8 */
  uint32_t index;           /* the command's index in recording order (messages, packet log) */
  uint32_t packet_offset;   /* first AQL packet, relative to the submission's first packet */
  uint32_t kernarg_offset;  /* first kernarg byte, relative to the submission's kernarg base */
} xgpu_amdgpu_command_header_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_command_header_t) == 16, "command header size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_command_header_t, packet_offset) == 8, "packet_offset");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_command_header_t, kernarg_offset) == 12, "kernarg_offset");

/* RETURN / BRANCH. */
typedef struct xgpu_amdgpu_command_terminator {
  xgpu_amdgpu_command_header_t header;  /* type RETURN or BRANCH */
  uint64_t XGPU_AMDGPU_DEVICE_PTR next_block; /* BRANCH: address of the next block; RETURN: 0 */
} xgpu_amdgpu_command_terminator_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_command_terminator_t) == 24, "terminator size");

/* xgpu_amdgpu_kernarg_patch_t::kind */
typedef enum xgpu_amdgpu_kernarg_patch_kind_e {
  /* Store the resolved device address (uint64_t). */
  XGPU_AMDGPU_KERNARG_PATCH_ADDRESS = 0,
  /* Store the resolved length in bytes (uint64_t). */
  XGPU_AMDGPU_KERNARG_PATCH_LENGTH = 1,
} xgpu_amdgpu_kernarg_patch_kind_t;

/* One value of a kernarg struct that comes from a buffer reference. */
typedef struct xgpu_amdgpu_kernarg_patch {
  uint32_t kernarg_offset;        /* byte offset of the uint64_t in the kernarg struct */
  uint16_t kind;                  /* xgpu_amdgpu_kernarg_patch_kind_t */
  uint16_t alignment;             /* required alignment of the resolved address (ADDRESS) or
                                     length (LENGTH), bytes; 1 = none */
  xgpu_amdgpu_buffer_ref_t ref;   /* the reference to resolve */
} xgpu_amdgpu_kernarg_patch_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_kernarg_patch_t) == 40, "kernarg patch size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_kernarg_patch_t, ref) == 8, "kernarg patch ref");

/* The kernel-dispatch part shared by DISPATCH, DISPATCH_INDIRECT, FILL,
 * COPY, UPDATE and TIMESTAMP: everything the AQL packet body needs. */
typedef struct xgpu_amdgpu_dispatch {
  uint64_t kernel_object;           /* AQL kernel_object */
  uint64_t XGPU_AMDGPU_DEVICE_PTR prebuilt_kernarg_address; /* kernargs built at end of recording, or 0 */
  uint64_t XGPU_AMDGPU_DEVICE_PTR kernarg_template; /* address of the kernarg bytes (read-only data; for
                                                       PREBUILT_KERNARGS the prebuilt kernargs themselves) */
  uint16_t workgroup_size[3];       /* work items per workgroup, x y z */
  uint16_t dimensions;              /* AQL setup dimensions: 1, 2 or 3 */
  uint32_t workgroup_count[3];      /* workgroups per dimension (DISPATCH_INDIRECT: unused) */
  uint32_t private_segment_size;    /* scratch bytes per work item */
  uint32_t group_segment_size;      /* group bytes per workgroup: static + dynamic */
  uint32_t kernarg_size;            /* bytes of the kernarg struct */
  uint32_t kernarg_alignment;       /* alignment of the kernarg struct, bytes (power of two) */
  uint16_t patch_count;             /* xgpu_amdgpu_kernarg_patch_t entries after the command */
  uint16_t reserved0;               /* 0 */
  uint64_t debug_name;              /* host address of the kernel's NUL-terminated name (interned once per
                                       kernel: the pipeline's or the device library's) */
} xgpu_amdgpu_dispatch_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_dispatch_t) == 72, "dispatch size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_dispatch_t, workgroup_size) == 24, "dispatch workgroup_size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_dispatch_t, workgroup_count) == 32, "dispatch workgroup_count");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_dispatch_t, kernarg_size) == 52, "dispatch kernarg_size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_dispatch_t, patch_count) == 60, "dispatch patch_count");

/* DISPATCH, FILL, COPY, UPDATE, TIMESTAMP: one kernel-dispatch packet.
 * Followed by dispatch.patch_count xgpu_amdgpu_kernarg_patch_t. */
typedef struct xgpu_amdgpu_command_dispatch {
  xgpu_amdgpu_command_header_t header;  /* type DISPATCH/FILL/COPY/UPDATE/TIMESTAMP */
  xgpu_amdgpu_dispatch_t dispatch;      /* the packet body */
} xgpu_amdgpu_command_dispatch_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_command_dispatch_t) == 88, "dispatch command size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_command_dispatch_t, dispatch) == 16, "dispatch command body");

/* DISPATCH_INDIRECT. STATIC: one packet at header.packet_offset, counts read
 * on the host at issue. DYNAMIC: the patch kernel's packet at packet_offset
 * (kernargs at header.kernarg_offset + extra_kernarg_offset), the dispatch
 * packet at packet_offset + 1 written with an INVALID header that the patch
 * kernel publishes. Both reserve an xgpu_amdgpu_indirect_error_t per
 * submission for counts above the limits. Followed by dispatch.patch_count
 * kernarg patches. */
typedef struct xgpu_amdgpu_command_dispatch_indirect {
  xgpu_amdgpu_command_header_t header;  /* type DISPATCH_INDIRECT */
  xgpu_amdgpu_dispatch_t dispatch;      /* the dispatch (workgroup_count unused) */
  xgpu_amdgpu_buffer_ref_t counts;      /* uint32_t workgroup_count[3] */
  uint64_t patch_kernel_object;         /* DYNAMIC: the device library's patch kernel */
  uint32_t extra_kernarg_offset;        /* bytes after header.kernarg_offset of the per-submission
                                           extra: DYNAMIC: the patch kernargs, then the error
                                           record; STATIC: the error record */
  uint32_t patch_private_segment_size;  /* DYNAMIC: patch kernel scratch bytes per work item */
  uint32_t patch_group_segment_size;    /* DYNAMIC: patch kernel group bytes */
  uint32_t max_workgroup_count[3];      /* largest count per dimension (device limit and 32-bit grid) */
} xgpu_amdgpu_command_dispatch_indirect_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_command_dispatch_indirect_t) == 152,
                          "dispatch indirect command size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_command_dispatch_indirect_t, counts) == 88,
                          "dispatch indirect counts");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_command_dispatch_indirect_t, patch_kernel_object) == 120,
                          "dispatch indirect patch kernel");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_command_dispatch_indirect_t, extra_kernarg_offset) == 128,
                          "dispatch indirect extra kernargs");

/* BARRIER: no packet; documents the dependency. The next packet-producing
 * command carries XGPU_AMDGPU_COMMAND_FLAG_BARRIER. */
typedef struct xgpu_amdgpu_command_barrier {
  xgpu_amdgpu_command_header_t header;  /* type BARRIER */
  uint32_t src_stage_mask;              /* XgpuPipelineStageFlags */
  uint32_t dst_stage_mask;              /* XgpuPipelineStageFlags */
} xgpu_amdgpu_command_barrier_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_command_barrier_t) == 24, "barrier command size");

/* xgpu_amdgpu_command_debug_label_t::op */
typedef enum xgpu_amdgpu_debug_label_op_e {
  XGPU_AMDGPU_DEBUG_LABEL_BEGIN = 0,   /* xgpuCmdBeginDebugLabel */
  XGPU_AMDGPU_DEBUG_LABEL_END = 1,     /* xgpuCmdEndDebugLabel */
  XGPU_AMDGPU_DEBUG_LABEL_INSERT = 2,  /* xgpuCmdInsertDebugLabel */
} xgpu_amdgpu_debug_label_op_t;

/* DEBUG_LABEL: no packet; kept for the packet log and messages. */
typedef struct xgpu_amdgpu_command_debug_label {
  xgpu_amdgpu_command_header_t header;  /* type DEBUG_LABEL */
  uint32_t op;                          /* xgpu_amdgpu_debug_label_op_t */
  uint32_t reserved;                    /* 0 */
  uint64_t name;                        /* address of the NUL-terminated label in the read-only data (END: 0) */
  float color[4];                       /* RGBA */
} xgpu_amdgpu_command_debug_label_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_command_debug_label_t) == 48, "debug label command size");

/* ---------------------------------------------------------------------------
 * Device-library kernel arguments (binding pointers first, then constants)
 * ------------------------------------------------------------------------- */

/* xgpu_amdgpu_fill: dst[0, length) = pattern repeated from dst[0]. */
typedef struct xgpu_amdgpu_fill_args {
  uint8_t* dst;          /* binding: first byte to fill */
  uint64_t length;       /* bytes; a multiple of pattern_size */
  uint32_t pattern;      /* pattern bytes in memory order, replicated to 4 bytes */
  uint32_t pattern_size; /* 1, 2 or 4 */
} xgpu_amdgpu_fill_args_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_fill_args_t) == 24, "fill args size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_fill_args_t, length) == 8, "fill args length");

/* xgpu_amdgpu_copy: dst[0, length) = src[0, length); any alignment. */
typedef struct xgpu_amdgpu_copy_args {
  const uint8_t* src;    /* binding: first source byte */
  uint8_t* dst;          /* binding: first destination byte */
  uint64_t length;       /* bytes */
} xgpu_amdgpu_copy_args_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_copy_args_t) == 24, "copy args size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_copy_args_t, length) == 16, "copy args length");

/* xgpu_amdgpu_timestamp: *dst = the device's timestamp counter. */
typedef struct xgpu_amdgpu_timestamp_args {
  uint64_t* dst;         /* binding: 8-byte aligned destination */
} xgpu_amdgpu_timestamp_args_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_timestamp_args_t) == 8, "timestamp args size");

/* xgpu_amdgpu_indirect_error_t::magic of a complete record. */
#define XGPU_AMDGPU_INDIRECT_ERROR_MAGIC 0x4C494D58u /* "XMIL" */

/* Why an indirect dispatch failed the queue: counts above the limits. Lives
 * in the kernargs the submission reserves (the command's extra kernarg
 * bytes), so it is device-visible and survives until the submission ends.
 * Issue writes every field but `counts` and `magic` (STATIC: all of them,
 * only when it finds the counts over the limits). Whoever reads the counts
 * (the patch kernel for DYNAMIC) writes `counts`, then `magic`, then the
 * packet's kernarg_address = this record, and publishes the packet with type
 * XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR. When HSA reports the queue error,
 * the ICD finds that packet in the ring and names the command from here. */
typedef struct xgpu_amdgpu_indirect_error {
  uint32_t magic;                   /* XGPU_AMDGPU_INDIRECT_ERROR_MAGIC once complete, else 0 */
  uint32_t command_index;           /* the command's recording index */
  uint32_t counts[3];               /* the workgroup counts read, x y z */
  uint32_t max_workgroup_count[3];  /* the largest accepted count per dimension */
  uint32_t command_flags;           /* the command's header flags (INDIRECT_STATIC or INDIRECT_DYNAMIC) */
  uint32_t reserved;                /* 0 */
  uint64_t XGPU_AMDGPU_DEVICE_PTR kernel_name; /* address of the kernel's NUL-terminated name
                                                  (the program's read-only data) */
  uint64_t command_buffer;          /* host address of the ICD's command buffer (messages only;
                                       never dereferenced by the device) */
} xgpu_amdgpu_indirect_error_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_indirect_error_t) == 56, "indirect error size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_indirect_error_t, counts) == 8, "indirect error counts");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_indirect_error_t, kernel_name) == 40, "indirect error name");

/* xgpu_amdgpu_indirect_patch (one work item): reads the counts, completes
 * the dispatch packet at `packet` (its body already written by issue, grid
 * sizes excepted) and publishes its first 32 bits last, with a system-scope
 * release store:
 *   any count 0          -> no_op_word (a BARRIER_AND packet, no dependencies)
 *   any count > max      -> fills `error`, then limit_error_word (an invalid
 *                           packet type: the queue fails with
 *                           INVALID_PACKET_FORMAT) with kernarg_address = error
 *   otherwise            -> dispatch_word with grid = count * workgroup size */
typedef struct xgpu_amdgpu_indirect_patch_args {
  const uint32_t* counts;        /* binding: uint32_t workgroup_count[3] */
  uint8_t* packet;               /* binding: the dispatch packet's ring slot (64 bytes) */
  uint32_t workgroup_size[3];    /* work items per workgroup of the dispatch, x y z */
  uint32_t max_workgroup_count[3]; /* largest accepted count per dimension */
  uint32_t dispatch_word;        /* header | setup << 16 of the dispatch packet */
  uint32_t no_op_word;           /* header | 0 << 16 of a BARRIER_AND packet */
  uint32_t limit_error_word;     /* header with XGPU_AMDGPU_AQL_PACKET_TYPE_LIMIT_ERROR */
  uint32_t reserved;             /* 0 */
  xgpu_amdgpu_indirect_error_t* error; /* the command's error record (after these arguments) */
} xgpu_amdgpu_indirect_patch_args_t;
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_indirect_patch_args_t) == 64, "patch args size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_indirect_patch_args_t, workgroup_size) == 16,
                          "patch args workgroup_size");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_indirect_patch_args_t, dispatch_word) == 40,
                          "patch args dispatch_word");
XGPU_AMDGPU_STATIC_ASSERT(offsetof(xgpu_amdgpu_indirect_patch_args_t, error) == 56, "patch args error");
XGPU_AMDGPU_STATIC_ASSERT(sizeof(xgpu_amdgpu_indirect_patch_args_t) % 8 == 0,
                          "the error record follows the patch args 8-byte aligned");

/* Offsets inside an AQL packet that the patch kernel writes (hsa.h layout of
 * hsa_kernel_dispatch_packet_t / hsa_barrier_and_packet_t; issue.cpp checks
 * them against hsa.h). */
#define XGPU_AMDGPU_AQL_DISPATCH_GRID_SIZE_OFFSET 12u   /* uint32_t grid_size_x, y, z */
#define XGPU_AMDGPU_AQL_DISPATCH_KERNARG_ADDRESS_OFFSET 40u /* uint64_t kernarg_address */
#define XGPU_AMDGPU_AQL_BARRIER_DEP_SIGNAL_OFFSET 8u    /* uint64_t dep_signal[5] */
#define XGPU_AMDGPU_AQL_BARRIER_DEP_SIGNAL_COUNT 5u     /* dep_signal entries */

/* Device-library kernel names (symbols in the embedded executable). */
#define XGPU_AMDGPU_KERNEL_FILL "xgpu_amdgpu_fill"
#define XGPU_AMDGPU_KERNEL_COPY "xgpu_amdgpu_copy"
#define XGPU_AMDGPU_KERNEL_TIMESTAMP "xgpu_amdgpu_timestamp"
#define XGPU_AMDGPU_KERNEL_INDIRECT_PATCH "xgpu_amdgpu_indirect_patch"

/* Workgroup size of the fill and copy kernels, work items. */
#define XGPU_AMDGPU_TRANSFER_WORKGROUP_SIZE 64u
/* Bytes each transfer work item moves per step of its grid-stride loop. */
#define XGPU_AMDGPU_TRANSFER_UNIT 16u
/* Largest workgroup count of a fill/copy (larger ranges loop). */
#define XGPU_AMDGPU_TRANSFER_MAX_WORKGROUPS 1024u

#endif /* XGPU_AMDGPU_COMMANDS_H_ */
