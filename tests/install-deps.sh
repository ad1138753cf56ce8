#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Make sure the Debian 12 packages dwarf2btf needs are installed:
#
#	tests/install-deps.sh build	compiler, make, libdw/libelf/zlib headers
#	tests/install-deps.sh test	the above, plus what the tests use:
#					clang-14 and clang-19 (with its libFuzzer
#					and sanitizer runtime), bpftool, libbpf,
#					binutils, elfutils, python3, llvm, pahole,
#					abigail-tools (abidiff: tests/libso)
#	tests/install-deps.sh kernel	the above, plus what tests/kernel needs
#					to build and boot tiny kernels: the
#					kernel sources (linux-source-6.12 and
#					-6.1), their build tools, qemu, busybox,
#					and Linux 7.3's source tarball from
#					trixie-backports, into tests/kernel's
#					cache (kernel/fetch-source.sh); openssl
#					and rsync for tests/selftests' build
#
# Only missing packages are installed (apt-get update runs once, first, and
# only then).  Not root: prints the exact command to run and exits 1.

set -euo pipefail

what=${1:-build}
build_pkgs=(gcc make pkg-config libc6-dev libdw-dev libelf-dev zlib1g-dev)
test_pkgs=(g++ clang clang-14 clang-19 bpftool libbpf-dev binutils elfutils python3 time zstd
	   llvm llvm-19 libclang-rt-19-dev pahole e2fsprogs coreutils dwz abigail-tools)
kernel_pkgs=(linux-source-6.12 linux-source-6.1 flex bison bc cpio kmod xz-utils libssl-dev
	     qemu-system-x86 busybox-static openssl rsync)

case $what in
build) pkgs=("${build_pkgs[@]}") ;;
test) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
kernel) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}" "${kernel_pkgs[@]}") ;;
*)
	echo "usage: $0 [build|test|kernel]" >&2
	exit 2
	;;
esac

# what Debian 12 cannot install: fetched once into tests/kernel's cache
fetch_sources()
{
	[ "$what" = kernel ] || return 0
	"$(dirname "$0")/kernel/fetch-source.sh" 7.3 >/dev/null
}

if ! command -v dpkg >/dev/null 2>&1; then
	echo "install-deps: no dpkg: not a Debian system; install by hand: ${pkgs[*]}" >&2
	exit 1
fi

missing=()
for p in "${pkgs[@]}"; do
	# "install ok installed" is the only state in which the package is usable
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all $what dependencies present (${#pkgs[@]} packages)"
	fetch_sources
	exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing: ${missing[*]}" >&2
	echo "install-deps: as root, run: apt-get update && $cmd" >&2
	exit 1
fi

echo "install-deps: installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends "${missing[@]}"
fetch_sources
echo "install-deps: done"
