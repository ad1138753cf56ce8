#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Our dedup against libbpf's, on real objects:
#
#	tests/dedup/run.sh BUILD_DIR
#
# For each input, dwarf2btf --no-dedup writes every unit's types, as pahole
# hands them to libbpf; BUILD_DIR/tests/libbpf_dedup runs libbpf's
# btf__dedup() on that; dwarf2btf without --no-dedup is our own dedup.
#   NAME/le-libbpf	ours has, per kind, no more types than libbpf's dedup
#   NAME/fixpoint	libbpf's dedup of our output removes nothing
# Inputs:
#   e2e/FIXTURE/CC-OPT	every tests/e2e/fixtures/*.c, built with gcc,
#			clang-14 and clang-19 at -O0 and -O2 (its e2e-cflags
#			and e2e-compilers headers apply)
#   e2e/all/CC-OPT	those objects linked into one (ld -r): many units
#   fwd/CC-OPT		fixtures/fwd_*.c linked in a fixed order: a FWD
#			whose name has two definitions resolves through the
#			graph walk (no FWD 'group' left), and the two struct
#			ops, which point to different groups, stay apart
#   many/agree, many/disagree	300 and 400 units (many_units.py): merged in
#			groups, and the same as one by one (see many_units())
#   glibc		glibc's separate debug file (package libc6-dbg);
#			SKIP when it is not installed
#   corpus/MODULE	with D2B_CORPUS set: the 25 largest modules of the
#			corpus, each alone (no --base).  The corpus vmlinux
#			cannot be checked so: its units hold 3.4 million
#			types, past BTF's 2^20 type IDs, so --no-dedup fails.
# libbpf is the one of the system (libbpf-dev): without it, everything SKIPs.

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
E2E_FIX=$HERE/../e2e/fixtures
D2B=$BUILD/dwarf2btf
LIBBPF_DEDUP=$BUILD/tests/libbpf_dedup

. "$HERE/../lib.sh"

if [ ! -x "$D2B" ]; then
	fail "dedup" "$D2B not built (make O=$BUILD)"
	exit 1
fi
if [ ! -x "$LIBBPF_DEDUP" ]; then
	if pkg-config --exists libbpf 2>/dev/null; then
		fail "dedup" "$LIBBPF_DEDUP not built (make O=$BUILD tests)"
		exit 1
	fi
	skip "dedup" "libbpf not installed (libbpf-dev): nothing to compare with"
	exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-dedup.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# side_by_side OURS OTHER OTHER_NAME: two "KIND count" lists as "#" lines
side_by_side()
{
	awk -v other="$3" 'NR == FNR { a[$1] = $2; order[++n] = $1; next }
		!($1 in a) { order[++n] = $1 }
		{ b[$1] = $2 }
		END {
			printf "#   %-10s %8s %14s\n", "kind", "ours", other
			for (i = 1; i <= n; i++)
				printf "#   %-10s %8d %14d\n", order[i], a[order[i]], b[order[i]]
		}' "$1" "$2"
}

# compare NAME INPUT: the two checks above, on one input
compare()
{
	local name=$1 in=$2 d=$WORK/cmp worse
	rm -rf "$d"
	mkdir -p "$d"
	if ! "$D2B" --no-dedup -o "$d/raw.btf" "$in" 2>"$d/err" ||
	   ! "$D2B" -o "$d/ours.btf" "$in" 2>>"$d/err"; then
		fail "$name/convert" "dwarf2btf failed"
		show "$d/err"
		return
	fi
	if ! "$LIBBPF_DEDUP" "$d/raw.btf" >"$d/libbpf" 2>"$d/err" ||
	   ! "$LIBBPF_DEDUP" --no-dedup "$d/ours.btf" >"$d/ours" 2>>"$d/err" ||
	   ! "$LIBBPF_DEDUP" "$d/ours.btf" >"$d/again" 2>>"$d/err"; then
		fail "$name/libbpf" "libbpf_dedup failed"
		show "$d/err"
		return
	fi
	# "KIND count" lines: every kind of ours, at most libbpf's count
	worse=$(awk 'NR == FNR { lb[$1] = $2; next }
		     $1 != "total" && $2 > lb[$1] + 0 { printf " %s %d > %d", $1, $2, lb[$1] + 0 }' \
		"$d/libbpf" "$d/ours")
	if [ -z "$worse" ]; then
		pass "$name/le-libbpf ($(awk '$1 == "total" { print $2 }' "$d/ours") types, libbpf $(
			awk '$1 == "total" { print $2 }' "$d/libbpf"))"
	else
		fail "$name/le-libbpf" "more types than libbpf's dedup:$worse"
		side_by_side "$d/ours" "$d/libbpf" "libbpf"
	fi
	if cmp -s "$d/ours" "$d/again"; then
		pass "$name/fixpoint"
	else
		fail "$name/fixpoint" "libbpf's dedup still merges types of our output"
		side_by_side "$d/ours" "$d/again" "libbpf(ours)"
	fi
}

