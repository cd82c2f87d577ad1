// System events (events.cpp): hsa_amd_register_system_event_handler, and
// what a back-end tells the handler. One handler per runtime (ROCR's header
// allows several; a second registration is refused with HSA_STATUS_ERROR),
// forgotten at the last hsa_shut_down.
//
// Thread-safety: every function may be called from any thread; the handler
// is called on the thread that reports the event, without a lock held.
#ifndef HSA_CORE_EVENTS_H_
#define HSA_CORE_EVENTS_H_

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdint>

namespace hsa_core {

// Tells the handler, if one is registered, of a memory fault of a dispatch
// on `agent` (HSA_AMD_GPU_MEMORY_FAULT_EVENT) at `address` with
// `reason_mask` (hsa_amd_memory_fault_reason_t bits). A device that does
// not say where it faulted passes address 0 and HSA_AMD_MEMORY_FAULT_IMPRECISE.
// Called before the faulting queue's callback, as ROCR does.
void notify_memory_fault(hsa_agent_t agent, uint64_t address, uint32_t reason_mask);
// The last hsa_shut_down (init.cpp): the handler is forgotten.
void forget_system_event_handler();

}  // namespace hsa_core

#endif  // HSA_CORE_EVENTS_H_
