// Trace-event JSON writer (see trace.h).
#include "trace.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common.h"
#include "device.h"
#include "queue.h"
#include "timeline_semaphore.h"

namespace xgpu::amdgpu {
namespace {

const char* trace_path_from_environment() {
  const char* path = std::getenv("XGPU_TRACE");
  return path && *path ? path : nullptr;
}

constexpr size_t kFlushBytes = 64 << 10;             // buffered bytes that trigger a flush
constexpr uint64_t kFlushIntervalNs = 100'000'000;   // traced time between flushes
constexpr uint32_t kLanes = 8;                        // tracks per span group (overflow shares the last)
constexpr size_t kSignalHistory = 64;                 // remembered signals per semaphore (flow sources)
constexpr int kDevicePidBase = 1 << 22;               // device "processes" (above Linux's pid_max default)
constexpr char kTerminator[] = "\n]\n";

// Span groups of one queue; each has kLanes tracks.
enum Group : uint32_t { kGroupScheduler = 0, kGroupExecute = 1, kGroupSignal = 2, kGroupDispatch = 3, kGroups = 4 };
const char* const kGroupNames[kGroups] = {"wait/issue", "execute", "signal", "dispatches"};

uint32_t track_id(uint32_t queue_index, uint32_t group, uint32_t lane) {
  return queue_index * kGroups * kLanes + group * kLanes + lane + 1;
}

struct Dispatch {
  std::string name;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t workgroup[3] = {0, 0, 0};
  uint32_t dimensions = 0;
  bool grid_from_device = false;
  hsa_signal_t signal{0};
  bool owned_signal = false;       // the tracer's (else the submission's completion signal)
  uint64_t start_ns = 0, end_ns = 0;  // device times (system domain); 0 = unknown
};

struct Record {
  Device* device = nullptr;
  uint32_t queue_index = 0;
  uint64_t sequence = 0;           // per-device submission number
  uint64_t accepted_ns = 0;
  uint64_t issue_begin_ns = 0;     // 0: never issued
  uint64_t issue_end_ns = 0;
  uint64_t completed_ns = 0;       // completion observed (0: none)
  uint64_t device_end_ns = 0;      // the last packet's end, timed by the device (0: unknown)
  uint64_t alloca_bytes = 0;       // alloca/dealloca: the buffer's size (read while it lives)
  uint64_t alloca_address = 0;
  std::vector<Dispatch> dispatches;
};

struct SignalSource {
  uint64_t value = 0;
  int pid = 0;
  uint64_t tid = 0;
  uint64_t ts_ns = 0;              // where the arrow starts: the start of the queue's signal slice (the
                                   // end on the device), the start of the host call (the payload is set
                                   // first, then work is issued)
  const Queue* queue = nullptr;    // nullptr: a host call
};

// A wait whose signal was not remembered yet when its submission retired
// (the signaller's retirement, on another queue's completion thread, came
// later): its arrow is drawn when that signal is remembered.
struct PendingFlow {
  uint64_t value = 0;          // the waited value
  int pid = 0;
  uint64_t tid = 0;            // the waiter's execute lane
  uint64_t begin_ns = 0;       // its execute slice
  uint64_t end_ns = 0;
  const Queue* queue = nullptr;
};

struct Lane {
  uint64_t last_end_ns = 0;
  bool named = false;
};

struct DeviceState {
  int pid = 0;
  std::vector<hsa_signal_t> free_signals;   // tracer-owned dispatch signals, value to be reset
  std::vector<hsa_signal_t> all_signals;
  std::unordered_map<uint64_t, Lane> lanes; // by track id
  std::unordered_map<uint32_t, uint64_t> last_issue_end;    // by queue index
  std::unordered_map<uint32_t, uint64_t> last_execute_end;  // by queue index
  std::unordered_map<uint32_t, uint64_t> last_signal_end;   // by queue index
  uint64_t next_sequence = 1;
};

struct Tracer {
  std::mutex mutex;
  FILE* file = nullptr;
  bool open_failed = false;        // or closed at exit: events are dropped
  bool seekable = false;
  bool any_event = false;          // an event was buffered or written
  std::string buffer;
  uint64_t last_flush_ns = 0;
  uint64_t next_flow_id = 1;
  int next_device_pid = kDevicePidBase;
  bool host_named = false;
  std::unordered_map<const Device*, DeviceState> devices;
  std::unordered_map<const Submission*, Record> records;
  std::unordered_map<const Semaphore*, std::deque<SignalSource>> signals;
  std::unordered_map<const Semaphore*, std::deque<PendingFlow>> pending_flows;
  std::unordered_map<uint64_t, bool> named_threads;

