#!/usr/bin/env python3
"""Checks every #include in the repository against the include rules the
folders' READMEs state ("May include" / "Who may include it"), and the
libraries linked against the link rules they state, so the layout cannot
silently decay.

    python3 tests/includes/check_includes.py [<repository root>] [--expect <file>]

Each rule names the README it comes from. An include is resolved to a file of
the repository when it names one ("..." relative to the including file first,
then by its path suffix; <...> only under an include/ folder); anything else is
a system or generated header. Kernel code
(a file that includes <xgpu/kernel.h>, and every repository header it
includes) may include only freestanding headers and never the host API.
The per-header rules are read from include/xgpu/README.md's table: a header
may be included only from the folders its "who may include it" column names
in backticks (and from include/xgpu/ itself). The link rules are read from
each library's README (LINK_RULES): the folders named in backticks on its
"Linked directly" line are the only ones whose CMakeLists.txt may link it.
Exits 1 and lists each violation as file:line.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

# (component folder, README stating the rule, repository paths it may include
# (folders end in "/")). The longest matching folder applies.
RULES = [
    ("include/xgpu/", "include/xgpu/README.md", ["include/xgpu/"]),
    ("loader/", "loader/README.md", ["loader/", "include/xgpu/"]),
    ("hsa-core/", "hsa-core/README.md", ["hsa-core/"]),
    ("hsa-cpu/", "hsa-cpu/README.md", ["hsa-cpu/", "hsa-core/include/", "include/xgpu/host_kernel.h"]),
    ("hsa-cuda/", "hsa-cuda/README.md", ["hsa-cuda/", "hsa-core/include/"]),
    ("common/", "common/README.md", ["common/", "include/xgpu/"]),
    ("executable/", "executable/README.md", ["executable/", "include/xgpu/", "common/include/"]),
    ("tools/", "tools/README.md", ["tools/", "executable/xgpu_executable.h", "include/xgpu/", "common/include/"]),
    ("icd/amdgpu/device/", "icd/amdgpu/device/README.md", ["icd/amdgpu/device/", "include/xgpu/kernel.h",
                                                           "include/xgpu/host_kernel.h",
                                                           "include/xgpu/executable_format.h"]),
    ("icd/amdgpu/", "icd/amdgpu/README.md", ["icd/amdgpu/", "executable/xgpu_executable.h", "include/xgpu/",
                                             "hsa-cpu/include/hsa_cpu_ext.h", "common/include/"]),
    ("layers/", "layers/validation/README.md", ["layers/", "include/xgpu/", "executable/xgpu_executable.h",
                                                "common/include/"]),
    ("samples/", "samples/README.md", ["samples/", "include/xgpu/xgpu.h", "include/xgpu/xgpu_enum_string.h",
                                       "include/xgpu/kernel.h"]),
    ("bench/", "bench/README.md", ["bench/", "include/xgpu/"]),
    ("tests/", "tests/README.md", ["tests/", "include/xgpu/", "executable/xgpu_executable.h",
                                   "hsa-cpu/include/hsa_cpu_ext.h", "common/include/"]),
    # The one unit test that compiles a component's private sources in
    # (tests/README.md; its CMakeLists.txt says so).
    ("tests/icd-commands/", "tests/README.md", ["tests/", "include/xgpu/", "executable/xgpu_executable.h",
                                                "hsa-cpu/include/hsa_cpu_ext.h", "icd/amdgpu/", "common/include/"]),
]

# The per-header table (header, "who may include it" column).
HEADER_TABLE = "include/xgpu/README.md"
HEADER_TABLE_COLUMN = "who may include it"
# (CMake target, README whose "- Linked directly" line names the folders that
# may link it).
LINK_RULES = [("xgpu-hsa-cpu", "hsa-cpu/README.md"), ("xgpu-hsa-core", "hsa-core/README.md")]
LINKED_LINE = "- Linked directly"
FOLDER = re.compile(r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*/)`")
TARGET_LINK = re.compile(r"target_link_libraries\s*\(([^)]*)\)", re.S)

# What kernel code may include besides repository headers: clang's
# freestanding headers (icd/amdgpu/device/README.md, include/xgpu/README.md).
FREESTANDING = {"stdint.h", "stddef.h", "stdbool.h", "stdalign.h", "stdarg.h", "stdatomic.h", "float.h",
                "limits.h", "iso646.h", "stdnoreturn.h"}
# What the public headers may include besides each other (include/xgpu/README.md:
# "nothing from outside this folder except the C standard headers").
C_STANDARD = FREESTANDING | {"string.h", "stdlib.h", "stdio.h", "assert.h", "errno.h", "math.h", "inttypes.h"}

SOURCE_SUFFIXES = (".c", ".cpp", ".cc", ".h", ".hpp", ".inc", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


# Not sources of the tree: build trees, and files that exist to break rules
# (kernels that must not compile, this test's own decayed example tree).
SKIPPED_FOLDERS = {".git", ".cache", "build", "__pycache__"}
EXEMPT = ("tests/kernels/must_fail/", "tests/includes/decayed/")


def repository_files(root: Path) -> list[str]:
    out = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS)
        for name in names:
            if name.endswith(SOURCE_SUFFIXES):
                out.append((Path(folder) / name).relative_to(root).as_posix())
    return sorted(f for f in out if not f.startswith(EXEMPT))


def rule_for(path: str):
    best = None
    for rule in RULES:
        if path.startswith(rule[0]) and (best is None or len(rule[0]) > len(best[0])):
            best = rule
    return best


def header_rules(root: Path) -> tuple[dict[str, list[str]], list[str]]:
    """({include/xgpu/<header>: folders that may include it}, problems with the table) from
    HEADER_TABLE; none when the tree has no such README (the decayed tree may not)."""
    path = root / HEADER_TABLE
    if not path.exists():
        return {}, []
    rules, problems, column = {}, [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if not cells:
            continue
        if column is None:
            if HEADER_TABLE_COLUMN in cells:
                column = cells.index(HEADER_TABLE_COLUMN)
            continue
        header = re.fullmatch(r"`([^`/]+\.h)`", cells[0])
        if not header or len(cells) <= column:
            continue
        folders = FOLDER.findall(cells[column])
        if not folders:
            problems.append(f"{HEADER_TABLE}:{number}: the row of {header.group(1)} names no folder in backticks "
                            f"in its \"{HEADER_TABLE_COLUMN}\" column")
        rules["include/xgpu/" + header.group(1)] = folders
    if column is None:
        problems.append(f"{HEADER_TABLE}: no table with a \"{HEADER_TABLE_COLUMN}\" column")
    return rules, problems


def link_violations(root: Path) -> list[str]:
    """Links of LINK_RULES' targets from folders their README does not name."""
    out = []
    for target, readme in LINK_RULES:
        path = root / readme
        if not path.exists():
            continue
        text = path.read_text()
        start = text.find(LINKED_LINE)
        if start < 0:
            out.append(f"{readme}: no \"{LINKED_LINE}\" line names the folders that may link {target}")
            continue
        end = text.find("\n- ", start + 1)
        folders = FOLDER.findall(text[start:end if end >= 0 else len(text)])
        owner = readme.rsplit("/", 1)[0] + "/"
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS)
            if "CMakeLists.txt" not in names:
                continue
            cmake = (Path(folder) / "CMakeLists.txt").relative_to(root).as_posix()
            if cmake.startswith(EXEMPT):
                continue
            source = (Path(folder) / "CMakeLists.txt").read_text(errors="replace")
            for m in TARGET_LINK.finditer(source):
                if target not in m.group(1).split():
                    continue
                number = source.count("\n", 0, m.start()) + 1
                if not allowed(cmake, [owner] + folders):
                    out.append(f"{cmake}:{number}: links {target}: only {', '.join(folders)} may ({readme})")
    return out


