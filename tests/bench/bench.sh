#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Side-by-side benchmark: dwarf2btf against pahole 1.31, both with the
# kernel's flags, on the corpus vmlinux and on xfs.ko over vmlinux.
#
#	tests/bench/bench.sh
#
# For each target, at -j1, -j2 and -j$(nproc) (duplicates dropped), it runs
#
#	pahole            -J -jN --btf_features=encode_force,var,float,enum64,
#	dwarf2btf-pahole      decl_tag,type_tag,optimized_func,consistent_func,
#	                      decl_tag_kfuncs --lang_exclude=rust
#	                      [--btf_base VMLINUX] --btf_encode_detached=OUT FILE
#
# interleaved (pahole, ours, pahole, ours, ...), BENCH_RUNS times each, and
# prints the MEDIAN wall time, CPU time (user+sys) and peak RSS of each tool
# (and the spread of wall times) and the ratios ours/pahole.  With
# BENCH_DEFAULT=1 a third tool joins the interleave: dwarf2btf in its default
# mode (dwarf2btf -jN [--base VMLINUX] -o OUT FILE), which emits more than the
# kernel's flags ask for.
#
# Then it runs dwarf2btf --stats BENCH_RUNS times per target and -j above 1
# and prints the median of each phase only this thread runs (open, merge,
# finish, datasec): their sum is a floor no thread count goes under while
# the merge is serial; and the median of each step of the merge.
#
# Afterwards it checks that each of our outputs is byte-identical across the
# -j values ("deterministic: yes/no") and compares ours with pahole's by
# meaning (dwarf2btf --compare PAHOLE_OUT OURS_OUT, per-kind summary).  The
# corpus is only read (outputs are detached; sizes and mtimes are checked
# before and after).  Nothing asserts on timings: the exit status is 0 unless
# a tool (or --compare) failed or the corpus changed (1), or the setup is
# incomplete (2).
#
# Needs GNU time at /usr/bin/time (Debian package "time":
# apt-get install time), the corpus (/work/shared/corpus/fetch-debian-kernel.sh),
# `make` (for build/dwarf2btf and build/dwarf2btf-pahole) and pahole 1.31
# (see PAHOLE below).
#
# Environment:
#	D2B_CORPUS	corpus directory with vmlinux and modules/ (default:
#			~/.cache/dwarf2btf-corpus)
#	PAHOLE		pahole 1.31 to run (default:
#			~/.cache/pahole-1.31/build/pahole, which
#			/work/shared/tools/build-pahole.sh builds)
#	D2B_PAHOLE	our pahole-compatible front end (default:
#			SRC/build/dwarf2btf-pahole)
#	D2B_BIN		dwarf2btf for the default-mode row and --compare
#			(default: SRC/build/dwarf2btf)
#	BENCH_RUNS	runs per tool and configuration (default 3)
#	BENCH_JOBS	thread counts to run (default: "1 2 $(nproc)", deduplicated)
#	BENCH_DEFAULT	1: add the dwarf2btf default-mode rows
#	BENCH_TARGETS	what to time: "vmlinux xfs.ko" (default) or either one
#			alone (a corpus with only vmlinux in it: BENCH_TARGETS=vmlinux)
#	BENCH_TIME	GNU time to run (default /usr/bin/time)
#	BENCH_WORK	scratch directory (default: a new /tmp/d2b-bench.XXXXXX,
#			removed at exit unless BENCH_KEEP=1)

set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${D2B_CORPUS:-$HOME/.cache/dwarf2btf-corpus}
PAHOLE=${PAHOLE:-$HOME/.cache/pahole-1.31/build/pahole}
OURS=${D2B_PAHOLE:-$SRC/build/dwarf2btf-pahole}
D2B=${D2B_BIN:-$SRC/build/dwarf2btf}
RUNS=${BENCH_RUNS:-3}
DEFAULT=${BENCH_DEFAULT:-0}
TIME=${BENCH_TIME:-/usr/bin/time}

FEATURES=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs

die()
{
	echo "bench.sh: $*" >&2
	exit 2
}

progress()
{
	printf '%s\n' "$*" >&2
}

