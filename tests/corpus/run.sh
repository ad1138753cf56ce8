#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Corpus tests: dwarf2btf on a real kernel, checked against the BTF that
# Debian's build made with pahole 1.24 for the same vmlinux.
#
#	tests/corpus/run.sh BUILD_DIR
#
# The corpus is $D2B_CORPUS, or /root/.cache/dwarf2btf-corpus; fetch it with
# /work/shared/corpus/fetch-debian-kernel.sh.  Without it every case SKIPs.
#
# Cheap cases (always, when the corpus is there): the comparator on the
# reference BTF itself (vmlinux, and a module over it) must find nothing.
#
# Heavy cases, only with D2B_CORPUS_TESTS=1 (minutes of CPU; raise the
# group timeout of tests/run.sh: D2B_TEST_TIMEOUT=7200):
#   convert_vmlinux	dwarf2btf -o vmlinux.btf vmlinux
#   load_vmlinux	the kernel accepts it (BUILD_DIR/tests/btf_load; exit 2
#			there means "cannot test here": SKIP)
#   match_KIND		by meaning, for INT PTR STRUCT UNION ENUM ENUM64 FWD
#			TYPEDEF CONST VOLATILE RESTRICT FLOAT, our types and
#			Debian's are the same, modulo the deliberate differences
#			below; the other kinds' counts are printed as "#" lines
#   deterministic	two more conversions (-j2, -j4) are byte-identical
#   module/NAME		each module converts with --base (our vmlinux BTF)
#			and the kernel loads it merged with that base
#			(D2B_CORPUS_MODULES=N: an evenly spread sample of N)
#
# Deliberate differences the comparison looks past (d2b_compare_opts):
#   flatten_arrays	pahole flattens int a[5][6] into int[30]; we chain
#   fwd_as_struct	a pointer to `struct foo` may reach a FWD on one side
#			and the STRUCT on the other when dedup resolves it
#			differently; either names struct foo
#   anon_sets		with the two above, two anonymous types of one side
#			can become one form: compare which forms exist
#   ignore_index_type	the index type of ARRAY means nothing to the kernel
# FUNC, VAR and DATASEC (which functions and variables get BTF is encoder
# policy) and the linkage of FUNC (pahole 1.24: always static) are only
# reported.

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "FAIL corpus: usage: $0 BUILD_DIR"
	exit 1
fi
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
CORPUS=${D2B_CORPUS:-/root/.cache/dwarf2btf-corpus}
D2B=$BUILD/dwarf2btf
BTF_LOAD=$BUILD/tests/btf_load
BTFCMP=$BUILD/tests/btfcmp
KINDS=(INT PTR STRUCT UNION ENUM ENUM64 FWD TYPEDEF CONST VOLATILE RESTRICT FLOAT)
CMP_OPTS=(--flatten-arrays --fwd-as-struct --anon-sets --ignore-index-type)

skip_all()
{
	echo "SKIP corpus: $*"
	exit 0
}

[ -f "$CORPUS/vmlinux" ] ||
	skip_all "no corpus at $CORPUS (set D2B_CORPUS, or run /work/shared/corpus/fetch-debian-kernel.sh)"
VMLINUX=$CORPUS/vmlinux

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-corpus.XXXXXX") || { echo "FAIL corpus: no scratch directory"; exit 1; }
trap 'rm -rf "$WORK"' EXIT

# ---- the comparator: tests/corpus/btfcmp.c against the build's library ----
build_btfcmp()
{
	local lib=$BUILD/libdwarf2btf.a cc=${CC:-cc} flags=()

	[ -f "$lib" ] || return 1
	if [ -x "$BTFCMP" ] && [ "$BTFCMP" -nt "$lib" ] && [ "$BTFCMP" -nt "$SRC/tests/corpus/btfcmp.c" ]; then
		return 0
	fi
	# a sanitizer build's library needs the sanitizer runtime
	if nm "$lib" 2>/dev/null | grep -q '__asan_\|__ubsan_'; then
		flags+=(-fsanitize=address,undefined)
	fi
	mkdir -p "$(dirname "$BTFCMP")"
	"$cc" -std=gnu11 -O2 -g -Wall -Wextra -I"$SRC/lib" -D_GNU_SOURCE -pthread "${flags[@]}" \
		-o "$BTFCMP" "$SRC/tests/corpus/btfcmp.c" "$lib" -ldw -lelf -lz >"$WORK/btfcmp.log" 2>&1
}

