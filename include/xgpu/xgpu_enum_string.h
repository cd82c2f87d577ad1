/*
 * xgpu_enum_string.h: names of the API's enumerants and flag bits (C99, header only).
 *
 *   const char* xgpu<Enum>String(Xgpu<Enum> value)       e.g. xgpuResultString(XGPU_TIMEOUT)
 *                                                         == "XGPU_TIMEOUT"
 *   const char* xgpu<Name>FlagBitsString(bit)             one bit's name
 *   const char* xgpu<Name>FlagsString(flags, out, size)   "A_BIT | B_BIT" into out
 *
 * A value the registry does not name gives "(unknown Xgpu<Enum>)" (never NULL);
 * unknown flag bits are written as one hexadecimal number.
 *
 * Thread-safety: every function is reentrant; the strings are static.
 *
 * Generated from spec/xgpu.json by spec/generate.py. Do not edit: change the
 * registry (or the generator) and run `python3 spec/generate.py`.
 */


#ifndef XGPU_ENUM_STRING_H_
#define XGPU_ENUM_STRING_H_ 1

#include <stddef.h>

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One flag bit and its name (the tables of the *FlagsString functions). */
typedef struct XgpuFlagBitName {
    XgpuFlags bit;     /* a single bit */
    const char* name;  /* its enumerant's name, e.g. "XGPU_QUEUE_COMPUTE_BIT" */
} XgpuFlagBitName;

/* Appends text at out[*length], keeping out NUL-terminated within size bytes;
 * *length counts what would have been written (as snprintf does). */
static inline void xgpuEnumStringAppend_(char* out, size_t size, size_t* length, const char* text) {
    for (; *text; ++text, ++*length)
        if (*length + 1 < size) out[*length] = *text;
    if (size > 0) out[*length < size ? *length : size - 1] = '\0';
}

/* "NAME_A | NAME_B", unknown bits last as one hexadecimal number, "0" when
 * no bit is set. Writes at most size bytes (always NUL-terminated when size
 * > 0; XGPU_FLAGS_STRING_SIZE bytes always suffice) and returns out. */
static inline const char* xgpuFlagsString_(XgpuFlags flags, const XgpuFlagBitName* names, size_t count,
                                           char* out, size_t size) {
    static const char digits[] = "0123456789ABCDEF";
    size_t length = 0;
    size_t i;
    XgpuFlags unknown = flags;
    if (size > 0) out[0] = '\0';
    for (i = 0; i < count; ++i) {
        if (!(flags & names[i].bit)) continue;
        if (length > 0) xgpuEnumStringAppend_(out, size, &length, " | ");
        xgpuEnumStringAppend_(out, size, &length, names[i].name);
        unknown &= ~names[i].bit;
    }
    if (unknown != 0 || flags == 0) {
        char hex[2 + 2 * sizeof(XgpuFlags) + 1];
        size_t n = 0;
        int shift;
        int started = 0;
        if (length > 0) xgpuEnumStringAppend_(out, size, &length, " | ");
        if (unknown == 0) {
            hex[n++] = '0';
        } else {
            hex[n++] = '0';
            hex[n++] = 'x';
            for (shift = 8 * (int)sizeof(XgpuFlags) - 4; shift >= 0; shift -= 4) {
                unsigned digit = (unsigned)(unknown >> shift) & 0xFu;
                if (digit != 0 || started) {
                    hex[n++] = digits[digit];
                    started = 1;
                }
            }
        }
        hex[n] = '\0';
        xgpuEnumStringAppend_(out, size, &length, hex);
    }
    return out;
}

/* Bytes that hold any *FlagsString result, unknown bits included. */
#define XGPU_FLAGS_STRING_SIZE 287

