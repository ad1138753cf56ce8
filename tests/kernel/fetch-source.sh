#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Fetch a kernel source tarball Debian 12 cannot install:
#
#	tests/kernel/fetch-source.sh VERSION
#
# Downloads Debian's linux-source-VERSION package (7.3: trixie-backports)
# from the mirror this machine's apt uses, with an apt state of its own
# (the system's sources and lists stay as they are), and puts its tarball
# where lib.sh's kernel_tarball looks: CACHE/tarballs/linux-source-
# VERSION.tar.xz (CACHE: lib.sh's kernel_cache_dir).  Does nothing when
# the tarball is there.  About 170 MB.  The last line on stdout is the
# tarball's path.

set -euo pipefail

VER=${1:?usage: $0 VERSION}
. "$(dirname "$0")/lib.sh"

die() { echo "fetch-source: $*" >&2; exit 1; }

out=$(kernel_cache_dir)/tarballs/linux-source-$VER.tar.xz
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
case $VER in
7.*) suite=trixie-backports ;;
*)   die "linux-source-$VER: install it with apt-get (Debian 12 has it)" ;;
esac
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
	die "needs apt-get and dpkg-deb (a Debian system)"
mirror=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
	grep -oE '^(URIs:|deb) +[a-z]+://[^ ]+/debian/?( |$)' | awk '{ print $2; exit }' || true)
[ -n "$mirror" ] || die "no Debian mirror in /etc/apt's sources"

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$(dirname "$out")/.fetch-$VER.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
echo "deb $mirror $suite main" >"$tmp/sources.list"
# Valid-Until: a mirror's backports index may be older than its date says
own_apt()
{
	apt-get -q -o Dir::Etc::sourcelist="$tmp/sources.list" -o Dir::Etc::sourceparts=/dev/null \
		-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" \
		-o Debug::NoLocking=1 -o Acquire::Check-Valid-Until=false \
		-o APT::Sandbox::User=root "$@"
}
own_apt update >&2 || die "apt-get update of $suite failed"
(cd "$tmp" && own_apt download "linux-source-$VER" >&2) || die "cannot download linux-source-$VER"
dpkg-deb --fsys-tarfile "$tmp"/linux-source-"$VER"_*.deb |
	tar -x -C "$tmp" "./usr/src/linux-source-$VER.tar.xz" ||
	die "no usr/src/linux-source-$VER.tar.xz in the package"
mv "$tmp/usr/src/linux-source-$VER.tar.xz" "$out"
echo "$out"
