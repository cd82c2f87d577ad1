/*
 * xgpu executable file format: one file holding the code objects of one set
 * of kernels for every target, keyed by HSA ISA name. spec/executable-format.md
 * is the reference; these structs are its layout.
 *
 *   offset 0                      xgpu_executable_header_t
 *   entry_table_offset            entry_count x xgpu_executable_entry_t
 *   code_object_offset (each)     code object bytes (ELF), aligned to
 *                                 XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT
 *
 * All integers are little-endian. Every reserved field is zero. Readers must
 * bounds-check every offset and size (executable/ does).
 *
 * Also here: the kernel layout records that code objects carry in their
 * XGPU_KERNEL_LAYOUT_SECTION (written by <xgpu/kernel.h>, read by
 * executable/), and the kernel flags records in the same section (written
 * by the build's pass plugin, tools/xgpu-wiloop).
 *
 * Thread-safety: plain data definitions, no state.
 *
 * C99; included by the ICD, the tools, tests and <xgpu/kernel.h> (so by
 * freestanding kernel code). Includes <stddef.h> and <stdint.h> only.
 */
#ifndef XGPU_EXECUTABLE_FORMAT_H_
#define XGPU_EXECUTABLE_FORMAT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* First 8 bytes of every file: "XGPUEXE" and a NUL. */
#define XGPU_EXECUTABLE_MAGIC "XGPUEXE"
#define XGPU_EXECUTABLE_MAGIC_SIZE 8u
/* Bumped on any incompatible layout change. Version 2 added each code
 * object's SHA-256 (code_object_sha256); readers reject version 1 files,
 * which have none. */
#define XGPU_EXECUTABLE_FORMAT_VERSION 2u
/* Bytes of a code object's content hash (SHA-256, FIPS 180-4). */
#define XGPU_EXECUTABLE_CODE_OBJECT_HASH_SIZE 32u
/* Upper bound on the size of an executable file a reader accepts (bytes):
 * 1 GiB. A path naming a larger file is refused before any byte is read. */
#define XGPU_EXECUTABLE_MAX_FILE_SIZE (1ull << 30)
/* File offset alignment of every code object (bytes): lets a loader map
 * code objects straight from the file. */
#define XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT 4096u
/* Bytes of the ISA name field, including the terminating NUL. */
#define XGPU_EXECUTABLE_ISA_NAME_SIZE 64u
/* Upper bound on entries a reader accepts. */
#define XGPU_EXECUTABLE_MAX_ENTRIES 256u

/* What an entry's code object is. */
typedef enum xgpu_executable_entry_kind {
  /* AMDGPU code object: ELF64, EM_AMDGPU, ELFOSABI_AMDGPU_HSA, with an
   * NT_AMDGPU_METADATA note; ISA name "amdgcn-amd-amdhsa--<target-id>". */
  XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU = 1,
  /* Host code object for hsa-cpu: ELF64 x86-64 shared object exporting
   * <xgpu/host_kernel.h> descriptors; ISA name
   * "x86_64-unknown-linux-gnu--<x86-64 level>". */
  XGPU_EXECUTABLE_ENTRY_KIND_HOST = 2,
  /* NVIDIA PTX text for hsa-cuda (no NUL inside; `.target sm_<N>`); ISA
   * name "nvptx64-nvidia-cuda--sm_<N>". Layout and kernel flags records
   * are the bytes of the `.global` arrays whose names end in
   * `_xgpu_layout_` (`<kernel>_xgpu_layout_`, `<kernel>_xgpu_flags_xgpu_layout_`). */
  XGPU_EXECUTABLE_ENTRY_KIND_NVPTX = 3,
} xgpu_executable_entry_kind_t;

/* At offset 0 of the file. */
typedef struct xgpu_executable_header {
  uint8_t magic[8];            /* XGPU_EXECUTABLE_MAGIC including its NUL */
  uint32_t version;            /* XGPU_EXECUTABLE_FORMAT_VERSION */
  uint32_t header_size;        /* bytes of this header: 64 */
  uint32_t entry_size;         /* bytes of one entry: 128 */
  uint32_t entry_count;        /* entries in the table, 1..XGPU_EXECUTABLE_MAX_ENTRIES */
  uint64_t entry_table_offset; /* bytes from the file start to the first
                                  entry; 8-byte aligned */
  uint64_t file_size;          /* bytes of the whole file */
  uint32_t flags;              /* zero (no flags defined) */
  uint32_t reserved[5];        /* zero */
} xgpu_executable_header_t;

