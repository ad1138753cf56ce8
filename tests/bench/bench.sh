#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Side-by-side benchmark: dwarf2btf against pahole 1.31 and pahole 1.32,
# all with the kernel's flags, on the corpus vmlinux, on xfs.ko over
# vmlinux, and on a fixed sample of the corpus modules over vmlinux.
# xfs.ko and the modules are split over the same base (BASE below).
#
#	tests/bench/bench.sh
#
# vmlinux and xfs.ko: at -j1, -j2 and -j$(nproc) (duplicates dropped), it runs
#
#	pahole 1.31       -J -jN --btf_features=encode_force,var,float,enum64,
#	pahole 1.32           decl_tag,type_tag,optimized_func,consistent_func,
#	dwarf2btf-pahole      decl_tag_kfuncs --lang_exclude=rust
#	                      [--btf_base VMLINUX] --btf_encode_detached=OUT FILE
#
# interleaved (1.31, 1.32, ours, 1.31, ...), BENCH_RUNS times each, and
# prints the MEDIAN wall time, CPU time (user+sys) and peak RSS of each tool
# (and the spread of wall times) and the ratios ours/1.31 and ours/1.32.
# With BENCH_DEFAULT=1 one more tool joins the interleave: dwarf2btf in its
# default mode (dwarf2btf -jN [--base VMLINUX] -o OUT FILE), which emits
# more than the kernel's flags ask for.  Without pahole 1.32 its rows say
# "pahole 1.32 not there" and the rest runs.
#
# modules: every BENCH_MODULE_EVERY-th (28th) module of the sorted list of
# CORPUS/modules/**/*.ko, from the first (41 of the 1,121 of the Debian 6.1
# corpus), or all of them with BENCH_ALL_MODULES=1, each over vmlinux as
# the kernel converts a module: the flags above with -jBENCH_MODULE_JOBS
# (the kernel passes make's -jN; default 1) and --btf_base BASE, where
# BASE is the vmlinux BTF that the same tool made (in a kernel build,
# vmlinux's .BTF comes from the pahole that converts its modules; over
# another's, here Debian's, pahole 1.32 repeats base types: nfs.ko took
# it 3.3 s of CPU instead of 0.26; BENCH_MODULE_BASE), and the output
#   detached  --btf_encode_detached=OUT MODULE (Linux 7.x, scripts/gen-btf.sh;
#             the default), or
#   inplace   MODULE itself, a fresh copy of it for every run (Linux 6.x,
#             scripts/Makefile.modfinal; the copy is not timed)
# (BENCH_MODULE_WRITE).  Runs interleave per module (1.31, 1.32, ours on
# one module, then the next).  It prints, per tool, the median over the
# modules of each module's median CPU time, their total, the total wall
# time, the median and largest peak RSS, the output's total size, and the
# ratios ours/1.31 and ours/1.32, and the median of the per-module CPU
# ratios; one row per module too unless BENCH_MODULE_ROWS=0 (the default
# with BENCH_ALL_MODULES=1).  A module counts where every tool converted
# it.  Our output must be byte-identical in two runs (an extra untimed run
# when BENCH_RUNS=1) and read back (dwarf2btf --base BASE --dump).
#
# Wall and CPU times and the peak RSS come from tests/tools/runstat (the
# command's own rusage, to the microsecond); without it, from bash's `time`
# (milliseconds: GNU time prints hundredths, too coarse for a module)
# around GNU time, which gives the peak RSS, and then they include
# starting GNU time (about 2 ms of CPU).
#
# Then it runs dwarf2btf --stats BENCH_RUNS times per target (vmlinux,
# xfs.ko) and -j above 1 and prints the median of each phase only this
# thread runs (open, merge, finish, datasec): their sum is a floor no thread
# count goes under while the merge is serial; and the median of each step
# of the merge.
#
# Afterwards it checks that each of our vmlinux and xfs.ko outputs is
# byte-identical across the -j values ("deterministic: yes/no") and
# compares ours with each pahole's by meaning (dwarf2btf --compare
# PAHOLE_OUT OURS_OUT, per-kind summary; xfs.ko's only over one base for
# all, BENCH_MODULE_BASE=vmlinux).  The corpus is only read
# (outputs are detached or go to copies; sizes and mtimes are checked
# before and after).  Nothing asserts on timings: the exit status is 0
# unless a tool (or --compare, or a module check) failed or the corpus
# changed (1), or the setup is incomplete (2).
#
# Needs tests/tools/runstat (make tests) or GNU time at /usr/bin/time (Debian package "time":
# apt-get install time), the corpus (/work/shared/corpus/fetch-debian-kernel.sh),
# `make` (for build/dwarf2btf and build/dwarf2btf-pahole) and pahole 1.31
# (see PAHOLE below); pahole 1.32 if there.
#
# Environment:
#	D2B_CORPUS	corpus directory with vmlinux and modules/ (default:
#			~/.cache/dwarf2btf-corpus)
#	PAHOLE		pahole 1.31 to run (default:
#			~/.cache/pahole-1.31/build/pahole, which
#			/work/shared/tools/build-pahole.sh builds)
#	D2B_PAHOLE132	pahole 1.32 to run (default: ~/.cache/pahole-1.32, the
#			launcher `/work/shared/tools/debian-next.sh launcher
#			SID_CHROOT /usr/bin/pahole ~/.cache/pahole-1.32`
#			writes); its columns say "not there" without it
#	D2B_PAHOLE	our pahole-compatible front end (default:
#			SRC/build/dwarf2btf-pahole)
#	D2B_BIN		dwarf2btf for the default-mode row, --compare and
#			the read-back (default: SRC/build/dwarf2btf)
#	BENCH_RUNS	runs per tool and configuration (default 3)
#	BENCH_JOBS	thread counts for vmlinux and xfs.ko (default:
#			"1 2 $(nproc)", deduplicated)
#	BENCH_DEFAULT	1: add the dwarf2btf default-mode rows
#	BENCH_TARGETS	what to time: "vmlinux xfs.ko modules" (the default),
#			or any of them (a corpus with only vmlinux in it:
#			BENCH_TARGETS=vmlinux)
#	BENCH_ALL_MODULES  1: every module, not the sample
#	BENCH_MODULE_EVERY the sample's step (default 28)
#	BENCH_MODULE_JOBS  -j for each module (default 1)
#	BENCH_MODULE_WRITE detached (default) or inplace, as above
#	BENCH_MODULE_BASE  the base of xfs.ko and the modules: own (the
#			default: each tool's modules over the vmlinux BTF
#			that tool makes first,
#			-j$(nproc), not timed, as a raw file: as in a kernel
#			built with that tool), vmlinux (the corpus vmlinux's
#			.BTF, Debian's, for every tool), or a folder DIR
#			(DIR/TOOL.btf for TOOL pahole, pahole132, ours and
#			default: what pack.sh carries)
#	BENCH_MODULE_ROWS  1: a row per module (default, but 0 with
#			BENCH_ALL_MODULES=1); 0: the summary alone
#	BENCH_CACHE	our base cache (dwarf2btf(1), THE BASE CACHE) for
#			xfs.ko and the modules: warm (the default: an entry
#			in WORK/cache made before the timed runs, as every
#			module of a kernel build but the first few finds it)
#			or none (DWARF2BTF_CACHE_DIR=none: the base parsed
#			and indexed in each run, as before the cache)
#	BENCH_RUNSTAT	the timer: tests/tools/runstat (default
#			SRC/build/tests/runstat, which make tests builds): the
#			command's own rusage to the microsecond; empty, or not
#			built: bash's time (ms) and GNU time (peak RSS), whose
#			start (about 2 ms of CPU) is then in every time
#	BENCH_TIME	GNU time to run (default /usr/bin/time)
#	BENCH_WORK	scratch directory (default: a new /tmp/d2b-bench.XXXXXX,
#			removed at exit unless BENCH_KEEP=1); samples.tsv there
#			holds every run's numbers, modules.tsv each module's
#			medians

