#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The pahole-compatible command line (dwarf2btf-pahole, dwarf2btf/pahole.c)
# and the kernel policy behind it (lib/kernel, lib/finish/prune.c,
# lib/btf/btf_distill.c):
#
#	tests/pahole/run.sh BUILD_DIR
#
# options	every option kernels pass and the rest of pahole's BTF
#		options: -J in place, --btf_encode_detached, --btf_base (ELF
#		and raw), -j, --btf_features (repeated, +, default, unknown
#		names, strict), --supported_btf_features, --lang_exclude, the
#		older flags, --version through the kernel's own
#		scripts/pahole-version.sh, and the errors
# policy	fixtures in this directory (gcc -g -O2; clang for tags.c),
#		checked by name with tests/btf_check: FUNC only with an ELF
#		function symbol, consistent_func, per-CPU and global VARs,
#		kfunc DECL_TAGs from .BTF_ids, flattened arrays, a module's
#		split BTF and distilled .BTF.base
# load		every BTF made is offered to the running kernel (tests/btf_load;
#		SKIP when the kernel cannot be asked)
# pahole	with pahole 1.31 at $D2B_PAHOLE_REF (default
#		/root/.cache/pahole-1.31/build/pahole; a test-only reference,
#		SKIP without it): the same fixtures with the kernel's flags
#		compare equal (dwarf2btf --compare), DATASEC sizes aside (ours
#		is the section's size, pahole's the end of its last VAR), and
#		the distilled .BTF.base is byte-identical.
# The checks above run with pahole 1.31's policy (DWARF2BTF_PAHOLE_POLICY=1.31,
# which the kernel's scripts/pahole-version.sh sees too); then:
# policy132	the default policy, pahole 1.32's: --version, --pahole-policy,
#		features, nested arrays, policy132.c (a __weak and a strong
#		definition, function-pointer parameters, .constprop clones)
#		and nocall.c (clang 19+: DW_CC_nocall) checked by name under
#		both policies, and with true_signature (its prototype rebuilt);
#		samename.c, one name with and without code in three units
# verbose	-V: pahole's lines about the functions it leaves out, on
#		standard output, word for word (twice.c and policy132.c:
#		several addresses, prototypes that differ, parameters
#		optimized out, reordered), under both policies, with and
#		without consistent_func
# pahole132	with pahole 1.32 at $D2B_PAHOLE132 (default
#		/root/.cache/pahole-1.32; SKIP without it): the fixtures
#		compare equal as above, under the default policy, and -V
#		prints pahole's lines about functions for them
# layout	--btf_features=layout (Linux 7.3's Makefile.btf asks any pahole
#		>= 1.31 for it): a 32-byte header, libbpf 1.8's 80-byte table
#		between types and strings, the types and strings as without it;
#		never in split BTF; 7.3's whole command line.  The running
#		kernel takes it from 7.1 on and refuses it before (its header
#		bytes past 24 are not zero).  With pahole git HEAD at
#		$D2B_PAHOLE_HEAD (default /root/.cache/pahole-head/build/pahole,
#		SKIP without it, or when it lacks layout), our layout section
#		is byte-identical to pahole's for the same fixture.
#
# Environment:
#	D2B_PAHOLE_REF	pahole 1.31 binary for the cross-check
#	D2B_PAHOLE132	pahole 1.32 binary for the second cross-check
#	D2B_PAHOLE_HEAD	pahole git HEAD (libbpf 1.8) for the layout bytes
#	D2B_KERNEL_SRC_TAR  kernel source tarball holding
#			scripts/pahole-version.sh (default
#			/usr/src/linux-source-6.12.tar.xz); the script is
#			cached as BUILD_DIR/tests/pahole/pahole-version.sh
#	D2B_PAHOLE_KEEP=1  keep the work directory and print its path

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
PAHOLE=$BUILD/dwarf2btf-pahole
D2B=$BUILD/dwarf2btf
CHECK=$BUILD/tests/btf_check
LOAD=$BUILD/tests/btf_load
REF=${D2B_PAHOLE_REF:-/root/.cache/pahole-1.31/build/pahole}
REF132=${D2B_PAHOLE132:-/root/.cache/pahole-1.32}
# pahole 1.31's policy, but where the policy132 section says otherwise
export DWARF2BTF_PAHOLE_POLICY=1.31
KTAR=${D2B_KERNEL_SRC_TAR:-/usr/src/linux-source-6.12.tar.xz}
CACHE=$BUILD/tests/pahole
# what Makefile.btf passes for pahole >= 1.26
KFLAGS=--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
FEATURES=encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build,distilled_base,global_var,attributes
HEAD_PAHOLE=${D2B_PAHOLE_HEAD:-/root/.cache/pahole-head/build/pahole}
# 7.3's flags for pahole >= 1.31 (scripts/Makefile.btf, a make without -jN)
KFLAGS73=(-j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func
	  --btf_features=layout -j --lang_exclude=rust)

# a sanitizer report must not pass for an ordinary exit status
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86

TEST_PREFIX=pahole/
. "$HERE/../lib.sh"

need_built "$PAHOLE" "$D2B" "$CHECK" "$LOAD"
if ! have gcc; then
	skip all "gcc not installed (tests/install-deps.sh test)"
	exit 0
fi
work_dir pahole "${D2B_PAHOLE_KEEP:-}"

# ---- helpers -------------------------------------------------------------

# p NAME ARGS...: run dwarf2btf-pahole ARGS, output in NAME.out/NAME.err;
# returns its exit status
p()
{
	local name=$1
	shift
	"$PAHOLE" "$@" >"$name.out" 2>"$name.err"
}

