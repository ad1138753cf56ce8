#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The PAHOLE run.sh relinks a kernel with for its other BTF (not the one
# under test): a kernel build calls it with pahole's command line.
#
#	D2B_CLIENTS_PAHOLE=PATH	the pahole that does the work; "chroot:ROOT"
#				for ROOT's /usr/bin/pahole (pahole 1.32 of the
#				sid chroot, run by lib.sh's in_root in the
#				current directory)
#	D2B_CLIENTS_BREAK=MODE	then damage vmlinux's BTF (btf_break.py MODE):
#				the file of --btf_encode_detached (7.x), else
#				the .BTF section of the ELF (6.x); a module's
#				BTF (--btf_base) is left as it is

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../kernel/lib.sh"

real=${D2B_CLIENTS_PAHOLE:?pahole-wrap.sh: D2B_CLIENTS_PAHOLE unset}
case $real in
chroot:*)
	# shellcheck disable=SC2016	# expanded by that sh
	in_root "${real#chroot:}" "" sh -c 'cd "$1" && shift && exec /usr/bin/pahole "$@"' \
		pahole "$PWD" "$@" ;;
*)	"$real" "$@" ;;
esac

[ -n "${D2B_CLIENTS_BREAK:-}" ] || exit 0
out='' elf=''
for a in "$@"; do
	case $a in
	--btf_base|--btf_base=*) exit 0 ;;
	--btf_encode_detached=*) out=${a#*=} ;;
	-*) ;;
	*) elf=$a ;;
	esac
done
[ -n "$out$elf" ] || exit 0		# --version and the like
if [ -n "$out" ]; then
	python3 "$here/btf_break.py" "$D2B_CLIENTS_BREAK" "$out"
else
	tmp=$(mktemp)
	objcopy --dump-section ".BTF=$tmp" "$elf"
	python3 "$here/btf_break.py" "$D2B_CLIENTS_BREAK" "$tmp"
	objcopy --update-section ".BTF=$tmp" "$elf"
	rm -f "$tmp"
fi
echo "pahole-wrap.sh: $D2B_CLIENTS_BREAK: damaged the BTF of ${out:-$elf}" >&2
