"""Fills the generated regions of the meta-loader (volk pattern): the
function-pointer declarations and name macros of include/xgpu/xgpu_meta.h and
the definitions and load lists of loader/meta/xgpu_meta.c.

The rest of both files is written by hand; a region is the text between
`/* XGPU_META_GENERATED_BEGIN <name> */` and `/* XGPU_META_GENERATED_END <name> */`.
"""
from __future__ import annotations

import re
from pathlib import Path

from .registry import Registry

ROOT = Path(__file__).resolve().parent.parent.parent
HEADER = "include/xgpu/xgpu_meta.h"
SOURCE = "loader/meta/xgpu_meta.c"
PREFIX = "xgpumeta_"


def _pointer(cmd) -> str:
    return PREFIX + cmd.name


def _regions_header(reg: Registry) -> dict[str, list[str]]:
    return {
        "declarations": [f"extern {c.pfn} {_pointer(c)};" for c in reg.commands],
        "names": [f"#define {c.name} {_pointer(c)}" for c in reg.commands],
    }


def _regions_source(reg: Registry) -> dict[str, list[str]]:
    ind = "  "
    return {
        "definitions": [f"{c.pfn} {_pointer(c)};" for c in reg.commands],
        "load_global": [f"{ind}{_pointer(c)} = ({c.pfn})load(NULL, \"{c.name}\");"
                        for c in reg.global_commands if c.name != "xgpuGetInstanceProcAddr"],
        "load_instance": [f"{ind}{_pointer(c)} = ({c.pfn})load(instance, \"{c.name}\");"
                          for c in reg.instance_table_commands + reg.device_table_commands],
        "load_device": [f"{ind}{_pointer(c)} = table.{c.short_name};" for c in reg.device_table_commands],
        "reset": [f"{ind}{_pointer(c)} = NULL;" for c in reg.commands],
    }


def _fill(rel: str, regions: dict[str, list[str]]) -> str:
    text = (ROOT / rel).read_text()
    for name, lines in regions.items():
        pattern = re.compile(r"(?P<indent>[ \t]*)/\* XGPU_META_GENERATED_BEGIN " + name + r" \*/\n.*?"
                             r"(?P=indent)/\* XGPU_META_GENERATED_END " + name + r" \*/", re.S)
        m = pattern.search(text)
        if not m:
            raise ValueError(f"{rel}: no XGPU_META_GENERATED region '{name}'")
        indent = m.group("indent")
        body = "".join(line + "\n" for line in lines)
        replacement = (f"{indent}/* XGPU_META_GENERATED_BEGIN {name} */\n{body}"
                       f"{indent}/* XGPU_META_GENERATED_END {name} */")
        text = text[:m.start()] + replacement + text[m.end():]
    return text


OUTPUTS = [
    (HEADER, lambda reg: _fill(HEADER, _regions_header(reg))),
    (SOURCE, lambda reg: _fill(SOURCE, _regions_source(reg))),
]
