#!/usr/bin/env python3
"""Runs every benchmark of bench/, prints one table of every figure beside its
peers, judges each against its goal (issue 11), and writes
bench/results/<date>.json.

    bench/run.py [--build DIR] [--smoke] [--out FILE | --no-write] [--only NAME[,NAME]]

Each benchmark is run with --json (or --smoke --json) and prints one JSON object
per line; the lines this script reads are

    {"bench", "figure", "unit", "better": "lower"|"higher", "side", "median", "min", "max"[, "p99"][, "samples"]}
    {"bench", "check", "ok"}       both sides' results compared; ok false fails the run
    {"bench", "note"}              a peer missing and why, a limit of the measurement

A side named "xgpu" (or "xgpu (<device>)") is ours ("xgpu, <variant>" is a
diagnostic variant, shown as a baseline); every other side is a peer
or a baseline measured in the same process on identical work. Other output
lines pass through to stderr. The exit status is non-zero when a benchmark
fails or any check is not ok; missed goals do not fail the run (they are
reported, and bench/README.md says what bounds them). A benchmark the build's
configure step skipped (bench/skipped.json: a peer it needs is missing) is a
note, not a failure; any other missing binary is a failure.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name, binary, extra environment, how its output is read ("json" or a parser)
BENCHES = [
    ("recording", "recording_bench", {}, "json"),
    ("recording, lavapipe inline (LP_NUM_THREADS=0)", "recording_bench", {"LP_NUM_THREADS": "0"}, "json"),
    ("indirect_alloca", "indirect_alloca_bench", {}, "json"),
    ("semaphore", "semaphore_bench", {}, "json"),
    ("cross_queue", "cross_queue_bench", {}, "json"),
    ("saxpy", "saxpy_bench", {}, "json"),
    ("loader_call", "loader_call_bench", {}, "json"),
    ("validation_layer", "validation_layer_bench", {}, "json"),
    ("cpu_kernels", "cpu_kernels_bench", {}, "json"),
    ("debugging", "debugging_bench", {}, "json"),
]

# Arguments beyond the benchmark's defaults (not in smoke mode): recording's
# figures are cheap, so more samples steady the medians and make the p99 a
# real 99th percentile.
BENCH_ARGS = {"recording_bench": ["--repeats", "21", "--rounds", "1000"]}

# Goals of issue 11 (issue 16 for cpu_kernels), per (bench, figure). Each is a
# list of conditions on ours: ("max", x): median <= x; ("min", x): median >= x;
# ("p99_over_median", k): p99 <= k * median; ("vs_peer", pattern, k): for lower-is-better figures the
# named peer's median / ours >= k, for higher-is-better ours / the peer's >= k;
# ("vs_best", pattern, k): the same against the best of the matching sides.
# Figures without a stated number carry the issue's general goal, "beat every
# peer": ("beat_peers", pattern) over the product peers whose side matches.
PRODUCT_PEERS = r"^(Vulkan|OpenCL)"
GOALS = {
    ("recording", "record push+dispatch+barrier"): [("max", 20.0), ("vs_peer", r"LP_NUM_THREADS=0", 9.0)],
    ("recording", "record push+dispatch"): [("beat_peers", PRODUCT_PEERS)],
    ("recording", "begin + 1 dispatch + end"): [("max", 1.0)],
    ("recording", "replay (submit + wait)"): [("max", 100.0)],
    ("recording", "replay curve, N=100000"): [("max", 100.0)],
    ("recording", "one dispatch submit -> wait"): [("max", 10.0), ("p99_over_median", 2.0)],
    ("recording", "empty submit + wait"): [("max", 5.0)],
    ("saxpy", "saxpy 64 Mi floats"): [("vs_peer", r"^C loop, [0-9]+ threads$", 0.9)],
    ("semaphore", "host<->host timeline semaphore round trip"): [("beat_peers", PRODUCT_PEERS)],
    ("cross_queue", "cross-queue edge: A signals, B waits, host sees B"): [("beat_peers", PRODUCT_PEERS)],
    ("cross_queue", "same queue, no edge: A signals, host sees A"): [("beat_peers", PRODUCT_PEERS)],
    ("loader_call", "push constants 16 B, loader trampoline"): [("beat_peers", PRODUCT_PEERS)],
    ("loader_call", "push constants 16 B, direct pointer (meta-loader / vkGetDeviceProcAddr)"):
        [("beat_peers", PRODUCT_PEERS)],
    ("validation_layer", "recording, push+dispatch+barrier"): [("vs_peer", r"^without", 1 / 2.0)],
    ("validation_layer", "xgpuQueueSubmit, per call"): [("vs_peer", r"^without", 1 / 1.3)],
    # Issue 27: the fault report within 1 ms of the fault on hsa-cpu.
    ("debugging", "kernel fault -> device-lost report delivered"): [("max", 1000.0)],
}
# Issue 16: every CPU kernel within 1.5x of the best of PoCL and the all-cores
# C loop, and no slower than the 1-thread C loop.
for _figure in ("histogram256 1M u32", "tree reduction 1M u32", "gemm 192^3 float", "atax 2048^2 float",
                "jacobi-2d 1024^2 float, 10 steps", "prefix sum per 256 of 1M u32", "compaction of 1M u32",
                "compaction + DYNAMIC indirect of 1M u32",
                # Issue 25: the plainly written variants (kernels_plain.c) and the
                # 16-dispatch chain are held to the same goals.
                "histogram256 (plain) 1M u32", "tree reduction (plain) 1M u32", "gemm (plain) 192^3 float",
                "atax (plain) 2048^2 float", "jacobi-2d (plain) 1024^2 float, 10 steps",
                "prefix sum (plain) per 256 of 1M u32", "compaction (plain) of 1M u32",
                "compaction + DYNAMIC indirect (plain) of 1M u32",
                "jacobi-2d chain 64^2 float, 16 steps, 16 dispatches",
                "jacobi-2d chain 16^2 float, 16 steps, 16 dispatches"):
    GOALS[("cpu_kernels", _figure)] = [("vs_best", r"^(OpenCL \(PoCL\)|C loop, all cores)$", 1 / 1.5),
                                       ("vs_peer", r"^C loop, 1 thread$", 1.0)]


# Sides that are baselines measured beside us (the plain alternative, the
# machine's floor), not products to compare with: "best peer" prefers the
# others when a figure has both.
BASELINES = r"^(futex|spin|C loop|direct dispatch|preallocated buffer|without the layer|xgpu, )"


def short(side):
    """The side without its device name: 'Vulkan (llvmpipe (LLVM ...)) X' -> 'Vulkan X'."""
    return re.sub(r" \((?:[^()]|\([^()]*\))*\)", "", side)


def is_ours(side):
    return side == "xgpu" or side.startswith("xgpu (")


def skipped_at_configure(build):
    """{binary: reason} of the benchmarks the build's configure step did not
    build (a peer they cannot run without is missing): bench/skipped.json,
    written by bench/CMakeLists.txt at every configure."""
    try:
        with open(os.path.join(build, "bench", "skipped.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def run_bench(build, name, binary, env_extra, reader, smoke, skipped):
    exe = os.path.join(build, "bin", binary)
    entry = {"name": name, "binary": binary, "env": env_extra}
    if not os.path.exists(exe):
        if binary in skipped:
            # Not an error: the configure step said why (the peers are
            # installed by ./build.sh bench).
            entry.update(rc=None, skipped=skipped[binary])
            return entry, [{"bench": name, "note": f"not built: skipped at configure time: {skipped[binary]}"}]
        entry.update(rc=None, error="not built: " + exe)
        return entry, []
    args = [exe] + (["--smoke"] if smoke else BENCH_ARGS.get(binary, [])) + (["--json"] if reader == "json" else [])
    env = dict(os.environ)
    env.setdefault("XGPU_DRIVER_FILES", os.path.join(build, "share/xgpu/icd.d/xgpu_amdgpu.json"))
    if binary == "validation_layer_bench":
        env.setdefault("XGPU_LAYER_PATH", os.path.join(build, "share/xgpu/explicit_layer.d"))
    env.update(env_extra)
    entry["command"] = " ".join([f"{k}={v}" for k, v in env_extra.items()] + [os.path.relpath(exe, ROOT)] + args[1:])
    print(f"== {entry['command']}", file=sys.stderr, flush=True)
    start = time.monotonic()
    proc = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    entry["seconds"] = round(time.monotonic() - start, 2)
    entry["rc"] = proc.returncode
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr)
        entry["stderr_tail"] = proc.stderr.strip().splitlines()[-5:]
    lines = []
    if reader == "json":
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                try:
                    lines.append(json.loads(line))
                    continue
                except json.JSONDecodeError:
                    pass
            sys.stderr.write(line + "\n")
    else:
        sys.stderr.write(proc.stdout)
    if proc.returncode != 0:
        entry["error"] = f"exit status {proc.returncode}"
    return entry, lines


def collect(lines, name):
    """Groups figure lines by (bench, figure); the LP_NUM_THREADS=0 run
    contributes only its Vulkan sides, renamed."""
    figures, checks, notes = {}, [], []
    inline = name.startswith("recording, lavapipe inline")
    for d in lines:
        bench = d.get("bench", name)
        if "check" in d:
            checks.append({"bench": name, "check": d["check"], "ok": bool(d.get("ok"))})
        elif "note" in d:
            notes.append({"bench": name, "note": d["note"]})
        elif "figure" in d:
            side = d["side"]
            if inline:
                if is_ours(side):
                    continue
                side += " LP_NUM_THREADS=0"
            key = (bench, d["figure"])
            fig = figures.setdefault(key, {"bench": bench, "figure": d["figure"], "unit": d["unit"],
                                           "better": d.get("better", "lower"), "sides": []})
            s = {k: d[k] for k in ("median", "min", "max", "p99", "samples") if k in d}
            s["side"] = side
            fig["sides"].append(s)
    return figures, checks, notes


def advantage(better, ours, peer):
    """> 1 when ours is ahead of peer."""
    if ours <= 0 or peer <= 0:
        return None
    return peer / ours if better == "lower" else ours / peer


def judge(fig):
    ours = next((s for s in fig["sides"] if is_ours(s["side"])), None)
    peers = [s for s in fig["sides"] if not is_ours(s["side"])]
    fig["ours"] = ours["side"] if ours else None
    if ours and peers:
        products = [s for s in peers if not re.search(BASELINES, s["side"])]
        pool = products or peers
        best = min(pool, key=lambda s: s["median"]) if fig["better"] == "lower" else max(pool, key=lambda s: s["median"])
        fig["best_peer"] = best["side"]
        fig["vs_best_peer"] = advantage(fig["better"], ours["median"], best["median"])
    goals = GOALS.get((fig["bench"], fig["figure"]))
    if not goals or not ours:
        fig["goal"], fig["goal_met"] = None, None
        return
    texts, met = [], True
    unit = fig["unit"]
    for g in goals:
        if g[0] == "max":
            texts.append(f"<= {g[1]:g} {unit}")
            met &= ours["median"] <= g[1]
        elif g[0] == "min":
            texts.append(f">= {g[1]:g} {unit}")
            met &= ours["median"] >= g[1]
        elif g[0] == "p99_over_median":
            texts.append(f"p99 <= {g[1]:g}x median")
            met &= "p99" in ours and ours["p99"] <= g[1] * ours["median"]
        elif g[0] == "vs_peer":
            peer = next((s for s in peers if re.search(g[1], s["side"])), None)
            label = short(peer["side"]) if peer else f"/{g[1]}/"
            if g[2] >= 1:
                texts.append(f">= {g[2]:g}x {label}")
            else:
                texts.append(f"within {1 / g[2]:.3g}x of {label}" if fig["better"] == "lower"
                             else f">= {g[2]:.0%} of {label}")
            a = advantage(fig["better"], ours["median"], peer["median"]) if peer else None
            met &= a is not None and a >= g[2]
        elif g[0] == "vs_best":
            pool = [s for s in peers if re.search(g[1], s["side"])]
            best = None
            if pool:
                pick = min if fig["better"] == "lower" else max
                best = pick(pool, key=lambda s: s["median"])
            label = ("best of " + ", ".join(short(s["side"]) for s in pool)) if pool else f"/{g[1]}/"
            texts.append(f"within {1 / g[2]:.3g}x of {label}" if g[2] < 1 else f">= {g[2]:g}x {label}")
            a = advantage(fig["better"], ours["median"], best["median"]) if best else None
            met &= a is not None and a >= g[2]
        elif g[0] == "beat_peers":
            targets = [s for s in peers if re.search(g[1], s["side"])]
            texts.append("beat " + (", ".join(short(s["side"]) for s in targets) if targets else "peers"))
            if not targets:
                met = None if met is True else met
            for s in targets:
                a = advantage(fig["better"], ours["median"], s["median"])
                met &= a is not None and a >= 1.0
    fig["goal"], fig["goal_met"] = "; ".join(texts), met


def fmt(x):
    if x is None:
        return "-"
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 100:
        return f"{x:.1f}"
    if x >= 10:
        return f"{x:.2f}"
    return f"{x:.3f}"


def print_table(figures, checks, notes, entries):
    width = 64
    print()
    print("every figure: median, min .. max (and p99 where latency is measured) of the run's samples; last column:")
    print("how many times faster xgpu is than that side (>1: xgpu ahead). Best peer: the best product peer")
    print("(Vulkan, OpenCL) where the figure has one, else the best baseline. Goals: issue 11")
    print(f"{'figure / side':<{width}} {'median':>10} {'min .. max':>22} {'p99':>10}  {'xgpu x':>8}")
    bench = None
    for fig in figures:
        if fig["bench"] != bench:
            bench = fig["bench"]
            print(f"\n[{bench}]")
        goal = ""
        if fig["goal"]:
            state = {True: "MET", False: "MISSED", None: "n/a"}[fig["goal_met"]]
            goal = f"   goal: {fig['goal']} -> {state}"
        ratio = ""
        if fig.get("vs_best_peer") is not None:
            ratio = (f"   xgpu vs best peer ({short(fig['best_peer'])}): {fig['vs_best_peer']:.2f}x "
                     f"({'ahead' if fig['vs_best_peer'] >= 1 else 'behind'})")
        print(f"{fig['figure']} ({fig['unit']}, {fig['better']} is better){ratio}{goal}")
        ours = next((s for s in fig["sides"] if is_ours(s["side"])), None)
        for s in sorted(fig["sides"], key=lambda s: (not is_ours(s["side"]),)):
            rel = ""
            if ours and s is not ours:
                a = advantage(fig["better"], ours["median"], s["median"])
                rel = f"{a:.2f}x" if a is not None else "-"
            rng = f"{fmt(s['min'])} .. {fmt(s['max'])}"
            print(f"  {s['side'][:width - 2]:<{width - 2}} {fmt(s['median']):>10} {rng:>22} {fmt(s.get('p99')):>10}  {rel:>8}")
    print()
    for c in checks:
        print(f"check [{c['bench']}]: {c['check']}: {'ok' if c['ok'] else 'FAILED'}")
    for n in notes:
        print(f"note [{n['bench']}]: {n['note']}")
    for e in entries:
        if e.get("error"):
            print(f"error [{e['name']}]: {e['error']}")
    goals = [f for f in figures if f["goal"]]
    print(f"\ngoals: {sum(1 for f in goals if f['goal_met'] is True)} met, "
          f"{sum(1 for f in goals if f['goal_met'] is False)} missed, of {len(goals)}; "
          f"checks: {sum(1 for c in checks if c['ok'])} ok of {len(checks)}; "
          f"time: {sum(e.get('seconds', 0) for e in entries):.0f} s")


def host_info():
    info = {"machine": platform.machine(), "kernel": platform.release(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                        text=True).stdout.strip()
    except OSError:
        pass
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "default"), help="build folder (bin/ inside)")
    ap.add_argument("--smoke", action="store_true", help="every benchmark's --smoke mode: results, not speed")
    ap.add_argument("--out", help="results file (default bench/results/<UTC date and time>.json)")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--only", help="comma-separated benchmark names")
    a = ap.parse_args()

    only = set(a.only.split(",")) if a.only else None
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    entries, figures, checks, notes = [], {}, [], []
    skipped = skipped_at_configure(a.build)
    for name, binary, env, reader in BENCHES:
        if only and name.split(",")[0] not in only:
            continue
        if a.smoke and env:
            continue  # the variant runs only matter for speed
        entry, lines = run_bench(a.build, name, binary, env, reader, a.smoke, skipped)
        entries.append(entry)
        f, c, n = collect(lines, name)
        for key, fig in f.items():
            if key in figures:
                figures[key]["sides"].extend(fig["sides"])
            else:
                figures[key] = fig
        checks += c
        notes += n
        if entry.get("rc") not in (0, None) and not c:
            checks.append({"bench": name, "check": "benchmark ran to the end", "ok": False})
    figs = list(figures.values())
    for fig in figs:
        judge(fig)
    print_table(figs, checks, notes, entries)
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} on {os.cpu_count()} cores")

    failed = any(not c["ok"] for c in checks) or any(e.get("error") for e in entries)
    result = {
        "date": started.isoformat(timespec="seconds"),
        "smoke": a.smoke,
        "host": dict(host_info(), load_before=load_before, load_after=load_after),
        "benches": entries,
        "figures": figs,
        "checks": checks,
        "notes": notes,
        "ok": not failed,
    }
    if not a.no_write:
        out = a.out or os.path.join(HERE, "results", started.strftime("%Y-%m-%dT%H%MZ") + ".json")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        print(f"written: {os.path.relpath(out, ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
