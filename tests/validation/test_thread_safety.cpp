// External synchronization (api.md 1.6, the -externsync rules): calls of two
// threads on one externally synchronized object that overlap are reported.
// Each test forces the overlap deterministically: thread A makes a call that
// breaks a rule, and its messenger callback (which runs inside A's call, so
// while A holds the object) waits until thread B has made its call on the
// same object.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "calls.h"

namespace vtest {
namespace {

// Messages with the thread each came on; the first message of the armed
// thread blocks its call until Release().
class Gate {
 public:
  struct Entry {
    std::string id;          // pMessageIdName
    std::string text;        // pMessage
    std::thread::id thread;  // the thread the callback ran on
  };

  static XgpuBool32 XGPU_API_CALL Callback(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                                           const XgpuDebugMessageData* data, void* user) {
    auto* gate = static_cast<Gate*>(user);
    std::unique_lock lock(gate->mutex_);
    gate->entries_.push_back({data->pMessageIdName ? data->pMessageIdName : "", data->pMessage,
                              std::this_thread::get_id()});
    if (gate->armed_ && std::this_thread::get_id() == gate->armed_thread_) {
      gate->armed_ = false;
      gate->inside_ = true;
      gate->changed_.notify_all();
      gate->changed_.wait(lock, [gate] { return gate->released_; });
    }
    return XGPU_FALSE;
  }

  // The next message on `thread` blocks until Release().
  void Arm(std::thread::id thread) {
    std::lock_guard lock(mutex_);
    armed_ = true;
    armed_thread_ = thread;
    inside_ = false;
    released_ = false;
  }
  // Waits until the armed thread is inside its callback (false: it did not
  // get there in time, so its call reported nothing).
  bool WaitInside() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [this] { return inside_; });
  }
  void Release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  std::vector<Entry> Entries() {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  void Clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Entry> entries_;
  bool armed_ = false;
  std::thread::id armed_thread_;
  bool inside_ = false;
  bool released_ = false;
};

// Runs `a` on a thread whose first message blocks it, and `b` on this
// thread while `a` is blocked inside its call. Returns whether `a` did block
// (b runs only then).
bool Overlap(Gate& gate, const std::function<void()>& a, const std::function<void()>& b) {
  gate.Clear();
  std::mutex started;
  started.lock();
  std::thread thread_a([&] {
    started.lock();  // until armed
    started.unlock();
    a();
  });
  gate.Arm(thread_a.get_id());
  started.unlock();
  const bool inside = gate.WaitInside();
  if (inside) b();
  gate.Release();
  thread_a.join();
  return inside;
}

// Messages that came on another thread than the calling one, and on it.
std::vector<Gate::Entry> On(Gate& gate, bool this_thread) {
  std::vector<Gate::Entry> out;
  for (const auto& e : gate.Entries()) {
    if ((e.thread == std::this_thread::get_id()) == this_thread) out.push_back(e);
  }
  return out;
}

// An instance with the layer, the gate's messenger, a device and its queue.
struct ThreadEnv {
  Gate gate;
  XgpuInstance instance = nullptr;
  XgpuDebugMessenger messenger = nullptr;
  XgpuDevice device = nullptr;
  XgpuQueue queue = nullptr;

  ThreadEnv() {
    const char* layers[] = {kLayerName};
    XgpuInstanceCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
    XgpuDebugMessengerCreateInfo m = {};
    m.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    m.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
    m.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
    m.pfnUserCallback = &Gate::Callback;
    m.pUserData = &gate;
    REQUIRE(xgpuCreateDebugMessenger(instance, &m, nullptr, &messenger) == XGPU_SUCCESS);
    uint32_t count = 1;
    XgpuPhysicalDevice physical = nullptr;
    xgpuEnumeratePhysicalDevices(instance, &count, &physical);
    REQUIRE(physical != nullptr);
    XgpuDeviceQueueCreateInfo q = {};
    q.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    q.queueCount = 1;
    XgpuDeviceCreateInfo d = {};
    d.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    d.queueCreateInfoCount = 1;
    d.pQueueCreateInfos = &q;
    REQUIRE(xgpuCreateDevice(physical, &d, nullptr, &device) == XGPU_SUCCESS);
    xgpuGetDeviceQueue(device, 0, 0, &queue);
    REQUIRE(queue != nullptr);
  }
  ~ThreadEnv() {
    xgpuDestroyDevice(device, nullptr);
    xgpuDestroyDebugMessenger(instance, messenger, nullptr);
    xgpuDestroyInstance(instance, nullptr);
  }

