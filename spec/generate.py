#!/usr/bin/env python3
"""Regenerates every file derived from the registry (spec/xgpu.json).

    python3 spec/generate.py          write the generated files
    python3 spec/generate.py --check  exit 1 if any checked-in file differs

Generated files are checked in so readers see them; the --check mode runs as a
test so they never drift from the registry.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "spec"))

from gen import registry  # noqa: E402

# (output path relative to the repository root, generator module in spec/gen)
OUTPUTS = [
    ("include/xgpu/xgpu.h", "c_header"),
    ("include/xgpu/xgpu_dispatch_table.h", "dispatch_table"),
    ("include/xgpu/xgpu_enum_string.h", "enum_string"),
]
# Generators of components' files (each module defines OUTPUTS: a list of
# (path, callable(reg) -> str)). All are required: a missing one is an error,
# so --check can never pass by skipping it.
EXTRA_MODULES = ["icd_gen", "loader_gen", "meta_gen", "vlayer_gen", "xgpuinfo_gen"]


def collect(reg):
    outputs = [(path, importlib.import_module(f"gen.{mod}").generate) for path, mod in OUTPUTS]
    for mod in EXTRA_MODULES:
        outputs += importlib.import_module(f"gen.{mod}").OUTPUTS
    return outputs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ap.add_argument("--registry", type=Path, default=registry.REGISTRY_PATH)
    args = ap.parse_args()
    reg = registry.load(args.registry)
    stale = []
    for rel, gen in collect(reg):
        text = gen(reg)
        path = ROOT / rel
        if args.check:
            old = path.read_text() if path.exists() else ""
            if old != text:
                stale.append(rel)
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                           f"{rel} (checked in)", f"{rel} (from registry)", n=1))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                print(f"wrote {rel}")
    if stale:
        print(f"\n{len(stale)} generated file(s) differ from spec/xgpu.json: run python3 spec/generate.py",
              file=sys.stderr)
        return 1
    if args.check:
        print("generated files match the registry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
