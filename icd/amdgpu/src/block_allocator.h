// BlockAllocator: sub-allocates small buffers from large fixed-size blocks of
// one HSA memory pool, so that HSA allocations (syscalls, page-table updates)
// stay rare and large.
//
// Scheme: each block is a range of kBlockSize bytes; free space inside a
// block is kept as an offset-ordered map of free ranges (first fit, ranges
// coalesced on free). Requests above kMaxSubAllocationSize get their own
// HSA allocation. Trimming happens on free: a block that becomes empty is
// kept as the one spare for reuse (kSpareBlocks); any further empty block is
// returned to HSA at once. The destructor returns the rest.
//
// Thread-safety: thread-safe (one internal mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

inline constexpr uint64_t kBlockSize = 64ull << 20;             // bytes per block
inline constexpr uint64_t kMaxSubAllocationSize = 4ull << 20;   // larger requests get their own allocation
inline constexpr uint64_t kSubAllocationAlignment = 256;        // alignment of every sub-allocation, bytes
inline constexpr size_t kSpareBlocks = 1;                        // empty blocks kept for reuse

class BlockAllocator {
 public:
  // Allocates / frees `size` bytes of HSA memory (the pool behind this allocator).
  using AllocateFn = std::function<XgpuResult(uint64_t size, void** out_ptr, std::string* out_error)>;
  using FreeFn = std::function<void(void* ptr)>;

  struct Block;
  // One allocation handed out.
  struct Allocation {
    void* ptr = nullptr;       // start of the allocation (device address == host address)
    Block* block = nullptr;    // block it lives in, or nullptr for a dedicated allocation
    uint64_t offset = 0;       // bytes from the block start
    uint64_t size = 0;         // bytes reserved (aligned)
  };
  // Counters for tests and statistics.
  struct Stats {
    uint32_t block_count = 0;         // blocks held (including the spare)
    uint32_t empty_block_count = 0;   // blocks with nothing handed out (at most kSpareBlocks)
    uint64_t block_bytes = 0;         // bytes of HSA memory held in blocks
    uint64_t dedicated_count = 0;     // live dedicated allocations
    uint64_t dedicated_bytes = 0;     // bytes of live dedicated allocations
    uint64_t sub_allocated_bytes = 0; // bytes handed out from blocks (aligned sizes)
  };

  BlockAllocator(AllocateFn allocate, FreeFn free, uint64_t block_size = kBlockSize,
                 uint64_t max_sub_allocation = kMaxSubAllocationSize);
  ~BlockAllocator();  // frees every block (allocations must have been freed)
  BlockAllocator(const BlockAllocator&) = delete;
  BlockAllocator& operator=(const BlockAllocator&) = delete;

  XgpuResult allocate(uint64_t size, Allocation* out_allocation, std::string* out_error);
  // Returns the range; then trims: empty blocks beyond kSpareBlocks go back to HSA.
  void free(const Allocation& allocation);
  Stats stats() const;

  struct Block {
    uint8_t* base = nullptr;                    // block start
    uint64_t used = 0;                          // bytes handed out
    std::map<uint64_t, uint64_t> free_ranges;   // offset -> size, bytes
  };

 private:
  bool allocate_in_block(Block* block, uint64_t size, Allocation* out_allocation);
  // Unlinks empty blocks beyond `keep`; their memory goes to *out_release
  // (freed by the caller outside the lock). Needs mutex_.
  void trim_locked(size_t keep, std::vector<void*>* out_release);

  AllocateFn allocate_;
  FreeFn free_;
  uint64_t block_size_;
  uint64_t max_sub_allocation_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;  // guarded by mutex_
  uint64_t dedicated_count_ = 0;                // guarded by mutex_
  uint64_t dedicated_bytes_ = 0;                // guarded by mutex_
  uint64_t sub_allocated_bytes_ = 0;            // guarded by mutex_
};

}  // namespace xgpu::amdgpu
