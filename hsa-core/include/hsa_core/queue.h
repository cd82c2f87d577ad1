// Queues, for both back-ends (queue.cpp): the core answers hsa_queue_create,
// hsa_soft_queue_create, hsa_queue_destroy, hsa_queue_inactivate and
// hsa_amd_profiling_set_profiler_enabled, with their argument checks and
// error codes, from what the back-end says of its agents; it keeps the
// registry of live queues (each with its agent and the back-end's object,
// the per-agent count of HSA_AGENT_INFO_QUEUES_MAX), their CU masks and
// priorities (hsa_amd_queue_cu_set_mask, _cu_get_mask,
// hsa_amd_queue_set_priority) and the agents' memory coherency
// (hsa_amd_coherency_get_type, _set_type). The back-end makes a queue's ring
// and runs its packets (Backend::queue_create, soft_queue_create,
// queue_destroy, queue_inactivate, queue_profiling); the packet processor
// is still each back-end's.
//
// Thread-safety: every function may be called from any thread.
#ifndef HSA_CORE_QUEUE_H_
#define HSA_CORE_QUEUE_H_

#include <hsa/hsa.h>

#include <cstdint>

namespace hsa_core {

// What hsa_queue_create asked for, checked (Backend::queue_create).
struct QueueRequest {
  hsa_agent_t agent{0};
  uint32_t size = 0;  // a power of two within the agent's limits
  hsa_queue_type32_t type = HSA_QUEUE_TYPE_MULTI;
  void (*callback)(hsa_status_t status, hsa_queue_t* source, void* data) = nullptr;
  void* data = nullptr;
  uint32_t private_segment_size = UINT32_MAX;
  uint32_t group_segment_size = UINT32_MAX;
};

// The back-end's object of the live queue `queue`, or nullptr when it is
// not one (the entry points a back-end answers itself look queues up here).
void* queue_object(const hsa_queue_t* queue);
// hsa_shut_down (the back-end's close): destroys every queue still live
// (Backend::queue_destroy), logging how many there were.
void destroy_all_queues();

}  // namespace hsa_core

#endif  // HSA_CORE_QUEUE_H_