# ---- setup ----

VMLINUX=$CORPUS/vmlinux
[ -f "$VMLINUX" ] || die "no $VMLINUX (set D2B_CORPUS, or fetch it with /work/shared/corpus/fetch-debian-kernel.sh)"
TARGETS=()
for t in ${BENCH_TARGETS:-vmlinux xfs.ko}; do
	case $t in
	vmlinux | xfs.ko) TARGETS+=("$t") ;;
	*) die "BENCH_TARGETS: '$t' is neither vmlinux nor xfs.ko" ;;
	esac
done
[ ${#TARGETS[@]} -gt 0 ] || die "BENCH_TARGETS is empty"
XFS=
if [[ " ${TARGETS[*]} " == *" xfs.ko "* ]]; then
	XFS=$(find "$CORPUS/modules" -name xfs.ko -type f 2>/dev/null | head -n 1)
	[ -n "$XFS" ] || die "no xfs.ko under $CORPUS/modules (or set BENCH_TARGETS=vmlinux)"
fi
[ -x "$TIME" ] || die "no $TIME: install GNU time (apt-get install time)"
if [ ! -x "$PAHOLE" ]; then
	cat >&2 <<EOF
bench.sh: no pahole 1.31 at $PAHOLE (set PAHOLE, or build it):
    git clone --bare https://github.com/acmel/dwarves /tmp/dwarves.git
    git clone --bare https://github.com/libbpf/libbpf /tmp/libbpf.git
    /work/shared/tools/build-pahole.sh /tmp/dwarves.git /tmp/libbpf.git $HOME/.cache/pahole-1.31
EOF
	exit 2
fi
[ -x "$OURS" ] || die "no $OURS (run make, or set D2B_PAHOLE)"
[ -x "$D2B" ] || die "no $D2B (run make, or set D2B_BIN)"
case $RUNS in '' | *[!0-9]* | 0) die "BENCH_RUNS must be a positive number" ;; esac

# thread counts, deduplicated, in order
JOBS=()
for j in ${BENCH_JOBS:-1 2 $(nproc)}; do
	case $j in '' | *[!0-9]* | 0) die "BENCH_JOBS: '$j' is not a positive number" ;; esac
	case " ${JOBS[*]} " in *" $j "*) ;; *) JOBS+=("$j") ;; esac
done

if [ -n "${BENCH_WORK:-}" ]; then
	WORK=$BENCH_WORK
	mkdir -p "$WORK" || die "cannot create $WORK"
else
	WORK=$(mktemp -d /tmp/d2b-bench.XXXXXX) || die "cannot create a scratch directory"
	[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
fi

stamp()
{
	local f
	for f in "$VMLINUX" ${XFS:+"$XFS"}; do
		stat -L -c '%s %Y' "$f"
	done
}
corpus_stamp=$(stamp)

TOOLS=(pahole ours)
[ "$DEFAULT" = 1 ] && TOOLS+=(default)

declare -A TOOL_NAME=(
	[pahole]="pahole 1.31"
	[ours]="dwarf2btf-pahole"
	[default]="dwarf2btf (default)"
)

# cmdline TOOL TARGET J OUT: print nothing, set CMD to the command
cmdline()
{
	local tool=$1 target=$2 j=$3 out=$4 file base=()
	if [ "$target" = vmlinux ]; then
		file=$VMLINUX
	else
		file=$XFS
	fi
	case $tool in
	pahole | ours)
		[ "$target" = vmlinux ] || base=(--btf_base "$VMLINUX")
		CMD=("$PAHOLE")
		[ "$tool" = ours ] && CMD=("$OURS")
		CMD+=(-J -j"$j" --btf_features="$FEATURES" --lang_exclude=rust
		      "${base[@]}" --btf_encode_detached="$out" "$file")
		;;
	default)
		[ "$target" = vmlinux ] || base=(--base "$VMLINUX")
		CMD=("$D2B" -j"$j" "${base[@]}" -o "$out" "$file")
		;;
	esac
}

# Per-run samples, keyed "TARGET|J|TOOL": space-separated lists
declare -A WALL CPU RSS SIZE FAILED
failures=0

