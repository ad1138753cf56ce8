#!/bin/busybox sh
# shellcheck shell=dash disable=SC2013
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# /init of the test initramfs (boot.sh), run by busybox sh in the guest.
# Prints one "D2B-CHECK NAME ok|fail [detail]" line per check on the
# serial console, then powers the machine off:
#   vmlinux-btf		/sys/kernel/btf/vmlinux exists (and its md5sum,
#			compared by the host with the built vmlinux's .BTF)
#   insmod-MOD		insmod /mods/MOD.ko succeeds (in /mods/order)
#   module-btf-MOD	/sys/kernel/btf/MOD exists; its bytes follow in
#			base64 between D2B-BTF-BEGIN MOD / D2B-BTF-END
#   rmmod-MOD		rmmod succeeds and /sys/kernel/btf/MOD goes away
# then the whole kernel log as "D2B-DMESG ..." lines (the host looks for
# BTF errors in it), and "D2B-DONE" last.  Kernel messages stop going to
# the console once init runs, so they cannot cut into the base64 dumps.

/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin /tmp
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo 1 >/proc/sys/kernel/printk

check() { echo "D2B-CHECK $1 $2${3:+ $3}"; }

echo "D2B-BEGIN $(uname -r)"
if [ -e /sys/kernel/btf/vmlinux ]; then
	check vmlinux-btf ok "md5=$(md5sum </sys/kernel/btf/vmlinux | cut -d' ' -f1)"
else
	check vmlinux-btf fail "no /sys/kernel/btf/vmlinux"
fi

for mod in $(cat /mods/order 2>/dev/null); do
	if out=$(insmod "/mods/$mod.ko" 2>&1); then
		check "insmod-$mod" ok
	else
		check "insmod-$mod" fail "$out"
		continue
	fi
	if [ -e "/sys/kernel/btf/$mod" ]; then
		check "module-btf-$mod" ok "size=$(wc -c <"/sys/kernel/btf/$mod")"
		echo "D2B-BTF-BEGIN $mod"
		base64 "/sys/kernel/btf/$mod"
		echo "D2B-BTF-END"
	else
		check "module-btf-$mod" fail "no /sys/kernel/btf/$mod"
	fi
done
for mod in $(cat /mods/order 2>/dev/null); do
	[ -e "/sys/module/$mod" ] || continue
	if out=$(rmmod "$mod" 2>&1) && [ ! -e "/sys/kernel/btf/$mod" ]; then
		check "rmmod-$mod" ok
	else
		check "rmmod-$mod" fail "${out:-/sys/kernel/btf/$mod still there}"
	fi
done

dmesg | sed 's/^/D2B-DMESG /'
echo "D2B-DONE"
# tinyconfig has no ACPI: a power-off would only halt.  A forced reboot
# ends qemu, started with -no-reboot.
sync
reboot -f
