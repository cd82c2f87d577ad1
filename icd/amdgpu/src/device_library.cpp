// Loading the embedded device library for a device (see device_library.h).
#include "device_library.h"

#include <memory>
#include <string>

#include "xgpu_amdgpu/commands.h"
#if defined(XGPU_AMDGPU_DEVICE_LIBRARY_EMBEDDED)
#include "xgpu_amdgpu/device_library_blob.h"
#endif

namespace xgpu::amdgpu {

XgpuResult device_library_load(Device* device, DeviceLibrary** out_library) {
  *out_library = nullptr;
  auto library = std::make_unique<DeviceLibrary>();
  library->pool = std::make_unique<CommandChunkPool>(
      [device](MemoryKind kind, uint64_t size, void** out_ptr) { return device_allocate(device, kind, size, out_ptr); },
      [device](void* ptr) { device_free(device, ptr); });
#if defined(XGPU_AMDGPU_DEVICE_LIBRARY_EMBEDDED)
  size_t size = 0;
  const uint8_t* data = xgpu_amdgpu_device_library_data(&size);
  XgpuResult result = device_load_executable(device, data, size, &library->executable);
  if (result != XGPU_SUCCESS) {
    device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kDeviceLibrary,
                  "loading the AMDGPU ICD's device library (builtin fill/copy/timestamp/indirect-patch "
                  "kernels) for this device's agent failed; see the previous message for the ISA");
    return result;
  }
  struct Lookup {
    const char* name;             // kernel symbol
    const KernelInfo** out;       // where to store it
  };
  const Lookup lookups[] = {
      {XGPU_AMDGPU_KERNEL_FILL, &library->fill},
      {XGPU_AMDGPU_KERNEL_COPY, &library->copy},
      {XGPU_AMDGPU_KERNEL_TIMESTAMP, &library->timestamp},
      {XGPU_AMDGPU_KERNEL_INDIRECT_PATCH, &library->indirect_patch},
  };
  for (const Lookup& lookup : lookups) {
    *lookup.out = loaded_executable_kernel(library->executable, lookup.name);
    if (!*lookup.out) {
      device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, msgid::kDeviceLibrary,
                    std::string("the AMDGPU ICD's device library has no kernel '") + lookup.name + "'");
      device_unload_executable(device, library->executable);
        return XGPU_ERROR_INITIALIZATION_FAILED;
    }
  }
#else
  (void)device;
#endif
  *out_library = library.release();
  return XGPU_SUCCESS;
}

void device_library_destroy(Device* device, DeviceLibrary* library) {
  if (!library) return;
  if (library->executable) device_unload_executable(device, library->executable);
  delete library;
}

// --- CommandChunkPool ------------------------------------------------------

CommandChunkPool::~CommandChunkPool() {
  for (void* slab : slabs_) free_(slab);
}

XgpuResult CommandChunkPool::take(MemoryKind kind, uint64_t size, PoolChunk* out_chunk) {
  const uint32_t k = uint32_t(kind);
  *out_chunk = PoolChunk{};
  out_chunk->kind = uint8_t(k);
  if (size > kChunkSize) {
    void* ptr = nullptr;
    if (XgpuResult result = allocate_(kind, size, &ptr); result != XGPU_SUCCESS) return result;
    out_chunk->base = static_cast<uint8_t*>(ptr);
    out_chunk->size = size;
    out_chunk->dedicated = true;
    std::lock_guard<std::mutex> lock(mutex_);
    ++dedicated_;
    return XGPU_SUCCESS;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_lists_[k].empty()) {
      out_chunk->base = free_lists_[k].back();
      out_chunk->size = kChunkSize;
      free_lists_[k].pop_back();
      return XGPU_SUCCESS;
    }
  }
  // Grow by one slab (outside the lock: an HSA allocation).
  void* slab = nullptr;
  if (XgpuResult result = allocate_(kind, kChunkSize * kChunksPerSlab, &slab); result != XGPU_SUCCESS)
    return result;
  auto* base = static_cast<uint8_t*>(slab);
  std::lock_guard<std::mutex> lock(mutex_);
  slabs_.push_back(slab);
  free_lists_[k].reserve(free_lists_[k].size() + kChunksPerSlab);
  for (uint32_t i = kChunksPerSlab - 1; i >= 1; --i) free_lists_[k].push_back(base + uint64_t(i) * kChunkSize);
  out_chunk->base = base;
  out_chunk->size = kChunkSize;
  return XGPU_SUCCESS;
}

void CommandChunkPool::give(const PoolChunk* chunks, size_t count) {
  std::vector<void*> release;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < count; ++i) {
      if (!chunks[i].base) continue;
      if (chunks[i].dedicated)
        release.push_back(chunks[i].base);
      else
        free_lists_[chunks[i].kind].push_back(chunks[i].base);
    }
  }
  for (void* ptr : release) free_(ptr);
}

CommandChunkPool::Stats CommandChunkPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats;
  stats.slabs = uint32_t(slabs_.size());
  for (const auto& list : free_lists_) stats.free_chunks += uint32_t(list.size());
  stats.dedicated = dedicated_;
  return stats;
}

}  // namespace xgpu::amdgpu
