#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# .ci/sid-build.sh: build with today's compilers, in a Debian sid chroot,
# and run the unit tests there (as root; .ci/run step 5).
#
#   make DEVELOPER=1 CC=gcc-16 O=build-gcc-16 tests      then the unit tests
#   make DEVELOPER=1 CC=clang-22 O=build-clang-22 tests  and again
#   make DEVELOPER=1 CC=clang-23 O=build-clang-23 tests  and again
#
# DEVELOPER=1: warnings are errors, so a warning that a new compiler adds
# fails CI before it reaches a user (whose plain make has no -Werror).
# The chroot is made once per machine, by ../shared/tools/debian-next.sh,
# in D2B_SID (default ~/.cache/sid), and only if it lacks gcc-16,
# clang-22 or clang-23 (about 10 minutes and 1.5 GB cold; a cached one is
# reused as it is).  The tree's tracked files are copied into its /tmp.
#
# Prints one line per build, "PASS sid/CC" or "FAIL sid/CC: why", then
# the unit tests' lines; exit status 1 if anything failed.

set -uo pipefail
cd "$(dirname "$0")/.."
SID=${D2B_SID:-$HOME/.cache/sid}
NEXT=${D2B_DEBIAN_NEXT:-../shared/tools/debian-next.sh}
JOBS=${JOBS:-2}
status=0

COMPILERS=(gcc-16 clang-22 clang-23)

have()
{
	local tool

	for tool in "${COMPILERS[@]}" make; do
		[ -x "$SID/usr/bin/$tool" ] || return 1
	done
}

if ! have; then
	if [ ! -x "$NEXT" ]; then
		echo "FAIL sid/setup: no chroot in $SID and no $NEXT to make one"
		exit 1
	fi
	"$NEXT" chroot "$SID" "${COMPILERS[@]}" make libdw-dev libelf-dev zlib1g-dev libbpf-dev \
		pkgconf python3 || { echo "FAIL sid/setup: $NEXT chroot $SID failed"; exit 1; }
fi
for m in proc dev; do
	mountpoint -q "$SID/$m" || mount --bind "/$m" "$SID/$m" ||
		{ echo "FAIL sid/setup: cannot mount /$m in $SID"; exit 1; }
done

W=/tmp/d2b-ci-sid.$$
rm -rf "${SID:?}$W"
mkdir -p "$SID$W"
trap 'rm -rf "${SID:?}$W"' EXIT
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$SID$W"

for cc in "${COMPILERS[@]}"; do
	o=build-$cc
	log=$SID$W/$o.log
	if ! chroot "$SID" make -C "$W" -j"$JOBS" DEVELOPER=1 CC="$cc" O="$o" tests \
		</dev/null >"$log" 2>&1; then
		grep -E 'error:|warning:' "$log" | head -n 20 | sed 's/^/# /'
		echo "FAIL sid/$cc: make DEVELOPER=1 CC=$cc tests failed"
		status=1
		continue
	fi
	if grep -q 'warning:' "$log"; then
		grep 'warning:' "$log" | head -n 20 | sed 's/^/# /'
		echo "FAIL sid/$cc: warnings"
		status=1
		continue
	fi
	echo "PASS sid/$cc"
	# The unit programs only: the script groups need Debian 12's tools.
	# Not test_dedup_libbpf: it holds our dedup to Debian 12's libbpf
	# (1.1); sid's libbpf 1.7 merges more (it resolves FWDs that 1.1 and
	# we keep), which is a finding for the dedup, not a new compiler's.
	rm -f "$SID$W/$o/tests/test_dedup_libbpf"
	chroot "$SID" sh -c "cd $W && D2B_TEST_FILTER='^test_' tests/run.sh $o" </dev/null ||
		status=1
done
exit $status
