#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Conversions over a base whose parse and index come from the cache
# (d2b_btf__load_base(), lib/merge/base_cache.c), through the command lines:
#
#	tests/basecache/run.sh BUILD_DIR
#
# A base is made from gcc-compiled fixtures (an ELF file with .BTF, and the
# same BTF raw), and the running kernel's /sys/kernel/btf/vmlinux where
# there is one; modules are fixtures converted over it.  Each case wants
# the output's bytes equal to those without a cache (--no-cache):
#   BASE/cold, BASE/warm	first run (the entry written), second (read)
#   BASE/damaged		the entry with a byte changed: made again, same
#				bytes, and the entry whole again after
#   BASE/cut			the entry cut short
#   BASE/pahole		dwarf2btf-pahole --btf_base, -j1 and -j2, cold and
#				warm (the cache of $DWARF2BTF_CACHE_DIR)
#   verbose			-v says what the cache did
#   env/none, env/no-home	DWARF2BTF_CACHE_DIR=none, and no HOME, XDG or
#				DWARF2BTF_CACHE_DIR: no entry written anywhere
#   env/xdg			$XDG_CACHE_HOME/dwarf2btf is the default
#   unwritable		a cache directory that cannot be made: the same
#				bytes, exit 0
#   concurrent		8 runs at once over an empty cache: the same bytes
#				each, one entry left, no temporary file
#   corpus/MOD		(D2B_CORPUS or /root/.cache/dwarf2btf-corpus)
#				three modules over the corpus vmlinux, pahole's
#				flags: cold, warm and --no-cache alike
set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
SRC=$(cd "$HERE/../.." && pwd)
D2B=$BUILD/dwarf2btf
PAHOLE=$BUILD/dwarf2btf-pahole
FIX=$SRC/tests/e2e/fixtures
CORPUS=${D2B_CORPUS:-/root/.cache/dwarf2btf-corpus}
CC=${CC:-cc}
FEATURES=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs

need_built "$D2B" "$PAHOLE"
if ! have "$CC"; then
	skip basecache "no C compiler ($CC)"
	exit 0
fi
work_dir basecache "${D2B_KEEP:-}"
unset DWARF2BTF_CACHE_DIR

# the base: two fixtures in one object, BTF written into it and raw
$CC -g -O0 -c -o types.o "$FIX/types.c" 2>/dev/null && $CC -g -O0 -c -o enums.o "$FIX/enums.c" 2>/dev/null &&
	ld -r -o base.o types.o enums.o && "$D2B" base.o && "$D2B" -o base.btf base.o ||
	{ fail setup "cannot make the base from the fixtures"; test_done; }
$CC -g -O2 -c -o mod.o "$FIX/aggregates.c" && $CC -g -O2 -c -o mod2.o "$FIX/types.c" ||
	{ fail setup "cannot compile the modules"; test_done; }

