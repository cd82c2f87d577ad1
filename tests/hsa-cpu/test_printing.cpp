// Kernel printing without the driver: kernels built by the kernel toolchain
// (kernels/print_kernels.c) run on hsa-cpu with a print buffer
// (<xgpu/kernel_print.h>) whose address the test writes into the 8 bytes
// before the kernarg segment, as the driver will; the test decodes the
// records and checks that every work item's records are there, attributed,
// exact and in order, that a small buffer drops and counts exactly, that a
// failed assert records its condition, file and line and the kernel goes on,
// and that no buffer (0) prints nothing. Run twice by ctest: barrier kernels
// as work-item loops, and as fibers (HSA_CPU_BARRIER_MODE=fibers).
#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <xgpu/host_kernel.h>
#include <xgpu/kernel_print.h>

#include "hsa_test_util.h"
#include "kernels/print_kernels.h"
#include "xgpu_executable.h"

using namespace hsa_test;
namespace xe = xgpu::executable;

namespace {

// The dispatch tag every run puts before its kernargs; each record copies it.
constexpr uint64_t kDispatchTag = 0x5eed0000c0de0042ull;

// One decoded record.
struct Record {
  uint64_t offset = 0;                 // in the record area
  uint32_t size = 0;                   // bytes
  uint16_t kind = 0;                   // XGPU_PRINT_KIND_*
  uint32_t workgroup_id[3] = {};       // the writer's workgroup
  uint32_t local_id[3] = {};           // the writer's local id
  uint64_t dispatch = 0;               // the dispatch's tag
  std::vector<uint32_t> tags;          // XGPU_PRINT_TAG_* per value
  std::vector<uint64_t> values;        // per value
  std::vector<std::string> strings;    // per value: its bytes for STR, else empty
};

struct Decoded {
  std::vector<Record> records;  // in offset order
  uint64_t end = 0;             // bytes of the record area the records fill
  bool end_mark = false;        // a zero size ended them
};

// A strict decoder: every record must be exactly what <xgpu/kernel_print.h>
// says (sizes, counts, tags, strings, zero padding); anything else fails.
Decoded decode(const uint8_t* buffer) {
  xgpu_print_buffer_header_t header;
  std::memcpy(&header, buffer, sizeof(header));
  REQUIRE(header.magic == XGPU_PRINT_BUFFER_MAGIC);
  REQUIRE(header.version == XGPU_PRINT_BUFFER_VERSION);
  const uint8_t* area = buffer + sizeof(header);
  const uint64_t limit = std::min(header.head, header.capacity);
  Decoded out;
  uint64_t at = 0;
  while (at + XGPU_PRINT_RECORD_ALIGNMENT <= limit) {
    Record r;
    r.offset = at;
    std::memcpy(&r.size, area + at, sizeof(r.size));
    if (r.size == 0) {
      out.end_mark = true;
      break;
    }
    INFO("record at offset " << at);
    REQUIRE(r.size % XGPU_PRINT_RECORD_ALIGNMENT == 0);
    REQUIRE(r.size >= sizeof(xgpu_print_record_t));
    REQUIRE(at + r.size <= header.capacity);
    xgpu_print_record_t raw;
    std::memcpy(&raw, area + at, sizeof(raw));
    r.kind = raw.kind;
    r.dispatch = raw.dispatch;
    REQUIRE(raw.dispatch == kDispatchTag);
    std::memcpy(r.workgroup_id, raw.workgroup_id, sizeof(r.workgroup_id));
    std::memcpy(r.local_id, raw.local_id, sizeof(r.local_id));
    REQUIRE((raw.kind == XGPU_PRINT_KIND_PRINTF || raw.kind == XGPU_PRINT_KIND_ASSERT));
    REQUIRE(raw.count >= 1);
    REQUIRE(raw.count <= XGPU_PRINT_MAX_VALUES);
    REQUIRE(sizeof(raw) + 8u * raw.count <= r.size);
    if (raw.count < XGPU_PRINT_MAX_VALUES) REQUIRE((raw.tags >> (XGPU_PRINT_TAG_BITS * raw.count)) == 0);
    uint64_t cursor = at + sizeof(raw);
    for (uint32_t i = 0; i < raw.count; ++i) {
      const uint32_t tag = uint32_t(raw.tags >> (XGPU_PRINT_TAG_BITS * i)) & XGPU_PRINT_TAG_MASK;
      REQUIRE(tag >= XGPU_PRINT_TAG_I64);
      REQUIRE(tag <= XGPU_PRINT_TAG_PTR);
      uint64_t value;
      std::memcpy(&value, area + cursor, sizeof(value));
      cursor += sizeof(value);
      r.tags.push_back(tag);
      r.values.push_back(value);
    }
    for (uint32_t i = 0; i < raw.count; ++i) {
      r.strings.emplace_back();
      if (r.tags[i] != XGPU_PRINT_TAG_STR) continue;
      const void* nul = std::memchr(area + cursor, 0, at + r.size - cursor);
      REQUIRE(nul != nullptr);
      const uint64_t length = uint64_t(static_cast<const uint8_t*>(nul) - (area + cursor));
      REQUIRE(length + 1 <= XGPU_PRINT_MAX_STRING);
      r.strings.back().assign(reinterpret_cast<const char*>(area + cursor), length);
      cursor += length + 1;
    }
    // Zero padding to the next multiple of 8, and nothing after it.
    REQUIRE(at + r.size == (cursor + XGPU_PRINT_RECORD_ALIGNMENT - 1) / XGPU_PRINT_RECORD_ALIGNMENT *
                               XGPU_PRINT_RECORD_ALIGNMENT);
    for (; cursor < at + r.size; ++cursor) REQUIRE(area[cursor] == 0);
    at += r.size;
    out.records.push_back(std::move(r));
  }
  out.end = at;
  return out;
}

double f64(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// The record of a value of a kernel's format: its number in the format.
std::string first_format() { return "first %u %d %f %s\n"; }
std::string second_format() { return "second %lld %llu %p %c %d %s\n"; }

// Bytes a record of `count` values and these strings takes.
uint32_t record_bytes(uint32_t count, const std::vector<std::string>& strings) {
  uint64_t size = sizeof(xgpu_print_record_t) + 8u * count;
  for (const std::string& s : strings) size += std::min<uint64_t>(s.size(), XGPU_PRINT_MAX_STRING - 1) + 1;
  return uint32_t((size + 7) / 8 * 8);
}

// The 1-based line of kernels/print_kernels.c that holds `marker`.
uint32_t kernel_source_line(const std::string& marker) {
  std::ifstream source(HSA_CPU_TEST_PRINT_KERNELS_SOURCE);
  std::string line;
  for (uint32_t number = 1; std::getline(source, line); ++number)
    if (line.find(marker) != std::string::npos) return number;
  return 0;
}

// The host code object of the printing kernels' executable that the agent
// runs (the executable reader picks it by the agent's ISAs).
std::vector<char> host_code_object(hsa_agent_t agent) {
  std::vector<std::string> isas;
  REQUIRE(hsa_agent_iterate_isas(
              agent,
              [](hsa_isa_t isa, void* data) {
                uint32_t length = 0;
                if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS)
                  return HSA_STATUS_ERROR;
                std::string name(length, '\0');
                if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS)
                  return HSA_STATUS_ERROR;
                while (!name.empty() && name.back() == '\0') name.pop_back();
                static_cast<std::vector<std::string>*>(data)->push_back(name);
                return HSA_STATUS_SUCCESS;
              },
              &isas) == HSA_STATUS_SUCCESS);
  const std::vector<char> file = read_file(HSA_CPU_TEST_PRINT_KERNELS);
  REQUIRE(!file.empty());
  xe::Executable executable;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(file.data()), file.size());
  xe::Status status = xe::Executable::parse(bytes, &executable);
  REQUIRE_MESSAGE(status.ok(), status.message());
  const xe::Entry* entry = nullptr;
  status = executable.select(isas, &entry);
  REQUIRE_MESSAGE(status.ok(), status.message());
  return std::vector<char>(entry->code_object.begin(), entry->code_object.end());
}

