// The executable reader on synthetic files: valid round trips, truncated,
// oversized and corrupt inputs, and select().
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "xgpu_executable.h"

namespace xe = xgpu::executable;

namespace {

std::vector<uint8_t> fake_code_object(size_t size, uint8_t fill) { return std::vector<uint8_t>(size, fill); }

std::vector<uint8_t> make_file(std::vector<xe::EntryInput> entries) {
  std::vector<uint8_t> bytes;
  xe::Status status = xe::write(entries, &bytes);
  REQUIRE_MESSAGE(status.ok(), status.message());
  return bytes;
}

std::vector<uint8_t> two_entry_file() {
  return make_file({
      {"amdgcn-amd-amdhsa--gfx942", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, fake_code_object(100, 0xaa)},
      {"x86_64-unknown-linux-gnu--x86-64-v3", XGPU_EXECUTABLE_ENTRY_KIND_HOST, fake_code_object(5000, 0xbb)},
  });
}

xgpu_executable_header_t header_of(const std::vector<uint8_t>& bytes) {
  xgpu_executable_header_t header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header;
}
void set_header(std::vector<uint8_t>& bytes, const xgpu_executable_header_t& header) {
  std::memcpy(bytes.data(), &header, sizeof(header));
}
xgpu_executable_entry_t entry_of(const std::vector<uint8_t>& bytes, size_t index) {
  xgpu_executable_entry_t entry;
  std::memcpy(&entry, bytes.data() + sizeof(xgpu_executable_header_t) + index * sizeof(entry), sizeof(entry));
  return entry;
}
void set_entry(std::vector<uint8_t>& bytes, size_t index, const xgpu_executable_entry_t& entry) {
  std::memcpy(bytes.data() + sizeof(xgpu_executable_header_t) + index * sizeof(entry), &entry, sizeof(entry));
}

void set_name(xgpu_executable_entry_t& entry, const char* name) {
  std::memset(entry.isa_name, 0, sizeof(entry.isa_name));
  std::memcpy(entry.isa_name, name, std::strlen(name));
}

std::string parse_error(const std::vector<uint8_t>& bytes) {
  xe::Executable executable;
  xe::Status status = xe::Executable::parse(bytes, &executable);
  return status.ok() ? std::string("(parsed)") : status.message();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("a written executable parses back with aligned, bounded entries") {
  std::vector<uint8_t> bytes = two_entry_file();
  xe::Executable executable;
  xe::Status status = xe::Executable::parse(bytes, &executable);
  REQUIRE_MESSAGE(status.ok(), status.message());
  REQUIRE(executable.entries().size() == 2);
  const xe::Entry& gpu = executable.entries()[0];
  CHECK(gpu.isa_name == "amdgcn-amd-amdhsa--gfx942");
  CHECK(gpu.kind == XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU);
  CHECK(gpu.offset % XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT == 0);
  CHECK(gpu.code_object.size() == 100);
  CHECK(gpu.code_object[99] == 0xaa);
  const xe::Entry& host = executable.entries()[1];
  CHECK(host.offset % XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT == 0);
  CHECK(host.offset >= gpu.offset + 100);
  CHECK(host.code_object.size() == 5000);
  CHECK(host.offset + 5000 == bytes.size());
  CHECK(executable.find("x86_64-unknown-linux-gnu--x86-64-v3") == &host);
  CHECK(executable.find("x86_64-unknown-linux-gnu--x86-64-v4") == nullptr);
}

TEST_CASE("every truncation is rejected") {
  std::vector<uint8_t> bytes = two_entry_file();
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(size));
    std::string error = parse_error(prefix);
    INFO("size " << size << ": " << error);
    REQUIRE(contains(error, "truncated executable"));
  }
  CHECK(parse_error({}) == "truncated executable: 0 bytes, the header alone needs 64");
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  CHECK(parse_error(cut) == "truncated executable: header says " + std::to_string(bytes.size()) +
                                " bytes, the file has " + std::to_string(bytes.size() - 1));
}

