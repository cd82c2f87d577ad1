"""Generates include/xgpu/xgpu.h, the C99 API header."""
from __future__ import annotations

from .common import align_comments, banner
from .registry import Registry, upper_snake

PREAMBLE = r"""
#ifndef XGPU_H_
#define XGPU_H_ 1

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calling-convention decoration of every entry point (empty on Linux). */
#ifndef XGPU_API_ATTR
#define XGPU_API_ATTR
#endif
#ifndef XGPU_API_CALL
#define XGPU_API_CALL
#endif
#ifndef XGPU_API_PTR
#define XGPU_API_PTR XGPU_API_CALL
#endif

/* Versions: variant (3 bits), major (7), minor (10), patch (12). */
#define XGPU_MAKE_API_VERSION(variant, major, minor, patch) \
    ((((uint32_t)(variant)) << 29U) | (((uint32_t)(major)) << 22U) | \
     (((uint32_t)(minor)) << 12U) | ((uint32_t)(patch)))
#define XGPU_API_VERSION_VARIANT(version) ((uint32_t)(version) >> 29U)
#define XGPU_API_VERSION_MAJOR(version) (((uint32_t)(version) >> 22U) & 0x7FU)
#define XGPU_API_VERSION_MINOR(version) (((uint32_t)(version) >> 12U) & 0x3FFU)
#define XGPU_API_VERSION_PATCH(version) ((uint32_t)(version) & 0xFFFU)

/* Handles. Dispatchable handles point at objects whose first word is the
 * loader's dispatch table; non-dispatchable handles are opaque pointers
 * (xgpu targets 64-bit platforms only). */
#define XGPU_DEFINE_HANDLE(object) typedef struct object##_T* object;
#define XGPU_DEFINE_NON_DISPATCHABLE_HANDLE(object) typedef struct object##_T* object;
#define XGPU_NULL_HANDLE 0
"""

POSTAMBLE = r"""
#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_H_ */
"""


def generate(reg: Registry) -> str:
    out: list[str] = [banner("xgpu.h: the xgpu C API (C99).\n *\n"
                             " * Thread-safety: spec/api.md, section 1 (\"Thread safety\"), states the rules\n"
                             " * and each command's section names what must be externally synchronized."), PREAMBLE]
    major, minor, patch = reg.api_version
    out.append(f"#define XGPU_API_VERSION_1_0 XGPU_MAKE_API_VERSION(0, {major}, {minor}, 0)")
    out.append(f"#define XGPU_HEADER_VERSION {reg.header_version}")
    out.append(f"#define XGPU_HEADER_VERSION_COMPLETE XGPU_MAKE_API_VERSION(0, {major}, {minor}, XGPU_HEADER_VERSION)")
    out.append("")
    out.append("/* Constants. */")
    for name, value, comment in reg.constants:
        out.append(f"#define {name} {value}  /* {comment} */")
    out.append("")
    out.append("/* Base types. */")
    for name, typ, comment in reg.basetypes:
        out.append(f"typedef {typ} {name};  /* {comment} */")
    out.append("")
    out.append("/* Handles. */")
    for h in reg.handles:
        macro = "XGPU_DEFINE_HANDLE" if h.dispatchable else "XGPU_DEFINE_NON_DISPATCHABLE_HANDLE"
        out.append(f"{macro}({h.name})")
    out.append("")

    out.append("/* Enumerations. */")
    for e in reg.enums:
        out.append(f"/* {e.comment} */")
        out.append(f"typedef enum {e.name} {{")
        rows = [(f"{v.name} = {v.value},", v.comment) for v in e.values]
        rows.append((f"{e.max_enum} = 0x7FFFFFFF", ""))
        out += align_comments(rows)
        out.append(f"}} {e.name};")
        out.append("")

    out.append("/* Flags. */")
    for b in reg.bitmasks:
        if b.bits:
            out.append(f"typedef enum {b.bits} {{")
            rows = [(f"{v.name} = {v.value},", v.comment) for v in b.values]
            rows.append((f"{upper_snake(b.bits)}_MAX_ENUM = 0x7FFFFFFF", ""))
            out += align_comments(rows)
            out.append(f"}} {b.bits};")
            out.append(f"typedef XgpuFlags {b.name};")
        else:
            out.append(f"typedef XgpuFlags {b.name};  /* {b.comment} */")
        out.append("")

    out.append("/* Function pointers supplied by the application. */")
    forward = ("XgpuDebugMessageData",)  # structs the function pointers name before their definition
    for name in forward:
        out.append(f"typedef struct {name} {name};")
    for f in reg.funcpointers:
        if f.comment:
            out.append(f"/* {f.comment} */")
        params = ", ".join(p.decl() for p in f.params) if f.params else "void"
        out.append(f"typedef {f.ret} (XGPU_API_PTR *{f.name})({params});")
    out.append("")

    out.append("/* Structures. */")
    for s in reg.structs:
        out.append(f"/* {s.comment} */")
        if s.name in forward:
            out.append(f"struct {s.name} {{")
        else:
            out.append(f"typedef struct {s.name} {{")
        out += align_comments([(m.decl() + ";", m.comment) for m in s.members])
        out.append("};" if s.name in forward else f"}} {s.name};")
        out.append("")

    if reg.inline_functions:
        out.append("/* Inline helpers: plain C99 constructors of common values (no entry points). */")
        for f in reg.inline_functions:
            out.append(f"/* {f.comment} */")
            out.append(f"static inline {f.ret} {f.name}({f.param_list()}) {{")
            out += [f"    {line}" for line in f.body]
            out.append("}")
            out.append("")

    out.append("/* Entry-point types. */")
    for c in reg.commands:
        out.append(f"typedef {c.ret} (XGPU_API_PTR *{c.pfn})({c.param_list()});")
    out.append("")
    out.append("#ifndef XGPU_NO_PROTOTYPES")
    level = None
    for c in reg.commands:
        if c.level != level:
            level = c.level
            out.append(f"\n/* {level.replace('_', ' ')}-level commands */")
        out.append(f"XGPU_API_ATTR {c.ret} XGPU_API_CALL {c.name}({c.param_list()});")
    out.append("#endif /* XGPU_NO_PROTOTYPES */")
    out.append(POSTAMBLE)
    return "\n".join(out)
