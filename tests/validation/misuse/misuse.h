// The misuse catalogue: engine-developer mistakes, each run twice in a child
// process of its own — without the validation layer and with it — against a
// fresh instance and device (README.md).
//
// Thread-compatible: an Env lives in one child process, on one thread.
#ifndef XGPU_TESTS_VALIDATION_MISUSE_MISUSE_H_
#define XGPU_TESTS_VALIDATION_MISUSE_MISUSE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"

namespace misuse {

// What a void call "returns" in the table.
inline constexpr XgpuResult kVoid = static_cast<XgpuResult>(1000);
// Any result (undefined behaviour that must only not crash).
inline constexpr XgpuResult kAny = static_cast<XgpuResult>(1001);

// A fresh instance (with or without the layer), a device with two queues
// (when the family has them) and objects a mistake needs.
struct Env {
  bool layer = false;                      // the validation layer is on
  XgpuInstance instance = nullptr;         // the instance
  XgpuPhysicalDevice physical = nullptr;   // its first physical device
  XgpuDevice device = nullptr;             // the device the mistakes are made on
  XgpuDevice other_device = nullptr;       // a second device of the same physical device
  XgpuQueue queue = nullptr;               // queue 0
  XgpuQueue health_queue = nullptr;        // queue 1 (or 0): checked after the mistake
  uint32_t host_type = 0;                  // a host-visible memory type
  XgpuPhysicalDeviceLimits limits = {};    // the device's limits
  XgpuBuffer buffer = nullptr;             // 4096 bytes, every usage
  XgpuExecutable executable = nullptr;     // the test kernels
  XgpuPipeline pipeline = nullptr;         // validation_saxpy: 2 bindings, 8 bytes of constants
  XgpuSemaphore semaphore = nullptr;       // payload 0
  XgpuMemoryPool pool = nullptr;           // of host_type

  XgpuBuffer Buffer(XgpuDeviceSize size, XgpuBufferUsageFlags usage = ~0u, XgpuDevice on = nullptr);
  XgpuCommandBuffer CommandBuffer(XgpuDevice on = nullptr);
  // Created and begun; `capacity` binding-table slots.
  XgpuCommandBuffer Begun(XgpuCommandBufferMode mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, uint32_t capacity = 0,
                          XgpuDevice on = nullptr);
  // Begun, the pipeline and `buffer` twice bound, constants pushed: ready to dispatch.
  XgpuCommandBuffer ReadyToDispatch(XgpuCommandBufferMode mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  // Begun and ended, empty.
  XgpuCommandBuffer Executable(XgpuCommandBufferMode mode = XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, uint32_t capacity = 0);
  XgpuSemaphore Semaphore(XgpuDevice on = nullptr);
  XgpuPipeline Pipeline(XgpuDevice on = nullptr);
  XgpuExecutable LoadExecutable(XgpuDevice on = nullptr);
  XgpuMemoryPool Pool(XgpuDevice on = nullptr);
  XgpuResult Submit(XgpuCommandBuffer cb, uint32_t binding_count = 0, const XgpuBufferBinding* bindings = nullptr);
  XgpuResult Wait(XgpuSemaphore semaphore, uint64_t value);
  // A queue-ordered allocation of `size` bytes from `pool`, committed (waited for).
  XgpuBuffer Alloca(XgpuDeviceSize size);
};

// One mistake.
struct Entry {
  const char* name;           // what the developer did wrong
  const char* layer_id;       // the ID reported with the layer on (nullptr: none yet, see waits_for)
  const char* driver_id;      // the ID the driver reports without the layer (nullptr: it checks nothing)
  XgpuResult error;           // what the call returns when it is reported (kVoid: a void call; kAny: not compared)
  const char* waits_for;      // nullptr, or the rule the layer does not check yet (the vrules work)
  XgpuResult (*run)(Env&);    // makes the mistake; returns the call's result
};

const std::vector<Entry>& Catalogue();

}  // namespace misuse

#endif  // XGPU_TESTS_VALIDATION_MISUSE_MISUSE_H_
