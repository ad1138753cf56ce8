#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The benchmark harness (bench.sh) itself, on a made-up corpus: the shipped
# sample as "vmlinux" (and, with its .BTF, as the base of four "modules",
# copies of the sample), and in the places of pahole 1.31 and 1.32 a stub
# that runs our own pahole-compatible front end (neither pahole is
# installed where the tests run).  Checks what bench.sh reports and its
# exit status, never a timing.
#
#	tests/bench/run.sh BUILD_DIR

set -u

build=$(cd "${1:?usage: tests/bench/run.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../lib.sh"

if [ ! -x /usr/bin/time ]; then
	skip bench "no GNU time at /usr/bin/time (apt-get install time)"
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
	mkdir -p "$work/cwd"
	(cd "$work/cwd" && exec env D2B_CORPUS="$work/corpus" PAHOLE="$work/pahole" D2B_PAHOLE132="$work/pahole" \
	    D2B_PAHOLE="$build/dwarf2btf-pahole" D2B_BIN="$build/dwarf2btf" \
	    BENCH_WORK="$work/scratch-$name" BENCH_RUNS=2 BENCH_RUNSTAT="$build/tests/runstat" "$@" \
	    "$here/bench.sh" >"$work/$name.out" 2>&1 </dev/null)
	rc=$?
}

# expect CASE WANT FILE REGEX...: PASS if the exit status in rc is WANT and
# every extended regex matches a line of FILE
expect()
{
	local case=$1 want=$2 file=$3 re
	shift 3
	if [ "$rc" -ne "$want" ]; then
		fail_tail "$case" "exit $rc, not $want" "$file" 40
		return
	fi
	for re in "$@"; do
		if ! grep -Eq -- "$re" "$file"; then
			fail_tail "$case" "no line matches '$re'; bench.sh said:" "$file" 40
			return
		fi
	done
	pass "$case"
}

