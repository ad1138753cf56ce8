#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# BPF programs on the tiny kernels of tests/kernel, against the BTF that
# PAHOLE (dwarf2btf-pahole) made for them: the programs that read BTF are
# the judges (README).
#
#	tests/clients/run.sh BUILD_DIR
#
# Opt-in with tests/kernel (D2B_KERNEL_TESTS=1), on its matrix: for each
# VER-COMPILER entry of D2B_KERNEL_MATRIX (the other entries are
# tests/kernel's own) it takes that group's kernel build (build-kernel.sh
# with D2B_KERNEL_REUSE=1: a current build is used as it is, else it is
# relinked or built), then
#   module	   builds mod/ (d2b_clients.ko, split BTF) against it
#   vmlinux-h	   bpftool dumps vmlinux.h from vmlinux's BTF, and one from
#		   the module's split BTF over its base
#   compile	   clang compiles clients.bpf.c and module.bpf.c (CO-RE)
#   boot	   boot.sh boots the kernel with init.sh, the module, the
#		   static loader and the objects: the guest reached its end
#   insmod	   the module loaded
#   CASE	   one per check of the loader (README: what each checks and
#		   against what)
#   dmesg	   no BPF, BTF or kernel error in the guest's log
# Names: clients/VER-COMPILER/...
#
# Environment (and tests/kernel's: D2B_KERNEL_MATRIX, D2B_KERNEL_PAHOLE,
# D2B_KERNEL_CACHE, D2B_KERNEL_JOBS, D2B_SID, boot.sh's):
#	D2B_CLIENTS_PAHOLE132=1	also relink each kernel with pahole 1.32's
#			BTF (the sid chroot's pahole, D2B_SID; a kernel its
#			compilers built is relinked there), run the same
#			programs (clients/VER-COMPILER/pahole132/CASE) and
#			compare the verdicts (.../pahole132/same-as-ours).
#			About a minute per kernel; CI sets it
#	D2B_CLIENTS_PAHOLE131=PATH	with the above, also relink with our
#			BTF under pahole 1.31's policy and with PATH (a pahole
#			1.31: ../shared/tools/build-pahole.sh), and compare the
#			two runs' verdicts (.../pahole131/same-as-ours); for
#			kernels of this system's compilers
#	D2B_CLIENTS_BREAK=MODE	relink with PAHOLE's BTF damaged on purpose
#			(btf_break.py: swap-params, move-member) instead:
#			the cases must FAIL
#	D2B_CLIENTS_CLANG	the BPF compiler (default clang-19, else
#			clang-14)
#	D2B_KERNEL_KEEP=1	keep the work directory (serial logs)
# A relink for pahole 1.32 or a damaged BTF leaves the kernel's O
# directory so that the next build-kernel.sh relinks it with PAHOLE.

set -uo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
export D2B_BUILD=$BUILD
HERE=$(cd "$(dirname "$0")" && pwd)
KERNEL=$(cd "$HERE/../kernel" && pwd)
. "$KERNEL/lib.sh"

CASES="fentry-args fentry-deref fexit-ret core-pid core-comm core-relocs fentry-open
	tp_btf-sched_switch kfunc-task ksym-percpu iter-task module-fentry-args
	module-core module-fexit-ret inline-sites"
MOD=d2b_clients

if [ "${D2B_KERNEL_TESTS:-}" != 1 ]; then
	skip clients "opt-in with the kernel tests: set D2B_KERNEL_TESTS=1 (tests/kernel/run.sh)"
	exit 0
fi
PAHOLE=$(abs_path "${D2B_KERNEL_PAHOLE:-$BUILD/dwarf2btf-pahole}")
if [ ! -x "$PAHOLE" ]; then
	skip clients "$PAHOLE not built (the pahole-compatible front end)"
	exit 0
fi
CLANG=${D2B_CLIENTS_CLANG:-}
[ -n "$CLANG" ] || CLANG=$(command -v clang-19 || command -v clang-14 || true)
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
missing=
for t in make gcc qemu-system-x86_64 objcopy "$BPFTOOL" "$CLANG" python3; do
	command -v "$t" >/dev/null 2>&1 || missing+=" ${t:-clang}"
done
for f in libbpf.a libelf.a libz.a; do
	[ -f "/usr/lib/x86_64-linux-gnu/$f" ] || missing+=" $f"