// The runtime, the printing kernels, a queue; dispatches with a print slot.
struct Fixture {
  ScopedEnv workers{"HSA_CPU_WORKERS", "4"};  // workgroups run concurrently
  Runtime rt;
  Kernels kernels{rt.agent, host_code_object(rt.agent)};
  Queue queue{rt.agent};

  // A print buffer of `capacity` bytes of records, the record area filled
  // with a pattern no record has (so only written bytes decode).
  uint8_t* buffer(uint64_t capacity) {
    auto* bytes = rt.alloc<uint8_t>(sizeof(xgpu_print_buffer_header_t) + capacity);
    std::memset(bytes + sizeof(xgpu_print_buffer_header_t), 0xab, capacity);
    xgpu_print_buffer_header_t header{};
    header.magic = XGPU_PRINT_BUFFER_MAGIC;
    header.version = XGPU_PRINT_BUFFER_VERSION;
    header.capacity = capacity;
    std::memcpy(bytes, &header, sizeof(header));
    return bytes;
  }

  // Runs `kernel` over `grid` in `workgroup`s with `args` in a kernarg block
  // whose print slot holds `print_buffer`'s address (0 for none).
  void run(const char* kernel, const print_test_args_t& args, std::array<uint32_t, 3> grid,
           std::array<uint16_t, 3> workgroup, uint16_t dims, const uint8_t* print_buffer) {
    // [pad][slot][args]: the arguments 16-byte aligned, the slot before them.
    constexpr size_t kArgsOffset = 16;
    auto* block = rt.alloc<uint8_t>(kArgsOffset + sizeof(args), rt.kernarg_pool);
    const uint64_t slot = reinterpret_cast<uintptr_t>(print_buffer);
    std::memcpy(block + kArgsOffset - XGPU_PRINT_BUFFER_SLOT_OFFSET, &slot, sizeof(slot));
    std::memcpy(block + kArgsOffset - XGPU_PRINT_DISPATCH_SLOT_OFFSET, &kDispatchTag, sizeof(kDispatchTag));
    std::memcpy(block + kArgsOffset, &args, sizeof(args));
    hsa_signal_t done = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object((std::string(kernel) + ".kd").c_str());
    d.kernarg = block + kArgsOffset;
    d.dims = dims;
    for (int i = 0; i < 3; ++i) {
      d.grid[i] = grid[size_t(i)];
      d.workgroup[i] = workgroup[size_t(i)];
    }
    d.completion = done;
    dispatch(queue.queue, d);
    REQUIRE(wait_eq(done, 0));
    CHECK(queue.errors.load() == 0);
    hsa_signal_destroy(done);
    hsa_amd_memory_pool_free(block);
  }