  // At exit: writes what is buffered and closes the file. The tracer itself
  // is never destroyed (threads of the HSA runtime may still complete work
  // and call the hooks); what they report afterwards is dropped.
  void close() {
    std::lock_guard<std::mutex> lock(mutex);
    flush_locked();
    if (file) {
      // An unseekable file (a pipe) gets its closing bracket only here.
      if (!seekable) std::fwrite(kTerminator, 1, sizeof(kTerminator) - 1, file);
      std::fclose(file);
      file = nullptr;
    }
    open_failed = true;
  }

  // --- output --------------------------------------------------------------

  void open_locked() {
    if (file || open_failed) return;
    const char* configured = trace_path_from_environment();
    if (!configured) {
      open_failed = true;
      return;
    }
    std::string path;
    for (const char* c = configured; *c; ++c) {
      if (c[0] == '%' && c[1] == 'p') {
        path += std::to_string(getpid());
        ++c;
      } else {
        path += *c;
      }
    }
    file = std::fopen(path.c_str(), "w");
    if (!file) {
      open_failed = true;
      std::fprintf(stderr, "[xgpu warning] XGPU_TRACE: cannot open '%s' for writing (%s); no trace is written\n",
                   path.c_str(), std::strerror(errno));
      return;
    }
    seekable = std::fseek(file, 0, SEEK_CUR) == 0;
    std::fputs("[\n", file);
  }

  void flush_locked() {
    if (buffer.empty()) return;
    open_locked();
    if (file) {
      std::fwrite(buffer.data(), 1, buffer.size(), file);
      if (seekable) {
        // Keep the file valid JSON; the next flush overwrites the terminator.
        std::fwrite(kTerminator, 1, sizeof(kTerminator) - 1, file);
        std::fflush(file);
        std::fseek(file, -long(sizeof(kTerminator) - 1), SEEK_CUR);
      } else {
        std::fflush(file);
      }
    }
    buffer.clear();
  }

  void event(const std::string& json, uint64_t now_ns) {
    if (any_event) buffer += ",\n";
    any_event = true;
    buffer += json;
    if (buffer.size() >= kFlushBytes || now_ns >= last_flush_ns + kFlushIntervalNs) {
      flush_locked();
      last_flush_ns = now_ns;
    }
  }

  // --- tracks --------------------------------------------------------------

  DeviceState& device_state(const Device* device, uint64_t now_ns) {
    auto it = devices.find(device);
    if (it != devices.end()) return it->second;
    DeviceState& state = devices[device];
    state.pid = next_device_pid++;
    const std::string name = "xgpu device " + std::to_string(state.pid - kDevicePidBase) + ": " +
                             std::string(device->physical->properties.deviceName);
    event(metadata(state.pid, 0, "process_name", name), now_ns);
    event(metadata_number(state.pid, 0, "process_sort_index", state.pid - kDevicePidBase + 1), now_ns);
    return state;
  }

