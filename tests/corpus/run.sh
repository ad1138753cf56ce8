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
#   deterministic	three more conversions (-j1, -j2, -j8) are byte-identical
#   groups		vmlinux's units were merged in groups, and give the bytes
#			of --no-merge-groups (one by one, as before groups)
#			to the first (the default -j, one thread per CPU)
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
. "$(dirname "$0")/../lib.sh"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	fail "corpus" "usage: $0 BUILD_DIR"
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
	skip "corpus" "$*"
	exit 0
}

[ -f "$CORPUS/vmlinux" ] ||
	skip_all "no corpus at $CORPUS (set D2B_CORPUS, or run /work/shared/corpus/fetch-debian-kernel.sh)"
VMLINUX=$CORPUS/vmlinux

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-corpus.XXXXXX") || { fail "corpus" "no scratch directory"; exit 1; }
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
	note "$(tail -n 5 "$WORK/btfcmp.log" 2>/dev/null)"
	fail "btfcmp_build" "cannot build tests/corpus/btfcmp.c against $BUILD/libdwarf2btf.a"
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
	pass "compare_reference_self"
else
	show_diffs "$WORK/self.txt"
	fail "compare_reference_self" "Debian's vmlinux BTF differs from itself (btfcmp exit $rc)"
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
	skip "compare_reference_module" "no module with .BTF under $CORPUS/modules"
else
	"$BTFCMP" --base-a="$VMLINUX" --base-b="$VMLINUX" "$mod" "$mod" >"$WORK/mself.txt" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^differences: 0$' "$WORK/mself.txt"; then
		pass "compare_reference_module"
	else
		show_diffs "$WORK/mself.txt"
		fail "compare_reference_module" "${mod#"$CORPUS"/} (btfcmp exit $rc)"
	fi
fi

# ---- heavy ----
if [ "${D2B_CORPUS_TESTS:-}" != 1 ]; then
	skip "corpus_convert" "heavy (minutes); set D2B_CORPUS_TESTS=1 (and D2B_TEST_TIMEOUT=7200) to run"
	exit 0
fi
[ -x "$D2B" ] || { fail "corpus_convert" "no $D2B (make O=$BUILD)"; exit 1; }

OURS=$WORK/vmlinux.btf
stamp=$(stat -c '%s %Y' "$VMLINUX")
start=$(date +%s)
if "$D2B" -o "$OURS" "$VMLINUX" >"$WORK/convert.log" 2>&1; then
	pass "convert_vmlinux"
	note "converted in $(( $(date +%s) - start ))s, $(stat -c %s "$OURS") bytes"
else
	tail -n 5 "$WORK/convert.log" | sed 's/^/# /'
	fail "convert_vmlinux" "dwarf2btf -o failed"
	exit 1
fi

# load into the running kernel
if [ ! -x "$BTF_LOAD" ]; then
	skip "load_vmlinux" "no $BTF_LOAD"
else
	"$BTF_LOAD" "$OURS" >"$WORK/load.log" 2>&1
	case $? in
	0) pass "load_vmlinux" ;;
	2) skip "load_vmlinux" "$(tail -n 1 "$WORK/load.log")" ;;
	*) tail -n 6 "$WORK/load.log" | sed 's/^/# /'
	   fail "load_vmlinux" "the kernel rejects our vmlinux BTF" ;;
	esac
fi

# by meaning, kind by kind (A: ours, B: Debian's)
kinds_csv=$(IFS=,; echo "${KINDS[*]}")
"$BTFCMP" --max=0 "${CMP_OPTS[@]}" --kinds="$kinds_csv" "$OURS" "$VMLINUX" >"$WORK/match.txt" 2>&1
rc=$?
if [ $rc -ge 2 ]; then
	show_diffs "$WORK/match.txt"
	fail "match" "btfcmp could not compare (exit $rc)"
else
	for k in "${KINDS[@]}"; do
		# summary row: kind A B anonA anonB same onlyA onlyB changed extraA/extraB
		row=$(sed -n '/^kind /,$p' "$WORK/match.txt" | awk -v k="$k" '$1 == k')
		if [ -z "$row" ]; then
			pass "match_$k"	# neither side has the kind
			continue
		fi
		read -r _ na nb _ _ same oa ob ch extra <<<"$row"
		if [ "$oa$ob$ch" = 000 ] && [ "$extra" = 0/0 ]; then
			pass "match_$k"
		else
			show_diffs "$WORK/match.txt" "^$k "
			fail "match_$k" "$na vs $nb types; $oa only in ours, $ob only in Debian's, $ch changed, anonymous extra $extra"
		fi
	done
