"""Helpers shared by every generator: banners and C formatting."""
from __future__ import annotations

BANNER = ("/*\n"
          " * {what}\n"
          " *\n"
          " * Generated from spec/xgpu.json by spec/generate.py. Do not edit: change the\n"
          " * registry (or the generator) and run `python3 spec/generate.py`.\n"
          " */\n")


def banner(what: str) -> str:
    return BANNER.format(what=what)


def align_comments(rows: list[tuple[str, str]], indent: str = "    ") -> list[str]:
    """[(code, comment)] -> lines with the comments in one column."""
    width = max((len(code) for code, _ in rows), default=0)
    out = []
    for code, comment in rows:
        if comment:
            out.append(f"{indent}{code.ljust(width)}  /* {comment} */")
        else:
            out.append(f"{indent}{code}")
    return out


def pfn_struct(name: str, cmds, comment: str, indent: str = "    ") -> list[str]:
    """A typedef'd struct with one PFN_ member per command, named by its short name."""
    out = [f"/* {comment} */", f"typedef struct {name} {{"]
    out += [f"{indent}{c.pfn} {c.short_name};" for c in cmds]
    out += [f"}} {name};"]
    return out


def gpa_init_function(fn: str, table_type: str, cmds, gpa_type: str, handle_type: str, handle_name: str,
                      comment: str, qualifiers: str = "static inline", indent: str = "    ") -> list[str]:
    """A function filling every member of a pfn_struct with gpa(handle, "xgpuFoo")."""
    out = [f"/* {comment} */",
           f"{qualifiers} void {fn}({table_type}* table, {gpa_type} gpa, {handle_type} {handle_name}) {{"]
    out += [f"{indent}table->{c.short_name} = ({c.pfn})gpa({handle_name}, \"{c.name}\");" for c in cmds]
    out += ["}"]
    return out


def lookup_function(fn: str, table_type: str, cmds, comment: str, qualifiers: str = "static inline",
                    indent: str = "    ") -> list[str]:
    """A function returning the member of a pfn_struct named "xgpuFoo", or NULL."""
    out = [f"/* {comment} */",
           f"{qualifiers} PFN_xgpuVoidFunction {fn}(const {table_type}* table, const char* name) {{",
           f"{indent}if (!name || strncmp(name, \"xgpu\", 4) != 0) return NULL;",
           f"{indent}name += 4;"]
    out += [f"{indent}if (strcmp(name, \"{c.short_name}\") == 0) return (PFN_xgpuVoidFunction)table->{c.short_name};"
            for c in cmds]
    out += [f"{indent}return NULL;", "}"]
    return out