# timed KEY OUT: run CMD under GNU time and record its samples.  OUT is
# removed first (pahole 1.31 does not truncate a detached output file).
timed()
{
	local key=$1 out=$2 log tf rc wall user sys rss
	log=$WORK/${key//|/-}.log
	tf=$log.time
	rm -f "$out"
	"$TIME" -f '%e %U %S %M' -o "$tf" "${CMD[@]}" >"$log" 2>&1
	rc=$?
	read -r wall user sys rss < <(tail -n 1 "$tf" 2>/dev/null) || true
	if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
		FAILED[$key]="exit $rc"
		failures=$((failures + 1))
		{
			echo "  FAILED (exit $rc): ${CMD[*]}"
			tail -n 5 "$log" | sed 's/^/    | /'
		} >&2
		return 1
	fi
	WALL[$key]+="$wall "
	CPU[$key]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
	RSS[$key]+="$rss "
	SIZE[$key]=$(stat -c %s "$out")
}

# median VALUES...: the median (mean of the middle two for an even count)
median()
{
	printf '%s\n' "$@" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			if (NR == 0) exit
			if (NR % 2) print v[(NR + 1) / 2]
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2
		}'
}

out_of()
{
	echo "$WORK/$2-$1-j$3.btf"	# TOOL TARGET J
}

echo "corpus:    $CORPUS ($(cat "$CORPUS/VERSION" 2>/dev/null || echo 'no VERSION file'))"
echo "pahole:    $PAHOLE ($("$PAHOLE" --version 2>&1))"
echo "ours:      $OURS, $D2B ($("$D2B" --version 2>&1 | head -n 1))"
echo "machine:   $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)); $RUNS runs each, interleaved; medians"
echo "flags:     -J -jN --btf_features=$FEATURES"
echo "           --lang_exclude=rust [--btf_base VMLINUX] --btf_encode_detached=OUT FILE"
[ "$DEFAULT" = 1 ] && echo "default:   dwarf2btf -jN [--base VMLINUX] -o OUT FILE"
echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo

# ---- timing runs ----

for target in "${TARGETS[@]}"; do
	for j in "${JOBS[@]}"; do
		for ((r = 1; r <= RUNS; r++)); do
			progress "$target -j$j run $r/$RUNS"
			for tool in "${TOOLS[@]}"; do
				out=$(out_of "$tool" "$target" "$j")
				cmdline "$tool" "$target" "$j" "$out"
				timed "$target|$j|$tool" "$out"
			done
		done
	done
done

corpus_ok=yes
[ "$(stamp)" = "$corpus_stamp" ] || corpus_ok=no

# ---- report ----

# cell KEY ARRAY SCALE FORMAT: median of the samples, scaled and formatted
cell()
{
	local -n arr=$2
	local m
	m=$(median ${arr[$1]:-})
	[ -n "$m" ] || { echo "-"; return; }
	awk -v m="$m" -v s="$3" -v f="$4" 'BEGIN { printf f, m / s }'
}

# spread KEY ARRAY: "min-max" of the samples
spread()
{
	local -n arr=$2
	[ -n "${arr[$1]:-}" ] || { echo "-"; return; }
	printf '%s\n' ${arr[$1]} | sort -g | sed -n '1h; $H; ${x; s/\n/-/; p}'
}

# ratio A_KEY B_KEY ARRAY: median(A) / median(B)
ratio()
{
	local -n arr=$3
	local a b
	a=$(median ${arr[$1]:-})
	b=$(median ${arr[$2]:-})
	[ -n "$a" ] && [ -n "$b" ] || { echo "-"; return; }
	awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'
}

