// Memory pools and queue-ordered allocation (xgpuQueueAlloca/Dealloca; the
// queue operations themselves are queue_alloca.cpp, which uses the pool only
// through the functions below).
//
// A pool reserves blocks from one memory type's HSA pool and sub-allocates
// alloca buffers from them: first fit over an offset-ordered map of free
// ranges per block, aligned to kPoolAllocationAlignment. Nothing is reserved
// until the first alloca commits.
//
// Queue order instead of host round trips:
//   - an alloca commits on the host when its queue issues it (after its
//     waits, before anything later on that queue is issued): the range is
//     taken and the buffer's device_address published (release);
//   - a dealloca returns its range when its queue issues it, tagged with that
//     queue and a release ticket. Later allocas on the SAME queue may take a
//     tagged range at once: the queue is in order (every submission's first
//     packet has the barrier bit), so whatever used the range has finished
//     before their work starts. Allocas on OTHER queues may take it only once
//     the dealloca's completion was observed (the ticket is retired and the
//     range untagged, coalescing with its free neighbours).
//   - A dealloca that never issued (device lost) returns its range untagged
//     at completion.
//
// Thread-safety: thread-safe (each pool has its own mutex). Lock order:
// Queue::mutex before MemoryPool::mutex (commit and release run under the
// queue lock at issue time).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "device.h"

namespace xgpu::amdgpu {

inline constexpr uint64_t kDefaultPoolBlockSize = 64ull << 20;  // bytes per block when blockSize is 0 (capped at maxSize)
inline constexpr uint64_t kPoolAllocationAlignment = 256;       // alignment of every alloca's address and size, bytes

// One free range of a block.
struct PoolFreeRange {
  uint64_t size = 0;                 // bytes
  const Queue* owner = nullptr;      // non-null: released by a dealloca on this queue that
                                     // has not completed yet; only `owner` may reuse it
  uint64_t ticket = 0;               // owner's release ticket (highest of merged ranges)
};

// One reserved block.
struct PoolBlock {
  uint8_t* base = nullptr;                       // block start (device address == host address)
  uint64_t size = 0;                             // bytes reserved from HSA
  uint64_t used = 0;                             // bytes of committed allocations
  std::map<uint64_t, PoolFreeRange> free_ranges;  // offset -> free range, bytes
};

struct MemoryPool {
  Device* device = nullptr;                      // owner
  uint32_t memory_type = 0;                      // index into the device's memory types
  uint64_t block_size = 0;                       // bytes per regular block
  uint64_t max_size = 0;                         // most bytes reserved; 0 = no limit
  uint64_t retain_size = 0;                      // bytes a trim keeps reserved
  std::mutex mutex;                              // guards the fields below
  std::vector<std::unique_ptr<PoolBlock>> blocks;  // reserved blocks
  std::unordered_set<Buffer*> live;              // alloca buffers whose dealloca has not completed
  std::map<const Queue*, std::set<uint64_t>> outstanding;  // per queue: tickets of issued,
                                                           // not yet completed deallocas
  uint64_t next_ticket = 1;                      // next release ticket
  uint64_t reserved_size = 0;                    // bytes reserved now
  uint64_t in_use_size = 0;                      // bytes of committed allocations now
  uint64_t peak_reserved_size = 0;               // largest reserved_size seen
  uint64_t peak_in_use_size = 0;                 // largest in_use_size seen
  uint64_t allocation_count = 0;                 // allocas committed since creation
};

// Called by the queue when it issues an alloca (under the queue lock): takes
// a range (growing the pool when needed) and publishes the buffer's address.
// On failure (maxSize, HSA out of memory, pool destroyed) reports a message
// naming the pool, the size and the limit and returns the status the alloca's
// signal semaphores fail with.
XgpuResult memory_pool_alloca_commit(Buffer* buffer, const Queue* queue);
// True when the alloca could take a range issued on `queue` now, without
// growing the pool (under the queue lock; a hint: the pool may change before
// the commit).
bool memory_pool_alloca_fits(Buffer* buffer, const Queue* queue);
// Called by the queue when it issues a dealloca (under the queue lock): the
// range becomes reusable by later allocas on `queue`.
void memory_pool_dealloca_issue(Buffer* buffer, const Queue* queue);
// Called when an alloca submission is finalized (completed or failed).
void memory_pool_alloca_finished(Buffer* buffer);
// Called when a dealloca submission is finalized (completed or failed, issued
// or not): the range becomes reusable by every queue; the handle dies.
void memory_pool_dealloca_complete(Buffer* buffer);
// xgpuDestroyBuffer of an alloca buffer (invalid usage): returns its memory now.
void memory_pool_release_alloca(Buffer* buffer);
// For xgpuQueueAlloca (queue_alloca.cpp): the device `pool` was created on;
// its name in messages ("memory pool 0x..."); a new alloca buffer of `size`
// bytes and `usage` from `pool`, counted among its live allocations, holding
// two references (the alloca operation's and the handle's), or nullptr when
// host memory ran out.
Device* memory_pool_device(const MemoryPool* pool);
std::string memory_pool_name(const MemoryPool* pool);
Buffer* memory_pool_new_alloca(MemoryPool* pool, uint64_t size, XgpuBufferUsageFlags usage);

XgpuResult memory_pool_create(XgpuDevice device, const XgpuMemoryPoolCreateInfo* info,
                              const XgpuAllocationCallbacks* allocator, XgpuMemoryPool* out_pool);
void memory_pool_destroy(XgpuDevice device, XgpuMemoryPool pool, const XgpuAllocationCallbacks* allocator);
void memory_pool_trim(XgpuDevice device, XgpuMemoryPool pool);
void memory_pool_get_statistics(XgpuDevice device, XgpuMemoryPool pool, XgpuMemoryPoolStatistics* out_statistics);

}  // namespace xgpu::amdgpu