cc_of()
{
	case $1 in
	gcc) command -v gcc ;;
	clang-14) command -v clang-14 || { clang --version 2>/dev/null | grep -q 'version 14' && command -v clang; } ;;
	clang-19) command -v clang-19 ;;
	esac
}

# header_of FIXTURE KEY: the value of a "// e2e-KEY: value" line
header_of() { sed -n "s|^// e2e-$2:[ ]*||p" "$1" | head -n 1; }

# fwd_checks NAME OBJ: the FWD fixtures' own expectations
fwd_checks()
{
	local name=$1 obj=$2 dump=$WORK/fwd.dump n
	if ! "$D2B" -o "$WORK/fwd.btf" "$obj" 2>"$WORK/fwd.err" ||
	   ! "$D2B" --dump "$WORK/fwd.btf" >"$dump" 2>>"$WORK/fwd.err"; then
		fail "$name/dump" "dwarf2btf failed"
		show "$WORK/fwd.err"
		return
	fi
	if grep -q "FWD 'group'" "$dump"; then
		fail "$name/fwd-resolved" "FWD 'group' is left"
		grep -n "'group'\|'ops'" "$dump" | show /dev/stdin 8
	else
		pass "$name/fwd-resolved"
	fi
	n=$(grep -c "STRUCT 'ops'" "$dump")
	if [ "$n" -eq 2 ]; then
		pass "$name/different-kept-apart"
	else
		fail "$name/different-kept-apart" "$n STRUCT 'ops', expected 2"
		grep -n "'group'\|'ops'" "$dump" | show /dev/stdin 8
	fi
	for j in 1 2; do
		"$D2B" -j$j -o "$WORK/fwd-j$j.btf" "$obj" 2>/dev/null
	done
	if cmp -s "$WORK/fwd.btf" "$WORK/fwd-j1.btf" && cmp -s "$WORK/fwd.btf" "$WORK/fwd-j2.btf"; then
		pass "$name/jobs-deterministic"
	else
		fail "$name/jobs-deterministic" "the output depends on the number of jobs"
	fi
}

# ---- the e2e fixtures and the FWD fixtures ------------------------------