  // A lane of `group` on the queue whose last span ended by `start_ns`.
  uint64_t lane_for(DeviceState& state, uint32_t queue_index, uint32_t group, uint64_t start_ns, uint64_t end_ns,
                    uint64_t now_ns) {
    uint32_t lane = 0;
    for (; lane + 1 < kLanes; ++lane) {
      if (state.lanes[track_id(queue_index, group, lane)].last_end_ns <= start_ns) break;
    }
    const uint64_t tid = track_id(queue_index, group, lane);
    Lane& chosen = state.lanes[tid];
    if (!chosen.named) {
      chosen.named = true;
      std::string name = "queue " + std::to_string(queue_index) + ": " + kGroupNames[group];
      if (lane) name += " (" + std::to_string(lane + 1) + ")";
      event(metadata(state.pid, tid, "thread_name", name), now_ns);
      event(metadata_number(state.pid, tid, "thread_sort_index", int64_t(tid)), now_ns);
    }
    chosen.last_end_ns = std::max(chosen.last_end_ns, end_ns);
    return tid;
  }

  void name_host_thread(int pid, uint64_t tid, uint64_t now_ns) {
    if (!host_named) {
      host_named = true;
      event(metadata(pid, 0, "process_name", "host"), now_ns);
      event(metadata_number(pid, 0, "process_sort_index", 0), now_ns);
    }
    if (named_threads.emplace(tid, true).second)
      event(metadata(pid, tid, "thread_name", "thread " + std::to_string(tid)), now_ns);
  }

  // --- JSON ----------------------------------------------------------------

  static std::string escape(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += char(c);
      } else if (c < 0x20) {
        char hex[8];
        std::snprintf(hex, sizeof(hex), "\\u%04x", c);
        out += hex;
      } else {
        out += char(c);
      }
    }
    return out;
  }

  static std::string micros(uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof(text), "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return text;
  }

  static std::string metadata(int pid, uint64_t tid, const char* what, const std::string& name) {
    return std::string("{\"ph\":\"M\",\"name\":\"") + what + "\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":\"" + escape(name) + "\"}}";
  }
  static std::string metadata_number(int pid, uint64_t tid, const char* what, int64_t value) {
    return std::string("{\"ph\":\"M\",\"name\":\"") + what + "\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"sort_index\":" + std::to_string(value) + "}}";
  }
  // A complete event; `args` is the inside of the args object (may be empty).
  static std::string span(const std::string& name, const char* category, int pid, uint64_t tid, uint64_t begin_ns,
                          uint64_t end_ns, const std::string& args) {
    return "{\"ph\":\"X\",\"name\":\"" + escape(name) + "\",\"cat\":\"" + category + "\",\"pid\":" +
           std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + micros(begin_ns) +
           ",\"dur\":" + micros(end_ns > begin_ns ? end_ns - begin_ns : 0) + ",\"args\":{" + args + "}}";
  }
  static std::string flow(char phase, uint64_t id, int pid, uint64_t tid, uint64_t ts_ns) {
    std::string out = std::string("{\"ph\":\"") + phase + "\",\"name\":\"semaphore\",\"cat\":\"semaphore\",\"id\":" +
                      std::to_string(id) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                      ",\"ts\":" + micros(ts_ns);
    if (phase == 'f') out += ",\"bp\":\"e\"";
    return out + "}";
  }
  static std::string triple(const uint32_t v[3]) {
    return "[" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + "]";
  }

  // --- flows ---------------------------------------------------------------

  void remember_signal(const Semaphore* semaphore, const SignalSource& source, uint64_t now) {
    std::deque<SignalSource>& history = signals[semaphore];
    history.push_back(source);
    if (history.size() > kSignalHistory) history.pop_front();
    // Waiters that retired before this signal was remembered.
    auto pending = pending_flows.find(semaphore);
    if (pending == pending_flows.end()) return;
    std::deque<PendingFlow>& waits = pending->second;
    for (auto it = waits.begin(); it != waits.end();) {
      if (it->value > source.value) {
        ++it;
        continue;
      }
      draw_flow(source, it->pid, it->tid, it->begin_ns, it->end_ns, it->queue, now);
      it = waits.erase(it);
    }
    if (waits.empty()) pending_flows.erase(pending);
  }

  void remember_pending(const Semaphore* semaphore, const PendingFlow& flow) {
    std::deque<PendingFlow>& waits = pending_flows[semaphore];
    waits.push_back(flow);
    if (waits.size() > kSignalHistory) waits.pop_front();
  }

