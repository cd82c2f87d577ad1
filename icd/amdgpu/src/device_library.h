// Per-device state of the commands half: the ICD's builtin kernels (fill,
// copy, timestamp, indirect-dispatch patch), loaded from the embedded
// device-library executable (icd/amdgpu/device) for the device's agent ISA,
// and the pool that command recording draws device-visible memory from.
//
// Thread-safety: the kernels are immutable after device_library_load; the
// pool is thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "seam.h"

namespace xgpu::amdgpu {

// One chunk of device-visible memory handed out by CommandChunkPool.
struct PoolChunk {
  uint8_t* base = nullptr;  // host address == device address
  uint64_t size = 0;        // bytes
  uint8_t kind = 0;         // MemoryKind
  bool dedicated = false;   // its own HSA allocation (larger than a chunk)
};

// The per-device pool command recording draws its device-visible memory
// from: command blocks and read-only data (MemoryKind::kHostCoherent) and
// prebuilt kernargs (MemoryKind::kKernarg). Chunks are kChunkSize bytes,
// carved from kChunksPerSlab-chunk HSA allocations (slabs) and recycled
// through per-kind free lists, so recording in steady state makes no HSA
// allocation. A request larger than a chunk gets a dedicated HSA
// allocation, freed when it is given back. Slabs are kept until the pool
// is destroyed (with the device).
//
// Thread-safety: thread-safe (one internal mutex, held for a few
// instructions; HSA allocations happen outside it).
class CommandChunkPool {
 public:
  static constexpr uint64_t kChunkSize = 16 * 1024;  // bytes per chunk
  static constexpr uint32_t kChunksPerSlab = 16;     // chunks per HSA allocation
  static constexpr uint32_t kKinds = 3;              // MemoryKind values

  // Allocates / frees HSA memory of a MemoryKind (device_allocate /
  // device_free; a failure is reported by the allocator).
  using AllocateFn = std::function<XgpuResult(MemoryKind kind, uint64_t size, void** out_ptr)>;
  using FreeFn = std::function<void(void* ptr)>;

  CommandChunkPool(AllocateFn allocate, FreeFn free) : allocate_(std::move(allocate)), free_(std::move(free)) {}
  ~CommandChunkPool();  // frees every slab (chunks need not have been given back)
  CommandChunkPool(const CommandChunkPool&) = delete;
  CommandChunkPool& operator=(const CommandChunkPool&) = delete;

  // A chunk of `kind` holding at least `size` bytes.
  XgpuResult take(MemoryKind kind, uint64_t size, PoolChunk* out_chunk);
  // Gives chunks back (dedicated ones go back to HSA).
  void give(const PoolChunk* chunks, size_t count);

  struct Stats {
    uint32_t slabs = 0;        // HSA allocations held for chunks
    uint32_t free_chunks = 0;  // chunks on the free lists
    uint64_t dedicated = 0;    // dedicated allocations made so far
  };
  Stats stats() const;

 private:
  AllocateFn allocate_;
  FreeFn free_;
  mutable std::mutex mutex_;
  std::vector<uint8_t*> free_lists_[kKinds];  // guarded by mutex_
  std::vector<void*> slabs_;                  // guarded by mutex_
  uint64_t dedicated_ = 0;                    // guarded by mutex_
};

struct DeviceLibrary {
  LoadedExecutable* executable = nullptr;       // the loaded executable, nullptr when none is embedded
  const KernelInfo* fill = nullptr;             // xgpu_amdgpu_fill
  const KernelInfo* copy = nullptr;             // xgpu_amdgpu_copy
  const KernelInfo* timestamp = nullptr;        // xgpu_amdgpu_timestamp
  const KernelInfo* indirect_patch = nullptr;   // xgpu_amdgpu_indirect_patch
  std::unique_ptr<CommandChunkPool> pool;       // recording memory (set once loaded)
};

}  // namespace xgpu::amdgpu
