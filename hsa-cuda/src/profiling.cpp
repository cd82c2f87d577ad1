// Dispatch profiling (hsa_amd_profiling_set_profiler_enabled,
// hsa_amd_profiling_get_dispatch_time): while a queue profiles, its processor
// records a CUDA event on the queue's stream before each packet's work and
// one after it (before the completion-signal write), and keeps the pair with
// the completion signal. hsa_amd_profiling_get_dispatch_time converts the
// pair to the system timestamp domain (CLOCK_MONOTONIC ns, as
// HSA_SYSTEM_INFO_TIMESTAMP) through an anchor: an event recorded on an idle
// stream of the agent and synchronized, paired with the host time halfway
// between the record and the end of the synchronization. An anchor serves
// for one second, then the next profiled packet takes a fresh one (the GPU's
// clock and the host's drift apart slowly, and cuEventElapsedTime's float
// milliseconds lose resolution over long intervals).
//
// Precision: cuEventElapsedTime resolves about 0.5 µs; the anchor's host
// time is within half its record -> synchronized window (kept under 10 µs
// when it can be: up to three tries) of the event's GPU time.
//
// A signal holds at most one pair: a later profiled packet replaces it (and
// zeroes the signal's start_ts/end_ts), an unprofiled one or
// hsa_signal_destroy drops it (the signal keeps its last converted times,
// stale as on ROCR; a signal never profiled reads 0, 0), and a query of a completed
// pair converts it, stores the times in the signal's start_ts/end_ts and
// returns its events to the agent's free list. Live pairs are bounded by the
// live signals; events are reused. Nothing runs while no queue profiles (one
// atomic load per completion signal).
//
// Thread-safety: one mutex guards the pairs, anchors and free lists.
#include <cmath>
#include <map>
#include <unordered_map>

#include "runtime.h"

