"""Generates include/xgpu/xgpu_enum_string.h: the names of enumerants and flag
bits as strings (the way Vulkan has vk_enum_string_helper.h)."""
from __future__ import annotations

from .common import banner
from .registry import Registry, upper_snake

PREAMBLE = r"""
#ifndef XGPU_ENUM_STRING_H_
#define XGPU_ENUM_STRING_H_ 1

#include <stddef.h>

#include "xgpu/xgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One flag bit and its name (the tables of the *FlagsString functions). */
typedef struct XgpuFlagBitName {
    XgpuFlags bit;     /* a single bit */
    const char* name;  /* its enumerant's name, e.g. "XGPU_QUEUE_COMPUTE_BIT" */
} XgpuFlagBitName;

/* Appends text at out[*length], keeping out NUL-terminated within size bytes;
 * *length counts what would have been written (as snprintf does). */
static inline void xgpuEnumStringAppend_(char* out, size_t size, size_t* length, const char* text) {
    for (; *text; ++text, ++*length)
        if (*length + 1 < size) out[*length] = *text;
    if (size > 0) out[*length < size ? *length : size - 1] = '\0';
}

/* "NAME_A | NAME_B", unknown bits last as one hexadecimal number, "0" when
 * no bit is set. Writes at most size bytes (always NUL-terminated when size
 * > 0; XGPU_FLAGS_STRING_SIZE bytes always suffice) and returns out. */
static inline const char* xgpuFlagsString_(XgpuFlags flags, const XgpuFlagBitName* names, size_t count,
                                           char* out, size_t size) {
    static const char digits[] = "0123456789ABCDEF";
    size_t length = 0;
    size_t i;
    XgpuFlags unknown = flags;
    if (size > 0) out[0] = '\0';
    for (i = 0; i < count; ++i) {
        if (!(flags & names[i].bit)) continue;
        if (length > 0) xgpuEnumStringAppend_(out, size, &length, " | ");
        xgpuEnumStringAppend_(out, size, &length, names[i].name);
        unknown &= ~names[i].bit;
    }
    if (unknown != 0 || flags == 0) {
        char hex[2 + 2 * sizeof(XgpuFlags) + 1];
        size_t n = 0;
        int shift;
        int started = 0;
        if (length > 0) xgpuEnumStringAppend_(out, size, &length, " | ");
        if (unknown == 0) {
            hex[n++] = '0';
        } else {
            hex[n++] = '0';
            hex[n++] = 'x';
            for (shift = 8 * (int)sizeof(XgpuFlags) - 4; shift >= 0; shift -= 4) {
                unsigned digit = (unsigned)(unknown >> shift) & 0xFu;
                if (digit != 0 || started) {
                    hex[n++] = digits[digit];
                    started = 1;
                }
            }
        }
        hex[n] = '\0';
        xgpuEnumStringAppend_(out, size, &length, hex);
    }
    return out;
}
"""

POSTAMBLE = r"""
#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XGPU_ENUM_STRING_H_ */
"""


def _function_stem(type_name: str) -> str:
    """XgpuResult -> xgpuResult."""
    return "xgpu" + type_name[len("Xgpu"):]


def generate(reg: Registry) -> str:
    out: list[str] = [banner(
        "xgpu_enum_string.h: names of the API's enumerants and flag bits (C99, header only).\n"
        " *\n"
        " *   const char* xgpu<Enum>String(Xgpu<Enum> value)       e.g. xgpuResultString(XGPU_TIMEOUT)\n"
        " *                                                         == \"XGPU_TIMEOUT\"\n"
        " *   const char* xgpu<Name>FlagBitsString(bit)             one bit's name\n"
        " *   const char* xgpu<Name>FlagsString(flags, out, size)   \"A_BIT | B_BIT\" into out\n"
        " *\n"
        " * A value the registry does not name gives \"(unknown Xgpu<Enum>)\" (never NULL);\n"
        " * unknown flag bits are written as one hexadecimal number.\n"
        " *\n"
        " * Thread-safety: every function is reentrant; the strings are static."),
        PREAMBLE]

    flag_sizes = []
    for b in reg.bitmasks:
        if not b.bits:
            continue
        names = [v.name for v in b.values]
        flag_sizes.append(sum(len(n) for n in names) + len(" | ") * len(names) + len("0xFFFFFFFF") + 1)
    out.append("/* Bytes that hold any *FlagsString result, unknown bits included. */")
    out.append(f"#define XGPU_FLAGS_STRING_SIZE {max(flag_sizes, default=16)}")
    out.append("")

    out.append("/* Enumerations. */")
    for e in reg.enums:
        fn = _function_stem(e.name) + "String"
        out.append(f"/* The name of an {e.name} value. */")
        out.append(f"static inline const char* {fn}({e.name} value) {{")
        out.append("    switch (value) {")
        for v in e.values:
            out.append(f"        case {v.name}: return \"{v.name}\";")
        out.append(f"        case {e.max_enum}: break;")
        out.append("    }")
        out.append(f"    return \"(unknown {e.name})\";")
        out.append("}")
        out.append("")

    out.append("/* Flags. */")
    for b in reg.bitmasks:
        if not b.bits:
            continue
        bits_fn = _function_stem(b.bits) + "String"
        flags_fn = _function_stem(b.name) + "String"
        table = f"{_function_stem(b.name)}Names_"
        out.append(f"/* The name of an {b.bits} bit. */")
        out.append(f"static inline const char* {bits_fn}({b.bits} bit) {{")
        out.append("    switch (bit) {")
        for v in b.values:
            out.append(f"        case {v.name}: return \"{v.name}\";")
        out.append(f"        case {upper_snake(b.bits)}_MAX_ENUM: break;")
        out.append("    }")
        out.append(f"    return \"(unknown {b.bits})\";")
        out.append("}")
        out.append("")
        out.append(f"/* {b.name} as \"A_BIT | B_BIT\" into out (see xgpuFlagsString_). */")
        out.append(f"static inline const char* {flags_fn}({b.name} flags, char* out, size_t size) {{")
        out.append(f"    static const XgpuFlagBitName {table}[] = {{")
        for v in b.values:
            out.append(f"        {{{v.name}, \"{v.name}\"}},")
        out.append("    };")
        out.append(f"    return xgpuFlagsString_(flags, {table}, sizeof({table}) / sizeof({table}[0]), out, size);")
        out.append("}")
        out.append("")

    out.append(POSTAMBLE)
    return "\n".join(out).rstrip("\n") + "\n"
