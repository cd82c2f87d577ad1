"""Generates icd/amdgpu/src/generated/vuid_ids.h: one constant per rule of
spec/vuids.json, so that the AMDGPU driver names the rules it reports with
the registry's IDs (`vuid::xgpuCreatePipeline_pCreateInfo_layout_declared`)
instead of string literals that can drift from them: a rule renamed or
removed in the registry no longer compiles where the driver cites it."""
from __future__ import annotations

from .common import banner
from .registry import Registry
from .vlayer_gen import checked_vuids

OUTPUT = "icd/amdgpu/src/generated/vuid_ids.h"


def symbol(vuid: str) -> str:
    """XGPU-VUID-xgpuFoo-pBar-sType -> xgpuFoo_pBar_sType (rule names hold no '_')."""
    return vuid[len("XGPU-VUID-"):].replace("-", "_")


def generate(reg: Registry) -> str:
    entries = checked_vuids(reg)
    out = [banner(OUTPUT + ": the ID of every rule of spec/vuids.json, for the AMDGPU driver's\n"
                  " * messages (vuid::<command>_<rule>, the ID's '-' as '_')."),
           "#pragma once", "", "namespace xgpu::amdgpu::vuid {", ""]
    for e in entries:
        out.append(f"inline constexpr char {symbol(e['id'])}[] = \"{e['id']}\";")
    out += ["", "}  // namespace xgpu::amdgpu::vuid", ""]
    return "\n".join(out)


OUTPUTS = [(OUTPUT, generate)]
