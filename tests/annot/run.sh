#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/annot/run.sh BUILD_DIR
#
# BTF annotations (issue 3): btf_decl_tag -> DECL_TAG, btf_type_tag ->
# TYPE_TAG, in clang's form, the btf:type_tag (v2) form and GCC 16's
# DW_TAG_GNU_annotation form.
#
#  1. tests/annot/*.dg: hand-written DWARF (tests/dwarfgen), converted with
#     BUILD_DIR/dwarf2btf in three modes (default, --no-type-tags,
#     --no-decl-tags) and checked against *.expect by meaning
#     (btfchain.py check; the options' results are derived from the same
#     expectations with the dropped tags taken out).
#     bad/*.dg: malformed DW_AT_GNU_annotation chains must fail cleanly.
#  2. clang_tags.c built by clang-14 and clang-19, x86_64 and bpf: our
#     conversion of each object's DWARF is compared by meaning with the
#     .BTF LLVM's BPF backend wrote into that compiler's bpf object.
#  3. gcc_plain.c (no annotations) built by gcc: the output is the same
#     byte for byte with and without --no-type-tags/--no-decl-tags.
#  Every output is also loaded into the kernel with BUILD_DIR/tests/btf_load
#  (exit 2 = cannot test here: SKIP).
#
# One line per case: PASS name / FAIL name: why / SKIP name: why.
# Exit status: 1 if anything failed.

