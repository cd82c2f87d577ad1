// Asynchronous copies, for both back-ends (copy.cpp): the core answers
// hsa_amd_memory_async_copy (its checks, the wait for its dependencies on
// the async-handler thread, an error value of a dependency carried into the
// completion signal with the copy skipped, the completion with its
// profiling times) and the copy profiling entry points
// (hsa_amd_profiling_async_copy_enable, hsa_amd_profiling_get_async_copy_time);
// the back-end moves the bytes (Backend::copy).
//
// Thread-safety: every function may be called from any thread.
#ifndef HSA_CORE_COPY_H_
#define HSA_CORE_COPY_H_

#include <cstddef>

namespace hsa_core {

// The back-end calls this once the copy it was handed ended (from any
// thread), with the context it was given: `ok` when the bytes are at their
// destination; otherwise (it logged why) the completion signal takes the
// error value -1 instead of being decremented, as a failed dependency's
// value is carried.
void copy_done(void* context, bool ok);

}  // namespace hsa_core

#endif  // HSA_CORE_COPY_H_
