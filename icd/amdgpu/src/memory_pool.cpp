#include "memory_pool.h"

#include <algorithm>
#include <cstdio>

#include "common.h"
#include "host_memory.h"
#include "generated/vuid_ids.h"

namespace xgpu::amdgpu {
namespace {

std::string pool_name(const MemoryPool* pool) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", static_cast<const void*>(pool));
  return std::string("memory pool ") + text;
}

// True when `range` may be taken by an alloca issued on `queue`.
bool range_usable(const MemoryPool* pool, const PoolFreeRange& range, const Queue* queue) {
  if (!range.owner || range.owner == queue) return true;
  auto it = pool->outstanding.find(range.owner);
  return it == pool->outstanding.end() || it->second.empty() || *it->second.begin() > range.ticket;
}

// Returns [offset, offset + size) to the block's free ranges, merging with
// neighbours of the same owner (a tagged range absorbing an untagged one would
// hide it from other queues).
void insert_free(PoolBlock* block, uint64_t offset, uint64_t size, const Queue* owner, uint64_t ticket) {
  auto next = block->free_ranges.lower_bound(offset);
  if (next != block->free_ranges.end() && offset + size == next->first && next->second.owner == owner) {
    size += next->second.size;
    ticket = std::max(ticket, next->second.ticket);
    next = block->free_ranges.erase(next);
  }
  if (next != block->free_ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size == offset && prev->second.owner == owner) {
      offset = prev->first;
      size += prev->second.size;
      ticket = std::max(ticket, prev->second.ticket);
      block->free_ranges.erase(prev);
    }
  }
  block->free_ranges.emplace(offset, PoolFreeRange{size, owner, owner ? ticket : 0});
}

// Untags every range whose releasing deallocas all completed.
void retire_ranges(MemoryPool* pool) {
  for (auto& block : pool->blocks) {
    std::vector<uint64_t> retired;
    for (const auto& [offset, range] : block->free_ranges)
      if (range.owner && range_usable(pool, range, nullptr)) retired.push_back(offset);
    for (uint64_t offset : retired) {
      auto it = block->free_ranges.find(offset);
      const uint64_t size = it->second.size;
      block->free_ranges.erase(it);
      insert_free(block.get(), offset, size, nullptr, 0);
    }
  }
}

bool take_range(MemoryPool* pool, PoolBlock* block, uint64_t size, const Queue* queue, Buffer* buffer) {
  for (auto it = block->free_ranges.begin(); it != block->free_ranges.end(); ++it) {
    if (it->second.size < size || !range_usable(pool, it->second, queue)) continue;
    const uint64_t offset = it->first;
    const PoolFreeRange range = it->second;
    block->free_ranges.erase(it);
    if (range.size > size)
      block->free_ranges.emplace(offset + size, PoolFreeRange{range.size - size, range.owner, range.ticket});
    block->used += size;
    buffer->pool_block = block;
    buffer->pool_offset = offset;
    buffer->pool_size = size;
    return true;
  }
  return false;
}

// Gives the committed range of `buffer` back untagged. Pool lock held.
void return_untagged(MemoryPool* pool, Buffer* buffer) {
  if (!buffer->alloca_committed) return;
  fault_note_free(pool->device, buffer, buffer->device_address.load(std::memory_order_relaxed));
  insert_free(buffer->pool_block, buffer->pool_offset, buffer->pool_size, nullptr, 0);
  buffer->pool_block->used -= buffer->pool_size;
  pool->in_use_size -= buffer->pool_size;
  buffer->alloca_committed = false;
  buffer->device_address.store(0, std::memory_order_release);
}

void buffer_unref(Buffer* buffer) {
  if (buffer->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) host_delete_handle(buffer);
}

}  // namespace

bool memory_pool_alloca_fits(Buffer* buffer, const Queue* queue) {
  MemoryPool* pool = buffer->pool;
  if (!pool) return true;  // commit reports the destroyed pool
  std::lock_guard<std::mutex> lock(pool->mutex);
  const uint64_t size = align_up(buffer->size, kPoolAllocationAlignment);
  for (const auto& block : pool->blocks)
    for (const auto& [offset, range] : block->free_ranges)
      if (range.size >= size && range_usable(pool, range, queue)) return true;
  return false;
}

