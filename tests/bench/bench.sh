#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Benchmark dwarf2btf against Debian's pahole 1.24 on the corpus kernel:
#
#	tests/bench/bench.sh [CORPUS_DIR]
#
# CORPUS_DIR defaults to $D2B_CORPUS, then /root/.cache/dwarf2btf-corpus
# (made by /work/shared/corpus/fetch-debian-kernel.sh).  For vmlinux it runs
#
#	pahole --btf_gen_floats -j --lang_exclude=rust --btf_encode_detached=F vmlinux
#	pahole --btf_gen_floats --lang_exclude=rust --btf_encode_detached=F vmlinux
#	dwarf2btf -o F vmlinux
#	dwarf2btf -jN -o F vmlinux
#
# (Debian's own flags, minus -J: the output goes to a file) and prints wall
# time and peak RSS (/usr/bin/time) of each, the output sizes and the
# ratios dwarf2btf/pahole.  With BENCH_MODULES set it also converts modules
# over vmlinux: pahole -J --btf_base vmlinux in place on a *copy* of each
# module (pahole 1.24 needs LLVM_OBJCOPY=objcopy), dwarf2btf --base vmlinux
# -o F module.ko.  Nothing asserts on timings; a tool that fails is shown
# with its exit status.  The corpus is never written: the script checks that
# vmlinux's size and mtime did not change.
#
# Environment:
#	D2B_BIN		dwarf2btf to run (default: SRC/build/dwarf2btf)
#	PAHOLE		pahole to run (default: pahole)
#	BENCH_JOBS	N for the parallel runs (default: nproc)
#	BENCH_MODULES	0 (default): no modules; N: an evenly spread sample of N;
#			all: every module
#	BENCH_SKIP	space-separated runs to leave out: pahole-j pahole-1
#			d2b-1 d2b-j
#	BENCH_WORK	scratch directory (default: a new /tmp/d2b-bench.XXXXXX,
#			removed at the end unless BENCH_KEEP=1)
#	BENCH_BTFCMP	btfcmp (tests/corpus/btfcmp.c, built by tests/corpus/run.sh)
#			to compare the outputs by meaning; default: the one
#			next to D2B_BIN if present

set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${1:-${D2B_CORPUS:-/root/.cache/dwarf2btf-corpus}}
D2B=${D2B_BIN:-$SRC/build/dwarf2btf}
PAHOLE=${PAHOLE:-pahole}
JOBS=${BENCH_JOBS:-$(nproc)}
MODULES=${BENCH_MODULES:-0}
SKIP=" ${BENCH_SKIP:-} "
BTFCMP=${BENCH_BTFCMP:-$(dirname "$D2B")/tests/btfcmp}
TIME=/usr/bin/time

die()
{
	echo "bench.sh: $*" >&2
	exit 2
}

VMLINUX=$CORPUS/vmlinux
[ -f "$VMLINUX" ] || die "no $VMLINUX (fetch it with /work/shared/corpus/fetch-debian-kernel.sh)"
[ -x "$D2B" ] || die "no dwarf2btf at $D2B (build it, or set D2B_BIN)"
command -v "$PAHOLE" >/dev/null || die "no $PAHOLE"
[ -x "$TIME" ] || die "no $TIME (apt-get install time)"
case $MODULES in all|[0-9]*) ;; *) die "BENCH_MODULES must be a number or 'all'" ;; esac

if [ -n "${BENCH_WORK:-}" ]; then
	WORK=$BENCH_WORK
	mkdir -p "$WORK" || die "cannot create $WORK"
