#!/usr/bin/env python3
"""Checks that xgpuinfo prints every member of every structure the
xgpuGetPhysicalDevice* queries return, as spec/xgpu.json lists them today
(so a member added to the registry cannot be missing from its output):
in --json, each device object has a key per member (nested structures as
objects, counted arrays as arrays, one array per enumerating query); in the
text, each member's name starts a line of the device's block.

    check_xgpuinfo.py <xgpuinfo> <repository root>

The environment selects the driver (XGPU_DRIVER_FILES)."""
import json
import subprocess
import sys
from pathlib import Path

xgpuinfo, root = sys.argv[1], Path(sys.argv[2])
sys.path.insert(0, str(root / "spec"))
from gen import registry  # noqa: E402

reg = registry.load()
failures = []


def members(struct):
    """(name, nested struct or None, is an array) of what xgpuinfo should print."""
    counts = {m.len for m in struct.members if m.len}
    for m in struct.members:
        if m.base_name in counts:
            continue  # the array it counts carries it
        yield m.base_name, reg.struct(m.base_type), m.array_len is not None


def check_json(obj, struct, where):
    for name, nested, array in members(struct):
        if name not in obj:
            failures.append(f"--json: {where} has no \"{name}\" ({struct.name}.{name})")
            continue
        if nested and array:
            for i, element in enumerate(obj[name]):
                check_json(element, nested, f"{where}.{name}[{i}]")
        elif nested:
            check_json(obj[name], nested, f"{where}.{name}")


def text_names(struct):
    """(name, inline): a member's line starts with its name; an array
    element's members are named inside the element's one line."""
    for name, nested, array in members(struct):
        yield name, False
        if nested and not array:
            yield from text_names(nested)
        elif nested:
            yield from ((element_name, True) for element_name, _, _ in members(nested))


queries = [c for c in reg.commands if c.level == "physical_device" and c.name.startswith("xgpuGetPhysicalDevice")]
if not queries:
    failures.append("the registry has no xgpuGetPhysicalDevice* query")

document = json.loads(subprocess.run([xgpuinfo, "--json"], check=True, capture_output=True, text=True).stdout)
devices = document["physicalDevices"]
if not devices:
    failures.append("--json: no physical device")
text = subprocess.run([xgpuinfo], check=True, capture_output=True, text=True).stdout
blocks = text.split("\nPhysical device ")[1:]
if len(blocks) != len(devices):
    failures.append(f"text: {len(blocks)} device blocks, --json: {len(devices)} devices")

for index, device in enumerate(devices):
    lines = [line.strip() for line in blocks[index].splitlines()] if index < len(blocks) else []
    for c in queries:
        out = c.params[-1]
        struct = reg.struct(out.base_type)
        if out.len:  # an enumeration: an array named after the output parameter
            key = out.base_name[1].lower() + out.base_name[2:]
            names = [(key, False)] + [(name, True) for name, _, _ in members(struct)]
            if key not in device:
                failures.append(f"--json: physicalDevices[{index}] has no \"{key}\" ({c.name})")
            else:
                for i, element in enumerate(device[key]):
                    check_json(element, struct, f"physicalDevices[{index}].{key}[{i}]")
        else:
            check_json(device, struct, f"physicalDevices[{index}]")
            names = list(text_names(struct))
        for name, inline in names:
            if inline:
                found = any(line.startswith("[") and (f"] {name} " in line or f", {name} " in line) for line in lines)
            else:
                found = any(line.startswith(name + " ") or line.startswith(name + ":") for line in lines)
            if not found:
                failures.append(f"text: physical device {index} does not show {name} ({c.name})")

for f in failures:
    print(f)
print(f"{len(failures)} missing" if failures else
      f"xgpuinfo prints every member of {len(queries)} queries' structures for {len(devices)} device(s)")
sys.exit(1 if failures else 0)