# modules_cases: bench.sh's module rows on $work/mods (four modules)
modules_cases()
{
	local n='[0-9.]+' r='([0-9.]+|-)' t

	# one in two of the sorted list (kernel/a/one.ko, kernel/b/two.ko),
	# detached, two runs: the summary, a row per module, the checks
	bench mods D2B_CORPUS="$work/mods" BENCH_TARGETS=modules BENCH_MODULE_EVERY=2
	expect "bench modules" 0 "$work/mods.out" \
		"^timer: +.*/tests/runstat \\(each command's own rusage\\)\$" \
		"^our base cache: warm " \
		"^modules: +2 of 4 \\(one in 2 of the sorted list, from the first\\), each -j1 --btf_base OWN \\(the tool's vmlinux BTF, made first\\) --btf_encode_detached=OUT MODULE\$" \
		"^modules \\(2 of 4\\), each over the tool's own vmlinux BTF at -j1, output detached; per module the median of 2 runs" \
		'^  2 of 2 modules converted by every tool$' \
		'^ +pahole 1\.31 +pahole 1\.32 +dwarf2btf-pahole +ours/1\.31 +ours/1\.32$' \
		"^  CPU s, median module +$n +$n +$n +$r +$r\$" \
		"^  CPU s, all modules +$n +$n +$n +$r +$r\$" \
		"^  wall s, all modules +$n +$n +$n +$r +$r\$" \
		"^  peak RSS MiB, median module +$n +$n +$n +$n +$n\$" \
		"^  peak RSS MiB, largest +$n +$n +$n +$n +$n\$" \
		'^  BTF bytes, all modules +([0-9]+) +\1 +\1 +1\.00 +1\.00$' \
		"^  CPU ratio per module, median \\(min-max\\) +($n \\($n-$n\\)|-) +($n \\($n-$n\\)|-)\$" \
		'^  module: CPU s \(median\) +1\.31 +1\.32 +ours +ours/1\.31 +ours/1\.32 +peak RSS MiB: +1\.31 +1\.32 +ours$' \
		"^  kernel/a/one\\.ko +$n +$n +$n +$r +$r +$n +$n +$n\$" \
		"^  kernel/b/two\\.ko +$n +$n +$n +$r +$r +$n +$n +$n\$" \
		'^modules, dwarf2btf-pahole \(2 converted\):$' \
		'^  byte-identical in its 2 runs: yes$' \
		'^  reads back \(dwarf2btf --base ITS_BASE --dump\): yes$' \
		'^corpus unchanged \(size and mtime of vmlinux and 2 modules\): yes$'
	t=$work/scratch-mods/modules.tsv
	if grep -Eq 'three|four|^vmlinux|serial part' "$work/mods.out"; then
		fail_tail "bench modules: the sample" "a module out of the sample, or vmlinux, timed" "$work/mods.out" 40
	elif [ "$(wc -l <"$t" 2>/dev/null)" != 3 ] ||
	     ! head -n 1 "$t" | grep -q '^module	cpu_s 1.31	wall_s 1.31	rss_kib 1.31	bytes 1.31	cpu_s 1.32	'; then
		fail "bench modules: modules.tsv" "not a header and a line per module: $(head -n 3 "$t" 2>&1)"
	else
		pass "bench modules: the sample and modules.tsv"
	fi

	# all four over vmlinux's .BTF, in place, one run (and an untimed one
	# for the check), without pahole 1.32: no row per module
	bench mods-all D2B_CORPUS="$work/mods" BENCH_TARGETS=modules BENCH_ALL_MODULES=1 \
		BENCH_MODULE_WRITE=inplace BENCH_RUNS=1 D2B_PAHOLE132="$work/none" \
		BENCH_MODULE_BASE=vmlinux BENCH_RUNSTAT=
	expect "bench modules: all, in place" 0 "$work/mods-all.out" \
		"^timer: +bash's time around " \
		'^modules: +all 4, each -j1 --btf_base VMLINUX, into a fresh copy of MODULE$' \
		'^  4 of 4 modules converted by every tool$' \
		"^  CPU s, median module +$n +not there +$n +$r +not there\$" \
		'^modules \(4 of 4\), each over vmlinux at -j1, output inplace' \
		'^  reads back \(dwarf2btf --base VMLINUX --dump\): yes$' \
		"^  \\.ko bytes, all modules +[0-9]+ +not there +[0-9]+ +1\\.00 +not there\$" \
		'^  byte-identical in two runs \(one not timed\): yes$' \
		'^corpus unchanged \(size and mtime of vmlinux and 4 modules\): yes$'
	if grep -q '^  kernel/' "$work/mods-all.out"; then
		fail_tail "bench modules: no rows" "a row per module with BENCH_ALL_MODULES=1" "$work/mods-all.out" 40
	else
		pass "bench modules: no rows"
	fi

	# over the bases of a folder (those the first case made, renamed)
	mkdir -p "$work/bases"
	for t in pahole pahole132 ours; do
		cp "$work/scratch-mods/base-$t.btf" "$work/bases/$t.btf"
	done
	bench mods-dir D2B_CORPUS="$work/mods" BENCH_TARGETS=modules BENCH_MODULE_EVERY=4 \
		BENCH_MODULE_BASE="$work/bases" BENCH_RUNS=1
	expect "bench modules: a folder of bases" 0 "$work/mods-dir.out" \
		"^modules: +1 of 4 .*--btf_base $work/bases/TOOL\\.btf --btf_encode_detached=OUT MODULE\$" \
		"^modules \\(1 of 4\\), each over $work/bases/TOOL\\.btf at -j1" \
		'^  1 of 1 modules converted by every tool$' \
		'^  reads back \(dwarf2btf --base ITS_BASE --dump\): yes$'
	if [ -e "$work/scratch-mods-dir/base-ours.btf" ]; then
		fail "bench modules: a folder of bases" "bases made all the same"
	fi
	rm "$work/bases/ours.btf"
	bench mods-no-base D2B_CORPUS="$work/mods" BENCH_TARGETS=modules BENCH_MODULE_BASE="$work/bases"
	expect "bench modules: a base missing" 2 "$work/mods-no-base.out" \
		"BENCH_MODULE_BASE: no $work/bases/ours\\.btf\$"
	bench mods-bad-base D2B_CORPUS="$work/mods" BENCH_TARGETS=modules BENCH_MODULE_BASE=debian
	expect "bench modules: bad base" 2 "$work/mods-bad-base.out" \
		"BENCH_MODULE_BASE must be own, vmlinux or a folder, not 'debian'"
	# a tool that cannot make its own base: said, and exit 1
	bench mods-base-fails D2B_CORPUS="$work/mods" BENCH_TARGETS=modules PAHOLE="$work/failing"
	expect "bench modules: a base fails" 1 "$work/mods-base-fails.out" \
		'^bench\.sh: pahole 1\.31 could not make the base of its modules$' 'pahole stub: refuses'

	# pahole 1.31 fails on every module: said, and exit 1
	bench mods-failing D2B_CORPUS="$work/mods" BENCH_TARGETS=modules BENCH_MODULE_EVERY=3 \
		BENCH_MODULE_BASE=vmlinux \
		PAHOLE="$work/failing"
	expect "bench modules: a tool fails" 1 "$work/mods-failing.out" \
		'^  0 of 2 modules converted by every tool$' \
		'^  pahole 1\.31 failed on 2 modules \(first: kernel/a/one\.ko\)$' \
		'FAILED \(exit 1\): .*failing'
}

