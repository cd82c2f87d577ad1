// Executables and pipelines.
#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>

#include "icd_test_kernels.h"
#include "icd_test_util.h"
#include "xgpu_executable.h"

using namespace icdtest;

namespace {

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream stream(path, std::ios::binary);
  REQUIRE(stream);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}

XgpuExecutable load(Env& env, const void* code, size_t size, XgpuResult expect = XGPU_SUCCESS) {
  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pCode = code;
  info.codeSize = size;
  XgpuExecutable executable = nullptr;
  CHECK(api().CreateExecutable(env.device(), &info, nullptr, &executable) == expect);
  return executable;
}

XgpuResult make_pipeline(Env& env, XgpuExecutable executable, const char* entry, uint32_t bindings,
                         uint32_t constants, uint32_t wx, XgpuPipeline* out) {
  const XgpuPipelineCreateInfo info = Env::pipeline_info(executable, entry, bindings, constants, wx);
  return api().CreatePipeline(env.device(), &info, nullptr, out);
}

}  // namespace

TEST_CASE("executable from file and from memory; pipeline errors") {
  Env env;
  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pFilePath = XGPU_ICD_TEST_KERNELS;
  XgpuExecutable from_file = nullptr;
  REQUIRE(api().CreateExecutable(env.device(), &info, nullptr, &from_file) == XGPU_SUCCESS);
  api().DestroyExecutable(env.device(), from_file, nullptr);

  std::vector<uint8_t> bytes = read_file(XGPU_ICD_TEST_KERNELS);
  XgpuExecutable executable = load(env, bytes.data(), bytes.size());
  REQUIRE(executable);

  XgpuPipeline pipeline = nullptr;
  CHECK(make_pipeline(env, executable, "icd_saxpy", 2, 8, 64, &pipeline) == XGPU_SUCCESS);
  api().DestroyPipeline(env.device(), pipeline, nullptr);

  SUBCASE("unknown kernel: NOT_FOUND naming the executable's kernels") {
    CHECK(make_pipeline(env, executable, "nope", 2, 8, 64, &pipeline) == XGPU_ERROR_NOT_FOUND);
    CHECK(env.log.contains("kernel \"nope\" is not in the executable (its kernels: icd_fault, icd_fault_store, icd_groupshared, "
                           "icd_increment, icd_print, icd_print_assert, icd_saxpy, icd_scale, icd_spin_until, icd_undeclared)"));
  }
  SUBCASE("layout that does not match the kernarg size") {
    // A kernel without a declared layout: the sum is all that is checked.
    CHECK(make_pipeline(env, executable, "icd_undeclared", 2, 8, 64, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.log.contains("xgpuCreatePipeline: layout of \"icd_undeclared\" (bindingCount 2 * 8 + constantSize 8 = "
                           "24 bytes) differs from the kernel's kernarg size 16 bytes"));
  }
  SUBCASE("workgroup size from the kernel's required size") {
    CHECK(make_pipeline(env, executable, "icd_increment", 1, 8, 0, &pipeline) == XGPU_SUCCESS);
    XgpuPipelineProperties props{};
    api().GetPipelineProperties(env.device(), pipeline, &props);
    CHECK(props.workgroupSize[0] == 64);
    CHECK(props.workgroupSize[1] == 1);
    CHECK(props.workgroupSize[2] == 1);
    CHECK(props.kernargSize == 16);
    CHECK(props.staticWorkgroupMemorySize == 0);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    CHECK(make_pipeline(env, executable, "icd_increment", 1, 8, 32, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.log.contains("differs from kernel \"icd_increment\"'s required size 64x1x1"));
    CHECK(make_pipeline(env, executable, "icd_saxpy", 2, 8, 0, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.log.contains("has no required workgroup size"));
  }
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("executable with no code object for the agent: INCOMPATIBLE_EXECUTABLE naming both ISA lists") {
  Env env;
  std::vector<uint8_t> bytes = read_file(XGPU_ICD_TEST_KERNELS);
  namespace xe = xgpu::executable;
  xe::Executable file;
  REQUIRE(xe::Executable::parse(bytes, &file).ok());
  std::vector<xe::EntryInput> amdgpu_only;
  for (const xe::Entry& entry : file.entries()) {
    if (entry.kind != XGPU_EXECUTABLE_ENTRY_KIND_AMDGPU) continue;
    amdgpu_only.push_back(xe::EntryInput{std::string(entry.isa_name), entry.kind,
                                         std::vector<uint8_t>(entry.code_object.begin(), entry.code_object.end())});
  }
  REQUIRE(!amdgpu_only.empty());
  std::vector<uint8_t> packed;
  REQUIRE(xe::write(amdgpu_only, &packed).ok());
  XgpuExecutable executable = load(env, packed.data(), packed.size(), XGPU_ERROR_INCOMPATIBLE_EXECUTABLE);
  CHECK(executable == nullptr);
  XgpuPhysicalDeviceProperties p{};
  api().GetPhysicalDeviceProperties(env.physical_devices[0], &p);
  INFO(env.log.all());
  CHECK(env.log.contains("xgpuCreateExecutable: "));
  CHECK(env.log.contains(p.isaName));                           // the agent's ISA
  CHECK(env.log.contains(amdgpu_only[0].isa_name));             // the file's ISAs
}

TEST_CASE("malformed executable: INVALID_EXECUTABLE") {
  Env env;
  const char garbage[] = "definitely not an xgpu executable file";
  CHECK(load(env, garbage, sizeof(garbage), XGPU_ERROR_INVALID_EXECUTABLE) == nullptr);
  std::vector<uint8_t> bytes = read_file(XGPU_ICD_TEST_KERNELS);
  CHECK(load(env, bytes.data(), bytes.size() / 2, XGPU_ERROR_INVALID_EXECUTABLE) == nullptr);
  XgpuExecutableCreateInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pFilePath = "/nonexistent/file.xgpux";
  XgpuExecutable executable = nullptr;
  CHECK(api().CreateExecutable(env.device(), &info, nullptr, &executable) == XGPU_ERROR_INVALID_EXECUTABLE);
}

namespace {

// Records y = a * x + y over n floats with `pipeline` (icd_saxpy) on
// concrete buffers, submits it and waits; true when every element is right.
bool run_saxpy(Env& env, XgpuPipeline pipeline, float a, uint32_t n) {
  XgpuBuffer x = env.buffer(n * sizeof(float)), y = env.buffer(n * sizeof(float));
  auto* xs = static_cast<float*>(env.map(x));
  auto* ys = static_cast<float*>(env.map(y));
  for (uint32_t i = 0; i < n; ++i) {
    xs[i] = float(i);
    ys[i] = 1.0f;
  }
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  api().CmdBindPipeline(cb, pipeline);
  const XgpuBufferRef refs[2] = {xgpuBufferRefWhole(x), xgpuBufferRefWhole(y)};
  api().CmdBindBuffers(cb, 0, 2, refs);
  struct {
    float a;     // scale
    uint32_t n;  // element count
  } constants = {a, n};
  api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
  api().CmdDispatch(cb, (n + 63) / 64, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  INFO(env.log.all());
  REQUIRE(env.wait(done, 1) == XGPU_SUCCESS);
  bool all = true;
  for (uint32_t i = 0; i < n; ++i) all &= ys[i] == a * float(i) + 1.0f;
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroyBuffer(env.device(), x, nullptr);
  api().DestroyBuffer(env.device(), y, nullptr);
  return all;
}

}  // namespace

// spec/api.md 1.8: an executable may be destroyed while pipelines created
// from it live. Each order runs under LeakSanitizer in the sanitizer build.
TEST_CASE("a pipeline outlives its executable: dispatch after xgpuDestroyExecutable; every destroy order") {
  Env env;
  REQUIRE((api().CreateCommandBuffer != nullptr));
  std::vector<uint8_t> bytes = read_file(XGPU_ICD_TEST_KERNELS);
  XgpuExecutable executable = load(env, bytes.data(), bytes.size());
  REQUIRE(executable);
  XgpuPipeline first = nullptr, second = nullptr;
  REQUIRE(make_pipeline(env, executable, "icd_saxpy", 2, 8, 64, &first) == XGPU_SUCCESS);
  REQUIRE(make_pipeline(env, executable, "icd_saxpy", 2, 8, 64, &second) == XGPU_SUCCESS);

  SUBCASE("executable destroyed first: its pipelines still dispatch, also after one of them is gone") {
    api().DestroyExecutable(env.device(), executable, nullptr);
    // The caller's copy of the file is gone too: only the pipelines hold the code.
    std::fill(bytes.begin(), bytes.end(), uint8_t(0));
    CHECK(run_saxpy(env, first, 2.0f, 1000));
    api().DestroyPipeline(env.device(), first, nullptr);
    CHECK(run_saxpy(env, second, 3.0f, 333));
    api().DestroyPipeline(env.device(), second, nullptr);
  }
  SUBCASE("pipelines destroyed first") {
    CHECK(run_saxpy(env, first, 2.0f, 1000));
    api().DestroyPipeline(env.device(), first, nullptr);
    api().DestroyPipeline(env.device(), second, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
  }
  SUBCASE("executable destroyed between its pipelines") {
    api().DestroyPipeline(env.device(), first, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
    CHECK(run_saxpy(env, second, 0.5f, 64));
    api().DestroyPipeline(env.device(), second, nullptr);
  }
  // Loading again after the last release works (the HSA executable was
  // destroyed, nothing stale is found).
  std::vector<uint8_t> fresh = read_file(XGPU_ICD_TEST_KERNELS);
  XgpuExecutable again = load(env, fresh.data(), fresh.size());
  REQUIRE(again);
  XgpuPipeline third = nullptr;
  REQUIRE(make_pipeline(env, again, "icd_saxpy", 2, 8, 64, &third) == XGPU_SUCCESS);
  api().DestroyExecutable(env.device(), again, nullptr);
  CHECK(run_saxpy(env, third, 4.0f, 100));
  api().DestroyPipeline(env.device(), third, nullptr);
  INFO(env.log.all());
  CHECK(env.log.all().empty());
}

namespace {

// The constants of icd_scale as the kernel sees them: the tail of its
// argument struct from the first constant on, tail padding included.
constexpr size_t kScaleConstantsOffset = offsetof(icd_scale_args_t, mul);
constexpr size_t kScaleConstantSize = sizeof(icd_scale_args_t) - kScaleConstantsOffset;
static_assert(kScaleConstantsOffset == 24, "icd_scale: three 8-byte bindings");
static_assert(kScaleConstantSize == 24, "icd_scale: 20 bytes of constant fields, 4 of tail padding");

// Dispatches icd_scale with `pipeline` over n values, pushing `push_size`
// bytes of constants; true when out[] and tags[] hold what the kernel
// computes from the constants pushed.
bool run_scale(Env& env, XgpuPipeline pipeline, uint32_t n, uint32_t push_size) {
  XgpuBuffer in = env.buffer(n * sizeof(uint32_t)), out = env.buffer(n * sizeof(uint32_t)),
             tags = env.buffer(n * sizeof(uint32_t));
  auto* ins = static_cast<uint32_t*>(env.map(in));
  auto* outs = static_cast<uint32_t*>(env.map(out));
  auto* tag_values = static_cast<uint32_t*>(env.map(tags));
  for (uint32_t i = 0; i < n; ++i) {
    ins[i] = i;
    outs[i] = tag_values[i] = 0xdeadbeefu;
  }
  icd_scale_args_t args{};
  args.mul = 3;
  args.add = 1000;
  args.n = n;
  args.tag = 0x5a5a0000u;
  args.flags = 0x00000a5au;  // the last constant field, just before the padding
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  api().CmdBindPipeline(cb, pipeline);
  const XgpuBufferRef refs[3] = {xgpuBufferRefWhole(in), xgpuBufferRefWhole(out), xgpuBufferRefWhole(tags)};
  api().CmdBindBuffers(cb, 0, 3, refs);
  api().CmdPushConstants(cb, 0, push_size, reinterpret_cast<const uint8_t*>(&args) + kScaleConstantsOffset);
  api().CmdDispatch(cb, (n + 63) / 64, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  INFO(env.log.all());
  REQUIRE(env.wait(done, 1) == XGPU_SUCCESS);
  bool all = true;
  for (uint32_t i = 0; i < n; ++i) all &= outs[i] == i * 3 + 1000 && tag_values[i] == 0x5a5a0a5au;
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  for (XgpuBuffer b : {in, out, tags}) api().DestroyBuffer(env.device(), b, nullptr);
  return all;
}

XgpuPipelineProperties properties(Env& env, XgpuPipeline pipeline) {
  XgpuPipelineProperties props{};
  api().GetPipelineProperties(env.device(), pipeline, &props);
  return props;
}

}  // namespace

TEST_CASE("pipeline layouts: bindingCount = constantSize = 0 takes the layout the kernel declares") {
  Env env;
  REQUIRE((api().CreateCommandBuffer != nullptr));
  std::vector<uint8_t> bytes = read_file(XGPU_ICD_TEST_KERNELS);
  XgpuExecutable executable = load(env, bytes.data(), bytes.size());
  REQUIRE(executable);
  XgpuPipeline pipeline = nullptr;

  SUBCASE("0/0: the declared layout, tail padding in the constants; the kernel sees every constant") {
    REQUIRE(make_pipeline(env, executable, "icd_scale", 0, 0, 64, &pipeline) == XGPU_SUCCESS);
    const XgpuPipelineProperties props = properties(env, pipeline);
    CHECK(props.bindingCount == 3);
    CHECK(props.constantSize == kScaleConstantSize);
    CHECK(props.kernargSize == sizeof(icd_scale_args_t));
    CHECK(run_scale(env, pipeline, 1000, kScaleConstantSize));
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    // Another declared kernel, through the shared saxpy helper.
    REQUIRE(make_pipeline(env, executable, "icd_saxpy", 0, 0, 64, &pipeline) == XGPU_SUCCESS);
    CHECK(properties(env, pipeline).bindingCount == 2);
    CHECK(properties(env, pipeline).constantSize == 8);
    CHECK(run_saxpy(env, pipeline, 2.5f, 300));
    api().DestroyPipeline(env.device(), pipeline, nullptr);
  }
  SUBCASE("explicit values equal to the declared layout") {
    REQUIRE(make_pipeline(env, executable, "icd_scale", 3, kScaleConstantSize, 64, &pipeline) == XGPU_SUCCESS);
    const XgpuPipelineProperties props = properties(env, pipeline);
    CHECK(props.bindingCount == 3);
    CHECK(props.constantSize == 24);
    CHECK(run_scale(env, pipeline, 130, kScaleConstantSize));
    api().DestroyPipeline(env.device(), pipeline, nullptr);
  }
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("pipeline layouts: a layout differing from the declared one and 0/0 for an undeclared kernel are refused") {
  Env env;
  std::vector<uint8_t> bytes = read_file(XGPU_ICD_TEST_KERNELS);
  XgpuExecutable executable = load(env, bytes.data(), bytes.size());
  REQUIRE(executable);
  XgpuPipeline pipeline = nullptr;

  SUBCASE("explicit values that differ from the declared layout: INVALID_ARGUMENT naming both layouts") {
    // sizeof of a struct of the constant fields alone.
    pipeline = reinterpret_cast<XgpuPipeline>(uintptr_t{1});
    CHECK(make_pipeline(env, executable, "icd_scale", 3, 20, 64, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(pipeline == nullptr);
    CHECK(env.log.contains("xgpuCreatePipeline: layout bindingCount 3, constantSize 20 differs from bindingCount 3, "
                           "constantSize 24 that kernel \"icd_scale\" declares (XGPU_KERNEL_BINDINGS); give both as 0 "
                           "to use it"));
    // Values that add up to the kernarg size are still not the declared layout.
    CHECK(make_pipeline(env, executable, "icd_scale", 2, 32, 64, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.log.contains("layout bindingCount 2, constantSize 32 differs from bindingCount 3, constantSize 24"));
    CHECK(make_pipeline(env, executable, "icd_scale", 0, 48, 64, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(env.log.contains("layout bindingCount 0, constantSize 48 differs from bindingCount 3, constantSize 24"));
  }
  SUBCASE("0/0 for a kernel that declares no layout: INVALID_ARGUMENT naming the kernel and the fix") {
    pipeline = reinterpret_cast<XgpuPipeline>(uintptr_t{1});
    CHECK(make_pipeline(env, executable, "icd_undeclared", 0, 0, 64, &pipeline) == XGPU_ERROR_INVALID_ARGUMENT);
    CHECK(pipeline == nullptr);
    CHECK(env.log.contains("xgpuCreatePipeline: bindingCount and constantSize are 0 but kernel \"icd_undeclared\" "
                           "declares no layout (its kernarg struct is 16 bytes): declare "
                           "XGPU_KERNEL_BINDINGS(icd_undeclared, <binding count>) after the kernel, or give both "
                           "bindingCount and constantSize"));
    // Stating the layout still works for such a kernel.
    REQUIRE(make_pipeline(env, executable, "icd_undeclared", 1, 8, 64, &pipeline) == XGPU_SUCCESS);
    CHECK(properties(env, pipeline).bindingCount == 1);
    CHECK(properties(env, pipeline).constantSize == 8);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
  }
  api().DestroyExecutable(env.device(), executable, nullptr);
}