  XgpuCommandBuffer CommandBuffer() {
    XgpuCommandBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
    XgpuCommandBuffer cb = nullptr;
    REQUIRE(xgpuCreateCommandBuffer(device, &info, nullptr, &cb) == XGPU_SUCCESS);
    return cb;
  }
  void Begin(XgpuCommandBuffer cb, XgpuCommandBufferMode mode) {
    XgpuCommandBufferBeginInfo begin = {};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = mode;
    REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  }
  XgpuBuffer Buffer() {
    XgpuBufferCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    FixupStruct(Fixture::Get(), info);
    XgpuBuffer buffer = nullptr;
    REQUIRE(xgpuCreateBuffer(device, &info, nullptr, &buffer) == XGPU_SUCCESS);
    return buffer;
  }

  // Runs `a` on a thread whose first message blocks it, and `b` on this
  // thread while `a` is blocked inside its call.
  template <typename A, typename B>
  void Overlap(A a, B b) {
    REQUIRE(vtest::Overlap(gate, a, b));
  }

  // Messages that came on another thread than the calling one, and on it.
  std::vector<Gate::Entry> On(bool this_thread) { return vtest::On(gate, this_thread); }
};

// A misaligned pointer: the loader passes it on (it checks only for NULL), the
// layer reports it without reading through it.
template <typename T>
T* Bad() {
  return reinterpret_cast<T*>(uintptr_t{0x1001});
}
const XgpuBufferRef* NoRef() { return Bad<const XgpuBufferRef>(); }  // breaks xgpuCmdFillBuffer's pDst rule
constexpr const char* kFillNullRule = "XGPU-VUID-xgpuCmdFillBuffer-pDst-parameter";

}  // namespace

