// Hand-written negative tests of the explicit rules of spec/vuids.json the
// layer checks (values, limits, ranges, alignment, buffer references and
// usage at the call and at xgpuQueueSubmit, bound state, labels, mapping,
// queue-allocation kind): each makes exactly one mistake in an otherwise
// valid call and asserts that exactly that rule's ID is reported and that the
// call fails with the rule's error (vuids.json's `error`). RULE_TEST registers
// the rule for the coverage test (negative_tests.cpp). Also: valid
// recordings and submissions that use every checked command report nothing.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "calls.h"
#include "xgpu/xgpu_enum_string.h"

namespace vtest {
namespace {

XgpuPhysicalDeviceLimits Limits(Fixture& f) {
  XgpuPhysicalDeviceProperties properties = {};
  xgpuGetPhysicalDeviceProperties(f.physical_device, &properties);
  return properties.limits;
}

XgpuBuffer NewBuffer(Fixture& f, uint64_t size, XgpuBufferUsageFlags usage) {
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  FixupStruct(f, info);
  info.size = size;
  info.usage = usage;
  XgpuBuffer buffer = nullptr;
  REQUIRE(xgpuCreateBuffer(f.device, &info, nullptr, &buffer) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  f.Defer([device, buffer] { xgpuDestroyBuffer(device, buffer, nullptr); });
  return buffer;
}

constexpr XgpuBufferUsageFlags kAllUsage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                           XGPU_BUFFER_USAGE_TRANSFER_DST_BIT | XGPU_BUFFER_USAGE_INDIRECT_BIT;

XgpuCommandBuffer Recording(Fixture& f, uint32_t capacity) {
  return f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, capacity);
}

// The call fails its rule `id` alone: one message, the rule's error (for a
// recording command: its xgpuEndCommandBuffer's).
template <typename Call>
void ExpectRule(Fixture& f, const Call& call, const char* id) {
  f.log.Clear();
  if constexpr (std::is_void_v<decltype(call.InvokeLayer(f))>) {
    call.InvokeLayer(f);
    f.ExpectOnly(id);
    if constexpr (requires { call.commandBuffer; }) {
      f.log.Clear();
      CHECK(std::string(xgpuResultString(f.EndThroughLayer(call.commandBuffer))) == ErrorOfRule(id));
      f.ExpectNone();
    }
  } else {
    const auto result = call.InvokeLayer(f);
    f.ExpectOnly(id);
    CHECK(std::string(xgpuResultString(result)) == ErrorOfRule(id));
  }
}

void ExpectResult(Fixture& f, XgpuResult result, const char* id, const char* called = "") {
  f.ExpectOnly(id, called);
  CHECK(std::string(xgpuResultString(result)) == ErrorOfRule(id));
}

// Ends `cb` and submits it once with `bindings` (nothing waited or signalled).
XgpuResult Submit(Fixture& f, XgpuCommandBuffer cb, const std::vector<XgpuBufferBinding>& bindings) {
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  submit.bindingCount = static_cast<uint32_t>(bindings.size());
  submit.pBindings = bindings.data();
  f.log.Clear();
  return xgpuQueueSubmit(f.queue, 1, &submit);
}

XgpuBufferBinding Whole(XgpuBuffer buffer) { return XgpuBufferBinding{buffer, 0, XGPU_WHOLE_SIZE}; }

#define RULE_TEST(id)                                                                          \
  static const bool DOCTEST_ANONYMOUS(RULE_TEST_REGISTERED_) = RegisterRuleTest(id); \
  TEST_CASE(id)

// ---- xgpuCmdBindBuffers ----

RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-bindingCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.bindingCount = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-bindingCount");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-firstBinding") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.firstBinding = 2;  // the pipeline has 2 bindings
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-firstBinding");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-pipeline") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.commandBuffer = Recording(f, 1);  // no pipeline bound
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-pipeline");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.pBuffers_storage[0].bindingSlot = 1;  // a buffer reference with a slot
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-pBuffers-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.pBuffers_storage[0] = RefToSlot(1);  // capacity 1
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-pBuffers-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.pBuffers_storage[0].size = 512;  // the buffer has 256 bytes
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-pBuffers-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  const uint64_t alignment = Limits(f).minBufferOffsetAlignment;
  REQUIRE(alignment > 1);
  XgpuBuffer buffer = NewBuffer(f, 4 * alignment, kAllUsage);
  Call_xgpuCmdBindBuffers call(f);
  call.pBuffers_storage[0] = RefToBuffer(buffer, alignment / 2);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-pBuffers-offset");
}
RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-pBuffers-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdBindBuffers call(f);
  call.pBuffers_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdBindBuffers-pBuffers-usage");
}

// ---- xgpuCmdPushConstants, xgpuCmdSetWorkgroupMemorySize ----

RULE_TEST("XGPU-VUID-xgpuCmdPushConstants-pipeline") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPushConstants call(f);
  call.commandBuffer = Recording(f, 1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPushConstants-pipeline");
}
RULE_TEST("XGPU-VUID-xgpuCmdPushConstants-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPushConstants call(f);
  call.offset = 2;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPushConstants-offset");
}
RULE_TEST("XGPU-VUID-xgpuCmdPushConstants-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPushConstants call(f);
  call.size = 3;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPushConstants-size");
}
RULE_TEST("XGPU-VUID-xgpuCmdPushConstants-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPushConstants call(f);
  call.offset = 8;  // constantSize 8
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPushConstants-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdSetWorkgroupMemorySize-dynamicSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdSetWorkgroupMemorySize call(f);
  call.dynamicSize = Limits(f).maxWorkgroupMemorySize + 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdSetWorkgroupMemorySize-dynamicSize");
}

// ---- dispatches ----

RULE_TEST("XGPU-VUID-xgpuCmdDispatch-pipeline") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatch call(f);
  call.commandBuffer = Recording(f, 1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatch-pipeline");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatch-bindings") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatch call(f);
  call.commandBuffer = Recording(f, 1);
  xgpuCmdBindPipeline(call.commandBuffer, f.pipeline);
  const XgpuBufferRef one = RefToBuffer(f.buffer);
  xgpuCmdBindBuffers(call.commandBuffer, 0, 1, &one);  // binding 1 never set
  const uint32_t constants[2] = {};
  xgpuCmdPushConstants(call.commandBuffer, 0, 8, constants);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatch-bindings");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatch-constants") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatch call(f);
  call.commandBuffer = Recording(f, 1);
  xgpuCmdBindPipeline(call.commandBuffer, f.pipeline);
  const XgpuBufferRef refs[2] = {RefToBuffer(f.buffer), RefToBuffer(f.buffer)};
  xgpuCmdBindBuffers(call.commandBuffer, 0, 2, refs);
  const uint32_t constant = 0;
  xgpuCmdPushConstants(call.commandBuffer, 0, 4, &constant);  // bytes 4..7 never set
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatch-constants");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatch-groupCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  const XgpuPhysicalDeviceLimits limits = Limits(f);
  Call_xgpuCmdDispatch call(f);
  // 64 work items per workgroup in x: one workgroup more than the grid allows.
  const uint64_t count = std::min<uint64_t>(uint64_t{limits.maxWorkgroupCount[0]} + 1, limits.maxGridSize[0] / 64 + 1);
  REQUIRE(count <= UINT32_MAX);
  call.groupCountX = static_cast<uint32_t>(count);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatch-groupCount");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-pipeline") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.commandBuffer = Recording(f, 1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-pipeline");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-bindings") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.commandBuffer = Recording(f, 1);
  xgpuCmdBindPipeline(call.commandBuffer, f.pipeline);
  const uint32_t constants[2] = {};
  xgpuCmdPushConstants(call.commandBuffer, 0, 8, constants);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-bindings");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-constants") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.commandBuffer = Recording(f, 1);
  xgpuCmdBindPipeline(call.commandBuffer, f.pipeline);
  const XgpuBufferRef refs[2] = {RefToBuffer(f.buffer), RefToBuffer(f.buffer)};
  xgpuCmdBindBuffers(call.commandBuffer, 0, 2, refs);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-constants");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-flags") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.flags = XGPU_DISPATCH_INDIRECT_STATIC_BIT | XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-flags");
  Call_xgpuCmdDispatchIndirect neither(f);
  neither.flags = 0;
  ExpectRule(f, neither, "XGPU-VUID-xgpuCmdDispatchIndirect-flags");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.pCounts_storage[0].bindingSlot = 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.pCounts_storage[0] = RefToSlot(3);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.pCounts_storage[0].offset = 2;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-offset");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.pCounts_storage[0].offset = 248;  // 8 of the 12 bytes
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.pCounts_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_STORAGE_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-usage");
}

// ---- xgpuCmdFillBuffer ----

RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-patternSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.patternSize = 3;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-patternSize");
}
RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-pDst-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0].kind = XGPU_BUFFER_REF_KIND_BINDING_SLOT;  // with a buffer
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-pDst-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0] = RefToSlot(1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-pDst-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0].offset = 2;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-offset");
}
TEST_CASE("a slot reference's own offset and size are checked when it is recorded") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0] = RefToSlot(0, 2);  // offset 2 within the slot: never a multiple of 4
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-offset");
  Call_xgpuCmdDispatchIndirect counts(f);
  counts.pCounts_storage[0] = RefToSlot(0, 0, 8);  // 8 of the 12 bytes
  ExpectRule(f, counts, "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-pDst-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0].size = 6;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-size");
}
RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-pDst-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0].offset = 256;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-pDst-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdFillBuffer call(f);
  call.pDst_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_STORAGE_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdFillBuffer-pDst-usage");
}

