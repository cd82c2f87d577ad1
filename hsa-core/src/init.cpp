// hsa_init and hsa_shut_down: the reference count every runtime keeps the
// same way. The first hsa_init opens the back-end (Backend::open), the last
// hsa_shut_down closes it (Backend::close); both under one mutex, so an
// init racing a shut-down on other threads sees the runtime either fully
// open or fully closed.
#include <mutex>

#include <hsa_core/backend.h>
#include <hsa_core/events.h>
#include <hsa_core/platform.h>
#include <hsa_core/queue.h>

using namespace hsa_core;

namespace {

std::mutex g_init_mutex;
uint32_t g_init_count = 0;  // hsa_init calls not yet shut down (g_init_mutex)
constexpr uint32_t kInitCountMax = INT32_MAX;

}  // namespace

HSA_CORE_EXPORT hsa_status_t hsa_init() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_init_count == kInitCountMax) return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
  if (g_init_count == 0) {
    const hsa_status_t status = backend().open();
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  ++g_init_count;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_shut_down() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_init_count == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (--g_init_count == 0) {
    backend().close();  // destroys the queues still live first (destroy_all_queues)
    forget_system_event_handler();
  }
  return HSA_STATUS_SUCCESS;
}
