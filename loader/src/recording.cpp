// Recordings the loader refused a command of. A recording command with a
// NULL required argument never reaches the chain (the loader reports it and
// returns, spec/loader.md "Bad input"), so the driver cannot know that the
// recording is incomplete: the loader remembers it, xgpuEndCommandBuffer
// returns the error as a recording error would be, and xgpuQueueSubmit refuses
// the command buffer until it is begun again.
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include "loader.h"

namespace xgpu_loader {
namespace {

std::mutex g_mutex;                                              // guards g_failed
std::unordered_map<XgpuCommandBuffer, std::string> g_failed;     // command buffer -> what the loader refused
std::atomic<size_t> g_failed_count{0};                           // g_failed.size(), read without the lock

}  // namespace

void FailRecording(XgpuCommandBuffer command_buffer, const char* command, const char* vuid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  // The first refusal is the recording's error (as the driver keeps its first).
  if (g_failed.emplace(command_buffer, std::string(command) + " (" + vuid + ")").second)
    g_failed_count.store(g_failed.size(), std::memory_order_release);
}

void ForgetRecording(XgpuCommandBuffer command_buffer) {
  if (g_failed_count.load(std::memory_order_acquire) == 0 || !command_buffer) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_failed.erase(command_buffer)) g_failed_count.store(g_failed.size(), std::memory_order_release);
}

XgpuResult BeganRecording(XgpuCommandBuffer command_buffer, XgpuResult result) {
  if (result == XGPU_SUCCESS) ForgetRecording(command_buffer);
  return result;
}

XgpuResult EndRecording(XgpuCommandBuffer command_buffer, XgpuResult result) {
  if (result < 0 || g_failed_count.load(std::memory_order_acquire) == 0) return result;
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_failed.count(command_buffer) ? XGPU_ERROR_INVALID_ARGUMENT : result;
}

bool SubmittableRecordings(XgpuQueue queue, uint32_t count, const XgpuSubmitInfo* submits) {
  if (g_failed_count.load(std::memory_order_acquire) == 0) return true;
  std::string refused;
  uint32_t index = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (; index < count && refused.empty(); ++index) {
      const auto found = g_failed.find(submits[index].commandBuffer);
      if (found != g_failed.end()) refused = found->second;
    }
  }
  if (refused.empty()) return true;
  Log(InstanceOf(XGPU_OBJECT_TYPE_QUEUE, queue), Level::kError, "XGPU-VUID-xgpuQueueSubmit-pSubmits-commandBuffer-state",
      "xgpuQueueSubmit: pSubmits[" + std::to_string(index - 1) +
          "].commandBuffer is not executable: its recording failed when the loader refused " + refused +
          " (xgpuEndCommandBuffer returned XGPU_ERROR_INVALID_ARGUMENT); returns XGPU_ERROR_INVALID_USAGE");
  return false;
}

}  // namespace xgpu_loader
