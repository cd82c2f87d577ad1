#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <cstdlib>
#include <new>

#include "common.h"
#include "fault.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define HSA_CPU_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#include <sanitizer/tsan_interface.h>
#define HSA_CPU_TSAN 1
#endif
#endif

namespace hsa_cpu {
namespace bctx = boost::context;

namespace {

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

// Hands Boost.Context a stack the runner owns; nothing to free per fiber.
struct PooledStackAllocator {
  bctx::stack_context allocate() { std::abort(); }
  void deallocate(bctx::stack_context&) noexcept {}
};

}  // namespace

struct FiberRunner::Item {
  bctx::fiber fiber;     // the suspended work item; empty once it returned
  bctx::fiber sink;      // the scheduler's continuation while the item runs
  uint32_t local_id[3];  // work-item id in the workgroup
  bool done;             // run_workitem returned
  void* tsan_fiber = nullptr;  // TSan's state for this item's fiber (TSan builds)
};

// ThreadSanitizer keeps one shadow stack and clock per fiber; every switch
// between the scheduler and a work item is announced to it, or it would
// take the items' frames for the thread's own and report nonsense. Each
// item gets a TSan fiber once (reused by later workgroups); switching with
// flags 0 orders the items' accesses, which run one at a time on this
// thread. Without TSan these compile to nothing.
namespace {
#if defined(HSA_CPU_TSAN)
void* tsan_current_fiber() { return __tsan_get_current_fiber(); }
void* tsan_create_fiber() { return __tsan_create_fiber(0); }
void tsan_destroy_fiber(void* fiber) { if (fiber != nullptr) __tsan_destroy_fiber(fiber); }
void tsan_switch_to(void* fiber) { __tsan_switch_to_fiber(fiber, 0); }
#else
void* tsan_current_fiber() { return nullptr; }
void* tsan_create_fiber() { return nullptr; }
void tsan_destroy_fiber(void*) {}
void tsan_switch_to(void*) {}
#endif
}  // namespace

struct FiberRunner::Stacks {
  size_t stack_bytes = 0;     // usable bytes per stack (excludes the guard)
  std::vector<char*> bases;   // mapping base (guard page first) per stack

  ~Stacks() { release(); }
  void release() {
    for (char* base : bases) munmap(base, stack_bytes + page_size());
    bases.clear();
  }
};

FiberRunner::FiberRunner()
    : stacks_(std::make_unique<Stacks>()), items_(new std::vector<Item>()) {}

FiberRunner::~FiberRunner() {
  for (Item& item : *items_) tsan_destroy_fiber(item.tsan_fiber);
  delete items_;
}

void FiberRunner::abandon() {
  // A bctx::fiber that still holds a context resumes it to unwind it when
  // destroyed or assigned to; these contexts must never run again, so the
  // handles are overwritten in place without their destructors (their
  // storage is reused; nothing depends on the destructors' effects).
  for (Item& item : *items_) {
    new (&item.fiber) bctx::fiber();
    new (&item.sink) bctx::fiber();
    item.done = true;
    // TSan's state of an interrupted item (its shadow stack ends in the
    // abandoned frames): the next workgroup's item gets a fresh one.
    tsan_destroy_fiber(item.tsan_fiber);
    item.tsan_fiber = nullptr;
  }
  current_ = nullptr;
  tsan_home_ = nullptr;
  prepared_ = 0;  // the next workgroup is prepared again (TSan fibers above)
#if defined(HSA_CPU_ASAN)
  // The abandoned frames on the fiber stacks keep their redzones poisoned.
  for (char* base : stacks_->bases) __asan_unpoison_memory_region(base + page_size(), stacks_->stack_bytes);
#endif
}

size_t FiberRunner::stack_bytes_for(size_t private_bytes) {
  size_t bytes = private_bytes + kFiberStackOverheadBytes;
  if (bytes < kDefaultFiberStackBytes) bytes = kDefaultFiberStackBytes;
  const size_t page = page_size();
  return (bytes + page - 1) / page * page;
}

bool FiberRunner::ensure_stacks(size_t count, size_t stack_bytes) {
  if (stacks_->stack_bytes < stack_bytes) {
    stacks_->release();
    stacks_->stack_bytes = stack_bytes;
  }
  if (stacks_->bases.capacity() < count) {
    try {
      stacks_->bases.reserve(count);
    } catch (const std::bad_alloc&) {
      log("no host memory for the list of %zu fiber stacks", count);
      return false;
    }
  }
  while (stacks_->bases.size() < count) {
    const size_t total = stacks_->stack_bytes + page_size();
    void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
      log("fiber stack mmap of %zu bytes failed", total);
      // Start afresh: a later workgroup that needs smaller stacks must not
      // be held to this size.
      stacks_->release();
      stacks_->stack_bytes = 0;
      return false;
    }
    mprotect(base, page_size(), PROT_NONE);  // guard page below the stack
    stacks_->bases.push_back(static_cast<char*>(base));  // capacity reserved: no allocation
  }
  return true;
}