# encodes NAME ARGS...: dwarf2btf-pahole ARGS must succeed (PASS/FAIL NAME)
encodes()
{
	local name=$1 tag=${1//\//_} rc
	shift
	p "$tag" "$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$name"
	else
		fail "$name" "dwarf2btf-pahole $* exited $rc"
		show "$tag.err"
	fi
	return $rc
}

# refused NAME WHAT ARGS...: dwarf2btf-pahole ARGS must fail with a message
# containing WHAT
refused()
{
	local name=$1 what=$2 tag=${1//\//_} rc
	shift 2
	p "$tag" "$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		fail "$name" "dwarf2btf-pahole $* succeeded"
	elif [ $rc -ge 64 ]; then
		fail "$name" "dwarf2btf-pahole $* crashed or a sanitizer fired (exit $rc)"
		show "$tag.err"
	elif ! grep -qF -- "$what" "$tag.err"; then
		fail "$name" "exit $rc, but the message does not name '$what'"
		show "$tag.err"
	else
		pass "$name"
	fi
}

# expect NAME BTF [BASE]: the expectations on stdin (tests/btf_check's
# grammar) hold for BTF (raw or ELF; split over BASE if given), one
# PASS/FAIL line each
expect()
{
	local name=$1 btf=$2 base=${3:-}
	if [ ! -s "$btf" ]; then
		cat >/dev/null
		fail "$name" "no BTF to check ($btf)"
		return
	fi
	"$CHECK" -p "pahole/$name: " ${base:+--base "$base"} "$btf" - 2>&1
}

# same_bytes NAME A B: files A and B are equal
same_bytes()
{
	if [ ! -s "$2" ] || [ ! -s "$3" ]; then
		fail "$1" "missing output ($2, $3)"
	elif cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(basename "$2") and $(basename "$3") differ"
		cmp "$2" "$3" | sed 's/^/#   /'
	fi
}

# section FILE NAME OUT: copy section NAME of ELF FILE to OUT
section()
{
	rm -f "$3"
	objcopy --dump-section "$2=$3" "$1" "$WORK/objcopy.tmp" 2>/dev/null && [ -s "$3" ]
}

# dump NAME FILE [BASE]: dwarf2btf --dump into NAME.dump
dump()
{
	"$D2B" ${3:+-b "$3"} --dump "$2" >"$1.dump" 2>"$1.dump.err"
}

# ---- fixtures --------------------------------------------------------------

CC=(gcc -g -O2)
CLANG=
for c in clang clang-19 clang-14; do
	have "$c" && { CLANG=$c; break; }
done
build()
{
	local out=$1
	shift
	if ! "$@" >"$WORK/cc.err" 2>&1; then
		fail "fixtures/$out" "$* failed"
		show "$WORK/cc.err"
		return 1
	fi
}
build policy.o "${CC[@]}" -c "$HERE/policy.c" -o policy.o || exit 1
build twice1.o "${CC[@]}" -c "$HERE/twice.c" -o twice1.o || exit 1
build twice2.o "${CC[@]}" -DSECOND -c "$HERE/twice.c" -o twice2.o || exit 1
build twice3.o "${CC[@]}" -DMAIN -c "$HERE/twice.c" -o twice3.o || exit 1
build twice "${CC[@]}" -o twice twice1.o twice2.o twice3.o || exit 1
build kfunc.o "${CC[@]}" -c "$HERE/kfunc.c" -o kfunc.o || exit 1
build kfunc "${CC[@]}" -DMAIN -o kfunc "$HERE/kfunc.c" || exit 1
build kbase "${CC[@]}" -o kbase "$HERE/kbase.c" || exit 1
build kmodule.o "${CC[@]}" -c "$HERE/kmodule.c" -o kmodule.o || exit 1
build weak132.o "${CC[@]}" -DWEAK_UNIT -c "$HERE/policy132.c" -o weak132.o || exit 1
build strong132.o "${CC[@]}" -c "$HERE/policy132.c" -o strong132.o || exit 1
build policy132 "${CC[@]}" -o policy132 weak132.o strong132.o || exit 1
for u in 1 2 3; do
	build "same$u.o" "${CC[@]}" -DUNIT=$u -c "$HERE/samename.c" -o "same$u.o" || exit 1
done
build samename "${CC[@]}" -o samename same1.o same2.o same3.o || exit 1
if [ -n "$CLANG" ]; then
	build tags.o "$CLANG" -g -O2 -c "$HERE/tags.c" -o tags.o || CLANG=
fi
# clang 15 and later mark a function whose parameters they drop DW_CC_nocall
NOCALL_CC=
for c in clang-22 clang-21 clang-20 clang-19; do
	have "$c" && { NOCALL_CC=$c; break; }
done
[ -n "$NOCALL_CC" ] && { build nocall.o "$NOCALL_CC" -g -O2 -c "$HERE/nocall.c" -o nocall.o || NOCALL_CC=; }

# ---- the kernel: can it be asked? -----------------------------------------

LOADS=()		# "NAME BTF [BASE]": offered to the kernel at the end
load_later() { LOADS+=("$*"); }

# ---- options: version --------------------------------------------------------

p version --version
if [ "$(cat version.out)" = v1.31 ]; then pass options/version
else fail options/version "printed '$(head -c 80 version.out)', expected v1.31"; fi
p numeric --numeric_version
if [ "$(cat numeric.out)" = 131 ]; then pass options/numeric_version
else fail options/numeric_version "printed '$(head -c 80 numeric.out)', expected 131"; fi

# the kernel's own probe: scripts/pahole-version.sh from a kernel source tarball
pahole_version_script()
{
	local s=$CACHE/pahole-version.sh
	[ -s "$s" ] && { echo "$s"; return 0; }
	[ -f "$KTAR" ] || return 1
	mkdir -p "$CACHE" || return 1
	if tar -xJf "$KTAR" -O --occurrence=1 --wildcards '*/scripts/pahole-version.sh' \
	   >"$s.tmp" 2>/dev/null && [ -s "$s.tmp" ]; then
		mv "$s.tmp" "$s" && echo "$s"
	else
		rm -f "$s.tmp"
		return 1
	fi
}
if script=$(pahole_version_script); then
	v=$(sh "$script" "$PAHOLE" 2>&1)
	if [ "$v" = 131 ]; then
		pass options/pahole-version.sh
	else
		fail options/pahole-version.sh "the kernel's scripts/pahole-version.sh printed '$v', expected 131"
	fi
else
	skip options/pahole-version.sh "no scripts/pahole-version.sh cached in $CACHE and none in $KTAR (apt-get install linux-source-6.12)"
fi

# ---- options: -J, --btf_encode_detached -------------------------------------

encodes options/detached=F --btf_encode_detached=det1.btf twice
encodes "options/detached F" --btf_encode_detached det2.btf twice
same_bytes "options/detached F = detached=F" det1.btf det2.btf
cp twice twice.orig
p det3 --btf_encode_detached=det3.btf twice
if cmp -s twice twice.orig; then pass options/detached/input-unchanged
else fail options/detached/input-unchanged "--btf_encode_detached modified its input"; fi
if dump det det1.btf && grep -q "^\[1\] " det.dump; then pass options/detached/dump
else fail options/detached/dump "dwarf2btf --dump cannot read the raw output"; show det.dump.err; fi
load_later detached det1.btf

cp twice twiceJ
encodes options/-J -J twiceJ
if dump J twiceJ && grep -q "FUNC 'entry_first'" J.dump; then pass options/-J/has-.BTF
else fail options/-J/has-.BTF "dwarf2btf --dump finds no .BTF with FUNC entry_first"; show J.dump.err; fi
if section twiceJ .BTF J.sec; then same_bytes options/-J/same-as-detached J.sec det1.btf
else fail options/-J/same-as-detached "no .BTF section in the file"; fi
if ./twiceJ; then pass options/-J/still-runs
else fail options/-J/still-runs "the executable does not run after -J"; fi
cp twiceJ twiceJJ
encodes options/-J/again -J twiceJJ
if section twiceJJ .BTF JJ.sec; then same_bytes options/-J/again-same J.sec JJ.sec
else fail options/-J/again-same "no .BTF section after a second -J"; fi
cp kbase kbase.J
encodes options/--btf_encode --btf_encode kbase.J
cp policy.o policyJ.o
encodes options/-J/object -J policyJ.o
if [ "$(readelf -SW policyJ.o | grep -c ' \.BTF ')" = 1 ]; then pass options/-J/object-one-.BTF
else fail options/-J/object-one-.BTF "readelf does not show one .BTF section"; fi
load_later in-place twiceJ
load_later in-place-object policyJ.o

# ---- options: --btf_base -------------------------------------------------------

cp kbase kbase.elf
encodes base/-J-base -J "$KFLAGS" kbase.elf
section kbase.elf .BTF kbase.raw || fail base/raw "no .BTF in the base"
encodes "options/btf_base ELF" "$KFLAGS" --btf_base kbase.elf --btf_encode_detached=split1.btf kmodule.o
encodes "options/btf_base=ELF" "$KFLAGS" --btf_base=kbase.elf --btf_encode_detached=split2.btf kmodule.o
encodes "options/btf_base RAW" "$KFLAGS" --btf_base kbase.raw --btf_encode_detached=split3.btf kmodule.o
encodes "options/btf_base=RAW" "$KFLAGS" --btf_base=kbase.raw --btf_encode_detached=split4.btf kmodule.o
same_bytes "options/btf_base: ELF both spellings" split1.btf split2.btf
same_bytes "options/btf_base: raw = ELF" split1.btf split3.btf
same_bytes "options/btf_base: raw both spellings" split3.btf split4.btf
if dump split split1.btf kbase.raw && grep -q "STRUCT 'mod_private'" split.dump &&
   ! grep -q "STRUCT 'kobj'" split.dump; then
	pass options/btf_base/split-dump
else
	fail options/btf_base/split-dump "dwarf2btf -b BASE --dump: no mod_private, or kobj repeated from the base"
	show split.dump.err
fi
expect split split1.btf kbase.raw <<'EOF'
struct mod_private members=kobj,len,opaque,ratio,last
member mod_private.kobj type="struct kobj *"
func mod_init linkage=static
var mod_percpu section=.data..percpu
EOF
load_later split split1.btf kbase.raw
refused options/btf_base/missing "nonexistent.btf" --btf_base nonexistent.btf --btf_encode_detached=x.btf kmodule.o
# the caller names the file once (library messages carry no path)
n=$(grep -o nonexistent.btf options_btf_base_missing.err | wc -l)
if [ "$n" -eq 1 ]; then pass options/btf_base/missing-named-once
else fail options/btf_base/missing-named-once "the path appears $n times"; show options_btf_base_missing.err; fi
# with -j2 the base is loaded on a thread of its own while the input is
# opened (cli_convert()): the same bytes, and the same errors
encodes "options/btf_base -j2" -j2 "$KFLAGS" --btf_base kbase.elf --btf_encode_detached=split5.btf kmodule.o
same_bytes "options/btf_base: -j2 = -j1" split1.btf split5.btf
refused options/btf_base/missing-j2 "nonexistent.btf" -j2 --btf_base nonexistent.btf --btf_encode_detached=x.btf kmodule.o
n=$(grep -o nonexistent.btf options_btf_base_missing-j2.err | wc -l)
if [ "$n" -eq 1 ]; then pass options/btf_base/missing-j2-named-once
else fail options/btf_base/missing-j2-named-once "the path appears $n times"; show options_btf_base_missing-j2.err; fi
refused options/btf_base/not-btf-j2 "kmodule.o: no .BTF section" -j2 --btf_base kmodule.o --btf_encode_detached=x.btf kmodule.o
# both files missing: each is named
if refused options/btf_base/both-missing-j2 "nonexistent.btf" -j2 --btf_base nonexistent.btf \
	--btf_encode_detached=x.btf nonexistent.o; then
	if grep -q "nonexistent.o" options_btf_base_both-missing-j2.err; then
		pass options/btf_base/both-missing-j2-input-named
	else
		fail options/btf_base/both-missing-j2-input-named "the input is not named"
		show options_btf_base_both-missing-j2.err
	fi
fi

# ---- options: -j ----------------------------------------------------------------

encodes options/-j1 -j1 --btf_encode_detached=j1.btf twice
for j in -j -j2 --jobs=2 --jobs; do
	encodes "options/$j" "$j" --btf_encode_detached="j$j.btf" twice &&
		same_bytes "options/$j same as -j1" j1.btf "j$j.btf"
done

# ---- options: --btf_features ---------------------------------------------------

p supported --supported_btf_features
if [ "$(cat supported.out)" = "$FEATURES,inline" ]; then pass options/supported_btf_features
else fail options/supported_btf_features "printed '$(head -c 200 supported.out)'"; fi

# defaults (no --btf_features): var, decl_tag, type_tag, enum64; no float
encodes features/none --btf_encode_detached=none.btf policy.o
expect features/none none.btf <<'EOF'
int double size=8
absent float double
enum64 big size=8
var percpu_counter section=.data..percpu
absent var plain_global
EOF
# once --btf_features is given, what it does not name is off
encodes features/float --btf_features=float --btf_encode_detached=float.btf policy.o
expect features/float float.btf <<'EOF'
float double size=8
absent var percpu_counter
absent enum64 big
enum big size=8
EOF
# repeated lists accumulate
encodes features/repeated --btf_features=float --btf_features=global_var \
	--btf_encode_detached=rep.btf policy.o
expect features/repeated rep.btf <<'EOF'
float double
var plain_global section=.data
absent enum64 big
EOF
encodes features/default --btf_features=default --btf_encode_detached=def.btf policy.o
expect features/default def.btf <<'EOF'
float double
enum64 big
var percpu_counter section=.data..percpu
absent var plain_global
EOF
encodes features/+global_var --btf_features=+global_var --btf_encode_detached=plus.btf policy.o
expect features/+global_var plus.btf <<'EOF'
float double
enum64 big
var plain_global section=.data
var percpu_counter section=.data..percpu
EOF
encodes features/default,global_var --btf_features=default,global_var \
	--btf_encode_detached=defgv.btf policy.o
same_bytes "features/default,global_var = +global_var" plus.btf defgv.btf
encodes features/unknown-ignored --btf_features=float,bogus_feature \
	--btf_encode_detached=unk.btf policy.o
same_bytes features/unknown-ignored-same float.btf unk.btf
refused features/strict-unknown bogus_feature --btf_features_strict=float,bogus_feature \
	--btf_encode_detached=strict.btf policy.o
encodes features/strict-known --btf_features_strict=float --btf_encode_detached=strict2.btf policy.o
same_bytes features/strict-known-same float.btf strict2.btf

# ---- features: layout ----------------------------------------------------------
# (pahole 1.32's policy: pahole 1.31 knows no layout and ignores the name, as
# dwarf2btf-pahole does under --pahole-policy=1.31)

# header_word FILE N: the Nth 32-bit word of a little-endian file
header_word() { od -An -tu4 -j $(($2 * 4)) -N4 "$1" | tr -d ' '; }
# layout_bytes FILE: its layout section, as hex (empty: none)
layout_bytes()
{
	local hl off len
	hl=$(header_word "$1" 1)
	[ "$hl" -ge 32 ] || return 0
	off=$(header_word "$1" 6) len=$(header_word "$1" 7)
	[ "$len" -gt 0 ] || return 0
	od -An -tx1 -v -j $((hl + off)) -N "$len" "$1" | tr -d ' \n'
}
encodes features/layout/ignored-by-1.31 "$KFLAGS" --btf_features=layout --btf_encode_detached=layout131.btf policy.o
if [ "$(header_word layout131.btf 1)" = 24 ]; then pass features/layout/ignored-by-1.31
else fail features/layout/ignored-by-1.31 "a $(header_word layout131.btf 1)-byte header under 1.31's policy"; fi
export DWARF2BTF_PAHOLE_POLICY=1.32

# libbpf 1.8's table (src/btf.c layouts[]): info_sz, elem_sz, flags (u16) per kind
LIBBPF_LAYOUT=
LIBBPF_LAYOUT+=0000000004000000000000000c000000	# UNKN INT PTR ARRAY
LIBBPF_LAYOUT+=000c0000000c00000008000000000000	# STRUCT UNION ENUM FWD
LIBBPF_LAYOUT+=00000000000000000000000000000000	# TYPEDEF VOLATILE CONST RESTRICT
LIBBPF_LAYOUT+=000000000008000004000000000c0000	# FUNC FUNC_PROTO VAR DATASEC
LIBBPF_LAYOUT+=000000000400000000000000000c0000	# FLOAT DECL_TAG TYPE_TAG ENUM64

encodes features/layout "$KFLAGS" --btf_features=layout --btf_encode_detached=layout.btf policy.o
encodes features/no-layout "$KFLAGS" --btf_encode_detached=nolayout.btf policy.o
got=$(layout_bytes layout.btf)
tl=$(header_word layout.btf 3)
if [ "$(header_word layout.btf 1)" = 32 ] && [ "$(header_word layout.btf 6)" = "$tl" ] &&
   [ "$(header_word layout.btf 4)" = $((tl + 80)) ] && [ "$got" = "$LIBBPF_LAYOUT" ]; then
	pass features/layout/section
else
	fail features/layout/section "not a 32-byte header and libbpf's 80 bytes after the types (hdr_len $(header_word layout.btf 1), layout '$got')"
fi
# the rest is what it is without: the same types, the same strings
if [ "$(header_word nolayout.btf 1)" = 24 ] &&
   cmp -s <(tail -c +33 layout.btf | head -c "$tl") <(tail -c +25 nolayout.btf | head -c "$tl") &&
   cmp -s <(tail -c "$(header_word layout.btf 5)" layout.btf) \
	  <(tail -c "$(header_word nolayout.btf 5)" nolayout.btf); then
	pass features/layout/same-types-and-strings
else
	fail features/layout/same-types-and-strings "the types or strings differ from the output without layout"
fi
"$D2B" layout.btf --compare nolayout.btf >layout-cmp.out 2>&1
if [ $? -eq 3 ] && grep -qx 'layout section only in A (20 kinds)' layout-cmp.out &&
   grep -qx '1 differences' layout-cmp.out; then
	pass features/layout/compare
else
	fail features/layout/compare "dwarf2btf --compare does not find the layout section alone"
	show layout-cmp.out
fi
if dump layout layout.btf && grep -qx 'LAYOUT kinds=20' layout.dump &&
   grep -qxF "$(printf '\t[4] STRUCT info_sz=0 elem_sz=12 flags=0x0')" layout.dump; then
	pass features/layout/dump
else
	fail features/layout/dump "dwarf2btf --dump prints no layout records"
	show layout.dump.err
fi
# split BTF never carries one (as pahole: base BTF only)
encodes features/layout/split "$KFLAGS" --btf_features=layout --btf_base kbase.elf \
	--btf_encode_detached=layout-split.btf kmodule.o
if [ "$(header_word layout-split.btf 1)" = 24 ]; then pass features/layout/split-has-none
else fail features/layout/split-has-none "split BTF written with a $(header_word layout-split.btf 1)-byte header"; fi
# Linux 7.3's whole command line, in place and detached (gen-btf.sh)
cp policy.o policy73.o
encodes features/layout/linux-7.3-flags "${KFLAGS73[@]}" --btf_encode_detached=policy73.btf policy73.o
if [ "$(layout_bytes policy73.btf)" = "$LIBBPF_LAYOUT" ]; then pass features/layout/linux-7.3-section
else fail features/layout/linux-7.3-section "no layout section with 7.3's flags"; fi
encodes features/layout/linux-7.3-module "${KFLAGS73[@]}" --btf_base kbase.elf \
	--btf_encode_detached=mod73.btf kmodule.o
if [ "$(header_word mod73.btf 1)" = 24 ]; then pass features/layout/linux-7.3-module-has-none
else fail features/layout/linux-7.3-module-has-none "the module's split BTF has a layout header"; fi
# pahole git HEAD: the same layout bytes for the same fixture
if [ ! -x "$HEAD_PAHOLE" ]; then
	skip features/layout/pahole-head "no pahole git HEAD at $HEAD_PAHOLE (set D2B_PAHOLE_HEAD)"
elif ! "$HEAD_PAHOLE" --supported_btf_features 2>/dev/null | tr , '\n' | grep -qx layout; then
	skip features/layout/pahole-head "$HEAD_PAHOLE has no layout feature (built with libbpf < 1.8)"
elif ! "$HEAD_PAHOLE" "$KFLAGS" --btf_features=layout --btf_encode_detached=head-layout.btf \
		policy.o >head.err 2>&1; then
	fail features/layout/pahole-head "pahole git HEAD failed on policy.o"
	show head.err
else
	hb=$(layout_bytes head-layout.btf)
	if [ -n "$hb" ] && [ "$hb" = "$(layout_bytes layout.btf)" ] &&
	   [ $(($(header_word head-layout.btf 4) - $(header_word head-layout.btf 6))) = 80 ]; then
		pass features/layout/pahole-head-same-bytes
	else
		fail features/layout/pahole-head-same-bytes "pahole git HEAD's layout section is '$hb'"
	fi
fi

export DWARF2BTF_PAHOLE_POLICY=1.31

# ---- options: --lang_exclude -----------------------------------------------------

encodes options/lang_exclude=rust --lang_exclude=rust --btf_encode_detached=rust.btf policy.o
same_bytes options/lang_exclude=rust-same none.btf rust.btf
refused options/lang_exclude=c "lang_exclude" --lang_exclude=c --btf_encode_detached=c.btf policy.o

# C++ units: kernel names always; --lang_exclude=c++ leaves them out
if have g++ && build cxx.o g++ -g -O2 -c "$HERE/../e2e/fixtures/cxx.cc" -o cxx.o; then
	encodes options/cxx --btf_encode_detached=cxx.btf cxx.o &&
		expect options/cxx cxx.btf <<'EOF'
struct rect size=24
member rect.id offset=8 type=int
absent struct geo::rect
absent struct "geo::Box<int>"
func c_linkage linkage=static
EOF
	load_later cxx cxx.btf
	# nothing is left: an empty BTF, which the kernel refuses, is an error
	refused options/lang_exclude=c++ "no type to write" --lang_exclude=rust,c++ \
		--btf_encode_detached=nocxx.btf cxx.o
else
	skip options/cxx "no g++ (tests/install-deps.sh test)"
fi

# ---- options: the older flags ----------------------------------------------------

encodes old/btf_gen_floats --btf_gen_floats --btf_encode_detached=gf.btf policy.o
expect old/btf_gen_floats gf.btf <<'EOF'
float double size=8
absent int double
EOF
encodes old/skip_encoding_btf_vars --skip_encoding_btf_vars --btf_encode_detached=sv.btf policy.o
expect old/skip_encoding_btf_vars sv.btf <<'EOF'
absent var percpu_counter
absent var percpu_point
absent datasec .data..percpu
func global_function
EOF
encodes old/skip_encoding_btf_enum64 --skip_encoding_btf_enum64 --btf_encode_detached=se.btf policy.o
expect old/skip_encoding_btf_enum64 se.btf <<'EOF'
absent enum64 big
enum big size=8 vlen=2 BIG_SMALL=1
EOF
encodes old/skip_encoding_btf_inconsistent_proto --skip_encoding_btf_inconsistent_proto \
	--btf_encode_detached=sip.btf twice
expect old/skip_encoding_btf_inconsistent_proto sip.btf <<'EOF'
absent func diff_weak
func same_weak
EOF
expect old/without-skip_encoding_btf_inconsistent_proto det1.btf <<'EOF'
count func diff_weak 1
EOF
# no effect on the output in pahole 1.31 either
encodes old/btf_gen_optimized --btf_gen_optimized --btf_encode_detached=go.btf twice
same_bytes old/btf_gen_optimized-same det1.btf go.btf
# dwarf2btf never fails on a symbol pahole would need forcing for
encodes old/btf_encode_force --btf_encode_force --btf_encode_detached=ef.btf twice
same_bytes old/btf_encode_force-same det1.btf ef.btf
# the default feature set (pahole 1.31 itself turns every feature off here)
encodes old/btf_gen_all --btf_gen_all --btf_encode_detached=ga.btf policy.o
same_bytes old/btf_gen_all=default def.btf ga.btf
if [ -n "$CLANG" ]; then
	encodes old/tags-default --btf_encode_detached=tags.btf tags.o
	expect old/tags-default tags.btf <<'EOF'
count decl_tag x 4
decl_tag x target=tagged component=-1
decl_tag x target=tagged component=0
decl_tag x target=tagged_function component=-1
decl_tag x target=tagged_var
count type_tag user 1
member tagged.uptr type="__tag(user) int *"
EOF
	encodes old/skip_encoding_btf_decl_tag --skip_encoding_btf_decl_tag \
		--btf_encode_detached=sdt.btf tags.o
	expect old/skip_encoding_btf_decl_tag sdt.btf <<'EOF'
count decl_tag x 0
count type_tag user 1
EOF
	encodes old/skip_encoding_btf_type_tag --skip_encoding_btf_type_tag \
		--btf_encode_detached=stt.btf tags.o
	expect old/skip_encoding_btf_type_tag stt.btf <<'EOF'
count type_tag user 0
count decl_tag x 4
member tagged.uptr type="int *"
EOF
	load_later tags tags.btf
else
	skip old/tags "no clang (btf_decl_tag/btf_type_tag need it; tests/install-deps.sh test)"
fi

# ---- options: errors ---------------------------------------------------------

refused errors/-C "-C" -C foo -J policy.o
refused errors/--show_reuse "show_reuse" --show_reuse -J policy.o
refused errors/no-J "-J" policy.o
refused errors/missing-input "no-such-file.o" -J no-such-file.o
refused errors/missing-input-detached "no-such-file.o" --btf_encode_detached=x.btf no-such-file.o
refused errors/no-input "input" -J
refused errors/jobs "bogus" --jobs=bogus -J policy.o

# ---- policy: functions ---------------------------------------------------------

expect policy/funcs none.btf <<'EOF'
func global_function linkage=static params=p,scale
func second_function linkage=static
func local_helper linkage=static
absent func always_inlined
absent func declared_only
EOF
load_later policy none.btf

# a function with code and DWARF but no ELF symbol gets no FUNC
cp kbase kbase.nosym
if objcopy --strip-symbol=kobj_get kbase.nosym 2>objcopy.err; then
	encodes policy/no-symbol --btf_encode_detached=nosym.btf kbase.nosym
	expect policy/no-symbol nosym.btf <<'EOF'
absent func kobj_get
func kobj_size linkage=static
func main linkage=static
EOF
else
	fail policy/no-symbol "objcopy --strip-symbol failed"
	show objcopy.err
fi

# consistent_func: twice.c (see there)
encodes policy/consistent_func "$KFLAGS" --btf_encode_detached=cf.btf twice
expect policy/consistent_func cf.btf <<'EOF'
absent func diff_static
absent func diff_weak
absent func same_static
count func same_weak 1
func entry_first linkage=static
func entry_second linkage=static
EOF
load_later consistent_func cf.btf
encodes policy/no-consistent_func --btf_features=var --btf_encode_detached=ncf.btf twice
expect policy/no-consistent_func ncf.btf <<'EOF'
count func diff_static 1
count func diff_weak 1
count func same_static 1
count func same_weak 1
EOF
load_later no-consistent_func ncf.btf
p cfv -V "$KFLAGS" --btf_encode_detached=cfv.btf twice
if grep -q "diff_weak.*prototypes differ" cfv.err && grep -q "same_static.*several addresses" cfv.err
then pass policy/consistent_func/verbose-reasons
else fail policy/consistent_func/verbose-reasons "-V does not say why diff_weak and same_static were left out"; show cfv.err; fi

# variables
expect policy/vars-percpu none.btf <<'EOF'
datasec .data..percpu vars=percpu_point,percpu_counter
count datasec .data..percpu 1
var percpu_counter linkage=global
absent var plain_global
absent var grid
absent var ratio
absent datasec .data
absent datasec .bss
EOF
encodes policy/global_var --btf_features=var,global_var --btf_encode_detached=gv.btf policy.o
expect policy/global_var gv.btf <<'EOF'
var plain_global section=.data
var ratio section=.data
var big_value section=.data
var grid section=.bss
var percpu_counter section=.data..percpu
var percpu_point section=.data..percpu
EOF
load_later global_var gv.btf

# flattened arrays: grid has no VAR here, but its type is there
dump flat none.btf
if grep -qE "^\[[0-9]+\] ARRAY .* nr_elems=30$" flat.dump &&
   ! grep -qE "^\[[0-9]+\] ARRAY .* nr_elems=[56]$" flat.dump; then
	pass policy/flatten
else
	fail policy/flatten "int[5][6] is not one ARRAY of 30"
	grep ARRAY flat.dump | sed 's/^/#   /'
fi
encodes policy/flatten-global --btf_features=global_var --btf_encode_detached=flat.btf policy.o
expect policy/flatten-global flat.btf <<'EOF'
array grid dims=30 elem=int
EOF

# kfuncs: in an executable and in an object (a module is ET_REL)
for f in kfunc kfunc.o; do
	encodes "policy/kfuncs/$f" "$KFLAGS" --btf_encode_detached="$f.kf.btf" "$f"
	expect "policy/kfuncs/$f" "$f.kf.btf" <<'EOF'
decl_tag bpf_kfunc target=my_kfunc component=-1
decl_tag bpf_kfunc target=my_fast_kfunc component=-1
decl_tag bpf_fastcall target=my_fast_kfunc component=-1
decl_tag bpf_kfunc target=my_arena_kfunc component=-1
count decl_tag bpf_kfunc 3
count decl_tag bpf_fastcall 1
func not_a_kfunc
count type_tag address_space(1) 0
EOF
	# attributes: an arena kfunc's flagged pointers point through a
	# kind_flag TYPE_TAG "address_space(1)"
	encodes "policy/kfunc-attributes/$f" "$KFLAGS" --btf_features=attributes \
		--btf_encode_detached="$f.attr.btf" "$f"
	expect "policy/kfunc-attributes/$f" "$f.attr.btf" <<'EOF'
count type_tag address_space(1) 1
func my_arena_kfunc params=p,n
EOF
	# (the kind_flag itself: dwarf2btf --compare with pahole 1.31's below)
	load_later "kfunc-attributes/$f" "$f.attr.btf"
	encodes "policy/no-kfuncs/$f" --btf_features=decl_tag --btf_encode_detached="$f.nokf.btf" "$f"
	expect "policy/no-kfuncs/$f" "$f.nokf.btf" <<'EOF'
count decl_tag bpf_kfunc 0
count decl_tag bpf_fastcall 0
func my_kfunc
EOF
	load_later "kfuncs/$f" "$f.kf.btf"
done

# ---- policy: distilled base ----------------------------------------------------

cp kmodule.o kmod.o
if encodes policy/distilled_base -J "$KFLAGS" --btf_features=distilled_base --btf_base kbase.elf kmod.o; then
	secs=$(readelf -SW kmod.o | grep -oE ' \.BTF(\.base)? ' | tr -d ' ' | sort | tr '\n' ' ')
	if [ "$secs" = ".BTF .BTF.base " ]; then pass policy/distilled_base/sections
	else fail policy/distilled_base/sections "sections '$secs', expected .BTF and .BTF.base"; fi
	section kmod.o .BTF.base dist.base
	section kmod.o .BTF dist.split
	if dump distbase dist.base; then
		bad=$(awk '/^\[/ {
			kind = $2; name = $3; vlen = ""
			for (i = 4; i <= NF; i++) if ($i ~ /^vlen=/) vlen = substr($i, 6)
			if (name == "\x27(anon)\x27") { print; next }
			if (kind == "INT" || kind == "FLOAT" || kind == "FWD") next
			if ((kind == "STRUCT" || kind == "UNION" || kind == "ENUM") && vlen == "0") next
			print }' distbase.dump)
		n=$(grep -c '^\[' distbase.dump)
		if [ -z "$bad" ] && [ "$n" -gt 0 ]; then pass "policy/distilled_base/base-kinds ($n types)"
		else fail policy/distilled_base/base-kinds "not a named INT/FLOAT/FWD or member-less STRUCT/UNION/ENUM:"
			echo "$bad" | head -5 | sed 's/^/#   /'; fi
	else
		fail policy/distilled_base/base-kinds "dwarf2btf --dump cannot read .BTF.base"
		show distbase.dump.err
	fi
	expect policy/distilled_base/base dist.base <<'EOF'
struct kobj size=48 vlen=0
union kval vlen=0
enum kstate size=4 vlen=0
int int
absent struct mod_private
absent typedef ksize_t
EOF
	expect policy/distilled_base/split dist.split dist.base <<'EOF'
struct mod_private members=kobj,len,opaque,ratio,last
typedef ksize_t -> long unsigned int
member mod_private.len type=ksize_t
func mod_init linkage=static
var mod_percpu section=.data..percpu
EOF
	load_later distilled dist.split dist.base
	load_later distilled-base dist.base
fi

# a layout section: Linux 7.1 and later take it, older kernels refuse the
# header (its bytes past 24 are not zero)
"$LOAD" none.btf >load.out 2>&1
case $? in
0|1)
	kv=$(uname -r | awk -F'[.-]' '{ printf "%d\n", $1 * 1000 + $2 }')
	"$LOAD" layout.btf >load-layout.out 2>&1
	rc=$?
	if [ "$kv" -ge 7001 ] && [ $rc -eq 0 ]; then
		pass "load/layout (Linux $(uname -r) takes it)"
	elif [ "$kv" -lt 7001 ] && [ $rc -eq 1 ] && grep -q 'Unsupported btf_header' load-layout.out; then
		pass "load/layout-refused-before-7.1 (Linux $(uname -r): Unsupported btf_header)"
	else
		fail load/layout "Linux $(uname -r) answered $rc to a layout section"
		tail -n 6 load-layout.out | sed 's/^/#   /'
	fi
	;;
esac

# ---- cross-check with pahole 1.31 ---------------------------------------------

# compared NAME OURS REF [BASE [REPEATS]]: dwarf2btf --compare finds no
# difference but DATASEC sizes (and with REPEATS, typedefs REF repeats from
# BASE: pahole 1.32's split BTF never merges a typedef into its base's)
compared()
{
	local name=$1 ours=$2 ref=$3 base=${4:-} repeats=${5:-} rc t
	"$D2B" ${base:+-b "$base"} "$ours" --compare "$ref" >cmp.out 2>&1
	rc=$?
	if [ -n "$repeats" ] && [ $rc -eq 3 ]; then
		"$D2B" --dump "$base" | sed -n "s/^\[[0-9]*\] TYPEDEF '\([^']*\)'.*/\1/p" >base.typedefs
		sed '/^kind /,$d' cmp.out | sed -n 's/^TYPEDEF \([^ ]*\) only in B$/\1/p' >repeated
		if [ -s repeated ] && ! grep -qvxFf base.typedefs repeated; then
			pass "$name/repeated-typedefs ($(wc -l <repeated) of the base's)"
			while read -r t; do
				sed -i "/^TYPEDEF $t only in B\$/d" cmp.out
			done <repeated
			sed '/^kind /,$d' cmp.out | grep -q . || { pass "$name"; return; }
		fi
	fi
	if [ $rc -eq 0 ]; then
		pass "$name"
		return
	fi
	if [ $rc -ne 3 ]; then
		fail "$name" "dwarf2btf --compare exited $rc"
		show cmp.out
		return
	fi
	# difference lines come before the table
	sed '/^kind /,$d' cmp.out >cmp.diff
	if [ -s cmp.diff ] && ! grep -vqE '^DATASEC [^ ]+ differs: size [0-9]+ vs [0-9]+$' cmp.diff; then
		pass "$name (DATASEC sizes differ)"
	else
		fail "$name" "differences from $REF (A: ours, B: pahole)"
		grep -vE '^DATASEC [^ ]+ differs: size [0-9]+ vs [0-9]+$' cmp.diff | head -8 | sed 's/^/#   /'
	fi
}

# cross_check GROUP REF: the fixtures, by REF and by us, compare equal
cross_check()
{
	local group=$1 REF=$2 f mode flags modes
	files=(policy.o twice kfunc kfunc.o kbase policy132)
	[ -n "$CLANG" ] && files+=(tags.o)
	[ -n "$NOCALL_CC" ] && files+=(nocall.o)
	for f in "${files[@]}"; do
		modes=(kernel default)
		case $f in kfunc*) modes+=(attributes) ;; esac
		for mode in "${modes[@]}"; do
			flags=()
			[ $mode = kernel ] && flags=("$KFLAGS")
			rm -f "ref.$f.$mode.btf"
			[ $mode = attributes ] && flags=("$KFLAGS" --btf_features=attributes)
			if ! "$REF" "${flags[@]}" --btf_encode_detached="ref.$f.$mode.btf" "$f" \
			     >ref.err 2>&1; then
				skip "$group/$mode/$f" "$REF failed on it: $(head -n 1 ref.err)"
				continue
			fi
			p ours "${flags[@]}" --btf_encode_detached="ours.$f.$mode.btf" "$f"
			compared "$group/$mode/$f" "ours.$f.$mode.btf" "ref.$f.$mode.btf"
		done
	done
	# a module's split BTF over the same base
	rm -f ref.split.btf
	"$REF" "$KFLAGS" --btf_base kbase.elf --btf_encode_detached=ref.split.btf kmodule.o >ref.err 2>&1
	p ours "$KFLAGS" --btf_base kbase.elf --btf_encode_detached=ours.split.btf kmodule.o
	compared "$group/kernel/split" ours.split.btf ref.split.btf kbase.raw \
		 "$([ "$group" = pahole132 ] && echo repeats)"
}