TEST_CASE("an oversized file is rejected") {
  std::vector<uint8_t> bytes = two_entry_file();
  bytes.push_back(0);
  CHECK(parse_error(bytes) == "oversized executable: header says " + std::to_string(bytes.size() - 1) +
                                  " bytes, the file has " + std::to_string(bytes.size()));
}

TEST_CASE("corrupt headers are rejected with the field and value") {
  std::vector<uint8_t> good = two_entry_file();
  auto with_header = [&](auto edit) {
    std::vector<uint8_t> bytes = good;
    xgpu_executable_header_t header = header_of(bytes);
    edit(header);
    set_header(bytes, header);
    return parse_error(bytes);
  };
  CHECK(contains(with_header([](auto& h) { h.magic[0] = 'Y'; }), "bad magic"));
  CHECK(with_header([](auto& h) { h.version = 7; }) ==
        "unsupported executable format version 7 (this reader supports 2)");
  CHECK(with_header([](auto& h) { h.header_size = 32; }) == "header_size is 32, expected 64");
  CHECK(with_header([](auto& h) { h.entry_size = 64; }) == "entry_size is 64, expected 128");
  CHECK(with_header([](auto& h) { h.entry_count = 0; }) == "entry_count is 0, expected 1..256");
  CHECK(with_header([](auto& h) { h.entry_count = 0xffffffffu; }) == "entry_count is 4294967295, expected 1..256");
  CHECK(contains(with_header([](auto& h) { h.entry_count = 200; }), "entry table [64, +25600) extends past the end"));
  CHECK(contains(with_header([](auto& h) { h.entry_table_offset = 8; }), "overlaps the header"));
  CHECK(contains(with_header([](auto& h) { h.entry_table_offset = 0xfffffffffffffff8ull; }),
                 "extends past the end of the file"));
  CHECK(contains(with_header([](auto& h) { h.flags = 1; }), "header flags are 0x1"));
  CHECK(contains(with_header([](auto& h) { h.reserved[4] = 1; }), "reserved"));
  CHECK(contains(with_header([](auto& h) { h.file_size = ~0ull; }), "truncated executable"));
}

TEST_CASE("corrupt entries are rejected with the entry and value") {
  std::vector<uint8_t> good = two_entry_file();
  auto with_entry = [&](size_t index, auto edit) {
    std::vector<uint8_t> bytes = good;
    xgpu_executable_entry_t entry = entry_of(bytes, index);
    edit(entry);
    set_entry(bytes, index, entry);
    return parse_error(bytes);
  };
  CHECK(with_entry(0, [](auto& e) { std::memset(e.isa_name, 'a', sizeof(e.isa_name)); }) ==
        "entry 0: ISA name is not NUL-terminated within its 64-byte field");
  CHECK(with_entry(0, [](auto& e) { e.isa_name[0] = 0; }) == "entry 0: empty ISA name");
  CHECK(contains(with_entry(0, [](auto& e) { e.isa_name[3] = '\n'; }), "non-printable byte 0xa at position 3"));
  CHECK(contains(with_entry(0, [](auto& e) { e.isa_name[60] = 'x'; }), "is not NUL-padded"));
  CHECK(with_entry(1, [](auto& e) { e.kind = 9; }) == "entry 1 (x86_64-unknown-linux-gnu--x86-64-v3): unknown kind 9");
  CHECK(contains(with_entry(1, [](auto& e) { e.kind = XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU; }),
                 "does not match the ISA name"));
  CHECK(contains(with_entry(0, [](auto& e) { set_name(e, "riscv64--rv64gc"); }),
                 "neither an AMDGPU ISA"));
  CHECK(contains(with_entry(0, [](auto& e) { e.code_object_offset += 1; }), "is not a multiple of 4096"));
  CHECK(contains(with_entry(0, [](auto& e) { e.code_object_size = 0; }), "empty code object"));
  CHECK(contains(with_entry(1, [](auto& e) { e.code_object_size += 1; }), "extends past the end of the file"));
  CHECK(contains(with_entry(1, [](auto& e) { e.code_object_offset = 0xfffffffffffff000ull; }),
                 "extends past the end of the file"));
  CHECK(contains(with_entry(1, [](auto& e) { e.code_object_size = ~0ull; }), "extends past the end of the file"));
  CHECK(contains(with_entry(0, [](auto& e) { e.code_object_offset = 0; }), "overlapping ranges"));
  CHECK(contains(with_entry(0, [](auto& e) { e.code_object_size = 4097; }), "overlapping ranges: entry 1"));
  CHECK(contains(with_entry(1, [&](auto& e) { set_name(e, "amdgcn-amd-amdhsa--gfx942"); e.kind = 1; }),
                 "duplicate ISA name (entry 0 has it too)"));
  CHECK(contains(with_entry(0, [](auto& e) { e.flags = 2; }), "flags are 0x2"));
  CHECK(contains(with_entry(0, [](auto& e) { e.reserved[1] = 2; }), "reserved fields are not zero"));
}

