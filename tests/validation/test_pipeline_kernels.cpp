// The xgpuCreatePipeline rules that need the kernel's metadata, which the
// layer reads from the executable's bytes at xgpuCreateExecutable: the
// declared layout, the kernarg size, the required workgroup size and the
// static workgroup memory. Each negative test expects exactly its rule's ID
// from the layer (which then does not call the driver: the driver, which
// checks the same rules, would report a second message) and its error; the
// positive cases expect silence.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "calls.h"
#include "layout_test_kernels.h"
#include "validation_test_kernels.h"
#include "xgpu/xgpu_enum_string.h"

namespace vtest {
namespace {

#define PIPELINE_RULE_TEST(id)                                                                          \
  static const bool DOCTEST_ANONYMOUS(PIPELINE_RULE_TEST_REGISTERED_) = RegisterRuleTest(id); \
  TEST_CASE(id)

std::vector<uint8_t> ReadFile(const char* path) {
  std::ifstream stream(path, std::ios::binary);
  REQUIRE_MESSAGE(stream.good(), "cannot read ", path);
  return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
}

// An executable of the fixture's device from code bytes (from_bytes) or a
// path; destroyed at the test's end.
XgpuExecutable Executable(Fixture& f, const char* path, bool from_bytes) {
  static std::vector<uint8_t> bytes;  // outlives the call (the layer reads it during the call only)
  XgpuExecutableCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  if (from_bytes) {
    bytes = ReadFile(path);
    info.pCode = bytes.data();
    info.codeSize = bytes.size();
  } else {
    info.pFilePath = path;
  }
  XgpuExecutable executable = nullptr;
  REQUIRE(xgpuCreateExecutable(f.device, &info, nullptr, &executable) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  f.Defer([device, executable] { xgpuDestroyExecutable(device, executable, nullptr); });
  return executable;
}
XgpuExecutable LayoutKernels(Fixture& f) { return Executable(f, XGPU_VALIDATION_TEST_LAYOUT_KERNELS, true); }

struct PipelineArgs {
  uint32_t binding_count;
  uint32_t constant_size;
  uint32_t size[3];
};

// xgpuCreatePipeline through the loader (the layer is on).
XgpuResult Create(Fixture& f, XgpuExecutable executable, const char* entry, PipelineArgs args, XgpuPipeline* out) {
  XgpuPipelineCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  info.executable = executable;
  info.pEntryPoint = entry;
  info.bindingCount = args.binding_count;
  info.constantSize = args.constant_size;
  for (int d = 0; d < 3; ++d) info.workgroupSize[d] = args.size[d];
  *out = Sentinel<XgpuPipeline>();
  return xgpuCreatePipeline(f.device, &info, nullptr, out);
}

// The call breaks exactly rule `id`: only it is reported, the call returns
// its error, and no pipeline is made. Returns the message's text.
std::string ExpectRefused(Fixture& f, XgpuExecutable executable, const char* entry, PipelineArgs args,
                          const char* id) {
  f.log.Clear();
  XgpuPipeline pipeline = nullptr;
  const XgpuResult result = Create(f, executable, entry, args, &pipeline);
  f.ExpectOnly(id);
  CHECK(std::string(xgpuResultString(result)) == ErrorOfRule(id));
  CHECK(pipeline == XGPU_NULL_HANDLE);
  const auto messages = f.log.Messages();
  return messages.empty() ? "" : messages[0].text;
}

// The call is valid: nothing is reported and the pipeline has these properties.
XgpuPipelineProperties ExpectCreated(Fixture& f, XgpuExecutable executable, const char* entry, PipelineArgs args) {
  f.log.Clear();
  XgpuPipeline pipeline = nullptr;
  REQUIRE(Create(f, executable, entry, args, &pipeline) == XGPU_SUCCESS);
  f.ExpectNone();
  XgpuPipelineProperties properties = {};
  xgpuGetPipelineProperties(f.device, pipeline, &properties);
  xgpuDestroyPipeline(f.device, pipeline, nullptr);
  return properties;
}

constexpr uint32_t kSaxpyBindings = 2;                                      // validation_saxpy: x, y
constexpr uint32_t kSaxpyConstants = sizeof(validation_saxpy_args_t) - 16;  // a, n
constexpr uint32_t kLayoutConstants = sizeof(validation_layout_args_t) - 8;  // n, value

}  // namespace

PIPELINE_RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-declared") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  // validation_saxpy declares no layout and has kernargs: both counts 0 name no layout.
  const std::string text = ExpectRefused(f, f.executable, "validation_saxpy", {0, 0, {64, 1, 1}},
                                         "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-declared");
  CHECK(text.find("kernel \"validation_saxpy\" declares no layout (its kernarg struct is " +
                  std::to_string(sizeof(validation_saxpy_args_t)) + " bytes)") != std::string::npos);
  // Positive: the layout given, or a kernel that declares its own.
  const XgpuPipelineProperties given =
      ExpectCreated(f, f.executable, "validation_saxpy", {kSaxpyBindings, kSaxpyConstants, {64, 1, 1}});
  CHECK(given.bindingCount == kSaxpyBindings);
  const XgpuPipelineProperties declared = ExpectCreated(f, LayoutKernels(f), "validation_declared", {0, 0, {64, 1, 1}});
  CHECK(declared.bindingCount == 1);
  CHECK(declared.constantSize == kLayoutConstants);
}

PIPELINE_RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-matches") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuExecutable executable = LayoutKernels(f);
  // 2 bindings and no constants: the kernarg size (16 bytes) agrees, the declared layout (1, 8) does not.
  const std::string text = ExpectRefused(f, executable, "validation_declared", {2, 0, {64, 1, 1}},
                                         "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-matches");
  CHECK(text.find("declares bindingCount 1, constantSize " + std::to_string(kLayoutConstants)) != std::string::npos);
  // A different size too: still the one rule.
  ExpectRefused(f, executable, "validation_declared", {1, 4, {64, 1, 1}},
                "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-layout-matches");
  // Positive: the declared layout given again.
  const XgpuPipelineProperties same = ExpectCreated(f, executable, "validation_declared", {1, kLayoutConstants, {64, 1, 1}});
  CHECK(same.constantSize == kLayoutConstants);
}

