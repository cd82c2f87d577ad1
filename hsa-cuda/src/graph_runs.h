// Runs of kernel dispatch packets replayed as CUDA graphs (graph_runs.cpp).
//
// A queue's processor describes a run of consecutive dispatch packets as a
// RunSignature: per packet the CUDA function, the launch shape and the
// parameter bytes cuLaunchKernel would copy. GraphRuns issues a run: the
// first time a signature is seen, one cuLaunchKernel per packet (as without
// it); the second time, the launches are captured into a graph, instantiated
// and launched; from then on one cuGraphLaunch issues the run. A graph holds
// the parameters by value, so a run matches only when every byte of every
// launch matches: what the graph runs is exactly what the launches would.
//
// Thread-safety: one GraphRuns per queue, used by its processor thread only;
// the caller makes the queue's context current.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_driver.h"

namespace hsa_cuda {

// One launch of a run: cuLaunchKernel's arguments but the stream and the
// parameter bytes, which follow it in the signature.
struct LaunchRecord {
  CUfunction function;
  uint32_t blocks[3];
  uint32_t block[3];
  uint32_t shared;  // dynamic shared memory, bytes
  uint32_t size;    // parameter bytes that follow, padded to 8
};

class RunSignature {
 public:
  void clear() {
    bytes_.clear();
    count_ = 0;
  }
  void add(const LaunchRecord& record, const void* params);
  size_t count() const { return count_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  uint64_t hash() const;

 private:
  std::vector<uint8_t> bytes_;  // LaunchRecord, parameters, LaunchRecord, ...
  size_t count_ = 0;
};

// cuLaunchKernel for each launch of `run` on `stream`.
CUresult launch_each(CUstream stream, const RunSignature& run);

class GraphRuns {
 public:
  GraphRuns() = default;
  GraphRuns(const GraphRuns&) = delete;
  GraphRuns& operator=(const GraphRuns&) = delete;
  ~GraphRuns() { release(); }

  // Issues `run` on `stream` (see above). *as_graph: whether one graph
  // launch issued it.
  CUresult issue(CUstream stream, const RunSignature& run, bool* as_graph);
  // Destroys the graphs (the context current); the cache is empty after.
  void release();
  // Forgets the graphs without destroying them (a stream that may still run
  // one was abandoned); the cache is empty after.
  void abandon() { entries_.clear(); }

  uint64_t graph_launches = 0, captures = 0, first_sightings = 0;

 private:
  struct Entry {
    uint64_t hash = 0;
    std::vector<uint8_t> bytes;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    bool failed = false;  // capture or instantiation failed: launched one by one
    uint64_t last_use = 0;
  };
  Entry* find(uint64_t hash, const std::vector<uint8_t>& bytes);
  Entry* make_room();
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

}  // namespace hsa_cuda
