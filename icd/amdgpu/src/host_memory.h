// Host memory of API objects (api.md §1.3): an object created with
// allocation callbacks lives in memory from pfnAllocation and goes back
// through pfnFree when it is destroyed; with NULL callbacks, the C++ heap.
// The callbacks are remembered in a small header just before the object, so
// an object destroyed from another thread or context (reference-counted
// semaphores, buffers, executables) frees through the set it was made with.
//
// Used by both halves of the driver; includes only the public header.
// Thread-safety: stateless; the callbacks themselves must be thread-safe
// (api.md §1.3).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

// Stored immediately before every object made by host_new.
struct HostObjectHeader {
  XgpuAllocationCallbacks callbacks;  // the creation's callbacks (pfnFree used at delete)
  bool custom;                        // callbacks given (else the C++ heap)
  void* block;                        // start of the allocation
};

template <typename T>
struct HostLayout {
  static constexpr size_t kAlignment = std::max(alignof(T), alignof(HostObjectHeader));
  // Offset of the object in its block: room for the header, aligned for T.
  static constexpr size_t kOffset = (sizeof(HostObjectHeader) + kAlignment - 1) / kAlignment * kAlignment;
  static constexpr size_t kSize = kOffset + sizeof(T);
};

// Constructs a T in memory from `callbacks` (or the heap when NULL).
// Returns nullptr when the allocation fails (XGPU_ERROR_OUT_OF_HOST_MEMORY).
template <typename T, typename... Args>
T* host_new(const XgpuAllocationCallbacks* callbacks, Args&&... args) {
  using Layout = HostLayout<T>;
  void* block = callbacks ? callbacks->pfnAllocation(callbacks->pUserData, Layout::kSize, Layout::kAlignment)
                          : ::operator new(Layout::kSize, std::align_val_t(Layout::kAlignment), std::nothrow);
  if (!block) return nullptr;
  auto* bytes = static_cast<unsigned char*>(block);
  new (bytes + Layout::kOffset - sizeof(HostObjectHeader))
      HostObjectHeader{callbacks ? *callbacks : XgpuAllocationCallbacks{}, callbacks != nullptr, block};
  return new (bytes + Layout::kOffset) T(std::forward<Args>(args)...);
}

// Destroys an object made by host_new and frees its memory the way it was
// allocated. nullptr is ignored.
template <typename T>
void host_delete(T* object) {
  if (!object) return;
  using Layout = HostLayout<T>;
  auto* header = reinterpret_cast<HostObjectHeader*>(reinterpret_cast<unsigned char*>(object) -
                                                     sizeof(HostObjectHeader));
  const HostObjectHeader saved = *header;
  object->~T();
  header->~HostObjectHeader();
  if (saved.custom) {
    saved.callbacks.pfnFree(saved.callbacks.pUserData, saved.block);
  } else {
    ::operator delete(saved.block, std::align_val_t(Layout::kAlignment));
  }
}

// unique_ptr for objects made by host_new (creation paths that may fail).
// The memory of objects whose address is an API handle, held back from
// reuse after they are destroyed (host_delete_handle): blocks of the C++ heap
// stay allocated until this many more such objects were destroyed, so that
// the next create does not hand out a destroyed object's handle value
// again (a stale handle would silently name the new object; the validation
// layer and a log can tell it apart only when it does not). Thread-safe.
inline constexpr size_t kHandleQuarantine = 1024;
void quarantine_handle_block(void* block, size_t alignment);

// host_delete for an object whose address is an API handle: destroyed now,
// its memory (C++ heap) reused only after kHandleQuarantine more such
// deletes. Memory from application callbacks is freed at once (it is theirs
// to reuse, and must not outlive the call that destroys the object).
template <typename T>
void host_delete_handle(T* object) {
  if (!object) return;
  using Layout = HostLayout<T>;
  auto* header = reinterpret_cast<HostObjectHeader*>(reinterpret_cast<unsigned char*>(object) -
                                                     sizeof(HostObjectHeader));
  if (header->custom) {
    host_delete(object);
    return;
  }
  void* block = header->block;
  object->~T();
  header->~HostObjectHeader();
  quarantine_handle_block(block, Layout::kAlignment);
}

struct HostDelete {
  template <typename T>
  void operator()(T* object) const {
    host_delete(object);
  }
};
template <typename T>
using HostPtr = std::unique_ptr<T, HostDelete>;

}  // namespace xgpu::amdgpu