TEST_CASE("external synchronization: two threads recording one command buffer at once") {
  ThreadEnv env;
  XgpuCommandBuffer cb = env.CommandBuffer();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  const uint32_t pattern = 7;
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "overlap";
  env.Overlap([&] { xgpuCmdFillBuffer(cb, NoRef(), &pattern, 4); },
              [&] { xgpuCmdInsertDebugLabel(cb, &label); });
  const auto a = env.On(false);
  const auto b = env.On(true);
  REQUIRE(a.size() == 1);
  CHECK(a[0].id == kFillNullRule);
  REQUIRE(b.size() == 1);
  CHECK(b[0].id == "XGPU-VUID-xgpuCmdInsertDebugLabel-commandBuffer-externsync");
  CHECK(b[0].text.find("xgpuCmdInsertDebugLabel: commandBuffer is XgpuCommandBuffer 0x") == 0);
  CHECK(b[0].text.find(", which another thread is using in xgpuCmdFillBuffer at the same time") != std::string::npos);
  // Both calls recorded nothing: the recording ends with the first error, B's
  // (A's call marks the command buffer only after its callback returned).
  CHECK(xgpuEndCommandBuffer(cb) == XGPU_ERROR_INVALID_USAGE);
  // Once the calls are over, the command buffer is free again.
  env.gate.Clear();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  xgpuCmdInsertDebugLabel(cb, &label);
  CHECK(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  CHECK(env.gate.Entries().empty());
}

TEST_CASE("external synchronization: destroying a command buffer another thread is recording") {
  ThreadEnv env;
  XgpuCommandBuffer cb = env.CommandBuffer();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  const uint32_t pattern = 7;
  env.Overlap([&] { xgpuCmdFillBuffer(cb, NoRef(), &pattern, 4); },
              [&] { xgpuDestroyCommandBuffer(env.device, cb, nullptr); });
  const auto b = env.On(true);
  REQUIRE(b.size() == 1);
  CHECK(b[0].id == "XGPU-VUID-xgpuDestroyCommandBuffer-commandBuffer-externsync");
  CHECK(b[0].text.find("another thread is using in xgpuCmdFillBuffer") != std::string::npos);
  // The destroy was refused: the command buffer lives and is destroyed cleanly now.
  env.gate.Clear();
  xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  CHECK(env.gate.Entries().empty());
}

TEST_CASE("external synchronization: destroying a buffer another thread is mapping, and mapping one being destroyed") {
  ThreadEnv env;
  XgpuBuffer buffer = env.Buffer();
  SUBCASE("destroy during xgpuMapBuffer") {
    env.Overlap([&] { CHECK(xgpuMapBuffer(env.device, buffer, 0, XGPU_WHOLE_SIZE, Bad<void*>()) == XGPU_ERROR_INVALID_ARGUMENT); },
                [&] { xgpuDestroyBuffer(env.device, buffer, nullptr); });
    const auto a = env.On(false);
    const auto b = env.On(true);
    REQUIRE(a.size() == 1);
    CHECK(a[0].id == "XGPU-VUID-xgpuMapBuffer-ppData-parameter");
    REQUIRE(b.size() == 1);
    CHECK(b[0].id == "XGPU-VUID-xgpuDestroyBuffer-buffer-externsync");
    CHECK(b[0].text.find("another thread is using in xgpuMapBuffer") != std::string::npos);
  }
  SUBCASE("xgpuMapBuffer during a destroy") {
    const auto* misaligned = reinterpret_cast<const XgpuAllocationCallbacks*>(uintptr_t{0x1001});
    void* data = nullptr;
    XgpuResult mapped = XGPU_SUCCESS;
    env.Overlap([&] { xgpuDestroyBuffer(env.device, buffer, misaligned); },
                [&] { mapped = xgpuMapBuffer(env.device, buffer, 0, XGPU_WHOLE_SIZE, &data); });
    CHECK(mapped == XGPU_ERROR_INVALID_USAGE);
    CHECK(data == nullptr);
    const auto b = env.On(true);
    REQUIRE(b.size() == 1);
    CHECK(b[0].id == "XGPU-VUID-xgpuMapBuffer-buffer-externsync");
    CHECK(b[0].text.find("another thread is using in xgpuDestroyBuffer") != std::string::npos);
  }
  env.gate.Clear();
  xgpuDestroyBuffer(env.device, buffer, nullptr);  // still alive: both overlapping calls were refused
  CHECK(env.gate.Entries().empty());
}

TEST_CASE("external synchronization: submitting a command buffer another thread is beginning, and the reverse") {
  ThreadEnv env;
  XgpuCommandBuffer cb = env.CommandBuffer();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  SUBCASE("xgpuQueueSubmit while another thread is in xgpuBeginCommandBuffer") {
    XgpuResult submitted = XGPU_SUCCESS;
    env.Overlap([&] { CHECK(xgpuBeginCommandBuffer(cb, Bad<const XgpuCommandBufferBeginInfo>()) == XGPU_ERROR_INVALID_ARGUMENT); },
                [&] { submitted = xgpuQueueSubmit(env.queue, 1, &submit); });
    CHECK(submitted == XGPU_ERROR_INVALID_USAGE);
    const auto b = env.On(true);
    REQUIRE(b.size() == 1);
    CHECK(b[0].id == "XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-externsync");
    CHECK(b[0].text.find("xgpuQueueSubmit: pSubmits[0].commandBuffer is XgpuCommandBuffer") == 0);
    CHECK(b[0].text.find("another thread is using in xgpuBeginCommandBuffer") != std::string::npos);
  }
  SUBCASE("xgpuBeginCommandBuffer while another thread is in xgpuQueueSubmit") {
    XgpuSubmitInfo bad = submit;
    bad.waitSemaphores.count = 1;  // pSemaphores NULL: the submission is refused after the layer marked cb read
    XgpuCommandBufferBeginInfo begin = {};
    begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
    XgpuResult begun = XGPU_SUCCESS;
    env.Overlap([&] { CHECK(xgpuQueueSubmit(env.queue, 1, &bad) == XGPU_ERROR_INVALID_ARGUMENT); },
                [&] { begun = xgpuBeginCommandBuffer(cb, &begin); });
    CHECK(begun == XGPU_ERROR_INVALID_USAGE);
    const auto b = env.On(true);
    REQUIRE(b.size() == 1);
    CHECK(b[0].id == "XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-externsync");
    CHECK(b[0].text.find("which another thread is submitting (xgpuQueueSubmit) at the same time") != std::string::npos);
  }
  // Neither overlap left a claim behind: the command buffer is submitted cleanly now.
  env.gate.Clear();
  REQUIRE(xgpuQueueSubmit(env.queue, 1, &submit) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(env.queue) == XGPU_SUCCESS);
  xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  CHECK(env.gate.Entries().empty());
}

// A thread that has claimed an object once claims it later through its bias,
// without a compare-and-swap (thread_safety.cpp): another thread's overlapping
// call still sees it, and names its command.
TEST_CASE("external synchronization: a thread holding a command buffer through its bias is seen by another") {
  ThreadEnv env;
  XgpuCommandBuffer cb = env.CommandBuffer();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  const uint32_t pattern = 7;
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "biased";
  SUBCASE("another thread records") {
    env.Overlap(
        [&] {
          xgpuCmdInsertDebugLabel(cb, &label);  // a valid call: thread A's claim, after which the command buffer is biased to A
          xgpuCmdInsertDebugLabel(cb, &label);  // through the bias
          xgpuCmdFillBuffer(cb, NoRef(), &pattern, 4);  // through the bias; its message holds A inside the call
        },
        [&] { xgpuCmdInsertDebugLabel(cb, &label); });
    const auto b = env.On(true);
    REQUIRE(b.size() == 1);
    CHECK(b[0].id == "XGPU-VUID-xgpuCmdInsertDebugLabel-commandBuffer-externsync");
    CHECK(b[0].text.find(", which another thread is using in xgpuCmdFillBuffer at the same time") !=
          std::string::npos);
  }
  CHECK(xgpuEndCommandBuffer(cb) == XGPU_ERROR_INVALID_USAGE);  // both calls failed
  // The overlap left no claim behind.
  env.gate.Clear();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  xgpuCmdInsertDebugLabel(cb, &label);
  CHECK(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  CHECK(env.gate.Entries().empty());
}

TEST_CASE("external synchronization: submitting a command buffer another thread holds through its bias") {
  ThreadEnv env;
  XgpuCommandBuffer cb = env.CommandBuffer();
  env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  XgpuResult submitted = XGPU_SUCCESS;
  env.Overlap(
      [&] {
        env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_REUSABLE);  // thread A's claim: the command buffer is biased to A
        CHECK(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);     // through the bias
        CHECK(xgpuBeginCommandBuffer(cb, Bad<const XgpuCommandBufferBeginInfo>()) == XGPU_ERROR_INVALID_ARGUMENT);
      },
      [&] { submitted = xgpuQueueSubmit(env.queue, 1, &submit); });
  CHECK(submitted == XGPU_ERROR_INVALID_USAGE);
  const auto b = env.On(true);
  REQUIRE(b.size() == 1);
  CHECK(b[0].id == "XGPU-VUID-xgpuBeginCommandBuffer-commandBuffer-externsync");
  CHECK(b[0].text.find("xgpuQueueSubmit: pSubmits[0].commandBuffer is XgpuCommandBuffer") == 0);
  CHECK(b[0].text.find("another thread is using in xgpuBeginCommandBuffer") != std::string::npos);
  // The overlap left no claim behind.
  env.gate.Clear();
  REQUIRE(xgpuQueueSubmit(env.queue, 1, &submit) == XGPU_SUCCESS);
  REQUIRE(xgpuQueueWaitIdle(env.queue) == XGPU_SUCCESS);
  xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  CHECK(env.gate.Entries().empty());
}

// The bias moves from thread to thread (a revocation each time, until the
// object stays unbiased): calls that never overlap are never reported.
TEST_CASE("external synchronization: one command buffer recorded by thread after thread is not reported") {
  ThreadEnv env;
  XgpuCommandBuffer cb = env.CommandBuffer();
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "turn";
  XgpuSubmitInfo submit = {};
  submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBuffer = cb;
  for (int turn = 0; turn < 12; ++turn) {
    std::thread recorder([&] {
      env.Begin(cb, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
      for (int n = 0; n < 3; ++n) xgpuCmdInsertDebugLabel(cb, &label);
      CHECK(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
    });
    recorder.join();
    if (turn % 2 == 0) {
      CHECK(xgpuQueueSubmit(env.queue, 1, &submit) == XGPU_SUCCESS);  // read by this thread
      CHECK(xgpuQueueWaitIdle(env.queue) == XGPU_SUCCESS);
    }
  }
  xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  std::string all;
  for (const auto& e : env.gate.Entries()) all += "[" + e.id + "] " + e.text + "\n";
  INFO(all);
  CHECK(env.gate.Entries().empty());
}

TEST_CASE("external synchronization: what is allowed at once is not reported") {
  ThreadEnv env;
  XgpuCommandBuffer shared = env.CommandBuffer();
  env.Begin(shared, XGPU_COMMAND_BUFFER_MODE_REUSABLE);
  REQUIRE(xgpuEndCommandBuffer(shared) == XGPU_SUCCESS);
  constexpr int kThreads = 4;
  constexpr int kRounds = 200;
  std::vector<XgpuCommandBuffer> own(kThreads);
  for (auto& cb : own) cb = env.CommandBuffer();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      XgpuSubmitInfo submit = {};
      submit.sType = XGPU_STRUCTURE_TYPE_SUBMIT_INFO;
      submit.commandBuffer = shared;
      XgpuDebugLabel label = {};
      label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
      label.pLabelName = "mine";
      for (int n = 0; n < kRounds; ++n) {
        // One reusable command buffer submitted by every thread to one queue (internally synchronized).
        CHECK(xgpuQueueSubmit(env.queue, 1, &submit) == XGPU_SUCCESS);
        // Each thread records its own command buffer.
        XgpuCommandBufferBeginInfo begin = {};
        begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
        CHECK(xgpuBeginCommandBuffer(own[t], &begin) == XGPU_SUCCESS);
        xgpuCmdInsertDebugLabel(own[t], &label);
        CHECK(xgpuEndCommandBuffer(own[t]) == XGPU_SUCCESS);
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(xgpuQueueWaitIdle(env.queue) == XGPU_SUCCESS);
  for (auto cb : own) xgpuDestroyCommandBuffer(env.device, cb, nullptr);
  xgpuDestroyCommandBuffer(env.device, shared, nullptr);
  std::string all;
  for (const auto& e : env.gate.Entries()) all += "[" + e.id + "] " + e.text + "\n";
  INFO(all);
  CHECK(env.gate.Entries().empty());
}

// ---- every -externsync rule, forced one by one ----
//
// Each rule has its own test, on an instance of its own (so the layer's
// duplicate-message limit never hides thread A's message): thread A holds the
// object in a call that breaks another rule (its message blocks it inside the
// call), and thread B makes the rule's command on the same object, otherwise
// valid. B's call is refused with that rule alone and leaves the object as it
// was.

namespace {

#define EXTERNSYNC_RULE_TEST(id)                                                                     \
  static const bool DOCTEST_ANONYMOUS(EXTERNSYNC_RULE_TEST_REGISTERED_) = RegisterRuleTest(id); \
  TEST_CASE(id)

// A ThreadEnv with the fixture's kernels: a pipeline (validation_saxpy: 2
// bindings, 8 bytes of constants) and a buffer of every usage, destroyed with it.
struct RuleEnv : ThreadEnv {
  XgpuExecutable executable = nullptr;
  XgpuPipeline pipeline = nullptr;
  XgpuBuffer buffer = nullptr;
  XgpuCommandBuffer cb = nullptr;

  RuleEnv() {
    XgpuExecutableCreateInfo x = {};
    x.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    x.pFilePath = XGPU_VALIDATION_TEST_KERNELS;
    REQUIRE(xgpuCreateExecutable(device, &x, nullptr, &executable) == XGPU_SUCCESS);
    XgpuPipelineCreateInfo p = {};
    p.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
    FixupStruct(Fixture::Get(), p);
    p.executable = executable;
    REQUIRE(xgpuCreatePipeline(device, &p, nullptr, &pipeline) == XGPU_SUCCESS);
    buffer = Buffer();
    cb = CommandBuffer();
    Begin(cb, XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  }
  ~RuleEnv() {
    xgpuDestroyCommandBuffer(device, cb, nullptr);
    xgpuDestroyBuffer(device, buffer, nullptr);
    xgpuDestroyPipeline(device, pipeline, nullptr);
    xgpuDestroyExecutable(device, executable, nullptr);
  }

  XgpuBufferRef Ref(XgpuDeviceSize offset = 0, XgpuDeviceSize size = XGPU_WHOLE_SIZE) const {
    return RefToBuffer(buffer, offset, size);
  }
  // Binds the pipeline, both its bindings and its constants.
  void ReadyToDispatch() {
    xgpuCmdBindPipeline(cb, pipeline);
    const XgpuBufferRef refs[2] = {Ref(), Ref()};
    xgpuCmdBindBuffers(cb, 0, 2, refs);
    const uint32_t constants[2] = {};
    xgpuCmdPushConstants(cb, 0, sizeof(constants), constants);
  }
};

// `a` (on thread A, in `a_command`) holds the object and reports something;
// `b` (on this thread, meanwhile) is reported with rule `id` alone.
void ExpectExternSync(ThreadEnv& env, const std::string& id, const std::string& a_command,
                      const std::function<void()>& a, const std::function<void()>& b) {
  env.Overlap(a, b);
  const auto theirs = env.On(false);
  const auto mine = env.On(true);
  CHECK_FALSE(theirs.empty());
  for (const auto& e : theirs) CHECK(e.id != id);
  std::string all;
  for (const auto& e : mine) all += "[" + e.id + "] " + e.text + "\n";
  INFO("this thread's messages:\n", all);
  REQUIRE(mine.size() == 1);
  CHECK(mine[0].id == id);
  CHECK(mine[0].text.find("another thread is using in " + a_command) != std::string::npos);
  env.gate.Clear();
}

const XgpuAllocationCallbacks* MisalignedCallbacks() { return Bad<const XgpuAllocationCallbacks>(); }
constexpr uint32_t kPatternWord = 7;

// Two threads destroying one object: A's destroy (with misaligned callbacks)
// holds it, B's (valid) is refused, and the object lives on: destroyed cleanly
// afterwards, silently.
void ExpectDestroyOverlap(ThreadEnv& env, const std::string& id, const std::string& command,
                          const std::function<void(const XgpuAllocationCallbacks*)>& destroy) {
  ExpectExternSync(env, id, command, [&] { destroy(MisalignedCallbacks()); }, [&] { destroy(nullptr); });
  destroy(nullptr);
  CHECK(env.gate.Entries().empty());
}

// A recording command `b` (its rule `id`): A records a fill with a misaligned reference on
// the same command buffer; B's command records nothing, and the recording
// ends with B's error (A's call marks the command buffer only after its
// callback returned).
// `end_id`: what the end reports besides (nothing by default).
void ExpectRecordingOverlap(RuleEnv& env, const std::string& id, const std::function<void()>& b,
                            const char* end_id = nullptr) {
  ExpectExternSync(
      env, id, "xgpuCmdFillBuffer",
      [&] { xgpuCmdFillBuffer(env.cb, NoRef(), &kPatternWord, 4); }, b);
  CHECK(xgpuEndCommandBuffer(env.cb) == XGPU_ERROR_INVALID_USAGE);
  const auto entries = env.gate.Entries();
  if (end_id == nullptr) {
    CHECK(entries.empty());
  } else {
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].id == end_id);
  }
}

}  // namespace

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdBindPipeline-commandBuffer-externsync") {
  RuleEnv env;
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdBindPipeline-commandBuffer-externsync", [&] { xgpuCmdBindPipeline(env.cb, env.pipeline); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdPushConstants-commandBuffer-externsync") {
  RuleEnv env;
  xgpuCmdBindPipeline(env.cb, env.pipeline);
  const uint32_t constants[2] = {1, 2};
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdPushConstants-commandBuffer-externsync",
                         [&] { xgpuCmdPushConstants(env.cb, 0, sizeof(constants), constants); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdBindBuffers-commandBuffer-externsync") {
  RuleEnv env;
  xgpuCmdBindPipeline(env.cb, env.pipeline);
  const XgpuBufferRef refs[2] = {env.Ref(), env.Ref()};
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdBindBuffers-commandBuffer-externsync", [&] { xgpuCmdBindBuffers(env.cb, 0, 2, refs); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdSetWorkgroupMemorySize-commandBuffer-externsync") {
  RuleEnv env;
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdSetWorkgroupMemorySize-commandBuffer-externsync", [&] { xgpuCmdSetWorkgroupMemorySize(env.cb, 256); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdDispatch-commandBuffer-externsync") {
  RuleEnv env;
  env.ReadyToDispatch();
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdDispatch-commandBuffer-externsync", [&] { xgpuCmdDispatch(env.cb, 1, 1, 1); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdDispatchIndirect-commandBuffer-externsync") {
  RuleEnv env;
  env.ReadyToDispatch();
  const XgpuBufferRef counts = env.Ref(0, 12);
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdDispatchIndirect-commandBuffer-externsync",
                         [&] { xgpuCmdDispatchIndirect(env.cb, &counts, XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdFillBuffer-commandBuffer-externsync") {
  RuleEnv env;
  const XgpuBufferRef dst = env.Ref();
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdFillBuffer-commandBuffer-externsync", [&] { xgpuCmdFillBuffer(env.cb, &dst, &kPatternWord, 4); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdCopyBuffer-commandBuffer-externsync") {
  RuleEnv env;
  const XgpuBufferRef src = env.Ref(0, 16);
  const XgpuBufferRef dst = env.Ref(128, 16);  // the same buffer: ranges apart
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdCopyBuffer-commandBuffer-externsync", [&] { xgpuCmdCopyBuffer(env.cb, &src, &dst, 16); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdUpdateBuffer-commandBuffer-externsync") {
  RuleEnv env;
  const XgpuBufferRef dst = env.Ref();
  const uint32_t data[4] = {1, 2, 3, 4};
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdUpdateBuffer-commandBuffer-externsync", [&] { xgpuCmdUpdateBuffer(env.cb, &dst, sizeof(data), data); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdPipelineBarrier-commandBuffer-externsync") {
  RuleEnv env;
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdPipelineBarrier-commandBuffer-externsync", [&] {
    xgpuCmdPipelineBarrier(env.cb, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                           nullptr, 0, nullptr);
  });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdMemoryBarrier-commandBuffer-externsync") {
  RuleEnv env;
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdMemoryBarrier-commandBuffer-externsync", [&] {
    xgpuCmdMemoryBarrier(env.cb, XGPU_PIPELINE_STAGE_TRANSFER_BIT, XGPU_ACCESS_TRANSFER_WRITE_BIT,
                         XGPU_PIPELINE_STAGE_DISPATCH_BIT, XGPU_ACCESS_SHADER_READ_BIT);
  });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdBeginDebugLabel-commandBuffer-externsync") {
  RuleEnv env;
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "region";
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdBeginDebugLabel-commandBuffer-externsync", [&] { xgpuCmdBeginDebugLabel(env.cb, &label); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdEndDebugLabel-commandBuffer-externsync") {
  RuleEnv env;
  XgpuDebugLabel label = {};
  label.sType = XGPU_STRUCTURE_TYPE_DEBUG_LABEL;
  label.pLabelName = "region";
  xgpuCmdBeginDebugLabel(env.cb, &label);
  // B's end of the label was refused: the label is still open at the end.
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdEndDebugLabel-commandBuffer-externsync", [&] { xgpuCmdEndDebugLabel(env.cb); },
                         "XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-labels");
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuCmdWriteTimestamp-commandBuffer-externsync") {
  RuleEnv env;
  const XgpuBufferRef dst = env.Ref(0, 8);
  ExpectRecordingOverlap(env, "XGPU-VUID-xgpuCmdWriteTimestamp-commandBuffer-externsync",
                         [&] { xgpuCmdWriteTimestamp(env.cb, XGPU_PIPELINE_STAGE_DISPATCH_BIT, &dst); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-externsync") {
  RuleEnv env;
  XgpuResult ended = XGPU_SUCCESS;
  ExpectExternSync(
      env, "XGPU-VUID-xgpuEndCommandBuffer-commandBuffer-externsync", "xgpuCmdFillBuffer",
      [&] { xgpuCmdFillBuffer(env.cb, NoRef(), &kPatternWord, 4); }, [&] { ended = xgpuEndCommandBuffer(env.cb); });
  CHECK(ended == XGPU_ERROR_INVALID_USAGE);
  // The refused end left the command buffer recording: it ends now, with A's recording error.
  CHECK(xgpuEndCommandBuffer(env.cb) == XGPU_ERROR_INVALID_ARGUMENT);
  CHECK(env.gate.Entries().empty());
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuUnmapBuffer-buffer-externsync") {
  RuleEnv env;
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(env.device, env.buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  ExpectExternSync(
      env, "XGPU-VUID-xgpuUnmapBuffer-buffer-externsync", "xgpuDestroyBuffer",
      [&] { xgpuDestroyBuffer(env.device, env.buffer, MisalignedCallbacks()); },
      [&] { xgpuUnmapBuffer(env.device, env.buffer); });
  // Still mapped: unmapping it now is valid, and so is mapping it again.
  xgpuUnmapBuffer(env.device, env.buffer);
  REQUIRE(xgpuMapBuffer(env.device, env.buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  xgpuUnmapBuffer(env.device, env.buffer);
  CHECK(env.gate.Entries().empty());
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuDestroyDebugMessenger-messenger-externsync") {
  ThreadEnv env;
  XgpuDebugMessengerCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
  info.messageType = XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  info.pfnUserCallback = [](XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags, const XgpuDebugMessageData*,
                            void*) -> XgpuBool32 { return XGPU_FALSE; };
  XgpuDebugMessenger messenger = nullptr;
  REQUIRE(xgpuCreateDebugMessenger(env.instance, &info, nullptr, &messenger) == XGPU_SUCCESS);
  ExpectDestroyOverlap(env, "XGPU-VUID-xgpuDestroyDebugMessenger-messenger-externsync", "xgpuDestroyDebugMessenger",
                       [&](const XgpuAllocationCallbacks* callbacks) {
                         xgpuDestroyDebugMessenger(env.instance, messenger, callbacks);
                       });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuDestroyMemoryPool-memoryPool-externsync") {
  ThreadEnv env;
  XgpuMemoryPoolCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  FixupStruct(Fixture::Get(), info);
  XgpuMemoryPool pool = nullptr;
  REQUIRE(xgpuCreateMemoryPool(env.device, &info, nullptr, &pool) == XGPU_SUCCESS);
  ExpectDestroyOverlap(env, "XGPU-VUID-xgpuDestroyMemoryPool-memoryPool-externsync", "xgpuDestroyMemoryPool",
                       [&](const XgpuAllocationCallbacks* callbacks) { xgpuDestroyMemoryPool(env.device, pool, callbacks); });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuDestroySemaphore-semaphore-externsync") {
  ThreadEnv env;
  XgpuSemaphoreCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  XgpuSemaphore semaphore = nullptr;
  REQUIRE(xgpuCreateSemaphore(env.device, &info, nullptr, &semaphore) == XGPU_SUCCESS);
  ExpectDestroyOverlap(env, "XGPU-VUID-xgpuDestroySemaphore-semaphore-externsync", "xgpuDestroySemaphore",
                       [&](const XgpuAllocationCallbacks* callbacks) {
                         xgpuDestroySemaphore(env.device, semaphore, callbacks);
                       });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuDestroyExecutable-executable-externsync") {
  ThreadEnv env;
  XgpuExecutableCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  info.pFilePath = XGPU_VALIDATION_TEST_KERNELS;
  XgpuExecutable executable = nullptr;
  REQUIRE(xgpuCreateExecutable(env.device, &info, nullptr, &executable) == XGPU_SUCCESS);
  ExpectDestroyOverlap(env, "XGPU-VUID-xgpuDestroyExecutable-executable-externsync", "xgpuDestroyExecutable",
                       [&](const XgpuAllocationCallbacks* callbacks) {
                         xgpuDestroyExecutable(env.device, executable, callbacks);
                       });
}

EXTERNSYNC_RULE_TEST("XGPU-VUID-xgpuDestroyPipeline-pipeline-externsync") {
  RuleEnv env;
  XgpuPipelineCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  FixupStruct(Fixture::Get(), info);  // validation_saxpy
  info.executable = env.executable;
  XgpuPipeline pipeline = nullptr;
  REQUIRE(xgpuCreatePipeline(env.device, &info, nullptr, &pipeline) == XGPU_SUCCESS);
  ExpectDestroyOverlap(env, "XGPU-VUID-xgpuDestroyPipeline-pipeline-externsync", "xgpuDestroyPipeline",
                       [&](const XgpuAllocationCallbacks* callbacks) {
                         xgpuDestroyPipeline(env.device, pipeline, callbacks);
                       });
}

}  // namespace vtest
