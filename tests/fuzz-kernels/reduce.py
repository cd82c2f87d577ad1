#!/usr/bin/env python3
"""Shrinks a saved mismatching kernel (found/<kernel>.c) line by line.

    reduce.py found/<kernel>.c [-o found/<kernel>.min.c] [--build build/default] [--plugin <so>]

A candidate is kept when it still builds without the plugin and the runs still
disagree the same way: work-item loops differ from fibers while fibers, the
build without the plugin and the shuffled run agree (the shuffled run keeps a
removal from making the kernel racy or read memory nobody wrote). Lines are removed one at a time, then whole
brace-balanced blocks, until nothing more can go; lines the kernel's validity
rests on stay (barriers, the loops that initialise group memory, the ids, the
kernel's first and last lines). What remains is still a candidate, not a proof:
read it, check that it is still race-free and defined (gen.py's rules), and
finish by hand. Only the dispatches that disagreed are kept.
"""
import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fuzz  # noqa: E402

# What keeps a kernel valid: barriers, the initialisation of group and private memory (a
# read of memory nobody wrote would make any mismatch meaningless), the ids and the
# kernel's frame.
KEEP = re.compile(r'xgpu_barrier\(\)|^\s*for \(uint32_t e\d+ = p;|priv\[i\] =|carry\d+\[i\] =|FZ_IDS|XGPU_KERNEL|^\}|'
                  r'FUZZ-DISPATCH|^typedef|^#')


def split(text):
    """(header comment, generator prelude, the rest): only the rest is reduced."""
    at = text.index(fuzz.gen.PRELUDE)
    return text[:at], fuzz.gen.PRELUDE, text[at + len(fuzz.gen.PRELUDE):]


class Oracle:
    def __init__(self, fz, dispatch_lines):
        self.fz = fz
        self.lines = dispatch_lines
        self.trials = 0

    def __call__(self, source):
        """Whether `source` still shows loops != fibers = plain."""
        self.trials += 1
        man, builds, _, _ = self.fz.build(source, self.lines, f'reduce{self.trials}')
        if builds['plain'] is None or builds['loops'] is None:
            return False
        dispatches = [(l.split()[0], int(l.split()[1])) for l in self.lines]
        outcomes = self.fz.run_all_modes(builds, man, dispatches)
        return any(v['fibers'] == v['plain'] == v['shuffle'] and v['loops'] != v['fibers'] for v in outcomes.values())


def blocks(lines):
    """(first, last) line ranges of brace-balanced blocks opened by a line ending in '{'."""
    res = []
    for i, l in enumerate(lines):
        if l.rstrip().endswith('{') and not KEEP.search(l):
            depth = 0
            for j in range(i, len(lines)):
                depth += lines[j].count('{') - lines[j].count('}')
                if depth == 0:
                    res.append((i, j))
                    break
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('source')
    ap.add_argument('-o', '--output')
    ap.add_argument('--build', default=os.path.join(os.path.dirname(os.path.dirname(HERE)), 'build', 'default'))
    ap.add_argument('--plugin')
    a = ap.parse_args()
    text = open(a.source).read()
    dispatch = [l.split(fuzz.MANIFEST_TAG, 1)[1].strip() for l in text.splitlines() if fuzz.MANIFEST_TAG in l]
    config = os.path.join(a.build, 'tests', 'fuzz-kernels', 'fuzz-kernels.json')
    work = tempfile.mkdtemp(prefix='fuzz-reduce-')
    with open(config) as f:
        level = fuzz.host_level(json.load(f).get('clang'))
    tc = fuzz.Toolchain(config, level, work, a.plugin)
    args = argparse.Namespace(check_ub=False, jobs=2, build=a.build, plugin=a.plugin)
    fz = fuzz.Fuzzer(args, tc)
    head, prelude, body = split(text)
    oracle = Oracle(fz, dispatch)
    # Keep only the dispatches that disagree.
    kept = [l for l in dispatch if Oracle(fz, [l])(text)]
    if not kept:
        sys.exit('reduce.py: no dispatch shows loops != fibers = plain')
    oracle.lines = kept
    lines = body.split('\n')
    changed = True
    while changed:
        changed = False
        for first, last in sorted(blocks(lines), key=lambda r: r[0] - r[1]):
            if last >= len(lines):
                continue
            cand = lines[:first] + lines[last + 1:]
            if oracle(prelude + '\n'.join(cand)):
                lines, changed = cand, True
                print(f'  removed a block of {last - first + 1} lines ({len(lines)} left)', flush=True)
                break
        if changed:
            continue
        for i in range(len(lines) - 1, -1, -1):
            if i >= len(lines) or not lines[i].strip() or KEEP.search(lines[i]) or lines[i].strip() in ('{', '}'):
                continue
            cand = lines[:i] + lines[i + 1:]
            if oracle(prelude + '\n'.join(cand)):
                lines, changed = cand, True
                print(f'  removed line {i} ({len(lines)} left)', flush=True)
    out = a.output or os.path.splitext(a.source)[0] + '.min.c'
    head_lines = [l for l in head.split('\n') if fuzz.MANIFEST_TAG not in l and l.strip() != '*/']
    head_lines += [f' * {fuzz.MANIFEST_TAG} {l}' for l in kept] + [' */']
    with open(out, 'w') as f:
        f.write('\n'.join(head_lines) + '\n' + prelude + '\n'.join(lines))
    print(f'reduce.py: {out} ({oracle.trials} builds)')


if __name__ == '__main__':
    main()