  // The arrow from `source` to a waiter's execute slice [begin, end] on
  // (pid, tid). None from the waiter's own queue, nor one that would point
  // back in time (the waiter's slice ended before the signal's start).
  void draw_flow(const SignalSource& source, int pid, uint64_t tid, uint64_t begin, uint64_t end,
                 const Queue* queue, uint64_t now) {
    if (source.queue == queue || end < source.ts_ns) return;
    const uint64_t id = next_flow_id++;
    event(flow('s', id, source.pid, source.tid, source.ts_ns), now);
    event(flow('f', id, pid, tid, std::max(begin, source.ts_ns)), now);
  }

  // The first remembered signal of `semaphore` that reached `value`.
  const SignalSource* source_of(const Semaphore* semaphore, uint64_t value) const {
    auto it = signals.find(semaphore);
    if (it == signals.end()) return nullptr;
    const SignalSource* best = nullptr;
    for (const SignalSource& source : it->second)
      if (source.value >= value && (!best || source.value < best->value)) best = &source;
    return best;
  }
};

Tracer& tracer() {
  static Tracer* const instance = new Tracer;  // never deleted (see Tracer::close)
  return *instance;
}

// Closes the file at process exit (or when the driver is unloaded, where
// nothing keeps it loaded).
struct CloseAtExit {
  ~CloseAtExit() {
    if (g_trace_enabled.load(std::memory_order_relaxed)) tracer().close();
  }
} g_close_at_exit;

// The HSA system clock in ns (the domain of dispatch timestamps).
uint64_t ticks_to_ns(const Device* device, uint64_t ticks) {
  const uint64_t frequency = device->runtime->timestamp_frequency;
  if (frequency == 0 || frequency == 1'000'000'000ull) return ticks;
  return uint64_t((unsigned __int128)ticks * 1'000'000'000ull / frequency);
}

uint64_t now_ns(const Device* device) {
  uint64_t ticks = 0;
  device->hsa->hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &ticks);
  return ticks_to_ns(device, ticks);
}

uint64_t current_thread_id() { return uint64_t(syscall(SYS_gettid)); }

const char* kind_name(SubmissionKind kind) {
  switch (kind) {
    case SubmissionKind::kCommands: return "execute";
    case SubmissionKind::kBarrier: return "barrier";
    case SubmissionKind::kAlloca: return "alloca";
    case SubmissionKind::kDealloca: return "dealloca";
    case SubmissionKind::kTestFault: return "injected fault";
  }
  return "operation";
}

// The record of the submission being issued on this thread (between
// trace_issue_begin and trace_issue_end; under its queue's mutex).
// Static TLS (initial-exec): dynamic TLS of a dlopen()ed library is
// allocated on a thread's first use, and glibc ends the process when that
// allocation fails (host memory exhausted).
__attribute__((tls_model("initial-exec"))) thread_local Record* t_issuing = nullptr;

}  // namespace

void trace_queue_created_slow(Queue* queue) {
  Device* device = queue->device;
  if (device->hsa->hsa_amd_profiling_set_profiler_enabled)
    device->hsa->hsa_amd_profiling_set_profiler_enabled(queue->aql, 1);
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.device_state(device, now_ns(device));
}

void trace_submission_accepted_slow(Submission* submission) {
  Device* device = submission->queue->device;
  const uint64_t now = now_ns(device);
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  Record& record = t.records[submission];
  record = Record{};
  record.device = device;
  record.queue_index = submission->queue->index;
  record.sequence = t.device_state(device, now).next_sequence++;
  record.accepted_ns = now;
  if (submission->alloca_buffer) record.alloca_bytes = submission->alloca_buffer->size;
}

void trace_issue_begin_slow(Submission* submission) {
  const uint64_t now = now_ns(submission->queue->device);
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.records.find(submission);
  if (it == t.records.end()) return;
  it->second.issue_begin_ns = now;
  t_issuing = &it->second;  // node addresses are stable; only this thread adds dispatches until issue end
}