done
[ -f /usr/include/bpf/bpf_helpers.h ] || missing+=" libbpf-dev"
file -L "${D2B_KERNEL_BUSYBOX:-/bin/busybox}" 2>/dev/null | grep 'statically linked' >/dev/null ||
	missing+=" busybox-static"
if [ -n "$missing" ]; then
	skip clients "missing:$missing (tests/install-deps.sh kernel)"
	exit 0
fi
case ${D2B_CLIENTS_BREAK:-} in
''|swap-params|move-member) ;;
*) fail clients/setup "unknown D2B_CLIENTS_BREAK=$D2B_CLIENTS_BREAK (swap-params, move-member)"
   exit 1 ;;
esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-clients.XXXXXX")
if [ -n "${D2B_KERNEL_KEEP:-}" ]; then
	note "work directory: $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi

# the loader, once: static, so that it runs in the busybox initramfs
if ! cc -static -O2 -Wall -Wextra -Werror -I"$HERE" -o "$WORK/loader" "$HERE/loader.c" \
		"$HERE/inline_sites.c" -lbpf -lelf -lz >"$WORK/loader.log" 2>&1; then
	fail_tail clients/loader "cannot link the loader statically with libbpf" "$WORK/loader.log"
	exit 1
fi
pass clients/loader

# ---- helpers -----------------------------------------------------------------

# kmake ROOT O COMPILER PAHOLE ARGS...: make in O's tree with that PAHOLE
# (CHROOT_PAHOLE: the pahole of the chroot ROOT itself, not bound from here)
CHROOT_PAHOLE=/usr/bin/pahole
kmake()
{
	local root=$1 o=$2 cc=$3 pahole=$4 bind=$4
	shift 4
	[ "$root" != / ] && [ "$pahole" = "$CHROOT_PAHOLE" ] && bind=
	# shellcheck disable=SC2046	# the compiler's make arguments are words
	in_root "$root" "$bind" make -C "$o" ARCH=x86_64 $(compiler_make_args "$cc") \
		PAHOLE="$pahole" "$@"
}

# relink NAME VER COMPILER O: vmlinux and the modules linked again in O
# with pahole-wrap.sh as PAHOLE (D2B_CLIENTS_PAHOLE, D2B_CLIENTS_BREAK
# exported by the caller); build-kernel.sh relinks it next time
# btf_sum O: the sha256 of O/vmlinux's .BTF (a relink that did not run the
# new PAHOLE would leave it, and compare a BTF with itself)
btf_sum()
{
	local t
	t=$(mktemp) && objcopy --dump-section ".BTF=$t" "$1/vmlinux" /dev/null 2>/dev/null &&
		sha256sum < "$t" | cut -c1-64
	rm -f "$t"
}

# differs NAME O SUM: PASS when O's vmlinux BTF is no longer SUM's
differs()
{
	if [ "$(btf_sum "$2")" = "$3" ]; then
		fail "$1/btf-differs" "the relinked vmlinux has the same .BTF as before: PAHOLE did not run"
		return 1
	fi
	pass "$1/btf-differs"
}

# (ROOT and PAHOLE, when given: make runs in that chroot with that PAHOLE,
# the chroot's own pahole 1.32 for a kernel its compilers built)
relink()
{
	local o=$4 root=${5:-/} pahole=${6:-$HERE/pahole-wrap.sh} log=$WORK/relink.log
	rm -f "$o/d2b-build-seconds" "$o/vmlinux" "$o/vmlinux.unstripped" "$o"/.tmp_vmlinux*
	find "$o" -name '*.ko' -delete
	if ! kmake "$root" "$o" "$3" "$pahole" -j"$(kernel_jobs)" bzImage modules \
			>"$log" 2>&1; then
		fail_tail "$1/relink" "make bzImage modules with $(basename "$pahole") failed" "$log"
		return 1
	fi
	grep -a '^pahole-wrap.sh: ' "$log" | sed 's/^/# /'
	pass "$1/relink"
}

# module NAME ROOT O COMPILER PAHOLE: mod/ built against O; sets KO
module()
{
	local dir=$3/d2b-clients-mod log=$WORK/module.log
	rm -rf "$dir" && cp -r "$HERE/mod" "$dir"
	KO=$dir/$MOD.ko
	if ! kmake "$2" "$3" "$4" "$5" M="$dir" modules >"$log" 2>&1 || [ ! -f "$KO" ]; then
		fail_tail "$1/module" "make M=mod modules failed" "$log"
		return 1
	fi
	pass "$1/module"
}

