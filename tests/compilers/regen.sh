#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/compilers/regen.sh [SID_CHROOT]
#
# Rebuild the checked-in objects of tests/compilers from their sources, in
# a Debian sid chroot (default ~/.cache/sid; made by
# ../shared/tools/debian-next.sh chroot DIR), as root:
#
#   CC/X.o                   gcc-16, clang-22 and clang-23 (CC gcc16,
#                            clang22, clang23) -std=gnu23 -O2 -g -c X.c,
#                            clang++-23 -O2 -g -c X.cc (clang23 only)
#                            (DWARF 5, the compilers' default)
#   CC/X.pahole.btf          pahole's BTF of each object (pahole -J
#                            --btf_features=default), the reference
#                            run.sh compares ours with; none for
#                            atomic.c, which pahole 1.32 refuses
#   CC/truesig.truesig.btf   the same with true_signature too, for
#                            truesig.c, whose functions' code takes
#                            other parameters than they declare
#
# Paths are mapped to "." (-ffile-prefix-map), so a rebuild with the same
# compilers gives the same bytes.  Commit the result with the compilers'
# and pahole's versions (written to VERSIONS).

set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SID=${1:-$HOME/.cache/sid}
COMPILERS="gcc16 clang22 clang23"
for tool in gcc-16 clang-22 clang-23 clang++-23 pahole; do
	[ -x "$SID/usr/bin/$tool" ] && continue
	echo "regen: no $tool in $SID" \
	     "(make it with ../shared/tools/debian-next.sh chroot $SID)" >&2
	exit 1
done
W=/tmp/d2b-compilers
rm -rf "$SID$W"
mkdir -p "$SID$W"
cp "$HERE"/*.c "$HERE"/*.cc "$SID$W/"
# shellcheck disable=SC2016   # expanded inside the chroot
chroot "$SID" sh -ec '
cd '"$W"'
map=-ffile-prefix-map='"$W"'=.
mkdir '"$COMPILERS"'
for src in *.c *.cc; do
	b=${src%.*}
	case $src in
	*.c)	gcc-16 -std=gnu23 -O2 -g $map -c "$src" -o "gcc16/$b.o"
		clang-22 -std=gnu23 -O2 -g $map -c "$src" -o "clang22/$b.o"
		clang-23 -std=gnu23 -O2 -g $map -c "$src" -o "clang23/$b.o" ;;
	*.cc)	clang++-23 -O2 -g $map -c "$src" -o "clang23/$b.o" ;;
	esac
	[ "$b" = atomic ] && continue
	for cc in '"$COMPILERS"'; do
		[ -f "$cc/$b.o" ] || continue
		pahole -J --btf_features=default --btf_encode_detached="$cc/$b.pahole.btf" "$cc/$b.o"
		[ "$b" = truesig ] || continue
		pahole -J --btf_features=default,true_signature \
			--btf_encode_detached="$cc/$b.truesig.btf" "$cc/$b.o"
	done
done
{ gcc-16 --version | head -1; clang-22 --version | head -1; clang-23 --version | head -1
  echo "pahole $(pahole --version)"; } >VERSIONS
'
for cc in $COMPILERS; do
	mkdir -p "$HERE/$cc"
	rm -f "$HERE/$cc"/*.o "$HERE/$cc"/*.pahole.btf "$HERE/$cc"/*.truesig.btf
	cp "$SID$W/$cc"/* "$HERE/$cc/"
done
cp "$SID$W/VERSIONS" "$HERE/VERSIONS"
rm -rf "${SID:?}$W"
cat "$HERE/VERSIONS"
