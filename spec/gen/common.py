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