# ref_ready NAME PAHOLE VERSION VARIABLE: PAHOLE is there and is VERSION,
# else NAME skips, saying so
ref_ready()
{
	if [ ! -x "$2" ]; then
		skip "$1" "no pahole ${3#v} at $2 (set $4; a test-only reference)"
		return 1
	elif [ "$("$2" --version 2>/dev/null)" != "$3" ]; then
		skip "$1" "$2 is $("$2" --version 2>&1 | head -c 40), not $3"
		return 1
	fi
}

if ref_ready pahole "$REF" v1.31 D2B_PAHOLE_REF; then
	cross_check pahole "$REF"
	# the distilled base, from pahole -J on a copy of the same module
	cp kmodule.o refmod.o
	if LLVM_OBJCOPY=${LLVM_OBJCOPY:-llvm-objcopy} "$REF" -J "$KFLAGS" --btf_features=distilled_base \
	   --btf_base kbase.elf refmod.o >ref.err 2>&1 && section refmod.o .BTF.base ref.base &&
	   section refmod.o .BTF ref.dsplit; then
		if [ ! -s dist.base ]; then
			fail pahole/distilled_base "ours made no .BTF.base"
		elif cmp -s dist.base ref.base; then
			pass pahole/distilled_base/byte-identical
		else
			compared pahole/distilled_base/base dist.base ref.base
		fi
		# each split over its own distilled base: compare them over ours
		[ -s dist.split ] && compared pahole/distilled_base/split dist.split ref.dsplit dist.base
	else
		skip pahole/distilled_base "pahole 1.31 -J with distilled_base failed: $(head -n 1 ref.err)"
	fi