TEST_CASE("random corruption of the header and entry table gives a clear error or a consistent file") {
  // The container only: its code objects are filler bytes (corruption_test.cpp
  // corrupts real code objects).
  std::vector<uint8_t> good = two_entry_file();
  std::mt19937 rng(1234);  // fixed seed: the same inputs on every run
  size_t rejected = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::vector<uint8_t> bytes = good;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      // Mostly the header and table, where the structure is.
      size_t at = rng() % 2 ? rng() % 320 : rng() % bytes.size();
      bytes[at] = static_cast<uint8_t>(rng());
    }
    INFO("iteration " << iteration);
    xe::Executable executable;
    xe::Status status = xe::Executable::parse(bytes, &executable);
    if (!status.ok()) {
      ++rejected;
      REQUIRE(status.message().size() > 8);
      continue;
    }
    // Accepted: every entry lies inside the file, aligned, and known.
    REQUIRE(!executable.entries().empty());
    for (const xe::Entry& entry : executable.entries()) {
      REQUIRE(entry.offset % XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT == 0);
      REQUIRE(entry.code_object.data() == bytes.data() + entry.offset);
      REQUIRE(entry.offset + entry.code_object.size() <= bytes.size());
      REQUIRE(!entry.code_object.empty());
      REQUIRE(executable.find(entry.isa_name) == &entry);
    }
    // The filler code objects are not ELF files; the check says which.
    status = xe::check(executable);
    REQUIRE_FALSE(status.ok());
    REQUIRE((contains(status.message(), ": not an ELF file (bad magic)") ||
             contains(status.message(), ": truncated ELF: ")));
  }
  // Most random changes to the header and table are caught by the parser.
  CHECK(rejected > 1500);
}

TEST_CASE("write rejects what parse would reject") {
  std::vector<uint8_t> bytes;
  CHECK(xe::write({}, &bytes).message() == "an executable holds 1..256 code objects, got 0");
  std::vector<xe::EntryInput> duplicate = {
      {"amdgcn-amd-amdhsa--gfx90a", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {1}},
      {"amdgcn-amd-amdhsa--gfx90a", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {2}},
  };
  CHECK(xe::write(duplicate, &bytes).message() == "duplicate ISA name 'amdgcn-amd-amdhsa--gfx90a'");
  std::vector<xe::EntryInput> long_name = {
      {"amdgcn-amd-amdhsa--" + std::string(60, 'x'), XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {1}}};
  CHECK(contains(xe::write(long_name, &bytes).message(), "must have 1..63 characters"));
  std::vector<xe::EntryInput> empty = {{"amdgcn-amd-amdhsa--gfx90a", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {}}};
  CHECK(xe::write(empty, &bytes).message() == "empty code object for amdgcn-amd-amdhsa--gfx90a");
  std::vector<xe::EntryInput> wrong_kind = {{"amdgcn-amd-amdhsa--gfx90a", XGPU_EXECUTABLE_ENTRY_KIND_HOST, {1}}};
  CHECK(contains(xe::write(wrong_kind, &bytes).message(), "does not match the entry kind"));
}