fmt='%-2s %-5s %-21s %8s %12s %8s %9s %11s\n'
for target in "${TARGETS[@]}"; do
	if [ "$target" = vmlinux ]; then
		file=$VMLINUX
	else
		file=$XFS
	fi
	echo "$target ($(( $(stat -L -c %s "$file") / 1048576 )) MiB)$([ "$target" = vmlinux ] || echo ', split over vmlinux')"
	printf "$fmt" "" "jobs" "tool" "wall s" "(min-max)" "CPU s" "RSS MiB" "BTF bytes"
	for j in "${JOBS[@]}"; do
		for tool in "${TOOLS[@]}"; do
			key="$target|$j|$tool"
			printf "$fmt" "" "-j$j" "${TOOL_NAME[$tool]}" \
				"$(cell "$key" WALL 1 %.2f)" "$(spread "$key" WALL)" \
				"$(cell "$key" CPU 1 %.2f)" \
				"$(cell "$key" RSS 1024 %.1f)" \
				"${SIZE[$key]:--}${FAILED[$key]:+ (${FAILED[$key]})}"
		done
		for tool in "${TOOLS[@]}"; do
			[ "$tool" = pahole ] && continue
			a="$target|$j|$tool" b="$target|$j|pahole"
			printf "$fmt" "" "-j$j" "ratio $tool/pahole" \
				"$(ratio "$a" "$b" WALL)" "" "$(ratio "$a" "$b" CPU)" \
				"$(ratio "$a" "$b" RSS)" ""
		done
	done
	echo
done

# ---- the serial part: what no thread count can go under ----

# Units are walked on every thread, but this thread alone opens the input,
# merges the units in order (or, from 256 units on, their groups, which
# the walking threads merge: --stats "merge of the groups"), finishes and
# adds the DATASECs; --stats times those phases (at -jN with N > 1, "merge"
# is merging only).  Their sum is a floor on the wall time at any -j on
# this machine: where the -j rows reach it, more threads cannot help.  RUNS
# runs per -j above 1, each phase their median (one run moves with the
# machine as much as the phases differ); at -j1 the same thread walks
# too, and there is no floor.
SERIAL_JOBS=()
for j in "${JOBS[@]}"; do
	[ "$j" -gt 1 ] && SERIAL_JOBS+=("$j")
