#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# /init of the selftests' initramfs (run.sh boots it with tests/kernel's
# boot.sh): mounts what test_progs uses (proc, sysfs, devtmpfs, bpffs,
# tracefs, debugfs), puts run.sh's extras in place (the kernel's
# configuration, bpftool's libraries), runs /files/test_progs in /files
# (where it finds the .bpf.o files, btf_dump's test cases, bpftool and
# bpf_testmod.ko, which it loads and unloads itself) on the tests listed in /files/tests, one name a
# line, its output as "D2B-TP ..." lines and its exit status as
# "D2B-TP-EXIT N"; then the kernel log as "D2B-DMESG ..." lines and
# "D2B-DONE", and ends the machine.

/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin /tmp
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo 1 >/proc/sys/kernel/printk

echo "D2B-BEGIN $(uname -r)"
cd /files || exit 1
# run.sh's extras: the kernel's configuration where libbpf looks for it,
# and the shared libraries of ./bpftool (its loader where it names it)
mkdir -p /boot /lib64 /lib/x86_64-linux-gnu
[ -f kconfig ] && cp kconfig "/boot/config-$(uname -r)"
for l in lib-*; do
	[ -f "$l" ] && cp "$l" "/lib/x86_64-linux-gnu/${l#lib-}"
done
[ -f /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 ] &&
	ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
tests=$(tr '\n' ',' <tests | sed 's/,$//')
{
	./test_progs -a "$tests"
	echo $? >/tmp/test_progs.rc
} 2>&1 | sed 's/^/D2B-TP /'
echo "D2B-TP-EXIT $(cat /tmp/test_progs.rc)"

dmesg | sed 's/^/D2B-DMESG /'
echo "D2B-DONE"
sync
reboot -f