fi

# ---- pahole 1.32's policy: the default ------------------------------------------

unset DWARF2BTF_PAHOLE_POLICY
p version132 --version
if [ "$(cat version132.out)" = v1.32 ]; then pass policy132/version
else fail policy132/version "printed '$(head -c 80 version132.out)', expected v1.32"; fi
p numeric132 --numeric_version
if [ "$(cat numeric132.out)" = 132 ]; then pass policy132/numeric_version
else fail policy132/numeric_version "printed '$(head -c 80 numeric132.out)', expected 132"; fi
# the policy follows the option wherever it is, and the environment
p version131 --version --pahole-policy=1.31
if [ "$(cat version131.out)" = v1.31 ]; then pass policy132/option-1.31
else fail policy132/option-1.31 "printed '$(head -c 80 version131.out)', expected v1.31"; fi
DWARF2BTF_PAHOLE_POLICY=1.31 p env131 --numeric_version
if [ "$(cat env131.out)" = 131 ]; then pass policy132/environment-1.31
else fail policy132/environment-1.31 "printed '$(head -c 80 env131.out)', expected 131"; fi
refused policy132/unknown "1.30" --pahole-policy=1.30 --version
p supported132 --supported_btf_features
if [ "$(cat supported132.out)" = "$FEATURES,true_signature,force_cu_merging,layout,inline" ]; then pass policy132/supported_btf_features
else fail policy132/supported_btf_features "printed '$(head -c 300 supported132.out)'"; fi

