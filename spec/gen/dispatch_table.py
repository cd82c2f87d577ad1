"""Generates include/xgpu/xgpu_dispatch_table.h: the instance and device
dispatch tables shared by the loader, layers and the meta-loader."""
from __future__ import annotations

from .common import banner
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
        out.append(f"/* Entry points of the {what}. */")
        out.append(f"typedef struct {name} {{")
        for c in cmds:
            out.append(f"    {c.pfn} {c.short_name};")
        out.append(f"}} {name};")
        out.append("")
        out.append(f"/* Fills every entry of table with gpa({handle_name}, name); missing ones are NULL. */")
        out.append(f"static inline void {init}({name}* table, {gpa_type} gpa, {handle_type} {handle_name}) {{")
        for c in cmds:
            out.append(f"    table->{c.short_name} = ({c.pfn})gpa({handle_name}, \"{c.name}\");")
        out.append("}")
        out.append("")
        out.append(f"/* The entry of table named name (\"xgpuFoo\"), or NULL when name is not in the table. */")
        out.append(f"static inline PFN_xgpuVoidFunction {lookup}(const {name}* table, const char* name) {{")
        out.append("    if (!name || strncmp(name, \"xgpu\", 4) != 0) return NULL;")
        out.append("    name += 4;")
        for c in cmds:
            out.append(f"    if (strcmp(name, \"{c.short_name}\") == 0) return (PFN_xgpuVoidFunction)table->{c.short_name};")
        out.append("    return NULL;")
        out.append("}")
        out.append("")
    out += ["#ifdef __cplusplus", '} /* extern "C" */', "#endif", "", "#endif /* XGPU_DISPATCH_TABLE_H_ */", ""]
    return "\n".join(out)
