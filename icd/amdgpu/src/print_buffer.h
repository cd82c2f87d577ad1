// Kernel print buffers: what xgpu_printf and xgpu_assert write on the device
// (<xgpu/kernel_print.h>), read back and formatted on the host when the
// submission that ran the kernels completes.
//
// decode_print_buffer reads the records of one buffer as kernels left them:
// every size, count, tag and string is bounds-checked (a kernel that wrote
// over its records, or a record cut short by a full buffer, yields an
// "unreadable record" line instead of a read outside the buffer), and each
// printf record is formatted as C's printf would format its format and
// values, where every conversion is checked against the type the kernel
// passed (a `%d` given a float prints `<%d: a float>` instead of garbage).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace xgpu::amdgpu {

// One decoded record.
struct PrintLine {
  bool assert_failed = false;      // an xgpu_assert record (else xgpu_printf)
  bool out_of_bounds = false;      // a bounds record (XGPU_PRINT_KIND_BOUNDS) of a bounds-checked kernel;
                                   // text: "binding B: ... (at file:line)"
  uint32_t workgroup_id[3] = {};
  uint32_t local_id[3] = {};
  uint64_t dispatch = 0;           // the dispatch's tag (the AMDGPU driver's: the command index)
  std::string text;                // printf: the formatted line (no trailing newline);
                                   // assert: "file:line: condition"
};

struct PrintBufferContents {
  std::vector<PrintLine> lines;    // in the order the records were reserved
  uint64_t dropped = 0;            // records the kernels could not fit
  std::string error;               // why decoding stopped early ("" when it read every record)
};

// Decodes a buffer of `bytes` bytes (header included) at `buffer`.
PrintBufferContents decode_print_buffer(const uint8_t* buffer, size_t bytes);

// Formats `format` with typed values (what a printf record holds after its
// format): exposed for tests.
struct PrintValue {
  uint32_t tag = 0;                // XGPU_PRINT_TAG_*
  uint64_t bits = 0;               // the value (integers, double bits, addresses)
  std::string string;              // STR: the copied bytes
};
std::string format_print(const std::string& format, const std::vector<PrintValue>& values);

}  // namespace xgpu::amdgpu