namespace {

void trace_dispatch_body(hsa_kernel_dispatch_packet_t* packet, const char* kernel_name, bool grid_from_device) {
  Record* record = t_issuing;
  if (!record) return;
  Dispatch dispatch;
  dispatch.name = kernel_name ? kernel_name : "?";
  dispatch.grid[0] = packet->grid_size_x;
  dispatch.grid[1] = packet->grid_size_y;
  dispatch.grid[2] = packet->grid_size_z;
  dispatch.workgroup[0] = packet->workgroup_size_x;
  dispatch.workgroup[1] = packet->workgroup_size_y;
  dispatch.workgroup[2] = packet->workgroup_size_z;
  dispatch.dimensions = (packet->setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) & 3u;
  dispatch.grid_from_device = grid_from_device;
  if (packet->completion_signal.handle) {
    dispatch.signal = packet->completion_signal;  // the submission's last packet
  } else {
    Device* device = record->device;
    const HsaApi& hsa = *device->hsa;
    hsa_signal_t signal{0};
    {
      Tracer& t = tracer();
      std::lock_guard<std::mutex> lock(t.mutex);
      DeviceState& state = t.device_state(device, record->accepted_ns);
      if (!state.free_signals.empty()) {
        signal = state.free_signals.back();
        state.free_signals.pop_back();
      }
    }
    if (signal.handle) {
      hsa.hsa_signal_store_screlease(signal, 1);
    } else if (hsa.hsa_signal_create(1, 0, nullptr, &signal) == HSA_STATUS_SUCCESS) {
      Tracer& t = tracer();
      std::lock_guard<std::mutex> lock(t.mutex);
      t.device_state(device, record->accepted_ns).all_signals.push_back(signal);
    } else {
      signal.handle = 0;  // no timing for this dispatch
    }
    if (signal.handle) {
      packet->completion_signal = signal;
      dispatch.signal = signal;
      dispatch.owned_signal = true;
    }
  }
  record->dispatches.push_back(std::move(dispatch));
}

// Reads XGPU_TRACE when the driver is loaded. The driver stays loaded until
// the process ends (linked -z nodelete, CMakeLists.txt), so one file covers
// every instance of the process.
const bool g_trace_configured = [] {
  const bool enabled = trace_path_from_environment() != nullptr;
  if (enabled) g_trace_dispatch.store(&trace_dispatch_body, std::memory_order_relaxed);
  g_trace_enabled.store(enabled, std::memory_order_release);
  return enabled;
}();

}  // namespace

void trace_issue_end_slow(Submission* submission) {
  Device* device = submission->queue->device;
  const uint64_t now = now_ns(device);
  t_issuing = nullptr;
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.records.find(submission);
  if (it == t.records.end()) return;
  it->second.issue_end_ns = now;
  if (submission->alloca_buffer) it->second.alloca_address = submission->alloca_buffer->device_address.load();
}

