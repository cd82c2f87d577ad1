// Device-fault reports: when a kernel faults, the device-lost message and
// xgpuGetDeviceFaultInfo name the queue, the operation, the command buffer
// and its name, the command and the labels around it, the kernel, the
// address and what it falls in (a named buffer and the distance past its end,
// a freed queue allocation, nothing), and on hsa-cpu also read or write, the
// workgroup and the kernel's source file, line and column. A hang found by the
// watchdog names the command that ran and for how long.
#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <string>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

const uint64_t kOne = 1;

// The message of the loss (the test's messenger sees it).
std::string env_log_device_lost(const Env& env) {
  return const_cast<Env&>(env).log.text_of_id("XGPU-DRIVER-device-lost");
}

bool have_labels() { return api().CmdBeginDebugLabel && api().CmdEndDebugLabel; }

bool on_hsa_cpu(const Env& env) {
  XgpuPhysicalDeviceProperties properties{};
  api().GetPhysicalDeviceProperties(env.physical_devices[0], &properties);
  return std::string(properties.runtimeName).find("libxgpu-hsa-cpu") != std::string::npos;
}

// The line of the kernel source holding `marker` ("FAULT-LINE: icd_fault_store").
uint32_t marker_line(const std::string& marker) {
  std::ifstream in(XGPU_ICD_TEST_KERNEL_SOURCE);
  REQUIRE(in.good());
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  FAIL("no line holds " << marker);
  return 0;
}

void name(const Env& env, XgpuObjectType type, const void* handle, const char* text) {
  XgpuDebugObjectNameInfo info{};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO;
  info.objectType = type;
  info.objectHandle = uint64_t(reinterpret_cast<uintptr_t>(handle));
  info.pObjectName = text;
  REQUIRE(api().SetObjectName(env.device(), &info) == XGPU_SUCCESS);
}

void label(XgpuCommandBuffer cb, const char* text) {
  XgpuDebugLabel l{};
  l.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  l.pLabelName = text;
  api().CmdBeginDebugLabel(cb, &l);
}

// Records, inside labels 'frame' > 'physics' (commands 0 and 1), a dispatch
// of icd_fault_store (command 2: binds and push constants set state, they
// are not commands) of 4 workgroups whose workgroup 2 stores
// `value` at `address`; submits it on queue 0 after one empty submission and
// waits for the loss.
struct FaultingStore {
  Env& env;
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  XgpuCommandBuffer cb = nullptr;
  XgpuSemaphore done = nullptr;
  FaultingStore(Env& e, uint64_t address) : env(e) {
    REQUIRE(have_labels());
    executable = env.test_executable();
    pipeline = env.pipeline(executable, "icd_fault_store", 0, sizeof(icd_fault_store_args_t), 1);
    cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
    name(env, XGPU_OBJECT_TYPE_COMMAND_BUFFER, cb, "simulate");
    label(cb, "frame");
    label(cb, "physics");
    api().CmdBindPipeline(cb, pipeline);
    const icd_fault_store_args_t args = {address, 7u, 2u};
    api().CmdPushConstants(cb, 0, sizeof(args), &args);
    api().CmdDispatch(cb, 4, 1, 1);
    api().CmdEndDebugLabel(cb);
    api().CmdEndDebugLabel(cb);
    REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
    done = env.semaphore(0);
    XgpuSemaphore first = env.semaphore(0);
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {first}, {1}) == XGPU_SUCCESS);
    CHECK(env.wait(first, 1) == XGPU_SUCCESS);
    api().DestroySemaphore(env.device(), first, nullptr);
    REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
    CHECK(env.wait(done, 1) == XGPU_ERROR_DEVICE_LOST);
  }
  ~FaultingStore() {
    api().DestroySemaphore(env.device(), done, nullptr);
    api().DestroyCommandBuffer(env.device(), cb, nullptr);
    api().DestroyPipeline(env.device(), pipeline, nullptr);
    api().DestroyExecutable(env.device(), executable, nullptr);
  }
};

XgpuDeviceFaultInfo fault_info(const Env& env) {
  XgpuDeviceFaultInfo info;
  std::memset(&info, 0xAB, sizeof(info));
  REQUIRE(api().GetDeviceFaultInfo(env.device(), &info) == XGPU_SUCCESS);
  return info;
}

