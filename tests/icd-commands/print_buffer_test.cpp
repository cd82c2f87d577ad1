// The driver's reading of kernel print buffers (icd/amdgpu/src/print_buffer):
// formats against the values' types, records as kernels write them
// (<xgpu/kernel_print.h>), and buffers a kernel or a full buffer left in a
// state no record describes.
#include <cstring>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "print_buffer.h"
#include "xgpu/kernel_print.h"

using xgpu::amdgpu::decode_print_buffer;
using xgpu::amdgpu::format_print;
using xgpu::amdgpu::PrintValue;

namespace {

PrintValue i64(int64_t v) { return {XGPU_PRINT_TAG_I64, uint64_t(v), {}}; }
PrintValue u64(uint64_t v) { return {XGPU_PRINT_TAG_U64, v, {}}; }
PrintValue f64(double d) {
  PrintValue v{XGPU_PRINT_TAG_F64, 0, {}};
  std::memcpy(&v.bits, &d, sizeof(d));
  return v;
}
PrintValue str(const std::string& s) { return {XGPU_PRINT_TAG_STR, 0x1000, s}; }
PrintValue ptr(uint64_t a) { return {XGPU_PRINT_TAG_PTR, a, {}}; }

// Builds a buffer the way kernels fill it.
struct Buffer {
  std::vector<uint8_t> bytes;
  explicit Buffer(uint64_t capacity) : bytes(sizeof(xgpu_print_buffer_header_t) + capacity, 0) {
    xgpu_print_buffer_header_t h{};
    h.magic = XGPU_PRINT_BUFFER_MAGIC;
    h.version = XGPU_PRINT_BUFFER_VERSION;
    h.capacity = capacity;
    std::memcpy(bytes.data(), &h, sizeof(h));
  }
  xgpu_print_buffer_header_t header() const {
    xgpu_print_buffer_header_t h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    return h;
  }
  void set_header(const xgpu_print_buffer_header_t& h) { std::memcpy(bytes.data(), &h, sizeof(h)); }
  // Appends a record of `kind` with `values` (strings' bytes after them).
  void add(uint16_t kind, const std::vector<PrintValue>& values, uint32_t wx = 0, uint32_t lx = 0,
           uint64_t dispatch = 0) {
    xgpu_print_record_t r{};
    r.dispatch = dispatch;
    r.kind = kind;
    r.count = uint16_t(values.size());
    r.workgroup_id[0] = wx;
    r.local_id[0] = lx;
    std::vector<uint8_t> tail;
    for (size_t i = 0; i < values.size(); ++i) {
      r.tags |= uint64_t(values[i].tag) << (4 * i);
      const uint8_t* b = reinterpret_cast<const uint8_t*>(&values[i].bits);
      tail.insert(tail.end(), b, b + 8);
    }
    for (const PrintValue& v : values)
      if (v.tag == XGPU_PRINT_TAG_STR) {
        tail.insert(tail.end(), v.string.begin(), v.string.end());
        tail.push_back(0);
      }
    while ((sizeof(r) + tail.size()) % 8) tail.push_back(0);
    r.size = uint32_t(sizeof(r) + tail.size());
    xgpu_print_buffer_header_t h = header();
    const size_t at = sizeof(h) + h.head;
    REQUIRE(at + r.size <= bytes.size());
    std::memcpy(bytes.data() + at, &r, sizeof(r));
    std::memcpy(bytes.data() + at + sizeof(r), tail.data(), tail.size());
    h.head += r.size;
    set_header(h);
  }
};

}  // namespace

TEST_CASE("print format: conversions take the values' types; a mismatch prints what was given") {
  CHECK(format_print("i=%d u=%u x=%#x c=%c", {i64(-5), u64(7), u64(255), u64('Q')}) == "i=-5 u=7 x=0xff c=Q");
  CHECK(format_print("%ld %lld %hhu %zu", {i64(-1), i64(1ll << 40), u64(3), u64(9)}) == "-1 1099511627776 3 9");
  CHECK(format_print("%5.2f|%-6s|%e", {f64(3.14159), str("ab"), f64(1e-3)}) == " 3.14|ab    |1.000000e-03");
  CHECK(format_print("%*d|%.*f", {i64(4), i64(7), i64(1), f64(2.25)}) == "   7|2.2");
  CHECK(format_print("100%% %s", {str("done")}) == "100% done");
  CHECK(format_print("%p", {ptr(0x1234)}) == "0x1234");
  CHECK(format_print("%d", {f64(1.5)}) == "<%d: a float>");
  CHECK(format_print("%f", {i64(1)}) == "<%f: a signed integer>");
  CHECK(format_print("%s", {u64(1)}) == "<%s: an unsigned integer>");
  CHECK(format_print("%d %d", {i64(1)}) == "1 <%d: no value>");
  CHECK(format_print("%d", {i64(1), i64(2)}) == "1 <1 more value than conversions>");
  CHECK(format_print("%q", {i64(1)}) == "<%q: unknown conversion> <1 more value than conversions>");
  CHECK(format_print("tail %", {}) == "tail <incomplete conversion %>");
}

