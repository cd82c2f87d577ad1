#!/usr/bin/env bash
# One entry point for setting up, building and running xgpu.
#   ./build.sh samples        install what is missing, build the samples (only), run them
#   ./build.sh test [--asan] [--tsan]
#                             install what is missing, build, run every test
#                             (--asan: also the ASan+UBSan build's tests;
#                             --tsan: also the hsa-cpu, ICD and loader suites
#                             of the ThreadSanitizer build)
#   ./build.sh bench          install what is missing (and the benchmark peers), build, run every benchmark
#                             beside its peers: one table, and bench/results/<date>.json (bench/run.py)
#   ./build.sh gpu-test       build with PTX for NVIDIA (build/gpu) and run the hsa-cuda tests, the ICD
#                             suite (each case alone) and the samples on the machine's CUDA devices (they
#                             skip without one)
#   ./build.sh gpu-bench      the same build, then xgpu through hsa-cuda beside the CUDA driver API on the
#                             machine's CUDA device (bench/cuda/gpu_bench.sh)
#   ./build.sh fuzz-kernels [N] [SEED]
#                             build, then run N random kernels (default 200) through the CPU kernel compiler's
#                             differential fuzzer (tests/fuzz-kernels): work-item loops, fibers and a build
#                             without the pass plugin must agree; a random seed is printed unless given
#   ./build.sh fuzz-executables [N] [SEED]
#                             build, then load N corrupted copies of the project's own executables in a row
#                             (default 10000) through xgpuCreateExecutable on hsa-cpu (tests/executables): each is
#                             rejected with a clear error or loads without harm; a random seed is printed unless given
#   ./build.sh setup          only install the Debian packages
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  clang-19 lld-19 llvm-19 llvm-19-dev llvm-19-tools libclang-rt-19-dev cmake ninja-build python3 pkg-config
  libhsa-runtime-dev doctest-dev nlohmann-json3-dev libboost-context-dev libmsgpack-cxx-dev nettle-dev libdw-dev
)

# Peers the benchmarks measure beside xgpu (not needed for building or testing).
bench_packages=(mesa-vulkan-drivers libvulkan-dev glslang-tools pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers
  libomp-19-dev)

setup() {
  local missing=()
  for p in "${packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# build <preset> [target...]: everything, or only the targets named.
build() {
  local preset=$1
  shift
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$(nproc)" ${1:+--target "$@"}
}

cmd=${1:-samples}
case "$cmd" in
  setup) setup ;;
  samples)
    setup
    build default xgpu_samples   # the samples and the driver they run on; `test` builds the rest
    bin=build/default/bin
    ran=0
    for sample in indirect_dispatch alloca debugging multi_device; do
      if [ -x "$bin/$sample" ]; then
        echo "== $sample"
        "$bin/$sample"
        ran=1
      fi
    done
    # Until the samples exist: show the instance's physical devices.
    if [ "$ran" = 0 ]; then "$bin/xgpuinfo"; fi
    ;;
  test)
    setup
    for flag in "${@:2}"; do
      case "$flag" in
        --asan)
          build asan
          ctest --preset asan -j "$(nproc)"
          ;;
        --tsan)
          build tsan
          ctest --preset tsan -j "$(nproc)"   # the preset selects hsa-cpu.*, icd.*, loader.*
          ;;
        *) echo "usage: $0 test [--asan] [--tsan]" >&2; exit 2 ;;
      esac
    done
    build default
    ctest --preset default -j "$(nproc)"
    ;;
  bench)
    setup "${bench_packages[@]}"
    build default
    python3 bench/run.py --build build/default
    ;;
  gpu-test)
    # The kernels also as PTX (sm_90), the runtime hsa-cuda; needs the NVIDIA
    # driver (libcuda.so.1) at run time only.
    setup
    cmake --preset default -B build/gpu -DXGPU_NVPTX_TARGETS="${XGPU_NVPTX_TARGETS:-sm_90}" >/dev/null
    cmake --build build/gpu -j "$(nproc)" --target hsa_cuda_tests xgpuinfo indirect_dispatch alloca debugging \
      multi_device xgpu_icd_tests
    ctest --test-dir build/gpu -L gpu --output-on-failure
    export XGPU_HSA_LIBRARY="$PWD/build/gpu/lib/libxgpu-hsa-cuda.so"
    export XGPU_DRIVER_FILES="$PWD/build/gpu/share/xgpu/icd.d/xgpu_amdgpu.json"
    build/gpu/bin/xgpuinfo
    # The ICD suite on the GPUs, every case in a process of its own.
    bash tests/icd/each_case_alone.sh build/gpu/bin/xgpu_icd_tests
    for sample in indirect_dispatch alloca "debugging print" "debugging fault" multi_device; do  # CUDA cannot stop a hung kernel: no hang part
      echo "== $sample"
      (cd build/gpu/bin && ./$sample)
    done
    ;;
  gpu-bench)
    setup
    cmake --preset default -B build/gpu -DXGPU_NVPTX_TARGETS="${XGPU_NVPTX_TARGETS:-sm_90}" >/dev/null
    cmake --build build/gpu -j "$(nproc)" --target xgpu-hsa-cuda cuda_bench xgpu_device_saxpy recording_bench \
      cross_queue_bench saxpy_bench debugging_bench
    bench/cuda/gpu_bench.sh build/gpu
    ;;
  fuzz-kernels)
    setup
    build default fuzz_kernels_runner xgpu-wiloop xgpu-kernels
    nice python3 tests/fuzz-kernels/fuzz.py --build build/default --count "${2:-200}" ${3:+--seed "$3"}
    ;;
  fuzz-executables)
    # N corrupted copies of the project's own executables in a row through
    # xgpuCreateExecutable on hsa-cpu (tests/executables/README.md); each
    # must be rejected cleanly or load without harm. Failures are saved
    # under build/default/tests/executables/fuzz-out/run.
    setup
    build default xgpu_tests_executables
    b=build/default
    seeds=$(ls "$b"/tests/executables/*.xgpux "$b"/bin/*.xgpux "$b"/icd/amdgpu/device/*.xgpux | paste -sd, -)
    seed=${3:-$(date +%s)}
    echo "== fuzz-executables: ${2:-10000} inputs, seed $seed"
    XGPU_DRIVER_FILES="$PWD/$b/share/xgpu/icd.d/xgpu_amdgpu.json" XGPU_HSA_LIBRARY="$PWD/$b/lib/libxgpu-hsa-cpu.so" \
      HSA_CPU_AGENTS=1 "$b/bin/xgpu_executable_fuzz" run --seeds "$seeds" --count "${2:-10000}" --seed "$seed" \
      --out "$b/tests/executables/fuzz-out/run"
    ;;
  *) echo "usage: $0 samples | test [--asan] [--tsan] | bench | gpu-test | gpu-bench | fuzz-kernels [N] [SEED] | fuzz-executables [N] [SEED] | setup" >&2
     exit 2 ;;
esac