PIPELINE_RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-kernargSize") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  // 2 bindings + 16 bytes = 32, the struct is 24 bytes.
  const std::string text = ExpectRefused(f, f.executable, "validation_saxpy", {kSaxpyBindings, 16, {64, 1, 1}},
                                         "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-kernargSize");
  CHECK(text.find("= 32 bytes, but the kernarg struct of kernel \"validation_saxpy\" is 24 bytes") != std::string::npos);
  ExpectRefused(f, f.executable, "validation_saxpy", {1, 0, {64, 1, 1}},
                "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-kernargSize");
  // A count above the limit is that rule alone (the size is not compared as well).
  f.log.Clear();
  XgpuPhysicalDeviceProperties properties = {};
  xgpuGetPhysicalDeviceProperties(f.physical_device, &properties);
  ExpectRefused(f, f.executable, "validation_saxpy", {properties.limits.maxBindings + 1, 0, {64, 1, 1}},
                "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-bindingCount");
  // Positive: the size agrees (an undeclared layout is not otherwise known).
  ExpectCreated(f, f.executable, "validation_saxpy", {kSaxpyBindings, kSaxpyConstants, {64, 1, 1}});
  ExpectCreated(f, f.executable, "validation_saxpy", {3, 0, {64, 1, 1}});
}

PIPELINE_RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize-required") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuExecutable executable = LayoutKernels(f);
  SUBCASE("a size other than the kernel's required one") {
    const std::string text = ExpectRefused(f, executable, "validation_sized", {0, 0, {64, 1, 1}},
                                           "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize-required");
    CHECK(text.find("(64, 1, 1), but kernel \"validation_sized\" requires (32, 2, 1)") != std::string::npos);
  }
  SUBCASE("(0, 0, 0) for a kernel without a required size") {
    ExpectRefused(f, executable, "validation_declared", {0, 0, {0, 0, 0}},
                  "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize-required");
  }
  SUBCASE("positive: (0, 0, 0) takes the required size, which may also be given") {
    const XgpuPipelineProperties taken = ExpectCreated(f, executable, "validation_sized", {0, 0, {0, 0, 0}});
    CHECK(taken.workgroupSize[0] == VALIDATION_SIZED_X);
    CHECK(taken.workgroupSize[1] == VALIDATION_SIZED_Y);
    CHECK(taken.workgroupSize[2] == 1);
    ExpectCreated(f, executable, "validation_sized", {0, 0, {VALIDATION_SIZED_X, VALIDATION_SIZED_Y, 1}});
  }
}

PIPELINE_RULE_TEST("XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupMemory") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuPhysicalDeviceProperties properties = {};
  xgpuGetPhysicalDeviceProperties(f.physical_device, &properties);
  REQUIRE(properties.limits.maxWorkgroupMemorySize < sizeof(validation_shared_large_t));
  XgpuExecutable host_only = Executable(f, XGPU_VALIDATION_TEST_LAYOUT_HOST_KERNELS, false);
  const std::string text = ExpectRefused(f, host_only, "validation_shared_too_large", {0, 0, {64, 1, 1}},
                                         "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupMemory");
  CHECK(text.find("static workgroup memory is " + std::to_string(sizeof(validation_shared_large_t)) + " bytes") !=
        std::string::npos);
  // Positive: 1 KiB of static workgroup memory.
  const XgpuPipelineProperties small = ExpectCreated(f, f.executable, "validation_shared", {1, 0, {64, 1, 1}});
  CHECK(small.staticWorkgroupMemorySize == sizeof(validation_shared_t));
}

TEST_CASE("pipeline kernels: a kernel the executable lacks is the driver's to report; an executable made from a path "
          "is checked like one made from bytes") {
  Fixture& f = Fixture::Get();
  TestScope scope(f);
  XgpuPipeline pipeline = nullptr;
  CHECK(Create(f, f.executable, "no_such_kernel", {0, 0, {64, 1, 1}}, &pipeline) == XGPU_ERROR_NOT_FOUND);
  for (const auto& m : f.log.Messages()) CHECK(m.id.rfind("XGPU-VUID-", 0) != 0);  // no rule of the layer's
  f.log.Clear();
  // Every kernel of an executable made from a path is known, and checked, like one made from bytes.
  XgpuExecutable by_path = Executable(f, XGPU_VALIDATION_TEST_LAYOUT_KERNELS, false);
  ExpectRefused(f, by_path, "validation_sized", {0, 0, {16, 1, 1}},
                "XGPU-VUID-xgpuCreatePipeline-pCreateInfo-workgroupSize-required");
  ExpectCreated(f, by_path, "validation_sized", {0, 0, {0, 0, 0}});
}

}  // namespace vtest
