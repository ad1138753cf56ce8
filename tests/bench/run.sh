#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The benchmark harness (bench.sh) itself, on a made-up corpus: the shipped
# sample as "vmlinux", and in pahole's place a stub that runs our own
# pahole-compatible front end (pahole 1.31 is not installed where the tests
# run).  Checks what bench.sh reports and its exit status, never a timing.
#
#	tests/bench/run.sh BUILD_DIR

set -u

build=$(cd "${1:?usage: tests/bench/run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

if [ ! -x /usr/bin/time ]; then
	echo "SKIP bench: no GNU time at /usr/bin/time (apt-get install time)"
	exit 0
fi
work=$(mktemp -d /tmp/d2b-bench-test.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
cp "$src/tests/sample/sample.o" "$work/corpus/vmlinux"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$build/dwarf2btf-pahole" >"$work/pahole"
printf '#!/bin/sh\necho "pahole stub: refuses" >&2\nexit 1\n' >"$work/failing"
chmod +x "$work/pahole" "$work/failing"

# bench NAME [VAR=VALUE...]: run bench.sh on the made-up corpus; its output
# in $work/NAME.out, its exit status in rc
bench()
{
	local name=$1
	shift
	env D2B_CORPUS="$work/corpus" PAHOLE="$work/pahole" \
	    D2B_PAHOLE="$build/dwarf2btf-pahole" D2B_BIN="$build/dwarf2btf" \
	    BENCH_WORK="$work/scratch-$name" BENCH_RUNS=2 "$@" \
	    "$here/bench.sh" >"$work/$name.out" 2>&1
	rc=$?
}

# expect CASE FILE REGEX...: PASS if every extended regex matches a line
expect()
{
	local case=$1 file=$2 re
	shift 2
	for re in "$@"; do
		if ! grep -Eq -- "$re" "$file"; then
			echo "FAIL $case: no line matches '$re'; bench.sh said:"
			sed 's/^/# /' "$file" | tail -n 40
			return
		fi
	done
	echo "PASS $case"
}

# vmlinux alone, -j2 asked twice (once is run), pahole's place taken by
# the same program: identical outputs, ratios, the serial part, exit 0.
# (The sample converts in a few ms: a median of 0.00 s makes a ratio "-".)
bench vmlinux BENCH_TARGETS=vmlinux BENCH_JOBS="1 2 2"
if [ $rc -ne 0 ]; then
	echo "FAIL bench vmlinux: exit $rc"
	sed 's/^/# /' "$work/vmlinux.out" | tail -n 40
else
	expect "bench vmlinux" "$work/vmlinux.out" \
		'^ +-j1 +ratio ours/pahole +([0-9.]+|-) +([0-9.]+|-) +[0-9.]+ *$' \
		'^ +-j2 +dwarf2btf-pahole +[0-9.]+ +[0-9.]+-[0-9.]+ ' \
		'^deterministic across -j1 -j2 \(byte-identical' \
		'^ +vmlinux +dwarf2btf-pahole +deterministic: yes' \
		'^ +vmlinux +-j2 +open [0-9.]+ \+ merge [0-9.]+ \+ finish [0-9.]+ \+ datasec [0-9.]+ = [0-9.]+ s floor' \
		'^ +0 differences' \
		'^corpus unchanged \(size and mtime of vmlinux\): yes'
	if grep -q 'xfs' "$work/vmlinux.out" || [ "$(grep -Ec -- '-j2 +ratio' "$work/vmlinux.out")" != 1 ]; then
		echo "FAIL bench vmlinux alone: xfs.ko timed, or -j2 run twice"
		sed 's/^/# /' "$work/vmlinux.out" | tail -n 40
	else
		echo "PASS bench vmlinux alone"
	fi
fi

# a tool that fails: said, and exit 1
bench failing BENCH_TARGETS=vmlinux BENCH_JOBS=1 PAHOLE="$work/failing"
if [ $rc -ne 1 ]; then
	echo "FAIL bench failing tool: exit $rc, not 1"
	sed 's/^/# /' "$work/failing.out" | tail -n 20
else
	expect "bench failing tool" "$work/failing.out" 'FAILED \(exit 1\): .*failing' 'pahole stub: refuses'
fi

# setups it cannot run: exit 2, saying why
bench no-xfs BENCH_JOBS=1
if [ $rc -ne 2 ]; then
	echo "FAIL bench no xfs.ko: exit $rc, not 2"
else
	expect "bench no xfs.ko" "$work/no-xfs.out" 'no xfs.ko under .*BENCH_TARGETS=vmlinux'
fi
bench bad-target BENCH_TARGETS="vmlinux sched.ko"
if [ $rc -ne 2 ]; then
	echo "FAIL bench bad target: exit $rc, not 2"
else
	expect "bench bad target" "$work/bad-target.out" "BENCH_TARGETS: 'sched.ko' is neither vmlinux nor xfs.ko"
fi
# pack.sh: a packed copy (the sample as vmlinux) runs on its own, from
# another directory, and converts what the unpacked file holds
if ! command -v objcopy >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1 ||
   ! command -v zstd >/dev/null 2>&1; then
	echo "SKIP bench pack: needs objcopy, readelf (binutils) and zstd"
	exit 0
fi
env D2B_CORPUS="$work/corpus" PAHOLE="$work/pahole" D2B_BIN="$build/dwarf2btf" \
    "$here/pack.sh" "$work/pack" vmlinux >"$work/pack.out" 2>&1
rc=$?
mkdir -p "$work/elsewhere"
if [ $rc -ne 0 ] || [ ! -x "$work/pack/run.sh" ]; then
	echo "FAIL bench pack: pack.sh exit $rc"
	sed 's/^/# /' "$work/pack.out" | tail -n 20
elif ! (cd "$work/elsewhere" && env -u LD_LIBRARY_PATH BENCH_RUNS=1 BENCH_JOBS="1 2" \
	BENCH_CORPUS_DIR="$work/unpacked" "$work/pack/run.sh" >"$work/packrun.out" 2>&1); then
	echo "FAIL bench pack: the packed run.sh failed"
	sed 's/^/# /' "$work/packrun.out" | tail -n 40
elif ! "$build/dwarf2btf" -o "$work/a.btf" "$src/tests/sample/sample.o" ||
     ! "$build/dwarf2btf" -o "$work/b.btf" "$work/unpacked/vmlinux" ||
     ! cmp -s "$work/a.btf" "$work/b.btf"; then
	echo "FAIL bench pack: the unpacked vmlinux does not convert as the sample does"
else
	expect "bench pack" "$work/packrun.out" \
		"^corpus: +$work/unpacked" \
		"^ours: +$work/pack/bin/dwarf2btf-pahole" \
		'^ +vmlinux +dwarf2btf-pahole +deterministic: yes' \
		'^ +0 differences'
fi
# the same for an executable (the path a vmlinux takes: sections left out)
if ! command -v gcc >/dev/null 2>&1; then
	echo "SKIP bench pack exec: no gcc to build an executable"
	exit 0
fi
mkdir -p "$work/corpus-exec"
if ! gcc -g -O1 -o "$work/corpus-exec/vmlinux" "$src/tests/sample/sample.c" -nostartfiles \
	-Wl,-e,0 2>"$work/gcc.out"; then
	echo "FAIL bench pack exec: gcc failed"
	sed 's/^/# /' "$work/gcc.out" | tail -n 10
	exit 0
fi
env D2B_CORPUS="$work/corpus-exec" PAHOLE="$work/pahole" D2B_BIN="$build/dwarf2btf" \
    "$here/pack.sh" "$work/pack-exec" vmlinux >"$work/pack-exec.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL bench pack exec: pack.sh exit $rc"
	sed 's/^/# /' "$work/pack-exec.out" | tail -n 20
elif ! (cd "$work/elsewhere" && env -u LD_LIBRARY_PATH BENCH_RUNS=1 BENCH_JOBS=1 \
	BENCH_CORPUS_DIR="$work/unpacked-exec" "$work/pack-exec/run.sh" >"$work/packrun-exec.out" 2>&1); then
	echo "FAIL bench pack exec: the packed run.sh failed"
	sed 's/^/# /' "$work/packrun-exec.out" | tail -n 40
elif readelf -SW "$work/unpacked-exec/vmlinux" 2>/dev/null | grep -Eq ' \.(debug_line|rela\.[a-z.]*) '; then
	echo "FAIL bench pack exec: .debug_line or a relocation section kept"
elif ! "$build/dwarf2btf" -o "$work/c.btf" "$work/corpus-exec/vmlinux" ||
     ! "$build/dwarf2btf" -o "$work/d.btf" "$work/unpacked-exec/vmlinux" ||
     ! cmp -s "$work/c.btf" "$work/d.btf"; then
	echo "FAIL bench pack exec: the unpacked copy does not convert as the executable does"
else
	echo "PASS bench pack exec"
fi
exit 0
