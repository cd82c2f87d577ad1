// xgpu_embed_executable: the executable's bytes linked into this program,
// page-aligned, equal to the file, and usable by the reader in place.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

#include "xgpu_executable.h"
#include "xgpu_test_kernels_embedded.h"

namespace xe = xgpu::executable;

TEST_CASE("an embedded executable equals the file and parses in place") {
  std::ifstream in(XGPU_TEST_KERNELS_FILE, std::ios::binary);
  REQUIRE(in.good());
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(xgpu_test_kernels_embedded_size == file.size());
  CHECK(std::memcmp(xgpu_test_kernels_embedded, file.data(), file.size()) == 0);
  CHECK(reinterpret_cast<uintptr_t>(xgpu_test_kernels_embedded) % XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT == 0);

  xe::Executable executable;
  std::span<const uint8_t> bytes(xgpu_test_kernels_embedded, xgpu_test_kernels_embedded_size);
  xe::Status status = xe::Executable::parse(bytes, &executable);
  REQUIRE_MESSAGE(status.ok(), status.message());
  for (const xe::Entry& entry : executable.entries()) {
    // Code objects are page-aligned in memory too, ready to load in place.
    CHECK(reinterpret_cast<uintptr_t>(entry.code_object.data()) % XGPU_EXECUTABLE_CODE_OBJECT_ALIGNMENT == 0);
  }
  CHECK(xe::check(executable).ok());
}
