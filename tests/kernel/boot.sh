#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Boot a kernel in qemu with a busybox initramfs and some modules:
#
#	tests/kernel/boot.sh O_DIR LOG [MODULE.ko...]
#
# O_DIR is a kernel build directory (build-kernel.sh): it boots
# O_DIR/arch/x86/boot/bzImage, or D2B_KERNEL_IMAGE.
# The initramfs holds /bin/busybox (busybox-static), /init (init.sh), the
# modules as /mods/NAME.ko (NAME = the module's name, '-' -> '_') and
# /mods/order.  The serial console (ttyS0) goes to LOG, the accelerator
# used (kvm or tcg) to LOG.accel.  KVM when /dev/kvm can be opened (not on
# a PVM host), falling back to TCG when the kernel does not start under it;
# the tiny kernel boots in a few seconds under TCG too.
# Exit status: 0 when the guest printed D2B-DONE, 1 when it did not (hang:
# killed after the timeout, panic, ...), 3 for a setup problem.
#
# Environment:
#	D2B_KERNEL_BOOT_TIMEOUT	seconds before the guest is killed (120)
#	D2B_KERNEL_IMAGE	the kernel image to boot (a copy of one O_DIR
#				built: tests/selftests keeps one per BTF)
#	D2B_KERNEL_MEM		the guest's memory (256M)
#	D2B_KERNEL_ACCEL	kvm, tcg or auto (default)
#	D2B_KERNEL_QEMU		qemu binary (default qemu-system-x86_64)
#	D2B_KERNEL_BUSYBOX	a static busybox (default /bin/busybox)
#	D2B_KERNEL_INIT		the guest's /init (default init.sh)
#	D2B_KERNEL_FILES	a directory whose files go to /files

set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 O_DIR LOG [MODULE.ko...]" >&2
	exit 3
fi
O=$1 LOG=$2
KERNEL=${D2B_KERNEL_IMAGE:-$O/arch/x86/boot/bzImage}
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
QEMU=${D2B_KERNEL_QEMU:-qemu-system-x86_64}
BUSYBOX=${D2B_KERNEL_BUSYBOX:-/bin/busybox}

die() { echo "boot: $1" >&2; exit 3; }
command -v "$QEMU" >/dev/null || die "$QEMU not installed (apt-get install qemu-system-x86)"
[ -f "$KERNEL" ] || die "no kernel $KERNEL"
file -L "$BUSYBOX" 2>/dev/null | grep 'statically linked' >/dev/null ||
	die "$BUSYBOX is not a static busybox (apt-get install busybox-static)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-boot.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# the kernel's gen_init_cpio makes /dev/console without being root; the
# build's own may not run here (built in a chroot with a newer libc)
gen=$O/usr/gen_init_cpio
echo "dir /dev 0755 0 0" >"$WORK/probe"
if [ ! -x "$gen" ] || ! "$gen" "$WORK/probe" >/dev/null 2>&1; then
	gen=$WORK/gen_init_cpio
	cc -O2 -o "$gen" "$O/source/usr/gen_init_cpio.c" ||
		die "cannot build gen_init_cpio from $O/source/usr"
fi

{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /bin 0755 0 0"
	echo "file /bin/busybox $BUSYBOX 0755 0 0"
	echo "file /init $(readlink -f "${D2B_KERNEL_INIT:-$HERE/init.sh}") 0755 0 0"
	if [ -n "${D2B_KERNEL_FILES:-}" ]; then
		echo "dir /files 0755 0 0"
		for f in "$D2B_KERNEL_FILES"/*; do
			echo "file /files/$(basename "$f") $(readlink -f "$f") 0755 0 0"
		done
	fi
	echo "dir /mods 0755 0 0"
	: >"$WORK/order"
	for ko in "$@"; do
		name=$(basename "$ko" .ko | tr - _)
		echo "$name" >>"$WORK/order"
		echo "file /mods/$name.ko $(readlink -f "$ko") 0644 0 0"
	done
	echo "file /mods/order $WORK/order 0644 0 0"
} >"$WORK/list"
"$gen" "$WORK/list" | gzip -1 >"$WORK/initramfs.cpio.gz"

# run_qemu ACCEL: boot once, serial console to LOG; exit status 2 when
# KVM was asked for but the kernel never started (e.g. a PVM host, where
# /dev/kvm runs only PVM-aware guests)
run_qemu()
{
	local accel=$1 limit pid waited=0 rc=0
	limit=${D2B_KERNEL_BOOT_TIMEOUT:-120}
	timeout -k 5 "$limit" "$QEMU" -accel "$accel" -cpu max -m "${D2B_KERNEL_MEM:-256M}" -smp 1 \
		-nographic -no-reboot -monitor none -serial stdio \
		-kernel "$KERNEL" -initrd "$WORK/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic rdinit=/init" \
		</dev/null >"$LOG" 2>&1 &
	pid=$!
	if [ "$accel" = kvm ]; then
		while kill -0 "$pid" 2>/dev/null && ! grep -q 'Linux version' "$LOG"; do
			if [ $waited -ge 15 ]; then
				kill "$pid" 2>/dev/null
				wait "$pid" 2>/dev/null
				return 2
			fi
			sleep 1
			waited=$((waited + 1))
		done
	fi
	wait "$pid" || rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "guest killed after ${limit}s" >>"$LOG"
	fi
	return 0
}

accel=${D2B_KERNEL_ACCEL:-auto}
if [ "$accel" = auto ]; then
	accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then
		accel=kvm
	fi
fi
if ! run_qemu "$accel"; then
	echo "boot: KVM did not start the kernel; using TCG" >&2
	accel=tcg
	run_qemu tcg
fi
echo "$accel" >"$LOG.accel"
tr -d '\r' <"$LOG" >"$WORK/log" && cat "$WORK/log" >"$LOG"
grep -q '^D2B-DONE' "$LOG"
