#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel's own BPF selftests judge our BTF (issue 39, part 2): Linux
# 7.3's test_progs runs on one tiny kernel configured for the tests of
# TESTS (below) twice, once with the BTF PAHOLE (dwarf2btf-pahole) made for
# vmlinux and the test module, once with pahole 1.32's.  Every test and
# subtest that passes with pahole's BTF must pass with ours.
#
#	tests/selftests/run.sh BUILD_DIR
#
# Opt-in: without D2B_SELFTESTS=1 it prints one SKIP line, saying why.  The
# first run builds the kernel and test_progs (about 40 minutes on 2 busy
# cores); a later run reuses both, relinks the kernel twice and boots it
# twice (about 10 minutes): more than tests/run.sh gives a group, so run
# it alone, or with D2B_TEST_TIMEOUT=3600.  The cases (selftests/...):
#   kernel	       tests/kernel/build-kernel.sh VER COMPILER selftests PAHOLE
#		       (tests/kernel/lib.sh: SELFTEST_OPTIONS), reused when
#		       current
#   ours/testmod       the tree's bpf_testmod.ko (test_kmods/) built
#		       against it, its split BTF by PAHOLE
#   pahole132/relink   vmlinux and the modules linked again in the same
#		       build with pahole 1.32's BTF (the sid chroot's, through
#		       tests/clients/pahole-wrap.sh); the next run relinks with
#		       PAHOLE
#   pahole132/testmod  bpf_testmod.ko again, its BTF by pahole 1.32
#   test_progs	       build-selftests.sh made test_progs for TESTS, its BPF
#		       programs compiled against the vmlinux.h of pahole
#		       1.32's BTF: the reference's types, relocated (CO-RE)
#		       against each BTF at run time
#   ours/boot, pahole132/boot	     the guest ran init.sh to its end
#   ours/results, pahole132/results  test_progs printed results
#   ours/testmod-loaded, pahole132/testmod-loaded  test_progs loaded
#		       bpf_testmod.ko (else the tests on it skip)
#   TEST	       one per test of TESTS' files (prog_tests/T.c's test_NAME():
#		       core_kern.c's is core_kern_lskel): every subtest of it, and the
#		       test, that is OK with pahole 1.32's BTF is OK with
#		       ours.  SKIP when test_progs has not got it (a program
#		       of it does not compile against this kernel: the build
#		       log says which) or nothing of it passes with pahole's
# Then the table: test, pahole 1.32's result, ours, and the subtests
# that differ or fail, as "#" lines and in BUILD_DIR/tests/selftests.table
# (tests/clients/README keeps the last one).
#
# Environment:
#	D2B_SELFTESTS=1		run at all
#	D2B_SELFTESTS_TESTS	the tests (default TESTS below)
#	D2B_SELFTESTS_NOT_RUN	tests built but not run (default NOT_RUN below)
#	D2B_SELFTESTS_CLANG	the BPF compiler (default clang-19)
#	D2B_SELFTESTS_COMPILER	the kernel's compiler (default gcc; also
#				tests/kernel's others, e.g. clang, or the sid
#				chroot's clang23 and gcc16: make runs there and
#				pahole 1.32's relink is the chroot's own pahole)
#	D2B_SELFTESTS_TIMEOUT	seconds a guest may run (900)
#	D2B_KERNEL_PAHOLE, D2B_KERNEL_CACHE, D2B_KERNEL_JOBS, D2B_SID,
#	D2B_KERNEL_KEEP (tests/kernel), D2B_KERNEL_ACCEL (boot.sh)

set -uo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
export D2B_BUILD=$BUILD
HERE=$(cd "$(dirname "$0")" && pwd)
KERNEL=$(cd "$HERE/../kernel" && pwd)
WRAP=$(cd "$HERE/../clients" && pwd)/pahole-wrap.sh
. "$KERNEL/lib.sh"