set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${D2B_CORPUS:-$HOME/.cache/dwarf2btf-corpus}
PAHOLE=${PAHOLE:-$HOME/.cache/pahole-1.31/build/pahole}
PAHOLE132=${D2B_PAHOLE132:-$HOME/.cache/pahole-1.32}
OURS=${D2B_PAHOLE:-$SRC/build/dwarf2btf-pahole}
D2B=${D2B_BIN:-$SRC/build/dwarf2btf}
RUNS=${BENCH_RUNS:-3}
DEFAULT=${BENCH_DEFAULT:-0}
TIME=${BENCH_TIME:-/usr/bin/time}
RUNSTAT=${BENCH_RUNSTAT-$SRC/build/tests/runstat}
[ -z "$RUNSTAT" ] || [ -x "$RUNSTAT" ] || RUNSTAT=
ALL_MODULES=${BENCH_ALL_MODULES:-0}
MOD_EVERY=${BENCH_MODULE_EVERY:-28}
MOD_JOBS=${BENCH_MODULE_JOBS:-1}
MOD_WRITE=${BENCH_MODULE_WRITE:-detached}
MOD_BASE=${BENCH_MODULE_BASE:-own}
CACHE=${BENCH_CACHE:-warm}
MOD_ROWS=${BENCH_MODULE_ROWS:-1}
[ "$ALL_MODULES" = 1 ] && MOD_ROWS=${BENCH_MODULE_ROWS:-0}

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

# number NAME VALUE: die unless VALUE is a positive number
number()
{
	case $2 in '' | *[!0-9]* | 0) die "$1 must be a positive number, not '$2'" ;; esac
}

# ---- setup ----

VMLINUX=$CORPUS/vmlinux
[ -f "$VMLINUX" ] || die "no $VMLINUX (set D2B_CORPUS, or fetch it with /work/shared/corpus/fetch-debian-kernel.sh)"
TARGETS=()
for t in ${BENCH_TARGETS:-vmlinux xfs.ko modules}; do
	case $t in
	vmlinux | xfs.ko | modules) TARGETS+=("$t") ;;
	*) die "BENCH_TARGETS: '$t' is none of vmlinux, xfs.ko and modules" ;;
	esac