  const xgpu_host_kernel_descriptor_t* descriptor(const char* kernel) {
    return reinterpret_cast<const xgpu_host_kernel_descriptor_t*>(
        static_cast<uintptr_t>(kernels.object((std::string(kernel) + ".kd").c_str())));
  }
};

xgpu_print_buffer_header_t header_of(const uint8_t* buffer) {
  xgpu_print_buffer_header_t header;
  std::memcpy(&header, buffer, sizeof(header));
  return header;
}

// The expected records of print_items for item g.
void check_first(const Record& r, uint32_t g, const std::string& label) {
  CHECK(r.kind == XGPU_PRINT_KIND_PRINTF);
  REQUIRE(r.values.size() == 5);
  CHECK(r.tags == std::vector<uint32_t>{XGPU_PRINT_TAG_STR, XGPU_PRINT_TAG_U64, XGPU_PRINT_TAG_I64,
                                         XGPU_PRINT_TAG_F64, XGPU_PRINT_TAG_STR});
  CHECK(r.strings[0] == first_format());
  CHECK(r.values[1] == g);
  CHECK(int64_t(r.values[2]) == -int64_t(g));
  CHECK(f64(r.values[3]) == 0.5 * double(g));
  CHECK(r.strings[4] == label.substr(0, XGPU_PRINT_MAX_STRING - 1));
  CHECK(r.size == record_bytes(5, {first_format(), label}));
}

void check_second(const Record& r, uint32_t g, const uint32_t* out) {
  CHECK(r.kind == XGPU_PRINT_KIND_PRINTF);
  REQUIRE(r.values.size() == 7);
  CHECK(r.tags == std::vector<uint32_t>{XGPU_PRINT_TAG_STR, XGPU_PRINT_TAG_I64, XGPU_PRINT_TAG_U64,
                                         XGPU_PRINT_TAG_PTR, XGPU_PRINT_TAG_I64, XGPU_PRINT_TAG_U64,
                                         XGPU_PRINT_TAG_STR});
  CHECK(r.strings[0] == second_format());
  CHECK(int64_t(r.values[1]) == int64_t(g) - 1000);
  CHECK(r.values[2] == uint64_t(g) << 33);
  CHECK(r.values[3] == reinterpret_cast<uintptr_t>(&out[g]));
  CHECK(r.values[4] == uint64_t('a' + g % 26u));
  CHECK(r.values[5] == (g & 1u));
  CHECK(r.strings[6] == "literal");
  CHECK(r.size == record_bytes(7, {second_format(), "literal"}));
}

