/* A malloc that fails one chosen allocation, for the allocation sweep of
 * xgpu_teardown_tests (loaded with LD_PRELOAD). Until armed it only passes
 * every call to glibc; xgpu_test_fail_allocation(n) arms it: from then on
 * allocations are counted and the n-th returns NULL (operator new then
 * throws std::bad_alloc). n = 0 counts without failing. */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stddef.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* pointer, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);

static atomic_long g_fail_at = -1;  /* -1: not armed; 0: count only */
static atomic_long g_count = 0;     /* allocations since armed */

#define XGPU_TEST_EXPORT __attribute__((visibility("default")))

XGPU_TEST_EXPORT void xgpu_test_fail_allocation(long n) {
  atomic_store(&g_count, 0);
  atomic_store(&g_fail_at, n);
}

XGPU_TEST_EXPORT long xgpu_test_allocation_count(void) { return atomic_load(&g_count); }

static int fails(void) {
  const long at = atomic_load_explicit(&g_fail_at, memory_order_relaxed);
  if (at < 0) return 0;
  const long n = atomic_fetch_add_explicit(&g_count, 1, memory_order_relaxed) + 1;
  if (at == 0 || n != at) return 0;
  if (getenv("XGPU_TEST_FAIL_BACKTRACE")) {
    /* Where the refused allocation came from (backtrace_symbols_fd does not
     * allocate; the test warmed backtrace up). */
    void* frames[32];
    static const char kText[] = "failing_malloc: this allocation fails:\n";
    (void)!write(2, kText, sizeof kText - 1);
    backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
  }
  return 1;
}

XGPU_TEST_EXPORT void* malloc(size_t size) {
  if (fails()) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_malloc(size);
}

XGPU_TEST_EXPORT void* calloc(size_t count, size_t size) {
  if (fails()) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_calloc(count, size);
}

XGPU_TEST_EXPORT void* realloc(void* pointer, size_t size) {
  if (size != 0 && fails()) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_realloc(pointer, size);
}

XGPU_TEST_EXPORT void* memalign(size_t alignment, size_t size) {
  if (fails()) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_memalign(alignment, size);
}

XGPU_TEST_EXPORT void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

XGPU_TEST_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) {
  void* p = memalign(alignment, size);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}