done
[ ${#TARGETS[@]} -gt 0 ] || die "BENCH_TARGETS is empty"
# targets timed at each -j (the modules have a table of their own)
JTARGETS=()
for t in "${TARGETS[@]}"; do
	[ "$t" = modules ] || JTARGETS+=("$t")
done
wants()
{
	[[ " ${TARGETS[*]} " == *" $1 "* ]]
}
XFS=
if wants xfs.ko; then
	XFS=$(find "$CORPUS/modules" -name xfs.ko -type f 2>/dev/null | head -n 1)
	[ -n "$XFS" ] || die "no xfs.ko under $CORPUS/modules (or set BENCH_TARGETS=vmlinux)"
fi
number BENCH_RUNS "$RUNS"
number BENCH_MODULE_EVERY "$MOD_EVERY"
number BENCH_MODULE_JOBS "$MOD_JOBS"
case $MOD_WRITE in detached | inplace) ;; *) die "BENCH_MODULE_WRITE must be detached or inplace, not '$MOD_WRITE'" ;; esac
case $MOD_BASE in
vmlinux | own) ;;
*) [ -d "$MOD_BASE" ] || die "BENCH_MODULE_BASE must be own, vmlinux or a folder, not '$MOD_BASE'" ;;
esac
# the module sample: paths relative to CORPUS/modules, sorted bytewise
MODULES=()
MOD_TOTAL=0
if wants modules; then
	mapfile -t all < <(cd "$CORPUS/modules" 2>/dev/null && find . -name '*.ko' -type f | sed 's|^\./||' | LC_ALL=C sort)
	MOD_TOTAL=${#all[@]}
	[ "$MOD_TOTAL" -gt 0 ] || die "no modules (*.ko) under $CORPUS/modules (or leave modules out of BENCH_TARGETS)"
	for ((i = 0; i < MOD_TOTAL; i++)); do
		if [ "$ALL_MODULES" = 1 ] || [ $((i % MOD_EVERY)) -eq 0 ]; then
			MODULES+=("${all[i]}")
		fi
	done
	unset all
fi
[ -n "$RUNSTAT" ] || [ -x "$TIME" ] || die "no $TIME: install GNU time (apt-get install time)"
if [ ! -x "$PAHOLE" ]; then
	cat >&2 <<EOT
bench.sh: no pahole 1.31 at $PAHOLE (set PAHOLE, or build it):
    git clone --bare https://github.com/acmel/dwarves /tmp/dwarves.git
    git clone --bare https://github.com/libbpf/libbpf /tmp/libbpf.git
    /work/shared/tools/build-pahole.sh /tmp/dwarves.git /tmp/libbpf.git $HOME/.cache/pahole-1.31
EOT
	exit 2
fi
HAVE132=0
[ -x "$PAHOLE132" ] && HAVE132=1
[ -x "$OURS" ] || die "no $OURS (run make, or set D2B_PAHOLE)"
[ -x "$D2B" ] || die "no $D2B (run make, or set D2B_BIN)"

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
SAMPLES=$WORK/samples.tsv
: >"$SAMPLES"
case $CACHE in
warm) export DWARF2BTF_CACHE_DIR=$WORK/cache ;;
none) export DWARF2BTF_CACHE_DIR=none ;;
*) die "BENCH_CACHE must be warm or none, not '$CACHE'" ;;
esac

stamp()
{
	local m
	(
		cd "$CORPUS/modules" 2>/dev/null || cd "$CORPUS" || exit
		stat -L -c '%s %Y' "$VMLINUX" ${XFS:+"$XFS"}
		for m in "${MODULES[@]}"; do
			printf '%s\n' "$m"
		done | xargs -r -d '\n' stat -L -c '%s %Y'
	)
}
corpus_stamp=$(stamp)

TOOLS=(pahole pahole132 ours)
[ "$DEFAULT" = 1 ] && TOOLS+=(default)
# the tools that run (pahole 1.32's columns stay, saying it is not there)
RUN_TOOLS=(pahole)
[ $HAVE132 = 1 ] && RUN_TOOLS+=(pahole132)
RUN_TOOLS+=(ours)
[ "$DEFAULT" = 1 ] && RUN_TOOLS+=(default)
# ours, and the default mode, are compared with each pahole
REFS=(pahole pahole132)
MINE=(ours)
[ "$DEFAULT" = 1 ] && MINE+=(default)

declare -A TOOL_NAME=(
	[pahole]="pahole 1.31"
	[pahole132]="pahole 1.32"
	[ours]="dwarf2btf-pahole"
	[default]="dwarf2btf (default)"
)
# in ratios: ours/1.31
declare -A SHORT=([pahole]=1.31 [pahole132]=1.32 [ours]=ours [default]=default)
NOT_THERE="pahole 1.32 not there"

# cmdline TOOL FILE BASE J OUT: print nothing, set CMD to the command that
# converts FILE (over BASE, if not empty) at -jJ into OUT (if not empty;
# else into FILE)
cmdline()
{
	local tool=$1 file=$2 base=$3 j=$4 out=$5 args=()
	case $tool in
	pahole | pahole132 | ours)
		[ -z "$base" ] || args+=(--btf_base "$base")
		[ -z "$out" ] || args+=(--btf_encode_detached="$out")
		case $tool in
		pahole) CMD=("$PAHOLE") ;;
		pahole132) CMD=("$PAHOLE132") ;;
		ours) CMD=("$OURS") ;;
		esac
		CMD+=(-J -j"$j" --btf_features="$FEATURES" --lang_exclude=rust "${args[@]}" "$file")
		;;
	default)
		[ -z "$base" ] || args+=(--base "$base")
		[ -z "$out" ] || args+=(-o "$out")
		CMD=("$D2B" -j"$j" "${args[@]}" "$file")
		;;
	esac
}