void trace_completion_observed_slow(Submission* submission) {
  Device* device = submission->queue->device;
  const HsaApi& hsa = *device->hsa;
  const uint64_t now = now_ns(device);
  Tracer& t = tracer();
  std::vector<Dispatch> dispatches;
  uint64_t issue_begin = 0;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.records.find(submission);
    if (it == t.records.end()) return;
    it->second.completed_ns = now;
    issue_begin = it->second.issue_begin_ns;
    dispatches.swap(it->second.dispatches);
  }
  // Every packet of the submission completed before its last one did (the
  // last packet has the barrier bit when there are several), so each
  // dispatch's signal is 0 unless the submission failed.
  const bool ran = submission->status == XGPU_SUCCESS && !device->lost;
  std::vector<hsa_signal_t> recycled;
  for (Dispatch& dispatch : dispatches) {
    if (ran && dispatch.signal.handle && hsa.hsa_amd_profiling_get_dispatch_time &&
        (!hsa.hsa_signal_load_relaxed || hsa.hsa_signal_load_relaxed(dispatch.signal) <= 0)) {
      hsa_amd_profiling_dispatch_time_t time{};
      if (hsa.hsa_amd_profiling_get_dispatch_time(device->agent, dispatch.signal, &time) == HSA_STATUS_SUCCESS &&
          time.end >= time.start && time.start >= issue_begin) {
        dispatch.start_ns = ticks_to_ns(device, time.start);
        dispatch.end_ns = ticks_to_ns(device, time.end);
      }
    }
    if (dispatch.owned_signal) recycled.push_back(dispatch.signal);
    dispatch.signal.handle = 0;
  }
  // The last packet's end on the device, from the submission's completion
  // signal (any packet type; a runtime that does not time barriers answers
  // 0 or an error, and the observed completion is used instead).
  uint64_t device_end = 0;
  if (ran && hsa.hsa_amd_profiling_get_dispatch_time && submission->completion) {
    hsa_amd_profiling_dispatch_time_t time{};
    if (hsa.hsa_amd_profiling_get_dispatch_time(device->agent, submission->completion->signal, &time) ==
            HSA_STATUS_SUCCESS &&
        time.end != 0 && time.end >= time.start)
      device_end = std::min(ticks_to_ns(device, time.end), now);
  }
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.records.find(submission);
  // (A time before the issue began is a stale stamp of the signal's
  // previous use: that packet was not timed.)
  if (it != t.records.end()) {
    it->second.dispatches.swap(dispatches);
    it->second.device_end_ns = device_end >= issue_begin ? device_end : 0;
  }
  DeviceState& state = t.device_state(device, now);
  state.free_signals.insert(state.free_signals.end(), recycled.begin(), recycled.end());
}