fi
# the rest, for information
"$BTFCMP" --max=0 "${CMP_OPTS[@]}" --ignore-linkage "$OURS" "$VMLINUX" >"$WORK/all.txt" 2>&1
sed -n '/^kind /,$p' "$WORK/all.txt" | sed 's/^/# all kinds: /'

# determinism across runs and thread counts
ok=1
for j in 1 2 8; do
	if ! "$D2B" -j$j -o "$WORK/vmlinux.j$j.btf" "$VMLINUX" >"$WORK/convert.j$j.log" 2>&1; then
		tail -n 3 "$WORK/convert.j$j.log" | sed 's/^/# /'
		fail "deterministic" "dwarf2btf -j$j failed"
		ok=0
		break
	fi
	if ! cmp -s "$OURS" "$WORK/vmlinux.j$j.btf"; then
		note "$(cmp "$OURS" "$WORK/vmlinux.j$j.btf" 2>&1 | head -n 1)"
		fail "deterministic" "-j$j output differs from the first run's"
		ok=0
		break
	fi
	rm -f "$WORK/vmlinux.j$j.btf"
done
[ $ok = 1 ] && pass "deterministic"

# merged in groups (lib/convert.c; on 4 threads or more), as one by one
if ! "$D2B" -j4 --stats -o /dev/null "$VMLINUX" 2>&1 | grep -q 'units: .*merged in groups$'; then
	fail "groups" "vmlinux's units were not merged in groups (--stats)"
elif ! "$D2B" --no-merge-groups -o "$WORK/vmlinux.one.btf" "$VMLINUX" >"$WORK/convert.one.log" 2>&1; then
	tail -n 3 "$WORK/convert.one.log" | sed 's/^/# /'
	fail "groups" "dwarf2btf --no-merge-groups failed"
elif ! cmp -s "$OURS" "$WORK/vmlinux.one.btf"; then
	note "$(cmp "$OURS" "$WORK/vmlinux.one.btf" 2>&1 | head -n 1)"
	fail "groups" "the output differs from --no-merge-groups'"
else
	pass "groups"
fi
rm -f "$WORK/vmlinux.one.btf"

# modules over our vmlinux BTF
mapfile -t mods < <(find "$CORPUS/modules" -name '*.ko' -type f 2>/dev/null | LC_ALL=C sort)
if [ ${#mods[@]} -eq 0 ]; then
	skip "module" "no modules under $CORPUS/modules"
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
			fail "module/$name" "conversion failed"
			continue
		fi
		if [ ! -x "$BTF_LOAD" ]; then
			pass "module/$name"	# converted; loading not testable
			continue
		fi
		"$BTF_LOAD" "$out" --base "$OURS" >"$WORK/module.load.log" 2>&1
		case $? in
		0) pass "module/$name" ;;
		2) skip "module/$name" "converted, cannot load here: $(tail -n 1 "$WORK/module.load.log")" ;;
		*) tail -n 4 "$WORK/module.load.log" | sed 's/^/# /'
		   fail "module/$name" "the kernel rejects it merged with its base" ;;
		esac
	done
fi

# ---- kernel mode: dwarf2btf-pahole with the kernel's flags ----
# kernel_vmlinux	the 6.x kernels' command line converts vmlinux; the
#			running kernel loads the result
# pahole132_*		against pahole 1.32 (D2B_PAHOLE132, default
#			~/.cache/pahole-1.32; SKIP without it), our default
#			policy: the same FUNCs, VARs, DECL_TAGs and types by
#			meaning; the one difference kept is the DATASEC size
#			(ours: the section's; pahole's: the end of its last
#			variable)
# pahole131_*		the same against pahole 1.31 (D2B_PAHOLE131, default
#			~/.cache/pahole-1.31/build/pahole), with
#			--pahole-policy=1.31
# kernel_modules	every module over the .BTF Debian's build embedded in
#			vmlinux: converts, loads merged with that base, and the
#			split BTF totals within 3% of Debian's; how many named
#			structs/unions a module repeats from the base is printed
PAHOLE_CMD=$BUILD/dwarf2btf-pahole
KFLAGS=(--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs)
PAHOLE131=${D2B_PAHOLE131:-$HOME/.cache/pahole-1.31/build/pahole}
PAHOLE132=${D2B_PAHOLE132:-$HOME/.cache/pahole-1.32}
KOURS=$WORK/kernel.btf
if ! "$PAHOLE_CMD" -J -j "${KFLAGS[@]}" --lang_exclude=rust --btf_encode_detached="$KOURS" \
	"$VMLINUX" >"$WORK/kconvert.log" 2>&1; then
	tail -n 5 "$WORK/kconvert.log" | sed 's/^/# /'
	fail "kernel_vmlinux" "dwarf2btf-pahole failed"
