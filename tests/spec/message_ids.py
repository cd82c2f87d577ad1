#!/usr/bin/env python3
"""Checks the message IDs written in the sources against the documents that
define them (api.md 1.5):

  - every "XGPU-VUID-..." string literal in the loader, the drivers, the
    layers and the tests names a rule of spec/vuids.json;
  - an ID is never composed at run time from a "XGPU-VUID-" prefix (such an
    ID cannot be checked here), except at the sites listed in COMPOSED;
    a literal that is a VUID stem (an ID with parts missing) fails the
    first check;
  - every "XGPU-DRIVER-..." literal of icd/amdgpu/src is in the table of
    icd/amdgpu/README.md ("Message IDs"), and every ID of that table is used;
  - every "XGPU-LOADER-..." literal of loader/src is in the table of
    spec/loader.md ("Messages").

    python3 tests/spec/message_ids.py [repository root]

Exit status 1 with one line per problem. Python 3 standard library only.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]

SCANNED = ["icd", "loader", "layers", "tests", "tools", "samples"]
SOURCE_SUFFIXES = {".c", ".cpp", ".h", ".hpp", ".inc"}

# A complete ID inside a string literal, and a literal that is only the prefix.
VUID_LITERAL = re.compile(r'"(XGPU-VUID-[A-Za-z0-9_-]*[A-Za-z0-9])"')
VUID_COMPOSED = re.compile(r'"XGPU-VUID-"\)?\s*\+')
DRIVER_LITERAL = re.compile(r'"(XGPU-DRIVER-[A-Za-z0-9-]*[A-Za-z0-9])"')
LOADER_LITERAL = re.compile(r'"(XGPU-LOADER-[A-Za-z0-9-]*[A-Za-z0-9])"')

# Sites that still build a VUID from its parts ("XGPU-VUID-" + ...), by file:
# how many. A new one fails this test: write the ID as a literal.
COMPOSED: dict[str, int] = {}


def sources(root: Path):
    for top in SCANNED:
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                yield path


def table_ids(markdown: str, heading: str, prefix: str) -> set[str]:
    """IDs in the first column of the tables under `heading` (up to the next
    heading of the same level). A cell may list several IDs; `-what` after a
    full ID abbreviates prefix + what."""
    level = heading.split(" ")[0]
    start = markdown.index(heading + "\n")
    end = markdown.find("\n" + level + " ", start + len(heading))
    ids = set()
    for line in markdown[start:end if end >= 0 else None].splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        for name in re.findall(r"`([A-Za-z0-9-]+)`", cell):
            ids.add(name if name.startswith(prefix) else prefix + name.lstrip("-"))
    return ids


def main() -> int:
    problems = []
    rules = {v["id"] for v in json.loads((ROOT / "spec/vuids.json").read_text())["vuids"]}
    driver_ids_used: dict[str, str] = {}
    loader_ids_used: dict[str, str] = {}
    checked = 0
    for path in sources(ROOT):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for vuid in VUID_LITERAL.findall(line):
                checked += 1
                if vuid not in rules:
                    problems.append(f"{rel}:{number}: {vuid} is not a rule of spec/vuids.json")
            if rel.startswith("icd/amdgpu/src/"):
                for name in DRIVER_LITERAL.findall(line):
                    driver_ids_used.setdefault(name, f"{rel}:{number}")
            if rel.startswith("loader/src/"):
                for name in LOADER_LITERAL.findall(line):
                    loader_ids_used.setdefault(name, f"{rel}:{number}")
        composed = len(VUID_COMPOSED.findall(text))
        if composed != COMPOSED.get(rel, 0):
            problems.append(f"{rel}: composes {composed} VUID(s) from a \"XGPU-VUID-\" prefix, expected "
                            f"{COMPOSED.get(rel, 0)}: write each ID as a literal so it can be checked")

    driver_table = table_ids((ROOT / "icd/amdgpu/README.md").read_text(), "## Message IDs", "XGPU-DRIVER-")
    for name, where in sorted(driver_ids_used.items()):
        if name not in driver_table:
            problems.append(f"{where}: {name} is not in the table of icd/amdgpu/README.md, \"Message IDs\"")
    for name in sorted(driver_table - set(driver_ids_used)):
        problems.append(f"icd/amdgpu/README.md: {name} is listed but no driver source uses it")

    loader_table = table_ids((ROOT / "spec/loader.md").read_text(), "## Messages", "XGPU-LOADER-")
    for name, where in sorted(loader_ids_used.items()):
        if name not in loader_table:
            problems.append(f"{where}: {name} is not in the table of spec/loader.md, \"Messages\"")

    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"{checked} VUID literals name rules of spec/vuids.json; {len(driver_ids_used)} XGPU-DRIVER and "
          f"{len(loader_ids_used)} XGPU-LOADER IDs are documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