/* Enumerations. */
/* The name of an XgpuResult value. */
static inline const char* xgpuResultString(XgpuResult value) {
    switch (value) {
        case XGPU_SUCCESS: return "XGPU_SUCCESS";
        case XGPU_NOT_READY: return "XGPU_NOT_READY";
        case XGPU_TIMEOUT: return "XGPU_TIMEOUT";
        case XGPU_INCOMPLETE: return "XGPU_INCOMPLETE";
        case XGPU_ERROR_OUT_OF_HOST_MEMORY: return "XGPU_ERROR_OUT_OF_HOST_MEMORY";
        case XGPU_ERROR_OUT_OF_DEVICE_MEMORY: return "XGPU_ERROR_OUT_OF_DEVICE_MEMORY";
        case XGPU_ERROR_INITIALIZATION_FAILED: return "XGPU_ERROR_INITIALIZATION_FAILED";
        case XGPU_ERROR_DEVICE_LOST: return "XGPU_ERROR_DEVICE_LOST";
        case XGPU_ERROR_MEMORY_MAP_FAILED: return "XGPU_ERROR_MEMORY_MAP_FAILED";
        case XGPU_ERROR_LAYER_NOT_PRESENT: return "XGPU_ERROR_LAYER_NOT_PRESENT";
        case XGPU_ERROR_EXTENSION_NOT_PRESENT: return "XGPU_ERROR_EXTENSION_NOT_PRESENT";
        case XGPU_ERROR_FEATURE_NOT_PRESENT: return "XGPU_ERROR_FEATURE_NOT_PRESENT";
        case XGPU_ERROR_INCOMPATIBLE_DRIVER: return "XGPU_ERROR_INCOMPATIBLE_DRIVER";
        case XGPU_ERROR_TOO_MANY_OBJECTS: return "XGPU_ERROR_TOO_MANY_OBJECTS";
        case XGPU_ERROR_INVALID_ARGUMENT: return "XGPU_ERROR_INVALID_ARGUMENT";
        case XGPU_ERROR_INVALID_EXECUTABLE: return "XGPU_ERROR_INVALID_EXECUTABLE";
        case XGPU_ERROR_INCOMPATIBLE_EXECUTABLE: return "XGPU_ERROR_INCOMPATIBLE_EXECUTABLE";
        case XGPU_ERROR_NOT_FOUND: return "XGPU_ERROR_NOT_FOUND";
        case XGPU_ERROR_INVALID_USAGE: return "XGPU_ERROR_INVALID_USAGE";
        case XGPU_ERROR_SEMAPHORE_FAILED: return "XGPU_ERROR_SEMAPHORE_FAILED";
        case XGPU_ERROR_UNKNOWN: return "XGPU_ERROR_UNKNOWN";
        case XGPU_ERROR_KERNEL_ASSERT: return "XGPU_ERROR_KERNEL_ASSERT";
        case XGPU_RESULT_MAX_ENUM: break;
    }
    return "(unknown XgpuResult)";
}

/* The name of an XgpuStructureType value. */
static inline const char* xgpuStructureTypeString(XgpuStructureType value) {
    switch (value) {
        case XGPU_STRUCTURE_TYPE_APPLICATION_INFO: return "XGPU_STRUCTURE_TYPE_APPLICATION_INFO";
        case XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_BUFFER_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_MEMORY_POOL_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO: return "XGPU_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO";
        case XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO: return "XGPU_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO";
        case XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_PIPELINE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO: return "XGPU_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO";
        case XGPU_STRUCTURE_TYPE_SUBMIT_INFO: return "XGPU_STRUCTURE_TYPE_SUBMIT_INFO";
        case XGPU_STRUCTURE_TYPE_MEMORY_BARRIER: return "XGPU_STRUCTURE_TYPE_MEMORY_BARRIER";
        case XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER: return "XGPU_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER";
        case XGPU_STRUCTURE_TYPE_DEBUG_LABEL: return "XGPU_STRUCTURE_TYPE_DEBUG_LABEL";
        case XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA: return "XGPU_STRUCTURE_TYPE_DEBUG_MESSAGE_DATA";
        case XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO: return "XGPU_STRUCTURE_TYPE_DEBUG_OBJECT_NAME_INFO";
        case XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS: return "XGPU_STRUCTURE_TYPE_VALIDATION_SETTINGS";
        case XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO: return "XGPU_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO";
        case XGPU_STRUCTURE_TYPE_MAX_ENUM: break;
    }
    return "(unknown XgpuStructureType)";
}