# programs NAME O KO DIR: vmlinux.h of vmlinux and of the module, both
# objects compiled into DIR/files (with the loader)
programs()
{
	local name=$1 o=$2 ko=$3 dir=$4 base=$2/vmlinux
	mkdir -p "$dir/vmlinux" "$dir/module" "$dir/files"
	# an out-of-tree module's split BTF is over its distilled base
	if readelf -S -W "$ko" | grep ' \.BTF\.base ' >/dev/null; then
		objcopy --dump-section ".BTF.base=$dir/module/base.btf" "$ko" "$dir/ko.tmp"
		base=$dir/module/base.btf
	fi
	if ! "$BPFTOOL" btf dump file "$o/vmlinux" format c >"$dir/vmlinux/vmlinux.h" 2>"$dir/err" ||
	   ! "$BPFTOOL" btf dump file "$ko" --base-btf "$base" format c \
			>"$dir/module/vmlinux.h" 2>>"$dir/err"; then
		fail_tail "$name/vmlinux-h" "bpftool cannot dump the BTF as C" "$dir/err"
		return 1
	fi
	pass "$name/vmlinux-h ($(wc -l <"$dir/vmlinux/vmlinux.h") lines)"
	# -fms-extensions: 7.x embeds structs without a member name
	# (struct filename { struct __filename_head; ... })
	local f ok=1
	for f in clients:vmlinux module:module; do
		if ! "$CLANG" -target bpf -O2 -g -D__TARGET_ARCH_x86 -fms-extensions \
				-Wno-microsoft-anon-tag -I"$dir/${f#*:}" -I"$HERE" \
				-c "$HERE/${f%%:*}.bpf.c" -o "$dir/files/${f%%:*}.bpf.o" \
				>"$dir/cc.log" 2>&1; then
			ok=0
			fail_tail "$name/compile" "$CLANG cannot compile ${f%%:*}.bpf.c" "$dir/cc.log"
			break
		fi
	done
	[ $ok = 1 ] || return 1
	pass "$name/compile"
	cp "$WORK/loader" "$dir/files/loader"
	inline_btf "$name" "$o" "$dir"
}

# inline_btf NAME O DIR: our BTF of O's vmlinux with its inline sites
# (dwarf2btf --inline-sites -o: vmlinux.btf and vmlinux.btf.inline), the
# addresses of .text and _text, and inline.bpf.c compiled, into DIR/files
# for the loader's inline-sites check (inline_sites.c)
inline_btf()
{
	local name=$1 o=$2 files=$3/files text _text
	if ! "$BUILD/dwarf2btf" -j"$(kernel_jobs)" --inline-sites -o "$files/vmlinux.btf" \
			"$o/vmlinux" >"$3/inline.log" 2>&1 ||
	   ! "$CLANG" -target bpf -O2 -g -I"$HERE" -I/usr/include/x86_64-linux-gnu \
			-c "$HERE/inline.bpf.c" -o "$files/inline.bpf.o" >>"$3/inline.log" 2>&1; then
		fail_tail "$name/inline-btf" "dwarf2btf --inline-sites or inline.bpf.c failed" \
			"$3/inline.log"
		rm -f "$files/inline.bpf.o"
		return 1
	fi
	text=$(readelf -SW "$o/vmlinux" | sed -n 's/.* \.text  *PROGBITS  *\([0-9a-f]*\) .*/\1/p')
	_text=$(nm "$o/vmlinux" | sed -n 's/^\([0-9a-f]*\) [Tt] _text$/\1/p')
	echo "$text $_text" >"$files/inline.meta"
	pass "$name/inline-btf ($(wc -c <"$files/vmlinux.btf.inline") bytes of sites)"
}

# judge NAME LOG VERDICTS: one case per loader check, from the serial log;
# "CASE VERDICT" lines to VERDICTS
judge()
{
	local name=$1 log=$2 c line rest exitline
	: >"$3"
	exitline=$(sed -n 's/^D2B-LOADER-EXIT //p' "$log")
	grep -E "^D2B-CLIENT (vmlinux-btf|setup) " "$log" | sed "s/^/# /"
	for c in $CASES; do
		line=$(grep -m1 "^D2B-CLIENT $c " "$log")
		rest=${line#"D2B-CLIENT $c "}
		case $line in
		"D2B-CLIENT $c ok"*)
			pass "$name/$c"
			echo "$c ok" >>"$3" ;;
		"D2B-CLIENT $c skip"*)
			skip "$name/$c" "${rest#skip }"
			echo "$c skip" >>"$3" ;;
		"D2B-CLIENT $c fail"*)
			grep '^D2B-LIBBPF ' "$log" | grep -v 'D2B-LIBBPF libbpf: elf:' |
				tail -n 4 | sed 's/^/#   /'
			fail "$name/$c" "${rest#fail }"
			echo "$c fail" >>"$3" ;;
		*)	fail "$name/$c" "no result from the loader (exit ${exitline:-?})"
			echo "$c none" >>"$3" ;;
		esac
	done
}