else
	WORK=$(mktemp -d /tmp/d2b-bench.XXXXXX) || die "cannot create a scratch directory"
	[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
fi

stamp()
{
	stat -c '%s %Y' "$1"
}
vmlinux_stamp=$(stamp "$VMLINUX")

# Results, one row per run
rows_label=()
rows_wall=()
rows_rss=()
rows_size=()
rows_rc=()

# timed LABEL OUT CMD...: run CMD under /usr/bin/time, record wall seconds,
# peak RSS and the size of OUT.  The tool's output goes to WORK/LABEL.log.
timed()
{
	local label=$1 out=$2 log tf rc wall rss size
	shift 2
	log=$WORK/${label//[^A-Za-z0-9_.-]/_}.log
	tf=$log.time
	[ -n "$out" ] && rm -f "$out"
	"$TIME" -f '%e %M' -o "$tf" "$@" >"$log" 2>&1
	rc=$?
	read -r wall rss < <(tail -n 1 "$tf" 2>/dev/null) || true
	size=0
	[ -n "$out" ] && size=$(stat -c %s "$out" 2>/dev/null || echo 0)
	rows_label+=("$label")
	rows_wall+=("${wall:-?}")
	rows_rss+=("${rss:-0}")
	rows_size+=("$size")
	rows_rc+=("$rc")
	if [ $rc -ne 0 ]; then
		echo "  $label failed (exit $rc); last lines of $log:" >&2
		tail -n 5 "$log" | sed 's/^/    | /' >&2
	fi
	return $rc
}

# Size in bytes of the .BTF section of an ELF file (0 if none)
btf_section_size()
{
	local hex
	hex=$(readelf -S -W "$1" 2>/dev/null |
	      sed -n 's/^ *\[ *[0-9]*\] \.BTF  *[A-Z_]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	echo $((16#${hex:-0}))
}

skipped()
{
	case $SKIP in *" $1 "*) return 0 ;; esac
	return 1
}

echo "corpus: $CORPUS ($(cat "$CORPUS/VERSION" 2>/dev/null || echo 'no VERSION file'))"
echo "pahole: $($PAHOLE --version 2>&1)   dwarf2btf: $D2B   jobs: $JOBS   cpus: $(nproc)"
echo "scratch: $WORK"
echo

PAHOLE_FLAGS=(--btf_gen_floats --lang_exclude=rust)

echo "vmlinux ($(( $(stat -c %s "$VMLINUX") / 1048576 )) MB):" >&2
skipped pahole-j || timed "pahole -j" "$WORK/pahole-j.btf" \
	"$PAHOLE" "${PAHOLE_FLAGS[@]}" -j --btf_encode_detached="$WORK/pahole-j.btf" "$VMLINUX"
skipped pahole-1 || timed "pahole (1 thread)" "$WORK/pahole-1.btf" \
	"$PAHOLE" "${PAHOLE_FLAGS[@]}" --btf_encode_detached="$WORK/pahole-1.btf" "$VMLINUX"
skipped d2b-1 || timed "dwarf2btf (1 thread)" "$WORK/d2b-1.btf" \
	"$D2B" -o "$WORK/d2b-1.btf" "$VMLINUX"
skipped d2b-j || timed "dwarf2btf -j $JOBS" "$WORK/d2b-j.btf" \
	"$D2B" -j"$JOBS" -o "$WORK/d2b-j.btf" "$VMLINUX"

# ---- modules ----
nmods=0
if [ "$MODULES" != 0 ] && [ -d "$CORPUS/modules" ]; then
	mapfile -t all_mods < <(find "$CORPUS/modules" -name '*.ko' -type f | LC_ALL=C sort)
	if [ "$MODULES" = all ] || [ "$MODULES" -ge ${#all_mods[@]} ]; then
		mods=("${all_mods[@]}")
	else
		# an evenly spread, reproducible sample
		mods=()
		for ((i = 0; i < MODULES; i++)); do
			mods+=("${all_mods[$(( i * ${#all_mods[@]} / MODULES ))]}")
		done
	fi
	nmods=${#mods[@]}
	echo "modules: $nmods of ${#all_mods[@]}" >&2
	mkdir -p "$WORK/mod"
	for tool in pahole d2b; do
		skipped "mod-$tool" && continue
		total=0 peak=0 bytes=0 failed=0
		for m in "${mods[@]}"; do
			b=$(basename "$m" .ko)
			if [ $tool = pahole ]; then
				cp "$m" "$WORK/mod/$b.ko" || die "cannot copy $m"
				LLVM_OBJCOPY=objcopy timed "mod" "" \
					"$PAHOLE" -J "${PAHOLE_FLAGS[@]}" -j --btf_base="$VMLINUX" \
					"$WORK/mod/$b.ko"
				rc=$?
				sz=$(btf_section_size "$WORK/mod/$b.ko")
				rm -f "$WORK/mod/$b.ko"
			else
				timed "mod" "$WORK/mod/$b.btf" "$D2B" --base "$VMLINUX" -o "$WORK/mod/$b.btf" "$m"
				rc=$?
				sz=${rows_size[-1]}
				rm -f "$WORK/mod/$b.btf"
			fi
			[ $rc -eq 0 ] || failed=$((failed + 1))
			total=$(awk -v a="$total" -v b="${rows_wall[-1]}" 'BEGIN { printf "%.2f", a + b }')
			[ "${rows_rss[-1]}" -gt "$peak" ] && peak=${rows_rss[-1]}
			bytes=$((bytes + ${sz:-0}))
			# keep one summary row per tool, not one per module
			unset 'rows_label[-1]' 'rows_wall[-1]' 'rows_rss[-1]' 'rows_size[-1]' 'rows_rc[-1]'
		done
		rows_label+=("$([ $tool = pahole ] && echo "pahole -J, ${#mods[@]} modules" || echo "dwarf2btf, ${#mods[@]} modules")")
		rows_wall+=("$total")
		rows_rss+=("$peak")
		rows_size+=("$bytes")
		rows_rc+=("$failed")
	done
fi

[ "$(stamp "$VMLINUX")" = "$vmlinux_stamp" ] || echo "WARNING: $VMLINUX changed during the benchmark!" >&2

# ---- report ----
echo
printf '%-32s %10s %12s %12s %8s\n' "run" "wall (s)" "peak RSS MB" "BTF bytes" "status"
for i in "${!rows_label[@]}"; do
	status=ok
	case ${rows_label[$i]} in
	*modules) [ "${rows_rc[$i]}" -eq 0 ] || status="${rows_rc[$i]} failed" ;;
	*) [ "${rows_rc[$i]}" -eq 0 ] || status="exit ${rows_rc[$i]}" ;;
	esac
	printf '%-32s %10s %12s %12s %8s\n' "${rows_label[$i]}" "${rows_wall[$i]}" \
		"$(awk -v k="${rows_rss[$i]}" 'BEGIN { printf "%.1f", k / 1024 }')" \
		"${rows_size[$i]}" "$status"
done

# row LABEL: index of the row with that label, or nothing
row()
{
	local i
	for i in "${!rows_label[@]}"; do
		[ "${rows_label[$i]}" = "$1" ] && { echo "$i"; return; }
	done
}

ratio()
{
	local what=$1 a b
	a=$(row "$2")
	b=$(row "$3")
	[ -n "$a" ] && [ -n "$b" ] || return 0
	[ "${rows_rc[$a]}" -eq 0 ] && [ "${rows_rc[$b]}" -eq 0 ] || return 0
	awk -v w="$what" -v ta="${rows_wall[$a]}" -v tb="${rows_wall[$b]}" \
	    -v ma="${rows_rss[$a]}" -v mb="${rows_rss[$b]}" 'BEGIN {
		rt = (tb > 0) ? ta / tb : 0
		rm = (mb > 0) ? ma / mb : 0
		printf "%-44s time %6.2fx   peak RSS %6.2fx\n", w, rt, rm }'
}

echo
echo "ratios (below 1: the first is faster / smaller):"
ratio "dwarf2btf / pahole, 1 thread" "dwarf2btf (1 thread)" "pahole (1 thread)"
ratio "dwarf2btf -j$JOBS / pahole -j" "dwarf2btf -j $JOBS" "pahole -j"
ratio "dwarf2btf / pahole, modules" "dwarf2btf, $nmods modules" "pahole -J, $nmods modules"
ratio "dwarf2btf -j $JOBS / dwarf2btf 1 thread" "dwarf2btf -j $JOBS" "dwarf2btf (1 thread)"
ratio "pahole -j / pahole 1 thread" "pahole -j" "pahole (1 thread)"

# ---- same output? ----
if [ -f "$WORK/d2b-1.btf" ] && [ -f "$WORK/d2b-j.btf" ]; then
	if cmp -s "$WORK/d2b-1.btf" "$WORK/d2b-j.btf"; then
		echo "dwarf2btf: 1-thread and -j $JOBS outputs are byte-identical"
	else
		echo "dwarf2btf: 1-thread and -j $JOBS outputs DIFFER"
	fi
fi
if [ -x "$BTFCMP" ] && [ -f "$WORK/d2b-1.btf" ] && [ -f "$WORK/pahole-1.btf" ]; then
	echo
	echo "by meaning, dwarf2btf (A) vs pahole (B), modulo flattened arrays, FWD/STRUCT and linkage:"
	"$BTFCMP" --max=0 --flatten-arrays --fwd-as-struct --ignore-linkage --anon-sets \
		--quiet-presence=FUNC,VAR "$WORK/d2b-1.btf" "$WORK/pahole-1.btf" \
		>"$WORK/compare.txt" 2>&1
	sed -n '/^kind /,$p' "$WORK/compare.txt"
	echo "(every difference: $WORK/compare.txt$([ -n "${BENCH_KEEP:-}${BENCH_WORK:-}" ] || echo ', removed at exit; set BENCH_KEEP=1'))"
fi
exit 0
