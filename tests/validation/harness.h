// The validation layer tests' harness: one process-wide Fixture (an instance
// with the layer enabled and a messenger that records every message, a
// device with one object of every type, a second device and instance for
// foreign handles), direct access to the layer's own intercepts (the
// library the loader loaded, negotiated again), and the helpers the
// generated negative tests use to break one rule of a baseline call.
//
// Thread-compatible: tests run on one thread; MessageLog is thread-safe
// (messengers may be called from driver threads).
#ifndef XGPU_TESTS_VALIDATION_HARNESS_H_
#define XGPU_TESTS_VALIDATION_HARNESS_H_

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_layer.h"

namespace vtest {

inline constexpr const char* kLayerName = "XGPU_LAYER_validation";
inline constexpr uint64_t kTimeoutNs = 10'000'000'000ull;  // bound of every wait

// FNV-1a of a message ID as api.md 1.5 defines messageIdNumber.
int32_t Fnv1a(const std::string& id);

// Every message the messengers it is given to receive.
class MessageLog {
 public:
  struct Object {
    XgpuObjectType type;  // its type
    uint64_t handle;      // its handle
    std::string name;     // its pObjectName, "" when NULL
  };
  struct Message {
    XgpuDebugMessageSeverityFlagBits severity;  // its severity
    XgpuDebugMessageTypeFlags types;            // its types
    std::string id;                             // pMessageIdName ("" when NULL)
    int32_t number;                             // messageIdNumber
    std::string text;                           // pMessage
    std::vector<Object> objects;                // pObjects
  };

  static XgpuBool32 XGPU_API_CALL Callback(XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags types,
                                           const XgpuDebugMessageData* data, void* user);
  // A create info selecting warnings and errors of every type, delivering here.
  XgpuDebugMessengerCreateInfo CreateInfo();

  std::vector<Message> Messages();
  void Clear();
  // IDs of layer messages (XGPU-VUID-*, and XGPU-VALIDATION-* warnings) not in spec/vuids.json or
  // spec/warnings.json, since the start.
  std::vector<std::string> UnknownIds();
  void SetKnownIds(std::set<std::string> ids);

 private:
  std::mutex mutex_;
  std::vector<Message> messages_;
  std::set<std::string> known_ids_;
  std::vector<std::string> unknown_ids_;
};

// An XgpuDebugMessengerCreateInfo-shaped structure of a type no structure has.
struct UnknownStructure {
  XgpuStructureType sType;
  const void* pNext;
};

class Fixture {
 public:
  static Fixture& Get();
  // Destroys the process-wide fixture (the test run's end).
  static void Shutdown();

  MessageLog log;

  // Objects of the fixture's device (a fresh recording command buffer each time).
  template <typename T>
  T Valid();
  // An object of the same type from the second device (or, for a messenger, the second instance).
  template <typename T>
  T Foreign();

  // The layer's own intercepts: its GetInstanceProcAddr with NULL, with the
  // fixture's instance, and its GetDeviceProcAddr with the fixture's device.
  PFN_xgpuVoidFunction LayerGlobalFunction(const char* name);
  PFN_xgpuVoidFunction LayerInstanceFunction(const char* name);
  PFN_xgpuVoidFunction LayerDeviceFunction(const char* name);
  XgpuResult EndThroughLayer(XgpuCommandBuffer commandBuffer);

  // Exactly one message: the error `id`, of type VALIDATION, numbered by its
  // FNV-1a, reported by `called` (by default the rule's own command).
  void ExpectOnly(const std::string& id, const std::string& called = "");
  // No message at all.
  void ExpectNone();

  // Cleanups of the running test (TestScope runs them).
  void Defer(std::function<void()> cleanup) { cleanups_.push_back(std::move(cleanup)); }
  void RunCleanups();

  // An instance with the layer and the log's messenger chained to its create
  // info (no other messenger); destroyed at the test's end.
  XgpuInstance FreshInstance();
  // A device of the fixture's physical device with no objects; destroyed at the test's end.
  XgpuDevice FreshDevice();
  // A structure of an unknown type, to chain into a pNext.
  const void* UnknownStructure() const { return &unknown_; }
  // Creates a command buffer of `device` and begins it; destroyed at the test's end.
  XgpuCommandBuffer BegunCommandBuffer(XgpuDevice device, XgpuCommandBufferMode mode, uint32_t binding_capacity);
  // A command buffer of the fixture's device, created and never begun; destroyed at the test's end.
  XgpuCommandBuffer InitialCommandBuffer();
  // One begun and ended, empty (executable); destroyed at the test's end.
  XgpuCommandBuffer ExecutableCommandBuffer(XgpuCommandBufferMode mode, uint32_t binding_capacity);

  uint32_t host_visible_type = 0;  // a host-visible memory type of the fixture's device
  XgpuInstance instance = nullptr;
  XgpuDebugMessenger messenger = nullptr;        // the log's
  XgpuDebugMessenger extra_messenger = nullptr;  // a second messenger of the instance
  XgpuPhysicalDevice physical_device = nullptr;
  XgpuDevice device = nullptr;
  XgpuQueue queue = nullptr;
  XgpuBuffer buffer = nullptr;
  XgpuMemoryPool memory_pool = nullptr;
  XgpuSemaphore semaphore = nullptr;
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  // The second device and instance, for foreign handles.
  XgpuDevice other_device = nullptr;
  XgpuBuffer other_buffer = nullptr;
  XgpuMemoryPool other_memory_pool = nullptr;
  XgpuSemaphore other_semaphore = nullptr;
  XgpuExecutable other_executable = nullptr;
  XgpuPipeline other_pipeline = nullptr;
  XgpuCommandBuffer other_command_buffer = nullptr;
  XgpuInstance other_instance = nullptr;
  XgpuDebugMessenger other_messenger = nullptr;

