#!/usr/bin/env python3
"""Self-test of check_trace.py: a well-formed trace passes, and each kind of
malformed trace is rejected with the problem named."""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_trace import check_events  # noqa: E402

GOOD = [
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "queue 0: execute"}},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "queue 0: signal"}},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 3, "args": {"name": "queue 1: execute"}},
    {"ph": "X", "name": "execute", "cat": "submission", "pid": 1, "tid": 1, "ts": 10.0, "dur": 5.0, "args": {}},
    {"ph": "X", "name": "fill", "cat": "dispatch", "pid": 1, "tid": 1, "ts": 11.0, "dur": 2.0,
     "args": {"workgroup_size": [64, 1, 1], "grid": [64, 1, 1]}},
    {"ph": "X", "name": "signal", "cat": "submission", "pid": 1, "tid": 2, "ts": 15.0, "dur": 1.0, "args": {}},
    {"ph": "B", "name": "execute", "pid": 1, "tid": 3, "ts": 16.0},
    {"ph": "E", "pid": 1, "tid": 3, "ts": 20.0},
    {"ph": "s", "name": "semaphore", "id": 7, "pid": 1, "tid": 2, "ts": 15.0},
    {"ph": "f", "name": "semaphore", "id": 7, "pid": 1, "tid": 3, "ts": 17.0, "bp": "e"},
]


def expect_ok(events, **expectations):
    problems = check_events(events, **expectations)
    assert not problems, problems


def expect_problem(events, needle, **expectations):
    problems = check_events(events, **expectations)
    assert any(needle in p for p in problems), (needle, problems)


def mutated(change):
    events = copy.deepcopy(GOOD)
    change(events)
    return events


expect_ok(GOOD, expect_kernels=["fill"], expect_spans=["execute", "signal"], expect_flows=1, expect_tracks=3)
expect_problem({"ph": "X"}, "not a JSON array")
expect_problem(mutated(lambda e: e[3].pop("ph")), "no valid ph")
expect_problem(mutated(lambda e: e[3].update(tid="1")), "pid and tid must be integers")
expect_problem(mutated(lambda e: e[3].pop("name")), "no name")
expect_problem(mutated(lambda e: e[3].pop("ts")), "ts must be a number")
expect_problem(mutated(lambda e: e[3].update(dur=-1)), "dur must be a number >= 0")
# Partial overlap on one track, and a slice starting before the previous one.
expect_problem(mutated(lambda e: e[4].update(dur=10.0)), "partly overlaps")
expect_problem(mutated(lambda e: e[4].update(ts=9.0)), "not monotonic per track")
# B/E pairing.
expect_problem(mutated(lambda e: e.pop(7)), "never ended")
expect_problem(mutated(lambda e: e.insert(6, {"ph": "E", "pid": 1, "tid": 3, "ts": 15.5})), "without a matching B")
# Flows: unpaired, reversed, unbound.
expect_problem(mutated(lambda e: e.pop(9)), "expected exactly one of each")
expect_problem(mutated(lambda e: e[9].update(ts=14.0)), "ends at 14.0 before it starts")
expect_problem(mutated(lambda e: e[8].update(ts=30.0, )), "in no slice")
# Dispatches must name kernels and sizes; expectations must be met.
expect_problem(mutated(lambda e: e[4].update(args={})), "without workgroup_size and grid")
expect_problem(GOOD, "no dispatch of kernel 'copy'", expect_kernels=["copy"])
expect_problem(GOOD, "no slice named 'alloca'", expect_spans=["alloca"])
expect_problem(GOOD, "expected at least 2", expect_flows=2)
expect_problem(GOOD, "0 xgpu devices, expected at least 1", expect_devices=1)
expect_ok(GOOD + [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "xgpu device 0: x"}}],
          expect_devices=1)
# Unnamed tracks and bad metadata.
expect_problem(mutated(lambda e: e.pop(0)), "has slices but no thread_name")
expect_problem(mutated(lambda e: e[0].update(args={})), "without a known name or args")
print("test_check_trace: OK")
