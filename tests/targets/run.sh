#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Targets other than the host: 32- and 64-bit, little- and big-endian.
#
#	tests/targets/run.sh BUILD_DIR
#
# For each target (i386 armv7 aarch64 riscv64 ppc64 s390x) and each build of
# layout.c: clang-19 -target TRIPLE at -O2 -gdwarf-5 and at -O0 -gdwarf-3
# (bit fields in the DWARF 2/3 form, DW_AT_bit_offset), and, where Debian's
# cross compiler TRIPLE-gcc is installed (package gcc-TRIPLE), gcc at -O2 and
# at -O0 -gdwarf-4:
#   convert   dwarf2btf -v -o out.btf OBJ exits 0 and leaves no variable out
#   check     tests/btf_check against layout.expect (the lines for the build)
#   datasec   every DATASEC entry is its variable's ELF symbol: section,
#             offset and size; every DATASEC has its section's size; no data
#             symbol is missing (elfsyms.py)
#   order     the raw output is in the target's byte order
#   inplace   dwarf2btf COPY writes the same bytes into .BTF; readelf and
#             bpftool read the file
#   load      the kernel accepts it: only where the target's byte order and
#             pointer size are the running kernel's (SKIP elsewhere, saying why)
#   pahole    pahole 1.31 (-J --btf_encode_detached, global_var) on the same
#             object, compared by meaning (dwarf2btf --compare): equal but for
#             these policy differences, each checked, and nothing else:
#               FUNC linkage   pahole writes every FUNC static
#               FUNC presence  pahole encodes only functions with an ELF
#                              function symbol: a FUNC only in ours has none
#               DATASEC size   ours is the section's (checked by datasec),
#                              pahole's the end of its last variable
# Then: a 64-bit object with a unit of 4-byte addresses (tests/dwarfgen):
# that unit is left out with a warning, the rest converts.
# Last: merged-riscv64.o (checked in; merged.c), whose variables LLVM merged
# into one symbol (DW_OP_addrx + DW_OP_plus_uconst): each VAR at its offset.
#
# Environment:
#	D2B_PAHOLE132	pahole 1.32 (default /root/.cache/pahole-1.32), the same
#			comparison again (SKIP without it), where FUNC presence
#			may also differ as dwarf2btf-pahole's default policy
#			(pahole 1.32's) says
#	D2B_PAHOLE_REF	pahole 1.31 (default /root/.cache/pahole-1.31/build/pahole;
#			a test-only reference: SKIP without it)
#	D2B_TARGETS_KEEP=1  keep the work directory and print its path

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
D2B=$BUILD/dwarf2btf
CHECK=$BUILD/tests/btf_check
LOAD=$BUILD/tests/btf_load
ELFSYMS=$HERE/elfsyms.py
DWARFGEN=$HERE/../dwarfgen/dwarfgen.py
REF=${D2B_PAHOLE_REF:-/root/.cache/pahole-1.31/build/pahole}
REF132=${D2B_PAHOLE132:-/root/.cache/pahole-1.32}
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)

# a sanitizer report must not pass for an ordinary exit status
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86

TEST_PREFIX=targets/
. "$HERE/../lib.sh"

need_built "$D2B" "$CHECK" "$LOAD"
if ! have python3; then
	skip all "python3 not installed (tests/install-deps.sh test)"
	exit 0
fi
work_dir targets "${D2B_TARGETS_KEEP:-}"

# the running kernel's data model: what it can load
HOST_ORDER=$(python3 -c 'import sys; print("le" if sys.byteorder == "little" else "be")')
HOST_BITS=$(getconf LONG_BIT 2>/dev/null || echo 64)

have_pahole=1
if [ ! -x "$REF" ]; then
	skip pahole "no pahole 1.31 at $REF (set D2B_PAHOLE_REF; a test-only reference)"
	have_pahole=0
elif [ "$("$REF" --version 2>/dev/null)" != v1.31 ]; then
	skip pahole "$REF is $("$REF" --version 2>&1 | head -c 40), not v1.31"
	have_pahole=0
fi
have_pahole132=1
if [ ! -x "$REF132" ] || [ "$("$REF132" --version 2>/dev/null)" != v1.32 ]; then
	skip pahole132 "no pahole 1.32 at $REF132 (set D2B_PAHOLE132; a test-only reference)"
	have_pahole132=0