// ---- xgpuCmdCopyBuffer ----

RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.size = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-size");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pSrc-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pSrc_storage[0].bindingSlot = 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pSrc-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pDst-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pDst_storage[0].bindingSlot = 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pDst-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pSrc-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pSrc_storage[0] = RefToSlot(5);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pSrc-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pDst-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pDst_storage[0] = RefToSlot(5);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pDst-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pSrc-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pSrc_storage[0].size = 8;  // 16 bytes copied
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pSrc-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pDst-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pDst_storage[0].offset = 250;  // 6 bytes left
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pDst-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-overlap") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pDst_storage[0].offset = 8;  // [0, 16) and [8, 24)
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-overlap");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pSrc-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pSrc_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pSrc-usage");
}
RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-pDst-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdCopyBuffer call(f);
  call.pDst_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdCopyBuffer-pDst-usage");
}

// ---- xgpuCmdUpdateBuffer ----

RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-dataSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  std::vector<unsigned char> data(XGPU_MAX_UPDATE_BUFFER_SIZE + 4);
  XgpuBuffer big = NewBuffer(f, data.size(), kAllUsage);
  Call_xgpuCmdUpdateBuffer call(f);
  call.pDst_storage[0].buffer = big;
  call.pData = data.data();
  call.dataSize = data.size();
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdUpdateBuffer-dataSize");
}
RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-pDst-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdUpdateBuffer call(f);
  call.pDst_storage[0].bindingSlot = 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdUpdateBuffer-pDst-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-pDst-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdUpdateBuffer call(f);
  call.pDst_storage[0] = RefToSlot(1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdUpdateBuffer-pDst-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-pDst-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdUpdateBuffer call(f);
  call.pDst_storage[0].offset = 254;  // 2 of the 4 bytes
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdUpdateBuffer-pDst-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-pDst-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdUpdateBuffer call(f);
  call.pDst_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_STORAGE_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdUpdateBuffer-pDst-usage");
}

// ---- barriers ----

RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-srcStageMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.srcStageMask = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-srcStageMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-dstStageMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.dstStageMask = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-dstStageMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-srcAccessMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.srcStageMask = XGPU_PIPELINE_STAGE_TRANSFER_BIT;
  call.pMemoryBarriers_storage[0].srcAccessMask = XGPU_ACCESS_SHADER_WRITE_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-srcAccessMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-dstAccessMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.dstStageMask = XGPU_PIPELINE_STAGE_DISPATCH_BIT;
  call.pBufferBarriers_storage[0].dstAccessMask = XGPU_ACCESS_INDIRECT_READ_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-dstAccessMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.pBufferBarriers_storage[0].buffer.bindingSlot = 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.pBufferBarriers_storage[0].buffer = RefToSlot(1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdPipelineBarrier call(f);
  call.pBufferBarriers_storage[0].buffer.offset = 300;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdPipelineBarrier-pBufferBarriers-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdMemoryBarrier-srcStageMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdMemoryBarrier call(f);
  call.srcStageMask = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdMemoryBarrier-srcStageMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdMemoryBarrier-dstStageMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdMemoryBarrier call(f);
  call.dstStageMask = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdMemoryBarrier-dstStageMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdMemoryBarrier-srcAccessMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdMemoryBarrier call(f);
  call.srcStageMask = XGPU_PIPELINE_STAGE_DISPATCH_BIT;
  call.srcAccessMask = XGPU_ACCESS_TRANSFER_WRITE_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdMemoryBarrier-srcAccessMask");
}
RULE_TEST("XGPU-VUID-xgpuCmdMemoryBarrier-dstAccessMask") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdMemoryBarrier call(f);
  call.dstStageMask = XGPU_PIPELINE_STAGE_TRANSFER_BIT;
  call.dstAccessMask = XGPU_ACCESS_HOST_READ_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdMemoryBarrier-dstAccessMask");
}

// ---- labels, timestamps, begin ----

RULE_TEST("XGPU-VUID-xgpuCmdEndDebugLabel-open") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdEndDebugLabel call(f);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdEndDebugLabel-open");
}
RULE_TEST("XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-labels") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBuffer cb = Recording(f, 1);
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "outer";
  xgpuCmdBeginDebugLabel(cb, &label);
  f.log.Clear();
  ExpectResult(f, f.EndThroughLayer(cb), "XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-labels");
  CHECK(f.log.Messages().at(0).text.find("\"outer\"") != std::string::npos);
  xgpuCmdEndDebugLabel(cb);
  f.log.Clear();
  CHECK(f.EndThroughLayer(cb) == XGPU_SUCCESS);
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-stage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdWriteTimestamp call(f);
  call.stage = XGPU_PIPELINE_STAGE_HOST_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdWriteTimestamp-stage");
}
RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-kind") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdWriteTimestamp call(f);
  call.pDst_storage[0].bindingSlot = 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdWriteTimestamp-pDst-kind");
}
RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-bindingSlot") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdWriteTimestamp call(f);
  call.pDst_storage[0] = RefToSlot(2);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdWriteTimestamp-pDst-bindingSlot");
}
RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdWriteTimestamp call(f);
  call.pDst_storage[0].offset = 4;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdWriteTimestamp-pDst-offset");
}
RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdWriteTimestamp call(f);
  call.pDst_storage[0].size = 4;  // 8 bytes written
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdWriteTimestamp-pDst-range");
}
RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-pDst-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdWriteTimestamp call(f);
  call.pDst_storage[0].buffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_STORAGE_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdWriteTimestamp-pDst-usage");
}
RULE_TEST("XGPU-VUID-xgpuBeginCommandBuffer-pBeginInfo-bindingCapacity") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuBeginCommandBuffer call(f);
  SetRaw(call.pBeginInfo->bindingCapacity, Limits(f).maxBindingCapacity + 1);
  ExpectRule(f, call, "XGPU-VUID-xgpuBeginCommandBuffer-pBeginInfo-bindingCapacity");
}

// ---- xgpuQueueSubmit: binding tables ----

RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-bindingCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBuffer cb = Recording(f, 2);
  ExpectResult(f, Submit(f, cb, {Whole(f.buffer)}), "XGPU-VUID-xgpuQueueSubmit-pSubmits-bindingCount");
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-range") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBuffer cb = Recording(f, 1);
  ExpectResult(f, Submit(f, cb, {XgpuBufferBinding{f.buffer, 0, 512}}),
               "XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-range");
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  const uint64_t alignment = Limits(f).minBufferOffsetAlignment;
  REQUIRE(alignment > 1);
  XgpuBuffer buffer = NewBuffer(f, 4 * alignment, kAllUsage);
  XgpuCommandBuffer cb = Recording(f, 1);
  ExpectResult(f, Submit(f, cb, {XgpuBufferBinding{buffer, alignment / 2, XGPU_WHOLE_SIZE}}),
               "XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-offset");
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBuffer cb = Recording(f, 1);
  const XgpuBufferRef slot = RefToSlot(0);
  xgpuCmdFillBuffer(cb, &slot, "abcd", 4);  // slot 0 needs TRANSFER_DST
  XgpuBuffer storage_only = NewBuffer(f, 256, XGPU_BUFFER_USAGE_STORAGE_BIT);
  ExpectResult(f, Submit(f, cb, {Whole(storage_only)}), "XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-usage");
  const std::string text = f.log.Messages().at(0).text;
  CHECK(text.find("pSubmits[0].pBindings[0].buffer") != std::string::npos);
  CHECK(text.find("command 0 (xgpuCmdFillBuffer)") != std::string::npos);
  CHECK(text.find("XGPU_BUFFER_USAGE_TRANSFER_DST_BIT") != std::string::npos);
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-refRange") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuCommandBuffer cb = Recording(f, 1);
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "clear";
  xgpuCmdBeginDebugLabel(cb, &label);
  const XgpuBufferRef slot = RefToSlot(0, 64, 128);
  xgpuCmdFillBuffer(cb, &slot, "abcd", 4);
  xgpuCmdEndDebugLabel(cb);
  // The binding has 128 bytes: [64, 192) is not inside it.
  ExpectResult(f, Submit(f, cb, {XgpuBufferBinding{f.buffer, 0, 128}}),
               "XGPU-VUID-xgpuQueueSubmit-pSubmits-pBindings-refRange");
  CHECK(f.log.Messages().at(0).text.find("in label \"clear\"") != std::string::npos);
}
// Command rules checked at submit for slot references: the command's own ID.
TEST_CASE("a slot reference breaks its command's rules at xgpuQueueSubmit, with the command's rule ID") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  {
    XgpuCommandBuffer cb = Recording(f, 1);
    const XgpuBufferRef slot = RefToSlot(0, 8);
    xgpuCmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, &slot);
    // The binding's 12 bytes from 8 leave 4: a timestamp needs 8.
    ExpectResult(f, Submit(f, cb, {XgpuBufferBinding{f.buffer, 0, 12}}),
                 "XGPU-VUID-xgpuCmdWriteTimestamp-pDst-range", "xgpuQueueSubmit");
  }
  {
    XgpuCommandBuffer cb = Recording(f, 1);
    const XgpuBufferRef slot = RefToSlot(0);
    xgpuCmdCopyBuffer(cb, &slot, &slot, 16);  // one binding: the same bytes
    ExpectResult(f, Submit(f, cb, {Whole(f.buffer)}), "XGPU-VUID-xgpuCmdCopyBuffer-overlap", "xgpuQueueSubmit");
  }
  {
    XgpuCommandBuffer cb = Recording(f, 1);
    ReadyToDispatch(f, cb);
    const XgpuBufferRef slot = RefToSlot(0);
    xgpuCmdDispatchIndirect(cb, &slot, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    // 8 bytes bound: the counts need 12.
    ExpectResult(f, Submit(f, cb, {XgpuBufferBinding{f.buffer, 0, 8}}),
                 "XGPU-VUID-xgpuCmdDispatchIndirect-pCounts-range", "xgpuQueueSubmit");
  }
}