# same NAME A B: B's bytes are A's
same() { cmp -s "$2" "$3" && pass "$1" || fail "$1" "$(basename "$3") differs from $(basename "$2")"; }
entry() { ls "$1"/base-* 2>/dev/null | head -n 1; }
# flip FILE OFFSET: the byte there, every bit of it changed
flip()
{
	local b
	b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
	printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# over BASE (its name in case names): cold, warm, damaged, cut
over()
{
	local name=$1 base=$2 mod=$3 c=cache-$1 e
	"$D2B" --no-cache -b "$base" -o "$name.ref" "$mod" 2>/dev/null ||
		{ fail "$name/ref" "no output without a cache"; return; }
	"$D2B" --cache-dir="$c" -b "$base" -o "$name.cold" "$mod" 2>err &&
		[ -n "$(entry "$c")" ] && same "$name/cold" "$name.ref" "$name.cold" ||
		failx "$name/cold" "no entry in $c, or exit status not 0" err
	"$D2B" --cache-dir="$c" -b "$base" -o "$name.warm" "$mod" 2>/dev/null
	same "$name/warm" "$name.ref" "$name.warm"
	e=$(entry "$c")
	flip "$e" 4000
	"$D2B" -v --cache-dir="$c" -b "$base" -o "$name.dmg" "$mod" 2>err
	if grep -q 'damaged or out of date' err; then
		same "$name/damaged" "$name.ref" "$name.dmg"
	else
		failx "$name/damaged" "-v does not say the entry was made again" err
	fi
	"$D2B" -v --cache-dir="$c" -b "$base" -o "$name.again" "$mod" 2>err
	grep -q 'read from the cache' err && same "$name/damaged-rewritten" "$name.ref" "$name.again" ||
		failx "$name/damaged-rewritten" "the entry was not written whole again" err
	truncate -s 100000 "$(entry "$c")"
	"$D2B" --cache-dir="$c" -b "$base" -o "$name.cut" "$mod" 2>/dev/null
	same "$name/cut" "$name.ref" "$name.cut"
}

over elf base.o mod.o
over raw base.btf mod2.o

# the pahole front end, from DWARF2BTF_CACHE_DIR, in place and -j2
pahole_case()
{
	local name=$1 base=$2 mod=$3 j out
	cp "$mod" p-ref.o
	DWARF2BTF_CACHE_DIR=none "$PAHOLE" -J -j1 --btf_features=$FEATURES --btf_base "$base" \
		--btf_encode_detached=p.ref p-ref.o 2>/dev/null || { fail "$name/pahole" "no output"; return; }
	for j in 1 2 1; do
		out=p.$j.$RANDOM
		DWARF2BTF_CACHE_DIR=$PWD/pcache-$name "$PAHOLE" -J -j$j --btf_features=$FEATURES \
			--btf_base "$base" --btf_encode_detached="$out" p-ref.o 2>/dev/null
		cmp -s p.ref "$out" || { fail "$name/pahole" "-j$j differs from without a cache"; return; }
	done
	[ -n "$(entry "pcache-$name")" ] && pass "$name/pahole" ||
		fail "$name/pahole" "no entry in DWARF2BTF_CACHE_DIR"
}
pahole_case elf base.o mod.o

"$D2B" --no-cache -b base.btf -o m.ref mod.o 2>/dev/null || fail setup "no output over base.btf"
"$D2B" -v --cache-dir=vcache -b base.btf -o v.btf mod.o 2>err1
"$D2B" -v --cache-dir=vcache -b base.btf -o v.btf mod.o 2>err2
grep -q 'base index made and written to the cache' err1 && grep -q 'base index read from the cache' err2 &&
	pass verbose || { show err1; failx verbose "-v does not say what the cache did" err2; }

# where the cache is: none, no home, XDG
mkdir home xdg
HOME=$PWD/home DWARF2BTF_CACHE_DIR=none "$D2B" -b base.btf -o n.btf mod.o 2>/dev/null
[ -z "$(ls -A home)" ] && same env/none m.ref n.btf || fail env/none "an entry was written"
env -u HOME -u XDG_CACHE_HOME -u DWARF2BTF_CACHE_DIR "$D2B" -b base.btf -o h.btf mod.o 2>/dev/null
same env/no-home m.ref h.btf
HOME=$PWD/home XDG_CACHE_HOME=$PWD/xdg "$D2B" -b base.btf -o x.btf mod.o 2>/dev/null
[ -n "$(entry xdg/dwarf2btf)" ] && [ -z "$(ls -A home)" ] && same env/xdg m.ref x.btf ||
	fail env/xdg "no entry in \$XDG_CACHE_HOME/dwarf2btf (or one in HOME)"
HOME=$PWD/home "$D2B" -b base.btf -o y.btf mod.o 2>/dev/null
[ -n "$(entry home/.cache/dwarf2btf)" ] && same env/home m.ref y.btf ||
	fail env/home "no entry in ~/.cache/dwarf2btf"

: >afile
"$D2B" -v --cache-dir=afile/cache -b base.btf -o u.btf mod.o 2>err; rc=$?
[ $rc -eq 0 ] && grep -q 'could not be written' err && same unwritable m.ref u.btf ||
	failx unwritable "exit $rc, or -v does not say the entry could not be written" err

# at once, over an empty cache
pids=
for i in 1 2 3 4 5 6 7 8; do
	"$D2B" --cache-dir=ccache -b base.btf -o "c$i.btf" mod.o 2>/dev/null &
	pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
bad=0
for i in 1 2 3 4 5 6 7 8; do cmp -s m.ref "c$i.btf" || bad=$((bad + 1)); done
n=$(ls -A ccache | wc -l)
[ $rc -eq 0 ] && [ $bad -eq 0 ] && [ "$n" -eq 1 ] && pass concurrent ||
	{ ls -A ccache | sed 's/^/#   /'; fail concurrent "exit status $rc, $bad outputs differ, $n files in the cache (want 1)"; }

# the running kernel's BTF as the base
if [ -r /sys/kernel/btf/vmlinux ]; then
	over kernel /sys/kernel/btf/vmlinux mod.o
else
	skip kernel "no /sys/kernel/btf/vmlinux"
fi

# corpus modules over the corpus vmlinux
if [ -f "$CORPUS/vmlinux" ] && [ -d "$CORPUS/modules" ]; then
	for m in kernel/drivers/block/xen-blkfront.ko kernel/fs/xfs/xfs.ko kernel/net/key/af_key.ko; do
		mod=$CORPUS/modules/$m
		b=$(basename "$m" .ko)
		[ -f "$mod" ] || { skip "corpus/$b" "no $m in the corpus"; continue; }
		ok=1
		DWARF2BTF_CACHE_DIR=none "$PAHOLE" -J --btf_features=$FEATURES --btf_base "$CORPUS/vmlinux" \
			--btf_encode_detached="$b.ref" "$mod" 2>/dev/null || ok=0
		for k in cold warm; do
			DWARF2BTF_CACHE_DIR=$PWD/corpus-cache "$PAHOLE" -J --btf_features=$FEATURES \
				--btf_base "$CORPUS/vmlinux" --btf_encode_detached="$b.$k" "$mod" 2>/dev/null
			cmp -s "$b.ref" "$b.$k" || ok=0
		done
		[ $ok -eq 1 ] && pass "corpus/$b" || fail "corpus/$b" "cold or warm differs from --no-cache"
	done
else
	skip corpus "no corpus in $CORPUS (/work/shared/corpus/fetch-debian-kernel.sh)"
fi
test_done