/* One code object, keyed by the HSA ISA name of the agents it runs on. */
typedef struct xgpu_executable_entry {
  char isa_name[XGPU_EXECUTABLE_ISA_NAME_SIZE]; /* HSA ISA name, NUL-terminated,
                                                   NUL-padded; unique in the file */
  uint64_t code_object_offset; /* bytes from the file start; multiple of
                                  XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT */
  uint64_t code_object_size;   /* bytes of the code object, > 0 */
  uint32_t kind;               /* xgpu_executable_entry_kind_t */
  uint32_t flags;              /* zero (no flags defined) */
  uint8_t code_object_sha256[XGPU_EXECUTABLE_CODE_OBJECT_HASH_SIZE]; /* SHA-256 of the
                                  code_object_size bytes at code_object_offset;
                                  a reader checks it before using any of them */
  uint32_t reserved[2];        /* zero */
} xgpu_executable_entry_t;

/* ---------------------------------------------------------------------------
 * Kernel layout records, inside code objects.
 *
 * A kernel that declares its layout (XGPU_KERNEL_BINDINGS in <xgpu/kernel.h>)
 * puts one record into the read-only section XGPU_KERNEL_LAYOUT_SECTION of
 * every code object it is built into (AMDGPU and host alike), so that a
 * pipeline can take its binding count and constant size from the kernel.
 * Each record is an xgpu_kernel_layout_record_t followed by the kernel name,
 * NUL-terminated and NUL-padded to a multiple of XGPU_KERNEL_LAYOUT_ALIGNMENT
 * bytes; records are 8-byte aligned and a multiple of 8 bytes long, so the
 * linker concatenates them without gaps and the section is a plain sequence
 * of records (in no particular order). Kernels are included by name, which
 * keeps the record free of pointers: no relocations, the same bytes on every
 * target.
 * ------------------------------------------------------------------------- */

/* Name of the section holding the records (SHT_PROGBITS, SHF_ALLOC, not
 * SHF_WRITE). */
#define XGPU_KERNEL_LAYOUT_SECTION ".xgpu_kernel_layouts"
/* "XGKL" little-endian: first word of every record. A new record layout gets
 * a new magic. */
#define XGPU_KERNEL_LAYOUT_MAGIC 0x4c4b4758u
/* Alignment and size granule of every record (bytes). */
#define XGPU_KERNEL_LAYOUT_ALIGNMENT 8u
/* Bytes of one binding pointer at the start of the kernarg struct. */
#define XGPU_KERNEL_LAYOUT_BINDING_SIZE 8u
/* Upper bound on a record's name field, including the NUL and the padding
 * (bytes); a reader rejects larger records. */
#define XGPU_KERNEL_LAYOUT_MAX_NAME_SIZE 4096u

/* Fixed header of one kernel layout record. */
typedef struct xgpu_kernel_layout_record {
  uint32_t magic;         /* XGPU_KERNEL_LAYOUT_MAGIC */
  uint32_t record_size;   /* bytes of the record: this header plus the name
                             field (name, NUL, NUL padding to a multiple of
                             8, at most XGPU_KERNEL_LAYOUT_MAX_NAME_SIZE) */
  uint32_t binding_count; /* 8-byte binding pointers at the start of the
                             kernarg struct; the rest are constants */
  uint32_t kernarg_size;  /* bytes of the kernel's argument struct
                             (sizeof), equal to the code object's kernarg
                             segment size for the kernel */
  /* followed by: char name[record_size - 16], the kernel's name (symbol
   * without ".kd"), NUL-terminated, NUL-padded */
} xgpu_kernel_layout_record_t;

