"""Generates tools/xgpuinfo/generated/device_info.h: xgpuinfo's queries of a
physical device and its printing of every structure they return (text and
JSON), member by member from the registry, so that a member or a query added
to spec/xgpu.json is printed without touching xgpuinfo.

The queries are the physical-device commands named xgpuGetPhysicalDevice*:
one that fills one structure (`(physicalDevice, T*)`) adds that structure's
members to the device; one that enumerates (`(physicalDevice, uint32_t*,
T*)`) adds an array named after its output parameter. XgpuLayerProperties
(xgpuEnumerateInstanceLayerProperties) gets its printers too. A member of a
type this generator does not know stops the generation: nothing is ever
left out silently."""
from __future__ import annotations

from .common import banner
from .registry import Command, Param, Registry, Struct, upper_snake

OUTPUT = "tools/xgpuinfo/generated/device_info.h"

# Members shown in a form other than their C type's, as vulkaninfo does: API
# versions as major.minor.patch (text and JSON), ids and driver-defined
# versions in hexadecimal (text; JSON keeps the number).
VERSION_MEMBERS = {"apiVersion", "specVersion"}
HEX_MEMBERS = {"driverVersion", "vendorId", "deviceId"}
# C types printed as numbers (XgpuBool32 as true/false).
NUMBER_TYPES = {"uint32_t", "int32_t", "uint64_t", "int64_t", "float", "double", "XgpuDeviceSize",
                "XgpuDeviceAddress"}
# Structures printed beside the queries' (xgpuinfo's layer list).
EXTRA_STRUCTS = ["XgpuLayerProperties"]


def _queries(reg: Registry) -> list[tuple[Command, Param, bool]]:
    """[(command, output parameter, enumerates)] of the xgpuGetPhysicalDevice* commands."""
    out = []
    for c in reg.commands:
        if c.level != "physical_device" or not c.name.startswith("xgpuGetPhysicalDevice"):
            continue
        if c.ret != "void":
            raise ValueError(f"{c.name}: xgpuinfo_gen expects a query returning void")
        last = c.params[-1]
        if not reg.struct(last.base_type) or last.pointer_depth != 1:
            raise ValueError(f"{c.name}: xgpuinfo_gen expects a structure output as the last parameter")
        if len(c.params) == 2:
            out.append((c, last, False))
        elif len(c.params) == 3 and last.len == c.params[1].base_name and c.params[1].type == "uint32_t*":
            out.append((c, last, True))
        else:
            raise ValueError(f"{c.name}: xgpuinfo_gen knows queries (physicalDevice, T*) and "
                             "(physicalDevice, uint32_t*, T*)")
    return out


def _field_name(param: Param) -> str:
    """pQueueFamilyProperties -> queueFamilyProperties."""
    name = param.base_name[1:] if param.base_name.startswith("p") else param.base_name
    return name[0].lower() + name[1:]


def _structs(reg: Registry, roots: list[str]) -> list[Struct]:
    """The structures reachable from roots, each after those it contains."""
    order: list[Struct] = []

    def visit(name: str) -> None:
        s = reg.struct(name)
        if s is None or s in order:
            return
        for m in s.members:
            visit(m.base_type)
        order.append(s)

    for r in roots:
        visit(r)
    return order


