// The last line of "no C++ exception crosses the C API" (api.md 1.4): every
// entry point the driver hands out (driver.cpp, command_buffer_names.cpp) is its
// implementation called through EntryGuard<&implementation>::call.
//
// The design is that implementations answer their own failures: host
// allocations that can fail are checked and become
// XGPU_ERROR_OUT_OF_HOST_MEMORY with a message, threads that cannot start
// fail their command. What still throws (a standard container growing, a
// string built for a message while memory runs out) is caught here:
// functions returning XgpuResult return XGPU_ERROR_OUT_OF_HOST_MEMORY, void
// functions do nothing, others return a zero value; a recording command
// (first parameter an XgpuCommandBuffer) also fails its recording, so
// xgpuEndCommandBuffer returns the error and the incomplete recording can
// never be submitted.
//
// Thread-safety: as the guarded function.
#pragma once

#include <exception>
#include <tuple>
#include <type_traits>

#include "xgpu/xgpu.h"

namespace xgpu::amdgpu {

// A recording command on `command_buffer` threw: its recording fails with
// XGPU_ERROR_OUT_OF_HOST_MEMORY (reported when a message can still be
// built). Defined in command_buffer.cpp.
void command_buffer_note_exception(XgpuCommandBuffer command_buffer) noexcept;

template <typename R, typename... Args>
struct EntryGuardCall {
  template <typename Impl>
  static R call(Impl impl, Args... args) noexcept {
    try {
      return impl(args...);
    } catch (const std::exception&) {
      if constexpr (sizeof...(Args) > 0) {
        if constexpr (std::is_same_v<std::tuple_element_t<0, std::tuple<Args...>>, XgpuCommandBuffer>)
          command_buffer_note_exception(std::get<0>(std::forward_as_tuple(args...)));
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
  static R XGPU_API_CALL call(Args... args) noexcept { return EntryGuardCall<R, Args...>::call(Impl, args...); }
};

template <typename R, typename... Args, R (*Impl)(Args...) noexcept>
struct EntryGuard<Impl> {
  static R XGPU_API_CALL call(Args... args) noexcept { return Impl(args...); }
};

}  // namespace xgpu::amdgpu
