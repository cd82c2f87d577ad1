// GPU-assisted validation (XGPU_VALIDATION_GPU_ASSISTED, which the
// fixture's instances turn on for every test: the other tests are its
// positive runs). A kernel writing past the end of its binding is reported
// by the driver with XGPU-VALIDATION-gpu-assisted-out-of-bounds, naming the
// kernel, command, workgroup, binding, offset, size, range and source line,
// and the bytes past the binding keep their values; a kernel without a
// bounds-checked copy is named by an INFO message and runs unchecked.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "harness.h"
#include "validation_test_kernels.h"

namespace vtest {
namespace {

constexpr const char* kOutOfBounds = "XGPU-VALIDATION-gpu-assisted-out-of-bounds";
constexpr const char* kUnavailable = "XGPU-VALIDATION-gpu-assisted-unavailable";

struct Mapped {
  XgpuBuffer buffer = nullptr;
  uint32_t* words = nullptr;
};

Mapped MappedBuffer(Fixture& f, uint64_t bytes) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = bytes;
  info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
  info.memoryTypeIndex = f.host_visible_type;
  Mapped m;
  REQUIRE(xgpuCreateBuffer(f.device, &info, nullptr, &m.buffer) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  XgpuBuffer buffer = m.buffer;
  f.Defer([device, buffer] { xgpuDestroyBuffer(device, buffer, nullptr); });
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, m.buffer, 0, bytes, &data) == XGPU_SUCCESS);
  m.words = static_cast<uint32_t*>(data);
  return m;
}