// What every report of FaultingStore names, on every runtime.
void check_command(const Env& env, const XgpuDeviceFaultInfo& info, uint64_t address) {
  const std::string message = env_log_device_lost(env);
  INFO(message);
  CHECK(info.kind == XGPU_DEVICE_FAULT_KIND_MEMORY);
  CHECK(info.queueIndex == 0);
  CHECK(info.submissionIndex == 2);
  CHECK(std::string(info.commandBufferName) == "simulate");
  CHECK(message.find(info.description) != std::string::npos);  // the message says what the query returns
  if (!on_hsa_cpu(env)) {
    // hsa-cuda: CUDA names no address, and the packet is the last one the
    // queue started; the report says what the runtime can.
    MESSAGE("report on this runtime: " << info.description);
    CHECK(std::string(info.description).find("HSA_STATUS_ERROR_MEMORY_FAULT") != std::string::npos);
    return;
  }
  CHECK(std::string(info.kernelName) == "icd_fault_store");
  CHECK(info.addressValid == XGPU_TRUE);
  CHECK(info.address == address);
  CHECK(std::string(info.description).find("kernel 'icd_fault_store'") != std::string::npos);
  {  // the runtime names the packet: the command is exact
    CHECK(info.commandIndex == 2);
    CHECK(std::string(info.command) == "xgpuCmdDispatch");
    CHECK(std::string(info.labels) == "'frame' > 'physics'");
    CHECK(message.find("command 2 (xgpuCmdDispatch, kernel 'icd_fault_store', inside debug labels 'frame' > "
                       "'physics')") != std::string::npos);
    CHECK(info.access == XGPU_DEVICE_FAULT_ACCESS_WRITE);
    CHECK(info.workgroupId[0] == 2);
    CHECK(info.workgroupId[1] == 0);
    CHECK(info.workgroupId[2] == 0);
    CHECK(std::string(info.function).find("icd_fault_store") != std::string::npos);
#if XGPU_ICD_TEST_SOURCE_LINES
    CHECK(std::string(info.sourceFile).find("icd_test.c") != std::string::npos);
    CHECK(info.sourceLine == marker_line("FAULT-LINE: icd_fault_store"));
    CHECK(info.sourceColumn > 0);
    CHECK(message.find("icd_test.c:" + std::to_string(info.sourceLine)) != std::string::npos);
#endif
  }
}

}  // namespace

TEST_CASE("a fault report names the kernel, the command, the labels and the source line of a store to the null page") {
  Env env(1, 2);
  constexpr uint64_t kNullPage = 0x10;
  {
    XgpuDeviceFaultInfo before;
    std::memset(&before, 0xAB, sizeof(before));
    CHECK(api().GetDeviceFaultInfo(env.device(), &before) == XGPU_NOT_READY);
    CHECK(before.kind == XGPU_DEVICE_FAULT_KIND_NONE);
    CHECK(before.queueIndex == UINT32_MAX);
    CHECK(before.commandIndex == UINT32_MAX);
    CHECK(before.description[0] == '\0');
  }
  FaultingStore store(env, kNullPage);
  const XgpuDeviceFaultInfo info = fault_info(env);
  check_command(env, info, kNullPage);
  if (!on_hsa_cpu(env)) return;  // no address from this runtime
  CHECK(info.addressRelation == XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE);
  CHECK(std::string(info.description).find("in no allocation of the device") != std::string::npos);
  // The query answers the same afterwards, every time.
  const XgpuDeviceFaultInfo again = fault_info(env);
  CHECK(std::memcmp(&info, &again, sizeof(info)) == 0);
}

TEST_CASE("a fault report names the buffer a store ran past, and by how many bytes") {
  Env env(1, 2);
  // Larger than the driver sub-allocates: the buffer has its own mapping,
  // and the page after it is unmapped (hsa-cpu keeps a guard page there).
  constexpr uint64_t kSize = 8ull << 20;
  XgpuBuffer particles = env.buffer(kSize);
  name(env, XGPU_OBJECT_TYPE_BUFFER, particles, "particles");
  const uint64_t base = api().GetBufferDeviceAddress(env.device(), particles);
  REQUIRE(base != 0);
  const uint64_t address = base + kSize + 12;
  {
    FaultingStore store(env, address);
    const XgpuDeviceFaultInfo info = fault_info(env);
    check_command(env, info, address);
    if (!on_hsa_cpu(env)) return;  // no address from this runtime
    CHECK(info.addressRelation == XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END);
    CHECK(info.bufferHandle == uint64_t(reinterpret_cast<uintptr_t>(particles)));
    CHECK(std::string(info.bufferName) == "particles");
    CHECK(info.bufferOffset == 12);
    CHECK(info.bufferSize == kSize);
    CHECK(std::string(info.description).find("12 bytes past the end of buffer 'particles'") != std::string::npos);
  }
  api().DestroyBuffer(env.device(), particles, nullptr);
}

