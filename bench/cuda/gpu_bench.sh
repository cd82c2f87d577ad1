#!/bin/bash
# xgpu on hsa-cuda beside the CUDA driver API, one after the other on the
# machine's first CUDA device: cuda_bench (the peer), then xgpu's recording,
# cross_queue, saxpy and debugging benchmarks through the unchanged AMDGPU
# driver and hsa-cuda, then recording_bench once more with HSA_CUDA_STATS=1 (what the
# queue's packet processor spends per packet; not a timed figure).
#
#   bench/cuda/gpu_bench.sh [BUILD_DIR]     (default build/gpu: ./build.sh gpu-bench builds it)
#
# Prints JSON lines (bench/README.md's format) and the statistics lines.
set -uo pipefail
build=$(cd "${1:-build/gpu}" && pwd)
bin=$build/bin
export XGPU_HSA_LIBRARY=$build/lib/libxgpu-hsa-cuda.so
export XGPU_DRIVER_FILES=$build/share/xgpu/icd.d/xgpu_amdgpu.json
export VK_ICD_FILENAMES=/nonexistent OCL_ICD_VENDORS=/nonexistent  # no CPU peers here: the peer is CUDA
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
run() {
  echo "== $*"
  (cd "$bin" && "$@") || { echo "FAILED ($?): $*"; status=1; }
}
run ./cuda_bench --json
run ./recording_bench --json
run ./cross_queue_bench --json
run ./saxpy_bench --json
run ./xgpu_device_saxpy --json
# Kernel printf beside cuda_bench's printf figure; CUDA cannot recover a
# faulted context, so the fault report is timed over few devices.
run ./debugging_bench --json --fault-repeats 3
echo "== HSA_CUDA_STATS=1 recording_bench --repeats 9 --curve-max 1000 (per-packet cost of the processor)"
(cd "$bin" && HSA_CUDA_STATS=1 ./recording_bench --repeats 9 --curve-max 1000 > /dev/null) || status=1
exit $status