// ---- devices, queues, messengers, messages ----

RULE_TEST("XGPU-VUID-xgpuCreateInstance-pCreateInfo-pApplicationInfo-apiVersion") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateInstance call(f);
  call.pCreateInfo_0_pApplicationInfo_storage[0].apiVersion = XGPU_MAKE_API_VERSION(0, 2, 0, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateInstance-pCreateInfo-pApplicationInfo-apiVersion");
  CHECK(call.pInstance_storage[0] == XGPU_NULL_HANDLE);
}
RULE_TEST("XGPU-VUID-xgpuCreateInstance-pCreateInfo-ppEnabledLayerNames-unique") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateInstance call(f);
  const char* names[2] = {kLayerName, kLayerName};
  SetRaw(call.pCreateInfo->ppEnabledLayerNames, names);
  SetRaw(call.pCreateInfo->enabledLayerCount, 2);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateInstance-pCreateInfo-ppEnabledLayerNames-unique");
}
RULE_TEST("XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-messageSeverity") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDebugMessenger call(f);
  SetRaw(call.pCreateInfo->messageSeverity, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-messageSeverity");
}
RULE_TEST("XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-messageType") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDebugMessenger call(f);
  SetRaw(call.pCreateInfo->messageType, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDebugMessenger-pCreateInfo-messageType");
}
RULE_TEST("XGPU-VUID-xgpuSubmitDebugMessage-messageTypes") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuSubmitDebugMessage call(f);
  call.messageTypes = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuSubmitDebugMessage-messageTypes");
}
RULE_TEST("XGPU-VUID-xgpuSubmitDebugMessage-pMessageData-messageIdNumber") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuSubmitDebugMessage call(f);
  call.pMessageData_storage[0].messageIdNumber += 1;
  ExpectRule(f, call, "XGPU-VUID-xgpuSubmitDebugMessage-pMessageData-messageIdNumber");
  Call_xgpuSubmitDebugMessage unnamed(f);
  unnamed.pMessageData_storage[0].pMessageIdName = nullptr;  // then the number is 0
  ExpectRule(f, unnamed, "XGPU-VUID-xgpuSubmitDebugMessage-pMessageData-messageIdNumber");
}
RULE_TEST("XGPU-VUID-xgpuCreateDevice-pCreateInfo-queueCreateInfoCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDevice call(f);
  SetRaw(call.pCreateInfo->queueCreateInfoCount, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDevice-pCreateInfo-queueCreateInfoCount");
}
RULE_TEST("XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueFamilyIndex") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDevice call(f);
  call.pCreateInfo_0_pQueueCreateInfos_storage[0].queueFamilyIndex = 99;
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueFamilyIndex");
}
RULE_TEST("XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDevice call(f);
  call.pCreateInfo_0_pQueueCreateInfos_storage[0].queueCount = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-queueCount");
}
RULE_TEST("XGPU-VUID-xgpuCreateDevice-pCreateInfo-printBufferSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDevice call(f);
  call.pCreateInfo_storage[0].printBufferSize = XGPU_MAX_PRINT_BUFFER_SIZE + 8;
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDevice-pCreateInfo-printBufferSize");
}
RULE_TEST("XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-unique") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateDevice call(f);
  XgpuDeviceQueueCreateInfo twice[2] = {call.pCreateInfo_0_pQueueCreateInfos_storage[0],
                                        call.pCreateInfo_0_pQueueCreateInfos_storage[0]};
  SetRaw(call.pCreateInfo->pQueueCreateInfos, twice);
  SetRaw(call.pCreateInfo->queueCreateInfoCount, 2);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateDevice-pCreateInfo-pQueueCreateInfos-unique");
}
RULE_TEST("XGPU-VUID-xgpuGetDeviceQueue-queueFamilyIndex") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuGetDeviceQueue call(f);
  call.queueFamilyIndex = 7;
  ExpectRule(f, call, "XGPU-VUID-xgpuGetDeviceQueue-queueFamilyIndex");
}
RULE_TEST("XGPU-VUID-xgpuGetDeviceQueue-queueIndex") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuGetDeviceQueue call(f);
  call.queueIndex = 1;  // one queue created
  ExpectRule(f, call, "XGPU-VUID-xgpuGetDeviceQueue-queueIndex");
}

// ---- buffers, mapping, memory pools ----

RULE_TEST("XGPU-VUID-xgpuCreateBuffer-pCreateInfo-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateBuffer call(f);
  SetRaw(call.pCreateInfo->size, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-size");
  CHECK(call.pBuffer_storage[0] == XGPU_NULL_HANDLE);
}
RULE_TEST("XGPU-VUID-xgpuCreateBuffer-pCreateInfo-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateBuffer call(f);
  SetRaw(call.pCreateInfo->usage, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-usage");
}
RULE_TEST("XGPU-VUID-xgpuCreateBuffer-pCreateInfo-memoryTypeIndex") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateBuffer call(f);
  SetRaw(call.pCreateInfo->memoryTypeIndex, XGPU_MAX_MEMORY_TYPES);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateBuffer-pCreateInfo-memoryTypeIndex");
}
RULE_TEST("XGPU-VUID-xgpuDestroyBuffer-buffer-queueAllocated") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuBuffer buffer = nullptr;
  REQUIRE(xgpuQueueAlloca(f.queue, nullptr, nullptr, f.memory_pool, 256, XGPU_BUFFER_USAGE_STORAGE_BIT, &buffer) ==
          XGPU_SUCCESS);
  f.log.Clear();
  xgpuDestroyBuffer(f.device, buffer, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyBuffer-buffer-queueAllocated");
  f.log.Clear();
  CHECK(xgpuQueueDealloca(f.queue, nullptr, nullptr, buffer) == XGPU_SUCCESS);  // still alive
  CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuMapBuffer-offset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuMapBuffer call(f);
  call.offset = 256;
  ExpectRule(f, call, "XGPU-VUID-xgpuMapBuffer-offset");
}
RULE_TEST("XGPU-VUID-xgpuMapBuffer-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuMapBuffer call(f);
  call.offset = 128;
  call.size = 256;
  ExpectRule(f, call, "XGPU-VUID-xgpuMapBuffer-size");
}
RULE_TEST("XGPU-VUID-xgpuMapBuffer-buffer-mapped") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuUnmapBuffer mapped(f);  // its fixup maps a buffer of its own
  Call_xgpuMapBuffer call(f);
  call.buffer = mapped.buffer;
  ExpectRule(f, call, "XGPU-VUID-xgpuMapBuffer-buffer-mapped");
}
RULE_TEST("XGPU-VUID-xgpuUnmapBuffer-buffer-mapped") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuUnmapBuffer call(f);
  call.buffer = f.buffer;  // never mapped
  ExpectRule(f, call, "XGPU-VUID-xgpuUnmapBuffer-buffer-mapped");
}
RULE_TEST("XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-memoryTypeIndex") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateMemoryPool call(f);
  SetRaw(call.pCreateInfo->memoryTypeIndex, XGPU_MAX_MEMORY_TYPES);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-memoryTypeIndex");
}
RULE_TEST("XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-blockSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateMemoryPool call(f);
  SetRaw(call.pCreateInfo->maxSize, 1 << 20);
  SetRaw(call.pCreateInfo->blockSize, 2 << 20);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-blockSize");
}
RULE_TEST("XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-retainSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateMemoryPool call(f);
  SetRaw(call.pCreateInfo->maxSize, 1 << 20);
  SetRaw(call.pCreateInfo->retainSize, 2 << 20);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateMemoryPool-pCreateInfo-retainSize");
}

// ---- semaphores, executables, pipelines, command buffers ----

RULE_TEST("XGPU-VUID-xgpuWaitSemaphores-pWaitInfo-semaphoreCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuWaitSemaphores call(f);
  SetRaw(call.pWaitInfo->semaphoreCount, 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuWaitSemaphores-pWaitInfo-semaphoreCount");
}
RULE_TEST("XGPU-VUID-xgpuFailSemaphore-status") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuFailSemaphore call(f);
  call.status = XGPU_TIMEOUT;
  ExpectRule(f, call, "XGPU-VUID-xgpuFailSemaphore-status");
}
RULE_TEST("XGPU-VUID-xgpuCreateExecutable-pCreateInfo-source") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateExecutable call(f);
  SetRaw(call.pCreateInfo->pFilePath, nullptr);  // neither
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateExecutable-pCreateInfo-source");
}
RULE_TEST("XGPU-VUID-xgpuCreateExecutable-pCreateInfo-codeSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateExecutable call(f);
  SetRaw(call.pCreateInfo->codeSize, 16);  // with pCode NULL
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateExecutable-pCreateInfo-codeSize");
}
RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-bindingCount") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreatePipeline call(f);
  SetRaw(call.pCreateInfo->bindingCount, Limits(f).maxBindings + 1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-bindingCount");
}
RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-constantSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreatePipeline call(f);
  SetRaw(call.pCreateInfo->constantSize, 6);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-constantSize");
}
RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreatePipeline call(f);
  SetRaw(call.pCreateInfo->workgroupSize[1], 0);  // (64, 0, 1)
  ExpectRule(f, call, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize");
  Call_xgpuCreatePipeline big(f);
  SetRaw(big.pCreateInfo->workgroupSize[0], Limits(f).maxWorkgroupSize[0] + 1);
  ExpectRule(f, big, "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize");
}
RULE_TEST("XGPU-VUID-xgpuCreateCommandBuffer-pCreateInfo-queueFamilyIndex") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCreateCommandBuffer call(f);
  SetRaw(call.pCreateInfo->queueFamilyIndex, 9);
  ExpectRule(f, call, "XGPU-VUID-xgpuCreateCommandBuffer-pCreateInfo-queueFamilyIndex");
}

