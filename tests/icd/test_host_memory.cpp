// Allocation callbacks (api.md §1.3): objects created with pAllocator live in
// memory from pfnAllocation and give it back through pfnFree when destroyed;
// a failing pfnAllocation fails the creation with
// XGPU_ERROR_OUT_OF_HOST_MEMORY and leaves nothing behind.
#include <cstdlib>
#include <mutex>
#include <set>

#include "icd_test_util.h"

using namespace icdtest;

namespace {

// Counts live blocks; refuses allocations once `budget` is exhausted.
struct CountingAllocator {
  std::mutex mutex;
  std::set<void*> live;          // blocks handed out and not freed
  uint64_t allocations = 0;      // pfnAllocation calls that succeeded
  uint64_t foreign_frees = 0;    // pfnFree of a block we did not hand out
  uint64_t misaligned = 0;       // blocks not aligned as asked
  int64_t budget = -1;           // successful allocations left (-1: unlimited)
  XgpuAllocationCallbacks callbacks{this, &allocate, &reallocate, &release};

  static void* XGPU_API_PTR allocate(void* user, size_t size, size_t alignment) {
    auto* self = static_cast<CountingAllocator*>(user);
    std::lock_guard<std::mutex> lock(self->mutex);
    if (self->budget == 0) return nullptr;
    if (self->budget > 0) --self->budget;
    void* block = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    if (!block) return nullptr;
    if (reinterpret_cast<uintptr_t>(block) % alignment) ++self->misaligned;
    self->live.insert(block);
    ++self->allocations;
    return block;
  }
  static void* XGPU_API_PTR reallocate(void*, void*, size_t, size_t) { return nullptr; }  // not used by xgpu 1.0
  static void XGPU_API_PTR release(void* user, void* memory) {
    if (!memory) return;
    auto* self = static_cast<CountingAllocator*>(user);
    std::lock_guard<std::mutex> lock(self->mutex);
    if (self->live.erase(memory) == 0) {
      ++self->foreign_frees;
      return;
    }
    std::free(memory);
  }
  size_t live_count() {
    std::lock_guard<std::mutex> lock(mutex);
    return live.size();
  }
};

}  // namespace

TEST_CASE("objects created with allocation callbacks live in their memory and return it on destroy") {
  Env env(1, 1);
  CountingAllocator counting;
  const XgpuAllocationCallbacks* a = &counting.callbacks;

  XgpuInstanceCreateInfo instance_info{};
  instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  REQUIRE(api().CreateInstance(&instance_info, a, &instance) == XGPU_SUCCESS);
  const uint64_t after_instance = counting.allocations;
  CHECK(after_instance >= 1);

  XgpuBufferCreateInfo buffer_info{};
  buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = 4096;
  buffer_info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
  buffer_info.memoryTypeIndex = uint32_t(env.memory_type(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT));
  XgpuBuffer buffer = nullptr;
  REQUIRE(api().CreateBuffer(env.device(), &buffer_info, a, &buffer) == XGPU_SUCCESS);
  XgpuSemaphoreCreateInfo semaphore_info{};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(api().CreateSemaphore(env.device(), &semaphore_info, a, &semaphore) == XGPU_SUCCESS);
  XgpuMemoryPoolCreateInfo pool_info{};
  pool_info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  pool_info.memoryTypeIndex = buffer_info.memoryTypeIndex;
  XgpuMemoryPool pool = nullptr;
  REQUIRE(api().CreateMemoryPool(env.device(), &pool_info, a, &pool) == XGPU_SUCCESS);
  XgpuExecutableCreateInfo exe_info{};
  exe_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  exe_info.pFilePath = XGPU_ICD_TEST_KERNELS;
  XgpuExecutable executable = nullptr;
  REQUIRE(api().CreateExecutable(env.device(), &exe_info, a, &executable) == XGPU_SUCCESS);
  XgpuPipelineCreateInfo pipe_info{};
  pipe_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  pipe_info.executable = executable;
  pipe_info.pEntryPoint = "icd_saxpy";
  pipe_info.bindingCount = 2;
  pipe_info.constantSize = 8;
  pipe_info.workgroupSize[0] = 64;
  pipe_info.workgroupSize[1] = pipe_info.workgroupSize[2] = 1;
  XgpuPipeline pipeline = nullptr;
  REQUIRE(api().CreatePipeline(env.device(), &pipe_info, a, &pipeline) == XGPU_SUCCESS);
  XgpuCommandBufferCreateInfo cb_info{};
  cb_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(api().CreateCommandBuffer(env.device(), &cb_info, a, &cb) == XGPU_SUCCESS);
  // One block per object at least (the record each handle refers to).
  CHECK(counting.allocations >= after_instance + 6);
  CHECK(counting.live_count() == counting.allocations);

  api().DestroyCommandBuffer(env.device(), cb, a);
  api().DestroyPipeline(env.device(), pipeline, a);
  api().DestroyExecutable(env.device(), executable, a);
  api().DestroyMemoryPool(env.device(), pool, a);
  api().DestroySemaphore(env.device(), semaphore, a);
  api().DestroyBuffer(env.device(), buffer, a);
  auto destroy_instance =
      reinterpret_cast<PFN_xgpuDestroyInstance>(api().get_instance_proc_addr(instance, "xgpuDestroyInstance"));
  REQUIRE((destroy_instance != nullptr));
  destroy_instance(instance, a);
  CHECK(counting.live_count() == 0);
  CHECK(counting.foreign_frees == 0);
  CHECK(counting.misaligned == 0);
}

TEST_CASE("a failing pfnAllocation fails the creation with XGPU_ERROR_OUT_OF_HOST_MEMORY, leaving nothing") {
  Env env(1, 1);
  CountingAllocator refusing;
  refusing.budget = 0;
  const XgpuAllocationCallbacks* a = &refusing.callbacks;
  XgpuSemaphoreCreateInfo semaphore_info{};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = reinterpret_cast<XgpuSemaphore>(uintptr_t(1));
  CHECK(api().CreateSemaphore(env.device(), &semaphore_info, a, &semaphore) == XGPU_ERROR_OUT_OF_HOST_MEMORY);
  CHECK(semaphore == nullptr);
  XgpuBufferCreateInfo buffer_info{};
  buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = 4096;
  buffer_info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
  buffer_info.memoryTypeIndex = uint32_t(env.memory_type(XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT));
  XgpuBuffer buffer = nullptr;
  CHECK(api().CreateBuffer(env.device(), &buffer_info, a, &buffer) == XGPU_ERROR_OUT_OF_HOST_MEMORY);
  CHECK(buffer == nullptr);
  XgpuCommandBufferCreateInfo cb_info{};
  cb_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  CHECK(api().CreateCommandBuffer(env.device(), &cb_info, a, &cb) == XGPU_ERROR_OUT_OF_HOST_MEMORY);
  CHECK(cb == nullptr);
  XgpuInstanceCreateInfo instance_info{};
  instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  CHECK(api().CreateInstance(&instance_info, a, &instance) == XGPU_ERROR_OUT_OF_HOST_MEMORY);
  CHECK(instance == nullptr);
  CHECK(env.log.contains("allocating the object's host memory failed"));
  CHECK(refusing.live_count() == 0);
  // Creation works again once memory is available.
  refusing.budget = -1;
  REQUIRE(api().CreateSemaphore(env.device(), &semaphore_info, a, &semaphore) == XGPU_SUCCESS);
  CHECK(refusing.live_count() >= 1);
  api().DestroySemaphore(env.device(), semaphore, a);
  CHECK(refusing.live_count() == 0);
}