# multi-dimensional arrays nest
encodes policy132/nested --btf_features=global_var --btf_encode_detached=nest.btf policy.o
expect policy132/nested nest.btf <<'EOF'
array grid dims=5,6 elem=int
EOF

# the functions of policy132.c, under each policy
encodes policy132/functions "$KFLAGS" --btf_encode_detached=f132.btf policy132
expect policy132/functions f132.btf <<'EOF'
func hook params=value
absent func apply
absent func sra
absent func scale
func weak_unit_entry params=x
EOF
encodes policy132/functions-1.31 --pahole-policy=1.31 "$KFLAGS" --btf_encode_detached=f131.btf policy132
expect policy132/functions-1.31 f131.btf <<'EOF'
func hook params=unused
func apply params=cb,x
absent func sra
func scale params=v,factor
EOF
if [ -n "$NOCALL_CC" ]; then
	encodes policy132/nocall "$KFLAGS" --btf_encode_detached=nc132.btf nocall.o
	expect policy132/nocall nc132.btf <<'EOF'
absent func drop_arg
func entry params=x
EOF
	encodes policy132/nocall-1.31 --pahole-policy=1.31 "$KFLAGS" --btf_encode_detached=nc131.btf nocall.o
	expect policy132/nocall-1.31 nc131.btf <<'EOF'
