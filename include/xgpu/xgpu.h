/*
 * xgpu.h: the xgpu C API (C99).
 *
 * Thread-safety: spec/api.md, section 1 ("Thread safety"), states the rules
 * and each command's section names what must be externally synchronized.
 *
 * Generated from spec/xgpu.json by spec/generate.py. Do not edit: change the
 * registry (or the generator) and run `python3 spec/generate.py`.
 */


#ifndef XGPU_H_
#define XGPU_H_ 1

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calling-convention decoration of every entry point (empty on Linux). */
#ifndef XGPU_API_ATTR
#define XGPU_API_ATTR
#endif
#ifndef XGPU_API_CALL
#define XGPU_API_CALL
#endif
#ifndef XGPU_API_PTR
#define XGPU_API_PTR XGPU_API_CALL
#endif

/* Versions: variant (3 bits), major (7), minor (10), patch (12). */
#define XGPU_MAKE_API_VERSION(variant, major, minor, patch) \
    ((((uint32_t)(variant)) << 29U) | (((uint32_t)(major)) << 22U) | \
     (((uint32_t)(minor)) << 12U) | ((uint32_t)(patch)))
#define XGPU_API_VERSION_VARIANT(version) ((uint32_t)(version) >> 29U)
#define XGPU_API_VERSION_MAJOR(version) (((uint32_t)(version) >> 22U) & 0x7FU)
#define XGPU_API_VERSION_MINOR(version) (((uint32_t)(version) >> 12U) & 0x3FFU)
#define XGPU_API_VERSION_PATCH(version) ((uint32_t)(version) & 0xFFFU)

/* Handles. Dispatchable handles point at objects whose first word is the
 * loader's dispatch table; non-dispatchable handles are opaque pointers
 * (xgpu targets 64-bit platforms only). */
#define XGPU_DEFINE_HANDLE(object) typedef struct object##_T* object;
#define XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(object) typedef struct object##_T* object;
#define XGPU_NULL_HANDLE 0

#define XGPU_API_VERSION_1_0 XGPU_MAKE_API_VERSION(0, 1, 0, 0)
#define XGPU_HEADER_VERSION 1
#define XGPU_HEADER_VERSION_COMPLETE XGPU_MAKE_API_VERSION(0, 1, 0, XGPU_HEADER_VERSION)

/* Constants. */
#define XGPU_TRUE 1U  /* XgpuBool32 true */
#define XGPU_FALSE 0U  /* XgpuBool32 false */
#define XGPU_WHOLE_SIZE (~0ULL)  /* the rest of the buffer from the given offset */
#define XGPU_INFINITE_TIMEOUT (~0ULL)  /* wait without a time limit */
#define XGPU_MAX_PHYSICAL_DEVICE_NAME_SIZE 256U  /* bytes of XgpuPhysicalDeviceProperties::deviceName */
#define XGPU_MAX_ISA_NAME_SIZE 64U  /* bytes of an HSA ISA name field */
#define XGPU_MAX_DRIVER_NAME_SIZE 64U  /* bytes of a driver name field */
#define XGPU_MAX_RUNTIME_NAME_SIZE 256U  /* bytes of the runtime description field */
#define XGPU_MAX_LAYER_NAME_SIZE 256U  /* bytes of a layer name field */
#define XGPU_MAX_DESCRIPTION_SIZE 256U  /* bytes of a description field */
#define XGPU_MAX_MEMORY_TYPES 32U  /* memory types a physical device can report */
#define XGPU_MAX_MEMORY_HEAPS 16U  /* memory heaps a physical device can report */
#define XGPU_MAX_PIPELINE_BINDINGS 64U  /* entries of XgpuPipelineProperties::bindingAccess: the most bindings a kernel's access can be described for */
#define XGPU_MAX_UPDATE_BUFFER_SIZE 65536U  /* largest dataSize of xgpuCmdUpdateBuffer, bytes */
#define XGPU_MAX_FAULT_NAME_SIZE 256U  /* bytes of a name field of XgpuDeviceFaultInfo */
#define XGPU_MAX_FAULT_PATH_SIZE 512U  /* bytes of the sourceFile and labels fields of XgpuDeviceFaultInfo */
#define XGPU_MAX_FAULT_DESCRIPTION_SIZE 4096U  /* bytes of XgpuDeviceFaultInfo::description */
#define XGPU_MIN_PRINT_BUFFER_SIZE 4096ULL  /* smallest non-zero XgpuDeviceCreateInfo::printBufferSize, bytes */
#define XGPU_MAX_PRINT_BUFFER_SIZE (1ULL << 30)  /* largest XgpuDeviceCreateInfo::printBufferSize, bytes */

/* Base types. */
typedef uint32_t XgpuBool32;  /* XGPU_TRUE or XGPU_FALSE */
typedef uint32_t XgpuFlags;  /* a set of bits of one *FlagBits enum */
typedef uint64_t XgpuDeviceSize;  /* a size or offset in device memory, bytes */
typedef uint64_t XgpuDeviceAddress;  /* an address in the device's address space */

/* Handles. */
XGPU_DEFINE_HANDLE(XgpuInstance)
XGPU_DEFINE_HANDLE(XgpuPhysicalDevice)
XGPU_DEFINE_HANDLE(XgpuDevice)
XGPU_DEFINE_HANDLE(XgpuQueue)
XGPU_DEFINE_HANDLE(XgpuCommandBuffer)
XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(XgpuBuffer)
XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(XgpuMemoryPool)
XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(XgpuSemaphore)
XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(XgpuExecutable)
XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(XgpuPipeline)
XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(XgpuDebugMessenger)

/* Enumerations. */
/* Return codes. Non-negative: success (with a qualifier); negative: an error. */
typedef enum XgpuResult {
    XGPU_SUCCESS = 0,                          /* the command completed */
    XGPU_NOT_READY = 1,                        /* a query or non-blocking wait found the work not finished */
    XGPU_TIMEOUT = 2,                          /* a wait reached its timeout before the condition held */
    XGPU_INCOMPLETE = 5,                       /* an enumeration returned fewer items than exist */
    XGPU_ERROR_OUT_OF_HOST_MEMORY = -1,        /* a host allocation failed */
    XGPU_ERROR_OUT_OF_DEVICE_MEMORY = -2,      /* a device allocation failed or a memory pool reached its limit */
    XGPU_ERROR_INITIALIZATION_FAILED = -3,     /* an object could not be initialized (the debug messenger says why) */
    XGPU_ERROR_DEVICE_LOST = -4,               /* the device or one of its queues failed; the device accepts no more work */
    XGPU_ERROR_MEMORY_MAP_FAILED = -5,         /* the buffer's memory is not host-visible */
    XGPU_ERROR_LAYER_NOT_PRESENT = -6,         /* a requested layer was not found */
    XGPU_ERROR_EXTENSION_NOT_PRESENT = -7,     /* a requested extension is not supported */
    XGPU_ERROR_FEATURE_NOT_PRESENT = -8,       /* a requested feature is not supported */
    XGPU_ERROR_INCOMPATIBLE_DRIVER = -9,       /* no driver supports the requested API version or the driver refused negotiation */
    XGPU_ERROR_TOO_MANY_OBJECTS = -10,         /* a fixed capacity was exceeded */
    XGPU_ERROR_INVALID_ARGUMENT = -11,         /* a parameter was invalid; the debug messenger names it */
    XGPU_ERROR_INVALID_EXECUTABLE = -12,       /* an executable file is truncated or malformed */
    XGPU_ERROR_INCOMPATIBLE_EXECUTABLE = -13,  /* an executable holds no code object for the device's ISA */
    XGPU_ERROR_NOT_FOUND = -14,                /* a named entry point does not exist */
    XGPU_ERROR_INVALID_USAGE = -15,            /* an object was used in a state that does not allow it */
    XGPU_ERROR_SEMAPHORE_FAILED = -16,         /* a semaphore was failed explicitly by xgpuFailSemaphore without a more specific code */
    XGPU_ERROR_UNKNOWN = -17,                  /* an error that fits no other code */
    XGPU_ERROR_KERNEL_ASSERT = -18,            /* a kernel's xgpu_assert failed in the submission that would have signalled the semaphore */
    XGPU_RESULT_MAX_ENUM = 0x7FFFFFFF
} XgpuResult;