// ---- queue transfers, queue-ordered allocation ----

RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-patternSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueFillBuffer call(f);
  call.patternSize = 3;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueFillBuffer-patternSize");
}
RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-dstOffset") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueFillBuffer call(f);
  call.dstOffset = 2;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueFillBuffer-dstOffset");
  Call_xgpuQueueFillBuffer beyond(f);
  beyond.dstOffset = 256;
  ExpectRule(f, beyond, "XGPU-VUID-xgpuQueueFillBuffer-dstOffset");
}
RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueFillBuffer call(f);
  call.size = 6;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueFillBuffer-size");
  Call_xgpuQueueFillBuffer beyond(f);
  beyond.dstOffset = 128;
  beyond.size = 256;
  ExpectRule(f, beyond, "XGPU-VUID-xgpuQueueFillBuffer-size");
}
RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-dstBuffer-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueFillBuffer call(f);
  call.dstBuffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_STORAGE_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueFillBuffer-dstBuffer-usage");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  call.size = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-size");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-srcRange") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  call.srcOffset = 250;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-srcRange");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-dstRange") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  call.dstOffset = 250;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-dstRange");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-overlap") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  call.dstOffset = 8;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-overlap");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-srcBuffer-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  call.srcBuffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_TRANSFER_DST_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-srcBuffer-usage");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-dstBuffer-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  call.dstBuffer = NewBuffer(f, 256, XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-dstBuffer-usage");
}
RULE_TEST("XGPU-VUID-xgpuQueueAlloca-size") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueAlloca call(f);
  call.size = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueAlloca-size");
  CHECK(call.pBuffer_storage[0] == XGPU_NULL_HANDLE);
}
RULE_TEST("XGPU-VUID-xgpuQueueAlloca-usage") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueAlloca call(f);
  call.usage = 0;
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueAlloca-usage");
}
RULE_TEST("XGPU-VUID-xgpuQueueDealloca-buffer-queueAllocated") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueDealloca call(f);
  call.buffer = f.buffer;  // from xgpuCreateBuffer
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueDealloca-buffer-queueAllocated");
}
RULE_TEST("XGPU-VUID-xgpuQueueDealloca-buffer-mapped") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueDealloca call(f);
  REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);  // the alloca committed
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, call.buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueDealloca-buffer-mapped");
  xgpuUnmapBuffer(f.device, call.buffer);
}

// ---- allocation callbacks at destroy ----

// Callbacks over aligned_alloc/free that count live blocks.
struct CountingAllocator {
  std::atomic<int64_t> live{0};
  XgpuAllocationCallbacks callbacks = {};
  CountingAllocator() {
    callbacks.pUserData = this;
    callbacks.pfnAllocation = [](void* user, size_t size, size_t alignment) -> void* {
      void* p = std::aligned_alloc(std::max<size_t>(alignment, sizeof(void*)),
                                   (size + alignment - 1) / alignment * alignment);
      if (p) ++static_cast<CountingAllocator*>(user)->live;
      return p;
    };
    callbacks.pfnReallocation = [](void*, void*, size_t, size_t) -> void* { return nullptr; };
    callbacks.pfnFree = [](void* user, void* memory) {
      if (memory) --static_cast<CountingAllocator*>(user)->live;
      std::free(memory);
    };
  }
};

// An object of each device-level type, created with `callbacks`, destroyed
// with NULL: refused (the object lives on), then destroyed with callbacks.
template <typename Create, typename Destroy>
void ExpectDestroyAllocatorRule(Fixture& f, const char* id, Create create, Destroy destroy) {
  CountingAllocator allocator;
  auto object = create(&allocator.callbacks);
  REQUIRE(object != nullptr);
  f.log.Clear();
  destroy(object, nullptr);
  f.ExpectOnly(id);
  f.log.Clear();
  destroy(object, &allocator.callbacks);  // still alive: this destroy is valid
  f.ExpectNone();
  CHECK(allocator.live == 0);
}

RULE_TEST("XGPU-VUID-xgpuDestroyBuffer-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroyBuffer-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuBufferCreateInfo info = {};
        info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
        FixupStruct(f, info);
        XgpuBuffer buffer = nullptr;
        xgpuCreateBuffer(f.device, &info, callbacks, &buffer);
        return buffer;
      },
      [&](XgpuBuffer buffer, const XgpuAllocationCallbacks* callbacks) { xgpuDestroyBuffer(f.device, buffer, callbacks); });
}
RULE_TEST("XGPU-VUID-xgpuDestroyMemoryPool-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroyMemoryPool-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuMemoryPoolCreateInfo info = {};
        info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
        FixupStruct(f, info);
        XgpuMemoryPool pool = nullptr;
        xgpuCreateMemoryPool(f.device, &info, callbacks, &pool);
        return pool;
      },
      [&](XgpuMemoryPool pool, const XgpuAllocationCallbacks* callbacks) {
        xgpuDestroyMemoryPool(f.device, pool, callbacks);
      });
}
RULE_TEST("XGPU-VUID-xgpuDestroySemaphore-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroySemaphore-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuSemaphoreCreateInfo info = {};
        info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
        XgpuSemaphore semaphore = nullptr;
        xgpuCreateSemaphore(f.device, &info, callbacks, &semaphore);
        return semaphore;
      },
      [&](XgpuSemaphore semaphore, const XgpuAllocationCallbacks* callbacks) {
        xgpuDestroySemaphore(f.device, semaphore, callbacks);
      });
}
RULE_TEST("XGPU-VUID-xgpuDestroyExecutable-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroyExecutable-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuExecutableCreateInfo info = {};
        info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
        info.pFilePath = XGPU_VALIDATION_TEST_KERNELS;
        XgpuExecutable executable = nullptr;
        xgpuCreateExecutable(f.device, &info, callbacks, &executable);
        return executable;
      },
      [&](XgpuExecutable executable, const XgpuAllocationCallbacks* callbacks) {
        xgpuDestroyExecutable(f.device, executable, callbacks);
      });
}
RULE_TEST("XGPU-VUID-xgpuDestroyPipeline-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroyPipeline-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuPipelineCreateInfo info = {};
        info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
        FixupStruct(f, info);
        XgpuPipeline pipeline = nullptr;
        xgpuCreatePipeline(f.device, &info, callbacks, &pipeline);
        return pipeline;
      },
      [&](XgpuPipeline pipeline, const XgpuAllocationCallbacks* callbacks) {
        xgpuDestroyPipeline(f.device, pipeline, callbacks);
      });
}
RULE_TEST("XGPU-VUID-xgpuDestroyCommandBuffer-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroyCommandBuffer-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuCommandBufferCreateInfo info = {};
        info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
        XgpuCommandBuffer cb = nullptr;
        xgpuCreateCommandBuffer(f.device, &info, callbacks, &cb);
        return cb;
      },
      [&](XgpuCommandBuffer cb, const XgpuAllocationCallbacks* callbacks) {
        xgpuDestroyCommandBuffer(f.device, cb, callbacks);
      });
}
RULE_TEST("XGPU-VUID-xgpuDestroyDebugMessenger-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuDebugMessengerCreateInfo info = f.log.CreateInfo();
  info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT;  // hears nothing of the layer's
  ExpectDestroyAllocatorRule(
      f, "XGPU-VUID-xgpuDestroyDebugMessenger-pAllocator-compatible",
      [&](const XgpuAllocationCallbacks* callbacks) {
        XgpuDebugMessenger messenger = nullptr;
        xgpuCreateDebugMessenger(f.instance, &info, callbacks, &messenger);
        return messenger;
      },
      [&](XgpuDebugMessenger messenger, const XgpuAllocationCallbacks* callbacks) {
        xgpuDestroyDebugMessenger(f.instance, messenger, callbacks);
      });
}
RULE_TEST("XGPU-VUID-xgpuDestroyDevice-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  // Reported, and the device is still destroyed, with the callbacks it was created with.
  CountingAllocator allocator;
  XgpuDeviceQueueCreateInfo queue = {};
  queue.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueCount = 1;
  XgpuDeviceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(f.physical_device, &info, &allocator.callbacks, &device) == XGPU_SUCCESS);
  CHECK(allocator.live > 0);
  f.log.Clear();
  xgpuDestroyDevice(device, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyDevice-pAllocator-compatible");
  CHECK(allocator.live == 0);
}
RULE_TEST("XGPU-VUID-xgpuDestroyInstance-pAllocator-compatible") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  CountingAllocator allocator;
  XgpuDebugMessengerCreateInfo chained = f.log.CreateInfo();
  const char* layers[] = {kLayerName};
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = &chained;
  info.enabledLayerCount = 1;
  info.ppEnabledLayerNames = layers;
  XgpuInstance instance = nullptr;
  REQUIRE(xgpuCreateInstance(&info, &allocator.callbacks, &instance) == XGPU_SUCCESS);
  f.log.Clear();
  xgpuDestroyInstance(instance, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyInstance-pAllocator-compatible");
}

