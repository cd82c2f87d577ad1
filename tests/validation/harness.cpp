#include "harness.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <tuple>
#include <nlohmann/json.hpp>

#include "calls.h"

namespace vtest {
namespace {

Fixture* g_fixture = nullptr;

std::set<std::string> VuidsOfSpec() {
  std::ifstream file(XGPU_VALIDATION_TEST_VUIDS_JSON);
  REQUIRE_MESSAGE(file.good(), "cannot read " XGPU_VALIDATION_TEST_VUIDS_JSON);
  nlohmann::json json = nlohmann::json::parse(file);
  std::set<std::string> ids;
  for (const auto& entry : json["vuids"]) ids.insert(entry["id"].get<std::string>());
  // The layer's warnings (spec/warnings.json) are known IDs too.
  std::ifstream warnings(XGPU_VALIDATION_TEST_WARNINGS_JSON);
  REQUIRE_MESSAGE(warnings.good(), "cannot read " XGPU_VALIDATION_TEST_WARNINGS_JSON);
  const nlohmann::json listed = nlohmann::json::parse(warnings);
  for (const auto& entry : listed["warnings"]) ids.insert(entry["id"].get<std::string>());
  return ids;
}

// Ends the test run's fixture (a listener: after the last test, before exit).
struct FixtureShutdown : doctest::IReporter {
  explicit FixtureShutdown(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override { Fixture::Shutdown(); }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("validation-fixture-shutdown", 1, FixtureShutdown);

XgpuInstance CreateInstanceWithLayer(XgpuDebugMessengerCreateInfo* chained) {
  const char* layers[] = {kLayerName};
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = chained;
  info.enabledLayerCount = 1;
  info.ppEnabledLayerNames = layers;
  XgpuInstance instance = nullptr;
  REQUIRE(xgpuCreateInstance(&info, nullptr, &instance) == XGPU_SUCCESS);
  return instance;
}

XgpuDevice CreateDevice(XgpuPhysicalDevice physical) {
  XgpuDeviceQueueCreateInfo queue = {};
  queue.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = 0;
  queue.queueCount = 1;
  XgpuDeviceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  XgpuDevice device = nullptr;
  REQUIRE(xgpuCreateDevice(physical, &info, nullptr, &device) == XGPU_SUCCESS);
  return device;
}

XgpuPhysicalDevice FirstPhysicalDevice(XgpuInstance instance) {
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  XgpuResult result = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
  REQUIRE((result == XGPU_SUCCESS || result == XGPU_INCOMPLETE));
  REQUIRE(physical != nullptr);
  return physical;
}

}  // namespace

int32_t Fnv1a(const std::string& id) {
  uint32_t h = 0x811C9DC5u;
  for (unsigned char c : id) h = (h ^ c) * 0x01000193u;
  return static_cast<int32_t>(h);
}

XgpuBool32 XGPU_API_CALL MessageLog::Callback(XgpuDebugMessageSeverityFlagBits severity,
                                              XgpuDebugMessageTypeFlags types, const XgpuDebugMessageData* data,
                                              void* user) {
  auto* log = static_cast<MessageLog*>(user);
  Message m;
  m.severity = severity;
  m.types = types;
  m.id = data->pMessageIdName ? data->pMessageIdName : "";
  m.number = data->messageIdNumber;
  m.text = data->pMessage ? data->pMessage : "";
  for (uint32_t i = 0; i < data->objectCount; ++i) {
    const XgpuDebugObjectInfo& o = data->pObjects[i];
    m.objects.push_back({o.objectType, o.objectHandle, o.pObjectName ? o.pObjectName : ""});
  }
  std::lock_guard lock(log->mutex_);
  const bool layer_id = m.id.rfind("XGPU-VUID-", 0) == 0 ||
                        (m.id.rfind("XGPU-VALIDATION-", 0) == 0 && severity == XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT);
  if (layer_id && !log->known_ids_.empty() && !log->known_ids_.count(m.id)) {
    log->unknown_ids_.push_back(m.id);
  }
  log->messages_.push_back(std::move(m));
  return XGPU_FALSE;
}

XgpuDebugMessengerCreateInfo MessageLog::CreateInfo() {
  XgpuDebugMessengerCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT;
  info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                     XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT;
  info.pfnUserCallback = &MessageLog::Callback;
  info.pUserData = this;
  return info;
}

std::vector<MessageLog::Message> MessageLog::Messages() {
  std::lock_guard lock(mutex_);
  return messages_;
}

void MessageLog::Clear() {
  std::lock_guard lock(mutex_);
  messages_.clear();
}

std::vector<std::string> MessageLog::UnknownIds() {
  std::lock_guard lock(mutex_);
  return unknown_ids_;
}

void MessageLog::SetKnownIds(std::set<std::string> ids) {
  std::lock_guard lock(mutex_);
  known_ids_ = std::move(ids);
}

void AppendToChain(const void* const& head, const void* tail) {
  struct Base {
    XgpuStructureType sType;
    const void* pNext;
  };
  const void** link = const_cast<const void**>(&head);
  while (*link != nullptr) link = &static_cast<Base*>(const_cast<void*>(*link))->pNext;
  *link = tail;
}

Fixture& Fixture::Get() {
  if (g_fixture == nullptr) g_fixture = new Fixture();
  return *g_fixture;
}

void Fixture::Shutdown() {
  delete g_fixture;
  g_fixture = nullptr;
}

Fixture::Fixture() {
  setenv("XGPU_DRIVER_FILES", XGPU_VALIDATION_TEST_DRIVER_MANIFEST, 0);
  setenv("XGPU_HSA_LIBRARY", XGPU_VALIDATION_TEST_HSA_LIBRARY, 0);
  setenv("XGPU_LAYER_PATH", XGPU_VALIDATION_TEST_LAYER_MANIFEST_DIR, 0);
  // The synchronization-hazard warnings are opt-in; the fixture's instances
  // ask for them so test_hazards.cpp (and every other test, silent on them)
  // checks them.
  setenv("XGPU_VALIDATION_HAZARDS", "1", 0);
  // So is GPU-assisted validation: every test's kernels run their
  // bounds-checked copies, silent on correct programs (test_gpu_assisted.cpp).
  setenv("XGPU_VALIDATION_GPU_ASSISTED", "1", 0);
  log.SetKnownIds(VuidsOfSpec());

  XgpuDebugMessengerCreateInfo log_info = log.CreateInfo();
  instance = CreateInstanceWithLayer(nullptr);
  REQUIRE(xgpuCreateDebugMessenger(instance, &log_info, nullptr, &messenger) == XGPU_SUCCESS);
  XgpuDebugMessengerCreateInfo extra_info = log_info;
  extra_info.pfnUserCallback = &Dummy_PFN_xgpuDebugMessengerCallback;
  extra_info.pUserData = nullptr;
  REQUIRE(xgpuCreateDebugMessenger(instance, &extra_info, nullptr, &extra_messenger) == XGPU_SUCCESS);
  physical_device = FirstPhysicalDevice(instance);

  XgpuPhysicalDeviceMemoryProperties memory = {};
  xgpuGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  bool found = false;
  for (uint32_t i = 0; i < memory.memoryTypeCount && !found; ++i) {
    if (memory.memoryTypes[i].propertyFlags & XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
      host_visible_type = i;
      found = true;
    }
  }
  REQUIRE(found);

  device = CreateDevice(physical_device);
  xgpuGetDeviceQueue(device, 0, 0, &queue);
  REQUIRE(queue != nullptr);
  CreateObjects(device, &buffer, &memory_pool, &semaphore, &executable, &pipeline);
  other_device = CreateDevice(physical_device);
  CreateObjects(other_device, &other_buffer, &other_memory_pool, &other_semaphore, &other_executable,
                &other_pipeline);
  XgpuCommandBufferCreateInfo cb_info = {};
  cb_info.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  REQUIRE(xgpuCreateCommandBuffer(other_device, &cb_info, nullptr, &other_command_buffer) == XGPU_SUCCESS);
  // Executable, so it is foreign to a submission and nothing else.
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = XGPU_COMMAND_BUFFER_MODE_REUSABLE;
  REQUIRE(xgpuBeginCommandBuffer(other_command_buffer, &begin) == XGPU_SUCCESS);
  REQUIRE(xgpuEndCommandBuffer(other_command_buffer) == XGPU_SUCCESS);
  other_instance = CreateInstanceWithLayer(nullptr);
  REQUIRE(xgpuCreateDebugMessenger(other_instance, &extra_info, nullptr, &other_messenger) == XGPU_SUCCESS);

  // The library the loader loaded (dlopen finds the same file loaded, so the
  // layer's state is shared), negotiated again to reach its intercepts.
  layer_library_ = dlopen(XGPU_VALIDATION_TEST_LAYER_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  REQUIRE_MESSAGE(layer_library_ != nullptr, "the layer is not loaded: ", dlerror());
  auto negotiate = reinterpret_cast<PFN_xgpuNegotiateLoaderLayerInterfaceVersion>(
      dlsym(layer_library_, XGPU_LAYER_NEGOTIATE_SYMBOL));
  REQUIRE((negotiate != nullptr));
  XgpuNegotiateLayerInterface iface = {};
  iface.loaderLayerInterfaceVersion = XGPU_CURRENT_LOADER_LAYER_INTERFACE_VERSION;
  REQUIRE(negotiate(&iface) == XGPU_SUCCESS);
  layer_gipa_ = iface.pfnGetInstanceProcAddr;
  layer_gdpa_ = iface.pfnGetDeviceProcAddr;
  log.Clear();
}

void Fixture::CreateObjects(XgpuDevice dev, XgpuBuffer* out_buffer, XgpuMemoryPool* out_pool,
                            XgpuSemaphore* out_semaphore, XgpuExecutable* out_executable, XgpuPipeline* out_pipeline) {
  XgpuBufferCreateInfo buffer_info = {};
  buffer_info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  FixupStruct(*this, buffer_info);
  REQUIRE(xgpuCreateBuffer(dev, &buffer_info, nullptr, out_buffer) == XGPU_SUCCESS);
  XgpuMemoryPoolCreateInfo pool_info = {};
  pool_info.sType = XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO;
  FixupStruct(*this, pool_info);
  REQUIRE(xgpuCreateMemoryPool(dev, &pool_info, nullptr, out_pool) == XGPU_SUCCESS);
  XgpuSemaphoreCreateInfo semaphore_info = {};
  semaphore_info.sType = XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  REQUIRE(xgpuCreateSemaphore(dev, &semaphore_info, nullptr, out_semaphore) == XGPU_SUCCESS);
  XgpuExecutableCreateInfo executable_info = {};
  executable_info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
  executable_info.pFilePath = XGPU_VALIDATION_TEST_KERNELS;
  REQUIRE(xgpuCreateExecutable(dev, &executable_info, nullptr, out_executable) == XGPU_SUCCESS);
  XgpuPipelineCreateInfo pipeline_info = {};
  pipeline_info.sType = XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO;
  FixupStruct(*this, pipeline_info);
  pipeline_info.executable = *out_executable;
  REQUIRE(xgpuCreatePipeline(dev, &pipeline_info, nullptr, out_pipeline) == XGPU_SUCCESS);
}

Fixture::~Fixture() {
  RunCleanups();
  xgpuDestroyCommandBuffer(other_device, other_command_buffer, nullptr);
  for (auto [dev, buf, pool, sem, exe, pipe] :
       {std::tuple{device, buffer, memory_pool, semaphore, executable, pipeline},
        std::tuple{other_device, other_buffer, other_memory_pool, other_semaphore, other_executable, other_pipeline}}) {
    xgpuDestroyPipeline(dev, pipe, nullptr);
    xgpuDestroyExecutable(dev, exe, nullptr);
    xgpuDestroySemaphore(dev, sem, nullptr);
    xgpuDestroyMemoryPool(dev, pool, nullptr);
    xgpuDestroyBuffer(dev, buf, nullptr);
    xgpuDestroyDevice(dev, nullptr);
  }
  xgpuDestroyDebugMessenger(other_instance, other_messenger, nullptr);
  xgpuDestroyInstance(other_instance, nullptr);
  xgpuDestroyDebugMessenger(instance, extra_messenger, nullptr);
  xgpuDestroyDebugMessenger(instance, messenger, nullptr);
  xgpuDestroyInstance(instance, nullptr);
  if (layer_library_ != nullptr) dlclose(layer_library_);
}

void Fixture::RunCleanups() {
  while (!cleanups_.empty()) {
    std::function<void()> cleanup = std::move(cleanups_.back());
    cleanups_.pop_back();
    cleanup();
  }
}

PFN_xgpuVoidFunction Fixture::LayerGlobalFunction(const char* name) {
  PFN_xgpuVoidFunction f = layer_gipa_(nullptr, name);
  REQUIRE_MESSAGE((f != nullptr), name);
  return f;
}

PFN_xgpuVoidFunction Fixture::LayerInstanceFunction(const char* name) {
  PFN_xgpuVoidFunction f = layer_gipa_(instance, name);
  REQUIRE_MESSAGE((f != nullptr), name);
  return f;
}

PFN_xgpuVoidFunction Fixture::LayerDeviceFunction(const char* name) {
  PFN_xgpuVoidFunction f = layer_gdpa_(device, name);
  REQUIRE_MESSAGE((f != nullptr), name);
  return f;
}

XgpuResult Fixture::EndThroughLayer(XgpuCommandBuffer commandBuffer) {
  return reinterpret_cast<PFN_xgpuEndCommandBuffer>(LayerDeviceFunction("xgpuEndCommandBuffer"))(commandBuffer);
}

void Fixture::ExpectOnly(const std::string& id, const std::string& called) {
  std::vector<MessageLog::Message> messages = log.Messages();
  std::string all;
  for (const auto& m : messages) all += "  [" + m.id + "] " + m.text + "\n";
  INFO("messages:\n", all);
  REQUIRE(messages.size() == 1);
  const MessageLog::Message& m = messages[0];
  CHECK(m.id == id);
  CHECK(m.number == Fnv1a(id));
  CHECK(m.severity == XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT);
  CHECK(m.types == XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT);
  // The message names the command called (the rule's, unless given) and ends with the rule's ID.
  const std::string command =
      called.empty() ? id.substr(std::string("XGPU-VUID-").size(), id.find('-', 10) - 10) : called;
  CHECK(m.text.rfind(command + ": ", 0) == 0);
  CHECK(m.text.find("[" + id + "]") != std::string::npos);
  CHECK(log.UnknownIds().empty());
}

void Fixture::ExpectNone() {
  std::vector<MessageLog::Message> messages = log.Messages();
  std::string all;
  for (const auto& m : messages) all += "  [" + m.id + "] " + m.text + "\n";
  INFO("messages:\n", all);
  CHECK(messages.empty());
  CHECK(log.UnknownIds().empty());
}

XgpuInstance Fixture::FreshInstance() {
  XgpuDebugMessengerCreateInfo chained = log.CreateInfo();
  XgpuInstance fresh = CreateInstanceWithLayer(&chained);
  Defer([fresh] { xgpuDestroyInstance(fresh, nullptr); });
  return fresh;
}

XgpuDevice Fixture::FreshDevice() {
  XgpuDevice fresh = CreateDevice(physical_device);
  Defer([fresh] { xgpuDestroyDevice(fresh, nullptr); });
  return fresh;
}

XgpuCommandBuffer Fixture::InitialCommandBuffer() {
  XgpuCommandBufferCreateInfo create = {};
  create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(xgpuCreateCommandBuffer(device, &create, nullptr, &cb) == XGPU_SUCCESS);
  XgpuDevice dev = device;
  Defer([dev, cb] { xgpuDestroyCommandBuffer(dev, cb, nullptr); });
  return cb;
}

XgpuCommandBuffer Fixture::ExecutableCommandBuffer(XgpuCommandBufferMode mode, uint32_t binding_capacity) {
  XgpuCommandBuffer cb = BegunCommandBuffer(device, mode, binding_capacity);
  REQUIRE(xgpuEndCommandBuffer(cb) == XGPU_SUCCESS);
  return cb;
}

XgpuCommandBuffer Fixture::BegunCommandBuffer(XgpuDevice dev, XgpuCommandBufferMode mode, uint32_t binding_capacity) {
  XgpuCommandBufferCreateInfo create = {};
  create.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO;
  XgpuCommandBuffer cb = nullptr;
  REQUIRE(xgpuCreateCommandBuffer(dev, &create, nullptr, &cb) == XGPU_SUCCESS);
  Defer([dev, cb] { xgpuDestroyCommandBuffer(dev, cb, nullptr); });
  XgpuCommandBufferBeginInfo begin = {};
  begin.sType = XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.mode = mode;
  begin.bindingCapacity = binding_capacity;
  REQUIRE(xgpuBeginCommandBuffer(cb, &begin) == XGPU_SUCCESS);
  return cb;
}

// ---------------------------------------------------------------------------
// Fixups

void FixupStruct(Fixture&, XgpuBufferRef& ref) {
  ref.kind = XGPU_BUFFER_REF_KIND_BUFFER;
  ref.bindingSlot = 0;
  ref.offset = 0;
  ref.size = XGPU_WHOLE_SIZE;
}

void FixupStruct(Fixture&, XgpuBufferBinding& binding) { binding.size = XGPU_WHOLE_SIZE; }

void FixupStruct(Fixture& f, XgpuBufferCreateInfo& info) {
  info.size = 256;
  info.usage = XGPU_BUFFER_USAGE_STORAGE_BIT | XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT | XGPU_BUFFER_USAGE_TRANSFER_DST_BIT |
               XGPU_BUFFER_USAGE_INDIRECT_BIT;
  info.memoryTypeIndex = f.host_visible_type;
}

void FixupStruct(Fixture& f, XgpuMemoryPoolCreateInfo& info) { info.memoryTypeIndex = f.host_visible_type; }

void FixupStruct(Fixture&, XgpuDeviceQueueCreateInfo& info) {
  info.queueFamilyIndex = 0;
  info.queueCount = 1;
}

void FixupStruct(Fixture& f, XgpuPipelineCreateInfo& info) {
  info.executable = f.executable;
  info.pEntryPoint = "validation_saxpy";
  info.bindingCount = 2;
  info.constantSize = 8;
  info.workgroupSize[0] = 64;
  info.workgroupSize[1] = 1;
  info.workgroupSize[2] = 1;
}

void FixupStruct(Fixture&, XgpuCommandBufferBeginInfo& info) { info.bindingCapacity = 1; }

void FixupStruct(Fixture&, XgpuDebugMessengerCreateInfo& info) {
  info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
  info.messageType = XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
}

void FixupStruct(Fixture& f, XgpuDebugObjectNameInfo& info) {
  info.objectType = XGPU_OBJECT_TYPE_BUFFER;
  info.objectHandle = reinterpret_cast<uintptr_t>(f.buffer);
  info.pObjectName = "buffer";
}

void FixupStruct(Fixture&, XgpuSemaphoreSignalInfo& info) { info.value = 1; }

void Fixup(Fixture& f, Call_xgpuCreateInstance& call) {
  // Messages before the instance exists go to a messenger chained to the create info.
  static XgpuDebugMessengerCreateInfo chained;
  chained = f.log.CreateInfo();
  call.pCreateInfo_storage[0].pNext = &chained;
  call.pCreateInfo_0_ppEnabledLayerNames_storage[0] = kLayerName;
}

void Fixup(Fixture& f, Call_xgpuBeginCommandBuffer& call) { call.commandBuffer = f.InitialCommandBuffer(); }

void FreshSignal(const XgpuSemaphoreList* list);

void Fixup(Fixture& f, Call_xgpuQueueSubmit& call) {
  call.pSubmits_storage[0].commandBuffer = f.ExecutableCommandBuffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT, 1);
  FreshSignal(&call.pSubmits_storage[0].signalSemaphores);
}

void Fixup(Fixture& f, Call_xgpuDestroyInstance& call) { call.instance = f.FreshInstance(); }

void Fixup(Fixture& f, Call_xgpuDestroyDevice& call) { call.device = f.FreshDevice(); }

void Fixup(Fixture&, Call_xgpuGetDeviceProcAddr& call) { call.pName = "xgpuCreateBuffer"; }

void Fixup(Fixture&, Call_xgpuGetInstanceProcAddr& call) { call.pName = "xgpuEnumeratePhysicalDevices"; }

void Fixup(Fixture&, Call_xgpuCreateExecutable& call) {
  call.pCreateInfo_storage[0].pCode = nullptr;
  call.pCreateInfo_storage[0].codeSize = 0;
  call.pCreateInfo_storage[0].pFilePath = XGPU_VALIDATION_TEST_KERNELS;
}

namespace {
std::set<std::string>& RuleTestSet() {
  static std::set<std::string> tests;
  return tests;
}
}  // namespace

bool RegisterRuleTest(const char* id) {
  RuleTestSet().insert(id);
  return true;
}

const std::set<std::string>& RuleTests() { return RuleTestSet(); }

std::string ErrorOfRule(const std::string& id) {
  static const std::map<std::string, std::string> errors = [] {
    std::map<std::string, std::string> map;
    std::ifstream file(XGPU_VALIDATION_TEST_VUIDS_JSON);
    const nlohmann::json json = nlohmann::json::parse(file);
    for (const auto& entry : json["vuids"]) {
      map[entry["id"].get<std::string>()] =
          entry.contains("error") ? entry["error"].get<std::string>() : "XGPU_ERROR_INVALID_ARGUMENT";
    }
    return map;
  }();
  auto it = errors.find(id);
  return it != errors.end() ? it->second : "(not a rule of vuids.json)";
}

void ReadyToDispatch(Fixture& f, XgpuCommandBuffer commandBuffer) {
  xgpuCmdBindPipeline(commandBuffer, f.pipeline);
  const XgpuBufferRef refs[2] = {RefToBuffer(f.buffer), RefToBuffer(f.buffer)};
  xgpuCmdBindBuffers(commandBuffer, 0, 2, refs);
  const uint32_t constants[2] = {};
  xgpuCmdPushConstants(commandBuffer, 0, sizeof(constants), constants);
}

// A signal payload no semaphore of the fixture has reached or been promised
// (payloads only grow: XGPU-VUID-xgpuQueueSubmit-pSubmits-signalSemaphores-value).
void FreshSignal(const XgpuSemaphoreList* list) {
  static uint64_t next = uint64_t{1} << 40;
  if (list != nullptr && list->count != 0) SetRaw(list->pValues[0], next++);
}

// The baselines of the explicit rules: sizes, ranges and state that make the call valid.
void Fixup(Fixture&, Call_xgpuQueueCopyBuffer& call) {
  FreshSignal(call.pSignalSemaphores);
  call.size = 16;
  call.dstOffset = 128;  // the same buffer: ranges apart
}
void Fixup(Fixture&, Call_xgpuSubmitDebugMessage& call) {
  call.messageTypes = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT;
  call.pMessageData_storage[0].messageIdNumber = Fnv1a(call.pMessageData_storage[0].pMessageIdName);
}
void Fixup(Fixture&, Call_xgpuQueueAlloca& call) {
  FreshSignal(call.pSignalSemaphores);
  call.size = 256;
  call.usage = XGPU_BUFFER_USAGE_STORAGE_BIT;
}
void Fixup(Fixture&, Call_xgpuCmdPipelineBarrier& call) {
  call.srcStageMask = XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  call.dstStageMask = XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT;
}
void Fixup(Fixture&, Call_xgpuCmdMemoryBarrier& call) {
  call.srcStageMask = XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  call.dstStageMask = XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT;
}
void Fixup(Fixture&, Call_xgpuQueueFillBuffer& call) {
  FreshSignal(call.pSignalSemaphores);
  call.size = XGPU_WHOLE_SIZE;
}
void Fixup(Fixture& f, Call_xgpuQueueDealloca& call) {
  // A queue-allocated buffer of its own; a test that breaks the call leaves it to the cleanup.
  XgpuBuffer buffer = nullptr;
  REQUIRE(xgpuQueueAlloca(f.queue, nullptr, nullptr, f.memory_pool, 256, XGPU_BUFFER_USAGE_STORAGE_BIT, &buffer) ==
          XGPU_SUCCESS);
  XgpuQueue queue = f.queue;
  f.Defer([queue, buffer] {
    xgpuQueueDealloca(queue, nullptr, nullptr, buffer);
    xgpuQueueWaitIdle(queue);
  });
  call.buffer = buffer;
  FreshSignal(call.pSignalSemaphores);
}
void Fixup(Fixture&, Call_xgpuCmdCopyBuffer& call) {
  call.size = 16;
  call.pDst_storage[0].offset = 128;  // the same buffer: ranges apart
}
void Fixup(Fixture& f, Call_xgpuCmdDispatchIndirect& call) {
  call.flags = XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT;
  ReadyToDispatch(f, call.commandBuffer);
}
void Fixup(Fixture& f, Call_xgpuCmdDispatch& call) {
  call.groupCountX = call.groupCountY = call.groupCountZ = 1;
  ReadyToDispatch(f, call.commandBuffer);
}
void Fixup(Fixture&, Call_xgpuFailSemaphore& call) { call.status = XGPU_ERROR_DEVICE_LOST; }
void Fixup(Fixture& f, Call_xgpuCmdBindBuffers& call) { xgpuCmdBindPipeline(call.commandBuffer, f.pipeline); }
void Fixup(Fixture& f, Call_xgpuCmdPushConstants& call) { xgpuCmdBindPipeline(call.commandBuffer, f.pipeline); }
void Fixup(Fixture&, Call_xgpuMapBuffer& call) { call.size = XGPU_WHOLE_SIZE; }
void Fixup(Fixture& f, Call_xgpuUnmapBuffer& call) {
  // A mapped buffer of its own.
  XgpuBufferCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  FixupStruct(f, info);
  XgpuBuffer buffer = nullptr;
  REQUIRE(xgpuCreateBuffer(f.device, &info, nullptr, &buffer) == XGPU_SUCCESS);
  void* data = nullptr;
  REQUIRE(xgpuMapBuffer(f.device, buffer, 0, XGPU_WHOLE_SIZE, &data) == XGPU_SUCCESS);
  XgpuDevice device = f.device;
  f.Defer([device, buffer] {
    xgpuUnmapBuffer(device, buffer);
    xgpuDestroyBuffer(device, buffer, nullptr);
  });
  call.buffer = buffer;
}

}  // namespace vtest
