// Certain deadlocks (a warning, spec/warnings.json XGPU-VALIDATION-deadlock).
//
// The layer reports a wait as a certain deadlock only when it can prove that
// nothing will ever satisfy it: an xgpuWaitSemaphores with timeout
// UINT64_MAX, made by the only thread that has ever called into the layer
// (so no other thread can signal, fail or submit), whose condition is not
// met by the semaphores' current values (asked down the chain) nor by any
// pending queue operation that can still run. Which ones can run is worked
// out from the pending operations the layer tracks (pending/, costly checks):
// in queue order, an operation runs once its wait list is met by the current
// values and by the signals of those that can run before it; one held by a
// wait nothing can meet holds every later operation of its queue, so a
// payload only they signal (e.g. a later submission on the same queue as the
// waiting one) can never be reached.
//
// Not detected: a thread that has not called into xgpu yet but will (the
// layer cannot see threads before their first call; such a program gets a
// false report, so this check is behind the costly checks); waits with a
// time limit; xgpuQueueWaitIdle and xgpuDeviceWaitIdle; a queue operation's
// own wait at xgpuQueueSubmit (another queue, or the host, may still signal
// above every pending payload, so it is never certain then). A semaphore
// failure or a device loss may still end a reported wait, with an error.
#ifndef XGPU_LAYERS_VALIDATION_DEADLOCK_DEADLOCK_H_
#define XGPU_LAYERS_VALIDATION_DEADLOCK_DEADLOCK_H_

namespace xgpu_validation {

// Notes the calling thread (CallContext::Dispatch, every intercepted call):
// after a thread's first call, one load of a static-TLS flag.
extern thread_local constinit bool t_calling_thread_noted __attribute__((tls_model("initial-exec")));
void NoteNewCallingThread();
inline void NoteCallingThread() {
  if (!t_calling_thread_noted) [[unlikely]] NoteNewCallingThread();
}
// Whether the calling thread is the only one that has called into the layer.
bool OnlyCallingThread();

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_DEADLOCK_DEADLOCK_H_