done
[ ${#SERIAL_JOBS[@]} -gt 0 ] || SERIAL_JOBS=(2)
echo "serial part: dwarf2btf -jN --stats (default mode), phases this thread runs alone (medians)"
for target in "${TARGETS[@]}"; do
	for j in "${SERIAL_JOBS[@]}"; do
		cmdline default "$target" "$j" "$WORK/serial-$target.btf"
		phases=(open walk merge finish datasec)
		declare -A PH=()
		bad=
		steps=(setup primitives structs references append index)
		for ((r = 1; r <= RUNS; r++)); do
			stats=$("${CMD[@]}" --stats 2>&1)
			line=$(echo "$stats" | sed -n 's/^.*stats: time: //p')
			# "open As, walk Bs, merge Cs, finish Ds, datasec Es; peak RSS N MiB"
			read -r -a v < <(echo "$line" |
				sed 's/;.*//; s/[a-z]* \([0-9.]*\)s,\{0,1\}/\1/g')
			if [ ${#v[@]} -ne 5 ]; then
				bad=${line:-the run failed}
				break
			fi
			for k in 0 1 2 3 4; do
				PH[${phases[k]}]+="${v[k]} "
			done
			# "merge steps: setup As, primitives Bs, ..., index Fs"
			read -r -a v < <(echo "$stats" | sed -n 's/^.*stats: merge steps: //p' |
				tr -d ',' | awk '{ for (i = 2; i <= NF; i += 2) { sub(/s$/, "", $i); printf "%s ", $i } }')
			for k in "${!v[@]}"; do
				[ "$k" -lt ${#steps[@]} ] && PH[${steps[k]}]+="${v[k]} "
			done
			# "merge of the groups: setup As, ..." (merged in groups only)
			read -r -a v < <(echo "$stats" | sed -n 's/^.*stats: merge of the groups: //p' |
				tr -d ',' | awk '{ for (i = 2; i <= NF; i += 2) { sub(/s$/, "", $i); printf "%s ", $i } }')
			for k in "${!v[@]}"; do
				[ "$k" -lt ${#steps[@]} ] && PH[g${steps[k]}]+="${v[k]} "
			done
		done
		if [ -n "$bad" ]; then
			printf '  %-8s -j%-3s (no --stats line: %s)\n' "$target" "$j" "$bad"
			continue
		fi
		# shellcheck disable=SC2086
		{
			open=$(median ${PH[open]}); walk=$(median ${PH[walk]})
			merge=$(median ${PH[merge]}); finish=$(median ${PH[finish]})
			datasec=$(median ${PH[datasec]})
		}
		printf '  %-8s -j%-3s open %s + merge %s + finish %s + datasec %s = %s s floor (walk phase %s s; medians of %d)\n' \
			"$target" "$j" "$open" "$merge" "$finish" "$datasec" \
			"$(awk -v a="$open" -v b="$merge" -v c="$finish" -v d="$datasec" \
				'BEGIN { printf "%.2f", a + b + c + d }')" "$walk" "$RUNS"
		# where the merge goes (the units' merges, on every thread when in
		# groups; --stats: "merge steps"), and the groups' on this one
		for what in "merge steps" "merge of the groups"; do
			pre=
			[ "$what" = "merge steps" ] || pre=g
			[ -n "${PH[${pre}index]:-}" ] || continue
			printf '  %-8s -j%-3s %s:' "$target" "$j" "$what"
			for k in "${steps[@]}"; do
				# shellcheck disable=SC2086
				printf ' %s %s' "$k" "$(median ${PH[$pre$k]})"
			done
			echo
		done
	done
done
echo

# ---- same output for every -j? ----

deterministic()
{
	local tool=$1 target=$2 first j verdict=yes
	[ ${#JOBS[@]} -gt 1 ] || { echo "n/a (one -j value)"; return; }
	first=$(out_of "$tool" "$target" "${JOBS[0]}")
	[ -s "$first" ] || { echo "n/a (no output)"; return; }
	for j in "${JOBS[@]:1}"; do
		cmp -s "$first" "$(out_of "$tool" "$target" "$j")" || verdict="no (-j${JOBS[0]} vs -j$j differ)"
	done
	echo "$verdict"
}

echo "deterministic across $(printf -- '-j%s ' "${JOBS[@]}")(byte-identical output):"
for target in "${TARGETS[@]}"; do
	for tool in "${TOOLS[@]}"; do
		printf '  %-8s %-21s deterministic: %s\n' "$target" "${TOOL_NAME[$tool]}" \
			"$(deterministic "$tool" "$target")"
	done
done
echo

# ---- ours vs pahole, by meaning ----

compare_rc=0
for target in "${TARGETS[@]}"; do
	j=${JOBS[0]}
	p=$(out_of pahole "$target" "$j")
	o=$(out_of ours "$target" "$j")
	base=() how=
	[ "$target" = vmlinux ] || base=(--base "$VMLINUX") how=" --base VMLINUX"
	echo "by meaning, $target -j$j: dwarf2btf$how --compare PAHOLE_OUT OURS_OUT (A: ours, the file argument; B: pahole, --compare's)"
	if [ ! -s "$p" ] || [ ! -s "$o" ]; then
		echo "  (skipped: an output is missing)"
		echo
		continue
	fi
	"$D2B" "${base[@]}" --compare "$p" "$o" >"$WORK/compare-$target.txt" 2>&1
	rc=$?
	case $rc in
	0 | 3)
		# the first few differences, then the per-kind summary
		awk '/^kind / { exit } { n++; if (n <= 5) print }
		     END { if (n > 5) print "... and " (n - 5) " more lines" }' \
			"$WORK/compare-$target.txt" | sed 's/^/  /'
		sed -n '/^kind /,$p' "$WORK/compare-$target.txt" | sed 's/^/  /'
		;;
	*)
		echo "  --compare failed (exit $rc):"
		tail -n 5 "$WORK/compare-$target.txt" | sed 's/^/    | /'
		compare_rc=1
		;;
	esac
	echo
done
if [ "${BENCH_KEEP:-0}" = 1 ] || [ -n "${BENCH_WORK:-}" ]; then
	echo "outputs, logs and every difference: $WORK"
fi

echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) at end"
echo "corpus unchanged (size and mtime of ${TARGETS[*]}): $corpus_ok"

[ $failures -eq 0 ] && [ $compare_rc -eq 0 ] && [ $corpus_ok = yes ] || exit 1
exit 0
