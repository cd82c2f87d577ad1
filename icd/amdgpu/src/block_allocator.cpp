#include "block_allocator.h"

#include <algorithm>

#include "common.h"

namespace xgpu::amdgpu {

BlockAllocator::BlockAllocator(AllocateFn allocate, FreeFn free, uint64_t block_size,
                               uint64_t max_sub_allocation)
    : allocate_(std::move(allocate)),
      free_(std::move(free)),
      block_size_(block_size),
      max_sub_allocation_(max_sub_allocation) {}

BlockAllocator::~BlockAllocator() {
  for (auto& block : blocks_) free_(block->base);
}

bool BlockAllocator::allocate_in_block(Block* block, uint64_t size, Allocation* out_allocation) {
  for (auto it = block->free_ranges.begin(); it != block->free_ranges.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t offset = it->first;
    const uint64_t remaining = it->second - size;
    block->free_ranges.erase(it);
    if (remaining) block->free_ranges.emplace(offset + size, remaining);
    block->used += size;
    sub_allocated_bytes_ += size;
    out_allocation->ptr = block->base + offset;
    out_allocation->block = block;
    out_allocation->offset = offset;
    out_allocation->size = size;
    return true;
  }
  return false;
}

XgpuResult BlockAllocator::allocate(uint64_t size, Allocation* out_allocation, std::string* out_error) {
  const uint64_t aligned = align_up(std::max<uint64_t>(size, 1), kSubAllocationAlignment);
  if (aligned > max_sub_allocation_) {
    void* ptr = nullptr;
    XgpuResult result = allocate_(aligned, &ptr, out_error);
    if (result != XGPU_SUCCESS) return result;
    std::lock_guard<std::mutex> lock(mutex_);
    ++dedicated_count_;
    dedicated_bytes_ += aligned;
    *out_allocation = Allocation{ptr, nullptr, 0, aligned};
    return XGPU_SUCCESS;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& block : blocks_)
      if (allocate_in_block(block.get(), aligned, out_allocation)) return XGPU_SUCCESS;
  }
  // No room: a new block (allocated outside the lock; HSA may be slow).
  void* base = nullptr;
  XgpuResult result = allocate_(block_size_, &base, out_error);
  if (result != XGPU_SUCCESS) return result;
  auto block = std::make_unique<Block>();
  block->base = static_cast<uint8_t*>(base);
  block->free_ranges.emplace(0, block_size_);
  std::lock_guard<std::mutex> lock(mutex_);
  allocate_in_block(block.get(), aligned, out_allocation);
  blocks_.push_back(std::move(block));
  return XGPU_SUCCESS;
}

void BlockAllocator::free(const Allocation& allocation) {
  if (!allocation.ptr) return;
  if (!allocation.block) {
    free_(allocation.ptr);
    std::lock_guard<std::mutex> lock(mutex_);
    --dedicated_count_;
    dedicated_bytes_ -= allocation.size;
    return;
  }
  std::vector<void*> release;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Block* block = allocation.block;
    uint64_t offset = allocation.offset;
    uint64_t size = allocation.size;
    auto next = block->free_ranges.lower_bound(offset);
    if (next != block->free_ranges.end() && offset + size == next->first) {
      size += next->second;
      next = block->free_ranges.erase(next);
    }
    if (next != block->free_ranges.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        block->free_ranges.erase(prev);
      }
    }
    block->free_ranges.emplace(offset, size);
    block->used -= allocation.size;
    sub_allocated_bytes_ -= allocation.size;
    if (block->used == 0) trim_locked(kSpareBlocks, &release);
  }
  for (void* ptr : release) free_(ptr);
}

void BlockAllocator::trim_locked(size_t keep, std::vector<void*>* out_release) {
  size_t empty = 0;
  for (auto it = blocks_.begin(); it != blocks_.end();) {
    if ((*it)->used == 0 && ++empty > keep) {
      out_release->push_back((*it)->base);
      it = blocks_.erase(it);
    } else {
      ++it;
    }
  }
}

BlockAllocator::Stats BlockAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats;
  stats.block_count = uint32_t(blocks_.size());
  for (const auto& block : blocks_) stats.empty_block_count += block->used == 0;
  stats.block_bytes = uint64_t(blocks_.size()) * block_size_;
  stats.dedicated_count = dedicated_count_;
  stats.dedicated_bytes = dedicated_bytes_;
  stats.sub_allocated_bytes = sub_allocated_bytes_;
  return stats;
}

}  // namespace xgpu::amdgpu
