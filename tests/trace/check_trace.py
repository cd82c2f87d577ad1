#!/usr/bin/env python3
"""Checks a trace-event JSON file (Chrome / Perfetto, array form) as the
driver writes it with XGPU_TRACE.

  check_trace.py TRACE.json [--expect-kernels a,b] [--expect-spans a,b]
                            [--expect-flows N] [--expect-tracks N] [--expect-devices N]
                            [--expect-instants a,b]

Checks (each failure is printed; exit status 1 when any):
  - the file is a JSON array of objects;
  - every event has the fields its phase requires: "ph", "pid", "tid"
    (integers), "name" (string; not for E), "ts" (number >= 0; not for M),
    "dur" >= 0 for X, "id" for flow events s/t/f, "args" with a name or
    sort_index for metadata M;
  - B/E events match per track (pid, tid), in order, with the same name;
  - per track, slices (X and B) start in non-decreasing time in file order,
    and complete slices never partly overlap (each is disjoint from or
    nested in the one before);
  - every track with slices is named (thread_name metadata);
  - flow ids are paired: exactly one start (s) and one end (f) per id, the
    end not before the start, each inside a slice of its track;
  - dispatches (cat "dispatch") name their kernel and carry
    workgroup_size and grid;
  - the expectations given on the command line: kernel names that must
    appear as dispatches, span names that must appear, a least number of
    flows, of tracks and of xgpu devices (process_name "xgpu device ..."),
    and instant events that must appear (the "device lost" mark).

"""
import argparse
import json
import sys
from collections import defaultdict

KNOWN_PHASES = set("BEXiIMsftCbenOND")
# Timestamps are microseconds as decimal numbers; at the magnitudes of a
# system clock (1e10 us) a double sum ts + dur is exact only to about 2e-6,
# so comparisons allow one nanosecond.
EPSILON = 1e-3
METADATA_NAMES = {"process_name", "thread_name", "process_sort_index", "thread_sort_index",
                  "process_labels"}