/* The name of an XgpuObjectType value. */
static inline const char* xgpuObjectTypeString(XgpuObjectType value) {
    switch (value) {
        case XGPU_OBJECT_TYPE_UNKNOWN: return "XGPU_OBJECT_TYPE_UNKNOWN";
        case XGPU_OBJECT_TYPE_INSTANCE: return "XGPU_OBJECT_TYPE_INSTANCE";
        case XGPU_OBJECT_TYPE_PHYSICAL_DEVICE: return "XGPU_OBJECT_TYPE_PHYSICAL_DEVICE";
        case XGPU_OBJECT_TYPE_DEVICE: return "XGPU_OBJECT_TYPE_DEVICE";
        case XGPU_OBJECT_TYPE_QUEUE: return "XGPU_OBJECT_TYPE_QUEUE";
        case XGPU_OBJECT_TYPE_COMMAND_BUFFER: return "XGPU_OBJECT_TYPE_COMMAND_BUFFER";
        case XGPU_OBJECT_TYPE_BUFFER: return "XGPU_OBJECT_TYPE_BUFFER";
        case XGPU_OBJECT_TYPE_MEMORY_POOL: return "XGPU_OBJECT_TYPE_MEMORY_POOL";
        case XGPU_OBJECT_TYPE_SEMAPHORE: return "XGPU_OBJECT_TYPE_SEMAPHORE";
        case XGPU_OBJECT_TYPE_EXECUTABLE: return "XGPU_OBJECT_TYPE_EXECUTABLE";
        case XGPU_OBJECT_TYPE_PIPELINE: return "XGPU_OBJECT_TYPE_PIPELINE";
        case XGPU_OBJECT_TYPE_DEBUG_MESSENGER: return "XGPU_OBJECT_TYPE_DEBUG_MESSENGER";
        case XGPU_OBJECT_TYPE_MAX_ENUM: break;
    }
    return "(unknown XgpuObjectType)";
}

/* The name of an XgpuPhysicalDeviceType value. */
static inline const char* xgpuPhysicalDeviceTypeString(XgpuPhysicalDeviceType value) {
    switch (value) {
        case XGPU_PHYSICAL_DEVICE_TYPE_OTHER: return "XGPU_PHYSICAL_DEVICE_TYPE_OTHER";
        case XGPU_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "XGPU_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU";
        case XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "XGPU_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU";
        case XGPU_PHYSICAL_DEVICE_TYPE_CPU: return "XGPU_PHYSICAL_DEVICE_TYPE_CPU";
        case XGPU_PHYSICAL_DEVICE_TYPE_MAX_ENUM: break;
    }
    return "(unknown XgpuPhysicalDeviceType)";
}

/* The name of an XgpuCommandBufferMode value. */
static inline const char* xgpuCommandBufferModeString(XgpuCommandBufferMode value) {
    switch (value) {
        case XGPU_COMMAND_BUFFER_MODE_ONE_SHOT: return "XGPU_COMMAND_BUFFER_MODE_ONE_SHOT";
        case XGPU_COMMAND_BUFFER_MODE_REUSABLE: return "XGPU_COMMAND_BUFFER_MODE_REUSABLE";
        case XGPU_COMMAND_BUFFER_MODE_MAX_ENUM: break;
    }
    return "(unknown XgpuCommandBufferMode)";
}

/* The name of an XgpuBufferRefKind value. */
static inline const char* xgpuBufferRefKindString(XgpuBufferRefKind value) {
    switch (value) {
        case XGPU_BUFFER_REF_KIND_BUFFER: return "XGPU_BUFFER_REF_KIND_BUFFER";
        case XGPU_BUFFER_REF_KIND_BINDING_SLOT: return "XGPU_BUFFER_REF_KIND_BINDING_SLOT";
        case XGPU_BUFFER_REF_KIND_MAX_ENUM: break;
    }
    return "(unknown XgpuBufferRefKind)";
}

