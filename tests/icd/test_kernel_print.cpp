// Kernel printf and asserts, end to end: what kernels print arrives as
// XGPU-KERNEL-printf messages (INFO) when their submission completes, one per
// line, attributed to the kernel, the command, the workgroup and the work
// item, every work item's lines in the order it printed them; a full print
// buffer drops the rest and says how many; a failed xgpu_assert reports the
// condition, file and line (ERROR, XGPU-KERNEL-assert) and fails only its
// submission's signal semaphores, with XGPU_ERROR_KERNEL_ASSERT.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "icd_test_kernels.h"
#include "icd_test_util.h"

using namespace icdtest;

namespace {

// A messenger for INFO messages too (Env's hears WARNING and ERROR).
struct InfoLog {
  MessageLog log;
  XgpuDebugMessenger messenger = nullptr;
  XgpuInstance instance;
  explicit InfoLog(const Env& env) : instance(env.instance) {
    XgpuDebugMessengerCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT;
    info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT;
    info.pfnUserCallback = &MessageLog::callback;
    info.pUserData = &log;
    REQUIRE(api().CreateDebugMessenger(instance, &info, nullptr, &messenger) == XGPU_SUCCESS);
  }
  ~InfoLog() { api().DestroyDebugMessenger(instance, messenger, nullptr); }
  std::vector<std::string> with_id(const std::string& id) {
    std::lock_guard<std::mutex> lock(log.mutex);
    std::vector<std::string> out;
    for (size_t i = 0; i < log.ids.size(); ++i)
      if (log.ids[i].name == id) out.push_back(log.messages[i]);
    return out;
  }
};

uint32_t marker_line(const std::string& marker) {
  std::ifstream in(XGPU_ICD_TEST_KERNEL_SOURCE);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

// One submission of `entry` over `n` work items (limit for the assert).
XgpuResult run(Env& env, const char* entry, uint32_t n, uint32_t limit, XgpuSemaphore* out_done) {
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, entry, 0, sizeof(icd_print_args_t), ICD_TEST_PRINT_WORKGROUP);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  api().CmdBindPipeline(cb, pipeline);
  const icd_print_args_t args = {n, limit};
  api().CmdPushConstants(cb, 0, sizeof(args), &args);
  api().CmdDispatch(cb, (n + ICD_TEST_PRINT_WORKGROUP - 1) / ICD_TEST_PRINT_WORKGROUP, 1, 1);
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  const XgpuResult waited = env.wait(done, 1);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
  *out_done = done;
  return waited;
}

}  // namespace

TEST_CASE("kernel printf: every work item's lines arrive, attributed, in its order") {
  Env env(1, 1);
  InfoLog info(env);
  constexpr uint32_t n = 1000;
  XgpuSemaphore done = nullptr;
  CHECK(run(env, "icd_print", n, 0, &done) == XGPU_SUCCESS);
  const std::vector<std::string> lines = info.with_id("XGPU-KERNEL-printf");
  CHECK(lines.size() == 2 * n);
  std::map<uint32_t, std::vector<std::string>> by_item;
  for (const std::string& m : lines) {
    unsigned w = 0, l = 0, item = 0;
    const size_t at = m.find("workgroup (");
    REQUIRE(at != std::string::npos);
    REQUIRE(std::sscanf(m.c_str() + at, "workgroup (%u, 0, 0), work item (%u, 0, 0))", &w, &l) == 2);
    CHECK(m.rfind("kernel 'icd_print' (command 0, ", 0) == 0);
    item = w * ICD_TEST_PRINT_WORKGROUP + l;
    by_item[item].push_back(m.substr(m.find(")): ") + 4));
  }
  REQUIRE(by_item.size() == n);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) {
    char first[96];
    std::snprintf(first, sizeof first, "item %u of %u: %.1f named", i, n, 0.5 * i);
    const std::vector<std::string>& got = by_item[i];
    wrong += !(got.size() == 2 && got[0] == first && got[1] == "done " + std::to_string(i));
  }
  CHECK(wrong == 0);
  CHECK(env.log.all_ids().empty());  // no warning, no error
  api().DestroySemaphore(env.device(), done, nullptr);
}