TEST_CASE("select picks the first agent ISA the file holds, exact or compatible") {
  std::vector<uint8_t> bytes = make_file({
      {"amdgcn-amd-amdhsa--gfx90a", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {1}},
      {"amdgcn-amd-amdhsa--gfx942:xnack+", XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, {2}},
      {"x86_64-unknown-linux-gnu--x86-64-v3", XGPU_EXECUTABLE_ENTRY_KIND_HOST, {3}},
      {"x86_64-unknown-linux-gnu--x86-64-v2", XGPU_EXECUTABLE_ENTRY_KIND_HOST, {4}},
  });
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  const xe::Entry* entry = nullptr;

  std::vector<std::string> cpu = {"x86_64-unknown-linux-gnu--x86-64-v4", "x86_64-unknown-linux-gnu--x86-64-v3",
                                  "x86_64-unknown-linux-gnu--x86-64-v2", "x86_64-unknown-linux-gnu--x86-64"};
  REQUIRE(executable.select(cpu, &entry).ok());
  CHECK(entry->isa_name == "x86_64-unknown-linux-gnu--x86-64-v3");

  std::vector<std::string> old_cpu = {"x86_64-unknown-linux-gnu--x86-64-v2", "x86_64-unknown-linux-gnu--x86-64"};
  REQUIRE(executable.select(old_cpu, &entry).ok());
  CHECK(entry->isa_name == "x86_64-unknown-linux-gnu--x86-64-v2");

  std::vector<std::string> mi200 = {"amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"};
  REQUIRE(executable.select(mi200, &entry).ok());
  CHECK(entry->isa_name == "amdgcn-amd-amdhsa--gfx90a");

  std::vector<std::string> mi300_xnack_off = {"amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"};
  xe::Status status = executable.select(mi300_xnack_off, &entry);
  CHECK(entry == nullptr);
  CHECK(status.message() ==
        "no code object for the agent: agent ISA amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-; the executable holds "
        "amdgcn-amd-amdhsa--gfx90a, amdgcn-amd-amdhsa--gfx942:xnack+, x86_64-unknown-linux-gnu--x86-64-v3, "
        "x86_64-unknown-linux-gnu--x86-64-v2");
  std::vector<std::string> mi300_xnack_on = {"amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+"};
  REQUIRE(executable.select(mi300_xnack_on, &entry).ok());
  CHECK(entry->isa_name == "amdgcn-amd-amdhsa--gfx942:xnack+");

  std::vector<std::string> baseline = {"x86_64-unknown-linux-gnu--x86-64"};
  status = executable.select(baseline, &entry);
  CHECK(contains(status.message(), "agent ISA x86_64-unknown-linux-gnu--x86-64; the executable holds"));
  std::vector<std::string> two = {"amdgcn-amd-amdhsa--gfx1100", "amdgcn-amd-amdhsa--gfx1101"};
  status = executable.select(two, &entry);
  CHECK(contains(status.message(), "agent ISAs amdgcn-amd-amdhsa--gfx1100, amdgcn-amd-amdhsa--gfx1101; "));
}

