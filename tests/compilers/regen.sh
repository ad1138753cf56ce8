#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/compilers/regen.sh [SID_CHROOT]
#
# Rebuild the checked-in objects of tests/compilers from their sources, in
# a Debian sid chroot (default ~/.cache/sid; made by
# ../shared/tools/debian-next.sh chroot DIR), as root:
#
#   gcc16/X.o, clang22/X.o   gcc-16 and clang-22 -std=gnu23 -O2 -g -c X.c
#                            (DWARF 5, the compilers' default)
#   gcc16/X.pahole.btf ...   pahole's BTF of each object (pahole -J
#                            --btf_features=default), the reference
#                            run.sh compares ours with; none for
#                            atomic.c, which pahole 1.32 refuses
#   gcc16/truesig.truesig.btf ...  the same with true_signature too, for
#                            truesig.c, whose functions' code takes
#                            other parameters than they declare
#
# Paths are mapped to "." (-ffile-prefix-map), so a rebuild with the same
# compilers gives the same bytes.  Commit the result with the compilers'
# and pahole's versions (written to VERSIONS).

set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SID=${1:-$HOME/.cache/sid}
[ -x "$SID/usr/bin/gcc-16" ] && [ -x "$SID/usr/bin/clang-22" ] && [ -x "$SID/usr/bin/pahole" ] || {
	echo "regen: no gcc-16, clang-22 and pahole in $SID" \
	     "(make it with ../shared/tools/debian-next.sh chroot $SID)" >&2
	exit 1
}
W=/tmp/d2b-compilers
rm -rf "$SID$W"
mkdir -p "$SID$W"
cp "$HERE"/*.c "$SID$W/"
# shellcheck disable=SC2016   # expanded inside the chroot
chroot "$SID" sh -ec '
cd '"$W"'
mkdir gcc16 clang22
for src in *.c; do
	b=${src%.c}
	gcc-16 -std=gnu23 -O2 -g -ffile-prefix-map='"$W"'=. -c "$src" -o "gcc16/$b.o"
	clang-22 -std=gnu23 -O2 -g -ffile-prefix-map='"$W"'=. -c "$src" -o "clang22/$b.o"
	[ "$b" = atomic ] && continue
	for cc in gcc16 clang22; do
		pahole -J --btf_features=default --btf_encode_detached="$cc/$b.pahole.btf" "$cc/$b.o"
		[ "$b" = truesig ] || continue
		pahole -J --btf_features=default,true_signature \
			--btf_encode_detached="$cc/$b.truesig.btf" "$cc/$b.o"
	done
done
{ gcc-16 --version | head -1; clang-22 --version | head -1; echo "pahole $(pahole --version)"; } >VERSIONS
'
for cc in gcc16 clang22; do
	mkdir -p "$HERE/$cc"
	rm -f "$HERE/$cc"/*.o "$HERE/$cc"/*.pahole.btf "$HERE/$cc"/*.truesig.btf
	cp "$SID$W/$cc"/* "$HERE/$cc/"
done
cp "$SID$W/VERSIONS" "$HERE/VERSIONS"
rm -rf "${SID:?}$W"
cat "$HERE/VERSIONS"