else
	"$BTF_LOAD" "$KOURS" >"$WORK/kload.log" 2>&1
	case $? in
	0) pass "kernel_vmlinux" ;;
	2) skip "kernel_vmlinux" "converted, cannot load here: $(tail -n 1 "$WORK/kload.log")" ;;
	*) tail -n 6 "$WORK/kload.log" | sed 's/^/# /'
	   fail "kernel_vmlinux" "the kernel rejects it" ;;
	esac
fi

# vs_pahole NAME REF OURS: REF's vmlinux BTF (the kernel's flags) and OURS
# are equal by meaning, DATASEC sizes aside
vs_pahole()
{
	local name=$1 ref=$2 ours=$3 bad other
	rm -f "$WORK/$name.btf"
	"$ref" -J -j "${KFLAGS[@]}" --lang_exclude=rust --btf_encode_detached="$WORK/$name.btf" \
		"$VMLINUX" >"$WORK/pahole.log" 2>&1
	"$D2B" --compare "$WORK/$name.btf" "$ours" >"$WORK/kcmp.txt" 2>&1
	# every kind: same counts, nothing only on one side or changed, but
	# the DATASEC (whose size differs by design)
	bad=$(sed -n '/^kind /,$p' "$WORK/kcmp.txt" |
	      awk 'NR > 1 && $1 != "DATASEC" && $2 != "differences" && ($2 != $3 || $5 + $6 + $7 > 0)')
	other=$(sed '/^kind /,$d' "$WORK/kcmp.txt" | grep -v '^DATASEC .* differs: size ' | head -n 5)
	if [ -z "$bad" ] && [ -z "$other" ] && grep -q '^FUNC ' "$WORK/kcmp.txt"; then
		pass "${name}_vmlinux"
	else
		printf '%s\n' "$bad" "$other" | sed 's/^/# /'
		fail "${name}_vmlinux" "our kernel-mode BTF and $("$ref" --version)'s differ"
	fi
	sed -n '/^kind /,$p' "$WORK/kcmp.txt" | sed "s/^/# vs $name (A ours, B pahole): /"
}

if [ ! -x "$PAHOLE132" ]; then
	skip "pahole132" "no pahole 1.32 at $PAHOLE132 (set D2B_PAHOLE132)"
elif [ -s "$KOURS" ]; then
	vs_pahole pahole132 "$PAHOLE132" "$KOURS"
fi
if [ ! -x "$PAHOLE131" ]; then
	skip "pahole131" "no pahole 1.31 at $PAHOLE131 (build it with /work/shared/tools/build-pahole.sh)"
elif "$PAHOLE_CMD" --pahole-policy=1.31 -J -j "${KFLAGS[@]}" --lang_exclude=rust \
	--btf_encode_detached="$WORK/kernel131.btf" "$VMLINUX" >"$WORK/kconvert.log" 2>&1; then
	vs_pahole pahole131 "$PAHOLE131" "$WORK/kernel131.btf"
else
	tail -n 5 "$WORK/kconvert.log" | sed 's/^/# /'
	fail "pahole131_vmlinux" "dwarf2btf-pahole --pahole-policy=1.31 failed"
fi

DEB_BTF=$WORK/debian.btf
if ! objcopy --dump-section .BTF="$DEB_BTF" "$VMLINUX" "$WORK/vmlinux.tmp" 2>"$WORK/objcopy.log"; then
	skip "kernel_modules" "cannot extract Debian's .BTF: $(tail -n 1 "$WORK/objcopy.log")"