TEST_CASE("target ID compatibility") {
  CHECK(xe::isa_compatible("amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"));
  CHECK(xe::isa_compatible("amdgcn-amd-amdhsa--gfx90a:xnack-", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"));
  CHECK_FALSE(xe::isa_compatible("amdgcn-amd-amdhsa--gfx90a:xnack+", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"));
  CHECK_FALSE(xe::isa_compatible("amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdhsa--gfx908"));
  CHECK_FALSE(xe::isa_compatible("amdgcn-amd-amdhsa--gfx110", "amdgcn-amd-amdhsa--gfx1100"));
  CHECK_FALSE(xe::isa_compatible("x86_64-unknown-linux-gnu--x86-64-v2", "x86_64-unknown-linux-gnu--x86-64-v3"));
}

TEST_CASE("code object readers reject non-ELF and wrong-machine input") {
  xe::CodeObjectInfo info;
  std::vector<uint8_t> junk(200, 0x41);
  CHECK(xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, junk, &info).message() == "not an ELF file (bad magic)");
  CHECK(contains(xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_HOST, std::vector<uint8_t>(10), &info).message(),
                 "truncated ELF"));
  CHECK(xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_HOST, junk).message() == "not an ELF file (bad magic)");
}

TEST_CASE("SHA-256 known answers") {
  const std::string abc = "abc";
  CHECK(xe::hex_bytes(xe::sha256(std::span(reinterpret_cast<const uint8_t*>(abc.data()), abc.size()))) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(xe::hex_bytes(xe::sha256({})) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("every entry carries its code object's SHA-256, checked before the code object is used") {
  std::vector<uint8_t> good = two_entry_file();
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(good, &executable).ok());
  for (size_t i = 0; i < executable.entries().size(); ++i) {
    const xe::Entry& e = executable.entries()[i];
    CHECK(e.sha256 == xe::sha256(e.code_object));
    CHECK(std::memcmp(entry_of(good, i).code_object_sha256, e.sha256.data(), e.sha256.size()) == 0);
  }
  // One flipped bit in a code object.
  std::vector<uint8_t> bytes = good;
  bytes[executable.entries()[1].offset + 4999] ^= 0x10;
  const std::string corrupt = parse_error(bytes);
  CHECK(contains(corrupt, "entry 1 (x86_64-unknown-linux-gnu--x86-64-v3): code object corrupt: its 5000 bytes at "
                          "offset 8192 have SHA-256 "));
  CHECK(contains(corrupt, ", the entry says " + xe::hex_bytes(executable.entries()[1].sha256)));
  // rehash() restamps a deliberately edited file.
  REQUIRE(xe::rehash(bytes).ok());
  CHECK(parse_error(bytes) == "(parsed)");
  // One flipped bit in the stored hash.
  bytes = good;
  xgpu_executable_entry_t entry = entry_of(bytes, 0);
  entry.code_object_sha256[31] ^= 0x01;
  set_entry(bytes, 0, entry);
  CHECK(contains(parse_error(bytes), "entry 0 (amdgcn-amd-amdhsa--gfx942): code object corrupt"));
  // parse_structure() without the hash check reads it (xgpu-kernels inspect).
  xe::Executable structure;
  CHECK(xe::Executable::parse_structure(bytes, false, &structure).ok());
  // rehash() refuses what is not structurally an executable.
  std::vector<uint8_t> junk(100, 0x41);
  CHECK(contains(xe::rehash(junk).message(), "bad magic"));
}

TEST_CASE("a format version 1 file (no hashes) is refused, naming the rebuild") {
  std::vector<uint8_t> bytes = two_entry_file();
  xgpu_executable_header_t header = header_of(bytes);
  header.version = 1;
  set_header(bytes, header);
  const std::string message = parse_error(bytes);
  CHECK(contains(message, "executable format version 1 is no longer read"));
  CHECK(contains(message, "rebuild the file with this release's xgpu-kernels (xgpu_add_kernels)"));
}

TEST_CASE("the zero fill outside the header, the table and the code objects is checked too") {
  std::vector<uint8_t> bytes = two_entry_file();
  xe::Executable executable;
  REQUIRE(xe::Executable::parse(bytes, &executable).ok());
  // Between the table (64 + 2 * 128 bytes) and the first code object at 4096.
  bytes[1000] = 0x20;
  CHECK(parse_error(bytes) == "byte 1000 is 0x20, outside the header, the entry table and every code object, where "
                              "the file is zero-filled (corrupt executable)");
  // Between the first code object's end (4096 + 100) and the second at 8192.
  bytes[1000] = 0;
  bytes[8191] = 0x01;
  CHECK(contains(parse_error(bytes), "byte 8191 is 0x1, outside the header"));
}