// ---- pending work ----

// A submission held on the queue until the host signals `gate` to 1: its
// command buffer (one-shot, recording a fill of `buffer` and binding
// f.pipeline) is pending until then.
struct HeldSubmission {
  Fixture& f;
  XgpuSemaphore gate = nullptr;
  XgpuSemaphore done = nullptr;
  XgpuCommandBuffer cb = nullptr;
  XgpuBuffer buffer = nullptr;
  explicit HeldSubmission(Fixture& fixture) : f(fixture) {
    XgpuSemaphoreCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    REQUIRE(xgpuCreateSemaphore(f.device, &info, nullptr, &gate) == XGPU_SUCCESS);
    REQUIRE(xgpuCreateSemaphore(f.device, &info, nullptr, &done) == XGPU_SUCCESS);
    buffer = NewBuffer(f, 256, kAllUsage);
    cb = Recording(f, 0);
    const XgpuBufferRef dst = RefToBuffer(buffer);
    xgpuCmdFillBuffer(cb, &dst, "abcd", 4);
    xgpuCmdBindPipeline(cb, f.pipeline);
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    const uint64_t one = 1;
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.waitSemaphores = {1, &gate, &one};
    submit.commandBuffer = cb;
    submit.signalSemaphores = {1, &done, &one};
    REQUIRE(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
    f.log.Clear();
  }
  // Lets it run and waits for it (as the host observes: through `done`).
  void Release() {
    if (gate == nullptr) return;
    XgpuSemaphoreSignalInfo signal = {};
    signal.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
    signal.semaphore = gate;
    signal.value = 1;
    REQUIRE(xgpuSignalSemaphore(f.device, &signal) == XGPU_SUCCESS);
    XgpuSemaphoreWaitInfo wait = {};
    wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    wait.semaphoreCount = 1;
    wait.pSemaphores = &done;
    const uint64_t one = 1;
    wait.pValues = &one;
    REQUIRE(xgpuWaitSemaphores(f.device, &wait, kTimeoutNs) == XGPU_SUCCESS);
    xgpuDestroySemaphore(f.device, gate, nullptr);
    xgpuDestroySemaphore(f.device, done, nullptr);
    gate = done = nullptr;
  }
  ~HeldSubmission() { Release(); }
};

RULE_TEST("XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-pending") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  HeldSubmission held(f);
  xgpuDestroyCommandBuffer(f.device, held.cb, nullptr);  // refused: it lives on
  f.ExpectOnly("XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-pending");
  held.Release();
  f.log.Clear();
  CHECK(f.EndThroughLayer(held.cb) != XGPU_ERROR_INVALID_ARGUMENT);  // still a live handle
}
RULE_TEST("XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-pending") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  HeldSubmission held(f);
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT;
  ExpectResult(f, xgpuBeginCommandBuffer(held.cb, &begin), "XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-pending");
  held.Release();
  f.log.Clear();
  CHECK(xgpuBeginCommandBuffer(held.cb, &begin) == XGPU_SUCCESS);  // completed, as the host saw
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuDestroyBuffer-buffer-inUse") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  HeldSubmission held(f);
  xgpuDestroyBuffer(f.device, held.buffer, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyBuffer-buffer-inUse");
}
RULE_TEST("XGPU-VUID-xgpuDestroyPipeline-pipeline-inUse") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  HeldSubmission held(f);
  xgpuDestroyPipeline(f.device, f.pipeline, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroyPipeline-pipeline-inUse");
}
RULE_TEST("XGPU-VUID-xgpuDestroySemaphore-semaphore-inUse") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  HeldSubmission held(f);
  xgpuDestroySemaphore(f.device, held.gate, nullptr);
  f.ExpectOnly("XGPU-VUID-xgpuDestroySemaphore-semaphore-inUse");
}
RULE_TEST("XGPU-VUID-xgpuDestroyDevice-device-idle") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuDeviceQueueCreateInfo queue_info = {};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1;
  XgpuDeviceCreateInfo device_info = {};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(f.physical_device, &device_info, nullptr, &device) == XGPU_SUCCESS);
  XgpuQueue queue = nullptr;
  xgpuGetDeviceQueue(device, 0, 0, &queue);
  XgpuSemaphoreCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(xgpuCreateSemaphore(device, &info, nullptr, &semaphore) == XGPU_SUCCESS);
  const uint64_t one = 1;
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.signalSemaphores = {1, &semaphore, &one};
  REQUIRE(xgpuQueueSubmit(queue, 1, &submit) == XGPU_SUCCESS);
  xgpuDestroySemaphore(device, semaphore, nullptr);  // refused: the submission uses it
  f.log.Clear();
  // Reported, then destroyed once idle (the semaphore goes with it as a leftover).
  xgpuDestroyDevice(device, nullptr);
  std::vector<MessageLog::Message> messages = f.log.Messages();
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].id == "XGPU-VUID-xgpuDestroyDevice-device-children");
  CHECK(messages[1].id == "XGPU-VUID-xgpuDestroyDevice-device-idle");
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-inUse") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuBuffer gone = nullptr;
  {
    XgpuBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    FixupStruct(f, info);
    REQUIRE(xgpuCreateBuffer(f.device, &info, nullptr, &gone) == XGPU_SUCCESS);
  }
  XgpuCommandBuffer cb = Recording(f, 0);
  const XgpuBufferRef dst = RefToBuffer(gone);
  xgpuCmdFillBuffer(cb, &dst, "abcd", 4);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  xgpuDestroyBuffer(f.device, gone, nullptr);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  f.log.Clear();
  ExpectResult(f, xgpuQueueSubmit(f.queue, 1, &submit), "XGPU-VUID-xgpuQueueSubmit-pSubmits-inUse");
  CHECK(f.log.Messages().at(0).text.find("destroyed by xgpuDestroyBuffer") != std::string::npos);
}

// PendingWork remembers where the last operation's objects keep their uses
// and the recording whose objects were last found alive: a submission
// repeated with the same objects must still leave them in use, and a
// destroyed object must still be found gone.
TEST_CASE("a submission repeated with the same objects keeps them in use; one destroyed after is found gone") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuSemaphoreCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore gate = nullptr, done = nullptr;
  REQUIRE(xgpuCreateSemaphore(f.device, &info, nullptr, &gate) == XGPU_SUCCESS);
  REQUIRE(xgpuCreateSemaphore(f.device, &info, nullptr, &done) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  f.Defer([device, gate, done] {
    xgpuDestroySemaphore(device, gate, nullptr);
    xgpuDestroySemaphore(device, done, nullptr);
  });
  XgpuBufferCreateInfo buffer_info = {};
  buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  FixupStruct(f, buffer_info);
  XgpuBuffer buffer = nullptr;
  REQUIRE(xgpuCreateBuffer(f.device, &buffer_info, nullptr, &buffer) == XGPU_SUCCESS);
  XgpuCommandBuffer cb = f.BegunCommandBuffer(f.device, XGPU_COMMAND_BUFFER_MODE_REUSABLE, 0);
  const XgpuBufferRef dst = RefToBuffer(buffer);
  xgpuCmdFillBuffer(cb, &dst, "abcd", 4);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  auto submit = [&](uint64_t value) {
    XgpuSubmitInfo s = {};
    s.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    s.waitSemaphores = {1, &gate, &value};
    s.commandBuffer = cb;
    s.signalSemaphores = {1, &done, &value};
    return xgpuQueueSubmit(f.queue, 1, &s);
  };
  auto release = [&](uint64_t value) {
    XgpuSemaphoreSignalInfo signal = {};
    signal.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
    signal.semaphore = gate;
    signal.value = value;
    REQUIRE(xgpuSignalSemaphore(f.device, &signal) == XGPU_SUCCESS);
    XgpuSemaphoreWaitInfo wait = {};
    wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    wait.semaphoreCount = 1;
    wait.pSemaphores = &done;
    wait.pValues = &value;
    REQUIRE(xgpuWaitSemaphores(f.device, &wait, kTimeoutNs) == XGPU_SUCCESS);
  };
  f.log.Clear();
  for (uint64_t value = 1; value <= 3; ++value) {
    CAPTURE(value);
    REQUIRE(submit(value) == XGPU_SUCCESS);  // the same objects each time
    xgpuDestroyBuffer(f.device, buffer, nullptr);  // refused: held on the gate
    f.ExpectOnly("XGPU-VUID-xgpuDestroyBuffer-buffer-inUse");
    f.log.Clear();
    release(value);
    f.ExpectNone();
  }
  xgpuDestroyBuffer(f.device, buffer, nullptr);  // complete, as the host saw: destroyed
  f.ExpectNone();
  ExpectResult(f, submit(4), "XGPU-VUID-xgpuQueueSubmit-pSubmits-inUse");
}

// ---- semaphore payloads ----

