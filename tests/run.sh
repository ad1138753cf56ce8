#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Run every test group and count the results:
#
#	tests/run.sh BUILD_DIR		(make check runs: tests/run.sh $(O))
#
# Groups, in order: every unit program BUILD_DIR/tests/test_*, then every
# tests/*/run.sh script (given BUILD_DIR as $1).  Each prints one line per
# case: "PASS name", "FAIL name: why" or "SKIP name: why" (tests/unit/test.h).
# A group that exits non-zero without a FAIL line, times out, or prints no
# result at all counts as one more failure.  Lines starting with "#" just
# before a FAIL are shown with it; a group's whole output is kept in
# BUILD_DIR/tests/logs/GROUP.log.
#
# The last line is always "N passed, N failed, N skipped".  Exit status is
# non-zero iff something failed or nothing passed.
#
# Environment:
#	D2B_TEST_FILTER	 extended regex; run only groups whose name matches
#			 (unit programs are named test_foo, scripts by their
#			 directory: golden, elf, e2e, ...)
#	D2B_TEST_TIMEOUT seconds per group (default 600)
#	D2B_CORPUS	 corpus directory for the optional corpus tests; when
#			 unset they SKIP and say so
#	D2B_VERBOSE=1	 also print every PASS line
#	DWARF2BTF_CACHE_DIR  where conversions over a base keep its cache
#			 entry (default here: BUILD_DIR/tests/cache, not the
#			 user's ~/.cache/dwarf2btf)

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 BUILD_DIR   (a directory built by 'make O=BUILD_DIR tests')" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 2
fi

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
TIMEOUT=${D2B_TEST_TIMEOUT:-600}
FILTER=${D2B_TEST_FILTER:-}
LOGDIR=$BUILD/tests/logs
export DWARF2BTF_CACHE_DIR=${DWARF2BTF_CACHE_DIR-$BUILD/tests/cache}
mkdir -p "$LOGDIR"
export D2B_BUILD=$BUILD D2B_SRC=$SRC

total_pass=0
total_fail=0
total_skip=0
summary=()

# run_group NAME CMD...: run one group under timeout, print its failures and
# skips, add its counts to the totals.
run_group()
{
	local name=$1; shift
	local log=$LOGDIR/$name.log
	local start end rc pass=0 fail=0 skip=0 line ctx=()

	start=$(date +%s.%N)
	# (the outer 2>/dev/null hides bash's own "Segmentation fault" notice;
	# the crash is reported below)
	{ timeout -k 10 "$TIMEOUT" "$@" </dev/null >"$log" 2>&1; rc=$?; } 2>/dev/null
	end=$(date +%s.%N)

	echo "== $name"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"PASS "*|PASS)
			pass=$((pass + 1)); ctx=()
			[ -n "${D2B_VERBOSE:-}" ] && echo "$line"
			;;
		"FAIL "*|FAIL)
			fail=$((fail + 1))
			echo "$line"
			[ ${#ctx[@]} -gt 0 ] && printf '%s\n' "${ctx[@]}"
			ctx=()
			;;
		"SKIP "*|SKIP)
			skip=$((skip + 1)); ctx=()
			echo "$line"
			;;
		"#"*)
			# keep the last few diagnostics: shown if a FAIL follows
			ctx+=("    $line")
			[ ${#ctx[@]} -gt 8 ] && ctx=("${ctx[@]:1}")
			;;
		esac
	done <"$log"

	local why=
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		why="timed out after ${TIMEOUT}s"
	elif [ $rc -ge 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ $rc -ne 0 ] && [ $fail -eq 0 ]; then
		why="exited $rc"
	elif [ $((pass + fail + skip)) -eq 0 ]; then
		why="printed no PASS/FAIL/SKIP line"
	fi
	if [ -n "$why" ]; then
		fail=$((fail + 1))
		echo "FAIL $name: $why"
		echo "    last lines of $log:"
		tail -n 12 "$log" | sed 's/^/    | /'
	fi

	local secs
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	summary+=("$(printf '   %-28s %5d pass %5d fail %5d skip %7ss' "$name" $pass $fail $skip "$secs")")
	echo "-- $name: $pass pass, $fail fail, $skip skip (${secs}s)"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
}

selected()
{
	[ -z "$FILTER" ] || printf '%s\n' "$1" | grep -Eq -- "$FILTER"
}

echo "dwarf2btf tests: build $BUILD"
if [ -n "${D2B_CORPUS:-}" ]; then
	echo "corpus: $D2B_CORPUS"
else
	echo "corpus: D2B_CORPUS unset (corpus tests skip)"
fi
[ -n "$FILTER" ] && echo "filter: $FILTER"

ngroups=0
for prog in "$BUILD"/tests/test_*; do
	[ -f "$prog" ] && [ -x "$prog" ] || continue
	name=$(basename "$prog")
	case $name in *.d|*.o|*.log) continue ;; esac
	selected "$name" || continue
	ngroups=$((ngroups + 1))
	run_group "$name" "$prog"
done

for script in "$SRC"/tests/*/run.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$(dirname "$script")")
	selected "$name" || continue
	ngroups=$((ngroups + 1))
	run_group "$name" bash "$script" "$BUILD"
done

if [ $ngroups -eq 0 ]; then
	echo "FAIL run.sh: no test group found${FILTER:+ matching '$FILTER'}"
	total_fail=$((total_fail + 1))
fi

echo
echo "summary:"
[ ${#summary[@]} -gt 0 ] && printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail -eq 0 ] && [ $total_pass -gt 0 ]
