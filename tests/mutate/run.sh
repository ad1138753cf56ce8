#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Damaged DWARF through the whole conversion, judged by the kernel:
#
#	tests/mutate/run.sh BUILD_DIR
#
# The e2e fixtures are compiled (gcc and clang, -O0 -gdwarf-4 and -O2
# -gdwarf-5), and D2B_MUTANTS (default 300) mutants of their .debug_*
# sections are converted (tests/mutate/mutate.py says how).  It fails on a
# crash, a hang, a sanitizer report, or exit 0 with BTF that BPF_BTF_LOAD
# refuses; it SKIPs where the kernel cannot be asked (not root, no bpf).
#
# Then D2B_BTF_DAMAGE (default 150) damaged copies of each fixture's BTF
# must be judged by the verifier as the kernel judges them
# (tests/unit/test_verify_kernel.c -n).
#
# The seed is the day (UTC, YYYYMMDD): each day's run tries other mutants,
# and a finding is reproduced with D2B_MUTATE_SEED=SEED (printed on the
# result line) and the same D2B_MUTANTS.  D2B_MUTATE_KEEP=DIR keeps the
# findings there (else they are printed and removed with the work dir).

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
FIX=$HERE/../e2e/fixtures
D2B=$BUILD/dwarf2btf
LOAD=$BUILD/tests/btf_load
SEED=${D2B_MUTATE_SEED:-$(date -u +%Y%m%d)}
COUNT=${D2B_MUTANTS:-300}
name=mutate/dwarf

# a sanitizer report must not pass for dwarf2btf's ordinary "exit 1"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86

WORK=${D2B_MUTATE_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/d2b-mutate.XXXXXX")}
mkdir -p "$WORK"
[ -n "${D2B_MUTATE_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

for t in "$D2B" "$LOAD"; do
	if [ ! -x "$t" ]; then
		fail $name "$t not built (make O=$BUILD tests)"
		exit 1
	fi
done
if ! command -v python3 >/dev/null; then
	skip $name "no python3"
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
	skip $name "no fixture compiled (no gcc or clang)"
	exit 0
fi

# can the kernel be asked at all?
"$D2B" -o "$WORK/good.btf" "${objs[0]}" 2>"$WORK/err" || {
	fail $name "the unchanged fixture ${objs[0]##*/} does not convert: $(head -c 200 "$WORK/err")"
	exit 1
}
"$LOAD" "$WORK/good.btf" >/dev/null 2>"$WORK/err"
case $? in
0) ;;
2) skip $name "the kernel cannot be asked: $(tail -n 1 "$WORK/err")"; exit 0 ;;
*) fail $name "the kernel refuses the unchanged fixture's BTF: $(tail -n 2 "$WORK/err")"; exit 1 ;;
esac

# damaged copies of the fixtures' BTF: the verifier's verdict is the kernel's
# (tests/unit/test_verify_kernel.c; a few thousand blobs, about a second)
btfs=()
for o in "${objs[@]}"; do
	"$D2B" -o "${o%.o}.btf" "$o" 2>/dev/null && btfs+=("${o%.o}.btf")
done
"$BUILD/tests/test_verify_kernel" -n "${D2B_BTF_DAMAGE:-150}" -s "$SEED" "${btfs[@]}" \
	>"$WORK/btf.log" 2>&1
if [ $? -ne 0 ]; then
	grep '^FAIL' "$WORK/btf.log" | head -n 5 | sed 's/^/# /'
	fail mutate/btf "$(grep -c '^FAIL' "$WORK/btf.log") damaged BTFs judged otherwise than by the kernel (D2B_MUTATE_SEED=$SEED)"
else
	pass "mutate/btf (${#btfs[@]} fixtures' BTF; $(tail -n 1 "$WORK/btf.log" | sed 's/^# //'))"
fi

python3 "$HERE/mutate.py" --d2b "$D2B" --load "$LOAD" --work "$WORK" --seed "$SEED" \
	--count "$COUNT" "${objs[@]}" >"$WORK/log" 2>&1
rc=$?
grep '^FINDING' "$WORK/log" | head -n 10 | sed 's/^/# /'
summary=$(tail -n 1 "$WORK/log")
case $rc in
0) pass "$name (${#objs[@]} objects; ${summary#\# })" ;;
2) skip $name "$summary" ;;
*) fail $name "$(grep -c '^FINDING' "$WORK/log") findings; D2B_MUTATE_SEED=$SEED D2B_MUTANTS=$COUNT reproduces them: $summary" ;;
esac
test_done