/* Identifies the type of each extensible structure (sType). */
typedef enum XgpuStructureType {
    XGPU_STRUCTURE_TYPE_APPLICATION_INFO = 0,
    XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO = 1,
    XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO = 2,
    XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO = 3,
    XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO = 4,
    XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO = 5,
    XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO = 6,
    XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO = 7,
    XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO = 8,
    XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO = 9,
    XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO = 10,
    XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO = 11,
    XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO = 12,
    XGPU_STRUCTURE_TYPE_SUBMIT_INFO = 13,
    XGPU_STRUCTURE_TYPE_MEMORY_BARRIER = 14,
    XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER = 15,
    XGPU_STRUCTURE_TYPE_DEBUG_LABEL = 16,
    XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA = 17,
    XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO = 18,
    XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO = 19,
    XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS = 20,            /* settings of the validation layer on XgpuInstanceCreateInfo::pNext */
    XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO = 1000,  /* layer chain link on XgpuInstanceCreateInfo::pNext (xgpu_layer.h) */
    XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO = 1001,    /* layer chain link on XgpuDeviceCreateInfo::pNext (xgpu_layer.h) */
    XGPU_STRUCTURE_TYPE_MAX_ENUM = 0x7FFFFFFF
} XgpuStructureType;

/* Object types, for debug names and messages. */
typedef enum XgpuObjectType {
    XGPU_OBJECT_TYPE_UNKNOWN = 0,           /* not an xgpu object */
    XGPU_OBJECT_TYPE_INSTANCE = 1,          /* XgpuInstance */
    XGPU_OBJECT_TYPE_PHYSICAL_DEVICE = 2,   /* XgpuPhysicalDevice */
    XGPU_OBJECT_TYPE_DEVICE = 3,            /* XgpuDevice */
    XGPU_OBJECT_TYPE_QUEUE = 4,             /* XgpuQueue */
    XGPU_OBJECT_TYPE_COMMAND_BUFFER = 5,    /* XgpuCommandBuffer */
    XGPU_OBJECT_TYPE_BUFFER = 6,            /* XgpuBuffer */
    XGPU_OBJECT_TYPE_MEMORY_POOL = 7,       /* XgpuMemoryPool */
    XGPU_OBJECT_TYPE_SEMAPHORE = 8,         /* XgpuSemaphore */
    XGPU_OBJECT_TYPE_EXECUTABLE = 9,        /* XgpuExecutable */
    XGPU_OBJECT_TYPE_PIPELINE = 10,         /* XgpuPipeline */
    XGPU_OBJECT_TYPE_DEBUG_MESSENGER = 11,  /* XgpuDebugMessenger */
    XGPU_OBJECT_TYPE_MAX_ENUM = 0x7FFFFFFF
} XgpuObjectType;

/* What kind of processor a physical device is. */
typedef enum XgpuPhysicalDeviceType {
    XGPU_PHYSICAL_DEVICE_TYPE_OTHER = 0,             /* none of the below */
    XGPU_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU = 1,    /* a GPU sharing memory with the host */
    XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU = 2,      /* a GPU with its own memory */
    XGPU_PHYSICAL_DEVICE_TYPE_CPU = 3,               /* host CPU cores (hsa-cpu) */
    XGPU_PHYSICAL_DEVICE_TYPE_MAX_ENUM = 0x7FFFFFFF
} XgpuPhysicalDeviceType;

/* How often a recorded command buffer may be submitted. */
typedef enum XgpuCommandBufferMode {
    XGPU_COMMAND_BUFFER_MODE_ONE_SHOT = 0,          /* submitted exactly once, then only destroyed or re-begun */
    XGPU_COMMAND_BUFFER_MODE_REUSABLE = 1,          /* submitted any number of times, also concurrently from several queues */
    XGPU_COMMAND_BUFFER_MODE_MAX_ENUM = 0x7FFFFFFF
} XgpuCommandBufferMode;

/* What an XgpuBufferRef names. Zero is a buffer, so a zero-initialized reference names no buffer (and is refused) instead of a slot. */
typedef enum XgpuBufferRefKind {
    XGPU_BUFFER_REF_KIND_BUFFER = 0,            /* XgpuBufferRef::buffer, a concrete (or queue-allocated) buffer */
    XGPU_BUFFER_REF_KIND_BINDING_SLOT = 1,      /* XgpuBufferRef::bindingSlot of the binding table each submission provides */
    XGPU_BUFFER_REF_KIND_MAX_ENUM = 0x7FFFFFFF
} XgpuBufferRefKind;

/* What the validation layer does after delivering an error message. */
typedef enum XgpuValidationErrorAction {
    XGPU_VALIDATION_ERROR_ACTION_CONTINUE = 0,          /* nothing: the call fails and the program goes on */
    XGPU_VALIDATION_ERROR_ACTION_BREAK = 1,             /* raise(SIGTRAP): a debugger stops at the call */
    XGPU_VALIDATION_ERROR_ACTION_ABORT = 2,             /* abort() the process */
    XGPU_VALIDATION_ERROR_ACTION_MAX_ENUM = 0x7FFFFFFF
} XgpuValidationErrorAction;

/* What lost a device (XgpuDeviceFaultInfo::kind). */
typedef enum XgpuDeviceFaultKind {
    XGPU_DEVICE_FAULT_KIND_NONE = 0,              /* the device is not lost */
    XGPU_DEVICE_FAULT_KIND_MEMORY = 1,            /* a kernel accessed memory it may not (a memory fault) */
    XGPU_DEVICE_FAULT_KIND_HANG = 2,              /* the watchdog found a command running longer than its timeout */
    XGPU_DEVICE_FAULT_KIND_KERNEL = 3,            /* a kernel failed another way (illegal instruction, arithmetic exception) */
    XGPU_DEVICE_FAULT_KIND_QUEUE = 4,             /* a queue failed otherwise (a rejected packet, a limit error) */
    XGPU_DEVICE_FAULT_KIND_OTHER = 5,             /* the device was lost another way (completions could not be observed) */
    XGPU_DEVICE_FAULT_KIND_MAX_ENUM = 0x7FFFFFFF
} XgpuDeviceFaultKind;

/* How a faulting kernel accessed the address, where the runtime knows it. */
typedef enum XgpuDeviceFaultAccess {
    XGPU_DEVICE_FAULT_ACCESS_UNKNOWN = 0,           /* the runtime does not say */
    XGPU_DEVICE_FAULT_ACCESS_READ = 1,              /* a load */
    XGPU_DEVICE_FAULT_ACCESS_WRITE = 2,             /* a store (or an atomic) */
    XGPU_DEVICE_FAULT_ACCESS_EXECUTE = 3,           /* an instruction fetch */
    XGPU_DEVICE_FAULT_ACCESS_MAX_ENUM = 0x7FFFFFFF
} XgpuDeviceFaultAccess;

/* Where a fault address falls among the device's allocations. */
typedef enum XgpuDeviceFaultAddressRelation {
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_UNKNOWN = 0,           /* no address is known */
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_INSIDE = 1,            /* inside a live buffer: bufferOffset is the offset */
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END = 2,          /* after the nearest live buffer: bufferOffset bytes past its end */
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_BEFORE_START = 3,      /* before the nearest live buffer: bufferOffset bytes before its start */
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_FREED = 4,             /* inside a buffer or queue allocation freed before: bufferOffset is the offset */
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE = 5,              /* in no allocation of the device, none near it */
    XGPU_DEVICE_FAULT_ADDRESS_RELATION_MAX_ENUM = 0x7FFFFFFF
} XgpuDeviceFaultAddressRelation;

/* Flags. */
typedef XgpuFlags XgpuInstanceCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuDeviceCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuBufferCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuMemoryPoolCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuSemaphoreCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuExecutableCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuPipelineCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuCommandBufferCreateFlags;  /* reserved, must be 0 */

typedef XgpuFlags XgpuDebugMessengerCreateFlags;  /* reserved, must be 0 */

