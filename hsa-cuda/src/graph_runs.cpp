// Runs of kernel dispatch packets replayed as CUDA graphs; see graph_runs.h.
//
// Why it is the same work: within a queue every packet already runs in
// stream order (queue.cpp), so a run of dispatch packets without completion
// signals but for its last, and no barrier packet, is a sequence of kernel
// launches on one stream; a graph captured from that sequence on that
// stream is a chain of the same kernels with the same parameters (captured
// by value, compared byte for byte before each reuse), which CUDA runs in
// the chain's order, after what the stream held before it and before what
// follows. The queue issues the run's completion signal after the graph
// launch, as after the last cuLaunchKernel.
#include "graph_runs.h"

#include <cstring>

#include "runtime.h"

namespace hsa_cuda {
namespace {

// Runs kept per queue (each graph holds its launches' parameters; a run of
// 1,000 launches is about 100 KiB of signature).
constexpr size_t kMaxEntries = 32;

}  // namespace

void RunSignature::add(const LaunchRecord& record, const void* params) {
  // The record keeps the size cuLaunchKernel gets; the padding stays zero.
  const size_t at = bytes_.size();
  bytes_.resize(at + sizeof(LaunchRecord) + ((record.size + 7u) & ~7u), 0);
  std::memcpy(bytes_.data() + at, &record, sizeof(LaunchRecord));
  std::memcpy(bytes_.data() + at + sizeof(LaunchRecord), params, record.size);
  ++count_;
}

uint64_t RunSignature::hash() const {
  // Eight bytes at a time (the records are padded to 8): a multiply-xorshift
  // mix, enough to tell runs apart before the byte-wise comparison.
  uint64_t h = 0x9e3779b97f4a7c15ull ^ bytes_.size();
  for (size_t i = 0; i + 8 <= bytes_.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes_.data() + i, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

CUresult launch_each(CUstream stream, const RunSignature& run) {
  const std::vector<uint8_t>& bytes = run.bytes();
  for (size_t at = 0; at < bytes.size();) {
    LaunchRecord record;
    std::memcpy(&record, bytes.data() + at, sizeof(record));
    void* params = const_cast<uint8_t*>(bytes.data() + at + sizeof(record));
    size_t size = record.size;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    const CUresult r = g_runtime.cuda.cuLaunchKernel(record.function, record.blocks[0], record.blocks[1],
                                                     record.blocks[2], record.block[0], record.block[1],
                                                     record.block[2], record.shared, stream, nullptr,
                                                     size ? extra : nullptr);
    if (r != CUDA_SUCCESS) return r;
    at += sizeof(record) + ((record.size + 7u) & ~7u);
  }
  return CUDA_SUCCESS;
}

GraphRuns::Entry* GraphRuns::find(uint64_t hash, const std::vector<uint8_t>& bytes) {
  for (Entry& entry : entries_)
    if (entry.hash == hash && entry.bytes == bytes) return &entry;
  return nullptr;
}

GraphRuns::Entry* GraphRuns::make_room() {
  if (entries_.size() < kMaxEntries) return &entries_.emplace_back();
  Entry* oldest = &entries_.front();
  for (Entry& entry : entries_)
    if (entry.last_use < oldest->last_use) oldest = &entry;
  if (oldest->exec) g_runtime.cuda.cuGraphExecDestroy(oldest->exec);
  if (oldest->graph) g_runtime.cuda.cuGraphDestroy(oldest->graph);
  *oldest = Entry{};
  return oldest;
}

CUresult GraphRuns::issue(CUstream stream, const RunSignature& run, bool* as_graph) {
  *as_graph = false;
  const uint64_t hash = run.hash();
  Entry* entry = find(hash, run.bytes());
  if (!entry) {
    // First sighting: launched as without graphs, remembered.
    entry = make_room();
    entry->hash = hash;
    entry->bytes = run.bytes();
    entry->last_use = ++clock_;
    ++first_sightings;
    return launch_each(stream, run);
  }
  entry->last_use = ++clock_;
  if (entry->failed) return launch_each(stream, run);
  if (!entry->exec) {
    // Second sighting: capture the launches into a graph. What goes wrong
    // while capturing leaves the stream as it was (the capture is ended and
    // dropped) and the run launched one by one, now and from then on.
    ++captures;
    CUresult r = g_runtime.cuda.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (r == CUDA_SUCCESS) {
      const CUresult launched = launch_each(stream, run);
      CUgraph graph = nullptr;
      r = g_runtime.cuda.cuStreamEndCapture(stream, &graph);
      if (launched != CUDA_SUCCESS) r = launched;
      if (r == CUDA_SUCCESS) r = g_runtime.cuda.cuGraphInstantiateWithFlags(&entry->exec, graph, 0);
      if (r == CUDA_SUCCESS) {
        entry->graph = graph;
      } else {
        entry->exec = nullptr;
        if (graph) g_runtime.cuda.cuGraphDestroy(graph);
      }
    }
    if (r != CUDA_SUCCESS) {
      log_error("a run of %zu kernel launches could not be made a CUDA graph (%s): it is launched one by one",
                run.count(), cuda_error_text(r).c_str());
      entry->failed = true;
      return launch_each(stream, run);
    }
  }
  const CUresult r = g_runtime.cuda.cuGraphLaunch(entry->exec, stream);
  if (r == CUDA_SUCCESS) {
    *as_graph = true;
    ++graph_launches;
  }
  return r;
}

void GraphRuns::release() {
  for (Entry& entry : entries_) {
    if (entry.exec) g_runtime.cuda.cuGraphExecDestroy(entry.exec);
    if (entry.graph) g_runtime.cuda.cuGraphDestroy(entry.graph);
  }
  entries_.clear();
}

}  // namespace hsa_cuda