# xfs_cases: the xfs.ko rows, a copy of the sample over $work/mods's vmlinux
xfs_cases()
{
	mkdir -p "$work/xfs/modules/kernel/fs/xfs"
	cp "$work/mods/vmlinux" "$work/xfs/vmlinux"
	cp "$src/tests/sample/sample.o" "$work/xfs/modules/kernel/fs/xfs/xfs.ko"
	# over each tool's own base (the default): not compared
	bench xfs D2B_CORPUS="$work/xfs" BENCH_TARGETS=xfs.ko BENCH_JOBS="1 2" BENCH_RUNS=1
	expect "bench xfs.ko" 0 "$work/xfs.out" \
		"^xfs\\.ko \\(0 MiB\\), split over the tool's own vmlinux BTF\$" \
		'^ +-j1 +pahole 1\.32 +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' \
		'^ +-j2 +ratio ours/1\.32 +([0-9.]+|-) +([0-9.]+|-) +[0-9.]+ *$' \
		'^ +xfs\.ko +-j2 +open [0-9.]+ \+ merge ' \
		'^ +xfs\.ko +pahole 1\.32 +deterministic: yes$' \
		"^  \\(skipped: each is split over its own tool's base; BENCH_MODULE_BASE=vmlinux compares them\\)\$" \
		'^corpus unchanged \(size and mtime of vmlinux xfs\.ko\): yes$'
	if grep -q '^modules' "$work/xfs.out"; then
		fail_tail "bench xfs.ko alone" "modules timed" "$work/xfs.out" 40
	else
		pass "bench xfs.ko alone"
	fi
	# over vmlinux's .BTF, one base for all: compared
	bench xfs-vmlinux D2B_CORPUS="$work/xfs" BENCH_TARGETS=xfs.ko BENCH_JOBS=1 BENCH_RUNS=1 \
		BENCH_MODULE_BASE=vmlinux
	expect "bench xfs.ko over vmlinux" 0 "$work/xfs-vmlinux.out" \
		'^xfs\.ko \(0 MiB\), split over vmlinux$' \
		'^by meaning, xfs\.ko -j1, ours and pahole 1\.32: dwarf2btf --base VMLINUX --compare ' \
		'^ +0 differences'
	if [ "$(grep -c '^ *0 differences' "$work/xfs-vmlinux.out")" != 2 ]; then
		fail_tail "bench xfs.ko over vmlinux: compared" "not with both paholes" "$work/xfs-vmlinux.out" 40
	else
		pass "bench xfs.ko over vmlinux: compared"
	fi
}

