#!/usr/bin/env python3
"""Differential fuzzer of the CPU kernel compiler (tools/xgpu-wiloop).

Generates random valid kernels (gen.py), builds each batch twice for the host
with the kernel toolchain's own flags (read from the build tree's
tests/fuzz-kernels/fuzz-kernels.json, written by CMake): with the xgpu-wiloop
plugin and without it, then runs every kernel three ways on hsa-cpu and
compares every output element:

  loops   the plugin build, work-item loops (hsa-cpu's default)
  loops1  the same with HSA_CPU_WORKERS=1 (one worker claims larger batches: longer runs of
          workgroups along x, which combined tail adds and kept bins span)
  fibers  the plugin build with HSA_CPU_BARRIER_MODE=fibers (the reference)
  checked the plugin build's bounds-checked copies (K__xgpu_checked, GPU-assisted
          validation's kernels) with each binding's length and a print buffer that must
          stay empty: the checks change no in-range access and report none
  plain   the build without the plugin (barrier kernels as fibers, kernels
          without barriers as <xgpu/kernel.h>'s item loops)
  shuffle the build without the plugin, run by the runner's own executor: workgroups in
          a random order, the items of barrier kernels as fibers resumed in a new random
          order after each barrier, group memory filled with random bytes. It checks the
          generator: a kernel with a race, an order-dependent atomic or a read of memory
          nobody wrote gives other outputs there.

  fuzz.py [--build build/default] [--count N] [--seed S]   N random kernels
  fuzz.py --seed S --first F --count N                      kernels F .. F+N-1 of seed S's
                                                           sequence (resumes a run)
  fuzz.py --kernel-seed K [...]                            exactly these kernels
  fuzz.py --replay tests/fuzz-kernels/found/<kernel>.c      a saved (or hand-reduced) kernel

A mismatch prints the kernel's source, which runs disagree and where, and the
command that reruns exactly that kernel; it is saved as
tests/fuzz-kernels/found/<kernel>.c (unless --no-save), a standalone source
whose header holds its dispatches, so --replay reruns it after any edit.
Exit status: 0 when every kernel agreed, 1 on a mismatch, 2 on a set-up error.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402

RUNS = ('loops', 'loops1', 'fibers', 'plain', 'checked', 'shuffle')
# The runs whose disagreement is a compiler (or runtime) bug; 'shuffle' (and 'ubsan') check
# the generated kernels themselves.
COMPILER_RUNS = ('loops', 'loops1', 'fibers', 'plain', 'checked')
# --check-ub: a fourth build, without the plugin and with UBSan's checks as traps (no runtime
# library: a check that fails is a kernel fault), which validates the generator itself.
UBSAN_FLAGS = ['-fsanitize=undefined', '-fsanitize-trap=undefined']
V3_FLAGS = {'avx', 'avx2', 'bmi1', 'bmi2', 'f16c', 'fma', 'abm', 'movbe', 'xsave'}
V3_FEATURES = {'avx', 'avx2', 'bmi', 'bmi2', 'f16c', 'fma', 'lzcnt', 'movbe', 'xsave'}
MANIFEST_TAG = 'FUZZ-DISPATCH:'


def host_level(clang=None):
    """x86-64-v3 when the CPU runs it, else x86-64-v2: the CPU's features as
    clang reads them from cpuid (-march=native), as hsa-cpu does; a VM's
    /proc/cpuinfo may leave some out (LZCNT's `abm`), then only that is read."""
    if clang:
        try:
            out = subprocess.run([clang, '-march=native', '-###', '-x', 'c', '-c', os.devnull],
                                 capture_output=True, text=True, timeout=60).stderr
            features = set(re.findall(r'"\+([a-z0-9_.]+)"', out))
            if 'avx2' in features or 'sse2' in features:
                return 'x86-64-v3' if V3_FEATURES <= features else 'x86-64-v2'
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('flags'):
                    flags = set(line.split(':', 1)[1].split())
                    return 'x86-64-v3' if V3_FLAGS <= flags else 'x86-64-v2'
    except OSError:
        pass
    return 'x86-64-v2'


def rel(path):
    try:
        r = os.path.relpath(path)
        return r if not r.startswith('../..') else path
    except ValueError:
        return path


class Toolchain:
    def __init__(self, config_path, level, work, plugin=None):
        with open(config_path) as f:
            self.cfg = json.load(f)
        if plugin:  # another build of the pass, in place of the tree's
            plugin = os.path.abspath(plugin)
            self.cfg['plugin_flags'] = [f.replace(self.cfg['plugin'], plugin) for f in self.cfg['plugin_flags']]
            self.cfg['plugin'] = plugin
        self.config_path = config_path
        self.level = level
        self.isa = f'x86_64-unknown-linux-gnu--{level}'
        self.work = work
        self.compile_timeout = 120  # seconds per compile (fuzz.py --compile-timeout)
        for key in ('clang', 'lld', 'packer', 'runner', 'plugin'):
            if not os.path.exists(self.cfg[key]):
                sys.exit(f'fuzz.py: {self.cfg[key]} ({key}) does not exist: build the tree first '
                         f'(cmake --build <tree> --target fuzz_kernels_runner xgpu-wiloop xgpu-kernels)')

    def compile_flags(self, variant):
        c = self.cfg
        host = [x.replace('{level}', self.level) for x in c['host_flags']]
        # The plugin build also holds each kernel's bounds-checked copy (the 'checked' run).
        return (host + (c['plugin_flags'] + ['-DXGPU_KERNEL_BOUNDS_CHECKS=1'] if variant == 'loops' else [])
                + c['language_flags'] + c['common_flags']
                + (UBSAN_FLAGS if variant == 'ubsan' else []))

    def compile_cmd(self, src, obj, variant):
        return ([self.cfg['clang']] + self.compile_flags(variant) + [f'-DXGPU_HOST_ISA_NAME="{self.isa}"', '-c', src,
                                                                     '-o', obj])

    def build(self, src, stem, variant):
        """Compiles src (and the host info source), links and packs; returns (xgpux, error, seconds, notes)."""
        t0 = time.time()
        plugin = variant == 'loops'
        obj = os.path.join(self.work, f'{stem}.{variant}.o')
        info = os.path.join(self.work, f'info.{self.level}.{variant}.o')  # (a reused work folder may hold another level's)
        so = os.path.join(self.work, f'{stem}.{variant}.so')
        out = os.path.join(self.work, f'{stem}.{variant}.xgpux')
        try:
            p = subprocess.run(['nice'] + self.compile_cmd(src, obj, variant), capture_output=True, text=True,
                               timeout=self.compile_timeout)
        except subprocess.TimeoutExpired:
            return None, f'COMPILE-TIMEOUT: the {variant} compile took more than {self.compile_timeout} s', \
                time.time() - t0, []
        notes = [l for l in p.stderr.splitlines() if 'xgpu-wiloop: note:' in l]
        if p.returncode != 0:
            return None, p.stderr, time.time() - t0, notes
        if not os.path.exists(info):
            q = subprocess.run(self.compile_cmd(self.cfg['host_info_source'], info, variant), capture_output=True,
                               text=True)
            if q.returncode != 0:
                return None, q.stderr, time.time() - t0, notes
        steps = [[self.cfg['lld']] + self.cfg['link_flags'] + [obj, info, '-o', so],
                 [self.cfg['packer'], 'pack', '-o', out, '--entry', f'{self.isa}={so}'],
                 [self.cfg['packer'], 'check', out]]
        for cmd in steps:
            q = subprocess.run(cmd, capture_output=True, text=True)
            if q.returncode != 0:
                return None, f'$ {" ".join(cmd)}\n{q.stdout}{q.stderr}', time.time() - t0, notes
        return out, None, time.time() - t0, notes

    def run(self, xgpux, manifest, mode, only=None, dump=False, timeout=10):
        """Runs the runner once; returns (rc, stdout)."""
        env = dict(os.environ)
        env.pop('HSA_CPU_BARRIER_MODE', None)
        env.pop('HSA_CPU_WORKERS', None)
        if mode == 'fibers':
            env['HSA_CPU_BARRIER_MODE'] = 'fibers'
        if mode == 'loops1':
            env['HSA_CPU_WORKERS'] = '1'
        cmd = ['nice', self.cfg['runner'], xgpux, manifest, '--timeout', str(timeout)]
        if mode == 'shuffle':
            cmd += ['--shuffle', '1']
        if mode == 'checked':
            cmd.append('--checked')
        if only:
            cmd += ['--only', ','.join(only)]
        if dump:
            cmd.append('--dump')
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        return p.returncode, p.stdout, p.stderr


def parse_hashes(text):
    res = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and not parts[0] in ('in0', 'in1', 'out', 'wgout', 'acc', 'acc64', 'facc', 'bins'):
            res[(parts[0], int(parts[1]))] = parts[2]
    return res


def run_all(tc, xgpux, manifest, mode, dispatches):
    """Every dispatch's hash (or FAULT / TIMEOUT / CRASH) in one mode, surviving runner deaths."""
    results = {}
    remaining = list(dispatches)
    while remaining:
        names = sorted({k for k, _ in remaining})
        rc, out, err = tc.run(xgpux, manifest, mode, only=names if len(remaining) < len(dispatches) else None)
        got = parse_hashes(out)
        results.update(got)
        if rc == 2:
            sys.exit(f'fuzz.py: the runner failed to start:\n{err}')
        left = [d for d in remaining if d not in results]
        if rc != 0 and left:
            # The first dispatch without a result stopped the runner.
            bad = left[0]
            verdict = 'TIMEOUT' if rc == 3 else f'CRASH(rc={rc})'
            for d in left:
                if d[0] == bad[0]:
                    results[d] = verdict
            left = [d for d in left if d[0] != bad[0]]
        elif left:
            for d in left:
                results[d] = 'MISSING'
            left = []
        remaining = left
    return results


def read_dump(text):
    """{config: {(buffer, index): value}} from --dump output."""
    res = {}
    cur = None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        if parts[0] in ('in0', 'in1', 'out', 'wgout', 'acc', 'acc64', 'facc', 'bins'):
            if cur is not None:
                cur[(parts[0], int(parts[1]))] = parts[2]
        else:
            cur = res.setdefault(int(parts[1]), {})
    return res


def describe_groups(values):
    """'loops != fibers = plain' style description of which runs agree."""
    groups = []
    for run in values:
        for g in groups:
            if values[g[0]] == values[run]:
                g.append(run)
                break
        else:
            groups.append([run])
    return ' != '.join(' = '.join(g) for g in groups)


def build_of(run):
    """The build a run uses: fibers, loops1 and checked run the plugin build, shuffle the plain one."""
    return 'loops' if run in ('fibers', 'loops1', 'checked') else 'plain' if run == 'shuffle' else run


def element_diffs(tc, builds, manifest, kernel, outcomes):
    """Lines naming the first differing elements of each disagreeing dispatch (against fibers)."""
    runs = list(next(iter(outcomes.values())).keys())
    dumps = {}
    for run in runs:
        rc, out, _ = tc.run(builds[build_of(run)], manifest, run, only=[kernel], dump=True)
        dumps[run] = read_dump(out) if rc == 0 else {}
    lines = []
    for (k, cfg), vals in sorted(outcomes.items()):
        if len(set(vals.values())) == 1:
            continue
        lines.append(f'  dispatch {cfg}: {describe_groups(vals)}  ({", ".join(f"{r} {vals[r]}" for r in runs)})')
        ref = dumps.get('fibers', {}).get(cfg)
        for run in runs:
            got = dumps.get(run, {}).get(cfg)
            if run == 'fibers' or ref is None or got is None or vals[run] == vals['fibers']:
                continue
            diff = [key for key in ref if ref[key] != got.get(key)]
            by_buf = {}
            for b, i in diff:
                by_buf.setdefault(b, []).append(i)
            summary = ', '.join(f'{b}: {len(ix)}' for b, ix in by_buf.items())
            lines.append(f'    {run} vs fibers: {len(diff)} elements differ ({summary})')
            for b, i in sorted(diff, key=lambda x: (x[0], x[1]))[:4]:
                lines.append(f'      {b}[{i}]: {run} {got.get((b, i))}, fibers {ref[(b, i)]}')
    return lines


def manifest_lines(kernels):
    return [gen.manifest_line(c, i) for k in kernels for i, c in enumerate(k.configs)]


class Fuzzer:
    def __init__(self, args, tc):
        self.args = args
        self.tc = tc
        self.variants = ['loops', 'plain'] + (['ubsan'] if args.check_ub else [])
        self.runs = list(RUNS) + (['ubsan'] if args.check_ub else [])
        self.findings = []          # (kernel name, report text, saved path)
        self.kernels_run = 0
        self.dispatches_run = 0
        self.fallbacks = []         # the pass's notes: kernels it left as fibers
        self.t_compile = 0.0
        self.t_run = 0.0
        self.generator_errors = []  # (kernel, why)

    def rerun_command(self, kernel_seed=None, replay=None):
        b = f' --build {rel(self.args.build)}' if self.args.build else ''
        p = f' --plugin {rel(self.args.plugin)}' if self.args.plugin else ''
        if replay:
            return f'python3 {rel(os.path.join(HERE, "fuzz.py"))}{b}{p} --replay {rel(replay)}'
        return f'python3 {rel(os.path.join(HERE, "fuzz.py"))}{b}{p} --kernel-seed {kernel_seed:#018x}'

    def build(self, src_text, manifest, stem):
        """Writes the source and manifest, builds every variant (in parallel); returns
        (manifest path, {variant: xgpux or None}, {variant: error}, notes)."""
        src = os.path.join(self.tc.work, f'{stem}.c')
        man = os.path.join(self.tc.work, f'{stem}.txt')
        with open(src, 'w') as f:
            f.write(src_text)
        with open(man, 'w') as f:
            f.write('\n'.join(manifest) + '\n')
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, self.args.jobs)) as ex:
            futures = {v: ex.submit(self.tc.build, src, stem, v) for v in self.variants}
            done = {v: f.result() for v, f in futures.items()}
        self.t_compile += time.time() - t0
        builds = {v: done[v][0] for v in self.variants}
        errors = {v: done[v][1] for v in self.variants}
        if done['loops'][2] > 30 and done['loops'][2] > 8 * done['plain'][2]:
            print(f'  (the plugin build of {stem} took {done["loops"][2]:.0f} s, the build without it '
                  f'{done["plain"][2]:.0f} s)', flush=True)
        notes = done['loops'][3]
        return man, builds, errors, notes

    def run_all_modes(self, builds, man, dispatches):
        t0 = time.time()
        runs = [r for r in self.runs if builds.get(build_of(r))]
        res = {run: run_all(self.tc, builds[build_of(run)], man, run, dispatches) for run in runs}
        self.t_run += time.time() - t0
        return {d: {r: res[r].get(d, 'MISSING') for r in runs} for d in dispatches}

    def batch(self, kernels, stem):
        """Builds and runs kernels together; isolates build failures; reports mismatches."""
        src_text = gen.PRELUDE + ''.join(f'\n/* ---- kernel {k.name} (kernel seed {k.kseed:#018x}) ---- */\n'
                                         + k.source for k in kernels)
        man, builds, errors, notes = self.build(src_text, manifest_lines(kernels), stem)
        if builds.get('ubsan', '') is None and builds['loops'] and builds['plain']:
            # UBSan's checks may need what a kernel code object cannot have (a 128-bit
            # division from compiler-rt): this batch goes without the checked build.
            print(f'  (the UBSan build of {stem} does not link: {errors["ubsan"].strip().splitlines()[-1][:200]}; '
                  f'checked build skipped)', flush=True)
            builds['ubsan'] = None
            builds = {v: x for v, x in builds.items() if x}
        if any(x is None for x in builds.values()):
            if len(kernels) > 1:
                half = len(kernels) // 2
                self.batch(kernels[:half], stem + 'a')
                self.batch(kernels[half:], stem + 'b')
                return
            k = kernels[0]
            if builds['plain'] is None:
                why = errors['plain']
                self.generator_errors.append((k, why))
                print(f'!! generator error: kernel {k.name} (seed {k.kseed:#x}) does not build without the '
                      f'plugin:\n{why[:3000]}', flush=True)
            else:
                self.report(k, None, builds, man, build_error=errors['loops'])
            return
        self.fallbacks += notes
        dispatches = [(k.name, i) for k in kernels for i in range(len(k.configs))]
        outcomes = self.run_all_modes(builds, man, dispatches)
        self.kernels_run += len(kernels)
        self.dispatches_run += len(dispatches)
        for k in kernels:
            bad = {d: v for d, v in outcomes.items() if d[0] == k.name and len(set(v.values())) != 1}
            if not bad:
                continue
            if all(len(set(v[r] for r in COMPILER_RUNS)) == 1 for v in bad.values()):
                # Only a run that checks the kernel itself differs: a race, an order-dependent
                # result, a read of memory nobody wrote or undefined behaviour in the kernel.
                self.generator_errors.append((k, 'the shuffled or UBSan run differs'))
                print(f'!! generator error: kernel {k.name} (seed {k.kseed:#x}): only the shuffled or UBSan run '
                      f'differs ({"; ".join(describe_groups(v) for v in bad.values())})\n{k.source}', flush=True)
                continue
            self.report(k, bad, builds, man)

    def report(self, k, outcomes, builds, man, build_error=None):
        lines = [f'== MISMATCH in kernel {k.name} (kernel seed {k.kseed:#018x})']
        if build_error:
            lines.append('  the plugin build fails, the build without it succeeds:')
            lines.extend('    ' + l for l in build_error.strip().splitlines()[:40])
        else:
            lines.extend(element_diffs(self.tc, builds, man, k.name, outcomes))
            alone = self.alone(k)
            lines.append(f'  alone (the kernel in a source of its own): '
                         f'{"reproduces" if alone else "does NOT reproduce"}')
        for c_i, c in enumerate(k.configs):
            lines.append(f'  dispatch {c_i}: workgroup {c["wg"]}, grid {c["grid"]}, n {c["n"]}, '
                         f'dynamic group bytes {c["dyn"]}')
        lines.append(f'  rerun: {self.rerun_command(kernel_seed=k.kseed)}')
        text = '\n'.join(lines)
        print(text)
        print('--- kernel source ---')
        print(k.source)
        sys.stdout.flush()
        path = None
        if not self.args.no_save:
            path = save_found(k, text, self.args.found, self.args.plugin)
            print(f'  saved: {rel(path)}  (rerun: {self.rerun_command(replay=path)})', flush=True)
        self.findings.append((k.name, text, path))

    def alone(self, k):
        """Whether the kernel still disagrees in a source of its own."""
        man, builds, errors, _ = self.build(gen.PRELUDE + '\n' + k.source, manifest_lines([k]), f'alone_{k.name}')
        if any(x is None for x in builds.values()):
            return builds['loops'] is None and builds['plain'] is not None
        outcomes = self.run_all_modes(builds, man, [(k.name, i) for i in range(len(k.configs))])
        return any(len(set(v[r] for r in COMPILER_RUNS)) != 1 for v in outcomes.values())