TEST_CASE("print buffer: records in order with their ids, asserts, drops counted, newline trimmed") {
  Buffer b(4096);
  b.add(XGPU_PRINT_KIND_PRINTF, {str("item %u of %s\n"), u64(3), str("grid")}, 2, 3, 7);
  b.add(XGPU_PRINT_KIND_ASSERT, {str("x < n"), str("k.c"), u64(42)}, 1, 0, 0x123456789ull);
  xgpu_print_buffer_header_t h = b.header();
  h.dropped = 5;
  b.set_header(h);
  const auto contents = decode_print_buffer(b.bytes.data(), b.bytes.size());
  CHECK(contents.error.empty());
  CHECK(contents.dropped == 5);
  REQUIRE(contents.lines.size() == 2);
  CHECK(contents.lines[0].text == "item 3 of grid");
  CHECK(contents.lines[0].workgroup_id[0] == 2);
  CHECK(contents.lines[0].local_id[0] == 3);
  CHECK(contents.lines[0].dispatch == 7);
  CHECK_FALSE(contents.lines[0].assert_failed);
  CHECK(contents.lines[1].assert_failed);
  CHECK(contents.lines[1].dispatch == 0x123456789ull);
  CHECK(contents.lines[1].text == "k.c:42: x < n");
}

TEST_CASE("print buffer: a head past the capacity reads what fits; damage stops the reading with a reason") {
  SUBCASE("head past capacity (records dropped): the complete records are read") {
    Buffer b(256);
    b.add(XGPU_PRINT_KIND_PRINTF, {str("a")});
    xgpu_print_buffer_header_t h = b.header();
    h.head = 10'000;  // kernels kept reserving after the end
    h.dropped = 9;
    b.set_header(h);
    const auto contents = decode_print_buffer(b.bytes.data(), b.bytes.size());
    REQUIRE(contents.lines.size() == 1);
    CHECK(contents.lines[0].text == "a");
    CHECK(contents.dropped == 9);
  }
  SUBCASE("overwritten magic") {
    Buffer b(256);
    b.bytes[0] ^= 0xFF;
    const auto contents = decode_print_buffer(b.bytes.data(), b.bytes.size());
    CHECK(contents.lines.empty());
    CHECK(contents.error.find("overwritten") != std::string::npos);
  }
  SUBCASE("a record size beyond the used bytes") {
    Buffer b(256);
    b.add(XGPU_PRINT_KIND_PRINTF, {str("a")});
    uint32_t bad = 4000;
    std::memcpy(b.bytes.data() + sizeof(xgpu_print_buffer_header_t), &bad, sizeof(bad));
    const auto contents = decode_print_buffer(b.bytes.data(), b.bytes.size());
    CHECK(contents.lines.empty());
    CHECK(contents.error.find("size 4000") != std::string::npos);
  }
  SUBCASE("a string without its NUL inside the record") {
    Buffer b(256);
    b.add(XGPU_PRINT_KIND_PRINTF, {str("abcdefg")});
    const size_t record = sizeof(xgpu_print_buffer_header_t);
    for (size_t i = record + sizeof(xgpu_print_record_t) + 8; i < b.bytes.size(); ++i) b.bytes[i] = 'z';
    const auto contents = decode_print_buffer(b.bytes.data(), b.bytes.size());
    CHECK(contents.lines.empty());
    CHECK(contents.error.find("runs past the record") != std::string::npos);
  }
  SUBCASE("too many values, an unknown kind") {
    Buffer b(512);
    b.add(XGPU_PRINT_KIND_PRINTF, {str("a")});
    xgpu_print_record_t r;
    std::memcpy(&r, b.bytes.data() + sizeof(xgpu_print_buffer_header_t), sizeof(r));
    r.kind = 9;
    std::memcpy(b.bytes.data() + sizeof(xgpu_print_buffer_header_t), &r, sizeof(r));
    CHECK(decode_print_buffer(b.bytes.data(), b.bytes.size()).error.find("kind 9") != std::string::npos);
  }
  SUBCASE("a buffer smaller than its header") {
    uint8_t tiny[8] = {};
    CHECK_FALSE(decode_print_buffer(tiny, sizeof(tiny)).error.empty());
  }
}