# vmlinux alone, -j2 asked twice (once is run), both paholes' places taken
# by the same program: identical outputs, ratios, the serial part, exit 0.
# (The sample converts in a few ms: a median of 0.00 s makes a ratio "-".)
bench vmlinux BENCH_TARGETS=vmlinux BENCH_JOBS="1 2 2"
expect "bench vmlinux" 0 "$work/vmlinux.out" \
	'^ +-j1 +pahole 1\.31 +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' \
	'^ +-j1 +pahole 1\.32 +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' \
	'^ +-j1 +ratio ours/1\.31 +([0-9.]+|-) +([0-9.]+|-) +[0-9.]+ *$' \
	'^ +-j2 +ratio ours/1\.32 +([0-9.]+|-) +([0-9.]+|-) +[0-9.]+ *$' \
	'^ +-j2 +dwarf2btf-pahole +[0-9.]+ +[0-9.]+-[0-9.]+ ' \
	'^deterministic across -j1 -j2 \(byte-identical' \
	'^ +vmlinux +dwarf2btf-pahole +deterministic: yes' \
	'^ +vmlinux +pahole 1\.32 +deterministic: yes' \
	'^by meaning, vmlinux -j1, ours and pahole 1\.31: ' \
	'^by meaning, vmlinux -j1, ours and pahole 1\.32: ' \
	'^ +vmlinux +-j2 +open [0-9.]+ \+ merge [0-9.]+ \+ finish [0-9.]+ \+ datasec [0-9.]+ = [0-9.]+ s floor \(walk phase [0-9.]+ s; medians of 2\)$' \
	'^ +vmlinux +-j2 +merge steps: setup [0-9.]+ primitives [0-9.]+ structs [0-9.]+ references [0-9.]+ append [0-9.]+ index [0-9.]+$' \
	'^ +0 differences' \
	'^corpus unchanged \(size and mtime of vmlinux\): yes'
if grep -Eq 'xfs|^modules' "$work/vmlinux.out" ||
   [ "$(grep -Ec -- '-j2 +ratio' "$work/vmlinux.out")" != 2 ] ||
   [ "$(grep -c -- ' 0 differences' "$work/vmlinux.out")" != 2 ]; then
	fail_tail "bench vmlinux alone" "xfs.ko or modules timed, -j2 run twice, or not both compared" \
		"$work/vmlinux.out" 40
else
	pass "bench vmlinux alone"
fi

# a "vmlinux" of 300 units (tests/dedup/many_units.py), merged in groups:
# the serial part has the groups' merge too
mkdir -p "$work/many"
if python3 "$src/tests/dedup/many_units.py" --one-amb 300 >"$work/many.dg" &&
   python3 "$src/tests/dwarfgen/dwarfgen.py" "$work/many.dg" -o "$work/many/vmlinux"; then
	bench groups D2B_CORPUS="$work/many" BENCH_TARGETS=vmlinux BENCH_JOBS=4
	expect "bench groups" 0 "$work/groups.out" \
		'^ +vmlinux +-j4 +merge steps: setup [0-9.]+ primitives [0-9.]+ structs [0-9.]+ references [0-9.]+ append [0-9.]+ index [0-9.]+$' \
		'^ +vmlinux +-j4 +merge of the groups: setup [0-9.]+ primitives [0-9.]+ structs [0-9.]+ references [0-9.]+ append [0-9.]+ index [0-9.]+$'
else
	fail "bench groups" "many_units.py or dwarfgen.py failed"
fi

# no pahole 1.32: its rows say so, the rest runs (with the default mode)
bench no-132 BENCH_TARGETS=vmlinux BENCH_JOBS=1 BENCH_DEFAULT=1 D2B_PAHOLE132="$work/none"
expect "bench without pahole 1.32" 0 "$work/no-132.out" \
	"^pahole: +pahole 1\.32 not there: no $work/none \(set D2B_PAHOLE132\)" \
	'^ +-j1 +pahole 1\.32 +\(pahole 1\.32 not there\)$' \
	'^ +-j1 +ratio ours/1\.32 +\(pahole 1\.32 not there\)$' \
	'^ +-j1 +ratio default/1\.31 +([0-9.]+|-) ' \
	'^ +vmlinux +pahole 1\.32 +deterministic: pahole 1\.32 not there$' \
	'^ +\(pahole 1\.32 not there\)$' \
	'^ +0 differences'

