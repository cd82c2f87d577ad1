#!/usr/bin/env python3
"""Runs every test case of a doctest binary in its own process, as the ICD
suite must run on hsa-cuda (a CUDA fault ends the process's use of the GPU,
so one faulting case would fail every later one):

    tests/run_each_case.py build/gpu/bin/xgpu_icd_tests

Prints each failing case's last lines and a summary; exits 1 if any failed."""
import subprocess, sys
binary = sys.argv[1]
out = subprocess.run([binary, "--list-test-cases"], capture_output=True, text=True).stdout.splitlines()
bars = [i for i, l in enumerate(out) if l.startswith("=====")]
names = out[bars[0] + 1:bars[1]]
failed = []
for n in names:
    f = n.replace("\\", "\\\\").replace(",", "\\,")
    try:
        r = subprocess.run([binary, "--test-case=" + f], capture_output=True, text=True, timeout=90)
        ok = r.returncode == 0 and "test cases:" in r.stdout and "| 0 failed" in r.stdout
        ran = "1 passed" in r.stdout or "1 failed" in r.stdout
        if not ok or not ran:
            failed.append(n)
            print("FAILED:", n, "(rc %d)" % r.returncode)
            print("\n".join((r.stdout + r.stderr).splitlines()[-12:]))
    except subprocess.TimeoutExpired:
        failed.append(n)
        print("TIMEOUT:", n)
print("%s: %d of %d cases passed, one process each" % (binary, len(names) - len(failed), len(names)))
sys.exit(1 if failed else 0)