def check_events(events, expect_kernels=(), expect_spans=(), expect_flows=0, expect_tracks=0, expect_devices=0,
                 expect_instants=()):
    """Returns the list of problems found in `events` (the parsed JSON)."""
    problems = []

    def problem(index, text):
        problems.append(f"event {index}: {text}")

    if not isinstance(events, list):
        return ["the trace is not a JSON array of events"]
    open_slices = defaultdict(list)     # track -> stack of (name, ts) for B/E
    last_start = {}                     # track -> ts of the last slice start
    complete = defaultdict(list)        # track -> [(begin, end)] of X and matched B/E
    x_stack = defaultdict(list)         # track -> ends of enclosing X slices
    named_tracks = set()
    flows = defaultdict(list)           # id -> [(phase, track, ts, index)]
    dispatch_names = set()
    span_names = set()
    instant_names = set()
    device_processes = set()
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            problem(index, "is not an object")
            continue
        phase = event.get("ph")
        if not isinstance(phase, str) or phase not in KNOWN_PHASES:
            problem(index, f"has no valid ph ({phase!r})")
            continue
        pid, tid = event.get("pid"), event.get("tid")
        if not isinstance(pid, int) or not isinstance(tid, int):
            problem(index, f"ph {phase}: pid and tid must be integers ({pid!r}, {tid!r})")
            continue
        track = (pid, tid)
        name = event.get("name")
        if phase != "E" and not isinstance(name, str):
            problem(index, f"ph {phase}: no name")
            continue
        if phase == "M":
            args = event.get("args")
            if name not in METADATA_NAMES or not isinstance(args, dict) or not (
                    "name" in args or "sort_index" in args or "labels" in args):
                problem(index, f"metadata {name!r} without a known name or args")
            if name == "thread_name":
                named_tracks.add(track)
            if name == "process_name" and str((args or {}).get("name", "")).startswith("xgpu device"):
                device_processes.add(pid)
            continue
        ts = event.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0:
            problem(index, f"ph {phase} {name!r}: ts must be a number >= 0 ({ts!r})")
            continue
        if phase in ("i", "I"):
            instant_names.add(name)
        if phase in ("X", "B"):
            if track in last_start and ts < last_start[track] - EPSILON:
                problem(index, f"{name!r} on track {track} starts at {ts}, before the previous slice "
                               f"there ({last_start[track]}): timestamps are not monotonic per track")
            last_start[track] = ts
            span_names.add(name)
        if phase == "X":
            dur = event.get("dur")
            if not isinstance(dur, (int, float)) or isinstance(dur, bool) or dur < 0:
                problem(index, f"X {name!r}: dur must be a number >= 0 ({dur!r})")
                continue
            end = ts + dur
            stack = x_stack[track]
            while stack and stack[-1] <= ts + EPSILON:
                stack.pop()
            if stack and end > stack[-1] + EPSILON:
                problem(index, f"X {name!r} on track {track} ({ts}..{end}) partly overlaps the slice "
                               f"before it (ending at {stack[-1]})")
            stack.append(end)
            complete[track].append((ts, end))
            if event.get("cat") == "dispatch":
                args = event.get("args") or {}
                if not name or name == "?":
                    problem(index, "a dispatch without a kernel name")
                if "workgroup_size" not in args or "grid" not in args:
                    problem(index, f"dispatch {name!r} without workgroup_size and grid")
                dispatch_names.add(name)
        elif phase == "B":
            open_slices[track].append((name, ts))
        elif phase == "E":
            if not open_slices[track]:
                problem(index, f"E on track {track} without a matching B")
                continue
            begin_name, begin_ts = open_slices[track].pop()
            if name is not None and name != begin_name:
                problem(index, f"E {name!r} on track {track} closes B {begin_name!r}")
            if ts < begin_ts:
                problem(index, f"E on track {track} at {ts} before its B at {begin_ts}")
            complete[track].append((begin_ts, ts))
        elif phase in ("s", "t", "f"):
            if "id" not in event:
                problem(index, f"flow {phase} {name!r} without an id")
                continue
            flows[event["id"]].append((phase, track, ts, index))

    for track, stack in open_slices.items():
        for name, ts in stack:
            problems.append(f"B {name!r} on track {track} at {ts} is never ended")
    for track in complete:
        if track not in named_tracks:
            problems.append(f"track {track} has slices but no thread_name")

    def inside_slice(track, ts):
        return any(begin - EPSILON <= ts <= end + EPSILON for begin, end in complete.get(track, ()))

    for flow_id, parts in flows.items():
        starts = [p for p in parts if p[0] == "s"]
        ends = [p for p in parts if p[0] == "f"]
        if len(starts) != 1 or len(ends) != 1:
            problems.append(f"flow id {flow_id}: {len(starts)} start(s) and {len(ends)} end(s), "
                            "expected exactly one of each")
            continue
        (_, s_track, s_ts, s_index), (_, f_track, f_ts, f_index) = starts[0], ends[0]
        if f_ts < s_ts - EPSILON:
            problems.append(f"flow id {flow_id}: ends at {f_ts} before it starts at {s_ts}")
        if not inside_slice(s_track, s_ts):
            problems.append(f"flow id {flow_id}: start (event {s_index}) is in no slice of track {s_track}")
        if not inside_slice(f_track, f_ts):
            problems.append(f"flow id {flow_id}: end (event {f_index}) is in no slice of track {f_track}")

    for kernel in expect_kernels:
        if kernel not in dispatch_names:
            problems.append(f"no dispatch of kernel {kernel!r} (dispatches: {sorted(dispatch_names)})")
    for span in expect_spans:
        if span not in span_names:
            problems.append(f"no slice named {span!r} (slices: {sorted(span_names)})")
    for instant in expect_instants:
        if instant not in instant_names:
            problems.append(f"no instant event named {instant!r} (instants: {sorted(instant_names)})")
    if len(flows) < expect_flows:
        problems.append(f"{len(flows)} flows, expected at least {expect_flows}")
    if len(device_processes) < expect_devices:
        problems.append(f"{len(device_processes)} xgpu devices, expected at least {expect_devices}")
    if len(complete) < expect_tracks:
        problems.append(f"{len(complete)} tracks with slices, expected at least {expect_tracks}")
    return problems


def check_file(path, **expectations):
    try:
        with open(path, encoding="utf-8") as f:
            events = json.load(f)
    except (OSError, ValueError) as error:
        return [f"{path}: not readable as JSON: {error}"]
    return check_events(events, **expectations)


def split(text):
    return [item for item in (text or "").split(",") if item]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--expect-kernels", default="")
    parser.add_argument("--expect-spans", default="")
    parser.add_argument("--expect-flows", type=int, default=0)
    parser.add_argument("--expect-tracks", type=int, default=0)
    parser.add_argument("--expect-devices", type=int, default=0)
    parser.add_argument("--expect-instants", default="")
    options = parser.parse_args(argv)
    problems = check_file(options.trace, expect_kernels=split(options.expect_kernels),
                          expect_spans=split(options.expect_spans), expect_flows=options.expect_flows,
                          expect_tracks=options.expect_tracks, expect_devices=options.expect_devices,
                          expect_instants=split(options.expect_instants))
    for text in problems[:50]:
        print(f"check_trace: {text}", file=sys.stderr)
    if problems:
        print(f"check_trace: {options.trace}: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_trace: {options.trace}: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