// Checks that print_items wrote both records of every item below n, each
// attributed to the item's workgroup and local id, and nothing else.
void check_items(const Decoded& decoded, uint32_t n, std::array<uint32_t, 3> grid, std::array<uint16_t, 3> wg,
                 const std::string& label, const uint32_t* out) {
  std::map<uint32_t, std::vector<const Record*>> by_item;
  for (const Record& r : decoded.records) {
    // Which item wrote it, from the ids the record carries.
    const uint32_t gx = r.workgroup_id[0] * wg[0] + r.local_id[0];
    const uint32_t gy = r.workgroup_id[1] * wg[1] + r.local_id[1];
    REQUIRE(r.workgroup_id[2] == 0);
    REQUIRE(r.local_id[2] == 0);
    REQUIRE(r.local_id[0] < wg[0]);
    REQUIRE(r.local_id[1] < wg[1]);
    REQUIRE(gx < grid[0]);
    REQUIRE(gy < grid[1]);
    by_item[gy * grid[0] + gx].push_back(&r);
  }
  REQUIRE(by_item.size() == n);
  for (const auto& [g, records] : by_item) {
    INFO("item " << g);
    REQUIRE(g < n);
    REQUIRE(records.size() == 2);
    // The item's two prints in program order.
    CHECK(records[0]->offset < records[1]->offset);
    check_first(*records[0], g, label);
    check_second(*records[1], g, out);
  }
}

}  // namespace