XgpuResult memory_pool_alloca_commit(Buffer* buffer, const Queue* queue) {
  MemoryPool* pool = buffer->pool;
  Device* device = buffer->device;
  if (!pool)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuDestroyMemoryPool_memoryPool_allocations,
                       "xgpuQueueAlloca: the memory pool of this alloca (" + std::to_string(buffer->size) +
                           " bytes) was destroyed before the alloca ran");
  std::lock_guard<std::mutex> lock(pool->mutex);
  if (buffer->dealloca_issued)
    return device_fail(device, XGPU_ERROR_INVALID_USAGE, vuid::xgpuQueueDealloca_buffer_ordered,
                       "xgpuQueueAlloca: the buffer's dealloca ran before its alloca on " + pool_name(pool));
  const uint64_t size = align_up(buffer->size, kPoolAllocationAlignment);
  bool placed = false;
  for (auto& block : pool->blocks)
    if ((placed = take_range(pool, block.get(), size, queue, buffer))) break;
  if (!placed) {
    // Grow: one block of block_size (or the allocation's size when larger),
    // shrunk to what maxSize still allows.
    uint64_t block_size = std::max(pool->block_size, size);
    if (pool->max_size) {
      const uint64_t room = pool->max_size > pool->reserved_size ? pool->max_size - pool->reserved_size : 0;
      if (size > room)
        return device_fail(device, XGPU_ERROR_OUT_OF_DEVICE_MEMORY, msgid::kOutOfDeviceMemory,
                           "xgpuQueueAlloca: " + pool_name(pool) + " cannot allocate " +
                               std::to_string(buffer->size) + " bytes (" + std::to_string(size) +
                               " aligned): it has " + std::to_string(pool->reserved_size) + " bytes reserved in " +
                               std::to_string(pool->blocks.size()) + " blocks, " +
                               std::to_string(pool->in_use_size) + " in use, and another block would exceed its maxSize " +
                               std::to_string(pool->max_size));
      block_size = std::min(block_size, room / kPoolAllocationAlignment * kPoolAllocationAlignment);
    }
    void* base = nullptr;
    std::string error;
    XgpuResult result = device_allocate_from_type(device, pool->memory_type, block_size, &base, &error);
    if (result != XGPU_SUCCESS)
      return device_fail(device, XGPU_ERROR_OUT_OF_DEVICE_MEMORY, msgid::kOutOfDeviceMemory,
                         "xgpuQueueAlloca: " + pool_name(pool) + " cannot allocate " + std::to_string(buffer->size) +
                             " bytes: reserving a block of " + std::to_string(block_size) + " bytes failed (" +
                             error + "; " + std::to_string(pool->reserved_size) + " bytes reserved, maxSize " +
                             (pool->max_size ? std::to_string(pool->max_size) : std::string("unlimited")) + ")");
    auto block = std::make_unique<PoolBlock>();
    block->base = static_cast<uint8_t*>(base);
    block->size = block_size;
    block->free_ranges.emplace(0, PoolFreeRange{block_size, nullptr, 0});
    take_range(pool, block.get(), size, queue, buffer);
    pool->blocks.push_back(std::move(block));
    pool->reserved_size += block_size;
    pool->peak_reserved_size = std::max(pool->peak_reserved_size, pool->reserved_size);
  }
  buffer->alloca_committed = true;
  pool->in_use_size += size;
  pool->peak_in_use_size = std::max(pool->peak_in_use_size, pool->in_use_size);
  ++pool->allocation_count;
  buffer->device_address.store(reinterpret_cast<uint64_t>(buffer->pool_block->base + buffer->pool_offset),
                               std::memory_order_release);
  fault_note_allocation(pool->device, buffer, reinterpret_cast<uint64_t>(buffer->pool_block->base + buffer->pool_offset));
  return XGPU_SUCCESS;
}

void memory_pool_dealloca_issue(Buffer* buffer, const Queue* queue) {
  MemoryPool* pool = buffer->pool;
  if (!pool) return;
  std::lock_guard<std::mutex> lock(pool->mutex);
  buffer->dealloca_issued = true;
  if (!buffer->alloca_committed) return;  // the alloca failed: nothing to return
  const uint64_t ticket = pool->next_ticket++;
  pool->outstanding[queue].insert(ticket);
  buffer->release_queue = queue;
  buffer->release_ticket = ticket;
  fault_note_free(pool->device, buffer, buffer->device_address.load(std::memory_order_relaxed));
  insert_free(buffer->pool_block, buffer->pool_offset, buffer->pool_size, queue, ticket);
  buffer->pool_block->used -= buffer->pool_size;
  pool->in_use_size -= buffer->pool_size;
  buffer->alloca_committed = false;
  buffer->device_address.store(0, std::memory_order_release);
}

void memory_pool_alloca_finished(Buffer* buffer) { buffer_unref(buffer); }