XgpuPipeline Pipeline(Fixture& f, const char* entry, uint32_t bindings, uint32_t constants) {
  XgpuPipelineCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  info.executable = f.executable;
  info.pEntryPoint = entry;
  info.bindingCount = bindings;
  info.constantSize = constants;
  info.workgroupSize[0] = 64;
  info.workgroupSize[1] = 1;
  info.workgroupSize[2] = 1;
  XgpuPipeline pipeline = nullptr;
  REQUIRE(xgpuCreatePipeline(f.device, &info, nullptr, &pipeline) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  f.Defer([device, pipeline] { xgpuDestroyPipeline(device, pipeline, nullptr); });
  return pipeline;
}

// validation_overrun of 128 items, 2 workgroups: dst[i + shift] = src[i] + 1,
// dst bound to its buffer's first `range` bytes.
void RunOverrun(Fixture& f, XgpuPipeline pipeline, uint32_t shift, Mapped& src, Mapped& dst, uint64_t range = 512,
                uint32_t items = 128) {
  XgpuCommandBuffer cb = f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 0);
  xgpuCmdBindPipeline(cb, pipeline);
  XgpuBufferRef refs[2] = {xgpuBufferRefWhole(src.buffer), xgpuBufferRefWhole(dst.buffer)};
  refs[1].size = range;
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const uint32_t constants[2] = {items, shift};
  xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
  xgpuCmdDispatch(cb, (items + 63) / 64, 1, 1);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  REQUIRE(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
}

// Without the pass plugin (or with XGPU_KERNELS_BOUNDS_CHECKS=OFF) the
// kernels have no bounds-checked copies: nothing to test.
#if defined(XGPU_VALIDATION_TEST_BOUNDS_CHECKS)
constexpr bool kCopies = true;
#else
constexpr bool kCopies = false;
#endif

TEST_CASE("GPU-assisted validation: a write past its binding is reported by ID, and not made") {
  if (!kCopies) return;
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Mapped src = MappedBuffer(f, 512);
  Mapped dst = MappedBuffer(f, 1024);
  for (uint32_t i = 0; i < 128; ++i) src.words[i] = 1000 + i;
  std::fill(dst.words, dst.words + 256, 0xdeadbeefu);
  XgpuPipeline pipeline = Pipeline(f, "validation_overrun", 0, 0);

  SUBCASE("in range: nothing reported, every element written") {
    RunOverrun(f, pipeline, 0, src, dst);
    f.ExpectNone();
    for (uint32_t i = 0; i < 128; ++i) CHECK(dst.words[i] == 1001 + i);
    for (uint32_t i = 128; i < 256; ++i) CHECK(dst.words[i] == 0xdeadbeefu);
  }
  SUBCASE("20 elements past the end: reported, the bytes past the binding untouched") {
    RunOverrun(f, pipeline, 20, src, dst);
    // The 108 items in range wrote; the 20 past the end did not.
    for (uint32_t i = 0; i < 20; ++i) CHECK(dst.words[i] == 0xdeadbeefu);
    for (uint32_t i = 20; i < 128; ++i) CHECK(dst.words[i] == 1001 + i - 20);
    for (uint32_t i = 128; i < 256; ++i) CHECK(dst.words[i] == 0xdeadbeefu);
    const auto messages = f.log.Messages();
    REQUIRE(!messages.empty());
    std::set<uint64_t> offsets;
    for (const auto& m : messages) {
      INFO(m.text);
      CHECK(m.id == kOutOfBounds);
      CHECK(m.severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
      CHECK(m.number == Fnv1a(kOutOfBounds));
      CHECK(m.text.find("kernel 'validation_overrun' (command ") != std::string::npos);
      CHECK(m.text.find("workgroup (1, 0, 0)") != std::string::npos);  // items 108..127
      CHECK(m.text.find("binding 1: an access of 4 bytes at offset ") != std::string::npos);
      CHECK(m.text.find("outside the binding's range of 512 bytes [0, 512)") != std::string::npos);
      CHECK(m.text.find("validation_test.c:") != std::string::npos);  // the host code object's line table
      const size_t at = m.text.find("at offset ");
      if (at != std::string::npos) offsets.insert(std::stoull(m.text.substr(at + 10)));
    }
    // The first failing lane of each access: the first is item 108's (offset 512).
    REQUIRE(!offsets.empty());
    CHECK(*offsets.begin() == 512);
    CHECK(*offsets.rbegin() < 512 + 20 * 4);
    f.log.Clear();
  }
}

// The engine port's two cases: 4 KiB into a 256-byte binding, and 16 MiB past
// a 4 KiB buffer; the buffer created next to it keeps its bytes.
TEST_CASE("GPU-assisted validation: 4 KiB into a 256-byte binding, 16 MiB past a 4 KiB buffer") {
  if (!kCopies) return;
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Mapped src = MappedBuffer(f, 512);
  Mapped dst = MappedBuffer(f, 4096);
  Mapped neighbour = MappedBuffer(f, 4096);
  for (uint32_t i = 0; i < 128; ++i) src.words[i] = 1000 + i;
  std::fill(dst.words, dst.words + 1024, 0xdeadbeefu);
  std::fill(neighbour.words, neighbour.words + 1024, 0x5a5a5a5au);
  XgpuPipeline pipeline = Pipeline(f, "validation_overrun", 0, 0);
  struct Case {
    const char* what;
    uint32_t shift;    // elements
    uint64_t range;    // bytes bound
    uint64_t offset;   // the first failing access's offset
  };
  for (const Case& c : {Case{"4 KiB into a 256-byte binding", 1024, 256, 4096},
                        Case{"16 MiB past a 4 KiB buffer", 4u << 20, 4096, 16u << 20}}) {
    INFO(c.what);
    RunOverrun(f, pipeline, c.shift, src, dst, c.range);
    const auto messages = f.log.Messages();
    REQUIRE(!messages.empty());
    uint64_t first = UINT64_MAX;  // item 0's offset: the smallest reported
    for (const auto& m : messages) {
      INFO(m.text);
      CHECK(m.id == kOutOfBounds);
      CHECK(m.text.find("binding 1: an access of 4 bytes at offset ") != std::string::npos);
      CHECK(m.text.find("range of " + std::to_string(c.range) + " bytes") != std::string::npos);
      const size_t at = m.text.find("at offset ");
      if (at != std::string::npos) first = std::min<uint64_t>(first, std::stoull(m.text.substr(at + 10)));
    }
    CHECK(first == c.offset);
    f.log.Clear();
    // Nothing was written: not the buffer, not its neighbour.
    for (uint32_t i = 0; i < 1024; ++i) REQUIRE(dst.words[i] == 0xdeadbeefu);
    for (uint32_t i = 0; i < 1024; ++i) REQUIRE(neighbour.words[i] == 0x5a5a5a5au);
  }
}

TEST_CASE("GPU-assisted validation: a dispatch's first 16 reports are listed, then how many more") {
  if (!kCopies) return;
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Mapped src = MappedBuffer(f, 4096 * 4);
  Mapped dst = MappedBuffer(f, 4096);
  std::fill(src.words, src.words + 4096, 1u);
  XgpuPipeline pipeline = Pipeline(f, "validation_overrun", 0, 0);
  // 4096 items, every one 4 KiB past a 4 KiB binding: far more than 16
  // accesses (one per vector of items) fail.
  RunOverrun(f, pipeline, 1024, src, dst, 4096, 4096);
  const auto messages = f.log.Messages();
  REQUIRE(messages.size() == 17);
  for (const auto& m : messages) CHECK(m.id == kOutOfBounds);
  INFO(messages.back().text);
  CHECK(messages.back().text.find("kernel 'validation_overrun' (command 0): ") == 0);
  CHECK(messages.back().text.find(" more accesses outside their bindings were not made (the first 16 are listed "
                                  "above)") != std::string::npos);
  f.log.Clear();
}

TEST_CASE("GPU-assisted validation: a kernel without a bounds-checked copy is named by an INFO message") {
  if (!kCopies) return;
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  struct Infos {
    std::mutex mutex;
    std::vector<std::string> ids;
    std::vector<std::string> texts;
  } infos;
  XgpuDebugMessengerCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT;
  info.messageType = XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  info.pfnUserCallback = [](XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                            const XgpuDebugMessageData* data, void* user) -> XgpuBool32 {
    auto* out = static_cast<Infos*>(user);
    std::lock_guard lock(out->mutex);
    out->ids.push_back(data->pMessageIdName ? data->pMessageIdName : "");
    out->texts.push_back(data->pMessage ? data->pMessage : "");
    return XGPU_FALSE;
  };
  info.pUserData = &infos;
  XgpuDebugMessenger messenger = nullptr;
  REQUIRE(xgpuCreateDebugMessenger(f.instance, &info, nullptr, &messenger) == XGPU_SUCCESS);
  // validation_saxpy declares no layout: no copy.
  Pipeline(f, "validation_saxpy", 2, 8);
  // validation_copy has one: nothing said.
  Pipeline(f, "validation_copy", 0, 0);
  xgpuDestroyDebugMessenger(f.instance, messenger, nullptr);
  REQUIRE(infos.ids.size() == 1);
  CHECK(infos.ids[0] == kUnavailable);
  CHECK(infos.texts[0].find("kernel \"validation_saxpy\" has no bounds-checked copy") != std::string::npos);
  f.ExpectNone();
}

}  // namespace
}  // namespace vtest
