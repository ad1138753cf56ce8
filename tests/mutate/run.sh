#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Damaged DWARF through the whole conversion, judged by the kernel:
#
#	tests/mutate/run.sh BUILD_DIR
#
# The e2e fixtures are compiled (gcc and clang, -O0 -gdwarf-4 and -O2
# -gdwarf-5), and for each seed D2B_MUTANTS (default 300) mutants of their
# .debug_* sections are converted (tests/mutate/mutate.py says how).  It
# fails on a crash, a hang, a sanitizer report, or exit 0 with BTF that
# BPF_BTF_LOAD refuses; it SKIPs where the kernel cannot be asked (not
# root, no bpf).
#
# Then D2B_BTF_DAMAGE (default 150) damaged copies of each fixture's BTF
# must be judged by the verifier as the kernel judges them
# (tests/unit/test_verify_kernel.c -n), and as many damaged copies of a BTF
# of the bpf tree's inline-site kinds as that tree's rules judge them
# (tests/unit/test_verify_loc.c -n: no kernel here loads those kinds).
#
# The seeds are fixed, so that make check gives the same answer on every
# day: tests/mutate/seeds lists them (a base set, and every seed that ever
# found something, with what it found).  D2B_MUTATE_SEED="S..." runs other
# seeds instead; `make soak` runs the day's seed with more mutants
# (tests/soak.sh).  A finding is reproduced with its seed (printed on the
# result line) and the same D2B_MUTANTS and D2B_BTF_DAMAGE; D2B_MUTATE_KEEP=
# DIR keeps the findings there (DIR/SEED/finding-*.o for DWARF,
# DIR/SEED/btf-findings/*.btf for damaged BTF), else they are printed and
# removed with the work dir.

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
FIX=$HERE/../e2e/fixtures
D2B=$BUILD/dwarf2btf
LOAD=$BUILD/tests/btf_load
SEEDS=${D2B_MUTATE_SEED:-$(sed -e 's/#.*//' "$HERE/seeds")}
COUNT=${D2B_MUTANTS:-300}
DAMAGE=${D2B_BTF_DAMAGE:-150}

# a sanitizer report must not pass for dwarf2btf's ordinary "exit 1"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86

WORK=${D2B_MUTATE_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/d2b-mutate.XXXXXX")}
mkdir -p "$WORK"
[ -n "${D2B_MUTATE_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

for t in "$D2B" "$LOAD"; do
	if [ ! -x "$t" ]; then
		fail mutate "$t not built (make O=$BUILD tests)"
		exit 1
	fi
done
if ! command -v python3 >/dev/null; then
	skip mutate "no python3"
	exit 0
fi

objs=()
for f in "$FIX"/*.c; do
	for cc in gcc clang; do
		command -v $cc >/dev/null || continue
		for v in "O0 -gdwarf-4" "O2 -gdwarf-5"; do
			o=$WORK/$cc-$(basename "$f" .c)-${v%% *}.o
			# shellcheck disable=SC2086
			$cc -g -$v -c "$f" -o "$o" 2>/dev/null && objs+=("$o")
		done
	done
done
if [ ${#objs[@]} -eq 0 ]; then
	skip mutate "no fixture compiled (no gcc or clang)"
	exit 0
fi

# can the kernel be asked at all?
"$D2B" -o "$WORK/good.btf" "${objs[0]}" 2>"$WORK/err" || {
	fail mutate "the unchanged fixture ${objs[0]##*/} does not convert: $(head -c 200 "$WORK/err")"
	exit 1
}
"$LOAD" "$WORK/good.btf" >/dev/null 2>"$WORK/err"
case $? in
0) ;;
2) skip mutate "the kernel cannot be asked: $(tail -n 1 "$WORK/err")"; exit 0 ;;
*) fail mutate "the kernel refuses the unchanged fixture's BTF: $(tail -n 2 "$WORK/err")"; exit 1 ;;
esac

# The fixtures' own BTF, damaged below
btfs=()
for o in "${objs[@]}"; do
	"$D2B" -o "${o%.o}.btf" "$o" 2>/dev/null && btfs+=("${o%.o}.btf")
done

# run_seed SEED: damaged copies of the fixtures' BTF, whose verdict must be
# the kernel's (tests/unit/test_verify_kernel.c; a few thousand blobs, about
# a second), then the DWARF mutants
run_seed()
{
	local seed=$1 dir=$WORK/$1 rc summary

	mkdir -p "$dir/btf-findings"
	"$BUILD/tests/test_verify_kernel" -k "$dir/btf-findings" -n "$DAMAGE" -s "$seed" \
		"${btfs[@]}" >"$dir/btf.log" 2>&1
	if [ $? -ne 0 ]; then
		grep '^FAIL' "$dir/btf.log" | head -n 5 | sed 's/^/# /'
		fail mutate/btf/$seed "$(grep -c '^FAIL' "$dir/btf.log") damaged BTFs judged otherwise than by the kernel (D2B_MUTATE_SEED=$seed D2B_BTF_DAMAGE=$DAMAGE reproduces them)"
	else
		pass "mutate/btf/$seed (${#btfs[@]} fixtures' BTF; $(tail -n 1 "$dir/btf.log" | sed 's/^# //'))"
	fi

	# the bpf tree's inline-site kinds, which no kernel here loads: damage
	# whose verdict that tree's rules fix (tests/unit/test_verify_loc.c)
	"$BUILD/tests/test_verify_loc" -n "$DAMAGE" -s "$seed" >"$dir/loc.log" 2>&1
	if [ $? -ne 0 ]; then
		grep '^#' "$dir/loc.log" | head -n 5
		fail mutate/loc/$seed "$(grep '^FAIL' "$dir/loc.log" | head -n 1)"
	else
		pass "mutate/loc/$seed ($(grep '^PASS verify_loc/seed' "$dir/loc.log" | sed 's/.*(//; s/)$//'))"
	fi

	python3 "$HERE/mutate.py" --d2b "$D2B" --load "$LOAD" --work "$dir" --seed "$seed" \
		--count "$COUNT" "${objs[@]}" >"$dir/log" 2>&1
	rc=$?
	grep '^FINDING' "$dir/log" | head -n 10 | sed 's/^/# /'
	summary=$(tail -n 1 "$dir/log")
	case $rc in
	0) pass "mutate/dwarf/$seed (${#objs[@]} objects; ${summary#\# })" ;;
	2) skip mutate/dwarf/$seed "$summary" ;;
	*) fail mutate/dwarf/$seed "$(grep -c '^FINDING' "$dir/log") findings; D2B_MUTATE_SEED=$seed D2B_MUTANTS=$COUNT reproduces them: $summary" ;;
	esac
}

for seed in $SEEDS; do
	case $seed in
	*[!0-9]*) fail mutate/seeds "not a seed: '$seed'"; continue ;;
	esac
	run_seed "$seed"
done
test_done