B=${1:?usage: $0 BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
GEN="$HERE/../dwarfgen/dwarfgen.py"
CHK="$HERE/btfchain.py"
D2B="$B/dwarf2btf"
LOAD="$B/tests/btf_load"
TMP=$(mktemp -d /tmp/annot-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. "$HERE/../lib.sh"

for tool in python3 bpftool as; do
	if ! command -v "$tool" >/dev/null; then
		fail annot/setup "$tool not found"
		exit 1
	fi
done
if [ ! -x "$D2B" ] || [ -d "$D2B" ]; then
	fail annot/setup "no dwarf2btf program at $D2B"
	exit 1
fi

# convert NAME OBJ OUT [OPTION...]: run dwarf2btf; false if it failed
convert() {
	local name=$1 obj=$2 out=$3
	shift 3
	if ! "$D2B" "$@" -o "$out" "$obj" >"$TMP/d2b.out" 2>&1; then
		failx "$name" "dwarf2btf $* failed" "$TMP/d2b.out"
		return 1
	fi
	if [ ! -s "$out" ]; then
		fail "$name" "dwarf2btf $* wrote no output"
		return 1
	fi
}

# 1. generated fixtures
for dg in "$HERE"/*.dg; do
	base=$(basename "$dg" .dg)
	name="annot/$base"
	obj="$TMP/$base.o"
	if ! python3 "$GEN" "$dg" -o "$obj" 2>"$TMP/gen.out"; then
		failx "$name/generate" "dwarfgen failed" "$TMP/gen.out"
		continue
	fi
	for mode in full no-type-tags no-decl-tags; do
		case $mode in
		full) opt= ;;
		*) opt=--$mode ;;
		esac
		out="$TMP/$base.$mode.btf"
		convert "$name/$mode" "$obj" "$out" $opt || continue
		if python3 "$CHK" check --mode "$mode" "$out" "$HERE/$base.expect" >"$TMP/chk.out" 2>&1; then
			pass "$name/$mode"
		else
			failx "$name/$mode" "BTF differs from $base.expect" "$TMP/chk.out"
		fi
		load_btf "$name/$mode" "$out"
	done
done

# 1b. malformed GCC 16 chains (bad/*.dg): a cycle, a reference out of the
# unit or to no annotation fails the conversion with a message that says
# so, in bounded time
for dg in "$HERE"/bad/*.dg; do
	base=$(basename "$dg" .dg)
	name="annot/bad/$base"
	obj="$TMP/bad-$base.o"
	if ! python3 "$GEN" "$dg" -o "$obj" 2>"$TMP/gen.out"; then
		failx "$name/generate" "dwarfgen failed" "$TMP/gen.out"
		continue
	fi
	timeout 60 "$D2B" -o "$TMP/bad.btf" "$obj" >"$TMP/d2b.out" 2>&1
	rc=$?
	if [ $rc -ne 1 ]; then
		failx "$name" "exit $rc, expected 1 (124: it hung)" "$TMP/d2b.out"
	elif ! grep -q "DW_AT_GNU_annotation chain of DIE 0x[0-9a-f]*: " "$TMP/d2b.out"; then
		failx "$name" "the error does not name the chain" "$TMP/d2b.out"
	else
		pass "$name"
	fi
done

# 2. clang: our DWARF conversion against LLVM's own .BTF
SRC="$HERE/clang_tags.c"
for cc in clang-14 clang-19; do
	if ! command -v "$cc" >/dev/null; then
		skip "annot/$cc" "$cc not installed"
		continue
	fi
	if ! "$cc" -O2 -g -target bpf -c "$SRC" -o "$TMP/$cc.bpf.o" 2>"$TMP/cc.out" ||
	   ! "$cc" -O2 -g -c "$SRC" -o "$TMP/$cc.x86.o" 2>>"$TMP/cc.out"; then
		failx "annot/$cc/build" "cannot compile clang_tags.c" "$TMP/cc.out"
		continue
	fi
	oracle="$TMP/$cc.bpf.o"
	known=()
	[ -f "$HERE/$cc.known" ] && known=(--known "$HERE/$cc.known")
	for arch in bpf x86; do
		obj="$TMP/$cc.$arch.o"
		for mode in full no-type-tags no-decl-tags; do
			name="annot/$cc/$arch/$mode"
			out="$TMP/$cc.$arch.$mode.btf"
			case $mode in
			full) opt=; strip=() ;;
			no-type-tags) opt=--no-type-tags; strip=(--strip-type-tags) ;;
			no-decl-tags) opt=--no-decl-tags; strip=(--strip-decl-tags) ;;
			esac
			convert "$name" "$obj" "$out" $opt || continue
			if python3 "$CHK" compare "${strip[@]}" "${known[@]}" "$out" "$oracle" \
			   >"$TMP/cmp.out" 2>&1; then
				pass "$name"
			else
				failx "$name" "differs from LLVM's .BTF (missing = only LLVM has it)" "$TMP/cmp.out"
			fi
			load_btf "$name" "$out"
		done
	done
done

# 3. no annotations: the options change nothing
name=annot/gcc-plain
if ! command -v gcc >/dev/null; then
	skip "$name" "gcc not installed"
elif ! gcc -O2 -g -c "$HERE/gcc_plain.c" -o "$TMP/plain.o" 2>"$TMP/cc.out"; then
	failx "$name/build" "cannot compile gcc_plain.c" "$TMP/cc.out"
elif convert "$name" "$TMP/plain.o" "$TMP/plain.btf"; then
	ok=1
	for opts in --no-type-tags --no-decl-tags "--no-type-tags --no-decl-tags"; do
		convert "$name$opts" "$TMP/plain.o" "$TMP/plain.opt.btf" $opts || { ok=0; continue; }
		if ! cmp -s "$TMP/plain.btf" "$TMP/plain.opt.btf"; then
			fail "$name" "output differs with $opts"
			ok=0
		fi
	done
	python3 "$CHK" show "$TMP/plain.btf" >"$TMP/plain.txt" 2>&1
	if ! grep -q "^VAR plain_var: TYPEDEF node_t -> STRUCT node$" "$TMP/plain.txt"; then
		fail "$name" "output lacks VAR plain_var: not a real conversion"
	elif [ $ok = 1 ]; then
		pass "$name"
	fi
	# GCC's "extern int v; int v = 1;": the defining DIE has only
	# DW_AT_specification and DW_AT_location (GCC 16 puts decl tags there too)
	if grep -q "^VAR plain_spec: INT int$" "$TMP/plain.txt"; then
		pass "$name/specification"
	else
		fail "$name/specification" "no VAR plain_spec (defined through DW_AT_specification)"
	fi
	load_btf "$name" "$TMP/plain.btf"
fi

test_done
