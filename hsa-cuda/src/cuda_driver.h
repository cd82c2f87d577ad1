// The part of the CUDA driver API (libcuda.so.1) hsa-cuda uses, declared from
// NVIDIA's documented, stable driver ABI so that the build needs no CUDA SDK.
// Entry points are looked up with dlsym under their versioned ABI names
// (cuMemAlloc_v2, ...), which is what the SDK's header maps the plain names to.
//
// Thread-safety: CudaDriver is filled once by cuda_driver_load() and read-only
// afterwards; the functions themselves are thread-safe (CUDA's rules).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;
}

namespace hsa_cuda {

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_ILLEGAL_INSTRUCTION = 715;
constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;

// CUdevice_attribute
enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// CUfunction_attribute
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// CUjit_option (cuModuleLoadDataEx)
enum : int {
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x01;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x02;
constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 0x01;
constexpr unsigned CU_MEMHOSTREGISTER_DEVICEMAP = 0x02;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;  // timing enabled
constexpr unsigned CU_STREAM_WAIT_VALUE_GEQ = 0x0;
constexpr unsigned CU_STREAM_WAIT_VALUE_EQ = 0x1;
constexpr unsigned CU_STREAM_WRITE_VALUE_DEFAULT = 0x0;
// CUstreamCaptureMode: other threads' CUDA calls are not checked against
// the capture (the queues' processors and the host keep calling CUDA).
constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;

// cuLaunchKernel's `extra` keys.
inline void* const CU_LAUNCH_PARAM_END = reinterpret_cast<void*>(0x00);
inline void* const CU_LAUNCH_PARAM_BUFFER_POINTER = reinterpret_cast<void*>(0x01);
inline void* const CU_LAUNCH_PARAM_BUFFER_SIZE = reinterpret_cast<void*>(0x02);

#define HSA_CUDA_DRIVER_FUNCTIONS(X)                                                          \
  X(cuInit, "cuInit", CUresult, (unsigned))                                                   \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int*))                               \
  X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char**))                     \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char**))                 \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int*))                                   \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice*, int))                                   \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char*, int, CUdevice))                     \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int*, int, CUdevice))            \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t*, CUdevice))                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext*, CUdevice))   \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice))          \
  X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", CUresult, (CUdevice))              \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                                \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, (void))                                   \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr*, size_t))                            \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                                       \
  X(cuMemHostAlloc, "cuMemHostAlloc", CUresult, (void**, size_t, unsigned))                   \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void*))                                        \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", CUresult,                      \
    (CUdeviceptr*, void*, unsigned))                                                          \
  X(cuMemHostRegister, "cuMemHostRegister_v2", CUresult, (void*, size_t, unsigned))           \
  X(cuMemHostUnregister, "cuMemHostUnregister", CUresult, (void*))                            \
  X(cuMemcpy, "cuMemcpy", CUresult, (CUdeviceptr, CUdeviceptr, size_t))                       \
  X(cuMemsetD32, "cuMemsetD32_v2", CUresult, (CUdeviceptr, unsigned, size_t))                 \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUresult,                                       \
    (CUmodule*, const void*, unsigned, int*, void**))                                         \
  X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                                   \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction*, CUmodule, const char*)) \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", CUresult, (CUdeviceptr*, size_t*, CUmodule, const char*)) \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", CUresult, (int*, int, CUfunction))              \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, int, int))               \
  X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                               \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,        \
     CUstream, void**, void**))                                                               \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream*, unsigned))                        \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))                              \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                         \
  X(cuStreamQuery, "cuStreamQuery", CUresult, (CUstream))                                     \
  X(cuStreamWriteValue64, "cuStreamWriteValue64_v2", CUresult,                                \
    (CUstream, CUdeviceptr, uint64_t, unsigned))                                              \
  X(cuStreamWaitValue64, "cuStreamWaitValue64_v2", CUresult,                                  \
    (CUstream, CUdeviceptr, uint64_t, unsigned))                                              \
  X(cuLaunchHostFunc, "cuLaunchHostFunc", CUresult, (CUstream, void (*)(void*), void*))          \
  X(cuEventCreate, "cuEventCreate", CUresult, (CUevent*, unsigned))                           \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                                 \
  X(cuEventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))                            \
  X(cuEventQuery, "cuEventQuery", CUresult, (CUevent))                                        \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent))                            \
  X(cuEventElapsedTime, "cuEventElapsedTime", CUresult, (float*, CUevent, CUevent))         \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", CUresult, (CUstream, int))               \
  X(cuStreamEndCapture, "cuStreamEndCapture", CUresult, (CUstream, CUgraph*))                 \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", CUresult,                     \
    (CUgraphExec*, CUgraph, unsigned long long))                                              \
  X(cuGraphLaunch, "cuGraphLaunch", CUresult, (CUgraphExec, CUstream))                        \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", CUresult, (CUgraphExec))                        \
  X(cuGraphDestroy, "cuGraphDestroy", CUresult, (CUgraph))

struct CudaDriver {
#define HSA_CUDA_MEMBER(member, symbol, ret, params) ret(*member) params = nullptr;
  HSA_CUDA_DRIVER_FUNCTIONS(HSA_CUDA_MEMBER)
#undef HSA_CUDA_MEMBER
  void* library = nullptr;
};

// dlopens libcuda.so.1 (or $HSA_CUDA_LIBRARY) and resolves every entry point.
// False with *out_error set when the library or an entry point is missing.
bool cuda_driver_load(CudaDriver* driver, const char** out_error);

}  // namespace hsa_cuda
