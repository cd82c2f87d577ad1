#!/usr/bin/env python3
"""Runs a program with XGPU_TRACE set and checks the trace it leaves.

  run_traced.py --trace OUT.json [check_trace options] -- PROGRAM [ARGS...]

The program must exit with status 0 and leave the trace file, which must
pass check_trace.py with the expectations given.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_trace  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True)
    parser.add_argument("--expect-kernels", default="")
    parser.add_argument("--expect-spans", default="")
    parser.add_argument("--expect-flows", type=int, default=0)
    parser.add_argument("--expect-tracks", type=int, default=0)
    parser.add_argument("--expect-devices", type=int, default=0)
    parser.add_argument("--expect-instants", default="")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no program to run")
    if os.path.exists(options.trace):
        os.remove(options.trace)
    environment = dict(os.environ, XGPU_TRACE=options.trace)
    completed = subprocess.run(command, env=environment, timeout=240)
    if completed.returncode != 0:
        print(f"run_traced: {command[0]} exited with {completed.returncode}", file=sys.stderr)
        return 1
    if not os.path.exists(options.trace):
        print(f"run_traced: {command[0]} wrote no trace to {options.trace}", file=sys.stderr)
        return 1
    return check_trace.main([options.trace, "--expect-kernels", options.expect_kernels, "--expect-spans",
                             options.expect_spans, "--expect-flows", str(options.expect_flows),
                             "--expect-tracks", str(options.expect_tracks),
                             "--expect-devices", str(options.expect_devices),
                             "--expect-instants", options.expect_instants])


if __name__ == "__main__":
    sys.exit(main())
