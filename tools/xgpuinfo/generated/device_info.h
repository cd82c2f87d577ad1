/*
 * xgpuinfo's physical-device queries and structure printers
 *
 * Generated from spec/xgpu.json by spec/generate.py. Do not edit: change the
 * registry (or the generator) and run `python3 spec/generate.py`.
 */
// xgpuinfo's queries of a physical device and the printing of every
// structure they return: JSON (ToJson) and text (PrintText, one line per
// member; Inline, one line per structure), member by member as the registry
// lists them (spec/gen/xgpuinfo_gen.py says how each kind of member is shown).
// Included by main.cpp only.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "format.h"
#include "xgpu/xgpu.h"
#include "xgpu/xgpu_enum_string.h"

namespace xgpuinfo {

// XgpuPhysicalDeviceLimits: Limits of a physical device.
inline ordered_json ToJson(const XgpuPhysicalDeviceLimits& s) {
  ordered_json j = ordered_json::object();
  j["maxWorkgroupSize"] = NumberArray(s.maxWorkgroupSize);
  j["maxWorkgroupInvocations"] = s.maxWorkgroupInvocations;
  j["maxWorkgroupCount"] = NumberArray(s.maxWorkgroupCount);
  j["maxGridSize"] = NumberArray(s.maxGridSize);
  j["maxWorkgroupMemorySize"] = s.maxWorkgroupMemorySize;
  j["maxPushConstantsSize"] = s.maxPushConstantsSize;
  j["maxBindings"] = s.maxBindings;
  j["maxBindingCapacity"] = s.maxBindingCapacity;
  j["wavefrontSize"] = s.wavefrontSize;
  j["computeUnitCount"] = s.computeUnitCount;
  j["timestampValidBits"] = s.timestampValidBits;
  j["timestampPeriod"] = s.timestampPeriod;
  j["maxBufferSize"] = s.maxBufferSize;
  j["minBufferOffsetAlignment"] = s.minBufferOffsetAlignment;
  return j;
}

inline void PrintText(const XgpuPhysicalDeviceLimits& s, int indent) {
  Line(indent, "maxWorkgroupSize", NumberArray(s.maxWorkgroupSize).dump());
  Line(indent, "maxWorkgroupInvocations", ordered_json(s.maxWorkgroupInvocations).dump());
  Line(indent, "maxWorkgroupCount", NumberArray(s.maxWorkgroupCount).dump());
  Line(indent, "maxGridSize", NumberArray(s.maxGridSize).dump());
  Line(indent, "maxWorkgroupMemorySize", ordered_json(s.maxWorkgroupMemorySize).dump());
  Line(indent, "maxPushConstantsSize", ordered_json(s.maxPushConstantsSize).dump());
  Line(indent, "maxBindings", ordered_json(s.maxBindings).dump());
  Line(indent, "maxBindingCapacity", ordered_json(s.maxBindingCapacity).dump());
  Line(indent, "wavefrontSize", ordered_json(s.wavefrontSize).dump());
  Line(indent, "computeUnitCount", ordered_json(s.computeUnitCount).dump());
  Line(indent, "timestampValidBits", ordered_json(s.timestampValidBits).dump());
  Line(indent, "timestampPeriod", ordered_json(s.timestampPeriod).dump());
  Line(indent, "maxBufferSize", Bytes(s.maxBufferSize));
  Line(indent, "minBufferOffsetAlignment", Bytes(s.minBufferOffsetAlignment));
}

// XgpuPhysicalDeviceProperties: Identity and limits of a physical device.
inline ordered_json ToJson(const XgpuPhysicalDeviceProperties& s) {
  ordered_json j = ordered_json::object();
  j["apiVersion"] = Version(s.apiVersion);
  j["driverVersion"] = s.driverVersion;
  j["vendorId"] = s.vendorId;
  j["deviceId"] = s.deviceId;
  j["deviceType"] = ShortName(xgpuPhysicalDeviceTypeString(s.deviceType), "XGPU_PHYSICAL_DEVICE_TYPE_");
  j["deviceName"] = Text(s.deviceName, sizeof(s.deviceName));
  j["isaName"] = Text(s.isaName, sizeof(s.isaName));
  j["driverName"] = Text(s.driverName, sizeof(s.driverName));
  j["runtimeName"] = Text(s.runtimeName, sizeof(s.runtimeName));
  j["limits"] = ToJson(s.limits);
  return j;
}

inline void PrintText(const XgpuPhysicalDeviceProperties& s, int indent) {
  Line(indent, "apiVersion", Version(s.apiVersion));
  Line(indent, "driverVersion", xgpu_common::hex(s.driverVersion));
  Line(indent, "vendorId", xgpu_common::hex(s.vendorId));
  Line(indent, "deviceId", xgpu_common::hex(s.deviceId));
  Line(indent, "deviceType", ShortName(xgpuPhysicalDeviceTypeString(s.deviceType), "XGPU_PHYSICAL_DEVICE_TYPE_"));
  Line(indent, "deviceName", Text(s.deviceName, sizeof(s.deviceName)));
  Line(indent, "isaName", Text(s.isaName, sizeof(s.isaName)));
  Line(indent, "driverName", Text(s.driverName, sizeof(s.driverName)));
  Line(indent, "runtimeName", Text(s.runtimeName, sizeof(s.runtimeName)));
  Heading(indent, "limits");
  PrintText(s.limits, indent + 2);
}

// XgpuMemoryType: One memory type of a physical device.
inline ordered_json ToJson(const XgpuMemoryType& s) {
  ordered_json j = ordered_json::object();
  char names[XGPU_FLAGS_STRING_SIZE];
  j["propertyFlags"] = FlagNames(s.propertyFlags, xgpuMemoryPropertyFlagsString(s.propertyFlags, names, sizeof(names)), "XGPU_MEMORY_PROPERTY_");
  j["heapIndex"] = s.heapIndex;
  return j;
}

inline void PrintText(const XgpuMemoryType& s, int indent) {
  char names[XGPU_FLAGS_STRING_SIZE];
  Line(indent, "propertyFlags", Join(FlagNames(s.propertyFlags, xgpuMemoryPropertyFlagsString(s.propertyFlags, names, sizeof(names)), "XGPU_MEMORY_PROPERTY_")));
  Line(indent, "heapIndex", ordered_json(s.heapIndex).dump());
}

inline std::string Inline(const XgpuMemoryType& s) {
  std::string out;
  char names[XGPU_FLAGS_STRING_SIZE];
  Append(&out, "propertyFlags", Join(FlagNames(s.propertyFlags, xgpuMemoryPropertyFlagsString(s.propertyFlags, names, sizeof(names)), "XGPU_MEMORY_PROPERTY_")));
  Append(&out, "heapIndex", ordered_json(s.heapIndex).dump());
  return out;
}

// XgpuMemoryHeap: One memory heap of a physical device.
inline ordered_json ToJson(const XgpuMemoryHeap& s) {
  ordered_json j = ordered_json::object();
  char names[XGPU_FLAGS_STRING_SIZE];
  j["size"] = s.size;
  j["flags"] = FlagNames(s.flags, xgpuMemoryHeapFlagsString(s.flags, names, sizeof(names)), "XGPU_MEMORY_HEAP_");
  return j;
}

inline void PrintText(const XgpuMemoryHeap& s, int indent) {
  char names[XGPU_FLAGS_STRING_SIZE];
  Line(indent, "size", Bytes(s.size));
  Line(indent, "flags", Join(FlagNames(s.flags, xgpuMemoryHeapFlagsString(s.flags, names, sizeof(names)), "XGPU_MEMORY_HEAP_")));
}

inline std::string Inline(const XgpuMemoryHeap& s) {
  std::string out;
  char names[XGPU_FLAGS_STRING_SIZE];
  Append(&out, "size", Bytes(s.size));
  Append(&out, "flags", Join(FlagNames(s.flags, xgpuMemoryHeapFlagsString(s.flags, names, sizeof(names)), "XGPU_MEMORY_HEAP_")));
  return out;
}

// XgpuPhysicalDeviceMemoryProperties: Memory types and heaps of a physical device.
inline ordered_json ToJson(const XgpuPhysicalDeviceMemoryProperties& s) {
  ordered_json j = ordered_json::object();
  j["memoryTypes"] = ordered_json::array();
  for (size_t i = 0; i < std::min<size_t>(s.memoryTypeCount, sizeof(s.memoryTypes) / sizeof(s.memoryTypes[0])); ++i) j["memoryTypes"].push_back(ToJson(s.memoryTypes[i]));
  j["memoryHeaps"] = ordered_json::array();
  for (size_t i = 0; i < std::min<size_t>(s.memoryHeapCount, sizeof(s.memoryHeaps) / sizeof(s.memoryHeaps[0])); ++i) j["memoryHeaps"].push_back(ToJson(s.memoryHeaps[i]));
  return j;
}

inline void PrintText(const XgpuPhysicalDeviceMemoryProperties& s, int indent) {
  Heading(indent, "memoryTypes", std::min<size_t>(s.memoryTypeCount, sizeof(s.memoryTypes) / sizeof(s.memoryTypes[0])));
  for (size_t i = 0; i < std::min<size_t>(s.memoryTypeCount, sizeof(s.memoryTypes) / sizeof(s.memoryTypes[0])); ++i) Element(indent + 2, i, Inline(s.memoryTypes[i]));
  Heading(indent, "memoryHeaps", std::min<size_t>(s.memoryHeapCount, sizeof(s.memoryHeaps) / sizeof(s.memoryHeaps[0])));
  for (size_t i = 0; i < std::min<size_t>(s.memoryHeapCount, sizeof(s.memoryHeaps) / sizeof(s.memoryHeaps[0])); ++i) Element(indent + 2, i, Inline(s.memoryHeaps[i]));
}

// XgpuQueueFamilyProperties: One family of queues of a physical device.
inline ordered_json ToJson(const XgpuQueueFamilyProperties& s) {
  ordered_json j = ordered_json::object();
  char names[XGPU_FLAGS_STRING_SIZE];
  j["queueFlags"] = FlagNames(s.queueFlags, xgpuQueueFlagsString(s.queueFlags, names, sizeof(names)), "XGPU_QUEUE_");
  j["queueCount"] = s.queueCount;
  j["timestampValidBits"] = s.timestampValidBits;
  return j;
}

inline void PrintText(const XgpuQueueFamilyProperties& s, int indent) {
  char names[XGPU_FLAGS_STRING_SIZE];
  Line(indent, "queueFlags", Join(FlagNames(s.queueFlags, xgpuQueueFlagsString(s.queueFlags, names, sizeof(names)), "XGPU_QUEUE_")));
  Line(indent, "queueCount", ordered_json(s.queueCount).dump());
  Line(indent, "timestampValidBits", ordered_json(s.timestampValidBits).dump());
}

inline std::string Inline(const XgpuQueueFamilyProperties& s) {
  std::string out;
  char names[XGPU_FLAGS_STRING_SIZE];
  Append(&out, "queueFlags", Join(FlagNames(s.queueFlags, xgpuQueueFlagsString(s.queueFlags, names, sizeof(names)), "XGPU_QUEUE_")));
  Append(&out, "queueCount", ordered_json(s.queueCount).dump());
  Append(&out, "timestampValidBits", ordered_json(s.timestampValidBits).dump());
  return out;
}

// XgpuLayerProperties: One layer the loader can enable.
inline ordered_json ToJson(const XgpuLayerProperties& s) {
  ordered_json j = ordered_json::object();
  j["layerName"] = Text(s.layerName, sizeof(s.layerName));
  j["specVersion"] = Version(s.specVersion);
  j["implementationVersion"] = s.implementationVersion;
  j["description"] = Text(s.description, sizeof(s.description));
  return j;
}

inline void PrintText(const XgpuLayerProperties& s, int indent) {
  Line(indent, "layerName", Text(s.layerName, sizeof(s.layerName)));
  Line(indent, "specVersion", Version(s.specVersion));
  Line(indent, "implementationVersion", ordered_json(s.implementationVersion).dump());
  Line(indent, "description", Text(s.description, sizeof(s.description)));
}

// Everything the xgpuGetPhysicalDevice* queries return about one device.
struct PhysicalDeviceInfo {
  XgpuPhysicalDeviceProperties properties{};  // xgpuGetPhysicalDeviceProperties
  XgpuPhysicalDeviceMemoryProperties memoryProperties{};  // xgpuGetPhysicalDeviceMemoryProperties
  std::vector<XgpuQueueFamilyProperties> queueFamilyProperties{};  // xgpuGetPhysicalDeviceQueueFamilyProperties
};

inline PhysicalDeviceInfo QueryPhysicalDevice(XgpuPhysicalDevice device) {
  PhysicalDeviceInfo info;
  xgpuGetPhysicalDeviceProperties(device, &info.properties);
  xgpuGetPhysicalDeviceMemoryProperties(device, &info.memoryProperties);
  {
    uint32_t count = 0;
    xgpuGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
    info.queueFamilyProperties.resize(count);
    if (count) xgpuGetPhysicalDeviceQueueFamilyProperties(device, &count, info.queueFamilyProperties.data());
    info.queueFamilyProperties.resize(count);
  }
  return info;
}

// One object: the members of each filled structure, then one array per enumeration.
inline ordered_json ToJson(const PhysicalDeviceInfo& info) {
  ordered_json j = ordered_json::object();
  j.update(ToJson(info.properties));
  j.update(ToJson(info.memoryProperties));
  j["queueFamilyProperties"] = ordered_json::array();
  for (const auto& e : info.queueFamilyProperties) j["queueFamilyProperties"].push_back(ToJson(e));
  return j;
}

inline void PrintText(const PhysicalDeviceInfo& info, int indent) {
  PrintText(info.properties, indent);
  PrintText(info.memoryProperties, indent);
  Heading(indent, "queueFamilyProperties", info.queueFamilyProperties.size());
  for (size_t i = 0; i < info.queueFamilyProperties.size(); ++i) Element(indent + 2, i, Inline(info.queueFamilyProperties[i]));
}

}  // namespace xgpuinfo