void trace_submission_finalized_slow(Submission* submission) {
  Queue* queue = submission->queue;
  Device* device = queue->device;
  const uint64_t now = now_ns(device);
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.records.find(submission);
  if (it == t.records.end()) return;
  Record record = std::move(it->second);
  t.records.erase(it);
  DeviceState& state = t.device_state(device, now);
  const int pid = state.pid;
  const uint32_t q = record.queue_index;
  XgpuResult status = submission->status;
  if (status == XGPU_SUCCESS && device->lost && submission->completion) status = XGPU_ERROR_DEVICE_LOST;

  std::string common = "\"submission\":" + std::to_string(record.sequence) + ",\"queue\":" + std::to_string(q) +
                       ",\"kind\":\"" + kind_name(submission->kind) + "\"";
  if (submission->command_buffer_handle && !submission->owns_command_buffer) {
    const std::string name =
        device_object_name(device, uint64_t(reinterpret_cast<uintptr_t>(submission->command_buffer_handle)));
    if (!name.empty()) common += ",\"command_buffer\":\"" + Tracer::escape(name) + "\"";
  }
  // (The alloca buffer may be freed by now: only what was recorded is used.)
  if (submission->kind == SubmissionKind::kAlloca || submission->kind == SubmissionKind::kDealloca) {
    common += ",\"bytes\":" + std::to_string(record.alloca_bytes);
    if (submission->kind == SubmissionKind::kAlloca) {
      char address[32];
      std::snprintf(address, sizeof(address), "\"0x%" PRIx64 "\"", record.alloca_address);
      common += std::string(",\"address\":") + address;
    }
  }
  if (status != XGPU_SUCCESS) common += ",\"status\":" + std::to_string(int(status));
  std::string waits_text, signals_text;
  for (const SemaphoreValue& wait : submission->waits)
    waits_text += (waits_text.empty() ? "" : ",") + std::to_string(wait.value);
  for (const SemaphoreValue& signal : submission->signals)
    signals_text += (signals_text.empty() ? "" : ",") + std::to_string(signal.value);

  // Scheduler spans: wait (at the front of the queue), issue.
  uint64_t& last_issue_end = state.last_issue_end[q];
  if (record.issue_begin_ns == 0 || record.issue_end_ns == 0) {
    const uint64_t begin = std::max(record.accepted_ns, last_issue_end);
    const uint64_t end = std::max(begin, now);
    const uint64_t tid = t.lane_for(state, q, kGroupScheduler, begin, end, now);
    t.event(Tracer::span(std::string("not issued: ") + kind_name(submission->kind), "submission", pid, tid, begin,
                         end, common),
            now);
    return;
  }
  const uint64_t wait_begin = std::min(std::max(record.accepted_ns, last_issue_end), record.issue_begin_ns);
  last_issue_end = std::max(last_issue_end, record.issue_end_ns);
  uint64_t tid = t.lane_for(state, q, kGroupScheduler, wait_begin, record.issue_end_ns, now);
  t.event(Tracer::span("wait", "submission", pid, tid, wait_begin, record.issue_begin_ns,
                       common + ",\"waits\":[" + waits_text + "],\"queued_us\":" +
                           Tracer::micros(record.issue_begin_ns - std::min(record.accepted_ns, record.issue_begin_ns))),
          now);
  t.event(Tracer::span("issue", "submission", pid, tid,
                       record.issue_begin_ns, record.issue_end_ns,
                       common + ",\"dispatches\":" + std::to_string(record.dispatches.size())),
          now);

  // Execute: from the doorbell (or its first dispatch's start, when the
  // device started it earlier; never before the previous submission on this
  // queue ended) to the end of its last packet on the device (or, when the
  // runtime does not time that packet, the completion the host observed).
  // The queue is in order: an end before the previous one's counts as after it.
  uint64_t& last_execute_end = state.last_execute_end[q];
  uint64_t first_start = record.issue_end_ns;
  for (const Dispatch& dispatch : record.dispatches)
    if (dispatch.start_ns) first_start = std::min(first_start, dispatch.start_ns);
  const uint64_t observed = record.completed_ns ? record.completed_ns : now;
  const uint64_t completed = std::max(record.device_end_ns ? record.device_end_ns : observed, last_execute_end);
  const uint64_t execute_begin = std::min(std::max(first_start, last_execute_end), completed);
  last_execute_end = std::max(last_execute_end, completed);
  const uint64_t execute_tid = t.lane_for(state, q, kGroupExecute, execute_begin, completed, now);
  t.event(Tracer::span(kind_name(submission->kind), "submission", pid, execute_tid, execute_begin, completed, common),
          now);

  // Dispatches, timed by the device, in start order.
  std::sort(record.dispatches.begin(), record.dispatches.end(),
            [](const Dispatch& a, const Dispatch& b) { return a.start_ns < b.start_ns; });
  for (const Dispatch& dispatch : record.dispatches) {
    if (dispatch.start_ns == 0) continue;
    const uint64_t dispatch_tid = t.lane_for(state, q, kGroupDispatch, dispatch.start_ns, dispatch.end_ns, now);
    std::string args = common + ",\"dimensions\":" + std::to_string(dispatch.dimensions) +
                       ",\"workgroup_size\":" + Tracer::triple(dispatch.workgroup);
    args += dispatch.grid_from_device ? std::string(",\"grid\":\"written by the device (indirect)\"")
                                      : ",\"grid\":" + Tracer::triple(dispatch.grid);
    t.event(Tracer::span(dispatch.name, "dispatch", pid, dispatch_tid, dispatch.start_ns, dispatch.end_ns, args), now);
  }

  // Signal: from the end on the device (or the previous submission's
  // payloads on this queue, set first) to the payloads set (now): includes
  // the time the host took to notice the completion.
  uint64_t& last_signal_end = state.last_signal_end[q];
  const uint64_t signal_begin = std::min(std::max(completed, last_signal_end), now);
  last_signal_end = std::max(last_signal_end, now);
  const uint64_t signal_tid = t.lane_for(state, q, kGroupSignal, signal_begin, now, now);
  t.event(Tracer::span(status == XGPU_SUCCESS ? "signal" : "fail signals", "submission", pid, signal_tid,
                       signal_begin, now, common + ",\"signals\":[" + signals_text + "]"),
          now);
  if (status != XGPU_SUCCESS) return;
  for (const SemaphoreValue& signal : submission->signals)
    t.remember_signal(signal.semaphore, SignalSource{signal.value, pid, signal_tid, signal_begin, queue}, now);

  // Flows: from the signal that reached each waited value (on another queue,
  // or the host) to this submission's execution; drawn when that signal is
  // remembered where the signaller has not retired yet.
  for (const SemaphoreValue& wait : submission->waits) {
    if (const SignalSource* source = t.source_of(wait.semaphore, wait.value))
      t.draw_flow(*source, pid, execute_tid, execute_begin, completed, queue, now);
    else
      t.remember_pending(wait.semaphore, PendingFlow{wait.value, pid, execute_tid, execute_begin, completed, queue});
  }
}

