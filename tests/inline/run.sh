#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Inline sites (dwarf2btf --inline-sites): sites.c compiled by gcc,
# clang-19 and clang-14 at -O2 into an object, an object with one section
# per function, and an executable; each converted with
# --inline-sites=together and checked by check_sites.py against what
# llvm-dwarfdump (LLVM's DWARF parser, not ours) says: every inlined call a
# LOCSEC entry of its section at its offset there, each parameter's
# LOC_PARAM what its location says at the call's entry, the LOCSECs
# sorted, LOC_PARAM and LOC_PROTO deduplicated; and the arguments
# sites.c passes (registers, constants, a struct in two registers).
# Then the split forms: .BTF.inline in the ELF file, and OUT.inline beside
# a raw OUT, each split BTF over the BTF without the sites; and the
# pahole front end's --btf_features=inline.
#
#	tests/inline/run.sh BUILD_DIR
#
# Set D2B_KEEP=1 to keep the work directory.

set -u
. "$(dirname "$0")/../lib.sh"
TEST_PREFIX=inline/

BUILD=$(cd "${1:?usage: tests/inline/run.sh BUILD_DIR}" && pwd)
SRC=$(cd "$(dirname "$0")" && pwd)
D2B=$BUILD/dwarf2btf
need_built "$D2B" "$BUILD/dwarf2btf-pahole"
DWARFDUMP=
for t in llvm-dwarfdump-19 llvm-dwarfdump-14 llvm-dwarfdump; do
	have "$t" && { DWARFDUMP=$t; break; }
done
if [ -z "$DWARFDUMP" ] || ! have readelf || ! have python3; then
	skip all "needs llvm-dwarfdump, readelf and python3"
	exit 0
fi
work_dir inline "${D2B_KEEP:-}"

# The arguments sites.c passes, as check_sites.py words them (x86-64's
# DWARF registers: 5 rdi, 4 rsi)
EXPECT_X86=(reg_xor:0:reg5 reg_xor:1:reg4 lit_sum:0:const7 lit_sum:1:const-5
	    deref:0:reg5 pair_mul:0:reg5+reg4 unused_arg:0:reg5)
[ "$(uname -m)" = x86_64 ] || EXPECT_X86=()

# check NAME FILE [rel]: convert FILE with the sites together, check them
check()
{
	local name=$1 file=$2 rel=${3:-} f=${1//\//-}

	if ! "$D2B" --inline-sites=together -o "$f.btf" "$file" 2>"$f.err"; then
		failx "$name" "dwarf2btf --inline-sites=together failed" "$f.err"
		return 1
	fi
	"$DWARFDUMP" --debug-info "$file" >"$f.dd" 2>/dev/null
	readelf -SW "$file" >"$f.sec"
	if python3 "$SRC/check_sites.py" "$f.btf" "$f.dd" "$f.sec" $rel \
		"${EXPECT_X86[@]}" >"$f.check" 2>&1; then
		pass "$name ($(tail -n 1 "$f.check"))"
	else
		fail_tail "$name" "the sites are not what the DWARF says" "$f.check" 20
		return 1
	fi
}

# split NAME FILE: --inline-sites into the file and to raw files
split()
{
	local name=$1 file=$2 f=${1//\//-}

	cp "$file" "$f.elf"
	if ! "$D2B" --inline-sites "$f.elf" 2>"$f.err" ||
	   ! readelf -SW "$f.elf" | grep -q ' \.BTF\.inline '; then
		failx "$name/elf" "no .BTF.inline written" "$f.err"
	elif ! "$D2B" --dump "$f.elf" >"$f.main" 2>"$f.err" ||
	     grep -q "LOC_PARAM\|LOCSEC" "$f.main"; then
		failx "$name/elf" ".BTF has the sites, or cannot be read" "$f.err"
	else
		pass "$name/elf"
	fi
	if ! "$D2B" --inline-sites -o "$f.raw" "$file" 2>"$f.err"; then
		failx "$name/raw" "dwarf2btf --inline-sites -o failed" "$f.err"
	elif ! "$D2B" --dump -b "$f.raw" "$f.raw.inline" >"$f.inl" 2>"$f.err" ||
	     ! grep -q "^\[[0-9]*\] LOCSEC '.text" "$f.inl"; then
		failx "$name/raw" "OUT.inline is no split BTF of LOCSECs over OUT" "$f.err"
	elif [ "$(grep -c "^\[" "$f.inl")" -ne \
	       "$(awk '/^\[[0-9]+\] LOC_PARAM/ { on = 1 } on && /^\[/' together.dump | wc -l)" ]; then
		fail "$name/raw" "OUT.inline is not the types from the first LOC_PARAM on"
	else
		pass "$name/raw"
	fi
}

for cc in gcc clang-19 clang-14; do
	if ! have "$cc"; then
		skip "$cc" "$cc not installed"
		continue
	fi
	$cc -O2 -g -c "$SRC/sites.c" -o "$cc.o" &&
	$cc -O2 -g -ffunction-sections -c "$SRC/sites.c" -o "$cc-fs.o" &&
	$cc -O2 -g "$SRC/sites.c" -o "$cc.exe" || { fail "$cc" "cannot compile sites.c"; continue; }
	check "$cc/object" "$cc.o" rel
	check "$cc/function-sections" "$cc-fs.o" rel
	check "$cc/executable" "$cc.exe"
	"$D2B" --dump "$cc-object.btf" >together.dump 2>/dev/null
	split "$cc/split" "$cc.o"
done

# the pahole front end: --btf_features=inline writes them together
if have gcc; then
	cp gcc.o pahole.o
	if "$BUILD/dwarf2btf-pahole" --btf_features=+inline --btf_encode_detached=pahole.btf \
		pahole.o 2>pahole.err && "$D2B" --dump pahole.btf >pahole.dump 2>>pahole.err &&
	   grep -q "^\[[0-9]*\] LOCSEC '.text' vlen=[1-9]" pahole.dump; then
		pass "pahole --btf_features=inline"
	else
		failx "pahole --btf_features=inline" "no LOCSEC in the BTF" pahole.err
	fi
	if "$BUILD/dwarf2btf-pahole" --btf_encode_detached=plain.btf pahole.o 2>/dev/null &&
	   "$D2B" --dump plain.btf >plain.dump && ! grep -q "LOC" plain.dump; then
		pass "pahole without inline: no LOC kinds"
	else
		fail "pahole without inline: no LOC kinds" "LOC kinds without --btf_features=inline"
	fi
fi
test_done
