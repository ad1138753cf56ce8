#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Real kernels: build tiny x86-64 kernels with BTF using a given PAHOLE
# (our pahole-compatible front end by default), boot them in qemu, load
# modules and check that the kernel accepts their BTF.
#
#	tests/kernel/run.sh BUILD_DIR
#
# Heavy, so opt-in: without D2B_KERNEL_TESTS=1 it prints one SKIP line.
# On 2 cores the default matrix takes 3-5 minutes the first time (unpack
# and a full build), then 15-20 s (relink with PAHOLE, boot); tests/run.sh
# gives a group 600 s (D2B_TEST_TIMEOUT), enough for the default only.
# Each entry of the matrix is one group of cases:
#   VER-COMPILER (6.12-gcc, 6.1-gcc, 6.12-clang):  build-kernel.sh builds
#	linux-source-VER with tinyconfig + BTF + two modules (crc7 and
#	crc_itu_t) + what tests/clients' BPF programs need (lib.sh:
#	CLIENT_OPTIONS; that group runs them on the same builds), PAHOLE
#	generating vmlinux's and the modules' BTF; then
#	  config	    DEBUG_INFO_BTF(_MODULES) and the rest survived Kconfig
#	  build		    make bzImage modules succeeded
#	  vmlinux-section   vmlinux has .BTF and bpftool can dump it
#	  vmlinux-le-libbpf BUILD_DIR/dwarf2btf's dedup of vmlinux keeps, per
#			    kind, no more types than libbpf's of its
#			    --no-dedup output (SKIP without libbpf_dedup)
#	  ko-section/MOD    MOD.ko has .BTF and bpftool dumps it on vmlinux's
#	  boot		    boot.sh: the guest ran init.sh to its end
#	  vmlinux-btf	    /sys/kernel/btf/vmlinux exists (init.sh) ...
#	  vmlinux-btf-same  ... with the bytes of the built vmlinux's .BTF
#	  insmod-MOD, module-btf-MOD, rmmod-MOD: see init.sh
#	  dmesg		    no BTF error (nor WARNING, BUG, ...) in the
#			    guest's kernel log; loading a module makes the
#			    kernel check vmlinux's BTF, then the module's
#	  module-btf-same/MOD  /sys/kernel/btf/MOD has the .ko's .BTF bytes
#   VER-extmod: the out-of-tree module extmod/ built against kernel A
#	(VER-gcc) with --btf_features=distilled_base (needs PAHOLE >= 1.28
#	and Linux >= 6.11, else SKIP) must have .BTF and .BTF.base
#	(sections); kernel B (variant "ipc": SYSVIPC on) must number some
#	of the kernel types it uses differently (ids-differ); the module
#	must load into B and, once B relocated its BTF, struct
#	d2b_hello_item's members must point at B's struct list_head, struct
#	module and struct task_struct (relocated-types).
#   7.x (gen-btf.sh, resolve_btfids; CONFIG_WERROR; the modules are two
#	lib/ tests, lib.sh): VER-gcc and the entries below also check
#	  resolve_btfids-quiet  no resolve_btfids warning in the build log
#			    (a kfunc without FUNC, a name with several IDs)
#	  kfunc-tags	    vmlinux's BTF has bpf_kfunc DECL_TAGs (the
#			    kfunc sets' functions, tagged by resolve_btfids)
#	  vmlinux-layout    when PAHOLE offers layout (7.3 asks pahole >=
#			    1.31 for it): vmlinux's .BTF has a layout
#			    section, so booting proves the kernel takes it
#	  ko-no-layout/MOD  the modules' split BTF has none
#	and "Failed to register" (kfunc sets) counts as a dmesg error.
#   VER-gcc16, VER-clang22, VER-clang23: VER-gcc built with today's
#	compilers, GCC 16 (CC=gcc-16) or clang NN and its tools (LLVM=-NN;
#	any clangNN the chroot has), in the Debian sid
#	chroot of .ci/sid-build.sh (D2B_SID, default ~/.cache/sid; made by
#	../shared/tools/debian-next.sh chroot): make runs there with the
#	kernel cache and PAHOLE bound at their paths (lib.sh: in_root; run
#	as root).  SKIP when the chroot or its compiler is missing; CI does
#	not list them.  The checks of VER-gcc, and
#	  vmlinux-as-pahole132  vmlinux's BTF by PAHOLE -J equals by
#			    meaning (dwarf2btf --compare) pahole 1.32's,
#			    both with the flags the tree's Makefile.btf
#			    gives (PAHOLE_FLAGS), both run in the chroot;
#			    the reference is the chroot's pahole.  Its
#			    choices are counted in a note, not failed:
#			    see allowed_diffs
#	  ko-as-pahole132/MOD   the same for each module, over the built
#			    vmlinux (--btf_base)
#	Any VER-COMPILER entry has these two with D2B_KERNEL_PAHOLE132.
#   VER-repro: VER-gcc relinked with KBUILD_BUILD_TIMESTAMP set (in the
#	same O directory: build-kernel.sh's D2B_KERNEL_TIMESTAMP), the path
#	where 7.x passes -j$(JOBS) --btf_features=+reproducible_build:
#	pahole-flags (the build log shows it), the checks above, boot.
#   VER-split: VER-gcc built again with CONFIG_DEBUG_INFO_SPLIT (its BTF
#	made by PAHOLE from skeleton units and .dwo files; Kconfig's
#	dependency lifted in a copy of the tree): sections, boot and modules
#	as above, and vmlinux's named types equal by meaning to VER-gcc's
#	(gcc generates slightly different code with -gsplit-dwarf: which
#	functions have FUNC may differ; see same_named_types).
#   VER-dwz: VER-gcc's vmlinux through dwz; PAHOLE -J gives it BTF equal
#	by meaning to the plain vmlinux's.
#
# Environment:
#	D2B_KERNEL_TESTS=1	run at all
#	D2B_KERNEL_PAHOLE	the pahole to test (default:
#				BUILD_DIR/dwarf2btf-pahole; SKIP until it exists)
#	D2B_KERNEL_MATRIX	entries, space or comma separated (default
#				"6.12-gcc"; also 6.1-gcc, 6.12-clang, 6.12-extmod,
#				6.12-split, 6.12-dwz, 7.3-gcc, 7.3-extmod,
#				7.3-repro, and with the sid chroot 7.3-gcc16,
#				7.3-clang22, 7.3-clang23; 7.3 needs
#				fetch-source.sh 7.3)
#	D2B_SID			the sid chroot (lib.sh: compiler_root)
#	D2B_KERNEL_PAHOLE132	a pahole 1.32 on this system to compare with
#				(as-pahole132; default for gcc16 and clangNN:
#				the chroot's)
#	D2B_KERNEL_KEEP=1	keep the work directory (serial logs)
#	D2B_KERNEL_CACHE, D2B_KERNEL_JOBS (lib.sh),
#	D2B_KERNEL_MAKEFLAGS (build-kernel.sh), D2B_KERNEL_ACCEL,
#	D2B_KERNEL_BOOT_TIMEOUT, D2B_KERNEL_QEMU, D2B_KERNEL_BUSYBOX (boot.sh)
# Sources unpack to, and builds live in, ~/.cache/dwarf2btf-kernel (out/
# holds one O= directory per version/compiler/variant/PAHOLE path and
# version, about 400 MB each); a later run relinks vmlinux and the
# modules, which reruns PAHOLE even if only its binary changed.