void trace_semaphore_freed_slow(Semaphore* semaphore) {
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.signals.erase(semaphore);
  t.pending_flows.erase(semaphore);
}

void trace_device_destroyed_slow(Device* device) {
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.devices.find(device);
  if (it != t.devices.end()) {
    for (hsa_signal_t signal : it->second.all_signals) device->hsa->hsa_signal_destroy(signal);
    t.devices.erase(it);
  }
  for (auto record = t.records.begin(); record != t.records.end();) {
    if (record->second.device == device)
      record = t.records.erase(record);
    else
      ++record;
  }
  t.flush_locked();
}

void trace_device_lost_slow(Device* device, const char* description) {
  const uint64_t now = now_ns(device);
  const int pid = int(getpid());
  const uint64_t tid = current_thread_id();
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.name_host_thread(pid, tid, now);
  t.event("{\"ph\":\"i\",\"s\":\"g\",\"name\":\"device lost\",\"cat\":\"fault\",\"pid\":" + std::to_string(pid) +
              ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + Tracer::micros(now) + ",\"args\":{\"report\":\"" +
              Tracer::escape(description) + "\"}}",
          now);
  t.flush_locked();
}

void trace_prints_slow(Device* device, uint32_t queue_index, uint64_t submission, uint64_t lines, uint64_t asserts,
                       uint64_t dropped) {
  const uint64_t now = now_ns(device);
  const int pid = int(getpid());
  const uint64_t tid = current_thread_id();
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.name_host_thread(pid, tid, now);
  t.event("{\"ph\":\"i\",\"s\":\"t\",\"name\":\"kernel prints\",\"cat\":\"prints\",\"pid\":" +
              std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + Tracer::micros(now) +
              ",\"args\":{\"queue\":" + std::to_string(queue_index) + ",\"submission\":" +
              std::to_string(submission) + ",\"lines\":" + std::to_string(lines) + ",\"asserts\":" +
              std::to_string(asserts) + ",\"dropped\":" + std::to_string(dropped) + "}}",
          now);
}

uint64_t trace_host_call_begin_slow(Device* device) { return std::max<uint64_t>(now_ns(device), 1); }

void trace_host_call_end_slow(Device* device, const char* function, uint64_t begin, const XgpuSemaphore* semaphores,
                              const uint64_t* values, uint32_t count, bool signal) {
  const uint64_t now = std::max(now_ns(device), begin);
  const int pid = int(getpid());
  const uint64_t tid = current_thread_id();
  std::string list;
  for (uint32_t i = 0; values && i < count; ++i) list += (i ? "," : "") + std::to_string(values[i]);
  Tracer& t = tracer();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.name_host_thread(pid, tid, now);
  t.event(Tracer::span(function, "host", pid, tid, begin, now, "\"values\":[" + list + "]"), now);
  if (!signal || !semaphores || !values) return;
  for (uint32_t i = 0; i < count; ++i) {
    if (const Semaphore* semaphore = from_handle<Semaphore>(semaphores[i]))
      t.remember_signal(semaphore, SignalSource{values[i], pid, tid, begin, nullptr}, now);
  }
}

}  // namespace xgpu::amdgpu
