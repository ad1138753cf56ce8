#!/bin/busybox sh
# shellcheck shell=dash disable=SC2013
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# /init of the clients' initramfs (run.sh boots it with tests/kernel's
# boot.sh): loads the test module (/mods, "D2B-CHECK insmod-MOD ok|fail"),
# runs /files/loader on /files/clients.bpf.o and /files/module.bpf.o (its
# "D2B-CLIENT ..." lines), prints the kernel log as "D2B-DMESG ..." lines
# and "D2B-DONE", and ends the machine.

/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin /tmp
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo 1 >/proc/sys/kernel/printk

echo "D2B-BEGIN $(uname -r)"
modobj=
for mod in $(cat /mods/order 2>/dev/null); do
	if out=$(insmod "/mods/$mod.ko" 2>&1); then
		echo "D2B-CHECK insmod-$mod ok"
		modobj=/files/module.bpf.o
	else
		echo "D2B-CHECK insmod-$mod fail $out"
	fi
done
# shellcheck disable=SC2086	# no module object when the module did not load
/files/loader /files/clients.bpf.o $modobj 2>&1
echo "D2B-LOADER-EXIT $?"

dmesg | sed 's/^/D2B-DMESG /'
echo "D2B-DONE"
sync
reboot -f
