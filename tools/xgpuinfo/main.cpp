// xgpuinfo: what the xgpu loader sees — instance version, layers, the
// drivers behind the physical devices (with the HSA runtime each drives),
// physical devices with their properties, limits, memory heaps and types, and
// queue families. `--json` prints the same as one JSON document.
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu/xgpu_enum_string.h"

namespace {

using nlohmann::ordered_json;

std::string Version(uint32_t v) {
  return std::to_string(XGPU_API_VERSION_MAJOR(v)) + "." + std::to_string(XGPU_API_VERSION_MINOR(v)) + "." +
         std::to_string(XGPU_API_VERSION_PATCH(v));
}

// A registry name without its type's prefix and the "_BIT" suffix:
// XGPU_QUEUE_COMPUTE_BIT -> COMPUTE (names from xgpu_enum_string.h).
std::string ShortName(std::string name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) == 0) name.erase(0, prefix.size());
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "_BIT") == 0) name.erase(name.size() - 4);
  return name;
}

std::string DeviceType(XgpuPhysicalDeviceType type) {
  return ShortName(xgpuPhysicalDeviceTypeString(type), "XGPU_PHYSICAL_DEVICE_TYPE_");
}

// The short names of the bits set in flags ("A | B" from the generated
// *FlagsString); unknown bits as one hexadecimal number; none for 0.
std::vector<std::string> Flags(uint32_t flags, const char* names, const std::string& prefix) {
  std::vector<std::string> out;
  if (flags == 0) return out;
  const std::string text = names;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find(" | ", begin);
    if (end == std::string::npos) end = text.size();
    out.push_back(ShortName(text.substr(begin, end - begin), prefix));
    begin = end + 3;
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " | ") + p;
  return out.empty() ? "0" : out;
}

ordered_json DeviceJson(XgpuPhysicalDevice pd) {
  XgpuPhysicalDeviceProperties p;
  std::memset(&p, 0, sizeof(p));
  xgpuGetPhysicalDeviceProperties(pd, &p);
  const XgpuPhysicalDeviceLimits& l = p.limits;
  ordered_json d;
  d["deviceName"] = p.deviceName;
  d["deviceType"] = DeviceType(p.deviceType);
  d["apiVersion"] = Version(p.apiVersion);
  d["driverVersion"] = p.driverVersion;
  d["vendorId"] = p.vendorId;
  d["deviceId"] = p.deviceId;
  d["isaName"] = p.isaName;
  d["driverName"] = p.driverName;
  d["runtimeName"] = p.runtimeName;
  d["limits"] = {
      {"maxWorkgroupSize", {l.maxWorkgroupSize[0], l.maxWorkgroupSize[1], l.maxWorkgroupSize[2]}},
      {"maxWorkgroupInvocations", l.maxWorkgroupInvocations},
      {"maxWorkgroupCount", {l.maxWorkgroupCount[0], l.maxWorkgroupCount[1], l.maxWorkgroupCount[2]}},
      {"maxWorkgroupMemorySize", l.maxWorkgroupMemorySize},
      {"maxPushConstantsSize", l.maxPushConstantsSize},
      {"maxBindings", l.maxBindings},
      {"maxBindingCapacity", l.maxBindingCapacity},
      {"wavefrontSize", l.wavefrontSize},
      {"computeUnitCount", l.computeUnitCount},
      {"timestampValidBits", l.timestampValidBits},
      {"timestampPeriod", l.timestampPeriod},
      {"maxBufferSize", l.maxBufferSize},
      {"minBufferOffsetAlignment", l.minBufferOffsetAlignment},
  };
  XgpuPhysicalDeviceMemoryProperties m;
  std::memset(&m, 0, sizeof(m));
  xgpuGetPhysicalDeviceMemoryProperties(pd, &m);
  char names[XGPU_FLAGS_STRING_SIZE];
  d["memoryHeaps"] = ordered_json::array();
  for (uint32_t i = 0; i < m.memoryHeapCount && i < XGPU_MAX_MEMORY_HEAPS; ++i) {
    d["memoryHeaps"].push_back({{"size", m.memoryHeaps[i].size}, {"flags", Flags(m.memoryHeaps[i].flags, xgpuMemoryHeapFlagsString(m.memoryHeaps[i].flags, names, sizeof(names)), "XGPU_MEMORY_HEAP_")}});
  }
  d["memoryTypes"] = ordered_json::array();
  for (uint32_t i = 0; i < m.memoryTypeCount && i < XGPU_MAX_MEMORY_TYPES; ++i) {
    d["memoryTypes"].push_back({{"heapIndex", m.memoryTypes[i].heapIndex},
                                {"propertyFlags", Flags(m.memoryTypes[i].propertyFlags, xgpuMemoryPropertyFlagsString(m.memoryTypes[i].propertyFlags, names, sizeof(names)), "XGPU_MEMORY_PROPERTY_")}});
  }
  uint32_t families = 0;
  xgpuGetPhysicalDeviceQueueFamilyProperties(pd, &families, nullptr);
  std::vector<XgpuQueueFamilyProperties> q(families);
  if (families) xgpuGetPhysicalDeviceQueueFamilyProperties(pd, &families, q.data());
  d["queueFamilies"] = ordered_json::array();
  for (uint32_t i = 0; i < families; ++i) {
    d["queueFamilies"].push_back({{"queueFlags", Flags(q[i].queueFlags, xgpuQueueFlagsString(q[i].queueFlags, names, sizeof(names)), "XGPU_QUEUE_")},
                                  {"queueCount", q[i].queueCount},
                                  {"timestampValidBits", q[i].timestampValidBits}});
  }
  return d;
}