# target_file TARGET: the file of target vmlinux or xfs.ko
target_file()
{
	if [ "$1" = vmlinux ]; then
		echo "$VMLINUX"
	else
		echo "$XFS"
	fi
}

# Per-run samples, keyed "TARGET|J|TOOL": space-separated lists
declare -A WALL CPU RSS SIZE FAILED
failures=0

# timed KEY OUT: run CMD, time it, and record its samples (in the arrays
# and as a line "KEY WALL CPU RSS_KIB SIZE" of samples.tsv, tab-separated).
# A detached OUT is removed first (pahole 1.31 does not truncate one).
# runstat gives wall, CPU and peak RSS; else bash's time wall and CPU in
# milliseconds, GNU time the peak RSS.
timed()
{
	local key=$1 out=$2 log tf rc wall user sys rss cpu TIMEFORMAT='%3R %3U %3S'
	log=$WORK/${key//[|\/]/-}.log
	tf=$log.time
	[ "$out" = "${CMD[-1]}" ] || rm -f "$out"
	if [ -n "$RUNSTAT" ]; then
		# the command's own rusage, to the microsecond (tests/tools/runstat.c)
		"$RUNSTAT" -o "$tf" "${CMD[@]}" >"$log" 2>&1
		rc=$?
		read -r wall user sys rss < <(tail -n 1 "$tf" 2>/dev/null) || true
	else
		{ time "$TIME" -f '%M' -o "$tf" "${CMD[@]}" >"$log" 2>&1; } 2>"$tf.bash"
		rc=$?
		read -r wall user sys < <(tail -n 1 "$tf.bash" 2>/dev/null) || true
		read -r rss < <(tail -n 1 "$tf" 2>/dev/null) || true
	fi
	if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
		FAILED[$key]="exit $rc"
		failures=$((failures + 1))
		printf '%s\tFAILED\n' "$key" >>"$SAMPLES"
		{
			echo "  FAILED (exit $rc): ${CMD[*]}"
			tail -n 5 "$log" | sed 's/^/    | /'
		} >&2
		return 1
	fi
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
	WALL[$key]+="$wall "
	CPU[$key]+="$cpu "
	RSS[$key]+="$rss "
	SIZE[$key]=$(stat -c %s "$out")
	printf '%s\t%s\t%s\t%s\t%s\n' "$key" "$wall" "$cpu" "$rss" "${SIZE[$key]}" >>"$SAMPLES"
	rm -f "$tf" "$tf.bash"
	[ -s "$log" ] || rm -f "$log"
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
if [ $HAVE132 = 1 ]; then
	echo "pahole:    $PAHOLE132 ($("$PAHOLE132" --version 2>&1))"
else
	echo "pahole:    $NOT_THERE: no $PAHOLE132 (set D2B_PAHOLE132)"
fi
echo "ours:      $OURS, $D2B ($("$D2B" --version 2>&1 | head -n 1))"
echo "machine:   $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)); $RUNS runs each, interleaved; medians"
if [ -n "$RUNSTAT" ]; then
	echo "timer:     $RUNSTAT (each command's own rusage)"
else
	echo "timer:     bash's time around $TIME (includes starting it: about 2 ms of CPU)"
fi
echo "flags:     -J -jN --btf_features=$FEATURES"
# (split() is defined below: ask wants() here)
{ wants xfs.ko || wants modules; } && echo "our base cache: $CACHE$([ "$CACHE" = warm ] && echo " (its entry made before the timed runs, as for all but a build's first modules)")"
echo "           --lang_exclude=rust [--btf_base VMLINUX] --btf_encode_detached=OUT FILE"
[ "$DEFAULT" = 1 ] && echo "default:   dwarf2btf -jN [--base VMLINUX] -o OUT FILE"
if wants modules; then
	if [ "$ALL_MODULES" = 1 ]; then
		how="all ${#MODULES[@]}"
	else
		how="${#MODULES[@]} of $MOD_TOTAL (one in $MOD_EVERY of the sorted list, from the first)"
	fi
	case $MOD_BASE in
	vmlinux) b=VMLINUX ;;
	own) b="OWN (the tool's vmlinux BTF, made first)" ;;
	*) b="$MOD_BASE/TOOL.btf" ;;
	esac
	if [ "$MOD_WRITE" = detached ]; then
		echo "modules:   $how, each -j$MOD_JOBS --btf_base $b --btf_encode_detached=OUT MODULE"
	else
		echo "modules:   $how, each -j$MOD_JOBS --btf_base $b, into a fresh copy of MODULE"
	fi
fi
echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo

# ---- timing runs ----

# mod_base TOOL: the base TOOL converts a module over
mod_base()
{
	case $MOD_BASE in
	vmlinux) echo "$VMLINUX" ;;
	own) echo "$WORK/base-$1.btf" ;;
	*) echo "$MOD_BASE/$1.btf" ;;
	esac
}

# split: true if xfs.ko or the modules are timed (over a base)
split()
{
	wants xfs.ko || wants modules
}

