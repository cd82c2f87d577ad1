#include <hsa_core/events.h>

#include <mutex>

#include <hsa_core/backend.h>
#include <hsa_core/platform.h>

namespace hsa_core {
namespace {

std::mutex g_event_mutex;
hsa_amd_system_event_callback_t g_event_callback = nullptr;  // g_event_mutex
void* g_event_data = nullptr;                                // g_event_mutex

}  // namespace

void notify_memory_fault(hsa_agent_t agent, uint64_t address, uint32_t reason_mask) {
  hsa_amd_system_event_callback_t callback;
  void* data;
  {
    std::lock_guard<std::mutex> lock(g_event_mutex);
    callback = g_event_callback;
    data = g_event_data;
  }
  if (callback == nullptr) return;
  hsa_amd_event_t event{};
  event.event_type = HSA_AMD_GPU_MEMORY_FAULT_EVENT;
  event.memory_fault.agent = agent;
  event.memory_fault.virtual_address = address;
  event.memory_fault.fault_reason_mask = reason_mask;
  callback(&event, data);
}

void forget_system_event_handler() {
  std::lock_guard<std::mutex> lock(g_event_mutex);
  g_event_callback = nullptr;
  g_event_data = nullptr;
}

}  // namespace hsa_core

using namespace hsa_core;

HSA_CORE_EXPORT hsa_status_t hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t callback,
                                                                   void* data) {
  HSA_CORE_REQUIRE_INIT();
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> lock(g_event_mutex);
  if (g_event_callback != nullptr) {
    log("hsa_amd_register_system_event_handler: a handler is already registered");
    return HSA_STATUS_ERROR;
  }
  g_event_callback = callback;
  g_event_data = data;
  return HSA_STATUS_SUCCESS;
}
