/*
 * xgpu_enum_string.h (generated from the registry), compiled as strict C99 and
 * run: names of enumerants, of flag bits and of flag combinations, unknown
 * values, and truncation into a short buffer.
 */
#include <stdio.h>
#include <string.h>

#include "xgpu/xgpu_enum_string.h"

static int failures = 0;

static void expect_string(const char* what, const char* got, const char* expected) {
  if (got == NULL || strcmp(got, expected) != 0) {
    fprintf(stderr, "%s: got \"%s\", expected \"%s\"\n", what, got ? got : "(null)", expected);
    ++failures;
  }
}

int main(void) {
  char out[XGPU_FLAGS_STRING_SIZE];
  char tiny[8];

  expect_string("xgpuResultString(XGPU_SUCCESS)", xgpuResultString(XGPU_SUCCESS), "XGPU_SUCCESS");
  expect_string("xgpuResultString(XGPU_ERROR_DEVICE_LOST)", xgpuResultString(XGPU_ERROR_DEVICE_LOST),
                "XGPU_ERROR_DEVICE_LOST");
  expect_string("xgpuResultString(12345)", xgpuResultString((XgpuResult)12345), "(unknown XgpuResult)");
  expect_string("xgpuStructureTypeString", xgpuStructureTypeString(XGPU_STRUCTURE_TYPE_SUBMIT_INFO),
                "XGPU_STRUCTURE_TYPE_SUBMIT_INFO");
  expect_string("xgpuPhysicalDeviceTypeString", xgpuPhysicalDeviceTypeString(XGPU_PHYSICAL_DEVICE_TYPE_CPU),
                "XGPU_PHYSICAL_DEVICE_TYPE_CPU");
  expect_string("xgpuObjectTypeString", xgpuObjectTypeString(XGPU_OBJECT_TYPE_SEMAPHORE),
                "XGPU_OBJECT_TYPE_SEMAPHORE");
  expect_string("xgpuCommandBufferModeString", xgpuCommandBufferModeString(XGPU_COMMAND_BUFFER_MODE_REUSABLE),
                "XGPU_COMMAND_BUFFER_MODE_REUSABLE");

  expect_string("xgpuQueueFlagBitsString", xgpuQueueFlagBitsString(XGPU_QUEUE_COMPUTE_BIT),
                "XGPU_QUEUE_COMPUTE_BIT");
  expect_string("xgpuQueueFlagBitsString(0x40000000)", xgpuQueueFlagBitsString((XgpuQueueFlagBits)0x40000000),
                "(unknown XgpuQueueFlagBits)");

  expect_string("xgpuMemoryPropertyFlagsString(0)", xgpuMemoryPropertyFlagsString(0, out, sizeof out), "0");
  expect_string("xgpuMemoryPropertyFlagsString(DEVICE_LOCAL | HOST_VISIBLE)",
                xgpuMemoryPropertyFlagsString(XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                                  XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                              out, sizeof out),
                "XGPU_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | XGPU_MEMORY_PROPERTY_HOST_VISIBLE_BIT");
  expect_string("xgpuBufferUsageFlagsString(STORAGE | 0x80000000)",
                xgpuBufferUsageFlagsString(XGPU_BUFFER_USAGE_STORAGE_BIT | 0x80000000u, out, sizeof out),
                "XGPU_BUFFER_USAGE_STORAGE_BIT | 0x80000000");
  expect_string("xgpuQueueFlagsString(0x30000)", xgpuQueueFlagsString(0x30000u, out, sizeof out), "0x30000");
  /* Every bit of every flag type fits in XGPU_FLAGS_STRING_SIZE. */
  expect_string("xgpuAccessFlagsString(~0) ends with the unknown bits",
                strstr(xgpuAccessFlagsString(~(XgpuFlags)0, out, sizeof out), " | 0x") ? "yes" : "no", "yes");
  expect_string("xgpuPipelineStageFlagsString(~0) ends with the unknown bits",
                strstr(xgpuPipelineStageFlagsString(~(XgpuFlags)0, out, sizeof out), " | 0x") ? "yes" : "no",
                "yes");
  /* A short buffer: truncated, NUL-terminated, and the function still returns it. */
  expect_string("truncated", xgpuQueueFlagsString(XGPU_QUEUE_COMPUTE_BIT, tiny, sizeof tiny), "XGPU_QU");

  if (failures == 0) printf("xgpu_enum_string.h: ok\n");
  return failures == 0 ? 0 : 1;
}