VER=7.3
# The BTF-dependent tests (issue 39), and more that run on this kernel
TESTS=${D2B_SELFTESTS_TESTS:-"btf btf_dump btf_split btf_distill btf_module
	core_reloc core_autosize core_retro fentry_test fexit_test fentry_fexit
	tracing_struct kfunc_call ksyms_btf module_attach resolve_btfids
	btf_sysfs btf_tag btf_dedup_split btf_write btf_endian btf_field_iter
	core_kern core_read_macros core_extern ksyms ksyms_module vmlinux
	get_func_args_test get_func_ip_test module_fentry_shadow
	tp_btf_nullable tracing_failure kfunc_param_nullable"}
TESTS=$(echo "$TESTS" | xargs)
# Built but not run: "vmlinux" panics 7.3 with either BTF (its fentry
# program on hrtimer_start_range_ns: a call through a NULL pointer from
# the trampoline, under nanosleep), which ends the guest's run
NOT_RUN=${D2B_SELFTESTS_NOT_RUN-vmlinux}

if [ "${D2B_SELFTESTS:-}" != 1 ]; then
	skip selftests "opt-in: set D2B_SELFTESTS=1 to run Linux $VER's test_progs on our BTF and on pahole 1.32's (the first run builds a kernel and test_progs: about 40 minutes on 2 cores; later ones about 10)"
	exit 0
fi
PAHOLE=$(abs_path "${D2B_KERNEL_PAHOLE:-$BUILD/dwarf2btf-pahole}")
if [ ! -x "$PAHOLE" ]; then
	skip selftests "$PAHOLE not built (the pahole-compatible front end)"
	exit 0
fi
CLANG=${D2B_SELFTESTS_CLANG:-clang-19}
missing=
for t in make gcc flex bison bc perl cpio gzip flock objcopy rsync openssl \
	qemu-system-x86_64 "$CLANG"; do
	command -v "$t" >/dev/null 2>&1 || missing+=" $t"
done
[ -f /usr/include/gelf.h ] || missing+=" libelf-dev"
for f in libelf.a libz.a; do
	[ -f "/usr/lib/x86_64-linux-gnu/$f" ] || missing+=" $f"
done
file -L "${D2B_KERNEL_BUSYBOX:-/bin/busybox}" 2>/dev/null | grep 'statically linked' >/dev/null ||
	missing+=" busybox-static"
if [ -n "$missing" ]; then
	skip selftests "missing:$missing (tests/install-deps.sh kernel)"
	exit 0
fi
if [ ! -f "$(kernel_tarball "$VER")" ]; then
	skip selftests "no $(kernel_tarball "$VER") ($(kernel_source_hint "$VER"))"
	exit 0
fi
SID=$(compiler_root gcc16)
why=$(root_missing "$SID" pahole)
if [ -n "$why" ] || [ "$(in_root "$SID" "" pahole --version 2>/dev/null)" != v1.32 ]; then
	skip selftests "${why:-the chroot $SID has no pahole v1.32}: no BTF to compare with"
	exit 0
fi
# the kernel's compiler, and the root it runs in
CC_NAME=${D2B_SELFTESTS_COMPILER:-gcc}
ROOT=$(compiler_root "$CC_NAME")
why=$(root_missing "$ROOT" "$(compiler_cc "$CC_NAME")")
# (the selftests kernel signs its modules: make runs openssl)
[ -n "$why" ] || [ "$ROOT" = / ] || [ -x "$ROOT/usr/bin/openssl" ] ||
	why="no openssl in the chroot (chroot $ROOT apt-get install openssl)"
if [ -n "$why" ]; then
	skip selftests "the kernel's compiler $CC_NAME: $why"
	exit 0
fi
SRC=$(kernel_source "$VER") || { fail selftests/setup "cannot unpack linux-source-$VER"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-selftests.XXXXXX")
if [ -n "${D2B_KERNEL_KEEP:-}" ]; then
	note "work directory: $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi

# ---- the kernel with each BTF ------------------------------------------------

# kmake O PAHOLE ARGS...: make in the kernel build O with that PAHOLE, by
# the kernel's compiler (in its root; CHROOT_PAHOLE: that root's own)
CHROOT_PAHOLE=/usr/bin/pahole
kmake()
{
	local o=$1 pahole=$2 bind=$2
	shift 2
	[ "$ROOT" != / ] && [ "$pahole" = "$CHROOT_PAHOLE" ] && bind=
	# shellcheck disable=SC2046	# the compiler's make arguments are words
	in_root "$ROOT" "$bind" make -C "$o" ARCH=x86_64 $(compiler_make_args "$CC_NAME") \
		PAHOLE="$pahole" "$@"
}

# keep NAME O PAHOLE: what one BTF's guest boots, to WORK/NAME: the kernel
# image, vmlinux's BTF, and bpf_testmod.ko built against O with PAHOLE
# (in O, where the chroot's pahole can read it)
keep()
{
	local name=$1 o=$2 dir=$2/d2b-selftests-kmods log=$WORK/$1-testmod.log
	mkdir -p "$WORK/$name"
	cp "$o/arch/x86/boot/bzImage" "$WORK/$name/bzImage"
	objcopy --dump-section ".BTF=$WORK/$name/vmlinux.btf" "$o/vmlinux" "$WORK/objcopy.out"
	rm -rf "$dir" && cp -r "$SRC/tools/testing/selftests/bpf/test_kmods" "$dir"
	if ! kmake "$o" "$3" M="$dir" -j"$(kernel_jobs)" modules >"$log" 2>&1 ||
	   [ ! -f "$dir/bpf_testmod.ko" ]; then
		fail_tail "selftests/$name/testmod" "make M=test_kmods modules failed" "$log"
		return 1
	fi
	cp "$dir/bpf_testmod.ko" "$WORK/$name/"
	pass "selftests/$name/testmod"
}

err=$WORK/build.err
if ! O=$(D2B_KERNEL_REUSE=1 "$KERNEL/build-kernel.sh" "$VER" "$CC_NAME" selftests "$PAHOLE" \
		2>"$err" | tail -n1); then
	fail selftests/kernel "$(sed -n 's/^build-kernel: //p' "$err" | tail -n1)"
	exit 1
fi
pass selftests/kernel
note "kernel in $O (its make took $(cat "$O/d2b-build-seconds" 2>/dev/null || echo '?')s)"
keep ours "$O" "$PAHOLE" || exit 1

# pahole 1.32's BTF: vmlinux and the modules linked again (build-kernel.sh
# relinks with PAHOLE next time: no d2b-build-seconds)
export D2B_CLIENTS_PAHOLE=chroot:$SID
# a kernel the chroot's compilers built is relinked there, by its pahole
REF=$WRAP
[ "$ROOT" = / ] || REF=$CHROOT_PAHOLE
ours_sum=$(objcopy --dump-section ".BTF=/dev/stdout" "$O/vmlinux" /dev/null 2>/dev/null | sha256sum)
rm -f "$O/d2b-build-seconds" "$O/vmlinux" "$O/vmlinux.unstripped" "$O"/.tmp_vmlinux*
find "$O" -name '*.ko' -delete
if ! kmake "$O" "$REF" -j"$(kernel_jobs)" bzImage modules >"$WORK/relink.log" 2>&1; then
	fail_tail selftests/pahole132/relink "make bzImage modules with pahole 1.32 failed" "$WORK/relink.log"
	exit 1
fi
pass selftests/pahole132/relink
if [ "$(objcopy --dump-section ".BTF=/dev/stdout" "$O/vmlinux" /dev/null 2>/dev/null | sha256sum)" = "$ours_sum" ]; then
	fail selftests/pahole132/btf-differs "the relinked vmlinux has our .BTF still: pahole 1.32 did not run on it"
	exit 1
fi
pass selftests/pahole132/btf-differs
keep pahole132 "$O" "$REF" || exit 1
unset D2B_CLIENTS_PAHOLE

# ---- test_progs --------------------------------------------------------------

# shellcheck disable=SC2086	# TESTS is a list of words
if ! OUT=$(D2B_SELFTESTS_CLANG=$CLANG "$HERE/build-selftests.sh" "$VER" "$O" \
		"$WORK/pahole132/vmlinux.btf" $TESTS 2>"$err" | tail -n1); then
	show_tail "$err" 15
	fail selftests/test_progs "build-selftests.sh failed"
	exit 1
fi
pass "selftests/test_progs ($(ls "$OUT"/*.bpf.o | wc -l) BPF objects)"
grep -a 'SKIP-\(BPF\|SKEL\|TEST\)' "$OUT/d2b-build.log" | sort -u | sed 's/^ */# not built: /'

# ---- the two runs ------------------------------------------------------------

# What test_progs reaches outside itself, to WORK/extras: the kernel's
# configuration, which libbpf reads at /boot/config-RELEASE (core_extern's
# and get_func_ip_test's programs have __kconfig externs), and the tree's
# bpftool, which core_reloc_btfgen runs ("./bpftool gen min_core_btf", a
# BTF of what a program uses, cut from the kernel's), with the shared
# libraries it is linked with (test_progs itself is static); init.sh puts
# them in place ("lib-NAME" as /lib/x86_64-linux-gnu/NAME)
EXTRAS=$WORK/extras
mkdir -p "$EXTRAS"
cp "$O/.config" "$EXTRAS/kconfig"
BPFTOOL_BIN=$OUT/tools/sbin/bpftool
if [ -x "$BPFTOOL_BIN" ]; then
	cp "$BPFTOOL_BIN" "$EXTRAS/bpftool"
	for f in $(ldd "$BPFTOOL_BIN" | grep -o '/[^ ]*'); do
		cp -L "$f" "$EXTRAS/lib-$(basename "$f")"
	done
else
	note "no $BPFTOOL_BIN: core_reloc_btfgen cannot run bpftool in the guest"
fi

# run NAME: boot NAME's kernel with test_progs and NAME's bpf_testmod.ko;
# its results, "NAME<TAB>VERDICT" (OK, FAIL, SKIP, NOT-BUILT), to
# WORK/NAME.verdicts
run()
{
	local name=$1 dir=$WORK/$1 log=$WORK/$1.serial.log f
	mkdir -p "$dir/files"
	# (resolve_btfids reads the BTF its test object was patched with)
	for f in "$OUT/test_progs" "$OUT"/*.bpf.o "$OUT"/btf_dump_test_case_*.c \
		 "$OUT"/*.test.o.BTF "$dir/bpf_testmod.ko" "$EXTRAS"/*; do
		ln -s "$f" "$dir/files/"
	done
	for f in $NAMES; do
		case " $NOT_RUN " in *" $f "*) ;; *) echo "$f" ;; esac
	done >"$dir/files/tests"
	: >"$WORK/$name.dmesg"
	if D2B_KERNEL_INIT=$HERE/init.sh D2B_KERNEL_FILES=$dir/files \
	   D2B_KERNEL_IMAGE=$dir/bzImage D2B_KERNEL_MEM=2G \
	   D2B_KERNEL_BOOT_TIMEOUT=${D2B_SELFTESTS_TIMEOUT:-900} \
			"$KERNEL/boot.sh" "$O" "$log" 2>"$dir/boot.err"; then
		pass "selftests/$name/boot ($(cat "$log.accel"))"
	else
		# the results so far are judged all the same
		show_tail "$dir/boot.err" 3
		grep -v '^D2B-TP' "$log" | tail -n 12 | sed 's/^/#   | /'
		fail "selftests/$name/boot" "the guest did not reach the end of init.sh"
	fi
	# "#12      btf:OK", "#12/3    btf/name with spaces:SKIP",
	# "#7 x:OK (SKIP: 1/4)", "#9 y:SKIP (not built)"; the summary of the
	# failed ones at the end repeats them (the first of each is taken)
	sed -n 's/^D2B-TP #[0-9/]* *//p' "$log" | awk '!seen[$0]++' |
		sed -E -n 's/^(.*):(OK|FAIL|SKIP)( \(SKIP: [0-9]+\/[0-9]+\))?$/\1\t\2/p
			   s/^(.*):SKIP \(not built\)$/\1\tNOT-BUILT/p' >"$WORK/$name.verdicts"
	if [ ! -s "$WORK/$name.verdicts" ]; then
		grep '^D2B-TP' "$log" | tail -n 8 | sed 's/^/#   | /'
		fail "selftests/$name/results" "test_progs gave no results (exit $(sed -n 's/^D2B-TP-EXIT //p' "$log"))"
		return 1
	fi
	pass "selftests/$name/results ($(wc -l <"$WORK/$name.verdicts") tests and subtests, test_progs exit $(sed -n 's/^D2B-TP-EXIT //p' "$log"))"
	if grep -q '^D2B-TP WARNING! Selftests relying on bpf_testmod.ko' "$log"; then
		grep '^D2B-TP Failed to load' "$log" | sed 's/^/#   /'
		fail "selftests/$name/testmod-loaded" "test_progs could not load bpf_testmod.ko"
	else
		pass "selftests/$name/testmod-loaded"
	fi
	sed -n 's/^D2B-DMESG //p' "$log" | sed 's/^\[[ 0-9.]*\] //' |
		grep -E 'BPF: |BTF: |btf: |WARNING:|BUG:|Oops|Kernel panic' | sort -u >"$WORK/$name.dmesg"
}

# the tests' names (a test_NAME() or serial_test_NAME() of
# prog_tests/T.c, as the Makefile's tests.h takes them)
NAMES=$(for t in $TESTS; do
	sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/\2/p' \
		"$SRC/tools/testing/selftests/bpf/prog_tests/$t.c"
done | xargs)
run ours
run pahole132

# ---- the verdicts ------------------------------------------------------------

# verdict NAME ENTRY: ENTRY's verdict in NAME's run (nothing when it has none)
verdict() { awk -F'\t' -v e="$2" '$1 == e { print $2; exit }' "$WORK/$1.verdicts"; }

# summary NAME TEST: "OK", "FAIL", ... and the subtests' counts
summary()
{
	local v
	v=$(verdict "$1" "$2")
	awk -F'\t' -v t="$2/" -v v="${v:--}" '
		index($1, t) == 1 { n[$2]++; all++ }
		END {
			s = v
			if (all) {
				s = s " (" all " subtests:"
				split("OK FAIL SKIP NOT-BUILT", ks, " ")
				for (i = 1; i <= 4; i++)
					if (n[ks[i]]) s = s " " n[ks[i]] " " ks[i]
				s = s ")"
			}
			print s
		}' "$WORK/$1.verdicts"
}

table=$BUILD/tests/selftests.table
mkdir -p "$BUILD/tests"
printf '%-22s %-40s %s\n' test "pahole 1.32" dwarf2btf >"$table"
for t in $NAMES; do
	ref=$(verdict pahole132 "$t")
	printf '%-22s %-40s %s\n' "$t" "$(summary pahole132 "$t")" "$(summary ours "$t")" >>"$table"
	# every entry of the test, with both verdicts
	awk -F'\t' -v t="$t" 'FNR == NR { if ($1 == t || index($1, t "/") == 1) ours[$1] = $2; next }
		($1 == t || index($1, t "/") == 1) { print $1 "\t" $2 "\t" (($1 in ours) ? ours[$1] : "-") }' \
		"$WORK/ours.verdicts" "$WORK/pahole132.verdicts" >"$WORK/entries"
	awk -F'\t' '$2 != $3 || $2 == "FAIL" { print "#   " $1 ": pahole 1.32 " $2 ", ours " $3 }' \
		"$WORK/entries" | tee -a "$table"
	lost=$(awk -F'\t' '$2 == "OK" && $3 != "OK" { print $1 }' "$WORK/entries" | paste -sd, -)
	if [ -z "$ref" ] && case " $NOT_RUN " in *" $t "*) true ;; *) false ;; esac; then
		skip "selftests/$t" "not run (NOT_RUN: it ends the guest's run with either BTF)"
	elif [ -z "$ref" ]; then
		skip "selftests/$t" "no result with pahole 1.32's BTF (test_progs did not run it)"
	elif [ "$ref" = NOT-BUILT ]; then
		skip "selftests/$t" "not built: a program or skeleton of it did not compile against this kernel ($OUT/d2b-build.log)"
	elif [ -n "$lost" ]; then
		fail "selftests/$t" "OK with pahole 1.32's BTF, not with ours: $lost"
	elif ! grep -q "	OK	" "$WORK/entries"; then
		skip "selftests/$t" "nothing of it passes with pahole 1.32's BTF either ($ref)"
	else
		pass "selftests/$t ($(summary ours "$t"))"
	fi
done
sed 's/^/# /' "$table" | grep -v '^# #'
if ! cmp -s "$WORK/ours.dmesg" "$WORK/pahole132.dmesg"; then
	note "kernel log lines (errors, warnings) of one guest only (<: ours, >: pahole 1.32):"
	diff "$WORK/ours.dmesg" "$WORK/pahole132.dmesg" | grep '^[<>]' | head -n 12 | sed 's/^/#   /'
fi

test_done
