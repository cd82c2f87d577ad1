// hsa-cpu's signals are the core's (hsa-core/include/hsa_core/signal.h):
// the names the runtime uses, in its namespace.
#ifndef HSA_CPU_SIGNAL_H_
#define HSA_CPU_SIGNAL_H_

#include <hsa_core/signal.h>

#include "common.h"

namespace hsa_cpu {

using hsa_core::async_handler_thread;
using hsa_core::AsyncHandlerThread;
using hsa_core::ChangeScope;
using hsa_core::condition_met;
using hsa_core::create_doorbell_signal;
using hsa_core::deadline_after;
using hsa_core::destroy_all_user_signals;
using hsa_core::destroy_internal_signal;
using hsa_core::kAnyChange;
using hsa_core::sanitize_hint;
using hsa_core::shut_down_async_handler_thread;
using hsa_core::Signal;
using hsa_core::signal_is_live;
using hsa_core::signal_registry_contains;
using hsa_core::sleep_recheck_ns;
using hsa_core::to_handle;
using hsa_core::to_signal;
using hsa_core::valid_condition;
using hsa_core::wait_until;
using hsa_core::WaitFilter;
using hsa_core::WaitNode;
using hsa_core::WaitRegistration;

}  // namespace hsa_cpu

#endif  // HSA_CPU_SIGNAL_H_