if split && [ "$MOD_BASE" != vmlinux ] && [ "$MOD_BASE" != own ]; then
	for tool in "${RUN_TOOLS[@]}"; do
		[ -s "$(mod_base "$tool")" ] || die "BENCH_MODULE_BASE: no $(mod_base "$tool")"
	done
fi
if split && [ "$MOD_BASE" = own ]; then
	# each tool's vmlinux BTF, as a kernel build that the tool made
	# vmlinux's BTF in gives its modules (raw BTF, not an ELF vmlinux)
	for tool in "${RUN_TOOLS[@]}"; do
		progress "${TOOL_NAME[$tool]}'s vmlinux BTF, the base of its modules"
		cmdline "$tool" "$VMLINUX" "" "$(nproc)" "$(mod_base "$tool")"
		rm -f "$(mod_base "$tool")"
		if ! "${CMD[@]}" >"$WORK/base-$tool.log" 2>&1; then
			echo "  FAILED: ${CMD[*]}" >&2
			tail -n 5 "$WORK/base-$tool.log" | sed 's/^/    | /' >&2
			echo "bench.sh: ${TOOL_NAME[$tool]} could not make the base of its modules" >&2
			exit 1
		fi
	done
fi
if split && [ "$CACHE" = warm ]; then
	# our cache entry of each base, made before the timed runs
	for tool in ours default; do
		case " ${RUN_TOOLS[*]} " in *" $tool "*) ;; *) continue ;; esac
		progress "the base cache of ${TOOL_NAME[$tool]}"
		file=$XFS
		[ ${#MODULES[@]} -eq 0 ] || file=$CORPUS/modules/${MODULES[0]}
		cmdline "$tool" "$file" "$(mod_base "$tool")" 1 "$WORK/warm.btf"
		"${CMD[@]}" >/dev/null 2>&1 || echo "  (the base cache of ${TOOL_NAME[$tool]} not made)" >&2
	done
	rm -f "$WORK/warm.btf"
fi
for target in "${JTARGETS[@]}"; do
	for j in "${JOBS[@]}"; do
		for ((r = 1; r <= RUNS; r++)); do
			progress "$target -j$j run $r/$RUNS"
			for tool in "${RUN_TOOLS[@]}"; do
				base=
				[ "$target" = vmlinux ] || base=$(mod_base "$tool")
				out=$(out_of "$tool" "$target" "$j")
				cmdline "$tool" "$(target_file "$target")" "$base" "$j" "$out"
				timed "$target|$j|$tool" "$out"
			done
		done
	done
done

# module_run M TOOL R: convert module number M as the kernel does, timed
# (R > 0, run R) or not (R = 0, a second run for the check); our output's
# checksum goes into OUR_SUM[M|R], and the first run's output is read back
declare -A OUR_SUM
mod_bad=()
module_run()
{
	local m=$1 tool=$2 r=$3 file out key base
	file=$CORPUS/modules/${MODULES[m]}
	base=$(mod_base "$tool")
	key="modules|${MODULES[m]}|$tool"
	out=$WORK/module-$tool.btf
	if [ "$MOD_WRITE" = inplace ]; then
		out=$WORK/module-$tool.ko
		cp "$file" "$out" || die "cannot copy $file"
		file=$out
		cmdline "$tool" "$file" "$base" "$MOD_JOBS" ""
	else
		cmdline "$tool" "$file" "$base" "$MOD_JOBS" "$out"
	fi
	if [ "$r" -gt 0 ]; then
		timed "$key" "$out" || return
	else
		[ "$MOD_WRITE" = inplace ] || rm -f "$out"
		if ! "${CMD[@]}" >/dev/null 2>&1; then
			OUR_SUM[$m|$r]="the untimed run failed"
			return
		fi
	fi
	[ "$tool" = ours ] || return 0
	OUR_SUM[$m|$r]=$(cksum <"$out")
	if [ "$r" = 1 ] && ! "$D2B" --base "$base" --dump "$out" >/dev/null 2>"$WORK/readback.log"; then
		mod_bad+=("${MODULES[m]}: does not read back ($(tail -n 1 "$WORK/readback.log"))")
	fi
}

if wants modules; then
	for ((r = 1; r <= RUNS; r++)); do
		for m in "${!MODULES[@]}"; do
			((m % 20)) || progress "modules run $r/$RUNS: $m of ${#MODULES[@]} done"
			for tool in "${RUN_TOOLS[@]}"; do
				module_run "$m" "$tool" "$r"
			done
			[ "$RUNS" -gt 1 ] || module_run "$m" ours 0
		done
	done
	rm -f "$WORK"/module-*.ko
fi

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
	printf '%s\n' ${arr[$1]} | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { printf "%.2f-%.2f\n", lo, hi }'
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
for target in "${JTARGETS[@]}"; do
	file=$(target_file "$target")
	over=
	if [ "$target" != vmlinux ]; then
		case $MOD_BASE in
		vmlinux) over=", split over vmlinux" ;;
		own) over=", split over the tool's own vmlinux BTF" ;;
		*) over=", split over $MOD_BASE/TOOL.btf" ;;
		esac
	fi
	echo "$target ($(( $(stat -L -c %s "$file") / 1048576 )) MiB)$over"
	printf "$fmt" "" "jobs" "tool" "wall s" "(min-max)" "CPU s" "RSS MiB" "BTF bytes"
	for j in "${JOBS[@]}"; do
		for tool in "${TOOLS[@]}"; do
			key="$target|$j|$tool"
			if [ "$tool" = pahole132 ] && [ $HAVE132 = 0 ]; then
				printf '%-2s %-5s %-21s %s\n' "" "-j$j" "${TOOL_NAME[$tool]}" "($NOT_THERE)"
				continue
			fi
			printf "$fmt" "" "-j$j" "${TOOL_NAME[$tool]}" \
				"$(cell "$key" WALL 1 %.2f)" "$(spread "$key" WALL)" \
				"$(cell "$key" CPU 1 %.2f)" \
				"$(cell "$key" RSS 1024 %.1f)" \
				"${SIZE[$key]:--}${FAILED[$key]:+ (${FAILED[$key]})}"
		done
		for tool in "${MINE[@]}"; do
			for ref in "${REFS[@]}"; do
				a="$target|$j|$tool" b="$target|$j|$ref"
				if [ "$ref" = pahole132 ] && [ $HAVE132 = 0 ]; then
					printf '%-2s %-5s %-21s %s\n' "" "-j$j" "ratio $tool/${SHORT[$ref]}" "($NOT_THERE)"
					continue
				fi
				printf "$fmt" "" "-j$j" "ratio $tool/${SHORT[$ref]}" \
					"$(ratio "$a" "$b" WALL)" "" "$(ratio "$a" "$b" CPU)" \
					"$(ratio "$a" "$b" RSS)" ""
			done
		done
	done
	echo