func drop_arg params=v,unused
EOF
	# true_signature: what the code takes, unused dropped
	encodes policy132/nocall-true_signature "$KFLAGS",true_signature \
		--btf_encode_detached=nc132ts.btf nocall.o
	expect policy132/nocall-true_signature nc132ts.btf <<'EOF'
func drop_arg params=v
func entry params=x
EOF
	load_later policy132/nocall-true_signature nc132ts.btf
else
	skip policy132/nocall "no clang 19 or later (DW_CC_nocall)"
fi
# without consistent_func, apply's prototypes are not compared; 1.32 still
# leaves out the clones whose ABI changed and the reordered one, 1.31 not
encodes policy132/functions-loose --btf_features=var --btf_encode_detached=f132l.btf policy132
expect policy132/functions-loose f132l.btf <<'EOF'
func hook params=value
func apply params=cb,x
absent func sra
absent func scale
absent func pick
EOF
encodes policy132/functions-loose-1.31 --pahole-policy=1.31 --btf_features=var \
	--btf_encode_detached=f131l.btf policy132
expect policy132/functions-loose-1.31 f131l.btf <<'EOF'
func hook params=unused
func sra params=p,unused
func scale params=v,factor
func pick params=p,k
EOF
load_later policy132 f132.btf
# true_signature: each clone of policy132.c under its own name, with the
# parameters its DWARF lists (scale's factor is a constant there, but
# listed); sra's clone reorders them and keeps none with a location; pick's
# takes k in p's register.  apply's inline copy is not compared (as pahole
# 1.32's binary).  1.31 has no such feature: ignored there (strict or not,
# as layout).
encodes policy132/true_signature "$KFLAGS",true_signature --btf_encode_detached=f132ts.btf policy132
expect policy132/true_signature f132ts.btf <<'EOF'
func scale.constprop.0 params=v,factor
func sra.constprop.0 params=
absent func scale
absent func sra
absent func pick
absent func pick.isra.0
func apply params=cb,x
func hook params=value
EOF
encodes policy132/true_signature-strict --btf_features_strict=true_signature \
	--btf_encode_detached=f132tss.btf policy132
