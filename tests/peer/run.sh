#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/peer/run.sh BUILD_DIR: pahole's own tests against dwarf2btf
# (opt-in: D2B_PEER_TESTS=1; as root).
#
# pahole git HEAD's tests/*.sh run twice in a Debian sid chroot (gcc-16,
# clang-22, pahole 1.32, bpftool, gawk): with pahole 1.32 alone, and with
# pahole-wrapper as "pahole", which sends encoding command lines (-J,
# --btf_encode_detached) to BUILD_DIR's dwarf2btf-pahole and every other
# one to pahole 1.32.  Each test runs in a PID namespace of its own
# (reproducible_build.sh counts the processes named pahole).  Per test:
#   PASS  it passes with dwarf2btf
#   SKIP  it skips, or fails with pahole 1.32 alone too, or fails for a
#         reason listed in tests/peer/known
#   FAIL  it passes with pahole 1.32 alone and fails (or skips) with
#         dwarf2btf
#
# Environment:
#   D2B_PEER_TESTS=1    run at all (else one SKIP)
#   D2B_PAHOLE_TESTS    pahole's tests/ directory, or a dwarves git
#                       repository (its HEAD's tests/ is used)
#   D2B_SID             the chroot (default ~/.cache/sid; make it with
#                       ../shared/tools/debian-next.sh chroot DIR gawk)
#   D2B_PEER_VMLINUX    a vmlinux with DWARF for the tests that want one
#                       (btf_functions.sh, flexible_arrays.sh,
#                       reproducible_build.sh); without it they fail with
#                       pahole alone too, so SKIP

B=${1:?usage: $0 BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "$B" && pwd)
SID=${D2B_SID:-$HOME/.cache/sid}

. "$HERE/../lib.sh"
[ -n "${D2B_PEER_TESTS:-}" ] || { skip peer "set D2B_PEER_TESTS=1 to run pahole's tests"; exit 0; }
[ -n "${D2B_PAHOLE_TESTS:-}" ] || { skip peer "set D2B_PAHOLE_TESTS to pahole's tests/ or a dwarves git repository"; exit 0; }
for t in gcc-16 clang-22 pahole bpftool gawk; do
	[ -x "$SID/usr/bin/$t" ] || [ -x "$SID/usr/sbin/$t" ] ||
		{ skip peer "no $t in $SID (../shared/tools/debian-next.sh chroot $SID gawk)"; exit 0; }
done
[ "$(id -u)" = 0 ] || { skip peer "needs root (chroot, PID namespaces)"; exit 0; }

W=/tmp/d2b-peer.$$
rm -rf "${SID:?}$W"
mkdir -p "$SID$W/bin-pahole" "$SID$W/bin-d2b"
trap 'rm -rf "${SID:?}$W"' EXIT
if [ -d "$D2B_PAHOLE_TESTS/tests" ] || git -C "$D2B_PAHOLE_TESTS" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$D2B_PAHOLE_TESTS" archive HEAD tests | tar -x -C "$SID$W"
else
	cp -r "$D2B_PAHOLE_TESTS" "$SID$W/tests"
fi
cp "$B/dwarf2btf" "$SID$W/dwarf2btf"
ln -s dwarf2btf "$SID$W/dwarf2btf-pahole"
cp "$HERE/pahole-wrapper" "$SID$W/bin-d2b/pahole"
# the tests call "clang" by that name
ln -s /usr/bin/clang-22 "$SID$W/bin-pahole/clang"
ln -s /usr/bin/clang-22 "$SID$W/bin-d2b/clang"
vmlinux=
if [ -n "${D2B_PEER_VMLINUX:-}" ]; then
	cp "$D2B_PEER_VMLINUX" "$SID$W/vmlinux"
	vmlinux=$W/vmlinux
fi

# result MODE TEST: the test's exit status under MODE (log in $SID$W)
result() {
	unshare -p -f -m --propagation private sh -c '
		mount -t proc proc "$1/proc" &&
		chroot "$1" env PATH="$2/bin-$3:/usr/sbin:/usr/bin:/sbin:/bin" \
			D2B_PEER_D2B="$2/dwarf2btf-pahole" CLANG=clang-22 \
			sh -c "cd $2/tests && timeout 600 ./$4 $5"' \
		- "$SID" "$W" "$1" "$2" "$vmlinux" >"$SID$W/$1.$2.log" 2>&1 </dev/null
	echo $?
}

for t in "$SID$W"/tests/*.sh; do
	t=$(basename "$t")
	[ "$t" = test_lib.sh ] && continue
	name=peer/${t%.sh}
	alone=$(result pahole "$t")
	with=$(result d2b "$t")
	why=$(sed -n "s/^$t: //p" "$HERE/known")
	if [ "$with" = 0 ]; then
		pass "$name"
		[ -n "$why" ] && echo "# $name passes now: take it out of tests/peer/known"
	elif [ "$with" = 2 ] && [ "$alone" != 0 ]; then
		skip "$name" "it skips here ($(grep -v '^\s*$' "$SID$W/d2b.$t.log" | tail -2 | head -1 | tr -d '\033' | cut -c1-120))"
	elif [ "$alone" != 0 ]; then
		skip "$name" "fails with pahole 1.32 alone too (exit $alone)"
	elif [ -n "$why" ]; then
		skip "$name" "known: $why"
	else
		tail -n 8 "$SID$W/d2b.$t.log" | sed 's/^/# /'
		fail "$name" "passes with pahole 1.32 alone, fails with dwarf2btf (exit $with)"
	fi
done
test_done