bool FiberRunner::prepare(const xgpu_host_workgroup_t* wg, size_t private_bytes) {
  const size_t count = size_t(wg->item_count[0]) * wg->item_count[1] * wg->item_count[2];
  if (!ensure_stacks(count, stack_bytes_for(private_bytes))) return false;
  std::vector<Item>& items = *items_;
  if (items.size() < count) {
    try {
      items.resize(count);
    } catch (const std::bad_alloc&) {
      log("no host memory for the state of %zu fibers", count);
      return false;
    }
  }
  if (tsan_current_fiber() != nullptr)
    for (size_t i = 0; i < count; ++i)
      if (items[i].tsan_fiber == nullptr) items[i].tsan_fiber = tsan_create_fiber();
  prepared_ = count;
  return true;
}

void FiberRunner::barrier(xgpu_host_workgroup_t* wg) {
  auto* self = static_cast<FiberRunner*>(wg->runtime);
  Item* item = self->current_;
  tsan_switch_to(self->tsan_home_);
  item->sink = std::move(item->sink).resume();
}

void FiberRunner::run(const xgpu_host_kernel_descriptor_t* kernel,
                      const void* kernarg, xgpu_host_workgroup_t* wg) {
  const uint32_t nx = wg->item_count[0], ny = wg->item_count[1],
                 nz = wg->item_count[2];
  const size_t count = size_t(nx) * ny * nz;
  if (count > prepared_) std::abort();  // a caller bug: prepare() was not called for this workgroup
  std::vector<Item>& items = *items_;

  wg->barrier = &FiberRunner::barrier;
  wg->runtime = this;
  const xgpu_host_run_workitem_fn entry = kernel->run_workitem;
  tsan_home_ = tsan_current_fiber();
  void* const home = tsan_home_;
  KernelGuard* const guard = current_kernel_guard();

  size_t i = 0;
  for (uint32_t z = 0; z < nz; ++z)
    for (uint32_t y = 0; y < ny; ++y)
      for (uint32_t x = 0; x < nx; ++x, ++i) {
        Item* item = &items[i];
        item->local_id[0] = x;
        item->local_id[1] = y;
        item->local_id[2] = z;
        item->done = false;
        bctx::stack_context sctx;
        sctx.size = stacks_->stack_bytes;
        sctx.sp = stacks_->bases[i] + page_size() + stacks_->stack_bytes;
        item->fiber = bctx::fiber(
            std::allocator_arg, bctx::preallocated(sctx.sp, sctx.size, sctx),
            PooledStackAllocator{},
            [item, entry, kernarg, wg, home](bctx::fiber&& sink) {
              item->sink = std::move(sink);
              call_kernel_workitem(entry, kernarg, wg, item->local_id);
              item->done = true;
              tsan_switch_to(home);
              return std::move(item->sink);
            });
      }

  // Round-robin: each round runs every unfinished item to its next barrier
  // (or its end), so no item passes barrier k before all reached it.
  size_t remaining = count;
  while (remaining != 0) {
    for (size_t j = 0; j < count; ++j) {
      Item* item = &items[j];
      if (item->done) continue;
      current_ = item;
      if (home != nullptr) {
        // A fault inside the item lands on this fiber (fault.cpp switches).
        if (guard != nullptr) guard->tsan_home_fiber = home;
        tsan_switch_to(item->tsan_fiber);
      }
      item->fiber = std::move(item->fiber).resume();
      if (guard != nullptr) guard->tsan_home_fiber = nullptr;
      if (item->done) --remaining;
    }
  }
  current_ = nullptr;
  wg->barrier = nullptr;
  wg->runtime = nullptr;
}

}  // namespace hsa_cpu