/* The name of an XgpuValidationErrorAction value. */
static inline const char* xgpuValidationErrorActionString(XgpuValidationErrorAction value) {
    switch (value) {
        case XGPU_VALIDATION_ERROR_ACTION_CONTINUE: return "XGPU_VALIDATION_ERROR_ACTION_CONTINUE";
        case XGPU_VALIDATION_ERROR_ACTION_BREAK: return "XGPU_VALIDATION_ERROR_ACTION_BREAK";
        case XGPU_VALIDATION_ERROR_ACTION_ABORT: return "XGPU_VALIDATION_ERROR_ACTION_ABORT";
        case XGPU_VALIDATION_ERROR_ACTION_MAX_ENUM: break;
    }
    return "(unknown XgpuValidationErrorAction)";
}

/* The name of an XgpuDeviceFaultKind value. */
static inline const char* xgpuDeviceFaultKindString(XgpuDeviceFaultKind value) {
    switch (value) {
        case XGPU_DEVICE_FAULT_KIND_NONE: return "XGPU_DEVICE_FAULT_KIND_NONE";
        case XGPU_DEVICE_FAULT_KIND_MEMORY: return "XGPU_DEVICE_FAULT_KIND_MEMORY";
        case XGPU_DEVICE_FAULT_KIND_HANG: return "XGPU_DEVICE_FAULT_KIND_HANG";
        case XGPU_DEVICE_FAULT_KIND_KERNEL: return "XGPU_DEVICE_FAULT_KIND_KERNEL";
        case XGPU_DEVICE_FAULT_KIND_QUEUE: return "XGPU_DEVICE_FAULT_KIND_QUEUE";
        case XGPU_DEVICE_FAULT_KIND_OTHER: return "XGPU_DEVICE_FAULT_KIND_OTHER";
        case XGPU_DEVICE_FAULT_KIND_MAX_ENUM: break;
    }
    return "(unknown XgpuDeviceFaultKind)";
}

/* The name of an XgpuDeviceFaultAccess value. */
static inline const char* xgpuDeviceFaultAccessString(XgpuDeviceFaultAccess value) {
    switch (value) {
        case XGPU_DEVICE_FAULT_ACCESS_UNKNOWN: return "XGPU_DEVICE_FAULT_ACCESS_UNKNOWN";
        case XGPU_DEVICE_FAULT_ACCESS_READ: return "XGPU_DEVICE_FAULT_ACCESS_READ";
        case XGPU_DEVICE_FAULT_ACCESS_WRITE: return "XGPU_DEVICE_FAULT_ACCESS_WRITE";
        case XGPU_DEVICE_FAULT_ACCESS_EXECUTE: return "XGPU_DEVICE_FAULT_ACCESS_EXECUTE";
        case XGPU_DEVICE_FAULT_ACCESS_MAX_ENUM: break;
    }
    return "(unknown XgpuDeviceFaultAccess)";
}

/* The name of an XgpuDeviceFaultAddressRelation value. */
static inline const char* xgpuDeviceFaultAddressRelationString(XgpuDeviceFaultAddressRelation value) {
    switch (value) {
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_UNKNOWN: return "XGPU_DEVICE_FAULT_ADDRESS_RELATION_UNKNOWN";
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_INSIDE: return "XGPU_DEVICE_FAULT_ADDRESS_RELATION_INSIDE";
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END: return "XGPU_DEVICE_FAULT_ADDRESS_RELATION_PAST_END";
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_BEFORE_START: return "XGPU_DEVICE_FAULT_ADDRESS_RELATION_BEFORE_START";
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_FREED: return "XGPU_DEVICE_FAULT_ADDRESS_RELATION_FREED";
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE: return "XGPU_DEVICE_FAULT_ADDRESS_RELATION_NONE";
        case XGPU_DEVICE_FAULT_ADDRESS_RELATION_MAX_ENUM: break;
    }
    return "(unknown XgpuDeviceFaultAddressRelation)";
}