for comp in gcc clang-14 clang-19; do
	cc=$(cc_of "$comp")
	if [ -z "$cc" ]; then
		skip "e2e/$comp" "compiler $comp not installed (tests/install-deps.sh test)"
		continue
	fi
	for opt in -O0 -O2; do
		dir=$WORK/$comp$opt
		mkdir -p "$dir"
		objs=()
		for src in "$E2E_FIX"/*.c; do
			base=$(basename "$src" .c)
			allowed=$(header_of "$src" compilers)
			if [ -n "$allowed" ] && [[ " $allowed " != *" $comp "* ]]; then
				continue
			fi
			# shellcheck disable=SC2046
			if ! "$cc" -g $opt $(header_of "$src" cflags) -c "$src" -o "$dir/$base.o" \
				2>"$dir/cc.err"; then
				fail "e2e/$base/$comp$opt/compile" "$cc -c failed"
				show "$dir/cc.err"
				continue
			fi
			objs+=("$dir/$base.o")
			compare "e2e/$base/$comp$opt" "$dir/$base.o"
		done
		if [ ${#objs[@]} -gt 1 ]; then
			if ld -r -o "$dir/all.o" "${objs[@]}" 2>"$dir/ld.err"; then
				compare "e2e/all/$comp$opt" "$dir/all.o"
			else
				fail "e2e/all/$comp$opt/link" "ld -r failed"
				show "$dir/ld.err"
			fi
		fi
		fobjs=()
		for src in "$HERE"/fixtures/fwd_decl.c "$HERE"/fixtures/fwd_def1.c \
			   "$HERE"/fixtures/fwd_def2.c; do
			base=$(basename "$src" .c)
			if "$cc" -g $opt -c "$src" -o "$dir/$base.o" 2>"$dir/cc.err"; then
				fobjs+=("$dir/$base.o")
			else
				fail "fwd/$comp$opt/compile" "$cc -c $base.c failed"
				show "$dir/cc.err"
			fi
		done
		[ ${#fobjs[@]} -eq 3 ] || continue
		if ! ld -r -o "$dir/fwd.o" "${fobjs[@]}" 2>"$dir/ld.err"; then
			fail "fwd/$comp$opt/link" "ld -r failed"
			show "$dir/ld.err"
			continue
		fi
		compare "fwd/$comp$opt" "$dir/fwd.o"
		fwd_checks "fwd/$comp$opt" "$dir/fwd.o"
	done
done

# ---- many units, merged in groups -----------------------------------------

# many_maps NAME BTF N: each VAR v<i> has type struct s<i>, each FUNC f<i>
# takes a struct s<i> * (the units' records went through their groups)
many_maps()
{
	local bad
	bad=$("$D2B" --dump "$2" | awk -v n="$3" '
		/^\[/ { id = substr($1, 2, length($1) - 2); kind[id] = $2; name[id] = $3
			for (i = 4; i <= NF; i++) if ($i ~ /^type_id=/) { t = $i; sub(/type_id=/, "", t); sub(/,/, "", t); type[id] = t }
			cur = id; next }
		/^\t.arg. type_id=/ { t = $2; sub(/type_id=/, "", t); arg[cur] = t }
		END {
			for (id in kind) {
				if (kind[id] == "VAR" && name[id] ~ /^\047v[0-9]+\047$/) { v = name[id]; gsub(/\047/, "", v); sub(/^v/, "", v)
					if (name[type[id]] != "\047s" v "\047") { print "VAR v" v; bad++ }
					vars++ }
				if (kind[id] == "FUNC") { f = name[id]; gsub(/\047/, "", f); sub(/^f/, "", f)
					p = arg[type[id]]
					if (kind[p] != "PTR" || name[type[p]] != "\047s" f "\047") { print "FUNC f" f; bad++ }
					funcs++ }
			}
			if (vars != n || funcs != n) print vars + 0 " VARs, " funcs + 0 " FUNCs"
		}' | head -n 3)
	if [ -z "$bad" ]; then
		pass "$1/maps"
	else
		fail "$1/maps" "$(echo $bad)"
	fi
}

# many_units NAME AGAIN ARGS...: tests/dedup/many_units.py ARGS as an object
# of that many units (a round of 256 or more is merged in groups on 4
# threads or more, lib/scheduler.c); at -j4, --stats must say that they
# were merged in groups, the units of the last AGAIN groups one by one (a
# group disagreed), and at -j2 one by one (fewer threads gain nothing)
#   NAME/le-libbpf, NAME/fixpoint	as above
#   NAME/how		how the units were merged
#   NAME/said-once	unit 0's diagnostic, once (a fallback says no unit twice)
#   NAME/same		the bytes of --no-merge-groups (one by one, one thread)
#   NAME/few-jobs	-j2 merges one by one
#   NAME/jobs		-j1, -j2 and -j5: the same bytes
#   NAME/maps		many_maps
many_units()
{
	local name=$1 again=$2 d=$WORK/many n said how
	shift 2
	n=${*: -1}
	rm -rf "$d"
	mkdir -p "$d"
	if ! python3 "$HERE/many_units.py" "$@" >"$d/in.dg" 2>"$d/err" ||
	   ! python3 "$HERE/../dwarfgen/dwarfgen.py" "$d/in.dg" -o "$d/in.o" 2>>"$d/err"; then
		fail "$name/generate" "many_units.py or dwarfgen.py failed"
		show "$d/err"
		return
	fi
	compare "$name" "$d/in.o"
	if ! "$D2B" -j4 -v --stats -o "$d/out.btf" "$d/in.o" 2>"$d/stats" ||
	   ! "$D2B" --no-merge-groups -o "$d/one.btf" "$d/in.o" 2>"$d/err"; then
		fail "$name/convert" "dwarf2btf failed"
		show "$d/err"
		return
	fi
	how=$(sed -n "s/^.*units: $n .*merged \(in groups.*\)/\1/p
		      s/^.*the units of \([0-9]*\) of them merged one by one.*/(\1 groups)/p" \
		  "$d/stats" | paste -sd' ')
	if [ "$how" = "in groups${again:+, then one by one ($again groups)}" ]; then
		pass "$name/how (merged $how)"
	else
		fail "$name/how" "merged '$how'"
		grep 'units:\|groups:' "$d/stats" | show /dev/stdin
	fi
	said=$(grep -c "__int256' (32 bytes) has no BTF equivalent" "$d/stats")
	if [ "$said" = 1 ]; then
		pass "$name/said-once"
	else
		fail "$name/said-once" "unit 0's diagnostic said $said times"
	fi
	if cmp -s "$d/out.btf" "$d/one.btf"; then
		pass "$name/same"
	else
		fail "$name/same" "the output differs from --no-merge-groups'"
	fi
	"$D2B" -j1 -o "$d/j1.btf" "$d/in.o" 2>/dev/null
	"$D2B" -j2 --stats -o "$d/j2.btf" "$d/in.o" 2>"$d/stats2"
	if grep -q "units: $n .*jobs: 2, merged one by one\$" "$d/stats2"; then
		pass "$name/few-jobs (-j2: one by one)"
	else
		fail "$name/few-jobs" "-j2 did not merge one by one"
		grep 'units:' "$d/stats2" | show /dev/stdin
	fi
	"$D2B" -j5 -o "$d/j5.btf" "$d/in.o" 2>/dev/null
	if cmp -s "$d/out.btf" "$d/j1.btf" && cmp -s "$d/out.btf" "$d/j2.btf" &&
	   cmp -s "$d/out.btf" "$d/j5.btf"; then
		pass "$name/jobs"
	else
		fail "$name/jobs" "the output depends on the number of jobs"
	fi
	many_maps "$name" "$d/out.btf" "$n"
}