# a tool that fails: said, and exit 1
bench failing BENCH_TARGETS=vmlinux BENCH_JOBS=1 PAHOLE="$work/failing"
expect "bench failing tool" 1 "$work/failing.out" 'FAILED \(exit 1\): .*failing' 'pahole stub: refuses'

# setups it cannot run: exit 2, saying why
bench no-xfs BENCH_JOBS=1
expect "bench no xfs.ko" 2 "$work/no-xfs.out" 'no xfs.ko under .*BENCH_TARGETS=vmlinux'
bench bad-target BENCH_TARGETS="vmlinux sched.ko"
expect "bench bad target" 2 "$work/bad-target.out" "BENCH_TARGETS: 'sched.ko' is none of vmlinux, xfs.ko and modules"
bench no-modules BENCH_TARGETS=modules
expect "bench no modules" 2 "$work/no-modules.out" 'no modules \(\*\.ko\) under .*/corpus/modules'
bench bad-write BENCH_TARGETS=modules BENCH_MODULE_WRITE=copy
expect "bench bad module write" 2 "$work/bad-write.out" "BENCH_MODULE_WRITE must be detached or inplace, not 'copy'"

# modules: four copies of the sample over a "vmlinux" that has .BTF
mkdir -p "$work/mods/modules/kernel/a" "$work/mods/modules/kernel/b" "$work/mods/modules/kernel/c"
cp "$src/tests/sample/sample.o" "$work/mods/vmlinux"
for m in a/one b/two b/three c/four; do
	cp "$src/tests/sample/sample.o" "$work/mods/modules/kernel/$m.ko"
done
mods_ok=0
if ! "$build/dwarf2btf" "$work/mods/vmlinux" >"$work/mods.out" 2>&1; then
	fail_tail "bench modules" "dwarf2btf could not give the made-up vmlinux its .BTF" "$work/mods.out" 10
else
	mods_ok=1
	modules_cases
	xfs_cases
fi

# pack NAME CORPUS ORIGINAL: pack.sh of CORPUS (whose vmlinux is a copy of
# ORIGINAL) into $work/NAME, its run.sh run from another directory, which
# unpacks into $work/NAME-unpacked, and that vmlinux converted as ORIGINAL
# is.  0 if all went well (bench.sh's report in $work/NAME-run.out), else a
# FAIL line for case "bench NAME" and 1.
pack()
{
	local name=$1 corpus=$2 orig=$3 case="bench $1"
	env D2B_CORPUS="$corpus" PAHOLE="$work/pahole" D2B_BIN="$build/dwarf2btf" \
	    "$here/pack.sh" "$work/$name" vmlinux >"$work/$name.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ ! -x "$work/$name/run.sh" ]; then
		fail_tail "$case" "pack.sh exit $rc" "$work/$name.out" 40
		return 1
	fi
	mkdir -p "$work/elsewhere"
	if ! (cd "$work/elsewhere" && env -u LD_LIBRARY_PATH BENCH_RUNS=1 BENCH_JOBS="1 2" \
	      BENCH_CORPUS_DIR="$work/$name-unpacked" "$work/$name/run.sh" >"$work/$name-run.out" 2>&1); then
		fail_tail "$case" "the packed run.sh failed" "$work/$name-run.out" 40
		return 1
	fi
	if ! "$build/dwarf2btf" -o "$work/$name-a.btf" "$orig" ||
	   ! "$build/dwarf2btf" -o "$work/$name-b.btf" "$work/$name-unpacked/vmlinux" ||
	   ! cmp -s "$work/$name-a.btf" "$work/$name-b.btf"; then
		fail "$case" "the unpacked copy does not convert as $orig does"
		return 1
	fi
	return 0
}

# pack.sh: a packed copy of the sample (a relocatable file: every section
# kept) runs on its own, from another directory
if ! command -v objcopy >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1 ||
   ! command -v zstd >/dev/null 2>&1 || ! command -v tar >/dev/null 2>&1; then
	skip "bench pack" "needs objcopy, readelf (binutils), tar and zstd"
	exit 0
