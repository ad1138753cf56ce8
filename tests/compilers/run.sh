#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/compilers/run.sh BUILD_DIR
#
# Objects from today's compilers, checked in (regen.sh rebuilds them in a
# Debian sid chroot): gcc16/X.o, clang22/X.o and clang23/X.o, gcc-16,
# clang-22 and clang-23 -std=gnu23 -O2 -g (DWARF 5) builds of X.c (and
# clang23/cxx.o, clang++-23's of cxx.cc), so that these compilers' DWARF
# is tested on any machine.  For each object:
#
#  1. pahole: BUILD_DIR/dwarf2btf-pahole -J --btf_features=default, the
#     kernel build's command, compared by meaning (dwarf2btf --compare,
#     no option) with CC/X.pahole.btf, pahole 1.32's BTF of the same
#     object: the differences must be exactly those CC/X.known lists (and
#     explains), none if there is no such file.
#     With CC/X.truesig.btf, pahole 1.32's BTF with true_signature too
#     (truesig.c), the same with --btf_features=default,true_signature
#     against it and CC/X.truesig.known.
#  2. chains: dwarf2btf's default conversion (every variable) checked with
#     ../annot/btfchain.py against CC/X.expect: every variable, member,
#     parameter and return type as its chain of kinds, and the DECL_TAGs.
#     tags.c holds pahole's btf_type_tag_order.sh case: VAR global_ptr:
#     PTR -> TYPE_TAG inner -> TYPE_TAG outer -> STRUCT sample.
#  3. load: both outputs loaded into the kernel (BUILD_DIR/tests/btf_load;
#     SKIP where the kernel cannot be asked).
#
# One line per case: PASS name / FAIL name: why / SKIP name: why.

B=${1:?usage: $0 BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
D2B="$B/dwarf2btf"
PAHOLE="$B/dwarf2btf-pahole"
LOAD="$B/tests/btf_load"
CHK="$HERE/../annot/btfchain.py"
TMP=$(mktemp -d /tmp/compilers-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. "$HERE/../lib.sh"

for tool in python3 bpftool; do
	have "$tool" || { fail compilers/setup "$tool not found"; exit 1; }
done
[ -x "$D2B" ] && [ -x "$PAHOLE" ] || { fail compilers/setup "no $D2B or $PAHOLE"; exit 1; }

# against_pahole NAME OBJ REF KNOWN FEATURES: dwarf2btf-pahole -J
# --btf_features=FEATURES on OBJ differs from REF (pahole 1.32's) by the
# lines of KNOWN only (none if there is no such file)
against_pahole()
{
	local name=$1 obj=$2 ref=$3 known=$4 out
	out="$TMP/$(basename "$(dirname "$obj")")-$(basename "$ref").btf"
	if ! "$PAHOLE" -J --btf_features="$5" --btf_encode_detached="$out" "$obj" \
		>"$TMP/run.out" 2>&1; then
		failx "$name" "dwarf2btf-pahole failed" "$TMP/run.out"
		return
	fi
	"$D2B" --compare "$ref" "$out" >"$TMP/cmp.out" 2>&1
	sed '/^kind /,$d' "$TMP/cmp.out" | sort >"$TMP/diffs"
	if [ -f "$known" ]; then
		grep -v '^#' "$known" | sort >"$TMP/known"
	else
		: >"$TMP/known"
	fi
	if cmp -s "$TMP/diffs" "$TMP/known"; then
		pass "$name"
	else
		diff "$TMP/known" "$TMP/diffs" >"$TMP/dd"
		failx "$name" "differs from pahole 1.32 other than $(basename "$known") says (< known, > found)" "$TMP/dd"
	fi
	load_btf "$name" "$out"
}

n=0
for cc in gcc16 clang22 clang23; do
	for obj in "$HERE/$cc"/*.o; do
		[ -f "$obj" ] || continue
		n=$((n + 1))
		base=$(basename "$obj" .o)
		name="compilers/$cc/$base"
		ref="$HERE/$cc/$base.pahole.btf"

		# 1. against pahole 1.32
		if [ ! -f "$ref" ]; then
			skip "$name/pahole" "no pahole BTF ($base.c: see its comment)"
		else
			against_pahole "$name/pahole" "$obj" "$ref" "$HERE/$cc/$base.known" default
		fi
		ref="$HERE/$cc/$base.truesig.btf"
		[ -f "$ref" ] && against_pahole "$name/true_signature" "$obj" "$ref" \
			"$HERE/$cc/$base.truesig.known" default,true_signature

		# 2. chains
		out="$TMP/$cc-$base.btf"
		if ! "$D2B" -o "$out" "$obj" >"$TMP/run.out" 2>&1; then
			failx "$name/chains" "dwarf2btf failed" "$TMP/run.out"
			continue
		fi
		if python3 "$CHK" check "$out" "$HERE/$cc/$base.expect" >"$TMP/chk.out" 2>&1; then
			pass "$name/chains"
		else
			failx "$name/chains" "BTF differs from $cc/$base.expect" "$TMP/chk.out"
		fi
		load_btf "$name/chains" "$out"
	done
done
[ $n -gt 0 ] || fail compilers/setup "no objects in $HERE/gcc16, clang22 or clang23"
test_done