XgpuSemaphore NewSemaphore(Fixture& f, uint64_t initial = 0) {
  XgpuSemaphoreCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.initialValue = initial;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(xgpuCreateSemaphore(f.device, &info, nullptr, &semaphore) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  f.Defer([device, semaphore] { xgpuDestroySemaphore(device, semaphore, nullptr); });
  return semaphore;
}

XgpuResult SignalOnly(Fixture& f, std::vector<XgpuSemaphore> semaphores, std::vector<uint64_t> values) {
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.signalSemaphores = {static_cast<uint32_t>(semaphores.size()), semaphores.data(), values.data()};
  f.log.Clear();
  return xgpuQueueSubmit(f.queue, 1, &submit);
}

RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-unique") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuSemaphore s = NewSemaphore(f);
  ExpectResult(f, SignalOnly(f, {s, s}, {1, 2}), "XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-unique");
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuSemaphore s = NewSemaphore(f, 5);
  ExpectResult(f, SignalOnly(f, {s}, {5}), "XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value");
  // Below a payload an earlier submission of the same call signals.
  const uint64_t seven = 7, six = 6;
  XgpuSubmitInfo submits[2] = {};
  submits[0].sType = submits[1].sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submits[0].signalSemaphores = {1, &s, &seven};
  submits[1].signalSemaphores = {1, &s, &six};
  f.log.Clear();
  ExpectResult(f, xgpuQueueSubmit(f.queue, 2, submits), "XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value");
  CHECK(f.log.Messages().at(0).text.find("pSubmits[1].signalSemaphores.pValues[0]") != std::string::npos);
  // Valid: 6 and then 7.
  std::swap(submits[0].signalSemaphores, submits[1].signalSemaphores);
  f.log.Clear();
  CHECK(xgpuQueueSubmit(f.queue, 2, submits) == XGPU_SUCCESS);
  CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-value") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuSemaphore s = NewSemaphore(f, 3);
  XgpuSemaphoreSignalInfo signal = {};
  signal.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  signal.semaphore = s;
  signal.value = 3;  // not greater than the current payload
  f.log.Clear();
  ExpectResult(f, xgpuSignalSemaphore(f.device, &signal), "XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-value");
  // Not below a payload a held queue operation will signal.
  XgpuSemaphore gate = NewSemaphore(f);
  const uint64_t one = 1, ten = 10;
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.waitSemaphores = {1, &gate, &one};
  submit.signalSemaphores = {1, &s, &ten};
  REQUIRE(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
  signal.value = 10;
  f.log.Clear();
  ExpectResult(f, xgpuSignalSemaphore(f.device, &signal), "XGPU-VUID-xgpuSignalSemaphore-pSignalInfo-value");
  signal.value = 9;  // valid: between
  f.log.Clear();
  CHECK(xgpuSignalSemaphore(f.device, &signal) == XGPU_SUCCESS);
  signal.semaphore = gate;
  signal.value = 1;
  CHECK(xgpuSignalSemaphore(f.device, &signal) == XGPU_SUCCESS);
  CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-semaphores") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueFillBuffer call(f);
  SetRaw(call.pSignalSemaphores->pValues[0], 0);  // the fixture's semaphore is at 0 already
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueFillBuffer-semaphores");
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-semaphores") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueCopyBuffer call(f);
  SetRaw(call.pSignalSemaphores->pValues[0], 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueCopyBuffer-semaphores");
}
RULE_TEST("XGPU-VUID-xgpuQueueAlloca-semaphores") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueAlloca call(f);
  SetRaw(call.pSignalSemaphores->pValues[0], 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueAlloca-semaphores");
}
RULE_TEST("XGPU-VUID-xgpuQueueDealloca-semaphores") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuQueueDealloca call(f);
  SetRaw(call.pSignalSemaphores->pValues[0], 0);
  ExpectRule(f, call, "XGPU-VUID-xgpuQueueDealloca-semaphores");
}

// ---- queue-ordered allocation ----

// A device with two queues, a host-visible pool and a semaphore.
struct TwoQueues {
  Fixture& f;
  XgpuDevice device = nullptr;
  XgpuQueue q[2] = {};
  XgpuMemoryPool pool = nullptr;
  XgpuSemaphore semaphore = nullptr;
  explicit TwoQueues(Fixture& fixture) : f(fixture) {
    XgpuDeviceQueueCreateInfo queue_info = {};
    queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueCount = 2;
    XgpuDeviceCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    REQUIRE(xgpuCreateDevice(f.physical_device, &info, nullptr, &device) == XGPU_SUCCESS);
    xgpuGetDeviceQueue(device, 0, 0, &q[0]);
    xgpuGetDeviceQueue(device, 0, 1, &q[1]);
    XgpuMemoryPoolCreateInfo pool_info = {};
    pool_info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
    FixupStruct(f, pool_info);
    REQUIRE(xgpuCreateMemoryPool(device, &pool_info, nullptr, &pool) == XGPU_SUCCESS);
    XgpuSemaphoreCreateInfo semaphore_info = {};
    semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    REQUIRE(xgpuCreateSemaphore(device, &semaphore_info, nullptr, &semaphore) == XGPU_SUCCESS);
  }
  // A buffer allocated on q[0], its alloca signalling `semaphore` to `value`.
  XgpuBuffer Alloca(uint64_t value) {
    XgpuSemaphoreList signal = {1, &semaphore, &value};
    XgpuBuffer buffer = nullptr;
    REQUIRE(xgpuQueueAlloca(q[0], nullptr, &signal, pool, 256, kAllUsage, &buffer) == XGPU_SUCCESS);
    return buffer;
  }
  void Dealloca(XgpuBuffer buffer) {
    REQUIRE(xgpuDeviceWaitIdle(device) == XGPU_SUCCESS);
    REQUIRE(xgpuQueueDealloca(q[0], nullptr, nullptr, buffer) == XGPU_SUCCESS);
  }
  ~TwoQueues() {
    xgpuDeviceWaitIdle(device);
    xgpuDestroySemaphore(device, semaphore, nullptr);
    xgpuDestroyMemoryPool(device, pool, nullptr);
    xgpuDestroyDevice(device, nullptr);
  }
};

RULE_TEST("XGPU-VUID-xgpuMapBuffer-buffer-committed") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer buffer = t.Alloca(1);
  void* data = nullptr;
  f.log.Clear();
  ExpectResult(f, xgpuMapBuffer(t.device, buffer, 0, XGPU_WHOLE_SIZE, &data),
               "XGPU-VUID-xgpuMapBuffer-buffer-committed");
  // Once the host saw the alloca's signal, it may.
  XgpuSemaphoreWaitInfo wait = {};
  wait.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  wait.semaphoreCount = 1;
  wait.pSemaphores = &t.semaphore;
  const uint64_t one = 1;
  wait.pValues = &one;
  REQUIRE(xgpuWaitSemaphores(t.device, &wait, kTimeoutNs) == XGPU_SUCCESS);
  f.log.Clear();
  CHECK(xgpuMapBuffer(t.device, buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  xgpuUnmapBuffer(t.device, buffer);
  f.ExpectNone();
  t.Dealloca(buffer);
}
RULE_TEST("XGPU-VUID-xgpuGetBufferDeviceAddress-buffer-committed") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer buffer = t.Alloca(1);
  f.log.Clear();
  CHECK(xgpuGetBufferDeviceAddress(t.device, buffer) == 0);
  f.ExpectOnly("XGPU-VUID-xgpuGetBufferDeviceAddress-buffer-committed");
  t.Dealloca(buffer);
}
RULE_TEST("XGPU-VUID-xgpuQueueSubmit-pSubmits-queueAllocated") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer buffer = t.Alloca(1);
  XgpuCommandBufferCreateInfo create = {};
  create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(xgpuCreateCommandBuffer(t.device, &create, nullptr, &cb) == XGPU_SUCCESS);
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
  begin.bindingCapacity = 1;
  REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  const XgpuBufferRef slot = RefToSlot(0);
  xgpuCmdFillBuffer(cb, &slot, "abcd", 4);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  const XgpuBufferBinding binding = Whole(buffer);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  submit.bindingCount = 1;
  submit.pBindings = &binding;
  f.log.Clear();
  // On the other queue, waiting on nothing: it may run before the allocation commits.
  ExpectResult(f, xgpuQueueSubmit(t.q[1], 1, &submit), "XGPU-VUID-xgpuQueueSubmit-pSubmits-queueAllocated");
  // Waiting on the alloca's signal payload: valid.
  const uint64_t one = 1;
  submit.waitSemaphores = {1, &t.semaphore, &one};
  f.log.Clear();
  CHECK(xgpuQueueSubmit(t.q[1], 1, &submit) == XGPU_SUCCESS);
  f.ExpectNone();
  REQUIRE(xgpuDeviceWaitIdle(t.device) == XGPU_SUCCESS);
  xgpuDestroyCommandBuffer(t.device, cb, nullptr);
  t.Dealloca(buffer);
}
RULE_TEST("XGPU-VUID-xgpuQueueFillBuffer-dstBuffer-queueAllocated") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer buffer = t.Alloca(1);
  f.log.Clear();
  ExpectResult(f, xgpuQueueFillBuffer(t.q[1], nullptr, nullptr, buffer, 0, XGPU_WHOLE_SIZE, "abcd", 4),
               "XGPU-VUID-xgpuQueueFillBuffer-dstBuffer-queueAllocated");
  t.Dealloca(buffer);
}
RULE_TEST("XGPU-VUID-xgpuQueueCopyBuffer-queueAllocated") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer a = t.Alloca(1);
  XgpuBuffer b = t.Alloca(2);
  REQUIRE(xgpuDeviceWaitIdle(t.device) == XGPU_SUCCESS);  // b's alloca seen committed; a's too
  XgpuBuffer c = t.Alloca(3);                              // not seen
  f.log.Clear();
  ExpectResult(f, xgpuQueueCopyBuffer(t.q[1], nullptr, nullptr, b, 0, c, 0, 16),
               "XGPU-VUID-xgpuQueueCopyBuffer-queueAllocated");
  t.Dealloca(a);
  t.Dealloca(b);
  t.Dealloca(c);
}
RULE_TEST("XGPU-VUID-xgpuQueueDealloca-buffer-ordered") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer buffer = t.Alloca(1);
  // q[1] fills it after the commit and signals 2; the host has not seen that.
  const uint64_t one = 1, two = 2;
  XgpuSemaphoreList wait = {1, &t.semaphore, &one};
  XgpuSemaphoreList signal = {1, &t.semaphore, &two};
  REQUIRE(xgpuQueueFillBuffer(t.q[1], &wait, &signal, buffer, 0, XGPU_WHOLE_SIZE, "abcd", 4) == XGPU_SUCCESS);
  f.log.Clear();
  ExpectResult(f, xgpuQueueDealloca(t.q[0], nullptr, nullptr, buffer), "XGPU-VUID-xgpuQueueDealloca-buffer-ordered");
  // Waiting for the fill's payload: valid.
  f.log.Clear();
  CHECK(xgpuQueueDealloca(t.q[0], &signal, nullptr, buffer) == XGPU_SUCCESS);
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuDestroyMemoryPool-memoryPool-allocations") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  TwoQueues t(f);
  XgpuBuffer buffer = t.Alloca(1);
  f.log.Clear();
  xgpuDestroyMemoryPool(t.device, t.pool, nullptr);  // refused: the pool lives on
  f.ExpectOnly("XGPU-VUID-xgpuDestroyMemoryPool-memoryPool-allocations");
  REQUIRE(xgpuQueueDealloca(t.q[0], nullptr, nullptr, buffer) == XGPU_SUCCESS);
  f.log.Clear();
  xgpuDestroyMemoryPool(t.device, t.pool, nullptr);  // the dealloca is not seen complete
  f.ExpectOnly("XGPU-VUID-xgpuDestroyMemoryPool-memoryPool-allocations");
  REQUIRE(xgpuQueueWaitIdle(t.q[0]) == XGPU_SUCCESS);
  f.log.Clear();
}

