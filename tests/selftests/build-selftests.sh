#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Build the kernel's BPF test runner, test_progs, for some of its tests:
#
#	tests/selftests/build-selftests.sh VERSION O BTF TEST...
#
# VERSION's tools/testing/selftests/bpf (the tree tests/kernel unpacked),
# with its own libbpf, bpftool (with signing: the signed light skeletons)
# and resolve_btfids, against the kernel built in O (its configuration's
# autoconf.h); BPF programs are compiled against the vmlinux.h bpftool
# dumps from BTF, a vmlinux's raw BTF (its .BTF section).  Only the TESTs'
# prog_tests/*.c are built, and only the progs/*.c they need:
#   - a copy of the tree (hard links, tools/ copied: the build writes
#     there) under the cache's selftests/VERSION-HASH (HASH: the TESTs),
#     made once, from which every other prog_tests/*.c is removed, and
#     every progs/*.c but those a kept test names: as a skeleton header
#     (X.skel.h, X.lskel.h, X.subskel.h) or a string or word that is a
#     progs/ file's name (the .bpf.o files a test opens, btf_dump's test
#     cases), those with a prefix a test pastes names onto ("btf__"
#     "core_reloc_" #name), those the Makefile itself names (its light,
#     signed and linked skeletons: without their sources its rules
#     fail), and what a kept one #includes;
#   - the Makefile's own rules, BPF_STRICT_BUILD=0 (a program that does
#     not compile against this kernel's vmlinux.h is left out and the
#     tests that need it with it: test_progs lists them as not built),
#     for the goal OUTPUT/test_progs only, with the extras it copies
#     beside it limited to btf_dump's test cases (urandom_read, the
#     test modules, xdp_synproxy, ... serve tests not built here; the
#     test module is built per BTF producer by run.sh) and without
#     libarena (the arena tests' library), linked statically (static.mk)
#     so that it runs in a busybox initramfs.
# Incremental: a second run with the same TESTs remakes only what changed
# (vmlinux.h included).  Prints the output directory (test_progs, the
# .bpf.o files, btf_dump_test_case_*.c) as its last line; the make log is
# OUTPUT/d2b-build.log.  Exit status 1 when test_progs was not made, 3
# for a setup problem.
#
# Environment: D2B_KERNEL_CACHE, D2B_KERNEL_JOBS (tests/kernel/lib.sh);
#	D2B_SELFTESTS_CLANG	the BPF compiler (default clang-19)

set -euo pipefail