 private:
  Fixture();
  ~Fixture();
  void CreateObjects(XgpuDevice device, XgpuBuffer* buffer, XgpuMemoryPool* pool, XgpuSemaphore* semaphore,
                     XgpuExecutable* executable, XgpuPipeline* pipeline);

  void* layer_library_ = nullptr;
  PFN_xgpuGetInstanceProcAddr layer_gipa_ = nullptr;
  PFN_xgpuGetDeviceProcAddr layer_gdpa_ = nullptr;
  std::vector<std::function<void()>> cleanups_;
  vtest::UnknownStructure unknown_ = {static_cast<XgpuStructureType>(0x7FFFFFF0), nullptr};
};

template <typename T>
T Fixture::Valid() {
  if constexpr (std::is_same_v<T, XgpuInstance>) return instance;
  else if constexpr (std::is_same_v<T, XgpuPhysicalDevice>) return physical_device;
  else if constexpr (std::is_same_v<T, XgpuDevice>) return device;
  else if constexpr (std::is_same_v<T, XgpuQueue>) return queue;
  else if constexpr (std::is_same_v<T, XgpuCommandBuffer>) return BegunCommandBuffer(device, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 1);
  else if constexpr (std::is_same_v<T, XgpuBuffer>) return buffer;
  else if constexpr (std::is_same_v<T, XgpuMemoryPool>) return memory_pool;
  else if constexpr (std::is_same_v<T, XgpuSemaphore>) return semaphore;
  else if constexpr (std::is_same_v<T, XgpuExecutable>) return executable;
  else if constexpr (std::is_same_v<T, XgpuPipeline>) return pipeline;
  else if constexpr (std::is_same_v<T, XgpuDebugMessenger>) return extra_messenger;
  else static_assert(sizeof(T) == 0, "a handle type the fixture has no object of");
}

template <typename T>
T Fixture::Foreign() {
  if constexpr (std::is_same_v<T, XgpuCommandBuffer>) return other_command_buffer;
  else if constexpr (std::is_same_v<T, XgpuBuffer>) return other_buffer;
  else if constexpr (std::is_same_v<T, XgpuMemoryPool>) return other_memory_pool;
  else if constexpr (std::is_same_v<T, XgpuSemaphore>) return other_semaphore;
  else if constexpr (std::is_same_v<T, XgpuExecutable>) return other_executable;
  else if constexpr (std::is_same_v<T, XgpuPipeline>) return other_pipeline;
  else if constexpr (std::is_same_v<T, XgpuDebugMessenger>) return other_messenger;
  else static_assert(sizeof(T) == 0, "a handle type the fixture has no foreign object of");
}

// Clears the log before a test and runs its cleanups after it.
class TestScope {
 public:
  explicit TestScope(Fixture& f) : f_(f) { f_.log.Clear(); }
  ~TestScope() { f_.RunCleanups(); }

 private:
  Fixture& f_;
};

// A handle of type T that no object has ever had.
template <typename T>
T Fake() {
  static unsigned char storage[64] = {};  // one per type: never an object of the driver
  return reinterpret_cast<T>(storage + 16);
}
// What an output handle holds before a call that must set it to NULL when it fails.
template <typename T>
T Sentinel() {
  return reinterpret_cast<T>(uintptr_t{0x5eed0000});
}
// A pointer one byte past p (misaligned for any type larger than a byte).
template <typename T>
T* Misaligned(T* p) {
  return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(p) + 1);
}
// A pointer to memory that is not mapped (page 1 of the address space).
template <typename T>
T* Unmapped(T*) {
  return reinterpret_cast<T*>(uintptr_t{4096});
}
// Stores value into a field of a baseline call (its storage is never const).
template <typename T, typename V>
void SetRaw(const T& field, V value) {
  const_cast<T&>(field) = static_cast<T>(value);
}
// Buffer references, built in one place (members by name, so the structure may grow).
inline XgpuBufferRef RefToBuffer(XgpuBuffer buffer, XgpuDeviceSize offset = 0, XgpuDeviceSize size = XGPU_WHOLE_SIZE) {
  return xgpuBufferRefRange(buffer, offset, size);
}
inline XgpuBufferRef RefToSlot(uint32_t slot, XgpuDeviceSize offset = 0, XgpuDeviceSize size = XGPU_WHOLE_SIZE) {
  return xgpuBufferRefSlot(slot, offset, size);
}

// Registers a hand-written negative test of the explicit rule `id` (for the
// coverage test); returns true.
bool RegisterRuleTest(const char* id);
// The explicit rules with hand-written negative tests.
const std::set<std::string>& RuleTests();
// The `error` of rule `id` in spec/vuids.json (e.g. "XGPU_ERROR_INVALID_USAGE").
std::string ErrorOfRule(const std::string& id);

// Appends `tail` to the end of the pNext chain starting at `head`.
void AppendToChain(const void* const& head, const void* tail);

// Sets (value) or unsets (NULL) an environment variable for a scope, and
// restores what it was.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace vtest

#endif  // XGPU_TESTS_VALIDATION_HARNESS_H_