fi
if pack pack "$work/corpus" "$src/tests/sample/sample.o"; then
	expect "bench pack" 0 "$work/pack-run.out" \
		"^corpus: +$work/pack-unpacked" \
		"^ours: +$work/pack/bin/dwarf2btf-pahole" \
		'^ +vmlinux +dwarf2btf-pahole +deterministic: yes' \
		'^ +0 differences'
fi

# pack.sh modules: the sample (one in two: a/one.ko, b/two.ko), the
# base's .BTF and each tool's own, run from elsewhere, times every module
# it carries over the tool's own base; run
# again into the same folder; refuses a folder of other modules
if [ $mods_ok = 1 ]; then
	mkdir -p "$work/elsewhere" "$work/foreign/modules"
	: >"$work/foreign/modules/other.ko"
	env D2B_CORPUS="$work/mods" PAHOLE="$work/pahole" D2B_PAHOLE132="$work/pahole" \
	    D2B_BIN="$build/dwarf2btf" BENCH_MODULE_EVERY=2 \
	    "$here/pack.sh" "$work/pack-mods" modules >"$work/pack-mods.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$work/pack-mods/corpus/modules.tar.zst" ]; then
		fail_tail "bench pack modules" "pack.sh exit $rc" "$work/pack-mods.out" 40
	else
		for i in 1 2; do
			(cd "$work/elsewhere" && env -u LD_LIBRARY_PATH BENCH_RUNS=1 \
			 BENCH_CORPUS_DIR="$work/pack-mods-unpacked" "$work/pack-mods/run.sh") \
				>"$work/pack-mods-run$i.out" 2>&1
			rc=$?
			expect "bench pack modules, run $i" 0 "$work/pack-mods-run$i.out" \
				"^pahole: +$work/pack-mods/bin/pahole132 \\(v1\\.32\\)" \
				"^modules: +all 2, each -j1 --btf_base $work/pack-mods-unpacked/bases/TOOL\\.btf " \
				'^  2 of 2 modules converted by every tool$' \
				'^  kernel/a/one\.ko +[0-9.]+ ' \
				'^  kernel/b/two\.ko +[0-9.]+ ' \
				'^  reads back \(dwarf2btf --base ITS_BASE --dump\): yes$'
		done
		(cd "$work/elsewhere" && env -u LD_LIBRARY_PATH BENCH_CORPUS_DIR="$work/foreign" \
		 "$work/pack-mods/run.sh") >"$work/pack-foreign.out" 2>&1
		rc=$?
		expect "bench pack modules: other modules left alone" 2 "$work/pack-foreign.out" \
			"^run\.sh: $work/foreign/modules holds other files; set BENCH_CORPUS_DIR to a new folder\$"
		[ -e "$work/foreign/modules/other.ko" ] ||
			fail "bench pack modules: other modules left alone" "other.ko removed"
	fi
fi

# the same for an executable (the path a vmlinux takes: sections left out)
if ! command -v gcc >/dev/null 2>&1; then
	skip "bench pack exec" "no gcc to build an executable"
	exit 0
fi
# bench.sh writes nothing where it is run (a stray command once wrote xaa)
if [ -z "$(ls -A "$work/cwd" 2>/dev/null)" ]; then
	pass "bench cwd untouched"
else
	fail "bench cwd untouched" "bench.sh left $(ls -A "$work/cwd" | head -n 3 | tr '\n' ' ')in its working directory"
fi
mkdir -p "$work/corpus-exec"
if ! gcc -g -O1 -o "$work/corpus-exec/vmlinux" "$src/tests/sample/sample.c" -nostartfiles \
	-Wl,-e,0 2>"$work/gcc.out"; then
	fail_tail "bench pack-exec" "gcc failed" "$work/gcc.out" 40
elif pack pack-exec "$work/corpus-exec" "$work/corpus-exec/vmlinux"; then
	if readelf -SW "$work/pack-exec-unpacked/vmlinux" 2>/dev/null |
	   grep -Eq ' \.(debug_line|rela\.[a-z.]*) '; then
		fail "bench pack-exec" ".debug_line or a relocation section kept"
	else
		pass "bench pack-exec"
	fi
fi
test_done