/* ---------------------------------------------------------------------------
 * Kernel flags records, in the same section.
 *
 * The build's pass plugin (tools/xgpu-wiloop, printing_kernels.cpp) puts one
 * record into XGPU_KERNEL_LAYOUT_SECTION of a code object for each of its
 * kernels that may print (xgpu_printf, xgpu_assert): an
 * xgpu_kernel_flags_record_t followed by the kernel name, with the alignment,
 * size and name rules of the layout records, among which it lies (a reader
 * tells them apart by the magic; on nvptx, which has no sections, it is the
 * array `<kernel>_xgpu_flags_xgpu_layout_`). A kernel without a flags
 * record has no flags. The driver gives a print buffer only to kernels with
 * XGPU_KERNEL_FLAG_PRINTS (<xgpu/kernel_print.h>).
 * ------------------------------------------------------------------------- */

/* "XGKF" little-endian: first word of every flags record. */
#define XGPU_KERNEL_FLAGS_MAGIC 0x464b4758u
/* The kernel may write print records (it reaches xgpu_printf or
 * xgpu_assert, or makes a call the plugin cannot follow): the driver
 * writes the print buffer's address before its kernarg segment. */
#define XGPU_KERNEL_FLAG_PRINTS 0x1u
/* The kernel is the bounds-checked copy of another (GPU-assisted
 * validation, spec/kernels.md "Bounds-checked entries"): named
 * <kernel>XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX, it checks each access through a
 * binding against the binding's length, which the driver writes before the
 * print slots (<xgpu/kernel_print.h>, XGPU_BOUNDS_LENGTH_SLOT_OFFSET), and
 * reports a violation as a print record (XGPU_PRINT_KIND_BOUNDS) instead of
 * making the access. Always with XGPU_KERNEL_FLAG_PRINTS. */
#define XGPU_KERNEL_FLAG_BOUNDS_CHECKED 0x2u
/* Every flag a reader knows; a record with any other bit set is rejected. */
#define XGPU_KERNEL_FLAGS_KNOWN (XGPU_KERNEL_FLAG_PRINTS | XGPU_KERNEL_FLAG_BOUNDS_CHECKED)
/* The name of kernel K's bounds-checked copy: K followed by this. */
#define XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX "__xgpu_checked"

/* Fixed header of one kernel flags record. */
typedef struct xgpu_kernel_flags_record {
  uint32_t magic;       /* XGPU_KERNEL_FLAGS_MAGIC */
  uint32_t record_size; /* bytes of the record: this header plus the name
                           field, as for xgpu_kernel_layout_record_t */
  uint32_t flags;       /* XGPU_KERNEL_FLAG_* */
  uint32_t reserved;    /* zero */
  /* followed by: char name[record_size - 16], the kernel's name (symbol
   * without ".kd"), NUL-terminated, NUL-padded */
} xgpu_kernel_flags_record_t;

/* ---------------------------------------------------------------------------
 * Binding access records, in the same section.
 *
 * The build's pass plugin (tools/xgpu-wiloop, binding_access.cpp) puts one
 * record into XGPU_KERNEL_LAYOUT_SECTION of a code object for each kernel
 * that declares its layout (XGPU_KERNEL_BINDINGS) with at most
 * XGPU_KERNEL_ACCESS_MAX_BINDINGS bindings: how the kernel's code accesses
 * memory through each binding pointer, as four bit masks (bit i: binding
 * i). An xgpu_kernel_access_record_t (48 bytes) followed by the kernel name,
 * with the alignment, size and name rules of the layout records (on nvptx
 * the array `<kernel>_xgpu_access_xgpu_layout_`). A kernel without one: every
 * binding unknown. The driver reports it in XgpuPipelineProperties::
 * bindingAccess; the validation layer finds dispatch hazards with it.
 * ------------------------------------------------------------------------- */

/* "XGKA" little-endian: first word of every binding access record. */
#define XGPU_KERNEL_ACCESS_MAGIC 0x414b4758u
/* Most bindings a record describes (the width of its masks). */
#define XGPU_KERNEL_ACCESS_MAX_BINDINGS 64u