if ! build_btfcmp; then
	echo "# $(tail -n 5 "$WORK/btfcmp.log" 2>/dev/null)"
	echo "FAIL btfcmp_build: cannot build tests/corpus/btfcmp.c against $BUILD/libdwarf2btf.a"
	exit 1
fi

# show_diffs FILE [PATTERN]: the first differences in FILE as "#" lines
show_diffs()
{
	sed '/^kind /,$d; /^\.\.\. /d' "$1" | grep -- "${2:-}" | head -n 6 | sed 's/^/# /'
	grep -q '^kind ' "$1" || tail -n 3 "$1" | sed 's/^/# /'
}

# ---- cheap: the comparator on the reference itself ----
"$BTFCMP" --max=20 "$VMLINUX" "$VMLINUX" >"$WORK/self.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^differences: 0$' "$WORK/self.txt" &&
   grep -q '^STRUCT ' "$WORK/self.txt"; then
	echo "PASS compare_reference_self"
else
	show_diffs "$WORK/self.txt"
	echo "FAIL compare_reference_self: Debian's vmlinux BTF differs from itself (btfcmp exit $rc)"
fi

# a module that carries split BTF, compared with itself over its base
mod=
while IFS= read -r m; do
	if readelf -S -W "$m" 2>/dev/null | grep -q ' \.BTF '; then
		mod=$m
		break
	fi
done < <(find "$CORPUS/modules" -name '*.ko' -type f 2>/dev/null | LC_ALL=C sort | head -n 20)
if [ -z "$mod" ]; then
	echo "SKIP compare_reference_module: no module with .BTF under $CORPUS/modules"
else
	"$BTFCMP" --base-a="$VMLINUX" --base-b="$VMLINUX" "$mod" "$mod" >"$WORK/mself.txt" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^differences: 0$' "$WORK/mself.txt"; then
		echo "PASS compare_reference_module"
	else
		show_diffs "$WORK/mself.txt"
		echo "FAIL compare_reference_module: ${mod#"$CORPUS"/} (btfcmp exit $rc)"
	fi
fi

# ---- heavy ----
if [ "${D2B_CORPUS_TESTS:-}" != 1 ]; then
	echo "SKIP corpus_convert: heavy (minutes); set D2B_CORPUS_TESTS=1 (and D2B_TEST_TIMEOUT=7200) to run"
	exit 0
fi
[ -x "$D2B" ] || { echo "FAIL corpus_convert: no $D2B (make O=$BUILD)"; exit 1; }

OURS=$WORK/vmlinux.btf
stamp=$(stat -c '%s %Y' "$VMLINUX")
start=$(date +%s)
if "$D2B" -o "$OURS" "$VMLINUX" >"$WORK/convert.log" 2>&1; then
	echo "PASS convert_vmlinux"
	echo "# converted in $(( $(date +%s) - start ))s, $(stat -c %s "$OURS") bytes"
else
	tail -n 5 "$WORK/convert.log" | sed 's/^/# /'
	echo "FAIL convert_vmlinux: dwarf2btf -o failed"
	exit 1
fi

# load into the running kernel
if [ ! -x "$BTF_LOAD" ]; then
	echo "SKIP load_vmlinux: no $BTF_LOAD"
else
	"$BTF_LOAD" "$OURS" >"$WORK/load.log" 2>&1
	case $? in
	0) echo "PASS load_vmlinux" ;;
	2) echo "SKIP load_vmlinux: $(tail -n 1 "$WORK/load.log")" ;;
	*) tail -n 6 "$WORK/load.log" | sed 's/^/# /'
	   echo "FAIL load_vmlinux: the kernel rejects our vmlinux BTF" ;;
	esac
fi

