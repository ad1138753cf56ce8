#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# libdwarf2btf's ABI against what is committed in tests/libso/abi/:
#
#	tests/libso/abi.sh check SOLIB	  PASS/FAIL/SKIP lines (tests/libso/run.sh)
#	tests/libso/abi.sh update SOLIB	  rewrite abi/ from SOLIB (make abi-update)
#
#   abi/symbols		the soname, then every exported symbol with its version
#			(nm -D), sorted: a symbol removed, added or moved to
#			another version fails "symbols"
#   abi/libdwarf2btf.abi  abidw's dump of the functions and the public types
#			(lib/dwarf2btf.h's); "abidiff" compares the library with
#			it, by meaning (a member moved, a parameter's type
#			changed, ...), where abigail-tools is installed
#
# Update them only with an intended change: a new function in a new version
# node of lib/libdwarf2btf.map, or a new soname (SOMAJOR in the Makefile)
# for one that breaks callers.

set -u

what=${1:?usage: abi.sh check|update SOLIB}
solib=${2:?usage: abi.sh check|update SOLIB}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
abi=$here/abi
. "$here/../lib.sh"

# the soname and the exported symbols, one a line
symbols()
{
	echo "soname $(readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
	nm -D --defined-only "$1" | awk '{ print $3 }' | LC_ALL=C sort
}

dump()
{
	abidw --no-corpus-path --no-comp-dir-path --no-show-locs \
	      --headers-dir "$src/lib" --drop-private-types "$1"
}

case $what in
update)
	symbols "$solib" >"$abi/symbols" || exit 1
	if command -v abidw >/dev/null 2>&1; then
		dump "$solib" >"$abi/libdwarf2btf.abi" || exit 1
	else
		echo "abi.sh: abidw not found (apt-get install abigail-tools): abi/libdwarf2btf.abi not updated" >&2
	fi
	echo "abi.sh: updated $abi"
	;;
check)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/d2b-abi.XXXXXX") || { fail abi "no scratch directory"; exit 1; }
	trap 'rm -rf "$tmp"' EXIT
	symbols "$solib" >"$tmp/symbols"
	if cmp -s "$abi/symbols" "$tmp/symbols"; then
		pass symbols
	else
		diff -u "$abi/symbols" "$tmp/symbols" | sed 's/^/# /'
		fail symbols "the exported symbols differ from tests/libso/abi/symbols (an intended change: make abi-update)"
	fi
	if ! command -v abidiff >/dev/null 2>&1; then
		skip abidiff "abigail-tools not installed (tests/install-deps.sh test installs it)"
	else
		# dump against dump: the committed one has no source locations,
		# with which abidiff would take the public types for private ones
		rc=0
		dump "$solib" >"$tmp/now.abi" &&
			abidiff "$abi/libdwarf2btf.abi" "$tmp/now.abi" >"$tmp/abidiff" 2>&1 || rc=$?
		if [ $rc -eq 0 ]; then
			pass abidiff
		else
			sed 's/^/# /' "$tmp/abidiff" | head -n 40
			fail abidiff "exit $rc: the ABI differs from tests/libso/abi/libdwarf2btf.abi (an intended change: make abi-update)"
		fi
	fi
	;;
*)
	echo "usage: $0 check|update SOLIB" >&2
	exit 2
	;;
esac