/* Flags. */
/* The name of an XgpuMemoryHeapFlagBits bit. */
static inline const char* xgpuMemoryHeapFlagBitsString(XgpuMemoryHeapFlagBits bit) {
    switch (bit) {
        case XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT: return "XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT";
        case XGPU_MEMORY_HEAP_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuMemoryHeapFlagBits)";
}

/* XgpuMemoryHeapFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuMemoryHeapFlagsString(XgpuMemoryHeapFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuMemoryHeapFlagsNames_[] = {
        {XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT, "XGPU_MEMORY_HEAP_DEVICE_LOCAL_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuMemoryHeapFlagsNames_, sizeof(xgpuMemoryHeapFlagsNames_) / sizeof(xgpuMemoryHeapFlagsNames_[0]), out, size);
}

/* The name of an XgpuMemoryPropertyFlagBits bit. */
static inline const char* xgpuMemoryPropertyFlagBitsString(XgpuMemoryPropertyFlagBits bit) {
    switch (bit) {
        case XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT: return "XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT";
        case XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT: return "XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT";
        case XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT: return "XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT";
        case XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT: return "XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT";
        case XGPU_MEMORY_PROPERTY_KERNARG_BIT: return "XGPU_MEMORY_PROPERTY_KERNARG_BIT";
        case XGPU_MEMORY_PROPERTY_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuMemoryPropertyFlagBits)";
}

/* XgpuMemoryPropertyFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuMemoryPropertyFlagsString(XgpuMemoryPropertyFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuMemoryPropertyFlagsNames_[] = {
        {XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT"},
        {XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT"},
        {XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT, "XGPU_MEMORY_PROPERTY_HOST_COHERENT_BIT"},
        {XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT, "XGPU_MEMORY_PROPERTY_HOST_CACHED_BIT"},
        {XGPU_MEMORY_PROPERTY_KERNARG_BIT, "XGPU_MEMORY_PROPERTY_KERNARG_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuMemoryPropertyFlagsNames_, sizeof(xgpuMemoryPropertyFlagsNames_) / sizeof(xgpuMemoryPropertyFlagsNames_[0]), out, size);
}

/* The name of an XgpuQueueFlagBits bit. */
static inline const char* xgpuQueueFlagBitsString(XgpuQueueFlagBits bit) {
    switch (bit) {
        case XGPU_QUEUE_COMPUTE_BIT: return "XGPU_QUEUE_COMPUTE_BIT";
        case XGPU_QUEUE_TRANSFER_BIT: return "XGPU_QUEUE_TRANSFER_BIT";
        case XGPU_QUEUE_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuQueueFlagBits)";
}

/* XgpuQueueFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuQueueFlagsString(XgpuQueueFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuQueueFlagsNames_[] = {
        {XGPU_QUEUE_COMPUTE_BIT, "XGPU_QUEUE_COMPUTE_BIT"},
        {XGPU_QUEUE_TRANSFER_BIT, "XGPU_QUEUE_TRANSFER_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuQueueFlagsNames_, sizeof(xgpuQueueFlagsNames_) / sizeof(xgpuQueueFlagsNames_[0]), out, size);
}

/* The name of an XgpuBufferUsageFlagBits bit. */
static inline const char* xgpuBufferUsageFlagBitsString(XgpuBufferUsageFlagBits bit) {
    switch (bit) {
        case XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT: return "XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT";
        case XGPU_BUFFER_USAGE_TRANSFER_DST_BIT: return "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT";
        case XGPU_BUFFER_USAGE_STORAGE_BIT: return "XGPU_BUFFER_USAGE_STORAGE_BIT";
        case XGPU_BUFFER_USAGE_INDIRECT_BIT: return "XGPU_BUFFER_USAGE_INDIRECT_BIT";
        case XGPU_BUFFER_USAGE_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuBufferUsageFlagBits)";
}

/* XgpuBufferUsageFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuBufferUsageFlagsString(XgpuBufferUsageFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuBufferUsageFlagsNames_[] = {
        {XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT, "XGPU_BUFFER_USAGE_TRANSFER_SRC_BIT"},
        {XGPU_BUFFER_USAGE_TRANSFER_DST_BIT, "XGPU_BUFFER_USAGE_TRANSFER_DST_BIT"},
        {XGPU_BUFFER_USAGE_STORAGE_BIT, "XGPU_BUFFER_USAGE_STORAGE_BIT"},
        {XGPU_BUFFER_USAGE_INDIRECT_BIT, "XGPU_BUFFER_USAGE_INDIRECT_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuBufferUsageFlagsNames_, sizeof(xgpuBufferUsageFlagsNames_) / sizeof(xgpuBufferUsageFlagsNames_[0]), out, size);
}

/* The name of an XgpuSemaphoreWaitFlagBits bit. */
static inline const char* xgpuSemaphoreWaitFlagBitsString(XgpuSemaphoreWaitFlagBits bit) {
    switch (bit) {
        case XGPU_SEMAPHORE_WAIT_ANY_BIT: return "XGPU_SEMAPHORE_WAIT_ANY_BIT";
        case XGPU_SEMAPHORE_WAIT_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuSemaphoreWaitFlagBits)";
}

/* XgpuSemaphoreWaitFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuSemaphoreWaitFlagsString(XgpuSemaphoreWaitFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuSemaphoreWaitFlagsNames_[] = {
        {XGPU_SEMAPHORE_WAIT_ANY_BIT, "XGPU_SEMAPHORE_WAIT_ANY_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuSemaphoreWaitFlagsNames_, sizeof(xgpuSemaphoreWaitFlagsNames_) / sizeof(xgpuSemaphoreWaitFlagsNames_[0]), out, size);
}

/* The name of an XgpuDispatchIndirectFlagBits bit. */
static inline const char* xgpuDispatchIndirectFlagBitsString(XgpuDispatchIndirectFlagBits bit) {
    switch (bit) {
        case XGPU_DISPATCH_INDIRECT_STATIC_BIT: return "XGPU_DISPATCH_INDIRECT_STATIC_BIT";
        case XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT: return "XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT";
        case XGPU_DISPATCH_INDIRECT_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuDispatchIndirectFlagBits)";
}

/* XgpuDispatchIndirectFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuDispatchIndirectFlagsString(XgpuDispatchIndirectFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuDispatchIndirectFlagsNames_[] = {
        {XGPU_DISPATCH_INDIRECT_STATIC_BIT, "XGPU_DISPATCH_INDIRECT_STATIC_BIT"},
        {XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT, "XGPU_DISPATCH_INDIRECT_DYNAMIC_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuDispatchIndirectFlagsNames_, sizeof(xgpuDispatchIndirectFlagsNames_) / sizeof(xgpuDispatchIndirectFlagsNames_[0]), out, size);
}

/* The name of an XgpuPipelineStageFlagBits bit. */
static inline const char* xgpuPipelineStageFlagBitsString(XgpuPipelineStageFlagBits bit) {
    switch (bit) {
        case XGPU_PIPELINE_STAGE_INDIRECT_BIT: return "XGPU_PIPELINE_STAGE_INDIRECT_BIT";
        case XGPU_PIPELINE_STAGE_DISPATCH_BIT: return "XGPU_PIPELINE_STAGE_DISPATCH_BIT";
        case XGPU_PIPELINE_STAGE_TRANSFER_BIT: return "XGPU_PIPELINE_STAGE_TRANSFER_BIT";
        case XGPU_PIPELINE_STAGE_HOST_BIT: return "XGPU_PIPELINE_STAGE_HOST_BIT";
        case XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT: return "XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT";
        case XGPU_PIPELINE_STAGE_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuPipelineStageFlagBits)";
}

/* XgpuPipelineStageFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuPipelineStageFlagsString(XgpuPipelineStageFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuPipelineStageFlagsNames_[] = {
        {XGPU_PIPELINE_STAGE_INDIRECT_BIT, "XGPU_PIPELINE_STAGE_INDIRECT_BIT"},
        {XGPU_PIPELINE_STAGE_DISPATCH_BIT, "XGPU_PIPELINE_STAGE_DISPATCH_BIT"},
        {XGPU_PIPELINE_STAGE_TRANSFER_BIT, "XGPU_PIPELINE_STAGE_TRANSFER_BIT"},
        {XGPU_PIPELINE_STAGE_HOST_BIT, "XGPU_PIPELINE_STAGE_HOST_BIT"},
        {XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT, "XGPU_PIPELINE_STAGE_ALL_COMMANDS_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuPipelineStageFlagsNames_, sizeof(xgpuPipelineStageFlagsNames_) / sizeof(xgpuPipelineStageFlagsNames_[0]), out, size);
}

/* The name of an XgpuAccessFlagBits bit. */
static inline const char* xgpuAccessFlagBitsString(XgpuAccessFlagBits bit) {
    switch (bit) {
        case XGPU_ACCESS_INDIRECT_READ_BIT: return "XGPU_ACCESS_INDIRECT_READ_BIT";
        case XGPU_ACCESS_SHADER_READ_BIT: return "XGPU_ACCESS_SHADER_READ_BIT";
        case XGPU_ACCESS_SHADER_WRITE_BIT: return "XGPU_ACCESS_SHADER_WRITE_BIT";
        case XGPU_ACCESS_TRANSFER_READ_BIT: return "XGPU_ACCESS_TRANSFER_READ_BIT";
        case XGPU_ACCESS_TRANSFER_WRITE_BIT: return "XGPU_ACCESS_TRANSFER_WRITE_BIT";
        case XGPU_ACCESS_HOST_READ_BIT: return "XGPU_ACCESS_HOST_READ_BIT";
        case XGPU_ACCESS_HOST_WRITE_BIT: return "XGPU_ACCESS_HOST_WRITE_BIT";
        case XGPU_ACCESS_MEMORY_READ_BIT: return "XGPU_ACCESS_MEMORY_READ_BIT";
        case XGPU_ACCESS_MEMORY_WRITE_BIT: return "XGPU_ACCESS_MEMORY_WRITE_BIT";
        case XGPU_ACCESS_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuAccessFlagBits)";
}

/* XgpuAccessFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuAccessFlagsString(XgpuAccessFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuAccessFlagsNames_[] = {
        {XGPU_ACCESS_INDIRECT_READ_BIT, "XGPU_ACCESS_INDIRECT_READ_BIT"},
        {XGPU_ACCESS_SHADER_READ_BIT, "XGPU_ACCESS_SHADER_READ_BIT"},
        {XGPU_ACCESS_SHADER_WRITE_BIT, "XGPU_ACCESS_SHADER_WRITE_BIT"},
        {XGPU_ACCESS_TRANSFER_READ_BIT, "XGPU_ACCESS_TRANSFER_READ_BIT"},
        {XGPU_ACCESS_TRANSFER_WRITE_BIT, "XGPU_ACCESS_TRANSFER_WRITE_BIT"},
        {XGPU_ACCESS_HOST_READ_BIT, "XGPU_ACCESS_HOST_READ_BIT"},
        {XGPU_ACCESS_HOST_WRITE_BIT, "XGPU_ACCESS_HOST_WRITE_BIT"},
        {XGPU_ACCESS_MEMORY_READ_BIT, "XGPU_ACCESS_MEMORY_READ_BIT"},
        {XGPU_ACCESS_MEMORY_WRITE_BIT, "XGPU_ACCESS_MEMORY_WRITE_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuAccessFlagsNames_, sizeof(xgpuAccessFlagsNames_) / sizeof(xgpuAccessFlagsNames_[0]), out, size);
}

/* The name of an XgpuBindingAccessFlagBits bit. */
static inline const char* xgpuBindingAccessFlagBitsString(XgpuBindingAccessFlagBits bit) {
    switch (bit) {
        case XGPU_BINDING_ACCESS_READ_BIT: return "XGPU_BINDING_ACCESS_READ_BIT";
        case XGPU_BINDING_ACCESS_WRITE_BIT: return "XGPU_BINDING_ACCESS_WRITE_BIT";
        case XGPU_BINDING_ACCESS_ATOMIC_BIT: return "XGPU_BINDING_ACCESS_ATOMIC_BIT";
        case XGPU_BINDING_ACCESS_UNKNOWN_BIT: return "XGPU_BINDING_ACCESS_UNKNOWN_BIT";
        case XGPU_BINDING_ACCESS_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuBindingAccessFlagBits)";
}

/* XgpuBindingAccessFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuBindingAccessFlagsString(XgpuBindingAccessFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuBindingAccessFlagsNames_[] = {
        {XGPU_BINDING_ACCESS_READ_BIT, "XGPU_BINDING_ACCESS_READ_BIT"},
        {XGPU_BINDING_ACCESS_WRITE_BIT, "XGPU_BINDING_ACCESS_WRITE_BIT"},
        {XGPU_BINDING_ACCESS_ATOMIC_BIT, "XGPU_BINDING_ACCESS_ATOMIC_BIT"},
        {XGPU_BINDING_ACCESS_UNKNOWN_BIT, "XGPU_BINDING_ACCESS_UNKNOWN_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuBindingAccessFlagsNames_, sizeof(xgpuBindingAccessFlagsNames_) / sizeof(xgpuBindingAccessFlagsNames_[0]), out, size);
}

/* The name of an XgpuDebugMessageSeverityFlagBits bit. */
static inline const char* xgpuDebugMessageSeverityFlagBitsString(XgpuDebugMessageSeverityFlagBits bit) {
    switch (bit) {
        case XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT: return "XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT";
        case XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT: return "XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT";
        case XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT: return "XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT";
        case XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT: return "XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT";
        case XGPU_DEBUG_MESSAGE_SEVERITY_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuDebugMessageSeverityFlagBits)";
}

/* XgpuDebugMessageSeverityFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuDebugMessageSeverityFlagsString(XgpuDebugMessageSeverityFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuDebugMessageSeverityFlagsNames_[] = {
        {XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT, "XGPU_DEBUG_MESSAGE_SEVERITY_VERBOSE_BIT"},
        {XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT, "XGPU_DEBUG_MESSAGE_SEVERITY_INFO_BIT"},
        {XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT, "XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT"},
        {XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT, "XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuDebugMessageSeverityFlagsNames_, sizeof(xgpuDebugMessageSeverityFlagsNames_) / sizeof(xgpuDebugMessageSeverityFlagsNames_[0]), out, size);
}

/* The name of an XgpuDebugMessageTypeFlagBits bit. */
static inline const char* xgpuDebugMessageTypeFlagBitsString(XgpuDebugMessageTypeFlagBits bit) {
    switch (bit) {
        case XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT: return "XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT";
        case XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT: return "XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT";
        case XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT: return "XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT";
        case XGPU_DEBUG_MESSAGE_TYPE_FLAG_BITS_MAX_ENUM: break;
    }
    return "(unknown XgpuDebugMessageTypeFlagBits)";
}

/* XgpuDebugMessageTypeFlags as "A_BIT | B_BIT" into out (see xgpuFlagsString_). */
static inline const char* xgpuDebugMessageTypeFlagsString(XgpuDebugMessageTypeFlags flags, char* out, size_t size) {
    static const XgpuFlagBitName xgpuDebugMessageTypeFlagsNames_[] = {
        {XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT, "XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT"},
        {XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT, "XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT"},
        {XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT, "XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT"},
    };
    return xgpuFlagsString_(flags, xgpuDebugMessageTypeFlagsNames_, sizeof(xgpuDebugMessageTypeFlagsNames_) / sizeof(xgpuDebugMessageTypeFlagsNames_[0]), out, size);
}


#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_ENUM_STRING_H_ */