# by meaning, kind by kind (A: ours, B: Debian's)
kinds_csv=$(IFS=,; echo "${KINDS[*]}")
"$BTFCMP" --max=0 "${CMP_OPTS[@]}" --kinds="$kinds_csv" "$OURS" "$VMLINUX" >"$WORK/match.txt" 2>&1
rc=$?
if [ $rc -ge 2 ]; then
	show_diffs "$WORK/match.txt"
	echo "FAIL match: btfcmp could not compare (exit $rc)"
else
	for k in "${KINDS[@]}"; do
		# summary row: kind A B anonA anonB same onlyA onlyB changed extraA/extraB
		row=$(sed -n '/^kind /,$p' "$WORK/match.txt" | awk -v k="$k" '$1 == k')
		if [ -z "$row" ]; then
			echo "PASS match_$k"	# neither side has the kind
			continue
		fi
		read -r _ na nb _ _ same oa ob ch extra <<<"$row"
		if [ "$oa$ob$ch" = 000 ] && [ "$extra" = 0/0 ]; then
			echo "PASS match_$k"
		else
			show_diffs "$WORK/match.txt" "^$k "
			echo "FAIL match_$k: $na vs $nb types; $oa only in ours, $ob only in Debian's, $ch changed, anonymous extra $extra"
		fi
	done
fi
# the rest, for information
"$BTFCMP" --max=0 "${CMP_OPTS[@]}" --ignore-linkage "$OURS" "$VMLINUX" >"$WORK/all.txt" 2>&1
sed -n '/^kind /,$p' "$WORK/all.txt" | sed 's/^/# all kinds: /'

# determinism across runs and thread counts
ok=1
for j in 2 4; do
	if ! "$D2B" -j$j -o "$WORK/vmlinux.j$j.btf" "$VMLINUX" >"$WORK/convert.j$j.log" 2>&1; then
		tail -n 3 "$WORK/convert.j$j.log" | sed 's/^/# /'
		echo "FAIL deterministic: dwarf2btf -j$j failed"
		ok=0
		break
	fi
	if ! cmp -s "$OURS" "$WORK/vmlinux.j$j.btf"; then
		echo "# $(cmp "$OURS" "$WORK/vmlinux.j$j.btf" 2>&1 | head -n 1)"
		echo "FAIL deterministic: -j$j output differs from the first run's"
		ok=0
		break
	fi
	rm -f "$WORK/vmlinux.j$j.btf"
done
[ $ok = 1 ] && echo "PASS deterministic"

# modules over our vmlinux BTF
mapfile -t mods < <(find "$CORPUS/modules" -name '*.ko' -type f 2>/dev/null | LC_ALL=C sort)
if [ ${#mods[@]} -eq 0 ]; then
	echo "SKIP module: no modules under $CORPUS/modules"
else
	n=${D2B_CORPUS_MODULES:-${#mods[@]}}
	[ "$n" -gt ${#mods[@]} ] && n=${#mods[@]}
	for ((i = 0; i < n; i++)); do
		m=${mods[$(( i * ${#mods[@]} / n ))]}
		name=${m#"$CORPUS"/modules/}
		out=$WORK/module.btf
		rm -f "$out"
		if ! "$D2B" --base "$OURS" -o "$out" "$m" >"$WORK/module.log" 2>&1; then
			tail -n 3 "$WORK/module.log" | sed 's/^/# /'
			echo "FAIL module/$name: conversion failed"
			continue
		fi
		if [ ! -x "$BTF_LOAD" ]; then
			echo "PASS module/$name"	# converted; loading not testable
			continue
		fi
		"$BTF_LOAD" "$out" --base "$OURS" >"$WORK/module.load.log" 2>&1
		case $? in
		0) echo "PASS module/$name" ;;
		2) echo "SKIP module/$name: converted, cannot load here: $(tail -n 1 "$WORK/module.load.log")" ;;
		*) tail -n 4 "$WORK/module.load.log" | sed 's/^/# /'
		   echo "FAIL module/$name: the kernel rejects it merged with its base" ;;
		esac
	done
fi

[ "$(stat -c '%s %Y' "$VMLINUX")" = "$stamp" ] || echo "FAIL corpus_untouched: $VMLINUX changed"
exit 0