set -uo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
export D2B_BUILD=$BUILD
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

if [ "${D2B_KERNEL_TESTS:-}" != 1 ]; then
	skip kernel "opt-in: set D2B_KERNEL_TESTS=1 to build and boot tiny kernels (the first build takes 3-5 minutes on 2 cores, later runs about 20 s)"
	exit 0
fi

if [ -n "${D2B_KERNEL_PAHOLE:-}" ]; then
	PAHOLE=$(command -v "$D2B_KERNEL_PAHOLE" || true)
	if [ -z "$PAHOLE" ] || [ ! -x "$PAHOLE" ]; then
		fail kernel/pahole "D2B_KERNEL_PAHOLE=$D2B_KERNEL_PAHOLE is not an executable"
		exit 1
	fi
	PAHOLE=$(abs_path "$PAHOLE")
else
	PAHOLE=$BUILD/dwarf2btf-pahole
	if [ ! -x "$PAHOLE" ]; then
		skip kernel "$PAHOLE not built (the pahole-compatible front end); set D2B_KERNEL_PAHOLE=/usr/bin/pahole to test another pahole"
		exit 0
	fi
fi
PVER=$(pahole_version "$PAHOLE")
note "PAHOLE $PAHOLE ($("$PAHOLE" --version 2>&1 | head -n1), version $PVER)"

# what a kernel build needs
missing=
for t in make gcc flex bison bc perl readelf objcopy cpio gzip flock \
	qemu-system-x86_64; do
	command -v "$t" >/dev/null 2>&1 || missing+=" $t"
done
[ -f /usr/include/gelf.h ] || missing+=" libelf-dev"
file -L "${D2B_KERNEL_BUSYBOX:-/bin/busybox}" 2>/dev/null | grep 'statically linked' >/dev/null ||
	missing+=" busybox-static"
if [ -n "$missing" ]; then
	skip kernel "missing tools:$missing"
	exit 0
fi
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
[ -x "$BPFTOOL" ] || { BPFTOOL=; note "no bpftool: the bpftool checks skip"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-kernel.XXXXXX")
if [ -n "${D2B_KERNEL_KEEP:-}" ]; then
	note "work directory: $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi

# ---- helpers --------------------------------------------------------------

# (grep without -q reads all: with pipefail, readelf must not get SIGPIPE)
has_section() { readelf -S -W "$1" 2>/dev/null | grep -F " $2 " >/dev/null; }

# section_bytes ELF SECTION OUT: a section's bytes (also when not
# SHF_ALLOC, as .BTF in modules)
section_bytes()
{
	rm -f "$3"
	objcopy --dump-section "$2=$3" "$1" "$WORK/objcopy.out" 2>/dev/null && [ -s "$3" ]
}

# built[VER-COMPILER-VARIANT] = O directory, so one run builds each once
declare -A built=()

# build NAME VER COMPILER VARIANT: PASS/FAIL NAME/config and NAME/build;
# on success sets $O
build()
{
	local name=$1 key=$2-$3-$4 err=$WORK/build-$2-$3-$4.err rc=0 secs why
	O=${built[$key]:-}
	[ -n "$O" ] && return 0
	O=$("$HERE/build-kernel.sh" "$2" "$3" "$4" "$PAHOLE" 2>"$err" | tail -n1) || rc=$?
	why=$(grep '^build-kernel: ' "$err" | tail -n1 | sed 's/^build-kernel: //')
	grep '^#' "$err"
	case $rc in
	0)	secs=$(cat "$O/d2b-build-seconds" 2>/dev/null || echo '?')
		pass "$name/config"
		pass "$name/build"
		note "$name: built in ${secs}s in $O"
		built[$key]=$O
		return 0 ;;
	1)	pass "$name/config"
		fail "$name/build" "${why:-build-kernel.sh failed}" ;;
	2)	fail "$name/config" "${why:-build-kernel.sh failed}" ;;
	*)	fail "$name/setup" "${why:-build-kernel.sh exited $rc}" ;;
	esac
	return 1
}