namespace hsa_cuda {

struct Anchor {
  CUevent event = nullptr;
  uint64_t host_ns = 0;  // the host time of the event
  ~Anchor() {
    if (event) g_runtime.cuda.cuEventDestroy(event);
  }
};

namespace {

constexpr uint64_t kAnchorLifeNs = 1000000000ull;
constexpr uint64_t kAnchorWindowNs = 10000;

struct AgentState {
  CUstream stream = nullptr;  // idle stream the anchors are recorded on
  std::shared_ptr<Anchor> anchor;
  std::vector<CUevent> free_events;
};

struct Pair {
  Agent* agent = nullptr;
  CUevent start = nullptr, end = nullptr;
  std::shared_ptr<Anchor> anchor;
};

std::mutex g_mutex;
std::map<Agent*, AgentState> g_agents;
std::unordered_map<uint64_t, Pair> g_pairs;  // by completion signal handle
std::atomic<size_t> g_pair_count{0};

CUevent take_event(AgentState& state) {
  if (!state.free_events.empty()) {
    CUevent event = state.free_events.back();
    state.free_events.pop_back();
    return event;
  }
  CUevent event = nullptr;
  const CUresult r = g_runtime.cuda.cuEventCreate(&event, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) {
    log_error("profiling: cuEventCreate: %s", cuda_error_text(r).c_str());
    return nullptr;
  }
  return event;
}

void give_back(Pair& pair) {
  AgentState& state = g_agents[pair.agent];
  if (pair.start) state.free_events.push_back(pair.start);
  if (pair.end) state.free_events.push_back(pair.end);
  pair = Pair{};
}

// A fresh anchor for the agent (the caller holds g_mutex; the agent's
// context is current).
bool take_anchor(AgentState& state) {
  if (!state.stream) {
    const CUresult r = g_runtime.cuda.cuStreamCreate(&state.stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) {
      log_error("profiling: cuStreamCreate: %s", cuda_error_text(r).c_str());
      state.stream = nullptr;
      return false;
    }
  }
  auto anchor = std::make_shared<Anchor>();
  if (g_runtime.cuda.cuEventCreate(&anchor->event, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    anchor->event = nullptr;
    return false;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    const uint64_t before = monotonic_ns();
    CUresult r = g_runtime.cuda.cuEventRecord(anchor->event, state.stream);
    if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuEventSynchronize(anchor->event);
    const uint64_t after = monotonic_ns();
    if (r != CUDA_SUCCESS) {
      log_error("profiling: anchor event: %s", cuda_error_text(r).c_str());
      return false;
    }
    anchor->host_ns = before + (after - before) / 2;
    if (after - before <= kAnchorWindowNs) break;
  }
  state.anchor = std::move(anchor);
  return true;
}

// Host ns of an event recorded after the anchor.
bool to_system(const Anchor& anchor, CUevent event, uint64_t* out) {
  float ms = 0;
  if (g_runtime.cuda.cuEventElapsedTime(&ms, anchor.event, event) != CUDA_SUCCESS) return false;
  const double ns = double(anchor.host_ns) + double(ms) * 1e6;
  *out = ns > 0 ? uint64_t(std::llround(ns)) : 0;
  return true;
}

}  // namespace

bool profiling_prepare(Agent* agent) {
  std::lock_guard<std::mutex> lock(g_mutex);
  AgentState& state = g_agents[agent];
  if (state.anchor) return true;
  return make_current(agent) && take_anchor(state);
}

bool profiling_begin(Agent* agent, CUstream stream, ProfiledPacket* packet) {
  std::lock_guard<std::mutex> lock(g_mutex);
  AgentState& state = g_agents[agent];
  if (!state.anchor || monotonic_ns() - state.anchor->host_ns > kAnchorLifeNs) {
    if (!take_anchor(state)) return false;
  }
  CUevent start = take_event(state);
  if (!start) return false;
  if (g_runtime.cuda.cuEventRecord(start, stream) != CUDA_SUCCESS) {
    state.free_events.push_back(start);
    return false;
  }
  packet->start = start;
  packet->anchor = state.anchor;
  return true;
}

void profiling_end(Agent* agent, CUstream stream, ProfiledPacket* packet, hsa_signal_t signal) {
  std::lock_guard<std::mutex> lock(g_mutex);
  AgentState& state = g_agents[agent];
  Pair pair;
  pair.agent = agent;
  pair.start = packet->start;
  pair.anchor = std::move(packet->anchor);
  packet->start = nullptr;
  pair.end = take_event(state);
  if (!pair.end || g_runtime.cuda.cuEventRecord(pair.end, stream) != CUDA_SUCCESS) {
    give_back(pair);
    return;
  }
  amd_signal_t* object = signal_object(signal);
  __atomic_store_n(&object->start_ts, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&object->end_ts, 0, __ATOMIC_RELAXED);
  auto [it, inserted] = g_pairs.try_emplace(signal.handle);
  if (!inserted) give_back(it->second);
  else g_pair_count.fetch_add(1, std::memory_order_relaxed);
  it->second = std::move(pair);
}

void profiling_abandon(Agent* agent, ProfiledPacket* packet) {
  if (!packet->start) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_agents[agent].free_events.push_back(packet->start);
  packet->start = nullptr;
  packet->anchor.reset();
}

void profiling_forget(hsa_signal_t signal) {
  if (g_pair_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_pairs.find(signal.handle);
  if (it == g_pairs.end()) return;
  give_back(it->second);
  g_pairs.erase(it);
  g_pair_count.fetch_sub(1, std::memory_order_relaxed);
}

void profiling_time(hsa_signal_t signal, uint64_t* start, uint64_t* end) {
  amd_signal_t* object = signal_object(signal);
  if (g_pair_count.load(std::memory_order_relaxed) != 0) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_pairs.find(signal.handle);
    if (it != g_pairs.end() && make_current(it->second.agent) &&
        g_runtime.cuda.cuEventQuery(it->second.end) == CUDA_SUCCESS) {
      Pair& pair = it->second;
      uint64_t s = 0, e = 0;
      if (to_system(*pair.anchor, pair.start, &s) && to_system(*pair.anchor, pair.end, &e)) {
        __atomic_store_n(&object->start_ts, s, __ATOMIC_RELAXED);
        __atomic_store_n(&object->end_ts, e < s ? s : e, __ATOMIC_RELAXED);
      }
      give_back(pair);
      g_pairs.erase(it);
      g_pair_count.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  *start = __atomic_load_n(&object->start_ts, __ATOMIC_RELAXED);
  *end = __atomic_load_n(&object->end_ts, __ATOMIC_RELAXED);
}

void profiling_release_all(bool release_cuda) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& [handle, pair] : g_pairs) give_back(pair);
  g_pairs.clear();
  g_pair_count.store(0, std::memory_order_relaxed);
  for (auto& [agent, state] : g_agents) {
    if (!release_cuda) break;
    make_current(agent);
    for (CUevent event : state.free_events) g_runtime.cuda.cuEventDestroy(event);
    state.anchor.reset();
    if (state.stream) g_runtime.cuda.cuStreamDestroy(state.stream);
  }
  g_agents.clear();
}

}  // namespace hsa_cuda