void memory_pool_dealloca_complete(Buffer* buffer) {
  // The handle dies here: so does its name.
  device_forget_object_name(buffer->device, uint64_t(reinterpret_cast<uintptr_t>(buffer)));
  if (MemoryPool* pool = buffer->pool) {
    std::lock_guard<std::mutex> lock(pool->mutex);
    return_untagged(pool, buffer);  // a dealloca that never issued (device lost)
    if (buffer->release_ticket) {
      auto it = pool->outstanding.find(buffer->release_queue);
      if (it != pool->outstanding.end()) {
        it->second.erase(buffer->release_ticket);
        if (it->second.empty()) pool->outstanding.erase(it);
      }
      buffer->release_ticket = 0;
      retire_ranges(pool);
    }
    pool->live.erase(buffer);
    buffer->pool = nullptr;
  }
  buffer_unref(buffer);
}

void memory_pool_release_alloca(Buffer* buffer) {
  device_report(buffer->device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                vuid::xgpuDestroyBuffer_buffer_queueAllocated,
                "xgpuDestroyBuffer: the buffer (" + std::to_string(buffer->size) +
                    " bytes) was created by xgpuQueueAlloca; release it with xgpuQueueDealloca. Its memory is "
                    "returned to the pool now.");
  if (MemoryPool* pool = buffer->pool) {
    std::lock_guard<std::mutex> lock(pool->mutex);
    return_untagged(pool, buffer);
    pool->live.erase(buffer);
    buffer->pool = nullptr;
  }
  buffer_unref(buffer);
}

XgpuResult memory_pool_create(XgpuDevice handle, const XgpuMemoryPoolCreateInfo* info,
                              const XgpuAllocationCallbacks* allocator, XgpuMemoryPool* out_pool) {
  Device* device = device_from_handle(handle);
  if (out_pool) *out_pool = nullptr;
  if (!device || !info || !out_pool) return XGPU_ERROR_INVALID_ARGUMENT;
  if (device->lost) return device_fail_lost(device, "xgpuCreateMemoryPool");
  const auto& types = device->physical->memory_types;
  if (info->memoryTypeIndex >= types.size())
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT,
                       vuid::xgpuCreateMemoryPool_pCreateInfo_memoryTypeIndex,
                       "xgpuCreateMemoryPool: pCreateInfo->memoryTypeIndex " + std::to_string(info->memoryTypeIndex) +
                           " is not a memory type (the device has " + std::to_string(types.size()) + ")");
  const uint64_t max_buffer_size = device->physical->properties.limits.maxBufferSize;
  if (info->blockSize > max_buffer_size)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateMemoryPool_pCreateInfo_blockSize,
                       "xgpuCreateMemoryPool: pCreateInfo->blockSize " + std::to_string(info->blockSize) +
                           " exceeds limits.maxBufferSize " + std::to_string(max_buffer_size));
  if (info->maxSize && info->blockSize > info->maxSize)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateMemoryPool_pCreateInfo_blockSize,
                       "xgpuCreateMemoryPool: pCreateInfo->blockSize " + std::to_string(info->blockSize) +
                           " exceeds pCreateInfo->maxSize " + std::to_string(info->maxSize));
  if (info->maxSize && info->retainSize > info->maxSize)
    return device_fail(device, XGPU_ERROR_INVALID_ARGUMENT, vuid::xgpuCreateMemoryPool_pCreateInfo_retainSize,
                       "xgpuCreateMemoryPool: pCreateInfo->retainSize " + std::to_string(info->retainSize) +
                           " exceeds pCreateInfo->maxSize " + std::to_string(info->maxSize));
  HostPtr<MemoryPool> pool(host_new<MemoryPool>(allocator));
  if (!pool)
    return device_fail(device, XGPU_ERROR_OUT_OF_HOST_MEMORY, msgid::kOutOfHostMemory,
                       "xgpuCreateMemoryPool: allocating the object's host memory failed");
  pool->device = device;
  pool->memory_type = info->memoryTypeIndex;
  pool->max_size = info->maxSize;
  pool->retain_size = info->retainSize;
  uint64_t block_size = info->blockSize ? info->blockSize : kDefaultPoolBlockSize;
  if (info->maxSize) block_size = std::min<uint64_t>(block_size, info->maxSize);
  pool->block_size = std::max<uint64_t>(align_up(block_size, kPoolAllocationAlignment), kPoolAllocationAlignment);
  device_track_handle(device, pool.get());
  *out_pool = to_handle<XgpuMemoryPool>(pool.release());
  return XGPU_SUCCESS;
}