fi
have_bpftool=1
[ -x "$BPFTOOL" ] || { skip bpftool "bpftool not installed"; have_bpftool=0; }
have_clang=1
have clang-19 || { skip clang-19 "clang-19 not installed (tests/install-deps.sh test)"; have_clang=0; }

# magic_order FILE: le or be, from the BTF magic's first byte
magic_order()
{
	case $(od -An -tx1 -N1 "$1" | tr -d ' ') in
	9f) echo le ;;
	eb) echo be ;;
	*) echo "?" ;;
	esac
}

endian_name() { [ "$1" = le ] && echo little-endian || echo big-endian; }

# pahole_untolerated OBJ [KEPT]: read --compare's difference lines, print
# those that are not one of the documented policy differences (KEPT: the
# functions our pahole mode keeps; one it leaves out may be left out)
pahole_untolerated()
{
	local obj=$1 kept=${2:-} line name a b extra=0
	python3 "$ELFSYMS" funcs "$obj" >funcs.list
	while IFS= read -r line; do
		# the prototypes of the functions only in A (anonymous: after them)
		if [ $extra -eq 1 ] && [[ $line =~ ^FUNC_PROTO\ \'.*\':\ ([0-9]+)\ in\ A,\ ([0-9]+)\ in\ B$ ]] &&
		   [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
			continue
		fi
		if [[ $line =~ ^FUNC\ ([^ ]+)\ differs:\ linkage\ (global|extern)\ vs\ static$ ]]; then
			continue
		elif [[ $line =~ ^FUNC\ ([^ ]+)\ only\ in\ A$ ]]; then
			name=${BASH_REMATCH[1]}
			extra=1
			grep -qxF "$name" funcs.list || continue
			[ -n "$kept" ] && ! grep -qxF "$name" "$kept" && continue
			echo "$line (but it has an ELF function symbol)"
		elif [[ $line =~ ^DATASEC\ ([^ ]+)\ differs:\ size\ ([0-9]+)\ vs\ ([0-9]+)$ ]]; then
			a=${BASH_REMATCH[2]} b=${BASH_REMATCH[3]}
			[ "$b" -le "$a" ] && continue
			echo "$line (pahole's is larger than the section)"
		else
			echo "$line"
		fi
	done
}

# one_build NAME OBJ TAGS ORDER BITS
one_build()
{
	local name=$1 obj=$2 tags=$3 order=$4 bits=$5 rc n
	if ! "$D2B" -v -o out.btf "$obj" >conv.out 2>conv.err; then
		fail "$name/convert" "dwarf2btf exited $?"
		show conv.err
		return
	fi
	if grep -q "variable '.*' left out" conv.err; then
		fail "$name/convert" "variables left out"
		grep "left out" conv.err | show /dev/stdin
	else
		pass "$name/convert"
	fi

	filter_expect "$tags" "$HERE/layout.expect" >expect.now
	"$CHECK" -p "targets/$name/check: " out.btf expect.now >check.out 2>&1
	n=$(grep -c '^PASS' check.out)
	if grep -q '^FAIL' check.out; then
		grep '^FAIL' check.out
	elif [ "$n" -gt 0 ]; then
		pass "$name/check ($n expectations)"
	else
		fail "$name/check" "btf_check printed nothing"
		show check.out
	fi

	"$D2B" --dump out.btf >out.dump 2>dump.err || { fail "$name/datasec" "--dump failed"; show dump.err; }
	if python3 "$ELFSYMS" datasec "$obj" out.dump >datasec.out 2>&1; then
		pass "$name/datasec"
	else
		fail "$name/datasec" "DATASECs do not match the symbol table"
		show datasec.out
	fi

	if [ "$(magic_order out.btf)" = "$order" ]; then
		pass "$name/order"
	else
		fail "$name/order" "raw output is $(magic_order out.btf)-endian, the target $order"
	fi

	cp "$obj" copy.o
	rm -f inplace.btf
	if ! "$D2B" copy.o >conv.out 2>conv.err; then
		fail "$name/inplace" "dwarf2btf FILE exited $?"
		show conv.err
	elif ! python3 "$ELFSYMS" section copy.o .BTF inplace.btf >sec.out 2>&1; then
		fail "$name/inplace" "no .BTF in the converted file"
		show sec.out
	elif ! cmp -s inplace.btf out.btf; then
		fail "$name/inplace" "the .BTF written in place differs from -o's"
	elif ! readelf -SW copy.o >/dev/null 2>readelf.err || [ -s readelf.err ]; then
		fail "$name/inplace" "readelf complains about the rewritten file"
		show readelf.err 3
	elif [ $have_bpftool -eq 1 ] && ! "$BPFTOOL" btf dump file copy.o >bpftool.out 2>&1; then
		fail "$name/inplace" "bpftool cannot read the rewritten file's .BTF"
		show bpftool.out 3
	elif [ $have_bpftool -eq 1 ] && ! "$BPFTOOL" btf dump file out.btf >bpftool.out 2>&1; then
		fail "$name/inplace" "bpftool cannot read the raw output"
		show bpftool.out 3
	else
		pass "$name/inplace"
	fi

	if [ "$order" != "$HOST_ORDER" ]; then
		skip "$name/load" "$(endian_name "$order") BTF; the running kernel loads only $(endian_name "$HOST_ORDER") BTF"
	elif [ "$bits" != "$HOST_BITS" ]; then
		skip "$name/load" "$bits-bit target; the running kernel sizes pointers at $((HOST_BITS / 8)) bytes"
	else
		load_btf "$name" out.btf
	fi

	[ $have_pahole -eq 1 ] && vs_pahole "$name/pahole" "$obj" "$REF"
	[ $have_pahole132 -eq 1 ] && vs_pahole "$name/pahole132" "$obj" "$REF132" kept.list
}

# vs_pahole NAME OBJ REF [KEPT]: REF's BTF for OBJ and ours (out.btf) compare
# equal but for the policy differences; with KEPT, a function with a symbol
# that REF leaves out must be one our pahole mode (the default policy,
# pahole 1.32's) leaves out too, and KEPT names those it keeps
vs_pahole()
{
	local name=$1 obj=$2 ref=$3 kept=${4:-} rc
	if [ -n "$kept" ]; then
		cp "$obj" ours.o
		rm -f ours.pahole.btf
		if ! "$BUILD/dwarf2btf-pahole" -J --btf_encode_detached=ours.pahole.btf \
		     --btf_features=default,global_var ours.o >ours.err 2>&1; then
			fail "$name" "dwarf2btf-pahole failed on the object"
			show ours.err
			return
		fi
		"$D2B" --dump ours.pahole.btf | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" >"$kept"
	fi
	cp "$obj" ref.o
	rm -f ref.btf
	if ! "$ref" -J --btf_encode_detached=ref.btf --btf_features=default,global_var ref.o \
	     >ref.err 2>&1 || [ ! -s ref.btf ]; then
		fail "$name" "$ref failed on the object"
		show ref.err
		return
	fi
	"$D2B" out.btf --compare ref.btf >cmp.out 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
		fail "$name" "dwarf2btf --compare exited $rc"
		show cmp.out
		return
	fi
	# difference lines come before the table
	sed '/^kind /,$d' cmp.out | pahole_untolerated "$obj" "$kept" >cmp.bad
	if [ -s cmp.bad ]; then
		fail "$name" "differences from $ref (A: ours, B: pahole)"
		show cmp.bad 8
	elif [ $rc -eq 0 ]; then
		pass "$name"
	else
		pass "$name (policy differences only: $(sed '/^kind /,$d' cmp.out | wc -l))"
	fi
}

# ---- the targets ------------------------------------------------------------

#	name	triple			gcc cross compiler	model	order
TARGETS="
i386	i386-linux-gnu		i686-linux-gnu-gcc	ilp32	le
armv7	arm-linux-gnueabihf	arm-linux-gnueabihf-gcc	ilp32	le
aarch64	aarch64-linux-gnu	aarch64-linux-gnu-gcc	lp64	le
riscv64	riscv64-linux-gnu	riscv64-linux-gnu-gcc	lp64	le
ppc64	powerpc64-linux-gnu	powerpc64-linux-gnu-gcc	lp64	be
s390x	s390x-linux-gnu		s390x-linux-gnu-gcc	lp64	be
"

while read -r tname triple gcc model order; do
	[ -n "$tname" ] || continue
	bits=64
	[ "$model" = ilp32 ] && bits=32
	base="$tname $model $order"
	if [ $have_clang -eq 1 ]; then
		for build in "-O2 -gdwarf-5" "-O0 -gdwarf-3"; do
			name="$tname/clang-19${build// /}"
			if clang-19 -target "$triple" -g $build -c "$HERE/layout.c" -o obj.o 2>cc.err; then
				one_build "$name" obj.o "$base clang-19 clang" "$order" "$bits"
			else
				skip "$name" "clang-19 cannot target $triple: $(head -n 1 cc.err)"
			fi
		done
	fi
	if ! have "$gcc"; then
		skip "$tname/gcc" "no gcc cross compiler $gcc (Debian package gcc-${gcc%-gcc})"
		continue
	fi
	for build in "-O2" "-O0 -gdwarf-4"; do
		name="$tname/gcc${build// /}"
		if "$gcc" -g $build -c "$HERE/layout.c" -o obj.o 2>cc.err; then
			one_build "$name" obj.o "$base gcc" "$order" "$bits"
		else
			fail "$name/compile" "$gcc -g $build -c failed"
			show cc.err
		fi
	done
done <<<"$TARGETS"

# ---- a unit whose address size is not the file's ------------------------

name=mixed-address-sizes
cat >mixed.dg <<'EOF'
cu version=5 name=wide.c language=C11
  base_type @int name=int encoding=signed byte_size=4
  pointer_type @p type=@int byte_size=8
  pointer_type @p4 type=@int byte_size=4
  variable name=g type=@p external location=addr:g
  variable name=after type=@int external location=addr:after
  variable name=short_ptr type=@p4 external location=addr:short_ptr
cu version=4 addr_size=4 name=narrow.c language=C11
  base_type @int4 name=int encoding=signed byte_size=4
  structure_type @s name=narrow byte_size=4
    member name=x type=@int4 data_member_location=0
  variable name=n type=@s external location=addr:n
sym g section=.bss size=8
sym after section=.bss size=4
sym short_ptr section=.data size=8
sym n section=.data size=4
EOF
cat >mixed.expect <<'EOF'
var g type="int *" size=8 offset=8 section=.bss
var after size=4 offset=0 section=.bss
absent struct narrow
absent var n
EOF
if ! python3 "$DWARFGEN" mixed.dg -o mixed.o >gen.err 2>&1; then
	fail "$name" "dwarfgen failed"
	show gen.err
elif ! "$D2B" -v -o mixed.btf mixed.o >conv.out 2>conv.err; then
	fail "$name" "dwarf2btf exited $?"
	show conv.err
elif ! grep -q "narrow.c: .*compile unit left out: its addresses are 4 bytes, the file's 8" conv.err; then
	fail "$name" "-v does not say the 4-byte unit was left out"
	show conv.err
elif ! grep -q "DW_TAG_pointer_type of 4 bytes encoded as one of 8" conv.err; then
	fail "$name" "-v does not warn about the 4-byte pointer in an 8-byte unit"
	show conv.err
elif ! "$CHECK" mixed.btf mixed.expect >check.out 2>&1; then
	fail "$name" "btf_check"
	grep '^FAIL' check.out | show /dev/stdin
else
	pass "$name"
fi

# ---- merged globals: DW_OP_addrx, DW_OP_plus_uconst ---------------------------
# merged-riscv64.o (checked in: clang-22, see merged.c) places b at a's symbol
# plus 16: both are VARs, each at its own offset
name=riscv64/merged-globals
if ! "$D2B" -v -o merged.btf "$HERE/merged-riscv64.o" >conv.out 2>conv.err; then
	fail "$name" "dwarf2btf exited $?"
	show conv.err
elif ! "$CHECK" merged.btf - >check.out 2>&1 <<'EOF'
var a section=.bss offset=0 size=16
var b section=.bss offset=16 size=16
datasec .bss vars=a,b
EOF
then
	fail "$name" "btf_check"
	grep '^FAIL' check.out | sed 's/^/#   /'
else
	pass "$name"
fi
test_done
