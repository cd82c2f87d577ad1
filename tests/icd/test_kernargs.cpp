// Kernarg placement: every kernarg address the driver writes into a dispatch
// packet is 16-byte aligned (hsa.h: the kernarg segment alignment is at least
// 16), for kernargs built once at end of recording (concrete buffers) and for
// those built at each submission (binding-table slots), with kernarg sizes
// that are not multiples of 16 packed after one another.
//
// The addresses are read from the packet log: with XGPU_PACKET_LOG=1 (ctest
// entry icd.kernarg_alignment) stderr is captured around the submission and
// every "kernarg=0x..." is checked; without it only the results are checked.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

constexpr uint64_t kKernargSegmentAlignment = 16;  // hsa.h, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT

}  // namespace

TEST_CASE("kernarg addresses in dispatch packets are 16-byte aligned, prebuilt and per submission") {
  Env env;
  REQUIRE((api().CreateCommandBuffer != nullptr));
  XgpuExecutable executable = env.test_executable();
  // icd_saxpy: 24 bytes of kernargs; icd_increment: 16.
  XgpuPipeline saxpy = env.pipeline(executable, "icd_saxpy", 2, 8, 64);
  XgpuPipeline increment = env.pipeline(executable, "icd_increment", 1, 8, 0);
  XgpuPipelineProperties props{};
  api().GetPipelineProperties(env.device(), saxpy, &props);
  REQUIRE(props.kernargSize % kKernargSegmentAlignment != 0);  // the packing is tested

  constexpr uint32_t n = 256;
  XgpuBuffer x = env.buffer(n * 4);
  auto* xs = static_cast<float*>(env.map(x));
  for (uint32_t i = 0; i < n; ++i) xs[i] = float(i);
  XgpuBuffer ys[4];
  XgpuBuffer counters[2];
  for (XgpuBuffer& y : ys) {
    y = env.buffer(n * 4);
    auto* values = static_cast<float*>(env.map(y));
    for (uint32_t i = 0; i < n; ++i) values[i] = 1.0f;
  }
  for (XgpuBuffer& c : counters) {
    c = env.buffer(n * 4);
    std::memset(env.map(c), 0, n * 4);
  }

  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 4);
  auto concrete = [](XgpuBuffer b) { return xgpuBufferRefWhole(b); };
  auto slot = [](uint32_t s) { return xgpuBufferRefSlot(s, 0, XGPU_WHOLE_SIZE); };
  auto record_saxpy = [&](XgpuBufferRef xr, XgpuBufferRef yr, float a) {
    api().CmdBindPipeline(cb, saxpy);
    const XgpuBufferRef refs[2] = {xr, yr};
    api().CmdBindBuffers(cb, 0, 2, refs);
    struct {
      float a;     // scale
      uint32_t n;  // element count
    } constants = {a, n};
    api().CmdPushConstants(cb, 0, sizeof(constants), &constants);
    api().CmdDispatch(cb, n / 64, 1, 1);
  };
  auto record_increment = [&](XgpuBufferRef out) {
    api().CmdBindPipeline(cb, increment);
    api().CmdBindBuffers(cb, 0, 1, &out);
    const uint32_t constants[2] = {n, 0};
    api().CmdPushConstants(cb, 0, sizeof(constants), constants);
    api().CmdDispatch(cb, n / ICD_TEST_INCREMENT_WORKGROUP, 1, 1);
  };
  // Prebuilt (every reference concrete), packed: 24, 24, 16 bytes.
  record_saxpy(concrete(x), concrete(ys[0]), 2.0f);
  record_saxpy(concrete(x), concrete(ys[1]), 3.0f);
  record_increment(concrete(counters[0]));
  // Per submission (binding-table slots): 24, 24, 16 bytes.
  record_saxpy(slot(0), slot(1), 4.0f);
  record_saxpy(slot(0), slot(2), 5.0f);
  record_increment(slot(3));
  constexpr size_t kDispatches = 6;
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);

  const char* log_env = std::getenv("XGPU_PACKET_LOG");
  const bool logging = log_env && *log_env && std::strcmp(log_env, "0") != 0;
  XgpuSemaphore done = env.semaphore(0);
  std::string log;
  {
    StderrCapture capture;
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb,
                           {{x, 0, XGPU_WHOLE_SIZE},
                            {ys[2], 0, XGPU_WHOLE_SIZE},
                            {ys[3], 0, XGPU_WHOLE_SIZE},
                            {counters[1], 0, XGPU_WHOLE_SIZE}}) == XGPU_SUCCESS);
    const XgpuResult waited = env.wait(done, 1);
    log = capture.stop();
    INFO(env.log.all());
    REQUIRE(waited == XGPU_SUCCESS);
  }

  const float scales[4] = {2.0f, 3.0f, 4.0f, 5.0f};
  for (int k = 0; k < 4; ++k) {
    const auto* y = static_cast<const float*>(env.map(ys[k]));
    bool all = true;
    for (uint32_t i = 0; i < n; ++i) all &= y[i] == scales[k] * float(i) + 1.0f;
    CHECK_MESSAGE(all, "saxpy " << k);
  }
  for (XgpuBuffer c : counters) {
    const auto* values = static_cast<const uint32_t*>(env.map(c));
    bool all = true;
    for (uint32_t i = 0; i < n; ++i) all &= values[i] == 1u;
    CHECK(all);
  }

  if (logging) {
    std::istringstream lines(log);
    size_t dispatches = 0;
    for (std::string line; std::getline(lines, line);) {
      const size_t at = line.find("kernarg=0x");
      if (at == std::string::npos) continue;
      ++dispatches;
      const uint64_t address = std::strtoull(line.c_str() + at + std::strlen("kernarg="), nullptr, 16);
      INFO(line);
      CHECK(address != 0);
      CHECK(address % kKernargSegmentAlignment == 0);
    }
    INFO(log);
    CHECK(dispatches == kDispatches);
  } else {
    MESSAGE("XGPU_PACKET_LOG is not set: kernarg addresses not checked (ctest icd.kernarg_alignment checks them)");
  }

  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  for (XgpuBuffer b : ys) api().DestroyBuffer(env.device(), b, nullptr);
  for (XgpuBuffer b : counters) api().DestroyBuffer(env.device(), b, nullptr);
  api().DestroyBuffer(env.device(), x, nullptr);
  api().DestroyPipeline(env.device(), saxpy, nullptr);
  api().DestroyPipeline(env.device(), increment, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}
