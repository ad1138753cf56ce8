#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The soak: what make check runs with fixed seeds, run with new ones and
# more of them (make soak; not part of make check or CI, whose answer
# must not depend on the day):
#
#	tests/soak.sh BUILD_DIR
#
#	tests/mutate	D2B_SOAK_MUTANTS (default 3000) DWARF mutants and
#			D2B_SOAK_DAMAGE (default 1500) damaged copies of each
#			fixture's BTF, for each seed of D2B_SOAK_SEEDS
#			(default: the day, UTC, YYYYMMDD)
#	tests/kill	D2B_SOAK_KILLS (default 300) interrupted writes, seeded
#			by the first seed
#
# Findings are kept in BUILD_DIR/soak/ (DWARF mutants, damaged BTFs).  Each
# becomes a fixed case: its seed goes into tests/mutate/seeds (with what
# it found), and the smallest input that shows it into
# tests/fuzz/regressions/ (btf_raw/ for a damaged BTF, convert/ for an
# object), with the fix.  Ends with tests/run.sh's "N passed, N failed,
# N skipped".

set -u
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
SEEDS=${D2B_SOAK_SEEDS:-$(date -u +%Y%m%d)}
KEEP=$BUILD/soak
mkdir -p "$KEEP"
echo "# soak: seeds $SEEDS; findings kept in $KEEP"
D2B_MUTATE_SEED=$SEEDS D2B_MUTANTS=${D2B_SOAK_MUTANTS:-3000} \
D2B_BTF_DAMAGE=${D2B_SOAK_DAMAGE:-1500} D2B_MUTATE_KEEP=$KEEP \
D2B_KILL_RUNS=${D2B_SOAK_KILLS:-300} D2B_KILL_SEED=${SEEDS%% *} \
D2B_TEST_TIMEOUT=${D2B_TEST_TIMEOUT:-7200} D2B_TEST_FILTER='^(mutate|kill)$' \
	exec "$SRC/tests/run.sh" "$BUILD"
