// Shared virtual memory, migration and dispatch timestamps, for both
// back-ends: hsa_amd_memory_pool_can_migrate, hsa_amd_memory_migrate,
// hsa_amd_svm_attributes_set / _get, hsa_amd_svm_prefetch_async,
// hsa_amd_profiling_get_dispatch_time and
// hsa_amd_profiling_convert_tick_to_system_domain, with their checks.
//
// Nothing migrates in either runtime: hsa-cpu's agents are the host's cores
// (one memory, which every agent reaches in place: Backend::svm), hsa-cuda's
// device memory stays where it was allocated. On a runtime with SVM every
// address is host memory that every agent reaches in place, coherently:
// valid settings are accepted (they change nothing) and queries answer what
// is true of host memory. On one without, the SVM calls fail
// (HSA_STATUS_ERROR, logged) after their checks.
//
// Thread-safety: every function may be called from any thread.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "hsa_core/agent.h"
#include "hsa_core/backend.h"
#include "hsa_core/memory.h"
#include "hsa_core/platform.h"
#include "hsa_core/signal.h"

namespace hsa_core {
namespace {

constexpr hsa_status_t kInvalidMemoryPool = static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);

bool pool_known(uint64_t pool) {
  PoolDescription description;
  return backend().describe_pool(pool, &description);
}

bool kernel_agent(hsa_agent_t agent) {
  AgentDescription description;
  return backend().describe_agent(agent, &description) && description.kernel_dispatch;
}

hsa_status_t svm_range_ok(const void* ptr, size_t size, const hsa_amd_svm_attribute_pair_t* list, size_t count) {
  if (ptr == nullptr || size == 0 || (count != 0 && list == nullptr)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t no_svm(const char* api) {
  log("%s: %s offers no shared virtual memory (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED is false)", api, backend().name);
  return HSA_STATUS_ERROR;
}

}  // namespace
}  // namespace hsa_core

using hsa_core::backend;

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t src_memory_pool,
                                                             hsa_amd_memory_pool_t dst_memory_pool, bool* result) {
  HSA_CORE_REQUIRE_INIT();
  if (!hsa_core::pool_known(src_memory_pool.handle) || !hsa_core::pool_known(dst_memory_pool.handle))
    return hsa_core::kInvalidMemoryPool;
  if (result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_memory_migrate(const void* ptr, hsa_amd_memory_pool_t memory_pool,
                                                    uint32_t flags) {
  HSA_CORE_REQUIRE_INIT();
  if (!hsa_core::pool_known(memory_pool.handle)) return hsa_core::kInvalidMemoryPool;
  if (ptr == nullptr || flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!backend().svm) {
    hsa_core::log("hsa_amd_memory_migrate: memory does not move between %s's pools", backend().name);
    return HSA_STATUS_ERROR;
  }
  return HSA_STATUS_SUCCESS;  // one physical memory: nothing moves
}

// Host memory never migrates: a prefetch completes once its dependencies do.
HSA_CORE_EXPORT hsa_status_t hsa_amd_svm_prefetch_async(void* ptr, size_t size, hsa_agent_t agent,
                                                        uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                                        hsa_signal_t completion_signal) {
  HSA_CORE_REQUIRE_INIT();
  if (ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!hsa_core::backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (completion_signal.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!backend().svm) return hsa_core::no_svm("hsa_amd_svm_prefetch_async");
  (void)size;
  return hsa_amd_memory_async_copy(ptr, agent, ptr, agent, 0, num_dep_signals, dep_signals, completion_signal);
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_svm_attributes_set(void* ptr, size_t size,
                                                        hsa_amd_svm_attribute_pair_t* attribute_list,
                                                        size_t attribute_count) {
  HSA_CORE_REQUIRE_INIT();
  if (hsa_status_t status = hsa_core::svm_range_ok(ptr, size, attribute_list, attribute_count);
      status != HSA_STATUS_SUCCESS)
    return status;
  for (size_t i = 0; i < attribute_count; ++i) {
    const hsa_amd_svm_attribute_pair_t& pair = attribute_list[i];
    switch (pair.attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
        if (pair.value != HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED && pair.value != HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED)
          return HSA_STATUS_ERROR_INVALID_ARGUMENT;
        break;
      case HSA_AMD_SVM_ATTRIB_READ_ONLY:
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY:
        break;
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:  // the null agent: no preference
        if (pair.value != 0 && !backend().agent_known(hsa_agent_t{pair.value})) return HSA_STATUS_ERROR_INVALID_AGENT;
        break;
      case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE:
      case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE:
      case HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS:
        if (!backend().agent_known(hsa_agent_t{pair.value})) return HSA_STATUS_ERROR_INVALID_AGENT;
        break;
      default:  // includes ACCESS_QUERY and PREFETCH_LOCATION (queries only)
        hsa_core::log("hsa_amd_svm_attributes_set: attribute 0x%llx cannot be set",
                      static_cast<unsigned long long>(pair.attribute));
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  if (!backend().svm) return hsa_core::no_svm("hsa_amd_svm_attributes_set");
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_svm_attributes_get(void* ptr, size_t size,
                                                        hsa_amd_svm_attribute_pair_t* attribute_list,
                                                        size_t attribute_count) {
  HSA_CORE_REQUIRE_INIT();
  if (hsa_status_t status = hsa_core::svm_range_ok(ptr, size, attribute_list, attribute_count);
      status != HSA_STATUS_SUCCESS)
    return status;
  // Check every entry before writing any answer.
  for (size_t i = 0; i < attribute_count; ++i) {
    const hsa_amd_svm_attribute_pair_t& pair = attribute_list[i];
    switch (pair.attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
      case HSA_AMD_SVM_ATTRIB_READ_ONLY:
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY:
        break;
      case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY:
        if (!backend().agent_known(hsa_agent_t{pair.value})) return HSA_STATUS_ERROR_INVALID_AGENT;
        break;
      default:  // includes the AGENT_* settings and PREFETCH_LOCATION
        hsa_core::log("hsa_amd_svm_attributes_get: attribute 0x%llx cannot be queried",
                      static_cast<unsigned long long>(pair.attribute));
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  if (!backend().svm) return hsa_core::no_svm("hsa_amd_svm_attributes_get");
  for (size_t i = 0; i < attribute_count; ++i) {
    hsa_amd_svm_attribute_pair_t& pair = attribute_list[i];
    switch (pair.attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG: pair.value = HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED; break;
      case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY: pair.attribute = HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE; break;
      default: pair.value = 0; break;  // false, one page, no preferred location
    }
  }
  return HSA_STATUS_SUCCESS;
}

// A profiled dispatch's completion signal holds its start and end in the
// system domain (Backend::dispatch_time may first fill them in).
HSA_CORE_EXPORT hsa_status_t hsa_amd_profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                                                 hsa_amd_profiling_dispatch_time_t* time) {
  HSA_CORE_REQUIRE_INIT();
  if (!hsa_core::kernel_agent(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!hsa_core::signal_is_live(signal)) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (backend().dispatch_time != nullptr) backend().dispatch_time(signal);
  const amd_signal_t& amd = hsa_core::to_signal(signal)->amd;
  time->start = __atomic_load_n(&amd.start_ts, __ATOMIC_RELAXED);
  time->end = __atomic_load_n(&amd.end_ts, __ATOMIC_RELAXED);
  return HSA_STATUS_SUCCESS;
}

HSA_CORE_EXPORT hsa_status_t hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t agent, uint64_t agent_tick,
                                                                             uint64_t* system_tick) {
  HSA_CORE_REQUIRE_INIT();
  if (!backend().agent_known(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (system_tick == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *system_tick = backend().agent_tick_to_system != nullptr ? backend().agent_tick_to_system(agent, agent_tick)
                                                           : agent_tick;
  return HSA_STATUS_SUCCESS;
}