TEST_SUITE("printing") {

TEST_CASE("every work item's records, attributed, exact and in order: 1-D and 2-D grids, partial workgroups") {
  Fixture f;
  struct Shape {
    std::array<uint32_t, 3> grid;
    std::array<uint16_t, 3> workgroup;
    uint16_t dims;
  };
  // Several workgroups each; the 2-D one has rows of several workgroups
  // (its items run interleaved along x) and partial workgroups both ways.
  for (const Shape& shape : {Shape{{1000, 1, 1}, {64, 1, 1}, 1}, Shape{{100, 6, 1}, {16, 4, 1}, 2}}) {
    CAPTURE(shape.dims);
    const uint32_t items = shape.grid[0] * shape.grid[1];
    const std::string label = "label of the dispatch";
    uint32_t* out = f.rt.alloc<uint32_t>(items);
    char* text = f.rt.alloc<char>(label.size() + 1);
    std::memcpy(text, label.c_str(), label.size() + 1);
    const uint64_t capacity = uint64_t(items) * 1024;
    uint8_t* buffer = f.buffer(capacity);
    f.run("print_items", {out, text, items, 0}, shape.grid, shape.workgroup, shape.dims, buffer);
    for (uint32_t g = 0; g < items; ++g) REQUIRE(out[g] == g + 1);
    const xgpu_print_buffer_header_t header = header_of(buffer);
    const Decoded decoded = decode(buffer);
    CHECK(header.dropped == 0);
    CHECK(decoded.records.size() == 2u * items);
    CHECK(decoded.end == header.head);
    CHECK_FALSE(decoded.end_mark);
    CHECK(header.head == uint64_t(items) * (record_bytes(5, {first_format(), label}) +
                                            record_bytes(7, {second_format(), "literal"})));
    check_items(decoded, items, shape.grid, shape.workgroup, label, out);
    hsa_amd_memory_pool_free(out);
    hsa_amd_memory_pool_free(text);
    hsa_amd_memory_pool_free(buffer);
  }
}

TEST_CASE("a string longer than XGPU_PRINT_MAX_STRING is cut to its first 255 bytes") {
  Fixture f;
  std::string label;
  for (int i = 0; label.size() < 300; ++i) label += char('A' + i % 26);
  uint32_t* out = f.rt.alloc<uint32_t>(64);
  char* text = f.rt.alloc<char>(label.size() + 1);
  std::memcpy(text, label.c_str(), label.size() + 1);
  uint8_t* buffer = f.buffer(64 * 1024);
  f.run("print_items", {out, text, 64, 0}, {64, 1, 1}, {32, 1, 1}, 1, buffer);
  const Decoded decoded = decode(buffer);
  REQUIRE(decoded.records.size() == 128);
  check_items(decoded, 64, {64, 1, 1}, {32, 1, 1}, label, out);
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(text);
  hsa_amd_memory_pool_free(buffer);
}

TEST_CASE("records around a barrier: work-item loops or fibers, each workgroup's 'before' ahead of its 'after'") {
  Fixture f;
  const xgpu_host_kernel_descriptor_t* kd = f.descriptor("print_around_barrier");
  const char* mode = getenv("HSA_CPU_BARRIER_MODE");
  const bool fibers = (mode && std::string(mode) == "fibers") || !(kd->flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS);
  MESSAGE("print_around_barrier runs as " << std::string(fibers ? "fibers" : "work-item loops"));
#if HSA_CPU_TEST_WORKITEM_LOOPS
  // The build made work-item loops of it: the printing call does not stop the pass.
  CHECK((kd->flags & XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS) != 0);
#endif
  constexpr uint32_t kItems = 1000;
  constexpr uint16_t kWorkgroup = 64;
  uint32_t* out = f.rt.alloc<uint32_t>(kItems);
  uint8_t* buffer = f.buffer(kItems * 256);
  f.run("print_around_barrier", {out, nullptr, kItems, 0}, {kItems, 1, 1}, {kWorkgroup, 1, 1}, 1, buffer);
  const Decoded decoded = decode(buffer);
  CHECK(header_of(buffer).dropped == 0);
  REQUIRE(decoded.records.size() == 2 * kItems);
  std::map<uint32_t, std::vector<const Record*>> by_item;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> last_before_first_after;  // per workgroup
  for (const Record& r : decoded.records) {
    const uint32_t g = r.workgroup_id[0] * kWorkgroup + r.local_id[0];
    REQUIRE(g < kItems);
    by_item[g].push_back(&r);
    auto& [last_before, first_after] = last_before_first_after.try_emplace(r.workgroup_id[0], 0, UINT64_MAX).first->second;
    if (r.strings[0] == "before %u\n") last_before = std::max(last_before, r.offset);
    else first_after = std::min(first_after, r.offset);
  }
  REQUIRE(by_item.size() == kItems);
  for (const auto& [g, records] : by_item) {
    INFO("item " << g);
    REQUIRE(records.size() == 2);
    const uint32_t group = g / kWorkgroup, lid = g % kWorkgroup;
    const uint32_t count = std::min<uint32_t>(kWorkgroup, kItems - group * kWorkgroup);
    const uint32_t next = group * kWorkgroup + (lid + 1) % count;
    CHECK(records[0]->strings[0] == "before %u\n");
    CHECK(records[0]->values[1] == g);
    CHECK(records[1]->strings[0] == "after %u %u\n");
    CHECK(records[1]->values[1] == g);
    CHECK(records[1]->values[2] == next);
    CHECK(out[g] == next);
  }
  for (const auto& [group, offsets] : last_before_first_after) {
    INFO("workgroup " << group);
    CHECK(offsets.first < offsets.second);
  }
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(buffer);
}

TEST_CASE("a small buffer: the records that fit, then an end mark; every other one dropped and counted") {
  Fixture f;
  constexpr uint32_t kItems = 500;
  const std::string label = "x";
  const uint32_t first_bytes = record_bytes(5, {first_format(), label});
  const uint32_t second_bytes = record_bytes(7, {second_format(), "literal"});
  uint32_t* out = f.rt.alloc<uint32_t>(kItems);
  char* text = f.rt.alloc<char>(2);
  text[0] = 'x';
  // Not a multiple of 8, room for some 30 records: most are dropped.
  for (uint64_t capacity : {uint64_t(4001), uint64_t(first_bytes), uint64_t(7), uint64_t(0)}) {
    CAPTURE(capacity);
    uint8_t* buffer = f.buffer(capacity);
    f.run("print_items", {out, text, kItems, 0}, {kItems, 1, 1}, {50, 1, 1}, 1, buffer);
    for (uint32_t g = 0; g < kItems; ++g) REQUIRE(out[g] == g + 1);
    const xgpu_print_buffer_header_t header = header_of(buffer);
    const Decoded decoded = decode(buffer);
    // Every record reserved its bytes: head counts them all.
    CHECK(header.head == uint64_t(kItems) * (first_bytes + second_bytes));
    CHECK(decoded.records.size() + header.dropped == 2u * kItems);
    CHECK(decoded.records.size() <= capacity / std::min(first_bytes, second_bytes));
    if (capacity >= first_bytes) CHECK(!decoded.records.empty());
    // The records that fit come first and without gaps; the first that did
    // not fit marked the end where 8 bytes of it were inside the area.
    CHECK(decoded.end <= capacity);
    CHECK(decoded.end_mark == (decoded.end + XGPU_PRINT_RECORD_ALIGNMENT <= capacity));
    std::map<uint32_t, std::vector<const Record*>> by_item;
    for (const Record& r : decoded.records) by_item[r.workgroup_id[0] * 50 + r.local_id[0]].push_back(&r);
    for (const auto& [g, records] : by_item) {
      INFO("item " << g);
      REQUIRE(records.size() <= 2);
      // An item's second record fits only after its first did.
      check_first(*records[0], g, label);
      if (records.size() == 2) check_second(*records[1], g, out);
    }
    hsa_amd_memory_pool_free(buffer);
  }
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(text);
}

TEST_CASE("a failed xgpu_assert records its condition, file and line, and the work item goes on") {
  Fixture f;
  constexpr uint32_t kPass = 300, kItems = 437;
  uint32_t* out = f.rt.alloc<uint32_t>(kItems);
  uint8_t* buffer = f.buffer(64 * 1024);
  f.run("assert_items", {out, nullptr, kPass, 0}, {kItems, 1, 1}, {64, 1, 1}, 1, buffer);
  for (uint32_t g = 0; g < kItems; ++g) REQUIRE(out[g] == g + 1);  // failing items too
  const Decoded decoded = decode(buffer);
  CHECK(header_of(buffer).dropped == 0);
  REQUIRE(decoded.records.size() == kItems - kPass);
  const uint32_t line = kernel_source_line("/* ASSERT-LINE */");
  REQUIRE(line != 0);
  std::set<uint32_t> failed;
  for (const Record& r : decoded.records) {
    CHECK(r.kind == XGPU_PRINT_KIND_ASSERT);
    REQUIRE(r.values.size() == XGPU_PRINT_ASSERT_VALUE_COUNT);
    CHECK(r.tags == std::vector<uint32_t>{XGPU_PRINT_TAG_STR, XGPU_PRINT_TAG_STR, XGPU_PRINT_TAG_U64});
    CHECK(r.strings[0] == "g < args->n");
    CHECK(r.strings[1] == HSA_CPU_TEST_PRINT_KERNELS_SOURCE);
    CHECK(r.values[2] == line);
    failed.insert(r.workgroup_id[0] * 64 + r.local_id[0]);
  }
  CHECK(failed.size() == kItems - kPass);
  CHECK(*failed.begin() == kPass);
  CHECK(*failed.rbegin() == kItems - 1);
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(buffer);
}

TEST_CASE("no print buffer (0 in the slot): nothing is written and the kernels run") {
  Fixture f;
  constexpr uint32_t kItems = 1000;
  uint32_t* out = f.rt.alloc<uint32_t>(kItems);
  char* text = f.rt.alloc<char>(2);
  text[0] = 'x';
  f.run("print_items", {out, text, kItems, 0}, {kItems, 1, 1}, {64, 1, 1}, 1, nullptr);
  for (uint32_t g = 0; g < kItems; ++g) REQUIRE(out[g] == g + 1);
  f.run("assert_items", {out, nullptr, 10, 0}, {kItems, 1, 1}, {64, 1, 1}, 1, nullptr);
  for (uint32_t g = 0; g < kItems; ++g) REQUIRE(out[g] == g + 1);
  f.run("print_around_barrier", {out, nullptr, kItems, 0}, {kItems, 1, 1}, {64, 1, 1}, 1, nullptr);
  for (uint32_t g = 0; g < kItems; ++g) REQUIRE(out[g] == (g / 64) * 64 + (g % 64 + 1) % std::min(64u, kItems - g / 64 * 64));
  hsa_amd_memory_pool_free(out);
  hsa_amd_memory_pool_free(text);
}

}  // TEST_SUITE("printing")
