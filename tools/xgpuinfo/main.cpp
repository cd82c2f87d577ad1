// xgpuinfo: what the xgpu loader sees — instance version, layers, the
// drivers behind the physical devices (with the HSA runtime each drives),
// physical devices with everything the xgpuGetPhysicalDevice* queries return
// (properties, limits, memory heaps and types, queue families: printed by
// generated/device_info.h, generated from spec/xgpu.json). `--json` prints
// the same as one JSON document.
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format.h"
#include "generated/device_info.h"
#include "xgpu/xgpu.h"

namespace {

using xgpuinfo::ordered_json;

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

// The document as text; the devices from what their queries returned.
void PrintText(const ordered_json& info, const std::vector<xgpuinfo::PhysicalDeviceInfo>& infos) {
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
    std::printf("\nPhysical device %zu: %s\n", i, devices[i]["deviceName"].get<std::string>().c_str());
    xgpuinfo::PrintText(infos[i], 2);
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
  info["instanceVersion"] = xgpuinfo::Version(version);

  uint32_t layer_count = 0;
  XgpuResult result = xgpuEnumerateInstanceLayerProperties(&layer_count, nullptr);
  std::vector<XgpuLayerProperties> layers(layer_count);
  if (result == XGPU_SUCCESS && layer_count) result = xgpuEnumerateInstanceLayerProperties(&layer_count, layers.data());
  layers.resize(result >= 0 ? layer_count : 0);
  info["layers"] = ordered_json::array();
  for (const XgpuLayerProperties& l : layers) info["layers"].push_back(xgpuinfo::ToJson(l));

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
  std::vector<xgpuinfo::PhysicalDeviceInfo> infos;
  for (XgpuPhysicalDevice pd : devices) {
    infos.push_back(xgpuinfo::QueryPhysicalDevice(pd));
    info["physicalDevices"].push_back(xgpuinfo::ToJson(infos.back()));
  }
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
    PrintText(info, infos);
  }
  return 0;
}
