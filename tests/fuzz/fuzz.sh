#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Run the libFuzzer targets that `make fuzz` built:
#
#	tests/fuzz/fuzz.sh BUILD_DIR [SECONDS [TARGET...]]
#
# Each target BUILD_DIR/fuzz/fuzz_T runs SECONDS (default 60; 0: only replay
# the inputs below once) over its seeds (tests/fuzz/seeds.sh makes them in
# BUILD_DIR/fuzz/seeds/T), its regressions (tests/fuzz/regressions/T, less
# those listed in known-failures) and the corpus it grows in
# BUILD_DIR/fuzz/corpus/T.  One line per target:
# PASS with executions, executions per second and coverage, or FAIL with
# the input that crashed (BUILD_DIR/fuzz/crash-T-*, to be checked in under
# tests/fuzz/regressions/T/) and the end of the log (BUILD_DIR/fuzz/T.log).
# FUZZ_ARGS adds libFuzzer options (e.g. -jobs=2, -fork=2).
#
# (Not named run.sh: tests/run.sh runs those in `make check`.)

set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/lib.sh"
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [SECONDS [TARGET...]]}" && pwd)
SECS=${2:-60}
shift $(($# > 1 ? 2 : 1))
export D2B_SRC=$SRC

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for bin in "$BUILD"/fuzz/fuzz_*; do
		[ -x "$bin" ] && [ -f "$bin" ] && targets+=("${bin##*/fuzz_}")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	fail fuzz "no target in $BUILD/fuzz (make fuzz O=$1)"
	exit 1
fi
"$SRC/tests/fuzz/seeds.sh" "$BUILD" | sed 's/^/# /' || { fail fuzz seeds; exit 1; }

for t in "${targets[@]}"; do
	bin=$BUILD/fuzz/fuzz_$t log=$BUILD/fuzz/$t.log corpus=$BUILD/fuzz/corpus/$t
	# the regressions, less the known failures (they would stop the run)
	regs=$BUILD/fuzz/regressions/$t
	rm -rf "$regs"
	mkdir -p "$corpus" "$BUILD/fuzz/seeds/$t" "$regs"
	for f in "$SRC/tests/fuzz/regressions/$t"/*; do
		[ -f "$f" ] || continue
		grep -q "^$t/${f##*/} " "$SRC/tests/fuzz/regressions/known-failures" ||
			cp "$f" "$regs/"
	done
	dirs=("$corpus" "$BUILD/fuzz/seeds/$t" "$regs")
	if [ "$SECS" = 0 ]; then
		how=(-runs=0)
	else
		how=(-max_total_time="$SECS")
	fi
	# shellcheck disable=SC2086
	"$bin" "${how[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$BUILD/fuzz/crash-$t-" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)
	if [ $rc -ne 0 ]; then
		crash=$(grep -Eo "$BUILD/fuzz/crash-$t-[^ ]*" "$log" | tail -n 1)
		grep -E 'ERROR|SUMMARY|^fuzz:|#[0-9]+ +0x' "$log" | head -n 15 | sed 's/^/#   /'
		fail "fuzz_$t" "exit $rc after ${execs:-?} executions; input: ${crash:-none}"
	else
		pass "fuzz_$t: ${execs:-?} executions, ${speed:-?}/s, ${cov:-?}"
	fi
done
test_done