done

# ---- modules: each module's medians, then the set's ----

# modules_report: read samples.tsv's module lines; print the summary (and
# a row per module with MOD_ROWS=1), write modules.tsv
modules_report()
{
	local names=() t
	for t in "${TOOLS[@]}"; do
		names+=("${TOOL_NAME[$t]}")
	done
	awk -F '\t' -v tools="${TOOLS[*]}" -v running="${RUN_TOOLS[*]}" -v mine="${MINE[*]}" \
	    -v refs="${REFS[*]}" -v names="$(IFS='|'; echo "${names[*]}")" \
	    -v short="$(for t in "${TOOLS[@]}"; do printf '%s|' "${SHORT[$t]}"; done)" \
	    -v rows="$MOD_ROWS" -v order="$(printf '%s|' "${MODULES[@]}")" \
	    -v tsv="$WORK/modules.tsv" -v absent="not there" \
	    -v outlabel="$([ "$MOD_WRITE" = inplace ] && echo .ko || echo BTF) bytes, all modules" '
	function med(a, n,    i, j, x) {	# median of a[1..n], sorting a
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function rat(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
	BEGIN {
		nt = split(tools, T, " "); split(names, N, "|"); split(short, S, "|")
		for (i = 1; i <= nt; i++) {
			name[T[i]] = N[i]; sh[T[i]] = S[i]
			w[T[i]] = length(N[i]) < 10 ? 12 : length(N[i]) + 2
		}
		nr = split(running, R, " "); for (i = 1; i <= nr; i++) runs[R[i]] = 1
		nm = split(mine, M, " "); nf = split(refs, F, " ")
		nmod = split(order, MOD, "|") - 1
	}
	{
		split($1, key, "|")
		if (key[1] != "modules") next
		m = key[2]; t = key[3]
		if ($2 == "FAILED") { failed[m, t] = 1; next }
		n = ++cnt[m, t]
		cpu[m, t, n] = $3; wall[m, t, n] = $2; rss[m, t, n] = $4
		if (n == 1) size[m, t] = $5
	}
	END {
		# the medians of each module that every tool converted
		good = 0
		for (i = 1; i <= nmod; i++) {
			m = MOD[i]; ok = 1
			for (j = 1; j <= nr; j++)
				if (failed[m, R[j]] || !cnt[m, R[j]]) { ok = 0; if (!nfail[R[j]]++) first[R[j]] = m }
			if (!ok) continue
			G[++good] = m
			for (t in runs) {
				n = cnt[m, t]
				for (j = 1; j <= n; j++) { a[j] = cpu[m, t, j] }; mc[m, t] = med(a, n)
				for (j = 1; j <= n; j++) { a[j] = wall[m, t, j] }; mw[m, t] = med(a, n)
				for (j = 1; j <= n; j++) { a[j] = rss[m, t, j] }; mr[m, t] = med(a, n)
			}
		}
		printf "  %d of %d modules converted by every tool\n", good, nmod
		for (j = 1; j <= nr; j++)
			if (nfail[t = R[j]]) printf "  %s failed on %d modules (first: %s)\n", name[t], nfail[t], first[t]
		if (!good) exit
		# the set, per tool
		for (t in runs) {
			for (i = 1; i <= good; i++) { a[i] = mc[G[i], t]; tc[t] += a[i]; tw[t] += mw[G[i], t]
			                            ts[t] += size[G[i], t] }
			mcpu[t] = med(a, good)
			for (i = 1; i <= good; i++) { a[i] = mr[G[i], t]; if (a[i] > xr[t]) xr[t] = a[i] }
			mrss[t] = med(a, good)
		}
		hdr = sprintf("  %-38s", "")
		for (i = 1; i <= nt; i++) hdr = hdr sprintf(" %*s", w[T[i]], name[T[i]])
		for (i = 1; i <= nm; i++) for (j = 1; j <= nf; j++)
			hdr = hdr sprintf(" %17s", sh[M[i]] "/" sh[F[j]])
		print hdr
		line("CPU s, median module", mcpu, "%.3f", 1)
		line("CPU s, all modules", tc, "%.3f", 1)
		line("wall s, all modules", tw, "%.3f", 1)
		line("peak RSS MiB, median module", mrss, "%.1f", 1024)
		line("peak RSS MiB, largest", xr, "%.1f", 1024)
		line(outlabel, ts, "%d", 1)
		# the median of the per-module CPU ratios
		s = sprintf("  %-38s", "CPU ratio per module, median (min-max)")
		for (i = 1; i <= nt; i++) s = s sprintf(" %*s", w[T[i]], "")
		for (i = 1; i <= nm; i++) for (j = 1; j <= nf; j++) {
			x = M[i]; y = F[j]; n = 0
			if (x in runs && y in runs)
				for (k = 1; k <= good; k++)
					if (mc[G[k], y] > 0) a[++n] = mc[G[k], x] / mc[G[k], y]
			if (!n) { s = s sprintf(" %17s", y in runs ? "-" : absent); continue }
			lo = hi = a[1]; for (k = 2; k <= n; k++) { if (a[k] < lo) lo = a[k]; if (a[k] > hi) hi = a[k] }
			s = s sprintf(" %17s", sprintf("%.2f (%.2f-%.2f)", med(a, n), lo, hi))
		}
		print s
		modules_tsv()
		if (rows == 1) module_rows()
	}
	# line LABEL VALUES FORMAT SCALE: one tool per column, then the ratios
	function line(label, v, f, scale,    s, i, j) {
		s = sprintf("  %-38s", label)
		for (i = 1; i <= nt; i++)
			s = s sprintf(" %*s", w[T[i]], T[i] in runs ? sprintf(f, v[T[i]] / scale) : absent)
		for (i = 1; i <= nm; i++) for (j = 1; j <= nf; j++)
			s = s sprintf(" %17s", M[i] in runs && F[j] in runs ? rat(v[M[i]], v[F[j]]) : \
			              F[j] in runs ? "-" : absent)
		print s
	}
	function modules_tsv(    s, i, k, t) {
		s = "module"
		for (i = 1; i <= nt; i++) if (T[i] in runs)
			s = s sprintf("\tcpu_s %s\twall_s %s\trss_kib %s\tbytes %s", sh[T[i]], sh[T[i]], sh[T[i]], sh[T[i]])
		print s >tsv
		for (k = 1; k <= good; k++) {
			s = G[k]
			for (i = 1; i <= nt; i++) if ((t = T[i]) in runs)
				s = s sprintf("\t%.3f\t%.3f\t%d\t%d", mc[G[k], t], mw[G[k], t], mr[G[k], t], size[G[k], t])
			print s >tsv
		}
		close(tsv)
	}
	function module_rows(    s, i, j, k, m, wm) {
		wm = 40
		for (k = 1; k <= good; k++) if (length(G[k]) > wm) wm = length(G[k])
		s = sprintf("  %-*s", wm, "module: CPU s (median)")
		for (i = 1; i <= nt; i++) if (T[i] in runs) s = s sprintf(" %8s", sh[T[i]])
		for (i = 1; i <= nm; i++) for (j = 1; j <= nf; j++) if (F[j] in runs)
			s = s sprintf(" %10s", sh[M[i]] "/" sh[F[j]])
		s = s "   peak RSS MiB:"
		for (i = 1; i <= nt; i++) if (T[i] in runs) s = s sprintf(" %8s", sh[T[i]])
		print ""; print s
		for (k = 1; k <= good; k++) {
			m = G[k]; s = sprintf("  %-*s", wm, m)
			for (i = 1; i <= nt; i++) if (T[i] in runs) s = s sprintf(" %8.3f", mc[m, T[i]])
			for (i = 1; i <= nm; i++) for (j = 1; j <= nf; j++) if (F[j] in runs)
				s = s sprintf(" %10s", rat(mc[m, M[i]], mc[m, F[j]]))
			s = s sprintf("   %14s", "")
			for (i = 1; i <= nt; i++) if (T[i] in runs) s = s sprintf(" %8.1f", mr[m, T[i]] / 1024)
			print s
		}
	}' "$SAMPLES"
}

if wants modules; then
	case $MOD_BASE in
	vmlinux) b=vmlinux ;;
	own) b="the tool's own vmlinux BTF" ;;
	*) b="$MOD_BASE/TOOL.btf" ;;
	esac
	echo "modules (${#MODULES[@]} of $MOD_TOTAL), each over $b at -j$MOD_JOBS, output $MOD_WRITE;" \
		"per module the median of $RUNS runs; CPU is user+sys"
	modules_report
	echo
