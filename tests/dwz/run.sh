#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/dwz/run.sh BUILD_DIR
#
# DWARF in the two forms pahole cannot read (issue 11), made by the real
# tools: dwz-compressed debug info and split DWARF.
#
# Three shared libraries, p1 = prog_a.c + prog_b.c + prog_d.c, p2 =
# prog_b.c + prog_c.c, p3 = prog_c.c + prog_a.c (common.h shared by all;
# prog_d.c's types only p1 has, so they stay in it; built with
# -fno-eliminate-unused-debug-types, so that after dwz a type reached only
# through DW_TAG_imported_unit exists), by gcc and clang-19, DWARF 4 and 5.
# p1's plain build is converted once: the reference.  Then each form of p1
# must convert to BTF equal to it by meaning, kind by kind
# (dwarf2btf --compare), and load into the kernel (tests/btf_load; exit 2,
# no kernel to ask: SKIP):
#   dwz		dwz p1 (partial units in the file itself)
#   dwz-m	dwz -m over p1 p2 p3: .gnu_debugaltlink to a supplementary file
#		that also holds what only p2 and p3 share (left out of p1's BTF);
#		-j2 and -j4 give the same bytes as -j1 (here and for split)
#   dwz-m5	dwz -5 -m: DWARF 5's .debug_sup and DW_FORM_ref_sup4/strp_sup
#   build-id	the supplementary file moved under DIR/.build-id/NN/...debug,
#		found with --debug-dir=DIR
#   split	-gsplit-dwarf: .dwo files found through DW_AT_comp_dir
#   split-types	with -fdebug-types-section too (against a plain build with it)
#   g++/dwz-m	C++ (cxx_*.cc) through dwz -m: partial units in their
#		importer's language
#   split-kernel  dwarf2btf-pahole's kernel policy on the split build: the
#		same BTF as on the plain build (consistent_func reads the
#		parameters' registers through libdw, and leaves mixed_args out)
#   split-dir	the .dwo files moved, found with --debug-dir
#   dwp		the .dwo files packed by binutils' dwp (DWARF 4 only: it does
#		not write DWARF 5 packages), or llvm-dwp-19, as p1.so.dwp
# and malformed input (exit 1, one line naming the file and what is
# missing; with --allow-missing-debug exit 0 and a "note:" line):
#   missing-alt	the supplementary file removed
#   wrong-alt	another file in its place (its build-id is not the link's)
#   missing-dwo	a .dwo file removed
#   bad-dwp	a package whose .debug_cu_index is damaged, and
#   other-dwp	a package of other .dwo files (no unit has the dwo_id):
#		errors even with --allow-missing-debug
#
# One line per case: PASS name / FAIL name: why / SKIP name: why.