// The drivers as the API shows them: one entry per distinct driver name,
// version and HSA runtime among the physical devices (the API has no call
// that lists drivers; one without devices is seen with XGPU_LOADER_DEBUG).
ordered_json DriversJson(const ordered_json& devices) {
  ordered_json drivers = ordered_json::array();
  for (size_t i = 0; i < devices.size(); ++i) {
    const ordered_json& d = devices[i];
    ordered_json* found = nullptr;
    for (ordered_json& driver : drivers) {
      if (driver["driverName"] == d["driverName"] && driver["driverVersion"] == d["driverVersion"] &&
          driver["runtimeName"] == d["runtimeName"]) {
        found = &driver;
        break;
      }
    }
    if (!found) {
      drivers.push_back({{"driverName", d["driverName"]},
                         {"driverVersion", d["driverVersion"]},
                         {"runtimeName", d["runtimeName"]},
                         {"physicalDevices", ordered_json::array()}});
      found = &drivers.back();
    }
    (*found)["physicalDevices"].push_back(i);
  }
  return drivers;
}

void PrintText(const ordered_json& info) {
  std::printf("xgpu instance version: %s\n\n", info["instanceVersion"].get<std::string>().c_str());
  std::printf("Layers: %zu\n", info["layers"].size());
  for (const auto& l : info["layers"]) {
    std::printf("  %s (spec %s, implementation %u): %s\n", l["layerName"].get<std::string>().c_str(),
                l["specVersion"].get<std::string>().c_str(), l["implementationVersion"].get<uint32_t>(),
                l["description"].get<std::string>().c_str());
  }
  std::printf("\n");
  const auto& devices = info["physicalDevices"];
  if (devices.empty()) {
    std::printf("no physical devices: no driver found (set XGPU_LOADER_DEBUG=all to see why)\n");
    return;
  }
  std::printf("Drivers: %zu\n", info["drivers"].size());
  for (const auto& driver : info["drivers"]) {
    std::string indices;
    for (const auto& index : driver["physicalDevices"]) indices += (indices.empty() ? "" : ", ") + index.dump();
    std::printf("  %s (version 0x%x), HSA runtime %s: physical device%s %s\n",
                driver["driverName"].get<std::string>().c_str(), driver["driverVersion"].get<uint32_t>(),
                driver["runtimeName"].get<std::string>().c_str(), driver["physicalDevices"].size() == 1 ? "" : "s",
                indices.c_str());
  }
  std::printf("\n");
  std::printf("Physical devices: %zu\n", devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    std::printf("\nPhysical device %zu: %s\n", i, d["deviceName"].get<std::string>().c_str());
    for (const char* key : {"deviceType", "apiVersion", "isaName", "driverName", "runtimeName"}) {
      std::printf("  %-26s %s\n", key, d[key].get<std::string>().c_str());
    }
    for (const char* key : {"driverVersion", "vendorId", "deviceId"}) {
      std::printf("  %-26s 0x%x\n", key, d[key].get<uint32_t>());
    }
    std::printf("  limits:\n");
    for (const auto& [key, value] : d["limits"].items()) std::printf("    %-30s %s\n", key.c_str(), value.dump().c_str());
    std::printf("  memory heaps: %zu\n", d["memoryHeaps"].size());
    size_t h = 0;
    for (const auto& heap : d["memoryHeaps"]) {
      std::printf("    heap %zu: size %llu bytes (%.1f MiB), flags %s\n", h++, heap["size"].get<unsigned long long>(),
                  heap["size"].get<double>() / (1024.0 * 1024.0), Join(heap["flags"]).c_str());
    }
    std::printf("  memory types: %zu\n", d["memoryTypes"].size());
    size_t t = 0;
    for (const auto& type : d["memoryTypes"]) {
      std::printf("    type %zu: heap %u, %s\n", t++, type["heapIndex"].get<uint32_t>(), Join(type["propertyFlags"]).c_str());
    }
    std::printf("  queue families: %zu\n", d["queueFamilies"].size());
    size_t f = 0;
    for (const auto& family : d["queueFamilies"]) {
      std::printf("    family %zu: %u queue(s), %s, %u timestamp bits\n", f++, family["queueCount"].get<uint32_t>(),
                  Join(family["queueFlags"]).c_str(), family["timestampValidBits"].get<uint32_t>());
    }
  }
}