# check_sections NAME O MODULES: .BTF in vmlinux and in each module
check_sections()
{
	local name=$1 o=$2 m mod ko
	if ! has_section "$o/vmlinux" .BTF; then
		fail "$name/vmlinux-section" "vmlinux has no .BTF section"
	elif [ -n "$BPFTOOL" ] && ! "$BPFTOOL" btf dump file "$o/vmlinux" >"$WORK/dump" 2>&1; then
		show_tail "$WORK/dump" 4
		fail "$name/vmlinux-section" "bpftool cannot dump vmlinux's BTF"
	else
		pass "$name/vmlinux-section"
	fi
	for m in $3; do
		mod=${m%%:*} ko=${m#*:}
		case $ko in /*) ;; *) ko=$o/$ko ;; esac
		if [ ! -f "$ko" ]; then
			fail "$name/ko-section/$mod" "$ko not built"
		elif ! has_section "$ko" .BTF; then
			fail "$name/ko-section/$mod" "$(basename "$ko") has no .BTF section"
		elif [ -n "$BPFTOOL" ] && ! "$BPFTOOL" btf dump file "$ko" \
				--base-btf "$o/vmlinux" >"$WORK/dump" 2>&1; then
			show_tail "$WORK/dump" 4
			fail "$name/ko-section/$mod" "bpftool cannot dump its BTF on vmlinux's"
		else
			pass "$name/ko-section/$mod"
		fi
	done
}

# le_libbpf NAME VMLINUX: our dedup against libbpf's on a whole kernel,
# dwarf2btf's defaults both ways (clang's tail-merged .debug_str once cost
# 9 % more types: lib/btf/btf.c, d2b_btf__add_str())
le_libbpf()
{
	local name=$1 lb=$BUILD/tests/libbpf_dedup worse
	if [ ! -x "$lb" ]; then
		skip "$name/vmlinux-le-libbpf" "no $lb (libbpf-dev)"
		return
	fi
	# the units' types before any dedup: with the tracing options of
	# tests/clients (networking) more than one BTF can number (E2BIG)
	if ! "$BUILD/dwarf2btf" --no-dedup -o "$WORK/raw.btf" "$2" 2>"$WORK/err" &&
	   grep -q 'more types than one BTF can number' "$WORK/err"; then
		skip "$name/vmlinux-le-libbpf" "vmlinux's units hold more types than one BTF can number before dedup (--no-dedup: E2BIG): no input for libbpf's dedup"
		return
	fi
	if [ ! -s "$WORK/raw.btf" ] ||
	   ! "$BUILD/dwarf2btf" -o "$WORK/ours.btf" "$2" 2>>"$WORK/err" ||
	   ! "$lb" "$WORK/raw.btf" >"$WORK/lb" 2>>"$WORK/err" ||
	   ! "$lb" --no-dedup "$WORK/ours.btf" >"$WORK/ours" 2>>"$WORK/err"; then
		show_tail "$WORK/err" 4
		fail "$name/vmlinux-le-libbpf" "dwarf2btf or libbpf_dedup failed"
		return
	fi
	worse=$(awk 'NR == FNR { lb[$1] = $2; next }
		     $1 != "total" && $2 > lb[$1] + 0 { printf " %s %d > %d", $1, $2, lb[$1] + 0 }' \
		"$WORK/lb" "$WORK/ours")
	if [ -z "$worse" ]; then
		pass "$name/vmlinux-le-libbpf ($(awk '$1 == "total" { print $2 }' "$WORK/ours") types, libbpf $(awk '$1 == "total" { print $2 }' "$WORK/lb"))"
	else
		fail "$name/vmlinux-le-libbpf" "more types than libbpf's dedup:$worse"
	fi
}

# guest_result NAME KEY LOG: the guest's D2B-CHECK line for KEY
guest_result()
{
	local line
	line=$(grep -m1 "^D2B-CHECK $2 " "$3")
	case $line in
	"D2B-CHECK $2 ok"*)   pass "$1/$2" ;;
	"D2B-CHECK $2 fail"*) fail "$1/$2" "${line#"D2B-CHECK $2 fail "}" ;;
	*)		      fail "$1/$2" "no result in the serial log" ;;
	esac
}

# guest_btf LOG MOD OUT: the module BTF the guest printed in base64
guest_btf()
{
	awk -v m="$2" '$0 == "D2B-BTF-END" { on = 0 } on { print } $0 == "D2B-BTF-BEGIN " m { on = 1 }' \
		"$1" | base64 -d >"$3" 2>/dev/null && [ -s "$3" ]
}

# Kernel log lines that mean BTF (or the kernel) went wrong
DMESG_ERRORS='BPF: |BTF: |btf: |failed to validate module|failed to register module|Failed to register|missing (vmlinux|module) BTF|BTF mismatch|Invalid|invalid|WARNING:|BUG:|Oops|Kernel panic'

# boot_and_check NAME O MODULES: boot O's kernel with the modules
# (MOD:PATH, PATH relative to O or absolute); LOG is left in $LOG
boot_and_check()
{
	local name=$1 o=$2 m mod ko kos=() mods=() start secs bad
	for m in $3; do
		mod=${m%%:*} ko=${m#*:}
		case $ko in /*) ;; *) ko=$o/$ko ;; esac
		mods+=("$mod"); kos+=("$ko")
	done
	LOG=$WORK/serial-${name//\//-}.log
	start=$(date +%s)
	if ! "$HERE/boot.sh" "$o" "$LOG" "${kos[@]}" 2>"$WORK/boot.err"; then
		show_tail "$WORK/boot.err" 3
		show_tail "$LOG" 15
		fail "$name/boot" "the guest did not reach the end of init.sh (hang, panic or setup problem)"
		return 1
	fi
	secs=$(($(date +%s) - start))
	pass "$name/boot"
	note "$name: booted and checked in ${secs}s ($(cat "$LOG.accel" 2>/dev/null))"

	guest_result "$name" vmlinux-btf "$LOG"
	if section_bytes "$o/vmlinux" .BTF "$WORK/vmlinux.btf"; then
		local want got
		want=$(md5sum <"$WORK/vmlinux.btf" | cut -d' ' -f1)
		got=$(sed -n 's/^D2B-CHECK vmlinux-btf ok md5=//p' "$LOG")
		if [ "$want" = "$got" ]; then
			pass "$name/vmlinux-btf-same"
		else
			fail "$name/vmlinux-btf-same" "guest's /sys/kernel/btf/vmlinux (md5 $got) is not the built vmlinux's .BTF (md5 $want)"
		fi
	fi
	for mod in "${mods[@]}"; do
		guest_result "$name" "insmod-$mod" "$LOG"
		if grep -q "^D2B-CHECK insmod-$mod ok" "$LOG"; then
			guest_result "$name" "module-btf-$mod" "$LOG"
		else
			skip "$name/module-btf-$mod" "insmod-$mod failed"
		fi
	done
	for mod in "${mods[@]}"; do
		if grep -q "^D2B-CHECK insmod-$mod ok" "$LOG"; then
			guest_result "$name" "rmmod-$mod" "$LOG"
		else
			skip "$name/rmmod-$mod" "insmod-$mod failed"
		fi
	done

	bad=$(sed -n 's/^D2B-DMESG //p' "$LOG" | grep -E "$DMESG_ERRORS" | uniq)
	if [ -n "$bad" ]; then
		echo "$bad" | head -n 8 | sed 's/^/#   | /'
		fail "$name/dmesg" "BTF or kernel errors in the guest's kernel log"
	elif ! grep -q '^D2B-DMESG ' "$LOG"; then
		fail "$name/dmesg" "the guest printed no kernel log"
	else
		pass "$name/dmesg"
	fi
	return 0
}

# ---- VER-COMPILER: a kernel and its modules --------------------------------

kernel_case()
{
	local ver=$1 cc=$2 name=kernel/$1-$2 m mod ko
	build "$name" "$ver" "$cc" base || return
	check_sections "$name" "$O" "$(kernel_modules "$ver")"
	btf7_checks "$name" "$ver" "$O"
	le_libbpf "$name" "$O/vmlinux"
	as_pahole132 "$name" "$ver" "$cc" "$O"
	boot_and_check "$name" "$O" "$(kernel_modules "$ver")" || return
	# the in-tree modules' BTF is not relocated: the guest has the .ko's bytes
	for m in $(kernel_modules "$ver"); do
		mod=${m%%:*} ko=$O/${m#*:}
		grep -q "^D2B-CHECK module-btf-$mod ok" "$LOG" || continue
		if ! guest_btf "$LOG" "$mod" "$WORK/guest.btf"; then
			fail "$name/module-btf-same/$mod" "no BTF bytes in the serial log"
		elif section_bytes "$ko" .BTF "$WORK/ko.btf" && cmp -s "$WORK/ko.btf" "$WORK/guest.btf"; then
			pass "$name/module-btf-same/$mod"
		else
			fail "$name/module-btf-same/$mod" "/sys/kernel/btf/$mod differs from $(basename "$ko")'s .BTF"
		fi
	done
}

# ---- pahole 1.32: the same BTF by meaning ----------------------------------

# pahole_btf ROOT BIND PAHOLE OUT ELF [BASE]: PAHOLE -J with the kernel's
# flags ($PFLAGS) in ROOT (in_root; BIND: the binary to bind there, or
# nothing for the root's own), ELF's BTF detached to OUT, split over BASE
pahole_btf()
{
	# shellcheck disable=SC2086	# PFLAGS is a list of words
	in_root "$1" "$2" "$3" -J $PFLAGS ${6:+--btf_base "$6"} --btf_encode_detached="$4" "$5" \
		>>"$WORK/p132.log" 2>&1 && [ -s "$4" ]
}

# Differences from pahole 1.32 that are its choices, not a meaning lost:
#   layout   REF_NO_LAYOUT=1: pahole 1.32 does not know
#	     --btf_features=layout (7.3 asks pahole >= 1.31 for it) and
#	     leaves the section out; PAHOLE writes it
#   repeats  a module's split BTF: pahole 1.32 repeats typedefs of the
#	     base and the types built on them (as tests/pahole's split
#	     case): a type only pahole 1.32's module has whose name (the
#	     form --compare gives it) a type of the base has; not a FUNC,
#	     VAR, DATASEC or DECL_TAG
#   oddint   base types of 3, 5, 6, 7 or 9-15 bytes (clang's DW_ATE_unsigned_24,
#	     _48, _56 of DWARF expressions, used by no C type): pahole 1.32
#	     writes INT __SANITIZED_FAKE_INT__ (4 bytes), we an ARRAY of as
#	     many unsigned char (README: What becomes what)
# allowed_diffs DIFFS BASE_NAMES: each line of DIFFS (dwarf2btf --compare's
# difference lines, A: pahole 1.32) as "KIND<TAB>LINE", KIND one of those
# above or "-"; BASE_NAMES: the base's types as "--compare BASE EMPTY"
# lists them ("TYPEDEF loff_t only in A", "PTR 'loff_t *': 1 in A, ..."),
# or /dev/null
allowed_diffs()
{
	awk -v nolayout="$REF_NO_LAYOUT" -v diffs="$1" '
	function key(l) {
		if (sub(/ only in A$/, "", l) || sub(/: [0-9]+ in A, 0 in B$/, "", l))
			return l
		return ""
	}
	FILENAME != diffs { k = key($0); if (k != "") base[k] = 1; next }
	nolayout == 1 && /^layout section only in B / { print "layout\t" $0; next }
	$0 == "INT __SANITIZED_FAKE_INT__ only in A" ||
	/^ARRAY .unsigned char\[([3567]|9|1[0-5])\].: 0 in A, [0-9]+ in B$/ { print "oddint\t" $0; next }
	{ k = key($0) }
	k != "" && k in base && k !~ /^(FUNC|VAR|DATASEC|DECL_TAG) / { print "repeats\t" $0; next }
	{ print "-\t" $0 }' "$2" "$1"
}

# same_as_ref NAME REF OURS [BASE]: dwarf2btf --compare (A: pahole 1.32,
# B: PAHOLE) finds no difference but allowed_diffs' (counted in a note);
# PASS with the number of types, or FAIL showing the differences and the
# counts per kind
same_as_ref()
{
	local out=$WORK/p132-compare.out names=/dev/null counts
	"$BUILD/dwarf2btf" ${4:+--base "$4"} "$2" --compare "$3" >"$out" 2>&1
	case $? in 0|3) ;; *) show_tail "$out" 4; fail "$1" "dwarf2btf --compare failed"; return ;; esac
	if [ -n "${4:-}" ]; then
		names=$WORK/base-names
		"$BUILD/dwarf2btf" "$4" --compare "$WORK/empty.btf" >"$names" 2>&1
	fi
	sed '/^kind /,$d' "$out" >"$WORK/p132-diffs"
	allowed_diffs "$WORK/p132-diffs" "$names" >"$WORK/p132-kinds"
	counts=$(cut -f1 "$WORK/p132-kinds" | grep -v '^-$' | sort | uniq -c | awk '{ printf " %s %d", $2, $1 }')
	[ -n "$counts" ] && note "$1: pahole 1.32's choices:$counts"
	if ! grep -q '^-	' "$WORK/p132-kinds" && grep -q '^kind ' "$out"; then
		pass "$1 ($(awk '$1 != "kind" && NF == 7 { n += $2 } END { print n + 0 }' "$out") types)"
	else
		sed -n 's/^-	//p' "$WORK/p132-kinds" | head -n 12 | sed 's/^/#   /'
		sed -n '/^kind /,$p' "$out" | grep -v ' 0        0        0$' | sed 's/^/#   /'
		fail "$1" "BTF differs by meaning from pahole 1.32's (A: pahole 1.32, B: PAHOLE)"
	fi
}

# as_pahole132 NAME VER COMPILER O: vmlinux's and the modules' BTF by
# PAHOLE and by pahole 1.32, each run as the build runs it (the flags of
# the tree's Makefile.btf, modules over the built vmlinux), are equal by
# meaning (dwarf2btf --compare).  pahole 1.32 is D2B_KERNEL_PAHOLE132, or
# for gcc16/clangNN the chroot's own pahole; without either, no cases.
as_pahole132()
{
	local name=$1 o=$4 root broot ref bind='' src d m mod ko
	broot=$(compiler_root "$3")
	if [ -n "${D2B_KERNEL_PAHOLE132:-}" ]; then
		root=/ ref=$D2B_KERNEL_PAHOLE132
	elif [ "$broot" != / ]; then
		root=$broot ref=/usr/bin/pahole
	else
		return 0
	fi
	if [ "$(in_root "$root" "" "$ref" --version 2>/dev/null)" != v1.32 ]; then
		skip "$name/as-pahole132" "$ref (root $root) is not pahole v1.32"
		return
	fi
	src=$(kernel_source "$2") || return
	[ "$broot" = / ] || bind=$PAHOLE
	if [ ! -f "$src/scripts/Makefile.btf" ] || ! PFLAGS=$(kernel_pahole_flags "$src" "$o"); then
		skip "$name/as-pahole132" "no PAHOLE_FLAGS from scripts/Makefile.btf (Linux < 6.9)"
		return
	fi
	note "$name: PAHOLE_FLAGS $PFLAGS"
	REF_NO_LAYOUT=0
	if ! in_root "$root" "" "$ref" --supported_btf_features 2>/dev/null | tr , '\n' |
			grep -qx layout; then
		REF_NO_LAYOUT=1
		note "$name: pahole 1.32 has no --btf_features=layout: the layout section is PAHOLE's only"
	fi
	d=$o/d2b-pahole132
	# BTF with no types (--compare BASE with it lists BASE's types)
	{ printf '\237\353\001\000\030\000\000\000\000\000\000\000'
	  printf '\000\000\000\000\000\000\000\000\001\000\000\000\000'; } >"$WORK/empty.btf"
	rm -rf "$d" && mkdir -p "$d" && : >"$WORK/p132.log"
	if ! pahole_btf "$broot" "$bind" "$PAHOLE" "$d/vmlinux.ours" "$o/vmlinux" ||
	   ! pahole_btf "$root" "" "$ref" "$d/vmlinux.ref" "$o/vmlinux"; then
		show_tail "$WORK/p132.log" 6
		fail "$name/vmlinux-as-pahole132" "PAHOLE or pahole 1.32 -J failed on vmlinux"
		return
	fi
	same_as_ref "$name/vmlinux-as-pahole132" "$d/vmlinux.ref" "$d/vmlinux.ours"
	for m in $(kernel_modules "$2"); do
		mod=${m%%:*} ko=$o/${m#*:}
		if ! pahole_btf "$broot" "$bind" "$PAHOLE" "$d/$mod.ours" "$ko" "$o/vmlinux" ||
		   ! pahole_btf "$root" "" "$ref" "$d/$mod.ref" "$ko" "$o/vmlinux"; then
			show_tail "$WORK/p132.log" 6
			fail "$name/ko-as-pahole132/$mod" "PAHOLE or pahole 1.32 -J failed on $(basename "$ko")"
			continue
		fi
		same_as_ref "$name/ko-as-pahole132/$mod" "$d/$mod.ref" "$d/$mod.ours" "$o/vmlinux"
	done
}

# ---- 7.x: gen-btf.sh, resolve_btfids, the layout section ------------------

# header_word FILE N: the Nth 32-bit word of a little-endian file
header_word() { od -An -tu4 -j $(($2 * 4)) -N4 "$1" | tr -d ' '; }

# PAHOLE offers layout, and 7.3's Makefile.btf asks for it (>= 1.31)
pahole_layout()
{
	[ "$PVER" -ge 131 ] && "$PAHOLE" --supported_btf_features 2>/dev/null | tr , '\n' | grep -qx layout
}

# btf7_checks NAME VER O: what Linux 7.x's BTF steps add (nothing for 6.x)
btf7_checks()
{
	local name=$1 o=$3 n m mod ko
	case $2 in 6.*) return ;; esac
	# a symbol no unit's DWARF names at all (not in .debug_str: the config
	# compiles nothing that defines it, as tcp_request_sock without INET)
	# is the kernel's, not PAHOLE's: noted, not failed
	readelf -p .debug_str "$o/vmlinux" 2>/dev/null >"$WORK/rb.str"
	rm -f "$WORK/rb.note"
	grep -aE 'WARN: (resolve_btfids|multiple IDs)|ERROR: resolve_btfids' "$o/d2b-build.log" |
		while read -r line; do
			sym=${line##*unresolved symbol }
			if [ "$sym" != "$line" ] && ! grep -qw -- "$sym" "$WORK/rb.str"; then
				echo "# $name: $line (no DWARF names $sym)" >>"$WORK/rb.note"
			else
				echo "$line"
			fi
		done >"$WORK/rb.warn"
	[ ! -s "$WORK/rb.note" ] || cat "$WORK/rb.note"
	if [ -s "$WORK/rb.warn" ]; then
		show_tail "$WORK/rb.warn" 6
		fail "$name/resolve_btfids-quiet" "resolve_btfids warned about PAHOLE's BTF"
	else
		pass "$name/resolve_btfids-quiet"
	fi
	if [ -n "$BPFTOOL" ]; then
		n=$("$BPFTOOL" btf dump file "$o/vmlinux" 2>/dev/null | grep -c "DECL_TAG 'bpf_kfunc'")
		if [ "$n" -gt 0 ]; then pass "$name/kfunc-tags ($n bpf_kfunc DECL_TAGs)"
		else fail "$name/kfunc-tags" "vmlinux's BTF has no bpf_kfunc DECL_TAG"; fi
	fi
	if ! pahole_layout; then
		skip "$name/vmlinux-layout" "PAHOLE (version $PVER) does not offer --btf_features=layout"
	elif section_bytes "$o/vmlinux" .BTF "$WORK/v.btf" && [ "$(header_word "$WORK/v.btf" 1)" = 32 ] &&
	     [ "$(header_word "$WORK/v.btf" 7)" -gt 0 ]; then
		pass "$name/vmlinux-layout ($(header_word "$WORK/v.btf" 7) bytes)"
	else
		fail "$name/vmlinux-layout" "vmlinux's .BTF has no layout section (7.3 asks for one)"
	fi
	for m in $(kernel_modules "$2"); do
		mod=${m%%:*} ko=$o/${m#*:}
		section_bytes "$ko" .BTF "$WORK/m.btf" || continue
		if [ "$(header_word "$WORK/m.btf" 1)" = 24 ]; then pass "$name/ko-no-layout/$mod"
		else fail "$name/ko-no-layout/$mod" "the module's split BTF has a $(header_word "$WORK/m.btf" 1)-byte header"; fi
	done
}

# VER-repro: VER-gcc relinked with KBUILD_BUILD_TIMESTAMP (7.x passes
# --btf_features=+reproducible_build then); the next build of VER-gcc
# relinks it without
repro_case()
{
	local ver=$1 name=kernel/$1-repro err=$WORK/repro.err
	build "kernel/$ver-gcc" "$ver" gcc base || return
	if ! O=$(D2B_KERNEL_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026" \
			"$HERE/build-kernel.sh" "$ver" gcc base "$PAHOLE" 2>"$err" | tail -n1); then
		show_tail "$err" 6
		fail "$name/build" "relinking with KBUILD_BUILD_TIMESTAMP failed"
		return
	fi
	pass "$name/build"
	if grep -aq -- '--btf_features=+reproducible_build' "$O/d2b-build.log"; then
		pass "$name/pahole-flags"
	else
		fail "$name/pahole-flags" "no --btf_features=+reproducible_build on PAHOLE's command line (V=1 log)"
	fi
	check_sections "$name" "$O" "$(kernel_modules "$ver")"
	btf7_checks "$name" "$ver" "$O"
	boot_and_check "$name" "$O" "$(kernel_modules "$ver")"
}

# ---- VER-extmod: distilled base BTF ----------------------------------------

# btf_id DUMP KIND NAME: the ID of the first type KIND 'NAME' in a raw dump
btf_id() { awk -v k="$2" -v n="'$3'" '$2 == k && $3 == n { sub(/^\[/, "", $1); sub(/\]$/, "", $1); print $1; exit }' "$1"; }

# member_type DUMP STRUCT MEMBER: "KIND 'NAME'" of a member's type, through
# pointers and modifiers ("PTR STRUCT 'module'"); DUMP is bpftool's raw
# dump of the base and the split BTF together
member_type()
{
	awk -v s="'$2'" -v m="'$3'" '
	/^\[/ {
		id = $1; gsub(/[][]/, "", id)
		kind[id] = $2; nm[id] = $3
		for (i = 4; i <= NF; i++)
			if ($i ~ /^type_id=/) { ref[id] = substr($i, 9) }
		cur = ($2 == "STRUCT" && $3 == s)
		next
	}
	cur && $1 == m && $2 ~ /^type_id=/ { want = substr($2, 9) }
	END {
		if (want == "") exit 1
		out = ""
		while (kind[want] ~ /^(PTR|CONST|VOLATILE|RESTRICT|TYPE_TAG)$/) {
			out = out kind[want] " "; want = ref[want]
		}
		print out kind[want] " " nm[want]
	}' "$1"
}

extmod_case()
{
	local ver=$1 name=kernel/$1-extmod src oa ob dir mod=d2b_hello t ok got id_a id_b moved
	if [ "$PVER" -lt 128 ]; then
		skip "$name" "PAHOLE version $PVER < 1.28: no --btf_features=distilled_base"
		return
	fi
	if [ -z "$BPFTOOL" ]; then
		skip "$name" "needs bpftool to check the relocated types"
		return
	fi
	src=$(kernel_source "$ver") || { fail "$name/setup" "cannot unpack linux-source-$ver"; return; }
	# (7.x: resolve_btfids --distill_base)
	if ! grep -qsE 'distilled_base|distill_base' "$src/scripts/Makefile.btf"; then
		skip "$name" "linux-source-$ver does not ask for distilled base BTF (Linux >= 6.11 does)"
		return
	fi
	build "kernel/$ver-gcc" "$ver" gcc base || return
	oa=$O

	# the module, built against kernel A
	dir=$WORK/extmod
	rm -rf "$dir"; cp -r "$HERE/extmod" "$dir"
	if ! make -C "$oa" M="$dir" ARCH=x86_64 CC=gcc PAHOLE="$PAHOLE" modules \
			>"$WORK/extmod.log" 2>&1; then
		show_tail "$WORK/extmod.log"
		fail "$name/build" "make M=extmod modules failed"
		return
	fi
	pass "$name/build"
	if ! has_section "$dir/$mod.ko" .BTF; then
		fail "$name/sections" "$mod.ko has no .BTF section"
		return
	elif ! has_section "$dir/$mod.ko" .BTF.base; then
		grep -i 'pahole\|btf' "$WORK/extmod.log" | head -n 4 | sed 's/^/#   /'
		fail "$name/sections" "$mod.ko has .BTF but no .BTF.base (distilled base)"
		return
	fi
	pass "$name/sections"

	# kernel B: vmlinux's type IDs must differ from A's, or this proves nothing
	build "kernel/$ver-gcc-ipc" "$ver" gcc ipc || return
	ob=$O
	"$BPFTOOL" btf dump file "$oa/vmlinux" >"$WORK/a.dump" 2>/dev/null
	"$BPFTOOL" btf dump file "$ob/vmlinux" >"$WORK/b.dump" 2>/dev/null
	moved=
	for t in list_head module task_struct; do
		id_a=$(btf_id "$WORK/a.dump" STRUCT "$t") id_b=$(btf_id "$WORK/b.dump" STRUCT "$t")
		note "struct $t: ID $id_a in kernel A, $id_b in kernel B"
		[ "$id_a" != "$id_b" ] && moved+=" $t"
	done
	if [ -z "$moved" ]; then
		fail "$name/ids-differ" "kernel B (SYSVIPC) numbers the module's kernel types as kernel A does"
		return
	fi
	pass "$name/ids-differ"

	boot_and_check "$name" "$ob" "$mod:$dir/$mod.ko" || return
	grep -q "^D2B-CHECK module-btf-$mod ok" "$LOG" || return
	if ! guest_btf "$LOG" "$mod" "$WORK/guest.btf"; then
		fail "$name/relocated-types" "no BTF bytes in the serial log"
		return
	fi
	section_bytes "$ob/vmlinux" .BTF "$WORK/b.btf"
	if ! "$BPFTOOL" btf dump file "$WORK/guest.btf" --base-btf "$WORK/b.btf" \
			>"$WORK/guest.dump" 2>&1; then
		show_tail "$WORK/guest.dump" 4
		fail "$name/relocated-types" "bpftool cannot dump the guest's /sys/kernel/btf/$mod on kernel B's vmlinux"
		return
	fi
	ok=1
	for t in "node:STRUCT 'list_head'" "owner:PTR STRUCT 'module'" \
		 "task:PTR STRUCT 'task_struct'"; do
		got=$(cat "$WORK/b.dump" "$WORK/guest.dump" |
			member_type /dev/stdin d2b_hello_item "${t%%:*}")
		if [ "$got" != "${t#*:}" ]; then
			note "member ${t%%:*}: want ${t#*:}, got '${got:-nothing}'"
			ok=0
		fi
	done
	if [ $ok -eq 1 ]; then
		pass "$name/relocated-types"
	else
		fail "$name/relocated-types" "struct d2b_hello_item's members do not point at kernel B's types"
	fi
}

# ---- VER-split, VER-dwz: DWARF pahole cannot read (issue 11) ---------------

# same_btf NAME A B: the .BTF of ELF files A and B are equal by meaning
same_btf()
{
	if "$BUILD/dwarf2btf" --compare "$2" "$3" >"$WORK/compare.out" 2>&1; then
		pass "$1"
	else
		grep -v ' 0        0        0$' "$WORK/compare.out" | head -n 12 | sed 's/^/#   /'
		fail "$1" "BTF differs by meaning"
	fi
}

# The kernel built with CONFIG_DEBUG_INFO_SPLIT (DEBUG_INFO_BTF's
# dependency on its absence lifted: variant_source): PAHOLE reads the
# skeletons and .dwo files; the kernel boots and takes the modules, and
# vmlinux's BTF equals the plain build's by meaning.
split_case()
{
	local ver=$1 name=kernel/$1-split base
	build "kernel/$ver-gcc" "$ver" gcc base || return
	base=$O
	build "$name" "$ver" gcc split || return
	if ! ls "$O"/init/*.dwo >/dev/null 2>&1; then
		fail "$name/dwo" "no .dwo files: the build is not split DWARF"
		return
	fi
	check_sections "$name" "$O" "$(kernel_modules "$ver")"
	same_named_types "$name/vmlinux-types-as-plain" "$base/vmlinux" "$O/vmlinux"
	boot_and_check "$name" "$O" "$(kernel_modules "$ver")"
}

# same_named_types NAME A B: every named type of A's and B's .BTF is the
# same by meaning (FUNC/VAR presence aside).  gcc does not generate quite
# the same code with -gsplit-dwarf (6.12 tinyconfig: a few functions
# partially inlined, or cloned, in one build and not the other: the ELF
# symbols differ), so which functions get FUNC, their FUNC_PROTOs and the
# order of a modifier chain met first in such code may differ: those
# anonymous differences are shown as notes.
same_named_types()
{
	"$BUILD/dwarf2btf" --ignore-policy --compare "$2" "$3" >"$WORK/compare.out" 2>&1
	sed '/^kind /,$d' "$WORK/compare.out" >"$WORK/diffs"
	grep -Ev "^[A-Z_0-9]+ '.*': [0-9]+ in A, [0-9]+ in B$" "$WORK/diffs" >"$WORK/named"
	if [ -s "$WORK/named" ]; then
		head -n 12 "$WORK/named" | sed 's/^/#   /'
		fail "$1" "named types differ by meaning"
	else
		[ -s "$WORK/diffs" ] && note "$1: anonymous types that differ: $(wc -l <"$WORK/diffs") (code generated differently)"
		pass "$1"
	fi
}

# The plain build's vmlinux through dwz: PAHOLE (the kernel's
# --btf_features) gives BTF equal by meaning to the plain vmlinux's.
dwz_case()
{
	local ver=$1 name=kernel/$1-dwz
	if ! command -v dwz >/dev/null; then
		skip "$name" "dwz not installed"
		return
	fi
	build "kernel/$ver-gcc" "$ver" gcc base || return
	cp "$O/vmlinux" "$WORK/vmlinux.dwz"
	if ! dwz "$WORK/vmlinux.dwz" 2>"$WORK/dwz.err"; then
		show_tail "$WORK/dwz.err"
		fail "$name/dwz" "dwz failed"
		return
	fi
	pass "$name/dwz"
	cp "$O/vmlinux" "$WORK/vmlinux.plain"
	for f in plain dwz; do
		if ! "$PAHOLE" -J "--btf_features=$DWZ_FEATURES" "$WORK/vmlinux.$f" \
				>"$WORK/dwz.out" 2>&1; then
			show_tail "$WORK/dwz.out"
			fail "$name/pahole" "PAHOLE -J failed on the $f vmlinux"
			return
		fi
	done
	same_btf "$name/btf-as-plain" "$WORK/vmlinux.plain" "$WORK/vmlinux.dwz"
}
DWZ_FEATURES=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs

# ---- the matrix -------------------------------------------------------------

for entry in $(echo "${D2B_KERNEL_MATRIX:-6.12-gcc}" | tr ',' ' '); do
	ver=${entry%%-*} what=${entry#*-}
	if [ ! -f "$(kernel_tarball "$ver")" ]; then
		skip "kernel/$entry" "no $(kernel_tarball "$ver") ($(kernel_source_hint "$ver"))"
		continue
	fi
	case $what in
	gcc|clang|clang-[0-9]*|gcc16|clang[0-9][0-9])
		cc=$(compiler_cc "$what") root=$(compiler_root "$what")
		if [ "$root" = / ] && ! command -v "$cc" >/dev/null; then
			skip "kernel/$entry" "$cc not installed"
			continue
		fi
		why=$(root_missing "$root" "$cc")
		if [ -n "$why" ]; then
			skip "kernel/$entry" "$why"
			continue
		fi
		kernel_case "$ver" "$what" ;;
	extmod) extmod_case "$ver" ;;
	repro)	repro_case "$ver" ;;
	split)	split_case "$ver" ;;
	dwz)	dwz_case "$ver" ;;
	*)	fail "kernel/$entry" "unknown D2B_KERNEL_MATRIX entry (VER-gcc, VER-clang, VER-clang-NN, VER-gcc16, VER-clangNN, VER-extmod, VER-repro, VER-split, VER-dwz)" ;;
	esac
done

test_done