B=${1:?usage: $0 BUILD_DIR}
B=$(cd "$B" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
D2B="$B/dwarf2btf"
LOAD="$B/tests/btf_load"
# the kernel's --btf_features (tests/pahole)
KFLAGS=--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
TMP=$(mktemp -d /tmp/dwz-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. "$HERE/../lib.sh"

if [ ! -x "$D2B" ] || [ -d "$D2B" ]; then
	fail dwz/setup "no dwarf2btf program at $D2B"
	exit 1
fi

# check NAME FILE REF [OPTION...]: convert FILE, compare with REF by
# meaning, load it
check() {
	local name=$1 file=$2 ref=$3 out=$TMP/out.btf
	shift 3
	rm -f "$out"
	if ! "$D2B" "$@" -o "$out" "$file" >"$TMP/d2b.out" 2>&1; then
		failx "$name" "dwarf2btf $* failed" "$TMP/d2b.out"
		return 1
	fi
	if "$D2B" --compare "$ref" "$out" >"$TMP/cmp.out" 2>&1; then
		pass "$name"
	else
		grep -v ' 0        0        0$' "$TMP/cmp.out" >"$TMP/cmp.short"
		failx "$name" "BTF differs from the plain build's" "$TMP/cmp.short"
		return 1
	fi
	load_btf "$name" "$out"
}

# jobs NAME FILE: -j2 and -j4 write the same bytes as -j1
jobs() {
	"$D2B" -j1 -o "$TMP/j1.btf" "$2" 2>/dev/null
	"$D2B" -j2 -o "$TMP/j2.btf" "$2" 2>/dev/null
	"$D2B" -j4 -o "$TMP/j4.btf" "$2" 2>/dev/null
	if [ -s "$TMP/j1.btf" ] && cmp -s "$TMP/j1.btf" "$TMP/j2.btf" &&
	   cmp -s "$TMP/j1.btf" "$TMP/j4.btf"; then
		pass "$1"
	else
		fail "$1" "-j2 or -j4 writes other bytes than -j1"
	fi
}

# expect_error_always NAME FILE WHAT [OPTION...]: exit 1 with one line
# naming FILE and matching WHAT, with or without --allow-missing-debug
expect_error_always() {
	local name=$1 file=$2 what=$3 rc
	shift 3
	for opt in "" --allow-missing-debug; do
		rm -f "$TMP/miss.btf"
		"$D2B" $opt "$@" -o "$TMP/miss.btf" "$file" >/dev/null 2>"$TMP/err"
		rc=$?
		if [ $rc -ne 1 ]; then
			failx "$name" "exit $rc${opt:+ with $opt}, expected 1" "$TMP/err"
			return
		elif [ "$(wc -l <"$TMP/err")" -ne 1 ] ||
		     ! grep -q "^dwarf2btf: $file: .*$what" "$TMP/err"; then
			failx "$name" "expected one line saying '$what' of $file" "$TMP/err"
			return
		elif [ -e "$TMP/miss.btf" ]; then
			fail "$name" "an output file was left behind"
			return
		fi
	done
	pass "$name"
}

# expect_missing NAME FILE WHAT [OPTION...]: exit 1 with one line naming
# FILE and matching WHAT; with --allow-missing-debug exit 0 and a
# "note:" line
expect_missing() {
	local name=$1 file=$2 what=$3 rc
	shift 3
	rm -f "$TMP/miss.btf"
	"$D2B" "$@" -o "$TMP/miss.btf" "$file" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 1 ]; then
		failx "$name" "exit $rc, expected 1" "$TMP/err"
	elif [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
		failx "$name" "$(wc -l <"$TMP/err") lines on stderr, expected one" "$TMP/err"
	elif ! grep -q "^dwarf2btf: $file: .*$what" "$TMP/err"; then
		failx "$name" "the error does not say '$what' of $file" "$TMP/err"
	elif [ -e "$TMP/miss.btf" ]; then
		fail "$name" "an output file was left behind"
	else
		pass "$name"
	fi
	rm -f "$TMP/miss.btf"
	"$D2B" --allow-missing-debug "$@" -o "$TMP/miss.btf" "$file" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		failx "$name/allowed" "exit $rc with --allow-missing-debug" "$TMP/err"
	elif ! grep -q "^dwarf2btf: $file: note: .*$what.*left out" "$TMP/err"; then
		failx "$name/allowed" "no 'note:' line saying '$what'" "$TMP/err"
	else
		pass "$name/allowed"
	fi
}

# build_libs DIR CC V [FLAGS...]: p1.so p2.so p3.so in DIR, compiled in
# DIR (relative .dwo names, DW_AT_comp_dir DIR)
build_libs() {
	local dir=$1 cc=$2 v=$3 src
	shift 3
	mkdir -p "$dir"
	for src in a b c d; do
		(cd "$dir" && "$cc" -g -gdwarf-"$v" -O1 -fPIC -fno-eliminate-unused-debug-types \
			"$@" -I"$HERE" -c "$HERE/prog_$src.c" -o "$src.o") || return 1
	done
	(cd "$dir" && "$cc" -shared -o p1.so a.o b.o d.o && "$cc" -shared -o p2.so b.o c.o &&
	 "$cc" -shared -o p3.so c.o a.o)
}

# build_id FILE: its GNU build-id, in hex
build_id() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# damage_index FILE: overwrite the row offsets of FILE's .debug_cu_index
# with 0xff bytes (contributions past every section's end)
damage_index() {
	python3 - "$1" <<'EOF'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
strtab = shdr(shstrndx)[4]
for i in range(shnum):
    h = shdr(i)
    name = data[strtab + h[0]:data.index(b'\0', strtab + h[0])].decode()
    if name == '.debug_cu_index':
        off, size = h[4], h[5]
        cols, units, slots = struct.unpack_from('<III', data, off + 4)
        rows = off + 16 + slots * 12 + cols * 4
        data[rows:rows + units * cols * 4] = b'\xff' * (units * cols * 4)
        open(path, 'wb').write(data)
        sys.exit(0)
sys.exit(1)
EOF
}

for tool in dwz readelf python3; do
	if ! command -v "$tool" >/dev/null; then
		skip dwz/all "$tool not installed (tests/install-deps.sh test)"
		exit 0
	fi
done

for cc in gcc clang-19; do
	if ! command -v "$cc" >/dev/null; then
		skip "dwz/$cc" "$cc not installed"
		continue
	fi
	for v in 4 5; do
		n="dwz/$cc/dwarf$v"
		W=$TMP/$cc.$v
		mkdir -p "$W"
		if ! build_libs "$W/plain" "$cc" "$v" 2>"$TMP/cc.out"; then
			failx "$n/build" "cannot build the fixtures" "$TMP/cc.out"
			continue
		fi
		REF=$W/ref.btf
		if ! "$D2B" -o "$REF" "$W/plain/p1.so" 2>"$TMP/d2b.out"; then
			failx "$n/plain" "the plain build does not convert" "$TMP/d2b.out"
			continue
		fi
		if ! "$D2B" --dump "$REF" | grep -q "STRUCT 'only_declared'"; then
			fail "$n/plain" "no STRUCT only_declared: the fixture tests nothing"
			continue
		fi
		pass "$n/plain"

		# dwz, one file
		cp "$W/plain/p1.so" "$W/single.so"
		dwz "$W/single.so" 2>"$TMP/dwz.out"
		if grep -q "Unknown debugging section" "$TMP/dwz.out"; then
			skip "$n/dwz" "this dwz cannot read the input: $(head -1 "$TMP/dwz.out")"
		elif readelf --debug-dump=info "$W/single.so" 2>/dev/null |
		     grep -q DW_TAG_partial_unit; then
			check "$n/dwz" "$W/single.so" "$REF"
		else
			failx "$n/dwz" "dwz made no partial unit" "$TMP/dwz.out"
		fi

		# dwz -m, .gnu_debugaltlink and (-5) .debug_sup
		for mode in m m5; do
			M=$W/$mode
			mkdir -p "$M"
			cp "$W/plain/p1.so" "$W/plain/p2.so" "$W/plain/p3.so" "$M/"
			opt=
			[ $mode = m5 ] && opt=-5
			dwz $opt -m "$M/alt.debug" -M "$M/alt.debug" "$M/p1.so" "$M/p2.so" \
				"$M/p3.so" 2>"$TMP/dwz.out"
			rc=$?
			if grep -q "Unknown debugging section" "$TMP/dwz.out"; then
				skip "$n/dwz-$mode" "this dwz cannot read the input: $(head -1 "$TMP/dwz.out")"
				continue
			elif [ $rc -ne 0 ] || [ ! -f "$M/alt.debug" ]; then
				failx "$n/dwz-$mode" "dwz -m failed" "$TMP/dwz.out"
				continue
			fi
			check "$n/dwz-$mode" "$M/p1.so" "$REF" || continue
			jobs "$n/dwz-$mode/jobs" "$M/p1.so"
			if [ $mode = m ]; then
				# a file of that name that is not the one linked
				mv "$M/alt.debug" "$M/alt.real"
				cp "$M/p2.so" "$M/alt.debug"
				expect_missing "$n/dwz-m/wrong-alt" "$M/p1.so" "alt.debug (another build-id)"
				mv "$M/alt.real" "$M/alt.debug"
				id=$(build_id "$M/alt.debug")
				if [ -z "$id" ]; then
					fail "$n/build-id" "the supplementary file has no build-id"
				else
					mkdir -p "$M/dbg/.build-id/${id:0:2}"
					mv "$M/alt.debug" "$M/dbg/.build-id/${id:0:2}/${id:2}.debug"
					check "$n/build-id" "$M/p1.so" "$REF" --debug-dir="$M/dbg"
					rm -rf "$M/dbg"
				fi
			else
				rm -f "$M/alt.debug"
			fi
			expect_missing "$n/dwz-$mode/missing-alt" "$M/p1.so" "alt.debug.*not found"
		done

		# split DWARF
		S=$W/split
		if ! build_libs "$S" "$cc" "$v" -gsplit-dwarf 2>"$TMP/cc.out"; then
			failx "$n/split/build" "cannot build with -gsplit-dwarf" "$TMP/cc.out"
			continue
		fi
		check "$n/split" "$S/p1.so" "$REF" && jobs "$n/split/jobs" "$S/p1.so"
		# the kernel's policy (dwarf2btf-pahole): consistent_func reads the
		# parameters' locations in the .dwo files through libdw, and
		# leaves mixed_args out, as from the plain build
		if "$B/dwarf2btf-pahole" "$KFLAGS" --btf_encode_detached="$W/kplain.btf" \
			"$W/plain/p1.so" >"$TMP/d2b.out" 2>&1 &&
		   "$B/dwarf2btf-pahole" "$KFLAGS" --btf_encode_detached="$W/ksplit.btf" \
			"$S/p1.so" >>"$TMP/d2b.out" 2>&1; then
			if ! "$D2B" --compare "$W/kplain.btf" "$W/ksplit.btf" >"$TMP/cmp.out" 2>&1; then
				failx "$n/split-kernel" "kernel-policy BTF differs" "$TMP/cmp.out"
			elif "$D2B" --dump "$W/ksplit.btf" | grep -q "FUNC 'mixed_args'"; then
				fail "$n/split-kernel" "FUNC mixed_args kept: its registers went unchecked"
			else
				pass "$n/split-kernel"
			fi
		else
			failx "$n/split-kernel" "dwarf2btf-pahole failed" "$TMP/d2b.out"
		fi

		mkdir -p "$S/dwo"
		mv "$S"/*.dwo "$S/dwo/"
		check "$n/split-dir" "$S/p1.so" "$REF" --debug-dir="$S/dwo"
		# b.dwo there, a.dwo not (with none, no type is left: an error)
		cp "$S/dwo/b.dwo" "$S/"
		expect_missing "$n/split/missing-dwo" "$S/p1.so" "a.dwo.*not found"
		rm "$S/b.dwo"

		# type units in the .dwo files (gcc: one section each), against
		# a plain build with type units
		if build_libs "$W/tu" "$cc" "$v" -fdebug-types-section 2>"$TMP/cc.out" &&
		   build_libs "$W/tu-split" "$cc" "$v" -fdebug-types-section -gsplit-dwarf \
			2>>"$TMP/cc.out" && "$D2B" -o "$W/tu.btf" "$W/tu/p1.so" 2>"$TMP/d2b.out"; then
			check "$n/split-types" "$W/tu-split/p1.so" "$W/tu.btf"
		else
			failx "$n/split-types" "cannot build or convert with -fdebug-types-section" \
				"$TMP/cc.out"
		fi

		for dwp in dwp llvm-dwp-19; do
			if ! command -v "$dwp" >/dev/null; then
				skip "$n/$dwp" "$dwp not installed"
				continue
			fi
			if [ $dwp = dwp ] && [ "$v" = 5 ]; then
				skip "$n/$dwp" "binutils dwp writes no DWARF 5 packages"
				continue
			fi
			rm -f "$S/p1.so.dwp"
			(cd "$S/dwo" && timeout 10 "$dwp" -o "$S/p1.so.dwp" a.dwo b.dwo d.dwo) >"$TMP/dwp.out" 2>&1
			rc=$?
			if [ $rc -eq 124 ] && [ $dwp = llvm-dwp-19 ]; then
				skip "$n/$dwp" "llvm-dwp-19 hangs on these .dwo files (gcc's DWARF 5)"
				continue
			elif [ $rc -ne 0 ]; then
				failx "$n/$dwp" "$dwp failed" "$TMP/dwp.out"
				continue
			fi
			check "$n/$dwp" "$S/p1.so" "$REF"
			cp "$S/p1.so.dwp" "$S/good.dwp"
			if damage_index "$S/p1.so.dwp"; then
				expect_error_always "$n/$dwp/bad-dwp" "$S/p1.so" "p1.so.dwp: .debug_cu_index"
			else
				fail "$n/$dwp/bad-dwp" "no .debug_cu_index to damage"
			fi
			(cd "$S/dwo" && timeout 10 "$dwp" -o "$S/p1.so.dwp" c.dwo) >/dev/null 2>&1
			expect_error_always "$n/$dwp/other-dwp" "$S/p1.so" "no split unit with dwo_id"
			rm -f "$S/p1.so.dwp" "$S/good.dwp"
		done
	done
done
# C++: dwz's partial units have no DW_AT_language; they are walked in
# their importer's (here, so that the namespace geo is walked in them)
if command -v g++ >/dev/null; then
	W=$TMP/cxx
	mkdir -p "$W/m"
	ok=1
	for src in a b c; do
		g++ -g -O1 -fPIC -fno-eliminate-unused-debug-types -I"$HERE" -c "$HERE/cxx_$src.cc" \
			-o "$W/$src.o" 2>"$TMP/cc.out" || ok=
	done
	if [ -n "$ok" ] && (cd "$W" && g++ -shared -o m/p1.so a.o b.o && g++ -shared -o m/p2.so b.o c.o &&
	    g++ -shared -o m/p3.so c.o a.o && cp m/p1.so p1.so) 2>>"$TMP/cc.out" &&
	   "$D2B" -o "$W/ref.btf" "$W/p1.so" 2>>"$TMP/cc.out" &&
	   dwz -m "$W/m/alt" -M "$W/m/alt" "$W/m/p1.so" "$W/m/p2.so" "$W/m/p3.so" 2>>"$TMP/cc.out"; then
		check "dwz/g++/dwz-m" "$W/m/p1.so" "$W/ref.btf"
	else
		failx "dwz/g++/build" "cannot build or dwz the C++ fixtures" "$TMP/cc.out"
	fi
else
	skip "dwz/g++" "g++ not installed"
fi
test_done