int Usage(const char* argv0, FILE* out, int code) {
  std::fprintf(out,
               "usage: %s [--json]\n"
               "Prints the xgpu instance version, layers, the drivers behind the physical\n"
               "devices (with their HSA runtimes) and the physical devices.\n"
               "Drivers without devices are shown by the loader itself: XGPU_LOADER_DEBUG=all %s\n",
               argv0, argv0);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      return Usage(argv[0], stdout, 0);
    } else {
      std::fprintf(stderr, "xgpuinfo: unknown argument '%s'\n", argv[i]);
      return Usage(argv[0], stderr, 2);
    }
  }
  ordered_json info;
  uint32_t version = 0;
  xgpuEnumerateInstanceVersion(&version);
  info["instanceVersion"] = Version(version);

  uint32_t layer_count = 0;
  XgpuResult result = xgpuEnumerateInstanceLayerProperties(&layer_count, nullptr);
  std::vector<XgpuLayerProperties> layers(layer_count);
  if (result == XGPU_SUCCESS && layer_count) result = xgpuEnumerateInstanceLayerProperties(&layer_count, layers.data());
  layers.resize(result >= 0 ? layer_count : 0);
  info["layers"] = ordered_json::array();
  for (const XgpuLayerProperties& l : layers) {
    info["layers"].push_back({{"layerName", l.layerName},
                              {"specVersion", Version(l.specVersion)},
                              {"implementationVersion", l.implementationVersion},
                              {"description", l.description}});
  }

  XgpuApplicationInfo app = {};
  app.sType = XGPU_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "xgpuinfo";
  app.apiVersion = XGPU_API_VERSION_1_0;
  XgpuInstanceCreateInfo create = {};
  create.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.pApplicationInfo = &app;
  XgpuInstance instance = nullptr;
  result = xgpuCreateInstance(&create, nullptr, &instance);
  if (result != XGPU_SUCCESS) {
    std::fprintf(stderr, "xgpuinfo: xgpuCreateInstance failed (%d); set XGPU_LOADER_DEBUG=all to see why\n", result);
    return 1;
  }
  uint32_t count = 0;
  result = xgpuEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<XgpuPhysicalDevice> devices(count);
  if (result == XGPU_SUCCESS && count) result = xgpuEnumeratePhysicalDevices(instance, &count, devices.data());
  devices.resize(result >= 0 ? count : 0);
  info["physicalDevices"] = ordered_json::array();
  for (XgpuPhysicalDevice pd : devices) info["physicalDevices"].push_back(DeviceJson(pd));
  xgpuDestroyInstance(instance, nullptr);
  // Before the devices in the document, as in the text.
  ordered_json ordered;
  for (const auto& [key, value] : info.items()) {
    if (key == "physicalDevices") ordered["drivers"] = DriversJson(value);
    ordered[key] = value;
  }
  info = std::move(ordered);

  if (json) {
    std::printf("%s\n", info.dump(2).c_str());
  } else {
    PrintText(info);
  }
  return 0;
}