def allowed(target: str, prefixes: list[str]) -> bool:
    return any(target == p or (p.endswith("/") and target.startswith(p)) for p in prefixes)


def violations_in(root: Path) -> tuple[list[str], int, int, int]:
    """(violations, includes checked, files, files of kernel code) of the tree at root."""
    files = repository_files(root)
    by_suffix: dict[str, list[str]] = {}
    for f in files:
        parts = f.split("/")
        for i in range(len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append(f)

    def resolve(includer: str, delimiter: str, name: str) -> str | None:
        if delimiter == "<":
            # <...> names a repository header only under an include/ folder
            # (<xgpu/xgpu.h>, <xgpu_amdgpu/commands.h>); <signal.h> is libc's
            # even where a component has a signal.h of its own.
            matches = [c for c in by_suffix.get(name, []) if c.endswith("include/" + name)]
            return matches[0] if matches else None
        local = (Path(includer).parent / name).as_posix()
        local = str(Path(local)) if ".." not in local else str((root / local).resolve().relative_to(root))
        if local in files:
            return local
        candidates = by_suffix.get(name.lstrip("./"), [])
        if len(candidates) == 1:
            return candidates[0]
        # Several files end the same way: the one in the includer's component.
        rule = rule_for(includer)
        near = [c for c in candidates if rule and c.startswith(rule[0])]
        return near[0] if len(near) == 1 else (candidates[0] if candidates else None)

    includes: dict[str, list[tuple[int, str, str, str | None]]] = {}
    for f in files:
        entries = []
        for number, line in enumerate((root / f).read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if m:
                entries.append((number, m.group(1), m.group(2), resolve(f, m.group(1), m.group(2))))
        includes[f] = entries

    # Kernel code: includes <xgpu/kernel.h>, or is a repository header that kernel code includes.
    kernel_code = {f for f, entries in includes.items() if any(t == "include/xgpu/kernel.h" for *_, t in entries)}
    kernel_code.discard("include/xgpu/kernel.h")
    frontier = list(kernel_code)
    while frontier:
        f = frontier.pop()
        for *_, target in includes[f]:
            if target and target not in kernel_code and not target.startswith("include/xgpu/"):
                kernel_code.add(target)
                frontier.append(target)

    per_header, violations = header_rules(root)
    checked = 0
    for f, entries in includes.items():
        rule = rule_for(f)
        for number, delimiter, name, target in entries:
            checked += 1
            where = f"{f}:{number}: #include {delimiter}{name}{'>' if delimiter == '<' else delimiter}"
            if target is None:
                if f in kernel_code and name not in FREESTANDING:
                    violations.append(f"{where}: kernel code includes what is not a freestanding header "
                                      "(icd/amdgpu/device/README.md, include/xgpu/README.md)")
                elif f.startswith("include/xgpu/") and name not in C_STANDARD:
                    violations.append(f"{where}: a public header includes something outside include/xgpu "
                                      "other than the C standard headers (include/xgpu/README.md)")
                continue
            if target.startswith("tests/") and not f.startswith("tests/"):
                violations.append(f"{where} ({target}): nothing outside tests/ includes tests/ (tests/README.md)")
            elif rule and not allowed(target, rule[2]):
                violations.append(f"{where} ({target}): {rule[0]} may not include it ({rule[1]})")
            if f in kernel_code and target == "include/xgpu/xgpu.h":
                violations.append(f"{where}: kernel code includes the host API (include/xgpu/README.md)")
            if target == "include/xgpu/kernel.h" and f not in kernel_code:
                violations.append(f"{where}: only kernel code includes kernel.h (include/xgpu/README.md)")
            if target in per_header and not f.startswith("include/xgpu/") and not allowed(f, per_header[target]):
                violations.append(f"{where}: {target.rsplit('/', 1)[1]} may be included only from "
                                  f"{', '.join(per_header[target])} ({HEADER_TABLE})")

    violations += link_violations(root)
    return violations, checked, len(files), len(kernel_code)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--expect", type=Path,
                    help="pass only when the violations are exactly this file's lines (a test of the checker)")
    args = ap.parse_args()
    violations, checked, file_count, kernel_count = violations_in(args.root.resolve())
    if args.expect:
        expected = [line.strip() for line in args.expect.read_text().splitlines() if line.strip()]
        if sorted(violations) != sorted(expected):
            print("expected violations:\n  " + "\n  ".join(sorted(expected)))
            print("found:\n  " + "\n  ".join(sorted(violations)))
            return 1
        print(f"the {len(expected)} expected violations were found")
        return 0
    if violations:
        print(f"{len(violations)} include(s) break the rules the READMEs state:")
        for v in violations:
            print("  " + v)
        return 1
    print(f"{checked} includes in {file_count} files follow the READMEs' rules "
          f"({kernel_count} files of kernel code)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