typedef enum XgpuMemoryHeapFlagBits {
    XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT = 0x1,          /* the heap is the device's own memory */
    XGPU_MEMORY_HEAP_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuMemoryHeapFlagBits;
typedef XgpuFlags XgpuMemoryHeapFlags;

typedef enum XgpuMemoryPropertyFlagBits {
    XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT = 0x1,          /* fastest for the device */
    XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT = 0x2,          /* can be mapped with xgpuMapBuffer */
    XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT = 0x4,         /* host and device see each other's writes without flushes (fine-grained) */
    XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT = 0x8,           /* host accesses are cached */
    XGPU_MEMORY_PROPERTY_KERNARG_BIT = 0x10,              /* the memory the device reads kernel arguments from */
    XGPU_MEMORY_PROPERTY_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuMemoryPropertyFlagBits;
typedef XgpuFlags XgpuMemoryPropertyFlags;

typedef enum XgpuQueueFlagBits {
    XGPU_QUEUE_COMPUTE_BIT = 0x1,               /* dispatches */
    XGPU_QUEUE_TRANSFER_BIT = 0x2,              /* fill, copy, update */
    XGPU_QUEUE_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuQueueFlagBits;
typedef XgpuFlags XgpuQueueFlags;

typedef enum XgpuBufferUsageFlagBits {
    XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT = 0x1,          /* source of copies */
    XGPU_BUFFER_USAGE_TRANSFER_DST_BIT = 0x2,          /* destination of fill, copy and update */
    XGPU_BUFFER_USAGE_STORAGE_BIT = 0x4,               /* bound to dispatches */
    XGPU_BUFFER_USAGE_INDIRECT_BIT = 0x8,              /* source of indirect dispatch parameters */
    XGPU_BUFFER_USAGE_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuBufferUsageFlagBits;
typedef XgpuFlags XgpuBufferUsageFlags;

typedef enum XgpuSemaphoreWaitFlagBits {
    XGPU_SEMAPHORE_WAIT_ANY_BIT = 0x1,                   /* return when any one semaphore reached its value (default: all) */
    XGPU_SEMAPHORE_WAIT_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuSemaphoreWaitFlagBits;
typedef XgpuFlags XgpuSemaphoreWaitFlags;

typedef enum XgpuDispatchIndirectFlagBits {
    XGPU_DISPATCH_INDIRECT_STATIC_BIT = 0x1,                /* the counts are final when the submission is issued */
    XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT = 0x2,               /* an earlier command of the same submission writes the counts */
    XGPU_DISPATCH_INDIRECT_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuDispatchIndirectFlagBits;
typedef XgpuFlags XgpuDispatchIndirectFlags;

typedef enum XgpuPipelineStageFlagBits {
    XGPU_PIPELINE_STAGE_INDIRECT_BIT = 0x1,              /* reading indirect dispatch parameters */
    XGPU_PIPELINE_STAGE_DISPATCH_BIT = 0x2,              /* kernel execution */
    XGPU_PIPELINE_STAGE_TRANSFER_BIT = 0x4,              /* fill, copy, update */
    XGPU_PIPELINE_STAGE_HOST_BIT = 0x8,                  /* host access to mapped memory */
    XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT = 0x10,         /* every command */
    XGPU_PIPELINE_STAGE_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuPipelineStageFlagBits;
typedef XgpuFlags XgpuPipelineStageFlags;

typedef enum XgpuAccessFlagBits {
    XGPU_ACCESS_INDIRECT_READ_BIT = 0x1,         /* indirect dispatch parameter reads */
    XGPU_ACCESS_SHADER_READ_BIT = 0x2,           /* kernel reads */
    XGPU_ACCESS_SHADER_WRITE_BIT = 0x4,          /* kernel writes */
    XGPU_ACCESS_TRANSFER_READ_BIT = 0x8,         /* copy source reads */
    XGPU_ACCESS_TRANSFER_WRITE_BIT = 0x10,       /* fill/copy/update writes */
    XGPU_ACCESS_HOST_READ_BIT = 0x20,            /* host reads of mapped memory */
    XGPU_ACCESS_HOST_WRITE_BIT = 0x40,           /* host writes of mapped memory */
    XGPU_ACCESS_MEMORY_READ_BIT = 0x80,          /* any read */
    XGPU_ACCESS_MEMORY_WRITE_BIT = 0x100,        /* any write */
    XGPU_ACCESS_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuAccessFlagBits;
typedef XgpuFlags XgpuAccessFlags;

typedef enum XgpuBindingAccessFlagBits {
    XGPU_BINDING_ACCESS_READ_BIT = 0x1,                  /* the kernel may load through the binding */
    XGPU_BINDING_ACCESS_WRITE_BIT = 0x2,                 /* it may store through it (also memset and memcpy destinations) */
    XGPU_BINDING_ACCESS_ATOMIC_BIT = 0x4,                /* it may access it with atomic operations */
    XGPU_BINDING_ACCESS_UNKNOWN_BIT = 0x8,               /* the toolchain could not follow every access (the pointer escapes, or the kernel was built without the pass plugin): any access; the three bits above are set too */
    XGPU_BINDING_ACCESS_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuBindingAccessFlagBits;
typedef XgpuFlags XgpuBindingAccessFlags;

typedef enum XgpuDebugMessageSeverityFlagBits {
    XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT = 0x1,               /* diagnostic detail */
    XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT = 0x10,                 /* informational */
    XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT = 0x100,             /* likely a mistake */
    XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT = 0x1000,              /* invalid usage or a failed operation */
    XGPU_DEBUG_MESSAGE_SEVERITY_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuDebugMessageSeverityFlagBits;
typedef XgpuFlags XgpuDebugMessageSeverityFlags;

typedef enum XgpuDebugMessageTypeFlagBits {
    XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT = 0x1,               /* not about API usage */
    XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT = 0x2,            /* a valid-usage rule was broken */
    XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT = 0x4,           /* a likely performance problem */
    XGPU_DEBUG_MESSAGE_TYPE_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} XgpuDebugMessageTypeFlagBits;
typedef XgpuFlags XgpuDebugMessageTypeFlags;

/* Function pointers supplied by the application. */
typedef struct XgpuDebugMessageData XgpuDebugMessageData;
typedef void (XGPU_API_PTR *PFN_xgpuVoidFunction)(void);
/* Allocates size bytes aligned to alignment; NULL on failure. */
typedef void* (XGPU_API_PTR *PFN_xgpuAllocationFunction)(void* pUserData, size_t size, size_t alignment);
/* Resizes pOriginal (which may be NULL) to size bytes, keeping alignment. */
typedef void* (XGPU_API_PTR *PFN_xgpuReallocationFunction)(void* pUserData, void* pOriginal, size_t size, size_t alignment);
/* Frees memory from the two functions above; pMemory may be NULL. */
typedef void (XGPU_API_PTR *PFN_xgpuFreeFunction)(void* pUserData, void* pMemory);
/* Receives a debug message. Must return XGPU_FALSE. */
typedef XgpuBool32 (XGPU_API_PTR *PFN_xgpuDebugMessengerCallback)(XgpuDebugMessageSeverityFlagBits messageSeverity, XgpuDebugMessageTypeFlags messageTypes, const XgpuDebugMessageData* pMessageData, void* pUserData);

/* Structures. */
/* Host memory allocation functions supplied by the application. */
typedef struct XgpuAllocationCallbacks {
    void* pUserData;                               /* passed to every function */
    PFN_xgpuAllocationFunction pfnAllocation;      /* allocates */
    PFN_xgpuReallocationFunction pfnReallocation;  /* reallocates */
    PFN_xgpuFreeFunction pfnFree;                  /* frees */
} XgpuAllocationCallbacks;

/* Describes the application to drivers and layers. */
typedef struct XgpuApplicationInfo {
    XgpuStructureType sType;       /* type of this structure: XGPU_STRUCTURE_TYPE_APPLICATION_INFO */
    const void* pNext;             /* NULL or an extension structure */
    const char* pApplicationName;  /* UTF-8 name or NULL */
    uint32_t applicationVersion;   /* application-defined version */
    const char* pEngineName;       /* UTF-8 name or NULL */
    uint32_t engineVersion;        /* engine-defined version */
    uint32_t apiVersion;           /* highest xgpu API version the application uses (XGPU_MAKE_API_VERSION) */
} XgpuApplicationInfo;

/* Parameters of xgpuCreateInstance. pNext may chain an XgpuDebugMessengerCreateInfo that receives messages during creation and destruction, and an XgpuValidationSettings. */
typedef struct XgpuInstanceCreateInfo {
    XgpuStructureType sType;                      /* type of this structure: XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO */
    const void* pNext;                            /* NULL or an extension structure */
    XgpuInstanceCreateFlags flags;                /* reserved, 0 */
    const XgpuApplicationInfo* pApplicationInfo;  /* NULL or the application's description */
    uint32_t enabledLayerCount;                   /* number of layer names */
    const char* const* ppEnabledLayerNames;       /* layers to enable, application side first */
} XgpuInstanceCreateInfo;

/* One layer the loader can enable. */
typedef struct XgpuLayerProperties {
    char layerName[XGPU_MAX_LAYER_NAME_SIZE];     /* UTF-8 name, e.g. XGPU_LAYER_validation */
    uint32_t specVersion;                         /* API version the layer was written for */
    uint32_t implementationVersion;               /* the layer's own version */
    char description[XGPU_MAX_DESCRIPTION_SIZE];  /* UTF-8 description */
} XgpuLayerProperties;

/* Limits of a physical device. */
typedef struct XgpuPhysicalDeviceLimits {
    uint32_t maxWorkgroupSize[3];             /* largest workgroup size per dimension, work items */
    uint32_t maxWorkgroupInvocations;         /* largest product of the workgroup size, work items */
    uint32_t maxWorkgroupCount[3];            /* largest workgroup count per dimension (with workgroups of one work item; see maxGridSize) */
    uint32_t maxGridSize[3];                  /* largest workgroup count x workgroup size per dimension, work items */
    uint32_t maxWorkgroupMemorySize;          /* largest static + dynamic workgroup memory, bytes */
    uint32_t maxPushConstantsSize;            /* largest constant block of a pipeline, bytes */
    uint32_t maxBindings;                     /* largest binding count of a pipeline */
    uint32_t maxBindingCapacity;              /* largest binding-table capacity of a command buffer */
    uint32_t wavefrontSize;                   /* work items executing in lockstep */
    uint32_t computeUnitCount;                /* compute units (worker threads on a CPU device) */
    uint32_t timestampValidBits;              /* meaningful bits of a timestamp */
    float timestampPeriod;                    /* nanoseconds per timestamp tick */
    XgpuDeviceSize maxBufferSize;             /* largest buffer, bytes */
    XgpuDeviceSize minBufferOffsetAlignment;  /* required alignment of binding offsets, bytes */
} XgpuPhysicalDeviceLimits;

/* Identity and limits of a physical device. */
typedef struct XgpuPhysicalDeviceProperties {
    uint32_t apiVersion;                                  /* highest API version the driver supports */
    uint32_t driverVersion;                               /* driver-defined version */
    uint32_t vendorId;                                    /* PCI vendor id, or 0 for a CPU device */
    uint32_t deviceId;                                    /* PCI device id or driver-defined */
    XgpuPhysicalDeviceType deviceType;                    /* kind of processor */
    char deviceName[XGPU_MAX_PHYSICAL_DEVICE_NAME_SIZE];  /* UTF-8 marketing or product name */
    char isaName[XGPU_MAX_ISA_NAME_SIZE];                 /* HSA ISA name the device runs, e.g. amdgcn-amd-amdhsa--gfx942 */
    char driverName[XGPU_MAX_DRIVER_NAME_SIZE];           /* name of the driver */
    char runtimeName[XGPU_MAX_RUNTIME_NAME_SIZE];         /* the runtime behind the device (e.g. the HSA library path and version) */
    XgpuPhysicalDeviceLimits limits;                      /* device limits */
} XgpuPhysicalDeviceProperties;

/* One memory type of a physical device. */
typedef struct XgpuMemoryType {
    XgpuMemoryPropertyFlags propertyFlags;  /* properties of the type */
    uint32_t heapIndex;                     /* heap the type allocates from */
} XgpuMemoryType;

/* One memory heap of a physical device. */
typedef struct XgpuMemoryHeap {
    XgpuDeviceSize size;        /* bytes */
    XgpuMemoryHeapFlags flags;  /* heap flags */
} XgpuMemoryHeap;

/* Memory types and heaps of a physical device. */
typedef struct XgpuPhysicalDeviceMemoryProperties {
    uint32_t memoryTypeCount;                           /* valid entries of memoryTypes */
    XgpuMemoryType memoryTypes[XGPU_MAX_MEMORY_TYPES];  /* memory types */
    uint32_t memoryHeapCount;                           /* valid entries of memoryHeaps */
    XgpuMemoryHeap memoryHeaps[XGPU_MAX_MEMORY_HEAPS];  /* memory heaps */
} XgpuPhysicalDeviceMemoryProperties;

/* One family of queues of a physical device. */
typedef struct XgpuQueueFamilyProperties {
    XgpuQueueFlags queueFlags;    /* what the queues can do */
    uint32_t queueCount;          /* queues a device can create in the family */
    uint32_t timestampValidBits;  /* meaningful bits of timestamps written on these queues */
} XgpuQueueFamilyProperties;

/* Queues to create with a device. */
typedef struct XgpuDeviceQueueCreateInfo {
    XgpuStructureType sType;    /* type of this structure: XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO */
    const void* pNext;          /* NULL or an extension structure */
    uint32_t queueFamilyIndex;  /* family index */
    uint32_t queueCount;        /* number of queues, at most the family's queueCount */
} XgpuDeviceQueueCreateInfo;

/* Parameters of xgpuCreateDevice. */
typedef struct XgpuDeviceCreateInfo {
    XgpuStructureType sType;                             /* type of this structure: XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO */
    const void* pNext;                                   /* NULL or an extension structure */
    XgpuDeviceCreateFlags flags;                         /* reserved, 0 */
    uint32_t queueCreateInfoCount;                       /* number of queue requests */
    const XgpuDeviceQueueCreateInfo* pQueueCreateInfos;  /* queue requests, one per family */
    XgpuDeviceSize printBufferSize;                      /* bytes for the xgpu_printf and xgpu_assert records of each submission that runs a printing kernel; 0 for the driver's default (1 MiB) */
} XgpuDeviceCreateInfo;

/* Parameters of xgpuCreateBuffer: a buffer and its memory in one. */
typedef struct XgpuBufferCreateInfo {
    XgpuStructureType sType;      /* type of this structure: XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO */
    const void* pNext;            /* NULL or an extension structure */
    XgpuBufferCreateFlags flags;  /* reserved, 0 */
    XgpuDeviceSize size;          /* bytes, > 0 */
    XgpuBufferUsageFlags usage;   /* how the buffer will be used */
    uint32_t memoryTypeIndex;     /* index into XgpuPhysicalDeviceMemoryProperties::memoryTypes */
} XgpuBufferCreateInfo;

/* Parameters of xgpuCreateMemoryPool, the source of queue-ordered allocations. */
typedef struct XgpuMemoryPoolCreateInfo {
    XgpuStructureType sType;          /* type of this structure: XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO */
    const void* pNext;                /* NULL or an extension structure */
    XgpuMemoryPoolCreateFlags flags;  /* reserved, 0 */
    uint32_t memoryTypeIndex;         /* memory type the pool's blocks come from */
    XgpuDeviceSize blockSize;         /* bytes per block reserved from the device; 0 for the driver's default */
    XgpuDeviceSize maxSize;           /* most bytes the pool may reserve; 0 for no limit */
    XgpuDeviceSize retainSize;        /* bytes a trim keeps reserved */
} XgpuMemoryPoolCreateInfo;

/* Usage of a memory pool. */
typedef struct XgpuMemoryPoolStatistics {
    XgpuDeviceSize reservedSize;      /* bytes reserved from the device now */
    XgpuDeviceSize inUseSize;         /* bytes of committed allocations now */
    XgpuDeviceSize peakReservedSize;  /* largest reservedSize seen */
    XgpuDeviceSize peakInUseSize;     /* largest inUseSize seen */
    uint64_t allocationCount;         /* allocas committed since creation */
    uint32_t blockCount;              /* blocks reserved now */
} XgpuMemoryPoolStatistics;

/* Parameters of xgpuCreateSemaphore (timeline semaphores only). */
typedef struct XgpuSemaphoreCreateInfo {
    XgpuStructureType sType;         /* type of this structure: XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO */
    const void* pNext;               /* NULL or an extension structure */
    XgpuSemaphoreCreateFlags flags;  /* reserved, 0 */
    uint64_t initialValue;           /* starting payload */
} XgpuSemaphoreCreateInfo;

/* What xgpuWaitSemaphores waits for. */
typedef struct XgpuSemaphoreWaitInfo {
    XgpuStructureType sType;           /* type of this structure: XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO */
    const void* pNext;                 /* NULL or an extension structure */
    XgpuSemaphoreWaitFlags flags;      /* XGPU_SEMAPHORE_WAIT_ANY_BIT or 0 (all) */
    uint32_t semaphoreCount;           /* number of semaphores */
    const XgpuSemaphore* pSemaphores;  /* semaphores */
    const uint64_t* pValues;           /* payload each must reach */
} XgpuSemaphoreWaitInfo;

/* A host signal. */
typedef struct XgpuSemaphoreSignalInfo {
    XgpuStructureType sType;  /* type of this structure: XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO */
    const void* pNext;        /* NULL or an extension structure */
    XgpuSemaphore semaphore;  /* semaphore to signal */
    uint64_t value;           /* new payload, greater than the current one */
} XgpuSemaphoreSignalInfo;

/* Semaphores with one payload each, for queue operations. */
typedef struct XgpuSemaphoreList {
    uint32_t count;                    /* number of entries */
    const XgpuSemaphore* pSemaphores;  /* semaphores */
    const uint64_t* pValues;           /* payloads */
} XgpuSemaphoreList;

/* An xgpu executable file (spec/executable-format.md), from memory or from a path. */
typedef struct XgpuExecutableCreateInfo {
    XgpuStructureType sType;          /* type of this structure: XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO */
    const void* pNext;                /* NULL or an extension structure */
    XgpuExecutableCreateFlags flags;  /* reserved, 0 */
    size_t codeSize;                  /* bytes at pCode; 0 when loading from pFilePath */
    const void* pCode;                /* the file's bytes, or NULL */
    const char* pFilePath;            /* path of the file when pCode is NULL */
} XgpuExecutableCreateInfo;

/* A kernel of an executable with its layout: bindingCount 8-byte pointers, then constantSize bytes of constants. bindingCount = constantSize = 0 takes the layout the kernel declares (XGPU_KERNEL_BINDINGS). */
typedef struct XgpuPipelineCreateInfo {
    XgpuStructureType sType;        /* type of this structure: XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO */
    const void* pNext;              /* NULL or an extension structure */
    XgpuPipelineCreateFlags flags;  /* reserved, 0 */
    XgpuExecutable executable;      /* executable holding the kernel */
    const char* pEntryPoint;        /* kernel name */
    uint32_t bindingCount;          /* buffer bindings, each an 8-byte device pointer at the start of the kernarg struct; 0 with constantSize 0: as the kernel declares */
    uint32_t constantSize;          /* bytes of constants after the bindings, a multiple of 4; 0 with bindingCount 0: as the kernel declares */
    uint32_t workgroupSize[3];      /* work items per workgroup per dimension; all 0 to use the kernel's required size */
} XgpuPipelineCreateInfo;

/* What lost a device: the first fault or hang, as the device-lost message reported it. */
typedef struct XgpuDeviceFaultInfo {
    XgpuDeviceFaultKind kind;                           /* what lost the device; NONE while it is not lost */
    uint32_t queueIndex;                                /* index of the queue that failed (family 0); UINT32_MAX when none */
    uint64_t submissionIndex;                           /* 1-based order of the failed operation among those accepted by its queue; 0 when unknown */
    uint64_t commandBufferHandle;                       /* the XgpuCommandBuffer it ran (as a number, like XgpuDebugObjectInfo::objectHandle; it may be destroyed since); 0 when none */
    char commandBufferName[XGPU_MAX_FAULT_NAME_SIZE];   /* its debug name, or empty */
    uint32_t commandIndex;                              /* index of the failed command in the recording; UINT32_MAX when unknown */
    char command[XGPU_MAX_FAULT_NAME_SIZE];             /* the API function that recorded it, e.g. xgpuCmdDispatch; empty when unknown */
    char labels[XGPU_MAX_FAULT_PATH_SIZE];              /* the debug labels open around the command, outermost first, e.g. 'frame' > 'physics'; empty when none */
    char kernelName[XGPU_MAX_FAULT_NAME_SIZE];          /* the kernel the command ran; empty when unknown */
    XgpuBool32 addressValid;                            /* XGPU_TRUE when the runtime reported the faulting address */
    XgpuDeviceAddress address;                          /* the faulting address */
    XgpuDeviceFaultAccess access;                       /* read, write or instruction fetch, where the runtime says */
    XgpuDeviceFaultAddressRelation addressRelation;     /* what the address falls in */
    uint64_t bufferHandle;                              /* the XgpuBuffer the address falls in or is nearest to (as a number); 0 when none */
    char bufferName[XGPU_MAX_FAULT_NAME_SIZE];          /* that buffer's debug name, or empty */
    XgpuDeviceSize bufferOffset;                        /* see addressRelation */
    XgpuDeviceSize bufferSize;                          /* that buffer's size, bytes */
    uint32_t workgroupId[3];                            /* the faulting workgroup; UINT32_MAX each when unknown */
    char sourceFile[XGPU_MAX_FAULT_PATH_SIZE];          /* the kernel source file of the faulting instruction; empty when the runtime cannot tell */
    uint32_t sourceLine;                                /* its line, 0 when unknown */
    uint32_t sourceColumn;                              /* its column, 0 when unknown */
    char function[XGPU_MAX_FAULT_NAME_SIZE];            /* the code object symbol of the faulting instruction; empty when unknown */
    uint64_t runTimeNs;                                 /* HANG: how long the command had run when the watchdog stopped it */
    char description[XGPU_MAX_FAULT_DESCRIPTION_SIZE];  /* the whole report, as the device-lost message said it (truncated to fit) */
} XgpuDeviceFaultInfo;

/* What a pipeline resolved to: its workgroup size, its layout and the kernel's resource needs. */
typedef struct XgpuPipelineProperties {
    uint32_t workgroupSize[3];                                         /* work items per workgroup per dimension */
    uint32_t bindingCount;                                             /* buffer bindings of the layout: as created, or as the kernel declares */
    uint32_t constantSize;                                             /* bytes of constants of the layout: as created, or as the kernel declares */
    uint32_t kernargSize;                                              /* bytes of the kernarg struct (8 * bindingCount + constantSize) */
    uint32_t staticWorkgroupMemorySize;                                /* workgroup memory the kernel declares, bytes; dynamic memory adds to it */
    uint32_t privateMemorySize;                                        /* private (scratch) memory per work item, bytes */
    uint32_t maxWorkgroupCount[3];                                     /* largest workgroup count per dimension of a dispatch of this pipeline: min(limits.maxWorkgroupCount, limits.maxGridSize / workgroupSize) */
    XgpuBindingAccessFlags bindingAccess[XGPU_MAX_PIPELINE_BINDINGS];  /* how the kernel's code accesses memory through binding i, as the toolchain derived it (0: not at all); entries from bindingCount on are 0 */
} XgpuPipelineProperties;

/* Parameters of xgpuCreateCommandBuffer. */
typedef struct XgpuCommandBufferCreateInfo {
    XgpuStructureType sType;             /* type of this structure: XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO */
    const void* pNext;                   /* NULL or an extension structure */
    XgpuCommandBufferCreateFlags flags;  /* reserved, 0 */
    uint32_t queueFamilyIndex;           /* family of the queues it will be submitted to */
} XgpuCommandBufferCreateInfo;

/* Parameters of xgpuBeginCommandBuffer. */
typedef struct XgpuCommandBufferBeginInfo {
    XgpuStructureType sType;     /* type of this structure: XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO */
    const void* pNext;           /* NULL or an extension structure */
    XgpuCommandBufferMode mode;  /* one-shot or reusable */
    uint32_t bindingCapacity;    /* binding-table slots the recording may reference; each submit provides at least this many */
} XgpuCommandBufferBeginInfo;

/* A fat buffer reference in a command: a concrete buffer (also one from xgpuQueueAlloca, resolved when its allocation commits), or a binding-table slot resolved at submit. */
typedef struct XgpuBufferRef {
    XgpuBufferRefKind kind;  /* a buffer (0) or a binding-table slot */
    uint32_t bindingSlot;    /* the slot when kind is XGPU_BUFFER_REF_KIND_BINDING_SLOT, else 0 */
    XgpuBuffer buffer;       /* the buffer when kind is XGPU_BUFFER_REF_KIND_BUFFER, else XGPU_NULL_HANDLE */
    XgpuDeviceSize offset;   /* bytes from the start of the buffer (or of the slot's range) */
    XgpuDeviceSize size;     /* bytes, or XGPU_WHOLE_SIZE */
} XgpuBufferRef;

/* One binding-table entry of a submission. */
typedef struct XgpuBufferBinding {
    XgpuBuffer buffer;      /* buffer bound to the slot */
    XgpuDeviceSize offset;  /* bytes from the start of the buffer */
    XgpuDeviceSize size;    /* bytes, or XGPU_WHOLE_SIZE */
} XgpuBufferBinding;

/* One submission: waits, a command buffer with its binding table, signals. */
typedef struct XgpuSubmitInfo {
    XgpuStructureType sType;             /* type of this structure: XGPU_STRUCTURE_TYPE_SUBMIT_INFO */
    const void* pNext;                   /* NULL or an extension structure */
    XgpuSemaphoreList waitSemaphores;    /* payloads to reach before the work starts */
    XgpuCommandBuffer commandBuffer;     /* recorded commands, or NULL for a wait/signal-only submission */
    uint32_t bindingCount;               /* entries in pBindings, at least the command buffer's bindingCapacity */
    const XgpuBufferBinding* pBindings;  /* the binding table */
    XgpuSemaphoreList signalSemaphores;  /* payloads set when the work completed */
} XgpuSubmitInfo;

/* A global memory dependency. */
typedef struct XgpuMemoryBarrier {
    XgpuStructureType sType;        /* type of this structure: XGPU_STRUCTURE_TYPE_MEMORY_BARRIER */
    const void* pNext;              /* NULL or an extension structure */
    XgpuAccessFlags srcAccessMask;  /* accesses before the barrier made visible */
    XgpuAccessFlags dstAccessMask;  /* accesses after the barrier that see them */
} XgpuMemoryBarrier;

/* A memory dependency on a buffer range. */
typedef struct XgpuBufferMemoryBarrier {
    XgpuStructureType sType;        /* type of this structure: XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER */
    const void* pNext;              /* NULL or an extension structure */
    XgpuAccessFlags srcAccessMask;  /* accesses before the barrier made visible */
    XgpuAccessFlags dstAccessMask;  /* accesses after the barrier that see them */
    XgpuBufferRef buffer;           /* the range */
} XgpuBufferMemoryBarrier;

/* A label in a command buffer. */
typedef struct XgpuDebugLabel {
    XgpuStructureType sType;  /* type of this structure: XGPU_STRUCTURE_TYPE_DEBUG_LABEL */
    const void* pNext;        /* NULL or an extension structure */
    const char* pLabelName;   /* UTF-8 label */
    float color[4];           /* RGBA, 0 when unused */
} XgpuDebugLabel;

/* An object a debug message is about. */
typedef struct XgpuDebugObjectInfo {
    XgpuObjectType objectType;  /* type of the object */
    uint64_t objectHandle;      /* the handle, cast to uint64_t */
    const char* pObjectName;    /* name set with xgpuSetObjectName, or NULL */
} XgpuDebugObjectInfo;

/* A debug message. */
struct XgpuDebugMessageData {
    XgpuStructureType sType;              /* type of this structure: XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA */
    const void* pNext;                    /* NULL or an extension structure */
    const char* pMessageIdName;           /* stable identifier, e.g. XGPU-VUID-xgpuCmdDispatch-pipeline */
    int32_t messageIdNumber;              /* stable numeric identifier (hash of the name), or 0 */
    const char* pMessage;                 /* UTF-8 text */
    uint32_t objectCount;                 /* entries in pObjects */
    const XgpuDebugObjectInfo* pObjects;  /* objects the message is about */
};

/* A callback that receives debug messages of the chosen severities and types. */
typedef struct XgpuDebugMessengerCreateInfo {
    XgpuStructureType sType;                         /* type of this structure: XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO */
    const void* pNext;                               /* NULL or an extension structure */
    XgpuDebugMessengerCreateFlags flags;             /* reserved, 0 */
    XgpuDebugMessageSeverityFlags messageSeverity;   /* severities to receive */
    XgpuDebugMessageTypeFlags messageType;           /* types to receive */
    PFN_xgpuDebugMessengerCallback pfnUserCallback;  /* the callback */
    void* pUserData;                                 /* passed to the callback */
} XgpuDebugMessengerCreateInfo;

/* A name for an object in debug messages. */
typedef struct XgpuDebugObjectNameInfo {
    XgpuStructureType sType;    /* type of this structure: XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO */
    const void* pNext;          /* NULL or an extension structure */
    XgpuObjectType objectType;  /* type of the object */
    uint64_t objectHandle;      /* the handle, cast to uint64_t */
    const char* pObjectName;    /* UTF-8 name, or NULL to remove it */
} XgpuDebugObjectNameInfo;

/* Settings of the validation layer, chained to XgpuInstanceCreateInfo::pNext; the loader and drivers pass over it. The XGPU_VALIDATION_* environment variables override what it sets (api.md 4). */
typedef struct XgpuValidationSettings {
    XgpuStructureType sType;                /* type of this structure: XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS */
    const void* pNext;                      /* NULL or an extension structure */
    uint32_t mutedMessageIdCount;           /* number of rule IDs in ppMutedMessageIds */
    const char* const* ppMutedMessageIds;   /* rule IDs (XGPU-VUID-...) neither reported nor enforced */
    uint32_t duplicateMessageLimit;         /* most messages per rule ID; 0 = no limit */
    XgpuValidationErrorAction errorAction;  /* what follows an error message */
    XgpuBool32 costlyChecks;                /* XGPU_TRUE: also the costly checks (object tracking at submit) */
    XgpuBool32 synchronizationHazards;      /* XGPU_TRUE: also the synchronization-hazard warnings (read/write logs of every recording) */
    XgpuBool32 gpuAssistedValidation;       /* XGPU_TRUE: pipelines run their kernels' bounds-checked copies, which report accesses outside a binding instead of making them */
} XgpuValidationSettings;

/* Inline helpers: plain C99 constructors of common values (no entry points). */
/* A reference to all of buffer. */
static inline XgpuBufferRef xgpuBufferRefWhole(XgpuBuffer buffer) {
    XgpuBufferRef ref;
    ref.kind = XGPU_BUFFER_REF_KIND_BUFFER;
    ref.bindingSlot = 0;
    ref.buffer = buffer;
    ref.offset = 0;
    ref.size = XGPU_WHOLE_SIZE;
    return ref;
}

/* A reference to size bytes (or XGPU_WHOLE_SIZE) of buffer from offset. */
static inline XgpuBufferRef xgpuBufferRefRange(XgpuBuffer buffer, XgpuDeviceSize offset, XgpuDeviceSize size) {
    XgpuBufferRef ref;
    ref.kind = XGPU_BUFFER_REF_KIND_BUFFER;
    ref.bindingSlot = 0;
    ref.buffer = buffer;
    ref.offset = offset;
    ref.size = size;
    return ref;
}

/* A reference to size bytes (or XGPU_WHOLE_SIZE) from offset of binding-table slot slot, resolved at each submission. */
static inline XgpuBufferRef xgpuBufferRefSlot(uint32_t slot, XgpuDeviceSize offset, XgpuDeviceSize size) {
    XgpuBufferRef ref;
    ref.kind = XGPU_BUFFER_REF_KIND_BINDING_SLOT;
    ref.bindingSlot = slot;
    ref.buffer = XGPU_NULL_HANDLE;
    ref.offset = offset;
    ref.size = size;
    return ref;
}

/* Entry-point types. */
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateInstance)(const XgpuInstanceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuInstance* pInstance);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuEnumerateInstanceVersion)(uint32_t* pApiVersion);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuEnumerateInstanceLayerProperties)(uint32_t* pPropertyCount, XgpuLayerProperties* pProperties);
typedef PFN_xgpuVoidFunction (XGPU_API_PTR *PFN_xgpuGetInstanceProcAddr)(XgpuInstance instance, const char* pName);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyInstance)(XgpuInstance instance, const XgpuAllocationCallbacks* pAllocator);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuEnumeratePhysicalDevices)(XgpuInstance instance, uint32_t* pPhysicalDeviceCount, XgpuPhysicalDevice* pPhysicalDevices);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateDebugMessenger)(XgpuInstance instance, const XgpuDebugMessengerCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuDebugMessenger* pMessenger);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyDebugMessenger)(XgpuInstance instance, XgpuDebugMessenger messenger, const XgpuAllocationCallbacks* pAllocator);
typedef void (XGPU_API_PTR *PFN_xgpuSubmitDebugMessage)(XgpuInstance instance, XgpuDebugMessageSeverityFlagBits messageSeverity, XgpuDebugMessageTypeFlags messageTypes, const XgpuDebugMessageData* pMessageData);
typedef void (XGPU_API_PTR *PFN_xgpuGetPhysicalDeviceProperties)(XgpuPhysicalDevice physicalDevice, XgpuPhysicalDeviceProperties* pProperties);
typedef void (XGPU_API_PTR *PFN_xgpuGetPhysicalDeviceMemoryProperties)(XgpuPhysicalDevice physicalDevice, XgpuPhysicalDeviceMemoryProperties* pMemoryProperties);
typedef void (XGPU_API_PTR *PFN_xgpuGetPhysicalDeviceQueueFamilyProperties)(XgpuPhysicalDevice physicalDevice, uint32_t* pQueueFamilyPropertyCount, XgpuQueueFamilyProperties* pQueueFamilyProperties);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateDevice)(XgpuPhysicalDevice physicalDevice, const XgpuDeviceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuDevice* pDevice);
typedef PFN_xgpuVoidFunction (XGPU_API_PTR *PFN_xgpuGetDeviceProcAddr)(XgpuDevice device, const char* pName);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyDevice)(XgpuDevice device, const XgpuAllocationCallbacks* pAllocator);
typedef void (XGPU_API_PTR *PFN_xgpuGetDeviceQueue)(XgpuDevice device, uint32_t queueFamilyIndex, uint32_t queueIndex, XgpuQueue* pQueue);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuDeviceWaitIdle)(XgpuDevice device);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuSetObjectName)(XgpuDevice device, const XgpuDebugObjectNameInfo* pNameInfo);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateBuffer)(XgpuDevice device, const XgpuBufferCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuBuffer* pBuffer);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyBuffer)(XgpuDevice device, XgpuBuffer buffer, const XgpuAllocationCallbacks* pAllocator);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuMapBuffer)(XgpuDevice device, XgpuBuffer buffer, XgpuDeviceSize offset, XgpuDeviceSize size, void** ppData);
typedef void (XGPU_API_PTR *PFN_xgpuUnmapBuffer)(XgpuDevice device, XgpuBuffer buffer);
typedef XgpuDeviceAddress (XGPU_API_PTR *PFN_xgpuGetBufferDeviceAddress)(XgpuDevice device, XgpuBuffer buffer);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateMemoryPool)(XgpuDevice device, const XgpuMemoryPoolCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuMemoryPool* pMemoryPool);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyMemoryPool)(XgpuDevice device, XgpuMemoryPool memoryPool, const XgpuAllocationCallbacks* pAllocator);
typedef void (XGPU_API_PTR *PFN_xgpuTrimMemoryPool)(XgpuDevice device, XgpuMemoryPool memoryPool);
typedef void (XGPU_API_PTR *PFN_xgpuGetMemoryPoolStatistics)(XgpuDevice device, XgpuMemoryPool memoryPool, XgpuMemoryPoolStatistics* pStatistics);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateSemaphore)(XgpuDevice device, const XgpuSemaphoreCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuSemaphore* pSemaphore);
typedef void (XGPU_API_PTR *PFN_xgpuDestroySemaphore)(XgpuDevice device, XgpuSemaphore semaphore, const XgpuAllocationCallbacks* pAllocator);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuSignalSemaphore)(XgpuDevice device, const XgpuSemaphoreSignalInfo* pSignalInfo);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuWaitSemaphores)(XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo, uint64_t timeout);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuGetSemaphoreValue)(XgpuDevice device, XgpuSemaphore semaphore, uint64_t* pValue);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuFailSemaphore)(XgpuDevice device, XgpuSemaphore semaphore, XgpuResult status);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateExecutable)(XgpuDevice device, const XgpuExecutableCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuExecutable* pExecutable);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyExecutable)(XgpuDevice device, XgpuExecutable executable, const XgpuAllocationCallbacks* pAllocator);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreatePipeline)(XgpuDevice device, const XgpuPipelineCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuPipeline* pPipeline);
typedef void (XGPU_API_PTR *PFN_xgpuGetPipelineProperties)(XgpuDevice device, XgpuPipeline pipeline, XgpuPipelineProperties* pProperties);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyPipeline)(XgpuDevice device, XgpuPipeline pipeline, const XgpuAllocationCallbacks* pAllocator);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuCreateCommandBuffer)(XgpuDevice device, const XgpuCommandBufferCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuCommandBuffer* pCommandBuffer);
typedef void (XGPU_API_PTR *PFN_xgpuDestroyCommandBuffer)(XgpuDevice device, XgpuCommandBuffer commandBuffer, const XgpuAllocationCallbacks* pAllocator);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuQueueSubmit)(XgpuQueue queue, uint32_t submitCount, const XgpuSubmitInfo* pSubmits);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuQueueFillBuffer)(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern, uint32_t patternSize);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuQueueCopyBuffer)(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer, XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset, XgpuDeviceSize size);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuQueueAlloca)(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool, XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuQueueDealloca)(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuQueueWaitIdle)(XgpuQueue queue);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuBeginCommandBuffer)(XgpuCommandBuffer commandBuffer, const XgpuCommandBufferBeginInfo* pBeginInfo);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuEndCommandBuffer)(XgpuCommandBuffer commandBuffer);
typedef void (XGPU_API_PTR *PFN_xgpuCmdBindPipeline)(XgpuCommandBuffer commandBuffer, XgpuPipeline pipeline);
typedef void (XGPU_API_PTR *PFN_xgpuCmdPushConstants)(XgpuCommandBuffer commandBuffer, uint32_t offset, uint32_t size, const void* pValues);
typedef void (XGPU_API_PTR *PFN_xgpuCmdBindBuffers)(XgpuCommandBuffer commandBuffer, uint32_t firstBinding, uint32_t bindingCount, const XgpuBufferRef* pBuffers);
typedef void (XGPU_API_PTR *PFN_xgpuCmdSetWorkgroupMemorySize)(XgpuCommandBuffer commandBuffer, uint32_t dynamicSize);
typedef void (XGPU_API_PTR *PFN_xgpuCmdDispatch)(XgpuCommandBuffer commandBuffer, uint32_t groupCountX, uint32_t groupCountY, uint32_t groupCountZ);
typedef void (XGPU_API_PTR *PFN_xgpuCmdDispatchIndirect)(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pCounts, XgpuDispatchIndirectFlags flags);
typedef void (XGPU_API_PTR *PFN_xgpuCmdFillBuffer)(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst, const void* pPattern, uint32_t patternSize);
typedef void (XGPU_API_PTR *PFN_xgpuCmdCopyBuffer)(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pSrc, const XgpuBufferRef* pDst, XgpuDeviceSize size);
typedef void (XGPU_API_PTR *PFN_xgpuCmdUpdateBuffer)(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst, XgpuDeviceSize dataSize, const void* pData);
typedef void (XGPU_API_PTR *PFN_xgpuCmdPipelineBarrier)(XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask, XgpuPipelineStageFlags dstStageMask, uint32_t memoryBarrierCount, const XgpuMemoryBarrier* pMemoryBarriers, uint32_t bufferBarrierCount, const XgpuBufferMemoryBarrier* pBufferBarriers);
typedef void (XGPU_API_PTR *PFN_xgpuCmdMemoryBarrier)(XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask, XgpuAccessFlags srcAccessMask, XgpuPipelineStageFlags dstStageMask, XgpuAccessFlags dstAccessMask);
typedef void (XGPU_API_PTR *PFN_xgpuCmdBeginDebugLabel)(XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
typedef void (XGPU_API_PTR *PFN_xgpuCmdEndDebugLabel)(XgpuCommandBuffer commandBuffer);
typedef void (XGPU_API_PTR *PFN_xgpuCmdInsertDebugLabel)(XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
typedef void (XGPU_API_PTR *PFN_xgpuCmdWriteTimestamp)(XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlagBits stage, const XgpuBufferRef* pDst);
typedef XgpuResult (XGPU_API_PTR *PFN_xgpuGetDeviceFaultInfo)(XgpuDevice device, XgpuDeviceFaultInfo* pFaultInfo);

#ifndef XGPU_NO_PROTOTYPES

/* global-level commands */
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateInstance(const XgpuInstanceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuInstance* pInstance);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuEnumerateInstanceVersion(uint32_t* pApiVersion);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuEnumerateInstanceLayerProperties(uint32_t* pPropertyCount, XgpuLayerProperties* pProperties);
XGPU_API_ATTR PFN_xgpuVoidFunction XGPU_API_CALL xgpuGetInstanceProcAddr(XgpuInstance instance, const char* pName);

/* instance-level commands */
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyInstance(XgpuInstance instance, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuEnumeratePhysicalDevices(XgpuInstance instance, uint32_t* pPhysicalDeviceCount, XgpuPhysicalDevice* pPhysicalDevices);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateDebugMessenger(XgpuInstance instance, const XgpuDebugMessengerCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuDebugMessenger* pMessenger);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyDebugMessenger(XgpuInstance instance, XgpuDebugMessenger messenger, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR void XGPU_API_CALL xgpuSubmitDebugMessage(XgpuInstance instance, XgpuDebugMessageSeverityFlagBits messageSeverity, XgpuDebugMessageTypeFlags messageTypes, const XgpuDebugMessageData* pMessageData);

/* physical device-level commands */
XGPU_API_ATTR void XGPU_API_CALL xgpuGetPhysicalDeviceProperties(XgpuPhysicalDevice physicalDevice, XgpuPhysicalDeviceProperties* pProperties);
XGPU_API_ATTR void XGPU_API_CALL xgpuGetPhysicalDeviceMemoryProperties(XgpuPhysicalDevice physicalDevice, XgpuPhysicalDeviceMemoryProperties* pMemoryProperties);
XGPU_API_ATTR void XGPU_API_CALL xgpuGetPhysicalDeviceQueueFamilyProperties(XgpuPhysicalDevice physicalDevice, uint32_t* pQueueFamilyPropertyCount, XgpuQueueFamilyProperties* pQueueFamilyProperties);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateDevice(XgpuPhysicalDevice physicalDevice, const XgpuDeviceCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuDevice* pDevice);

/* device-level commands */
XGPU_API_ATTR PFN_xgpuVoidFunction XGPU_API_CALL xgpuGetDeviceProcAddr(XgpuDevice device, const char* pName);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyDevice(XgpuDevice device, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR void XGPU_API_CALL xgpuGetDeviceQueue(XgpuDevice device, uint32_t queueFamilyIndex, uint32_t queueIndex, XgpuQueue* pQueue);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuDeviceWaitIdle(XgpuDevice device);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuSetObjectName(XgpuDevice device, const XgpuDebugObjectNameInfo* pNameInfo);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateBuffer(XgpuDevice device, const XgpuBufferCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuBuffer* pBuffer);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyBuffer(XgpuDevice device, XgpuBuffer buffer, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuMapBuffer(XgpuDevice device, XgpuBuffer buffer, XgpuDeviceSize offset, XgpuDeviceSize size, void** ppData);
XGPU_API_ATTR void XGPU_API_CALL xgpuUnmapBuffer(XgpuDevice device, XgpuBuffer buffer);
XGPU_API_ATTR XgpuDeviceAddress XGPU_API_CALL xgpuGetBufferDeviceAddress(XgpuDevice device, XgpuBuffer buffer);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateMemoryPool(XgpuDevice device, const XgpuMemoryPoolCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuMemoryPool* pMemoryPool);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyMemoryPool(XgpuDevice device, XgpuMemoryPool memoryPool, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR void XGPU_API_CALL xgpuTrimMemoryPool(XgpuDevice device, XgpuMemoryPool memoryPool);
XGPU_API_ATTR void XGPU_API_CALL xgpuGetMemoryPoolStatistics(XgpuDevice device, XgpuMemoryPool memoryPool, XgpuMemoryPoolStatistics* pStatistics);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateSemaphore(XgpuDevice device, const XgpuSemaphoreCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuSemaphore* pSemaphore);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroySemaphore(XgpuDevice device, XgpuSemaphore semaphore, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuSignalSemaphore(XgpuDevice device, const XgpuSemaphoreSignalInfo* pSignalInfo);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuWaitSemaphores(XgpuDevice device, const XgpuSemaphoreWaitInfo* pWaitInfo, uint64_t timeout);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuGetSemaphoreValue(XgpuDevice device, XgpuSemaphore semaphore, uint64_t* pValue);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuFailSemaphore(XgpuDevice device, XgpuSemaphore semaphore, XgpuResult status);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateExecutable(XgpuDevice device, const XgpuExecutableCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuExecutable* pExecutable);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyExecutable(XgpuDevice device, XgpuExecutable executable, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreatePipeline(XgpuDevice device, const XgpuPipelineCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuPipeline* pPipeline);
XGPU_API_ATTR void XGPU_API_CALL xgpuGetPipelineProperties(XgpuDevice device, XgpuPipeline pipeline, XgpuPipelineProperties* pProperties);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyPipeline(XgpuDevice device, XgpuPipeline pipeline, const XgpuAllocationCallbacks* pAllocator);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuCreateCommandBuffer(XgpuDevice device, const XgpuCommandBufferCreateInfo* pCreateInfo, const XgpuAllocationCallbacks* pAllocator, XgpuCommandBuffer* pCommandBuffer);
XGPU_API_ATTR void XGPU_API_CALL xgpuDestroyCommandBuffer(XgpuDevice device, XgpuCommandBuffer commandBuffer, const XgpuAllocationCallbacks* pAllocator);

/* queue-level commands */
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuQueueSubmit(XgpuQueue queue, uint32_t submitCount, const XgpuSubmitInfo* pSubmits);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuQueueFillBuffer(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset, XgpuDeviceSize size, const void* pPattern, uint32_t patternSize);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuQueueCopyBuffer(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer srcBuffer, XgpuDeviceSize srcOffset, XgpuBuffer dstBuffer, XgpuDeviceSize dstOffset, XgpuDeviceSize size);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuQueueAlloca(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuMemoryPool memoryPool, XgpuDeviceSize size, XgpuBufferUsageFlags usage, XgpuBuffer* pBuffer);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuQueueDealloca(XgpuQueue queue, const XgpuSemaphoreList* pWaitSemaphores, const XgpuSemaphoreList* pSignalSemaphores, XgpuBuffer buffer);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuQueueWaitIdle(XgpuQueue queue);

/* command buffer-level commands */
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuBeginCommandBuffer(XgpuCommandBuffer commandBuffer, const XgpuCommandBufferBeginInfo* pBeginInfo);
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuEndCommandBuffer(XgpuCommandBuffer commandBuffer);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdBindPipeline(XgpuCommandBuffer commandBuffer, XgpuPipeline pipeline);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdPushConstants(XgpuCommandBuffer commandBuffer, uint32_t offset, uint32_t size, const void* pValues);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdBindBuffers(XgpuCommandBuffer commandBuffer, uint32_t firstBinding, uint32_t bindingCount, const XgpuBufferRef* pBuffers);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdSetWorkgroupMemorySize(XgpuCommandBuffer commandBuffer, uint32_t dynamicSize);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdDispatch(XgpuCommandBuffer commandBuffer, uint32_t groupCountX, uint32_t groupCountY, uint32_t groupCountZ);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdDispatchIndirect(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pCounts, XgpuDispatchIndirectFlags flags);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdFillBuffer(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst, const void* pPattern, uint32_t patternSize);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdCopyBuffer(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pSrc, const XgpuBufferRef* pDst, XgpuDeviceSize size);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdUpdateBuffer(XgpuCommandBuffer commandBuffer, const XgpuBufferRef* pDst, XgpuDeviceSize dataSize, const void* pData);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdPipelineBarrier(XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask, XgpuPipelineStageFlags dstStageMask, uint32_t memoryBarrierCount, const XgpuMemoryBarrier* pMemoryBarriers, uint32_t bufferBarrierCount, const XgpuBufferMemoryBarrier* pBufferBarriers);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdMemoryBarrier(XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlags srcStageMask, XgpuAccessFlags srcAccessMask, XgpuPipelineStageFlags dstStageMask, XgpuAccessFlags dstAccessMask);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdBeginDebugLabel(XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdEndDebugLabel(XgpuCommandBuffer commandBuffer);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdInsertDebugLabel(XgpuCommandBuffer commandBuffer, const XgpuDebugLabel* pLabel);
XGPU_API_ATTR void XGPU_API_CALL xgpuCmdWriteTimestamp(XgpuCommandBuffer commandBuffer, XgpuPipelineStageFlagBits stage, const XgpuBufferRef* pDst);

/* device-level commands */
XGPU_API_ATTR XgpuResult XGPU_API_CALL xgpuGetDeviceFaultInfo(XgpuDevice device, XgpuDeviceFaultInfo* pFaultInfo);
#endif /* XGPU_NO_PROTOTYPES */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_H_ */