/* Fixed header of one binding access record. */
typedef struct xgpu_kernel_access_record {
  uint32_t magic;         /* XGPU_KERNEL_ACCESS_MAGIC */
  uint32_t record_size;   /* bytes of the record: this header (48) plus the
                             name field, as for xgpu_kernel_layout_record_t */
  uint32_t binding_count; /* the kernel's declared binding count (its layout
                             record's); mask bits from it on are zero */
  uint32_t reserved;      /* zero */
  uint64_t read_mask;     /* the kernel may load through binding i */
  uint64_t write_mask;    /* it may store through it (plain stores, memset
                             and memcpy destinations) */
  uint64_t atomic_mask;   /* it may access it with atomic operations */
  uint64_t unknown_mask;  /* the pointer escapes to code the plugin cannot
                             follow (a call, memory, an integer): any access;
                             the three bits above are set too */
  /* followed by: char name[record_size - 48], the kernel's name, NUL-
   * terminated, NUL-padded to a multiple of 8 */
} xgpu_kernel_access_record_t;

#if defined(__cplusplus)
#define XGPU_EXECUTABLE_STATIC_ASSERT_(e, m) static_assert(e, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define XGPU_EXECUTABLE_STATIC_ASSERT_(e, m) _Static_assert(e, m)
#else
#define XGPU_EXECUTABLE_STATIC_ASSERT_CAT2_(a, b) a##b
#define XGPU_EXECUTABLE_STATIC_ASSERT_CAT_(a, b) \
  XGPU_EXECUTABLE_STATIC_ASSERT_CAT2_(a, b)
#define XGPU_EXECUTABLE_STATIC_ASSERT_(e, m)                                 \
  typedef char XGPU_EXECUTABLE_STATIC_ASSERT_CAT_(xgpu_executable_assert_, \
                                                  __LINE__)[(e) ? 1 : -1]
#endif

XGPU_EXECUTABLE_STATIC_ASSERT_(sizeof(xgpu_executable_header_t) == 64,
                               "xgpu executable header layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(sizeof(xgpu_executable_entry_t) == 128,
                               "xgpu executable entry layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_executable_header_t, entry_table_offset) == 24,
                               "xgpu executable header layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_executable_header_t, file_size) == 32,
                               "xgpu executable header layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_executable_entry_t, code_object_offset) == 64,
                               "xgpu executable entry layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_executable_entry_t, kind) == 80,
                               "xgpu executable entry layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_executable_entry_t, code_object_sha256) == 88,
                               "xgpu executable entry layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_executable_entry_t, reserved) == 120,
                               "xgpu executable entry layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(sizeof(xgpu_kernel_layout_record_t) == 16,
                               "xgpu kernel layout record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_layout_record_t, record_size) == 4,
                               "xgpu kernel layout record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_layout_record_t, binding_count) == 8,
                               "xgpu kernel layout record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_layout_record_t, kernarg_size) == 12,
                               "xgpu kernel layout record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(sizeof(xgpu_kernel_layout_record_t) % XGPU_KERNEL_LAYOUT_ALIGNMENT == 0,
                               "the name field of a kernel layout record starts 8-byte aligned");
XGPU_EXECUTABLE_STATIC_ASSERT_(sizeof(xgpu_kernel_flags_record_t) == sizeof(xgpu_kernel_layout_record_t),
                               "xgpu kernel flags record layout: a header as long as a layout record's");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_flags_record_t, record_size) == 4,
                               "xgpu kernel flags record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_flags_record_t, flags) == 8,
                               "xgpu kernel flags record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_flags_record_t, reserved) == 12,
                               "xgpu kernel flags record layout");

XGPU_EXECUTABLE_STATIC_ASSERT_(sizeof(xgpu_kernel_access_record_t) == 48,
                               "xgpu kernel access record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_access_record_t, binding_count) == 8,
                               "xgpu kernel access record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_access_record_t, read_mask) == 16,
                               "xgpu kernel access record layout");
XGPU_EXECUTABLE_STATIC_ASSERT_(offsetof(xgpu_kernel_access_record_t, unknown_mask) == 40,
                               "xgpu kernel access record layout");

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_EXECUTABLE_FORMAT_H_ */