fi

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
[ ${#JTARGETS[@]} -gt 0 ] && echo "serial part: dwarf2btf -jN --stats (default mode), phases this thread runs alone (medians)"
for target in "${JTARGETS[@]}"; do
	base=
	[ "$target" = vmlinux ] || base=$VMLINUX
	for j in "${SERIAL_JOBS[@]}"; do
		cmdline default "$(target_file "$target")" "$base" "$j" "$WORK/serial-$target.btf"
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
[ ${#JTARGETS[@]} -eq 0 ] || echo

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

if [ ${#JTARGETS[@]} -gt 0 ]; then
	echo "deterministic across $(printf -- '-j%s ' "${JOBS[@]}")(byte-identical output):"
	for target in "${JTARGETS[@]}"; do
		for tool in "${TOOLS[@]}"; do
			verdict=$NOT_THERE
			[ "$tool" = pahole132 ] && [ $HAVE132 = 0 ] || verdict=$(deterministic "$tool" "$target")
			printf '  %-8s %-21s deterministic: %s\n' "$target" "${TOOL_NAME[$tool]}" "$verdict"
		done
	done
	echo
fi

# ---- modules: ours the same in two runs, and read back ----

mod_rc=0
if wants modules; then
	RB=VMLINUX
	[ "$MOD_BASE" = vmlinux ] || RB=ITS_BASE
	differ=()
	for m in "${!MODULES[@]}"; do
		first=${OUR_SUM[$m|1]:-}
		[ -n "$first" ] || continue
		for ((r = 2; r <= RUNS; r++)); do
			[ "${OUR_SUM[$m|$r]:-$first}" = "$first" ] || differ+=("${MODULES[m]}")
		done
		[ "$RUNS" -gt 1 ] || [ "${OUR_SUM[$m|0]:-$first}" = "$first" ] || differ+=("${MODULES[m]}")
	done
	two="its $RUNS runs"
	[ "$RUNS" -gt 1 ] || two="two runs (one not timed)"
	checked=0
	for m in "${!MODULES[@]}"; do
		[ -z "${OUR_SUM[$m|1]:-}" ] || checked=$((checked + 1))
	done
	echo "modules, dwarf2btf-pahole ($checked converted):"
	if [ ${#differ[@]} -eq 0 ]; then
		echo "  byte-identical in $two: yes"
	else
		echo "  byte-identical in $two: no, ${#differ[@]} differ (first: ${differ[0]})"
		mod_rc=1
	fi
	if [ ${#mod_bad[@]} -eq 0 ]; then
		echo "  reads back (dwarf2btf --base $RB --dump): yes"
	else
		echo "  reads back (dwarf2btf --base $RB --dump): no, ${#mod_bad[@]} problems:"
		printf '    %s\n' "${mod_bad[@]:0:5}"
		mod_rc=1
	fi
	echo
fi

# ---- ours vs each pahole, by meaning ----

compare_rc=0
for target in "${JTARGETS[@]}"; do
	j=${JOBS[0]}
	o=$(out_of ours "$target" "$j")
	base=() how=
	[ "$target" = vmlinux ] || base=(--base "$VMLINUX") how=" --base VMLINUX"
	for ref in "${REFS[@]}"; do
		p=$(out_of "$ref" "$target" "$j")
		echo "by meaning, $target -j$j, ours and ${TOOL_NAME[$ref]}: dwarf2btf$how --compare PAHOLE_OUT OURS_OUT (A: ours, the file argument; B: pahole, --compare's)"
		[ "$ref" = pahole ] &&
			echo "  (ours follows pahole 1.32's policy: its FUNCs and nested arrays differ from 1.31's by design)"
		if [ "$ref" = pahole132 ] && [ $HAVE132 = 0 ]; then
			echo "  ($NOT_THERE)"
			echo
			continue
		fi
		if [ "$target" != vmlinux ] && [ "$MOD_BASE" != vmlinux ]; then
			echo "  (skipped: each is split over its own tool's base; BENCH_MODULE_BASE=vmlinux compares them)"
			echo
			continue
		fi
		if [ ! -s "$p" ] || [ ! -s "$o" ]; then
			echo "  (skipped: an output is missing)"
			echo
			continue
		fi
		cmp_out=$WORK/compare-$target-$ref.txt
		"$D2B" "${base[@]}" --compare "$p" "$o" >"$cmp_out" 2>&1
		rc=$?
		case $rc in
		0 | 3)
			# the first few differences, then the per-kind summary
			awk '/^kind / { exit } { n++; if (n <= 5) print }
			     END { if (n > 5) print "... and " (n - 5) " more lines" }' \
				"$cmp_out" | sed 's/^/  /'
			sed -n '/^kind /,$p' "$cmp_out" | sed 's/^/  /'
			;;
		*)
			echo "  --compare failed (exit $rc):"
			tail -n 5 "$cmp_out" | sed 's/^/    | /'
			compare_rc=1
			;;
		esac
		echo
	done
done
if [ "${BENCH_KEEP:-0}" = 1 ] || [ -n "${BENCH_WORK:-}" ]; then
	echo "outputs, logs and every difference: $WORK"
fi

echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) at end"
stamped=vmlinux
wants xfs.ko && stamped+=" xfs.ko"
wants modules && stamped+=" and ${#MODULES[@]} modules"
echo "corpus unchanged (size and mtime of $stamped): $corpus_ok"

[ $failures -eq 0 ] && [ $compare_rc -eq 0 ] && [ $mod_rc -eq 0 ] && [ $corpus_ok = yes ] || exit 1
exit 0
