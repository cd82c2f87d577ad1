// libFuzzer target for xgpu_executable: every input is tried as a whole
// executable file (parse, then the full check of its code objects; with its
// code objects' hashes restamped when only they are wrong) and as a bare
// AMDGPU and host code object. Nothing may crash, hang or leak; errors
// are expected.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "xgpu_executable.h"

namespace xe = xgpu::executable;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  xe::Executable executable;
  // A mutated code object no longer matches its hash; restamp a copy so that
  // the checks behind the hash get the input too.
  std::vector<uint8_t> restamped(data, data + size);
  if (!xe::Executable::parse(bytes, &executable).ok() && xe::rehash(restamped).ok()) bytes = restamped;
  if (xe::Executable::parse(bytes, &executable).ok()) {
    std::vector<xe::CodeObjectInfo> infos;
    (void)xe::check(executable, &infos);
    const xe::Entry* entry = nullptr;
    const std::vector<std::string> agent = {"x86_64-unknown-linux-gnu--x86-64-v3", "amdgcn-amd-amdhsa--gfx90a:xnack-"};
    (void)executable.select(agent, &entry);
    return 0;
  }
  xe::CodeObjectInfo info;
  (void)xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, bytes, &info);
  (void)xe::read_code_object(XGPU_EXECUTABLE_ENTRY_KIND_HOST, bytes, &info);
  (void)xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU, bytes);
  (void)xe::check_code_object_rules(XGPU_EXECUTABLE_ENTRY_KIND_HOST, bytes);
  return 0;
}
