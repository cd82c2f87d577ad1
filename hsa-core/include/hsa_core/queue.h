// What the core keeps of the runtime's queues (queue.cpp): the CU masks and
// priorities a queue is given (hsa_amd_queue_cu_set_mask, _cu_get_mask,
// hsa_amd_queue_set_priority), checked and answered here for any live
// queue the back-end names (Backend::queue_agent); and the agents' memory
// coherency (hsa_amd_coherency_get_type, _set_type). The queue objects
// themselves and their packet processors are still each back-end's.
//
// Thread-safety: every function may be called from any thread.
#ifndef HSA_CORE_QUEUE_H_
#define HSA_CORE_QUEUE_H_

#include <hsa/hsa.h>

namespace hsa_core {

// The back-end's queue `queue` is destroyed (before its memory is freed):
// what the core kept of it goes.
void forget_queue(const hsa_queue_t* queue);
// hsa_shut_down: forgets every queue.
void forget_all_queues();

}  // namespace hsa_core

#endif  // HSA_CORE_QUEUE_H_