if [ $# -lt 4 ]; then
	echo "usage: $0 VERSION O BTF TEST..." >&2
	exit 3
fi
VER=$1 O=$2 BTF=$3
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../kernel/lib.sh"

die() { echo "build-selftests: $2" >&2; exit "$1"; }
CLANG=${D2B_SELFTESTS_CLANG:-clang-19}
command -v "$CLANG" >/dev/null || die 3 "no $CLANG (D2B_SELFTESTS_CLANG)"
[ -f "$O/include/generated/autoconf.h" ] || die 3 "$O is not a configured kernel build"
[ -s "$BTF" ] || die 3 "no BTF $BTF"
SRC=$(kernel_source "$VER") || die 3 "cannot unpack linux-source-$VER"
SB=tools/testing/selftests/bpf
[ -f "$SRC/$SB/Makefile" ] || die 3 "linux-source-$VER has no $SB"
for t in "$@"; do
	[ -f "$SRC/$SB/prog_tests/$t.c" ] || die 3 "no test $t in linux-source-$VER ($SB/prog_tests/$t.c)"
done

KEY=$(printf '%s\n' "$@" | sort -u | sha256sum | cut -c1-10)
TOP=$(kernel_cache_dir)/selftests/$VER-$KEY
TREE=$TOP/src
OUT=$TOP/out
mkdir -p "$TOP"
exec 9>"$TOP.lock"
flock 9

# progs_needed DIR TEST...: the basenames of DIR/progs/*.c the TESTs need
# (see the header), one per line
progs_needed()
{
	local dir=$1 names=$TOP/names want=$TOP/want prev=-1
	shift
	(cd "$dir/progs" && printf '%s\n' *.c | sed 's/\.c$//' | sort) >"$names"
	# (each grep may find nothing: no pipefail here)
	set +o pipefail
	{
		for t in "$@"; do
			grep -ohE '[A-Za-z0-9_]+' "$dir/prog_tests/$t.c"
			# "prefix_" #name: every progs file with that prefix
			grep -ohE '"[A-Za-z0-9_]+_" *#' "$dir/prog_tests/$t.c" |
				sed -E 's/^"([A-Za-z0-9_]+)".*/\1/' |
				while read -r p; do grep "^$p" "$names"; done
		done
		grep -ohE '[A-Za-z0-9_]+\.(c|bpf\.o)' "$dir/Makefile" | sed -E 's/\.(c|bpf\.o)$//'
	} | sort -u | comm -12 - "$names" >"$want"
	# what the kept programs #include "x.c", until nothing is added
	while [ "$(wc -l <"$want")" != "$prev" ]; do
		prev=$(wc -l <"$want")
		sed 's|.*|progs/&.c|' "$want" | (cd "$dir" && xargs grep -ohE '#include "[A-Za-z0-9_]+\.c"') |
			sed -E 's/.*"(.*)\.c"/\1/' | cat - "$want" | sort -u >"$want.new"
		mv "$want.new" "$want"
	done
	set -o pipefail
	cat "$want"
}

# 1. the trimmed tree, once per set of tests
if [ ! -f "$TREE/.d2b-trimmed" ] || [ "$SRC/.d2b-unpacked" -nt "$TREE/.d2b-trimmed" ]; then
	rm -rf "$TREE" "$OUT"
	cp -al "$SRC" "$TREE"
	rm -rf "$TREE/tools"
	cp -a "$SRC/tools" "$TREE/tools"
	for f in "$TREE/$SB"/prog_tests/*.c; do
		case " $* " in *" $(basename "$f" .c) "*) ;; *) rm -f "$f" ;; esac
	done
	progs_needed "$TREE/$SB" "$@" >"$TOP/progs.kept"
	for f in "$TREE/$SB"/progs/*.c; do
		grep -qx "$(basename "$f" .c)" "$TOP/progs.kept" || rm -f "$f"
	done
	touch "$TREE/.d2b-trimmed"
fi

# 2. make test_progs; BTF is copied to one path, and only when it changed,
# so that the Makefile remakes vmlinux.h (and the programs) then only
mkdir -p "$OUT"
LOG=$OUT/d2b-build.log
cmp -s "$BTF" "$TOP/vmlinux.btf" || cp "$BTF" "$TOP/vmlinux.btf"
# the Makefile's TRUNNER_EXTRA_SOURCES of test_progs, less libarena's skeleton
EXTRA_SOURCES="test_progs.c cgroup_helpers.c trace_helpers.c network_helpers.c \
	testing_helpers.c btf_helpers.c cap_helpers.c unpriv_helpers.c sysctl_helpers.c \
	netlink_helpers.c jit_disasm_helpers.c io_helpers.c test_loader.c xsk.c disasm.c \
	disasm_helpers.c json_writer.c verification_cert.h flow_dissector_load.h \
	ip_check_defrag_frags.h bpftool_helpers.c usdt_1.c usdt_2.c"
# shellcheck disable=SC2016	# make expands these
if ! make -C "$TREE/$SB" -f "$HERE/static.mk" -j"$(kernel_jobs)" \
		O="$O" OUTPUT="$OUT" VMLINUX_BTF="$TOP/vmlinux.btf" CLANG="$CLANG" \
		BPF_STRICT_BUILD=0 SKIP_DOCS=1 SKIP_LLVM=1 SKIP_LIBBFD=1 \
		TRUNNER_EXTRA_SOURCES="$EXTRA_SOURCES" \
		TRUNNER_EXTRA_FILES='$(wildcard progs/btf_dump_test_case_*.c)' \
		"$OUT/test_progs" >"$LOG" 2>&1; then
	show_tail "$LOG" 15 >&2
	die 1 "make test_progs failed (log: $LOG)"
fi
echo "$OUT"