void memory_pool_destroy(XgpuDevice handle, XgpuMemoryPool pool_handle, const XgpuAllocationCallbacks* allocator) {
  auto* pool = from_handle<MemoryPool>(pool_handle);
  Device* device = device_from_handle(handle);
  if (!pool || !device) return;
  if (!device_release_handle(device, pool, vuid::xgpuDestroyMemoryPool_memoryPool_parameter,
                             "xgpuDestroyMemoryPool: memoryPool")) return;
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    if (!pool->live.empty() || !pool->outstanding.empty()) {
      uint64_t committed = 0;
      for (Buffer* buffer : pool->live) committed += buffer->alloca_committed ? buffer->pool_size : 0;
      device_report(device, XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT,
                    vuid::xgpuDestroyMemoryPool_memoryPool_allocations,
                    "xgpuDestroyMemoryPool: " + pool_name(pool) + " still has " + std::to_string(pool->live.size()) +
                        " allocations whose dealloca has not completed (" + std::to_string(committed) +
                        " bytes committed); their memory is released with the pool, pending allocas will fail "
                        "and the buffers must still be deallocated");
      for (Buffer* buffer : pool->live) {
        fault_note_free(device, buffer, buffer->device_address.load(std::memory_order_relaxed));
        buffer->pool = nullptr;
        buffer->alloca_committed = false;
        buffer->release_ticket = 0;
        buffer->device_address.store(0, std::memory_order_release);
      }
      pool->live.clear();
    }
    for (auto& block : pool->blocks) device_free(device, block->base);
    pool->blocks.clear();
  }
  host_delete_handle(pool);
}

void memory_pool_trim(XgpuDevice handle, XgpuMemoryPool pool_handle) {
  auto* pool = from_handle<MemoryPool>(pool_handle);
  if (!pool) return;
  std::lock_guard<std::mutex> lock(pool->mutex);
  retire_ranges(pool);
  // Blocks that are one untagged free range: nothing committed, no dealloca
  // whose earlier users may still run. Largest first.
  std::vector<PoolBlock*> empty;
  for (auto& block : pool->blocks)
    if (block->used == 0 && block->free_ranges.size() == 1 && !block->free_ranges.begin()->second.owner)
      empty.push_back(block.get());
  std::sort(empty.begin(), empty.end(), [](const PoolBlock* a, const PoolBlock* b) { return a->size > b->size; });
  for (PoolBlock* block : empty) {
    if (pool->reserved_size <= pool->retain_size) break;
    pool->reserved_size -= block->size;
    device_free(pool->device, block->base);
    pool->blocks.erase(std::find_if(pool->blocks.begin(), pool->blocks.end(),
                                    [&](const std::unique_ptr<PoolBlock>& b) { return b.get() == block; }));
  }
}

void memory_pool_get_statistics(XgpuDevice, XgpuMemoryPool pool_handle, XgpuMemoryPoolStatistics* out_statistics) {
  auto* pool = from_handle<MemoryPool>(pool_handle);
  if (!out_statistics) return;
  *out_statistics = XgpuMemoryPoolStatistics{};
  if (!pool) return;
  std::lock_guard<std::mutex> lock(pool->mutex);
  out_statistics->reservedSize = pool->reserved_size;
  out_statistics->inUseSize = pool->in_use_size;
  out_statistics->peakReservedSize = pool->peak_reserved_size;
  out_statistics->peakInUseSize = pool->peak_in_use_size;
  out_statistics->allocationCount = pool->allocation_count;
  out_statistics->blockCount = uint32_t(pool->blocks.size());
}

Device* memory_pool_device(const MemoryPool* pool) { return pool->device; }

std::string memory_pool_name(const MemoryPool* pool) { return pool_name(pool); }

Buffer* memory_pool_new_alloca(MemoryPool* pool, uint64_t size, XgpuBufferUsageFlags usage) {
  Device* device = pool->device;
  auto* buffer = host_new<Buffer>(nullptr);  // the handle of an alloca: no pAllocator
  if (!buffer) return nullptr;
  buffer->device = device;
  buffer->size = size;
  buffer->usage = usage;
  buffer->is_alloca = true;
  buffer->memory_type = pool->memory_type;
  buffer->host_visible = device->physical->memory_types[pool->memory_type].flags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  buffer->pool = pool;
  buffer->refs.store(2, std::memory_order_relaxed);  // the alloca submission + the handle
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->live.insert(buffer);
  }
  return buffer;
}

}  // namespace xgpu::amdgpu
