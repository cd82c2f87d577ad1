// xgpu-wiloop: what the pass shares with <xgpu/kernel.h> (the names of the
// work-item function and its markers, and of the function that writes print
// records), <xgpu/host_kernel.h> (the host kernel descriptor and workgroup
// record it reads and writes) and <xgpu/executable_format.h> (the kernel
// flags records it writes). The layout is checked against host_kernel.h
// when the plugin is built.
//
// Thread-safety: constants only.
#pragma once

#include <cstddef>
#include <cstdint>

#include <xgpu/executable_format.h>
#include <xgpu/host_kernel.h>

#include "llvm/ADT/StringRef.h"

namespace xgpu_wiloop {

// Names <xgpu/kernel.h> emits under XGPU_KERNEL_WORKITEM_LOOPS.
constexpr llvm::StringLiteral kItemFunctionSuffix = "_xgpu_wi_";     // K_xgpu_wi_: one work item's code
constexpr llvm::StringLiteral kLocalIdMarker = "xgpu_wiloop_local_id_";  // uint32_t (uint32_t dimension)
constexpr llvm::StringLiteral kBarrierMarker = "xgpu_wiloop_barrier_";   // void (void): xgpu_barrier()
constexpr llvm::StringLiteral kDescriptorSuffix = XGPU_HOST_KERNEL_DESCRIPTOR_SUFFIX;  // "K.kd"
// The prefix of every marker above: declarations the pass replaces, never calls that stay.
constexpr llvm::StringLiteral kMarkerPrefix = "xgpu_wiloop_";
// <xgpu/kernel.h>'s one writer of print records (xgpu_printf, xgpu_assert):
// void (ptr request), noinline, under this assembler name on every target.
// LLVM's copies of it keep the name with a suffix ("xgpu_print_emit_.specialized.1").
constexpr llvm::StringLiteral kPrintEmitFunction = "xgpu_print_emit_";
// The kernel flags records (printing_kernels.cpp) and where they go: the
// layout records' section on ELF targets; on nvptx, which has no sections,
// an array named K + kFlagsRecordPtxSuffix, which the executable reader
// finds by its "_xgpu_layout_" ending, like <xgpu/kernel.h>'s layout arrays.
constexpr llvm::StringLiteral kLayoutSection = XGPU_KERNEL_LAYOUT_SECTION;
constexpr llvm::StringLiteral kFlagsRecordSuffix = "_xgpu_flags_";
constexpr llvm::StringLiteral kFlagsRecordPtxSuffix = "_xgpu_flags_xgpu_layout_";
constexpr uint32_t kFlagsRecordMagic = XGPU_KERNEL_FLAGS_MAGIC;
constexpr uint32_t kKernelFlagPrints = XGPU_KERNEL_FLAG_PRINTS;
constexpr uint32_t kKernelFlagBoundsChecked = XGPU_KERNEL_FLAG_BOUNDS_CHECKED;
// A bounds-checked copy's name: the kernel's, then this.
constexpr llvm::StringLiteral kBoundsCheckedSuffix = XGPU_KERNEL_BOUNDS_CHECKED_SUFFIX;
// <xgpu/kernel.h>'s writer of bounds records (XGPU_KERNEL_BOUNDS_CHECKS):
// void (u64 kernarg, ptr workgroup, ptr local_id, u32 binding, u64 offset,
// u64 size, u64 length, ptr file, u32 line), never inlined.
constexpr llvm::StringLiteral kBoundsReportFunction = "xgpu_bounds_report_";
constexpr unsigned kBoundsReportParams = 9;
constexpr unsigned kBoundsReportFileParam = 7;
constexpr uint64_t kFlagsRecordAlignment = XGPU_KERNEL_LAYOUT_ALIGNMENT;
constexpr uint64_t kFlagsRecordHeaderBytes = sizeof(xgpu_kernel_flags_record_t);
constexpr uint64_t kFlagsRecordMaxNameBytes = XGPU_KERNEL_LAYOUT_MAX_NAME_SIZE;
// The binding access records (binding_access.cpp): the same section, or on
// nvptx an array named K + kAccessRecordPtxSuffix.
constexpr llvm::StringLiteral kAccessRecordSuffix = "_xgpu_access_";
constexpr llvm::StringLiteral kAccessRecordPtxSuffix = "_xgpu_access_xgpu_layout_";
// <xgpu/kernel.h>'s XGPU_KERNEL_BINDING_ACCESS: K + this, one byte per
// binding (XGPU_KERNEL_ACCESS_READ 1, _WRITE 2, _ATOMIC 4).
constexpr llvm::StringLiteral kAccessDeclarationSuffix = "_xgpu_access_decl_";
constexpr uint32_t kAccessRecordMagic = XGPU_KERNEL_ACCESS_MAGIC;
constexpr uint32_t kAccessRecordMaxBindings = XGPU_KERNEL_ACCESS_MAX_BINDINGS;
constexpr uint64_t kAccessRecordHeaderBytes = sizeof(xgpu_kernel_access_record_t);
constexpr uint32_t kLayoutRecordMagic = XGPU_KERNEL_LAYOUT_MAGIC;
constexpr uint64_t kBindingBytes = XGPU_KERNEL_LAYOUT_BINDING_SIZE;
// The section of the paths the pass took, per kernel.
constexpr llvm::StringLiteral kPathsSection = XGPU_HOST_WILOOP_PATHS_SECTION;
// The pass's name in remarks (-Rpass=xgpu-wiloop).
constexpr const char* kRemarkPass = "xgpu-wiloop";
// <xgpu/kernel.h>'s mark on its item loops (XGPU_KERNEL_ITEM_LOOP_): a
// software-pipelining hint with this value, which x86-64 never reads.
constexpr llvm::StringLiteral kItemLoopMarker = "llvm.loop.pipeline.initiationinterval";
constexpr uint64_t kItemLoopMarkerValue = 30823;

// xgpu_host_kernel_descriptor_t fields, as struct element indices of the
// descriptor's initializer (the byte offset of each is checked below).
constexpr unsigned kDescriptorRunWorkgroupField = 3;
constexpr unsigned kDescriptorKernargSizeField = 5;
constexpr unsigned kDescriptorKernargAlignmentField = 6;
constexpr unsigned kDescriptorGroupSegmentSizeField = 7;
constexpr unsigned kDescriptorRequiredSizeField = 9;
constexpr unsigned kDescriptorFlagsField = 10;
// Byte offset of each descriptor element, by index.
constexpr size_t kDescriptorFieldOffsets[] = {0, 4, 8, 16, 24, 32, 36, 40, 44, 48, 60};
constexpr uint64_t kFlagUsesBarriers = XGPU_HOST_KERNEL_FLAG_USES_BARRIERS;
constexpr uint64_t kFlagWorkitemLoops = XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS;
constexpr uint64_t kFlagWorkgroupRuns = XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS;

// xgpu_host_workgroup_t byte offsets.
constexpr uint64_t kWorkgroupIdOffset = offsetof(xgpu_host_workgroup_t, workgroup_id);        // uint32_t[3]
constexpr uint64_t kWorkgroupSizeOffset = offsetof(xgpu_host_workgroup_t, workgroup_size);    // uint32_t[3]
constexpr uint64_t kWorkgroupGridSizeOffset = offsetof(xgpu_host_workgroup_t, grid_size);     // uint32_t[3]
constexpr uint64_t kWorkgroupItemCountOffset = offsetof(xgpu_host_workgroup_t, item_count);   // uint32_t[3]
constexpr uint64_t kWorkgroupGroupSegmentOffset = offsetof(xgpu_host_workgroup_t, group_segment);  // void*
constexpr uint64_t kWorkgroupGroupSegmentSizeOffset =
    offsetof(xgpu_host_workgroup_t, group_segment_size);                                        // uint32_t
constexpr uint64_t kWorkgroupRunOffset = offsetof(xgpu_host_workgroup_t, workgroup_run);      // uint32_t
constexpr uint64_t kWorkgroupBarrierOffset = offsetof(xgpu_host_workgroup_t, barrier);         // xgpu_host_barrier_fn
constexpr uint64_t kWorkgroupRecordBytes = sizeof(xgpu_host_workgroup_t);
constexpr uint64_t kWorkgroupRecordAlignment = alignof(xgpu_host_workgroup_t);
constexpr uint64_t kGroupSegmentAlignment = XGPU_HOST_GROUP_SEGMENT_ALIGNMENT;

// The pass builds IR with these values: the layout it was written for.
static_assert(kWorkgroupIdOffset == 0 && kWorkgroupSizeOffset == 12 && kWorkgroupGridSizeOffset == 24 &&
                  kWorkgroupItemCountOffset == 48 && kWorkgroupGroupSegmentOffset == 64 &&
                  kWorkgroupGroupSegmentSizeOffset == 72 && kWorkgroupRunOffset == 76 && kWorkgroupBarrierOffset == 80 &&
                  kWorkgroupRecordBytes == 96 && kWorkgroupRecordAlignment == 8,
              "xgpu_host_workgroup_t changed: the pass's record accesses must follow");
static_assert(sizeof(((xgpu_host_workgroup_t*)nullptr)->workgroup_id[0]) == 4 &&
                  sizeof(((xgpu_host_workgroup_t*)nullptr)->item_count[0]) == 4,
              "the pass reads the record's ids and counts as i32");
static_assert(offsetof(xgpu_host_kernel_descriptor_t, run_workgroup) ==
                  kDescriptorFieldOffsets[kDescriptorRunWorkgroupField] &&
                  offsetof(xgpu_host_kernel_descriptor_t, kernarg_size) ==
                      kDescriptorFieldOffsets[kDescriptorKernargSizeField] &&
                  offsetof(xgpu_host_kernel_descriptor_t, kernarg_alignment) ==
                      kDescriptorFieldOffsets[kDescriptorKernargAlignmentField] &&
                  offsetof(xgpu_host_kernel_descriptor_t, group_segment_size) ==
                      kDescriptorFieldOffsets[kDescriptorGroupSegmentSizeField] &&
                  offsetof(xgpu_host_kernel_descriptor_t, required_workgroup_size) ==
                      kDescriptorFieldOffsets[kDescriptorRequiredSizeField] &&
                  offsetof(xgpu_host_kernel_descriptor_t, flags) == kDescriptorFieldOffsets[kDescriptorFlagsField] &&
                  sizeof(xgpu_host_kernel_descriptor_t) == 64,
              "xgpu_host_kernel_descriptor_t changed: the pass's field indices must follow");
static_assert(kAccessRecordHeaderBytes == 48 && offsetof(xgpu_kernel_access_record_t, binding_count) == 8 &&
                  offsetof(xgpu_kernel_access_record_t, read_mask) == 16 &&
                  offsetof(xgpu_kernel_access_record_t, write_mask) == 24 &&
                  offsetof(xgpu_kernel_access_record_t, atomic_mask) == 32 &&
                  offsetof(xgpu_kernel_access_record_t, unknown_mask) == 40,
              "xgpu_kernel_access_record_t changed: the records the pass writes must follow");
static_assert(kFlagsRecordHeaderBytes == 16 && offsetof(xgpu_kernel_flags_record_t, record_size) == 4 &&
                  offsetof(xgpu_kernel_flags_record_t, flags) == 8 &&
                  offsetof(xgpu_kernel_flags_record_t, reserved) == 12,
              "xgpu_kernel_flags_record_t changed: the records the pass writes must follow");

}  // namespace xgpu_wiloop
