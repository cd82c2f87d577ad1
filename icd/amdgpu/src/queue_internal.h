#pragma once
// What the queue's files (queue*.cpp) share with each other and with nobody
// else: one file per concern, each calling the others only through these.
//
//   queue_submit.cpp    submission acceptance (the entry points)
//   queue_schedule.cpp  scheduling and holds (issue, pump, waking)
//   queue_retire.cpp    retirement and completion handlers, queue errors
//   queue_packets.cpp   AQL packet writing
//   queue_alloca.cpp    queue-ordered allocation (xgpuQueueAlloca/Dealloca)
//   queue.cpp           queue lifetime, idle waits, the watchdog's query
//
// Threading: as queue.h; every function says which lock it expects.

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "queue.h"

namespace xgpu::amdgpu::queue_impl {

// --- scheduling (queue_schedule.cpp) ---
extern std::mutex g_registry_mutex;  // guards g_queues; held while pumping all queues
extern std::vector<Queue*> g_queues;  // every live queue of every device
// Records whether `queue` holds submissions (queue->mutex held).
void note_holding_locked(Queue* queue);
// Issues what can be issued of `queue`'s pending list.
void pump(Queue* queue);

// --- AQL packets (queue_packets.cpp) ---
uint16_t packet_header(hsa_packet_type_t type, bool barrier, hsa_fence_scope_t acquire, hsa_fence_scope_t release);
uint8_t* packet_slot(const Queue* queue, uint64_t packet_id);
uint32_t packet_type(const Queue* queue, uint64_t packet_id);
void write_barrier_and(Queue* queue, uint64_t packet_id, const CompletionSignal* const* dependencies,
                       uint32_t dependency_count, hsa_signal_t completion, bool barrier_bit);
void write_test_fault(Queue* queue, uint64_t packet_id, hsa_signal_t completion, bool barrier_bit);

// --- retirement and completion (queue_retire.cpp) ---
XgpuResult acquire_print_buffer(Queue* queue, Submission* s);
XgpuResult deliver_prints(Queue* queue, Submission* s, XgpuResult status);
void finalize(Submission* s);
void finish_batch(Queue* queue, std::vector<Submission*>& batch);
bool retire(Queue* queue, Submission* known_done, bool blocking);
bool on_completion(hsa_signal_value_t, void* arg);
void on_queue_error(hsa_status_t status, hsa_queue_t* source, void* data);
void report_issue_failure(Queue* queue, const Submission* s, const std::string& error, const std::string& rule);
bool register_completion_handler(Submission* s, std::string* out_error);

}  // namespace xgpu::amdgpu::queue_impl