encodes policy132/true_signature-1.31 --pahole-policy=1.31 "$KFLAGS",true_signature \
	--btf_encode_detached=f131ts.btf policy132
same_bytes policy132/true_signature-1.31-ignored f131.btf f131ts.btf
load_later policy132/true_signature f132ts.btf
# one name, one definition with code and two inlined away with other
# prototypes (samename.c): true_signature compares only the first
encodes policy132/samename "$KFLAGS" --btf_encode_detached=same.btf samename
expect policy132/samename same.btf <<'EOF'
absent func hash
EOF
encodes policy132/samename-true_signature "$KFLAGS",true_signature \
	--btf_encode_detached=samets.btf samename
expect policy132/samename-true_signature samets.btf <<'EOF'
func hash params=p,v,s,i
EOF
load_later policy132/samename-true_signature samets.btf

# ---- verbose: pahole's -V lines, word for word ----------------------------

# said NAME EXPECTED ARGS...: dwarf2btf-pahole -V ARGS prints exactly the
# lines of EXPECTED (a file) on standard output
said()
{
	local name=$1 want=$2 tag=${1//\//_}
	shift 2
	if ! p "$tag" -V "$@"; then
		fail "$name" "dwarf2btf-pahole -V $* failed"
		show "$tag.err"
	elif cmp -s "$want" "$tag.out"; then
		pass "$name"
	else
		diff "$want" "$tag.out" | head -n 12 | sed 's/^/#   /'
		fail "$name" "standard output is not pahole's lines (< pahole, > ours)"
	fi
}

# twice.c: several addresses, prototypes that differ (a parameter count, a
# return type); policy132.c: parameters optimized out where the ABI
# changed, a function pointer parameter's type, reordered parameters (what
# true_signature leaves of pick).  pahole 1.32 prints these lines (the
# pahole132 section checks them against it).
cat >v.twice132 <<'EOF'
diff_static : skipping BTF encoding of function due to param count mismatch; 1 params != 2 params
diff_static : skipping BTF encoding of function due to ambiguous address
diff_weak : skipping BTF encoding of function due to return type mismatch
diff_weak : skipping BTF encoding of function due to inconsistet prototype
same_static : skipping BTF encoding of function due to ambiguous address
EOF
said verbose/reasons v.twice132 "$KFLAGS" --pahole-policy=1.32 --btf_encode_detached=v1.btf twice
# without consistent_func the prototypes are still compared, and said
grep -v inconsistet v.twice132 >v.twice132l
said verbose/no-consistent_func v.twice132l --btf_features=var --pahole-policy=1.32 \
	--btf_encode_detached=v2.btf twice
cat >v.policy132 <<'EOF'
apply : skipping BTF encoding of function due to param type mismatch for param#1 cb != cb
apply : skipping BTF encoding of function due to inconsistet prototype
pick : skipping BTF encoding of function due to optimized parameters
scale : skipping BTF encoding of function due to optimized parameters
sra : skipping BTF encoding of function due to optimized parameters
EOF
said verbose/optimized v.policy132 "$KFLAGS" --pahole-policy=1.32 --btf_encode_detached=v3.btf \
	policy132
echo "pick : skipping BTF encoding of function due to reordered parameters" >v.policy132ts
said verbose/reordered v.policy132ts "$KFLAGS",true_signature --pahole-policy=1.32 \
	--btf_encode_detached=v4.btf policy132
# pahole 1.31 words only the prototypes' differences: the reasons stay
# dwarf2btf's, on standard error
grep mismatch v.twice132 >v.twice131
said verbose/1.31 v.twice131 "$KFLAGS" --pahole-policy=1.31 --btf_encode_detached=v5.btf twice
if grep -q "'same_static' left out: its symbols have several addresses" verbose_1.31.err; then
	pass verbose/1.31-reasons
else
	fail verbose/1.31-reasons "standard error does not say why same_static was left out"
	show verbose_1.31.err
fi
# without -V, nothing
if p quiet "$KFLAGS" --pahole-policy=1.32 --btf_encode_detached=v6.btf twice && [ ! -s quiet.out ]
then pass verbose/quiet
else fail verbose/quiet "standard output not empty, or the encoding failed"; show quiet.out; fi

if ref_ready pahole132 "$REF132" v1.32 D2B_PAHOLE132; then
	cross_check pahole132 "$REF132"
	# pahole's own -V lines about functions, for the fixtures above
	for v in "twice $KFLAGS" "twice --btf_features=var" "policy132 $KFLAGS" \
		 "policy132 $KFLAGS,true_signature"; do
		read -r f flags <<<"$v"
		"$REF132" -V "$flags" --btf_encode_detached=ref.v.btf "$f" 2>/dev/null |
			grep "skipping BTF encoding of function" >ref.v.out
		"$PAHOLE" -V "$flags" --pahole-policy=1.32 --btf_encode_detached=v.btf "$f" \
			>v.out 2>/dev/null
		case $flags in
		*true_signature) name=$f/true_signature ;;
		--btf_features=var) name=$f/no-consistent_func ;;
		*) name=$f ;;
		esac
		if cmp -s ref.v.out v.out; then
			pass "pahole132/verbose/$name"
		else
			diff ref.v.out v.out | head -n 12 | sed 's/^/#   /'
			fail "pahole132/verbose/$name" "-V lines differ from pahole's (< pahole, > ours)"
		fi
	done
	if "$REF132" "$KFLAGS",true_signature --btf_encode_detached=ref.f132ts.btf policy132 \
		>ref.ts.log 2>&1; then
		compared pahole132/true_signature f132ts.btf ref.f132ts.btf
	else
		fail pahole132/true_signature "$REF132 failed"
		show ref.ts.log
	fi
	if "$REF132" "$KFLAGS",true_signature --btf_encode_detached=ref.samets.btf samename \
		>ref.ts.log 2>&1; then
		compared pahole132/true_signature/samename samets.btf ref.samets.btf
	else
		fail pahole132/true_signature/samename "$REF132 failed"
		show ref.ts.log
	fi
	if [ -n "$NOCALL_CC" ] && "$REF132" "$KFLAGS",true_signature \
		--btf_encode_detached=ref.nc132ts.btf nocall.o >ref.ts.log 2>&1; then
		compared pahole132/true_signature/nocall nc132ts.btf ref.nc132ts.btf
	elif [ -n "$NOCALL_CC" ]; then
		fail pahole132/true_signature/nocall "$REF132 failed"
		show ref.ts.log
	fi
fi

# ---- the kernel loads everything (load_later's list, at the end) -----------------

load_all()
{
	"$LOAD" none.btf >load.out 2>&1
	case $? in
	0|1)
		for l in "${LOADS[@]}"; do
			read -r name btf base <<<"$l"
			if "$LOAD" "$btf" ${base:+--base "$base"} >load.out 2>&1; then
				pass "load/$name"
			else
				fail "load/$name" "the kernel rejected $btf${base:+ over $base}"
				tail -n 6 load.out | sed 's/^/#   /'
			fi
		done
		;;
	*)
		skip load "the kernel cannot be asked here: $(tail -n 1 load.out)"
		;;
	esac
}
load_all
test_done
