#!/usr/bin/env python3
"""Checks the rule counts layers/validation/README.md states ("All implicit
rules the layer can see: N of the M", "all K explicit rules") against
spec/vuids.json, so that adding a rule cannot leave the README behind.

    readme_counts.py <repository root>"""
import json
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
rules = json.loads((root / "spec/vuids.json").read_text())["vuids"]
implicit = [r for r in rules if r["kind"] == "implicit"]
explicit = [r for r in rules if r["kind"] == "explicit"]
# The loader answers these without calling any layer (the README says so).
unseen = [r for r in implicit if r["function"] in ("xgpuEnumerateInstanceVersion",
                                                    "xgpuEnumerateInstanceLayerProperties")]
readme = (root / "layers/validation/README.md").read_text()
failures = []
m = re.search(r"All implicit rules the layer can see: (\d+) of the (\d+)\*\*", readme)
if not m:
    failures.append("no \"All implicit rules the layer can see: N of the M\" line")
elif (int(m.group(1)), int(m.group(2))) != (len(implicit) - len(unseen), len(implicit)):
    failures.append(f"implicit rules: the README says {m.group(1)} of {m.group(2)}, vuids.json has "
                    f"{len(implicit) - len(unseen)} of {len(implicit)}")
m = re.search(r"all (\d+) explicit rules", readme)
if not m:
    failures.append("no \"all K explicit rules\" line")
elif int(m.group(1)) != len(explicit):
    failures.append(f"explicit rules: the README says {m.group(1)}, vuids.json has {len(explicit)}")
for f in failures:
    print("layers/validation/README.md: " + f)
if not failures:
    print(f"layers/validation/README.md counts {len(implicit)} implicit and {len(explicit)} explicit rules, "
          "as spec/vuids.json")
sys.exit(1 if failures else 0)