TEST_CASE("kernel printf: each line names its own dispatch when a submission runs several that print") {
  Env env(1, 1);
  InfoLog info(env);
  XgpuExecutable executable = env.test_executable();
  XgpuPipeline pipeline = env.pipeline(executable, "icd_print", 0, sizeof(icd_print_args_t), ICD_TEST_PRINT_WORKGROUP);
  XgpuCommandBuffer cb = env.begin_command_buffer(XGPU_COMMAND_BUFFER_MODE_ONE_SHOT);
  api().CmdBindPipeline(cb, pipeline);
  // Three dispatches: n = 10, 20, 30 (the "of N" in each line tells which).
  for (uint32_t n : {10u, 20u, 30u}) {
    const icd_print_args_t args = {n, 0};
    api().CmdPushConstants(cb, 0, sizeof(args), &args);
    api().CmdDispatch(cb, (n + ICD_TEST_PRINT_WORKGROUP - 1) / ICD_TEST_PRINT_WORKGROUP, 1, 1);
  }
  REQUIRE(api().EndCommandBuffer(cb) == XGPU_SUCCESS);
  XgpuSemaphore done = env.semaphore(0);
  REQUIRE(submit_barrier(env.queue(0), {}, {}, {done}, {1}, cb) == XGPU_SUCCESS);
  CHECK(env.wait(done, 1) == XGPU_SUCCESS);
  // Each dispatch's lines name one command, a different one per dispatch.
  std::map<unsigned, std::map<std::string, uint32_t>> commands_of;  // n -> "kernel ... (command C" -> lines
  for (const std::string& m : info.with_id("XGPU-KERNEL-printf")) {
    unsigned i = 0, n = 0;
    const size_t text = m.find(")): item ");
    if (text == std::string::npos) continue;  // the "done" lines
    REQUIRE(std::sscanf(m.c_str() + text, ")): item %u of %u", &i, &n) == 2);
    REQUIRE(m.rfind("kernel 'icd_print' (command ", 0) == 0);
    ++commands_of[n][m.substr(0, m.find(','))];
  }
  REQUIRE(commands_of.size() == 3);
  std::set<std::string> distinct;
  for (const auto& [n, commands] : commands_of) {
    INFO("n = " << n);
    REQUIRE(commands.size() == 1);
    CHECK(commands.begin()->second == n);
    distinct.insert(commands.begin()->first);
  }
  CHECK(distinct.size() == 3);
  CHECK(env.log.all_ids().empty());
  api().DestroySemaphore(env.device(), done, nullptr);
  api().DestroyCommandBuffer(env.device(), cb, nullptr);
  api().DestroyPipeline(env.device(), pipeline, nullptr);
  api().DestroyExecutable(env.device(), executable, nullptr);
}

TEST_CASE("kernel printf: a full print buffer drops the rest and says how many were lost") {
  Env env(1, 1, XGPU_MIN_PRINT_BUFFER_SIZE);
  InfoLog info(env);
  constexpr uint32_t n = 1000;
  XgpuSemaphore done = nullptr;
  CHECK(run(env, "icd_print", n, 0, &done) == XGPU_SUCCESS);
  const size_t printed = info.with_id("XGPU-KERNEL-printf").size();
  const std::string warning = env.log.text_of_id("XGPU-KERNEL-printf");
  INFO(warning);
  CHECK(printed > 0);
  CHECK(printed < 2 * n);
  unsigned lost = 0;
  REQUIRE(std::sscanf(warning.c_str(), "%u xgpu_printf/xgpu_assert record(s)", &lost) == 1);
  CHECK(printed + lost == 2 * n);  // every record is either shown or counted
  CHECK(warning.find("printBufferSize 4096 bytes") != std::string::npos);
  CHECK_FALSE(env.log.contains("was overwritten"));  // a full buffer is not a damaged one
  api().DestroySemaphore(env.device(), done, nullptr);
}

TEST_CASE("kernel assert: a failed assert reports the condition, file and line and fails only its submission") {
  Env env(1, 1);
  XgpuSemaphore failed = nullptr, fine = nullptr;
  CHECK(run(env, "icd_print_assert", 100, 97, &failed) == XGPU_ERROR_KERNEL_ASSERT);
  const std::string all = env.log.all_ids();
  INFO(all);
  const std::string line = "icd_test.c:" + std::to_string(marker_line("ASSERT-LINE: icd_print_assert")) + ": i < args->limit";
  size_t asserts = 0;
  {
    std::lock_guard<std::mutex> lock(env.log.mutex);
    for (size_t i = 0; i < env.log.ids.size(); ++i) {
      if (env.log.ids[i].name != "XGPU-KERNEL-assert") continue;
      ++asserts;
      CHECK(env.log.messages[i].find(line) != std::string::npos);
      CHECK(env.log.messages[i].find("kernel 'icd_print_assert'") != std::string::npos);
    }
  }
  CHECK(asserts == 3);  // ids 97, 98 and 99
  CHECK(all.find("XGPU-DRIVER-device-lost") == std::string::npos);
  // The device lives on: the next submission runs and signals.
  env.log.clear();
  CHECK(run(env, "icd_print_assert", 100, 100, &fine) == XGPU_SUCCESS);
  CHECK(env.log.all_ids().empty());
  api().DestroySemaphore(env.device(), failed, nullptr);
  api().DestroySemaphore(env.device(), fine, nullptr);
}