class _Printer:
    def __init__(self, reg: Registry):
        self.reg = reg
        self.enums = {e.name: e for e in reg.enums}
        self.bitmasks = {b.name: b for b in reg.bitmasks if b.bits}

    def kind(self, s: Struct, m: Param) -> str:
        counts = {x.len for x in s.members if x.len}
        if m.base_name in counts:
            return "count"
        if m.type == "char" and m.array_len:
            return "string"
        if m.pointer_depth:
            raise ValueError(f"{s.name}.{m.name}: xgpuinfo_gen cannot print a pointer member")
        t = m.base_type
        if self.reg.struct(t):
            return "struct_array" if m.array_len else "struct"
        if m.array_len:
            if t in NUMBER_TYPES:
                return "number_array"
            raise ValueError(f"{s.name}.{m.name}: xgpuinfo_gen cannot print an array of {t}")
        if m.base_name in VERSION_MEMBERS:
            return "version"
        if t in self.enums:
            return "enum"
        if t in self.bitmasks:
            return "flags"
        if t == "XgpuBool32":
            return "bool"
        if t in NUMBER_TYPES:
            return "hex" if m.base_name in HEX_MEMBERS else "number"
        raise ValueError(f"{s.name}.{m.name}: xgpuinfo_gen does not know how to print a {t}")

    def prefix_of(self, t: str) -> str:
        """The enumerants' common prefix: XgpuQueueFlags -> XGPU_QUEUE_, XgpuPhysicalDeviceType -> ..._TYPE_."""
        if t in self.bitmasks:
            return upper_snake(self.bitmasks[t].bits[:-len("FlagBits")]) + "_"
        return upper_snake(t) + "_"

    def json_value(self, s: Struct, m: Param, expr: str) -> str:
        """A C++ expression: the member's JSON value."""
        k = self.kind(s, m)
        t = m.base_type
        if k == "string":
            return f"Text({expr}, sizeof({expr}))"
        if k == "version":
            return f"Version({expr})"
        if k == "enum":
            fn = "xgpu" + t[len("Xgpu"):] + "String"
            return f'ShortName({fn}({expr}), "{self.prefix_of(t)}")'
        if k == "flags":
            fn = "xgpu" + t[len("Xgpu"):] + "String"
            return f'FlagNames({expr}, {fn}({expr}, names, sizeof(names)), "{self.prefix_of(t)}")'
        if k == "bool":
            return f"({expr} != XGPU_FALSE)"
        if k == "struct":
            return f"ToJson({expr})"
        return expr

    def text_value(self, s: Struct, m: Param, expr: str) -> str:
        """A C++ std::string expression: the member's text (scalar kinds)."""
        k = self.kind(s, m)
        if k in ("string", "version", "enum"):
            return self.json_value(s, m, expr)
        if k == "flags":
            return f"Join({self.json_value(s, m, expr)})"
        if k == "bool":
            return f'std::string({expr} != XGPU_FALSE ? "true" : "false")'
        if k == "hex":
            return f"xgpu_common::hex({expr})"
        if k == "number" and m.base_type == "XgpuDeviceSize" and "bytes" in m.comment:
            return f"Bytes({expr})"
        if k == "number_array":
            return f"NumberArray({expr}).dump()"
        return f"ordered_json({expr}).dump()"

    def struct_functions(self, s: Struct, inline: bool) -> list[str]:
        """ToJson and PrintText of s, and Inline when s is an array's element."""
        out = [f"// {s.name}: {s.comment}"]
        # JSON: one key per member (a counted array carries its count).
        out.append(f"inline ordered_json ToJson(const {s.name}& s) {{")
        out.append("  ordered_json j = ordered_json::object();")
        if any(self.kind(s, m) == "flags" for m in s.members):
            out.append("  char names[XGPU_FLAGS_STRING_SIZE];")
        for m in s.members:
            k, name, expr = self.kind(s, m), m.base_name, f"s.{m.base_name}"
            if k == "count":
                continue
            if k == "struct_array":
                bound = self._bound(m, "s.")
                out.append(f'  j["{name}"] = ordered_json::array();')
                out.append(f"  for (size_t i = 0; i < {bound}; ++i) j[\"{name}\"].push_back(ToJson({expr}[i]));")
            elif k == "number_array":
                out.append(f'  j["{name}"] = NumberArray({expr});')
            else:
                out.append(f'  j["{name}"] = {self.json_value(s, m, expr)};')
        out.append("  return j;")
        out.append("}")
        out.append("")
        # Text, one line per member ("name  value"); a structure member as
        # its name and its members indented; a counted array as its name and
        # count, then one line per element.
        out.append(f"inline void PrintText(const {s.name}& s, int indent) {{")
        if any(self.kind(s, m) == "flags" for m in s.members):
            out.append("  char names[XGPU_FLAGS_STRING_SIZE];")
        for m in s.members:
            k, name, expr = self.kind(s, m), m.base_name, f"s.{m.base_name}"
            if k == "count":
                continue
            if k == "struct":
                out.append(f'  Heading(indent, "{name}");')
                out.append(f"  PrintText({expr}, indent + 2);")
            elif k == "struct_array":
                bound = self._bound(m, "s.")
                out.append(f'  Heading(indent, "{name}", {bound});')
                out.append(f"  for (size_t i = 0; i < {bound}; ++i) Element(indent + 2, i, Inline({expr}[i]));")
            else:
                out.append(f'  Line(indent, "{name}", {self.text_value(s, m, expr)});')
        out.append("}")
        out.append("")
        if not inline:
            return out
        # One line: "name value, name value" (an element of an array).
        out.append(f"inline std::string Inline(const {s.name}& s) {{")
        out.append("  std::string out;")
        if any(self.kind(s, m) == "flags" for m in s.members):
            out.append("  char names[XGPU_FLAGS_STRING_SIZE];")
        for m in s.members:
            k, name, expr = self.kind(s, m), m.base_name, f"s.{m.base_name}"
            if k == "count":
                continue
            if k in ("struct", "struct_array"):
                raise ValueError(f"{s.name}.{m.name}: an array element with structures inside "
                                 "has no one-line form in xgpuinfo_gen")
            out.append(f'  Append(&out, "{name}", {self.text_value(s, m, expr)});')
        out.append("  return out;")
        out.append("}")
        out.append("")
        return out

    @staticmethod
    def _bound(m: Param, prefix: str) -> str:
        """Elements of an array member to print: its count member's value, at most its size."""
        size = f"sizeof({prefix}{m.base_name}) / sizeof({prefix}{m.base_name}[0])"
        if m.len:
            return f"std::min<size_t>({prefix}{m.len}, {size})"
        return size