# clients NAME O KO: dump, compile, boot, judge; verdicts in $VERDICTS
clients()
{
	local name=$1 o=$2 ko=$3 dir log bad
	dir=$WORK/${name//\//-}
	VERDICTS=$dir.verdicts
	programs "$name" "$o" "$ko" "$dir" || return 1
	log=$dir.serial.log
	if ! D2B_KERNEL_INIT=$HERE/init.sh D2B_KERNEL_FILES=$dir/files \
			"$KERNEL/boot.sh" "$o" "$log" "$ko" 2>"$dir.boot.err"; then
		show_tail "$dir.boot.err" 3
		show_tail "$log" 15
		fail "$name/boot" "the guest did not reach the end of init.sh"
		return 1
	fi
	pass "$name/boot"
	if grep -q "^D2B-CHECK insmod-$MOD ok" "$log"; then
		pass "$name/insmod"
	else
		fail "$name/insmod" "$(sed -n "s/^D2B-CHECK insmod-$MOD fail //p" "$log")"
	fi
	judge "$name" "$log" "$VERDICTS"
	bad=$(sed -n 's/^D2B-DMESG //p' "$log" |
		grep -E 'BPF: |BTF: |btf: |WARNING:|BUG:|Oops|Kernel panic|invalid' | uniq)
	if [ -n "$bad" ]; then
		echo "$bad" | head -n 8 | sed 's/^/#   | /'
		fail "$name/dmesg" "BPF, BTF or kernel errors in the guest's kernel log"
	else
		pass "$name/dmesg"
	fi
}

# ---- VER-COMPILER: our BTF, and optionally pahole 1.32's ------------------

kernel_clients()
{
	local ver=$1 cc=$2 name=clients/$1-$2 root o err=$WORK/build.err secs
	root=$(compiler_root "$cc")
	if ! o=$(D2B_KERNEL_REUSE=1 "$KERNEL/build-kernel.sh" "$ver" "$cc" base "$PAHOLE" \
			2>"$err" | tail -n1); then
		fail "$name/kernel" "$(sed -n 's/^build-kernel: //p' "$err" | tail -n1)"
		return
	fi
	secs=$(cat "$o/d2b-build-seconds" 2>/dev/null || echo '?')
	pass "$name/kernel"
	note "$name: kernel in $o (its make took ${secs}s)"

	if [ -n "${D2B_CLIENTS_BREAK:-}" ]; then
		if [ "$root" != / ]; then
			skip "$name" "D2B_CLIENTS_BREAK relinks with this system's compilers only"
			return
		fi
		note "$name: BTF damaged on purpose: $D2B_CLIENTS_BREAK (the cases must FAIL)"
		D2B_CLIENTS_PAHOLE=$PAHOLE relink "$name" "$ver" "$cc" "$o" || return
		module "$name" / "$o" "$cc" "$PAHOLE" || return
		clients "$name" "$o" "$KO"
		return
	fi

	module "$name" "$root" "$o" "$cc" "$PAHOLE" || return
	clients "$name" "$o" "$KO" || return
	[ "${D2B_CLIENTS_PAHOLE132:-}" = 1 ] || return 0

	local ours=$VERDICTS sid p132=$name/pahole132 diffs sum
	sid=$(compiler_root gcc16)
	why=$(root_missing "$sid" pahole)
	if [ -n "$why" ] || [ "$(in_root "$sid" "" pahole --version 2>/dev/null)" != v1.32 ]; then
		skip "$p132" "${why:-the chroot $sid has no pahole v1.32}"
		return
	fi
	sum=$(btf_sum "$o")
	if [ "$root" != / ]; then
		# built in the chroot: relinked there, by its own pahole
		relink "$p132" "$ver" "$cc" "$o" "$root" "$CHROOT_PAHOLE" &&
			differs "$p132" "$o" "$sum" &&
			module "$p132" "$root" "$o" "$cc" "$CHROOT_PAHOLE" &&
			clients "$p132" "$o" "$KO"
	else
		export D2B_CLIENTS_PAHOLE=chroot:$sid
		relink "$p132" "$ver" "$cc" "$o" && differs "$p132" "$o" "$sum" &&
			module "$p132" / "$o" "$cc" "$HERE/pahole-wrap.sh" &&
			clients "$p132" "$o" "$KO"
		unset D2B_CLIENTS_PAHOLE
	fi
	[ -f "$VERDICTS" ] || return
	diffs=$(diff "$ours" "$VERDICTS" | grep '^[<>]' | tr '\n' ' ')
	if [ -z "$diffs" ]; then
		pass "$p132/same-as-ours ($(grep -c ' ok$' "$ours") ok, $(grep -c ' skip$' "$ours") skip)"
	else
		fail "$p132/same-as-ours" "verdicts differ (<: ours, >: pahole 1.32): $diffs"
	fi
	pahole131 "$name" "$ver" "$cc" "$o"
}

# pahole131 NAME VER COMPILER O: with D2B_CLIENTS_PAHOLE131 (a pahole 1.31,
# as ../shared/tools/build-pahole.sh builds it), the kernel relinked with
# our BTF under pahole 1.31's policy (DWARF2BTF_PAHOLE_POLICY=1.31: the
# kernel's build then asks for 1.31's features) and with pahole 1.31's own;
# the same programs must give the same verdicts on both
pahole131()
{
	local p=${D2B_CLIENTS_PAHOLE131:-} ours131 diffs sum
	[ -n "$p" ] || return 0
	if [ "$(compiler_root "$3")" != / ]; then
		skip "$1/pahole131" "pahole 1.31 relinks kernels of this system's compilers only"
		return
	fi
	if [ ! -x "$p" ] || [ "$("$p" --version 2>/dev/null)" != v1.31 ]; then
		skip "$1/pahole131" "D2B_CLIENTS_PAHOLE131=$p is not a pahole v1.31"
		return
	fi
	export D2B_CLIENTS_PAHOLE=$PAHOLE DWARF2BTF_PAHOLE_POLICY=1.31
	relink "$1/policy131" "$2" "$3" "$4" &&
		module "$1/policy131" / "$4" "$3" "$HERE/pahole-wrap.sh" &&
		clients "$1/policy131" "$4" "$KO"
	unset DWARF2BTF_PAHOLE_POLICY
	ours131=$VERDICTS
	export D2B_CLIENTS_PAHOLE=$p
	sum=$(btf_sum "$4")
	relink "$1/pahole131" "$2" "$3" "$4" && differs "$1/pahole131" "$4" "$sum" &&
		module "$1/pahole131" / "$4" "$3" "$HERE/pahole-wrap.sh" &&
		clients "$1/pahole131" "$4" "$KO"
	unset D2B_CLIENTS_PAHOLE
	[ -f "$ours131" ] && [ -f "$VERDICTS" ] && [ "$ours131" != "$VERDICTS" ] || return
	diffs=$(diff "$ours131" "$VERDICTS" | grep '^[<>]' | tr '\n' ' ')
	if [ -z "$diffs" ]; then
		pass "$1/pahole131/same-as-ours ($(grep -c ' ok$' "$ours131") ok, $(grep -c ' skip$' "$ours131") skip)"
	else
		fail "$1/pahole131/same-as-ours" "verdicts differ (<: ours under the 1.31 policy, >: pahole 1.31): $diffs"
	fi
}

for entry in $(echo "${D2B_KERNEL_MATRIX:-6.12-gcc}" | tr ',' ' '); do
	ver=${entry%%-*} what=${entry#*-}
	case $what in
	gcc|clang|clang-[0-9]*|gcc16|clang[0-9][0-9]) ;;
	*) continue ;;			# tests/kernel's own entries
	esac
	if [ ! -f "$(kernel_tarball "$ver")" ]; then
		skip "clients/$entry" "no $(kernel_tarball "$ver") ($(kernel_source_hint "$ver"))"
		continue
	fi
	root=$(compiler_root "$what")
	why=$(root_missing "$root" "$(compiler_cc "$what")")
	if [ "$root" = / ] && ! command -v "$(compiler_cc "$what")" >/dev/null; then
		why="$(compiler_cc "$what") not installed"
	fi
	if [ -n "$why" ]; then
		skip "clients/$entry" "$why"
		continue
	fi
	kernel_clients "$ver" "$what"
done

test_done