// ---- indirect-dispatch hazards ----

RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-static-written") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuBuffer counts = NewBuffer(f, 64, kAllUsage);
  Call_xgpuCmdDispatchIndirect call(f);
  const XgpuBufferRef written = RefToBuffer(counts, 0, 16);
  xgpuCmdFillBuffer(call.commandBuffer, &written, "abcd", 4);  // command 3, after the fixup's three
  call.pCounts_storage[0] = RefToBuffer(counts, 4, 12);
  call.flags = XGPU_DISPATCH_INDIRECT_STATIC_BIT;
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-static-written");
  // Bytes the fill does not write: valid.
  Call_xgpuCmdDispatchIndirect apart(f);
  const XgpuBufferRef other = RefToBuffer(counts, 32, 16);
  xgpuCmdFillBuffer(apart.commandBuffer, &other, "abcd", 4);
  apart.pCounts_storage[0] = RefToBuffer(counts, 0, 12);
  apart.flags = XGPU_DISPATCH_INDIRECT_STATIC_BIT;
  f.log.Clear();
  apart.InvokeLayer(f);
  f.ExpectNone();
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-dynamic-barrier") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.pCounts_storage[0] = RefToSlot(0, 0, 12);
  // A dispatch writes slot 0 (bound to it); no barrier before the indirect read.
  const XgpuBufferRef refs[2] = {RefToSlot(0), RefToBuffer(f.buffer)};
  xgpuCmdBindBuffers(call.commandBuffer, 0, 2, refs);
  xgpuCmdDispatch(call.commandBuffer, 1, 1, 1);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-dynamic-barrier");
  // With the barrier: valid.
  Call_xgpuCmdDispatchIndirect fenced(f);
  fenced.pCounts_storage[0] = RefToSlot(0, 0, 12);
  xgpuCmdBindBuffers(fenced.commandBuffer, 0, 2, refs);
  xgpuCmdDispatch(fenced.commandBuffer, 1, 1, 1);
  xgpuCmdMemoryBarrier(fenced.commandBuffer, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_INDIRECT_BIT, XGPU_ACCESS_INDIRECT_READ_BIT);
  f.log.Clear();
  fenced.InvokeLayer(f);
  f.ExpectNone();
  // Written, made visible, then written again by the same bindings: the
  // second write needs a barrier of its own.
  Call_xgpuCmdDispatchIndirect again(f);
  again.pCounts_storage[0] = RefToSlot(0, 0, 12);
  xgpuCmdBindBuffers(again.commandBuffer, 0, 2, refs);
  xgpuCmdDispatch(again.commandBuffer, 1, 1, 1);
  xgpuCmdMemoryBarrier(again.commandBuffer, XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_WRITE_BIT,
                       XGPU_PIPELINE_STAGE_INDIRECT_BIT, XGPU_ACCESS_INDIRECT_READ_BIT);
  xgpuCmdDispatch(again.commandBuffer, 1, 1, 1);
  f.log.Clear();
  ExpectRule(f, again, "XGPU-VUID-xgpuCmdDispatchIndirect-dynamic-barrier");
}

