#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Interrupted in-place writes:
#
#	tests/kill/run.sh BUILD_DIR
#
# Builds a ~100 MB object (2,000 structs and a 100 MB initialized array in
# .data), then converts it in place with BUILD_DIR/dwarf2btf and SIGKILLs
# the conversion at random moments of its write phase (copying the object
# into the temporary file, fsync, rename), D2B_KILL_RUNS times (default
# 100).  After every run the object must be byte-identical to the original
# or to the complete converted file, never anything between, and the only
# other files beside it killed writers' temporary ones (<object>.d2b-PID.N);
# a run that got as far as creating its own must have removed the earlier
# ones (lib/base/safe_file.c), and after a last uninterrupted run none may be
# left.
#
# Each kill comes a random time (a seeded RNG: D2B_KILL_SEED, default 1)
# after the run's temporary file appears, up to the median length of the
# write phase of uninterrupted runs; a failure prints the seed and the run.
# About 15 s on an ordinary disk.  One line per case: PASS/FAIL/SKIP.

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
. "$(dirname "$0")/../lib.sh"
BIN=$BUILD/dwarf2btf
need_built "$BIN"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-kill.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

python3 - <<'EOF' >big.c
print('#include <stddef.h>')
for i in range(2000):
    print(f'struct s{i} {{ int a; long b; struct s{max(i - 1, 0)} *prev; char name[{i % 64 + 1}]; }};')
    print(f'struct s{i} v{i} = {{ {i}, {i} }};')
print('char big[100 << 20] = { 1 };')
print('int main(void) { return big[0] + v1.a; }')
EOF
cc=
for c in gcc clang; do
	if command -v $c >/dev/null && $c -g -c big.c -o big.o 2>/dev/null; then
		cc=$c
		break
	fi
done
if [ -z "$cc" ]; then
	skip kill_in_place "neither gcc nor clang builds the large object"
	exit 0
fi
rm -f big.c

python3 - "$BIN" big.o "${D2B_KILL_RUNS:-100}" "${D2B_KILL_SEED:-1}" <<'EOF'
import os, random, re, shutil, signal, subprocess, sys, time

binary, target, runs, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
orig, conv = target + '.orig', target + '.conv'
temp_re = re.compile(re.escape(target) + r'\.d2b-(\d+)\.(\d+)$')
nfail = 0

def fail(name, why):
    global nfail
    print(f'FAIL {name}: {why} (D2B_KILL_SEED={seed})')
    nfail += 1

def same(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True

def others():
    """files beside the target other than it and our reference copies"""
    return sorted(set(os.listdir('.')) - {target, orig, conv})

def run(delay=None):
    """convert in place; SIGKILL delay seconds after its own temporary file
    appears (None: let it finish).  Returns (exit status or None if killed,
    seconds to the first sight of a temporary file or None, seconds it ran)."""
    start = time.monotonic()
    p = subprocess.Popen([binary, target], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    seen = None
    while True:
        now = time.monotonic() - start
        if delay is not None and seen is not None and now >= seen + delay:
            p.send_signal(signal.SIGKILL)
            p.wait()
            return (None if p.returncode == -signal.SIGKILL else p.returncode), seen, now
        if p.poll() is not None:
            err = p.stderr.read().decode(errors='replace').strip()
            if p.returncode:
                print(f'# {binary} {target}: exit {p.returncode}: {err}')
            return p.returncode, seen, now
        if seen is None and any(m and m.group(1) == str(p.pid)
                                for m in map(temp_re.match, os.listdir('.'))):
            seen = now
        time.sleep(0.0002)

os.rename(target, orig)
shutil.copyfile(orig, target)
# the complete result, and the write phase's length from uninterrupted runs
phase = []
for i in range(5):
    rc, seen, took = run()
    if rc != 0 or seen is None:
        print(f'FAIL kill_in_place: the uninterrupted conversion failed (exit {rc})')
        sys.exit(1)
    phase.append(took - seen)
    if i == 0:
        os.rename(target, conv)
    elif not same(target, conv):
        print('FAIL kill_in_place: two uninterrupted conversions differ')
        sys.exit(1)
    shutil.copyfile(orig, target)
phase.sort()
hi = phase[len(phase) // 2]
print(f'# object: {os.path.getsize(orig)} bytes, converted {os.path.getsize(conv)}; '
      f'write phase (temporary file to exit) {phase[0]:.3f}-{phase[-1]:.3f} s; '
      f'kills 0-{hi:.3f} s after the temporary file appears')

rng = random.Random(seed)
count = {'before the temporary file': 0, 'mid-write (temporary file left)': 0,
         'after the rename': 0, 'finished first': 0}
bad = None
for i in range(runs):
    before = set(others())
    delay = rng.uniform(0, hi)
    rc, seen, took = run(delay)
    after = set(others())
    new = after - before
    where = f'run {i}, kill {delay:.4f} s into the write'
    if any(not temp_re.match(n) for n in after):
        bad = f'{where}: unexpected files {sorted(n for n in after if not temp_re.match(n))}'
    elif len(new) > 1:
        bad = f'{where}: {len(new)} new temporary files: {sorted(new)}'
    elif new and after != new:
        # it got as far as creating its own: it removed the earlier ones first
        bad = f'{where}: earlier temporary files not removed: {sorted(after - new)}'
    elif rc not in (None, 0):
        bad = f'{where}: exit {rc}'
    elif same(target, orig):
        count['mid-write (temporary file left)' if new else 'before the temporary file'] += 1
        if rc == 0:
            bad = f'{where}: finished but the file is unchanged'
    elif same(target, conv):
        count['after the rename' if rc is None else 'finished first'] += 1
        if new:
            bad = f'{where}: the rename happened but the temporary file {sorted(new)} stayed'
        shutil.copyfile(orig, target)
    else:
        bad = f'{where}: the file is neither the original nor the converted one'
    if bad:
        break
print('# ' + ', '.join(f'{v} {k}' for k, v in count.items()) +
      f'; temporary files beside it now: {len(others())}')
if bad:
    fail('kill_in_place', bad)
elif count['mid-write (temporary file left)'] < runs // 5:
    fail('kill_in_place', f'only {count["mid-write (temporary file left)"]} of {runs} kills '
         'landed in the write phase: the timing is off')
else:
    print(f'PASS kill_in_place: {runs} runs')

# one more run, uninterrupted: it removes what the killed ones left
left = others()
rc, _, _ = run()
if rc != 0 or not same(target, conv):
    fail('kill_leftovers_removed', f'the last conversion failed (exit {rc})')
elif others():
    fail('kill_leftovers_removed', f'{len(others())} of the {len(left)} temporary files '
         f'left by killed runs are still there, e.g. {others()[0]}')
else:
    print(f'PASS kill_leftovers_removed: the next run removed the {len(left)} left')
sys.exit(1 if nfail else 0)
EOF
