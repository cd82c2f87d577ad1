"""Generates include/xgpu/xgpu_dispatch_table.h: the instance and device
dispatch tables shared by the loader, layers and the meta-loader."""
from __future__ import annotations

from .common import banner, gpa_init_function, lookup_function, pfn_struct
from .registry import Registry


def generate(reg: Registry) -> str:
    out = [banner("xgpu_dispatch_table.h: instance- and device-level dispatch tables.\n *\n"
                  " * The layout never depends on compile-time defines. A table is filled once\n"
                  " * and read-only afterwards (thread-safe to read)."),
           "#ifndef XGPU_DISPATCH_TABLE_H_", "#define XGPU_DISPATCH_TABLE_H_ 1", "",
           "#include <string.h>", "", '#include "xgpu/xgpu.h"', "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    tables = [
        ("XgpuInstanceDispatchTable", "instance and physical-device level", reg.instance_table_commands,
         "xgpuInitInstanceDispatchTable", "PFN_xgpuGetInstanceProcAddr", "XgpuInstance", "instance",
         "xgpuLookupInstanceDispatchTable"),
        ("XgpuDeviceDispatchTable", "device, queue and command-buffer level", reg.device_table_commands,
         "xgpuInitDeviceDispatchTable", "PFN_xgpuGetDeviceProcAddr", "XgpuDevice", "device",
         "xgpuLookupDeviceDispatchTable"),
    ]
    for name, what, cmds, init, gpa_type, handle_type, handle_name, lookup in tables:
        out += pfn_struct(name, cmds, f"Entry points of the {what}.")
        out.append("")
        out += gpa_init_function(init, name, cmds, gpa_type, handle_type, handle_name,
                                 f"Fills every entry of table with gpa({handle_name}, name); missing ones are NULL.")
        out.append("")
        out += lookup_function(lookup, name, cmds,
                               "The entry of table named name (\"xgpuFoo\"), or NULL when name is not in the table.")
        out.append("")
    out += ["#ifdef __cplusplus", '} /* extern "C" */', "#endif", "", "#endif /* XGPU_DISPATCH_TABLE_H_ */", ""]
    return "\n".join(out)
