// No C++ exception crosses the C API (api.md 1.4): every intercept the layer
// hands out (generated/chassis.inc, kIntercepts) is called through
// EntryGuard<&Intercept...>::call. The checks answer what they can
// themselves; what still throws while host memory runs out (a message being
// built, a container of the state tracker growing) is caught here:
// functions returning XgpuResult return XGPU_ERROR_OUT_OF_HOST_MEMORY, void
// functions do nothing, others return a zero value, and a recording command
// (first parameter an XgpuCommandBuffer) puts its command buffer in the
// recording-error state, so xgpuEndCommandBuffer returns the error and the
// incomplete recording is never submitted.
//
// Thread-safety: as the guarded function.
#ifndef XGPU_LAYERS_VALIDATION_CHASSIS_ENTRY_GUARD_H_
#define XGPU_LAYERS_VALIDATION_CHASSIS_ENTRY_GUARD_H_

#include <exception>
#include <tuple>
#include <type_traits>

#include "xgpu/xgpu.h"

namespace xgpu_validation {

// A recording command on `command_buffer` threw: its recording fails with
// XGPU_ERROR_OUT_OF_HOST_MEMORY (layer.cpp).
void NoteRecordingException(XgpuCommandBuffer command_buffer) noexcept;

template <typename R, typename... Args>
struct EntryGuardCall {
  template <typename Impl>
  static R Call(Impl impl, Args... args) noexcept {
    try {
      return impl(args...);
    } catch (const std::exception&) {
      if constexpr (sizeof...(Args) > 0) {
        if constexpr (std::is_same_v<std::tuple_element_t<0, std::tuple<Args...>>, XgpuCommandBuffer>)
          NoteRecordingException(std::get<0>(std::forward_as_tuple(args...)));
      }
      if constexpr (std::is_same_v<R, XgpuResult>) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
      } else if constexpr (!std::is_void_v<R>) {
        return R{};
      }
    }
  }
};

template <auto Impl>
struct EntryGuard;

template <typename R, typename... Args, R (*Impl)(Args...)>
struct EntryGuard<Impl> {
  static R XGPU_API_CALL call(Args... args) noexcept { return EntryGuardCall<R, Args...>::Call(Impl, args...); }
};

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_CHASSIS_ENTRY_GUARD_H_