elif [ ${#mods[@]} -eq 0 ]; then
	skip "kernel_modules" "no modules"
else
	rm -f "$WORK/vmlinux.tmp"
	"$D2B" --dump "$DEB_BTF" | awk '$2 == "STRUCT" || $2 == "UNION" { print $2, $3 }' |
		sort -u >"$WORK/base.names"
	ours=0 deb=0 nmod=0 fails=0 repeated=0 with_rep=0
	for m in "${mods[@]}"; do
		name=${m#"$CORPUS"/modules/}
		out=$WORK/kmod.btf
		rm -f "$out"
		if ! "$PAHOLE_CMD" -J "${KFLAGS[@]}" --btf_base "$DEB_BTF" --btf_encode_detached="$out" \
			"$m" >"$WORK/kmod.log" 2>&1; then
			tail -n 3 "$WORK/kmod.log" | sed 's/^/# /'
			fail "kernel_module/$name" "conversion failed"
			fails=$((fails + 1))
			continue
		fi
		"$BTF_LOAD" "$out" --base "$DEB_BTF" >"$WORK/kmod.load.log" 2>&1
		case $? in
		0|2) ;;
		*) tail -n 4 "$WORK/kmod.load.log" | sed 's/^/# /'
		   fail "kernel_module/$name" "the kernel rejects it merged with its base"
		   fails=$((fails + 1)) ;;
		esac
		ours=$((ours + $(stat -c %s "$out")))
		if objcopy --dump-section .BTF="$WORK/deb.mod.btf" "$m" "$WORK/mod.tmp" 2>/dev/null; then
			deb=$((deb + $(stat -c %s "$WORK/deb.mod.btf")))
		fi
		rm -f "$WORK/mod.tmp" "$WORK/deb.mod.btf"
		r=$("$D2B" -b "$DEB_BTF" --dump "$out" |
		    awk '$2 == "STRUCT" || $2 == "UNION" { print $2, $3 }' | sort -u |
		    comm -12 - "$WORK/base.names" | wc -l)
		repeated=$((repeated + r))
		[ "$r" -gt 0 ] && with_rep=$((with_rep + 1))
		nmod=$((nmod + 1))
	done
	note "kernel_modules: $nmod modules, split BTF $ours bytes (Debian's: $deb);" \
	     "$repeated named structs/unions in $with_rep modules also named in the base"
	if [ "$fails" -eq 0 ] && [ "$deb" -gt 0 ] && [ $((ours * 100)) -le $((deb * 103)) ] &&
	   [ $((ours * 100)) -ge $((deb * 97)) ]; then
		pass "kernel_modules"
	else
		fail "kernel_modules" "$fails failures; $ours bytes against Debian's $deb (must be within 3%)"
	fi
fi

# pahole132_modules: a sample of modules (D2B_CORPUS_PAHOLE_MODULES, default
# 40, evenly spread), by pahole 1.32 and by us over its vmlinux BTF: the
# same FUNCs, VARs and DECL_TAGs (a reference to FWD foo or to struct foo
# is one: the dedups may resolve a declaration differently)
if [ -s "$WORK/pahole132.btf" ] && [ ${#mods[@]} -gt 0 ]; then
	n=${D2B_CORPUS_PAHOLE_MODULES:-40}
	[ "$n" -gt ${#mods[@]} ] && n=${#mods[@]}
	nbad=0
	for ((i = 0; i < n; i++)); do
		m=${mods[$(( i * ${#mods[@]} / n ))]}
		name=${m#"$CORPUS"/modules/}
		rm -f "$WORK/p132mod.btf" "$WORK/o132mod.btf"
		if ! "$PAHOLE132" -J "${KFLAGS[@]}" --btf_base "$WORK/pahole132.btf" \
		     --btf_encode_detached="$WORK/p132mod.btf" "$m" >"$WORK/kmod.log" 2>&1; then
			echo "# pahole132_modules: pahole 1.32 failed on $name"
			continue
		fi
		if ! "$PAHOLE_CMD" -J "${KFLAGS[@]}" --btf_base "$WORK/pahole132.btf" \
		     --btf_encode_detached="$WORK/o132mod.btf" "$m" >"$WORK/kmod.log" 2>&1 ||
		   ! "$BTFCMP" --base-a="$WORK/pahole132.btf" --base-b="$WORK/pahole132.btf" \
		     --kinds=FUNC,VAR,DECL_TAG --fwd-as-struct "$WORK/o132mod.btf" "$WORK/p132mod.btf" \
		     >"$WORK/mcmp.txt" 2>&1; then
			show_diffs "$WORK/mcmp.txt"
			echo "# pahole132_modules: $name differs"
			nbad=$((nbad + 1))
		fi
	done
	if [ "$nbad" -eq 0 ]; then
		pass "pahole132_modules ($n modules)"
	else
		fail "pahole132_modules" "$nbad of $n modules differ from pahole 1.32's"
	fi
fi

[ "$(stat -c '%s %Y' "$VMLINUX")" = "$stamp" ] || fail "corpus_untouched" "$VMLINUX changed"
test_done