PREAMBLE = r"""// xgpuinfo's queries of a physical device and the printing of every
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
"""


def generate(reg: Registry) -> str:
    queries = _queries(reg)
    printer = _Printer(reg)
    lines = [banner("xgpuinfo's physical-device queries and structure printers").rstrip("\n"), PREAMBLE]
    structs = _structs(reg, [p.base_type for _, p, _ in queries] + EXTRA_STRUCTS)
    elements = {p.base_type for _, p, enumerates in queries if enumerates}
    elements |= {m.base_type for s in structs for m in s.members if printer.kind(s, m) == "struct_array"}
    for s in structs:
        lines += printer.struct_functions(s, s.name in elements)
    # What the queries return, together.
    lines.append("// Everything the xgpuGetPhysicalDevice* queries return about one device.")
    lines.append("struct PhysicalDeviceInfo {")
    for c, p, enumerates in queries:
        t = f"std::vector<{p.base_type}>" if enumerates else p.base_type
        lines.append(f"  {t} {_field_name(p)}{{}};  // {c.name}")
    lines.append("};")
    lines.append("")
    lines.append("inline PhysicalDeviceInfo QueryPhysicalDevice(XgpuPhysicalDevice device) {")
    lines.append("  PhysicalDeviceInfo info;")
    for c, p, enumerates in queries:
        field = f"info.{_field_name(p)}"
        if enumerates:
            lines.append("  {")
            lines.append("    uint32_t count = 0;")
            lines.append(f"    {c.name}(device, &count, nullptr);")
            lines.append(f"    {field}.resize(count);")
            lines.append(f"    if (count) {c.name}(device, &count, {field}.data());")
            lines.append(f"    {field}.resize(count);")
            lines.append("  }")
        else:
            lines.append(f"  {c.name}(device, &{field});")
    lines.append("  return info;")
    lines.append("}")
    lines.append("")
    lines.append("// One object: the members of each filled structure, then one array per enumeration.")
    lines.append("inline ordered_json ToJson(const PhysicalDeviceInfo& info) {")
    lines.append("  ordered_json j = ordered_json::object();")
    for c, p, enumerates in queries:
        field = _field_name(p)
        if enumerates:
            lines.append(f'  j["{field}"] = ordered_json::array();')
            lines.append(f'  for (const auto& e : info.{field}) j["{field}"].push_back(ToJson(e));')
        else:
            lines.append(f"  j.update(ToJson(info.{field}));")
    lines.append("  return j;")
    lines.append("}")
    lines.append("")
    lines.append("inline void PrintText(const PhysicalDeviceInfo& info, int indent) {")
    for c, p, enumerates in queries:
        field = _field_name(p)
        if enumerates:
            lines.append(f'  Heading(indent, "{field}", info.{field}.size());')
            lines.append(f"  for (size_t i = 0; i < info.{field}.size(); ++i) "
                         f"Element(indent + 2, i, Inline(info.{field}[i]));")
        else:
            lines.append(f"  PrintText(info.{field}, indent);")
    lines.append("}")
    lines.append("")
    lines.append("}  // namespace xgpuinfo")
    return "\n".join(lines) + "\n"


OUTPUTS = [(OUTPUT, generate)]