def save_found(k, text, folder, plugin):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f'{k.name}.c')
    head = ['/* Found by tests/fuzz-kernels/fuzz.py: the runs of this kernel disagree'
            + (f' (pass plugin {plugin}).' if plugin else '.'),
            f' * Rerun: python3 tests/fuzz-kernels/fuzz.py --replay {rel(path)}',
            ' *']
    head += [' * ' + l.rstrip() for l in text.splitlines() if not l.lstrip().startswith('rerun:')]
    head += [' *', ' * Dispatches (gen.py manifest lines; --replay reads them):']
    head += [f' * {MANIFEST_TAG} {line}' for line in manifest_lines([k])]
    head += [' */']
    with open(path, 'w') as f:
        f.write('\n'.join(head) + '\n' + gen.PRELUDE + '\n' + k.source)
    return path


def replay(fz, path):
    """Builds and runs a saved kernel source; its header's FUZZ-DISPATCH lines say how."""
    text = open(path).read()
    lines = [l.split(MANIFEST_TAG, 1)[1].strip() for l in text.splitlines() if MANIFEST_TAG in l]
    if not lines:
        sys.exit(f'fuzz.py: {path} names no dispatch ({MANIFEST_TAG} lines)')
    stem = 'replay_' + os.path.splitext(os.path.basename(path))[0]
    man, builds, errors, notes = fz.build(text, lines, stem)
    for n in notes:
        print(n)
    if builds['plain'] is None:
        print(f'the build without the plugin fails:\n{errors["plain"]}')
        return 2
    if builds['loops'] is None:
        print(f'MISMATCH: the plugin build fails, the build without it succeeds:\n{errors["loops"]}')
        return 1
    dispatches = [(l.split()[0], int(l.split()[1])) for l in lines]
    outcomes = fz.run_all_modes(builds, man, dispatches)
    for d, v in sorted(outcomes.items()):
        print(f'{d[0]} dispatch {d[1]}: {describe_groups(v)}')
    bad = {d: v for d, v in outcomes.items() if len(set(v.values())) != 1}
    for name in sorted({d[0] for d in bad}):
        for l in element_diffs(fz.tc, builds, man, name, {d: v for d, v in bad.items() if d[0] == name}):
            print(l)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=None, help='build tree (default: build/default)')
    ap.add_argument('--config', help='fuzz-kernels.json (default: <build>/tests/fuzz-kernels/fuzz-kernels.json)')
    ap.add_argument('--count', type=int, default=100, help='kernels to generate')
    ap.add_argument('--first', type=int, default=0,
                    help="index of the first kernel in the seed's sequence (default 0; needs --seed)")
    ap.add_argument('--seed', type=lambda s: int(s, 0), help='batch seed (default: random, printed)')
    ap.add_argument('--batch', type=int, default=40, help='kernels per compile')
    ap.add_argument('--kernel-seed', type=lambda s: int(s, 0), action='append', default=[],
                    help='run exactly this kernel (repeatable)')
    ap.add_argument('--replay', nargs='+',
                    help='build and run saved kernel sources (found/<kernel>.c), or every .c of a folder')
    ap.add_argument('--jobs', type=int, default=2, help='parallel compiles (default 2)')
    ap.add_argument('--plugin', help='another build of the xgpu-wiloop plugin to test (default: the tree\'s)')
    ap.add_argument('--level', help='host level (default: x86-64-v3 when the CPU runs it, else x86-64-v2)')
    ap.add_argument('--work', help='work folder (default: a temporary one)')
    ap.add_argument('--no-save', action='store_true', help='do not write found/<kernel>.c')
    ap.add_argument('--found', default=os.path.join(HERE, 'found'), help='where mismatching kernels are saved')
    ap.add_argument('--compile-timeout', type=int, default=120,
                    help='seconds a compile may take; a kernel whose plugin build takes longer is reported')
    ap.add_argument('--check-ub', action='store_true',
                    help='also build with UBSan checks as traps and run it: validates the generated kernels')
    args = ap.parse_args()
    if not args.config:
        args.build = args.build or os.path.join(ROOT, 'build', 'default')
        args.config = os.path.join(args.build, 'tests', 'fuzz-kernels', 'fuzz-kernels.json')
    if not os.path.exists(args.config):
        sys.exit(f'fuzz.py: {args.config} not found: configure the build tree (cmake --preset default)')
    if args.work:
        os.makedirs(args.work, exist_ok=True)
        work = args.work
    else:
        work = tempfile.mkdtemp(prefix='fuzz-kernels-')
    with open(args.config) as f:
        level = args.level or host_level(json.load(f).get('clang'))
    tc = Toolchain(args.config, level, work, args.plugin)
    tc.compile_timeout = args.compile_timeout
    fz = Fuzzer(args, tc)
    t0 = time.time()
    if args.replay:
        paths = []
        for p in args.replay:
            paths += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith('.c')) if os.path.isdir(p) else [p]
        worst = 0
        for p in paths:
            print(f'== {rel(p)}', flush=True)
            worst = max(worst, replay(fz, p))
        print(f'fuzz-kernels: replayed {len(paths)} kernel source(s): '
              f'{"every run agrees" if worst == 0 else "MISMATCH" if worst == 1 else "a build failed"}')
        return worst
    if args.kernel_seed:
        kernels = gen.generate(args.kernel_seed)
        print(f'fuzz-kernels: {len(kernels)} kernel(s) by seed, host level {level}, work folder {work}', flush=True)
        for i in range(0, len(kernels), args.batch):
            fz.batch(kernels[i:i + args.batch], f'k{i}')
    else:
        if args.first and args.seed is None:
            print('fuzz-kernels: --first needs --seed (it resumes that seed\'s sequence)', file=sys.stderr)
            return 2
        if args.first < 0:
            print(f'fuzz-kernels: --first {args.first} is negative', file=sys.stderr)
            return 2
        seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
        print(f'fuzz-kernels: seed {seed:#x}, {args.count} kernels from index {args.first}, {args.batch} per batch, '
              f'host level {level}, work folder {work}', flush=True)
        for first in range(args.first, args.first + args.count, args.batch):
            n = min(args.batch, args.first + args.count - first)
            kernels = gen.generate(gen.kernel_seeds(seed, n, first))
            fz.batch(kernels, f'b{first}')
            el = time.time() - t0
            print(f'  {fz.kernels_run} kernels through index {first + n - 1} ({fz.dispatches_run} dispatches), '
                  f'{len(fz.findings)} mismatching, {el:.0f} s', flush=True)
    el = time.time() - t0
    per = el / max(1, fz.kernels_run)
    print(f'fuzz-kernels: {fz.kernels_run} kernels, {fz.dispatches_run} dispatches in {el:.1f} s '
          f'({per:.2f} s per kernel: building {fz.t_compile:.1f} s, running {fz.t_run:.1f} s); '
          f'{len(fz.fallbacks)} kept fibers (pass notes); {len(fz.generator_errors)} generator errors; '
          f'{len(fz.findings)} mismatching kernels')
    for name, text, path in fz.findings:
        print(f'  {name}: {text.splitlines()[1].strip() if len(text.splitlines()) > 1 else ""}'
              + (f' -> {rel(path)}' if path else ''))
    if fz.generator_errors:
        return 2
    return 1 if fz.findings else 0


if __name__ == '__main__':
    sys.exit(main())