# the groups agree; a FWD with two definitions makes the second of three
# disagree, and the units from there on are merged one by one
many_units many/agree "" --one-amb 300
many_units many/disagree 2 400

# ---- glibc --------------------------------------------------------------

glibc_debug()
{
	local lib id
	for lib in /lib/x86_64-linux-gnu/libc.so.6 /lib/aarch64-linux-gnu/libc.so.6 \
		   /lib64/libc.so.6 /lib/libc.so.6; do
		[ -e "$lib" ] || continue
		id=$(readelf -n "$(readlink -f "$lib")" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
		[ -n "$id" ] || continue
		if [ -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
			echo "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
			return
		fi
	done
}

dbg=$(glibc_debug)
if [ -n "$dbg" ]; then
	compare glibc "$dbg"
else
	skip glibc "glibc's debug file is not installed (apt-get install libc6-dbg)"
fi

# ---- the corpus (opt-in) ------------------------------------------------

if [ -n "${D2B_CORPUS:-}" ] && [ -d "$D2B_CORPUS/modules" ]; then
	find "$D2B_CORPUS/modules" -name '*.ko' -printf '%s %p\n' | sort -rn | head -n 25 |
	while read -r _ ko; do
		compare "corpus/$(basename "$ko" .ko)" "$ko"
	done
else
	skip corpus "D2B_CORPUS unset (or without modules/): the corpus modules are not checked"
fi
test_done