TEST_CASE("a fault report names the queue allocation a kernel used after its dealloca") {
  Env env(1, 2);
  XgpuMemoryPoolCreateInfo pool_info{};
  pool_info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  const int type = env.memory_type(XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  pool_info.memoryTypeIndex = uint32_t(type >= 0 ? type : 0);
  pool_info.blockSize = 1u << 20;
  XgpuMemoryPool pool = nullptr;
  REQUIRE(api().CreateMemoryPool(env.device(), &pool_info, nullptr, &pool) == XGPU_SUCCESS);
  XgpuSemaphore allocated = env.semaphore(0), freed = env.semaphore(0);
  const XgpuSemaphoreList no_waits{};
  const XgpuSemaphoreList alloca_signals{1, &allocated, &kOne};
  XgpuBuffer scratch = nullptr;
  REQUIRE(api().QueueAlloca(env.queue(0), &no_waits, &alloca_signals, pool, 64u << 10,
                            XGPU_BUFFER_USAGE_STORAGE_BIT, &scratch) == XGPU_SUCCESS);
  REQUIRE(env.wait(allocated, 1) == XGPU_SUCCESS);
  name(env, XGPU_OBJECT_TYPE_BUFFER, scratch, "scratch");
  const uint64_t base = api().GetBufferDeviceAddress(env.device(), scratch);
  REQUIRE(base != 0);
  const XgpuSemaphoreList dealloca_signals{1, &freed, &kOne};
  REQUIRE(api().QueueDealloca(env.queue(0), &no_waits, &dealloca_signals, scratch) == XGPU_SUCCESS);
  REQUIRE(env.wait(freed, 1) == XGPU_SUCCESS);
  // The pool gives its now empty block back: the stale address is unmapped.
  api().TrimMemoryPool(env.device(), pool);
  XgpuMemoryPoolStatistics stats{};
  api().GetMemoryPoolStatistics(env.device(), pool, &stats);
  REQUIRE(stats.blockCount == 0);
  const uint64_t address = base + 256;
  // What this process maps next (the test kernels' code object, command
  // buffer blocks) must not take the stale address: an inaccessible page is
  // reserved over it, so that the store faults whatever comes.
  void* guard = nullptr;
  if (on_hsa_cpu(env)) {
    void* page = reinterpret_cast<void*>(uintptr_t(address & ~uint64_t(4095)));
    guard = mmap(page, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    REQUIRE_MESSAGE(guard == page, "the freed block's address was mapped again before the test could reserve it");
  }
  {
    FaultingStore store(env, address);
    const XgpuDeviceFaultInfo info = fault_info(env);
    CHECK(info.submissionIndex == 4);  // after the alloca, the dealloca and the empty submission
    if (!on_hsa_cpu(env)) return;      // no address from this runtime
    CHECK(info.addressRelation == XGPU_DEVICE_FAULT_ADDRESS_RELATION_FREED);
    CHECK(info.bufferHandle == uint64_t(reinterpret_cast<uintptr_t>(scratch)));
    CHECK(std::string(info.bufferName) == "scratch");
    CHECK(info.bufferOffset == 256);
    CHECK(info.bufferSize == (64u << 10));
    CHECK(std::string(info.description).find("queue allocation 'scratch'") != std::string::npos);
    CHECK(std::string(info.description).find("deallocated (xgpuQueueDealloca) before: a use after free") !=
          std::string::npos);
    CHECK(std::string(info.kernelName) == "icd_fault_store");
  }
  if (guard) munmap(guard, 4096);
  // (The dealloca's completion destroyed the handle.)
  api().DestroySemaphore(env.device(), allocated, nullptr);
  api().DestroySemaphore(env.device(), freed, nullptr);
  api().DestroyMemoryPool(env.device(), pool, nullptr);
}

TEST_CASE("a fault report of a load names a read, and the loading kernel's line") {
  Env env(1, 1);
  if (!on_hsa_cpu(env)) return;  // read/write and lines: where the runtime tells them
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_fault", 1, sizeof(uint64_t), 1);
  XgpuBuffer out = env.buffer(64);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  api().CmdBindPipeline(cb, pipeline);
  const XgpuBufferRef ref = xgpuBufferRefWhole(out);
  api().CmdBindBuffers(cb, 0, 1, &ref);
  const uint64_t address = 0x18;
  api().CmdPushConstants(cb, 0, sizeof(address), &address);
  api().CmdDispatch(cb, 1, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  CHECK(env.wait(done, 1) == XGPU_ERROR_DEVICE_LOST);
  const XgpuDeviceFaultInfo info = fault_info(env);
  INFO(info.description);
  CHECK(info.access == XGPU_DEVICE_FAULT_ACCESS_READ);
  CHECK(info.address == address);
  CHECK(info.commandIndex == 0);
  CHECK(info.labels[0] == '\0');
  CHECK(std::string(info.commandBufferName).empty());
#if XGPU_ICD_TEST_SOURCE_LINES
  CHECK(info.sourceLine == marker_line("FAULT-LINE: icd_fault"));
#endif
  CHECK(std::string(info.description).find("faulted on a read of address 0x18") != std::string::npos);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyBuffer(env.device(), out, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}