TEST_CASE("indirect-dispatch hazards that only the binding table reveals are reported at xgpuQueueSubmit") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  // Counts of zero workgroups, so the valid submissions dispatch nothing.
  XgpuBuffer zeros = NewBuffer(f, 256, kAllUsage);
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, zeros, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  std::memset(data, 0, 256);
  xgpuUnmapBuffer(f.device, zeros);
  for (const bool is_static : {true, false}) {
    XgpuCommandBuffer cb = Recording(f, 2);
    const XgpuBufferRef written = RefToSlot(1, 0, 16);
    xgpuCmdFillBuffer(cb, &written, "abcd", 4);
    ReadyToDispatch(f, cb);
    const XgpuBufferRef counts = RefToSlot(0, 0, 12);
    xgpuCmdDispatchIndirect(cb, &counts, is_static ? XGPU_DISPATCH_INDIRECT_STATIC_BIT : XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    f.ExpectNone();  // slots 0 and 1 may be different buffers
    // Both slots the same buffer: the counts are the filled bytes.
    ExpectResult(f, Submit(f, cb, {Whole(zeros), Whole(zeros)}),
                 is_static ? "XGPU-VUID-xgpuCmdDispatchIndirect-static-written"
                           : "XGPU-VUID-xgpuCmdDispatchIndirect-dynamic-barrier",
                 "xgpuQueueSubmit");
    // Different buffers: valid.
    XgpuBuffer other = NewBuffer(f, 256, kAllUsage);
    XgpuBufferBinding bindings[2] = {Whole(zeros), Whole(other)};
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.bindingCount = 2;
    submit.pBindings = bindings;
    f.log.Clear();
    CHECK(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
    CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
    f.ExpectNone();
  }
}

RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-static-counts") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  // Counts in a buffer the application keeps mapped; the queue is idle and
  // the submission waits on nothing, so they are final at the call.
  XgpuBuffer counts = NewBuffer(f, 256, kAllUsage);
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, counts, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  uint32_t* words = static_cast<uint32_t*>(data);
  std::memset(data, 0, 256);
  // One workgroup more in x than the fixture's pipeline allows (its
  // workgroup size divides the device's grid limit).
  XgpuPipelineProperties properties = {};
  xgpuGetPipelineProperties(f.device, f.pipeline, &properties);
  REQUIRE(properties.maxWorkgroupCount[0] < UINT32_MAX);
  const uint32_t too_many = properties.maxWorkgroupCount[0] + 1u;
  words[4] = too_many;
  words[5] = 1;
  words[6] = 1;
  for (const bool through_slot : {true, false}) {
    INFO("through a slot: " << through_slot);
    XgpuCommandBuffer cb = Recording(f, 1);
    ReadyToDispatch(f, cb);
    const XgpuBufferRef ref = through_slot ? RefToSlot(0, 16, 12) : RefToBuffer(counts, 16, 12);
    xgpuCmdDispatchIndirect(cb, &ref, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
    f.ExpectNone();  // the counts are read when the submission is issued
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    REQUIRE(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
    f.log.Clear();
    XgpuBufferBinding binding = Whole(counts);
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.bindingCount = 1;
    submit.pBindings = &binding;
    CHECK(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_ERROR_INVALID_ARGUMENT);
    f.ExpectOnly("XGPU-VUID-xgpuCmdDispatchIndirect-static-counts", "xgpuQueueSubmit");
    REQUIRE(!f.log.Messages().empty());
    CHECK(f.log.Messages().at(0).text.find("exceed the bound pipeline's maxWorkgroupCount") != std::string::npos);
    // Counts of zero workgroups (an empty dispatch): valid.
    words[4] = 0;
    f.log.Clear();
    CHECK(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
    CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
    f.ExpectNone();
    words[4] = too_many;
  }
  xgpuUnmapBuffer(f.device, counts);
}

// ---- workgroup memory ----

// A recording with the 1 KiB-static-memory kernel bound (binding set) and
// the largest dynamic size the device allows: static + dynamic is too much.
XgpuCommandBuffer TooMuchWorkgroupMemory(Fixture& f) {
  XgpuPipelineCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  info.executable = f.executable;
  info.pEntryPoint = "validation_shared";
  info.bindingCount = 1;
  info.workgroupSize[0] = 64;
  info.workgroupSize[1] = 1;
  info.workgroupSize[2] = 1;
  XgpuPipeline pipeline = nullptr;
  REQUIRE(xgpuCreatePipeline(f.device, &info, nullptr, &pipeline) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  XgpuCommandBuffer cb = Recording(f, 0);  // created after: destroyed before the pipeline
  f.Defer([device, pipeline] { xgpuDestroyPipeline(device, pipeline, nullptr); });
  xgpuCmdBindPipeline(cb, pipeline);
  const XgpuBufferRef out = RefToBuffer(f.buffer);
  xgpuCmdBindBuffers(cb, 0, 1, &out);
  xgpuCmdSetWorkgroupMemorySize(cb, Limits(f).maxWorkgroupMemorySize);
  f.log.Clear();
  return cb;
}

RULE_TEST("XGPU-VUID-xgpuCmdDispatch-workgroupMemory") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatch call(f);
  call.commandBuffer = TooMuchWorkgroupMemory(f);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatch-workgroupMemory");
}
RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-workgroupMemory") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  Call_xgpuCmdDispatchIndirect call(f);
  call.commandBuffer = TooMuchWorkgroupMemory(f);
  ExpectRule(f, call, "XGPU-VUID-xgpuCmdDispatchIndirect-workgroupMemory");
}

// ValidateCmdDispatch answers from a cache filled by an accepted dispatch:
// each input the cache stands for, changed after it was filled, must bring
// the full check back.
TEST_CASE("an accepted dispatch's checks run again in full once what they read changes") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  const XgpuPhysicalDeviceLimits limits = Limits(f);
  XgpuCommandBuffer cb = TooMuchWorkgroupMemory(f);  // 1 KiB static, the most dynamic memory
  xgpuCmdSetWorkgroupMemorySize(cb, 0);
  xgpuCmdDispatch(cb, 1, 1, 1);
  f.ExpectNone();
  // More dynamic memory after the cache was filled.
  xgpuCmdSetWorkgroupMemorySize(cb, limits.maxWorkgroupMemorySize);
  xgpuCmdDispatch(cb, 1, 1, 1);
  f.ExpectOnly("XGPU-VUID-xgpuCmdDispatch-workgroupMemory");
  f.log.Clear();
  xgpuCmdSetWorkgroupMemorySize(cb, 0);
  xgpuCmdDispatch(cb, 2, 1, 1);
  f.ExpectNone();
  // Group counts past the grid of the 64-item workgroups, then within it again.
  const uint64_t count = std::min<uint64_t>(uint64_t{limits.maxWorkgroupCount[0]} + 1, limits.maxGridSize[0] / 64 + 1);
  REQUIRE(count <= UINT32_MAX);
  xgpuCmdDispatch(cb, static_cast<uint32_t>(count), 1, 1);
  f.ExpectOnly("XGPU-VUID-xgpuCmdDispatch-groupCount");
  f.log.Clear();
  xgpuCmdDispatch(cb, static_cast<uint32_t>(count - 1), 1, 1);
  xgpuCmdDispatch(cb, 1, limits.maxWorkgroupCount[1], 1);
  f.ExpectNone();
  // Another pipeline, with a binding and constants this recording never set.
  xgpuCmdBindPipeline(cb, f.pipeline);
  xgpuCmdDispatch(cb, 1, 1, 1);
  REQUIRE(f.log.Messages().size() == 2);
  CHECK(f.log.Messages().at(0).id == "XGPU-VUID-xgpuCmdDispatch-bindings");
  CHECK(f.log.Messages().at(1).id == "XGPU-VUID-xgpuCmdDispatch-constants");
  f.log.Clear();
  const XgpuBufferRef refs[2] = {RefToBuffer(f.buffer), RefToBuffer(f.buffer)};
  xgpuCmdBindBuffers(cb, 0, 2, refs);
  const uint32_t constants[2] = {};
  xgpuCmdPushConstants(cb, 0, 8, constants);
  xgpuCmdDispatch(cb, 1, 1, 1);
  f.ExpectNone();
  f.log.Clear();
  CHECK(std::string(xgpuResultString(f.EndThroughLayer(cb))) ==
        ErrorOfRule("XGPU-VUID-xgpuCmdDispatch-workgroupMemory"));  // the first reported dispatch's
}

// ---- valid use ----

TEST_CASE("valid recordings and submissions of every checked command report nothing") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuBuffer a = NewBuffer(f, 1024, kAllUsage);
  XgpuBuffer b = NewBuffer(f, 1024, kAllUsage);
  XgpuBuffer counts = NewBuffer(f, 64, kAllUsage);
  void* mapped = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, counts, 0, XGPU_WHOLE_SIZE, &mapped) == XGPU_SUCCESS);
  const uint32_t groups[3] = {1, 1, 1};
  std::memcpy(mapped, groups, sizeof(groups));
  xgpuUnmapBuffer(f.device, counts);
  for (XgpuCommandBufferMode mode : {XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, XGPU_COMMAND_BUFFER_MODE_REUSABLE}) {
    XgpuCommandBuffer cb = f.BegunCommandBuffer(f.device, mode, 3);
    XgpuDebugLabel label = {};
    label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
    label.pLabelName = "all";
    xgpuCmdBeginDebugLabel(cb, &label);
    const XgpuBufferRef slot0 = RefToSlot(0), slot1 = RefToSlot(1), slot2 = RefToSlot(2, 0, 12);
    // Between transfers on the same bytes (slot 0 is bytes [0, 512) of a): the
    // barrier that orders them (else a synchronization-hazard warning).
    auto transfer_barrier = [cb] {
      xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                           XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_READ_BIT | XGPU_ACCESS_TRANSFER_WRITE_BIT);
    };
    xgpuCmdFillBuffer(cb, &slot0, "abcd", 4);
    transfer_barrier();
    const XgpuBufferRef direct_a = RefToBuffer(a, 0, 64), direct_b = RefToBuffer(b, 512, 64);
    xgpuCmdFillBuffer(cb, &direct_a, "ab", 2);
    transfer_barrier();
    xgpuCmdCopyBuffer(cb, &direct_a, &direct_b, 64);
    xgpuCmdCopyBuffer(cb, &slot0, &slot1, 128);
    transfer_barrier();
    const uint32_t words[4] = {1, 2, 3, 4};
    xgpuCmdUpdateBuffer(cb, &slot1, sizeof(words), words);
    xgpuCmdMemoryBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_DISPATCH_BIT | XGPU_PIPELINE_STAGE_INDIRECT_BIT,
                         XGPU_ACCESS_SHADER_READ_BIT | XGPU_ACCESS_INDIRECT_READ_BIT | XGPU_ACCESS_MEMORY_READ_BIT);
    XgpuBufferMemoryBarrier barrier = {};
    barrier.sType = XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.srcAccessMask = XGPU_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = XGPU_ACCESS_SHADER_READ_BIT;
    barrier.buffer = slot1;
    xgpuCmdPipelineBarrier(cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_PIPELINE_STAGE_DISPATCH_BIT, 0, nullptr, 1,
                           &barrier);
    xgpuCmdBindPipeline(cb, f.pipeline);
    const XgpuBufferRef bound[2] = {slot0, RefToBuffer(b)};
    xgpuCmdBindBuffers(cb, 0, 2, bound);
    const uint32_t constants[2] = {0, 0};
    xgpuCmdPushConstants(cb, 0, 4, &constants[0]);
    xgpuCmdPushConstants(cb, 4, 4, &constants[1]);
    xgpuCmdSetWorkgroupMemorySize(cb, 0);
    xgpuCmdDispatch(cb, 1, 1, 1);
    xgpuCmdDispatchIndirect(cb, &slot2, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT);
    const XgpuBufferRef direct_counts = RefToBuffer(counts, 0, 12);
    xgpuCmdDispatchIndirect(cb, &direct_counts, XGPU_DISPATCH_INDIRECT_STATIC_BIT);
    const XgpuBufferRef stamp = RefToBuffer(a, 1016, 8);
    xgpuCmdWriteTimestamp(cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, &stamp);
    xgpuCmdEndDebugLabel(cb);
    REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    const XgpuBufferBinding bindings[3] = {XgpuBufferBinding{a, 0, 512}, XgpuBufferBinding{b, 0, XGPU_WHOLE_SIZE},
                                           Whole(counts)};
    XgpuSubmitInfo submit = {};
    submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBuffer = cb;
    submit.bindingCount = 3;
    submit.pBindings = bindings;
    CHECK(xgpuQueueSubmit(f.queue, 1, &submit) == XGPU_SUCCESS);
    CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  }
  CHECK(xgpuQueueFillBuffer(f.queue, nullptr, nullptr, a, 4, 8, "abcd", 4) == XGPU_SUCCESS);
  CHECK(xgpuQueueCopyBuffer(f.queue, nullptr, nullptr, a, 0, a, 512, 256) == XGPU_SUCCESS);
  CHECK(xgpuQueueWaitIdle(f.queue) == XGPU_SUCCESS);
  f.ExpectNone();
}

}  // namespace
}  // namespace vtest
