#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# End-to-end tests: compile C fixtures with real compilers, convert them with
# dwarf2btf, and check the BTF by type name, in the kernel and with bpftool.
#
#	tests/e2e/run.sh BUILD_DIR
#
# For each fixture tests/e2e/fixtures/NAME.{c,cc} and each build of it:
#   convert	dwarf2btf -o out.btf FILE exits 0
#   check	tests/btf_check out.btf NAME.expect (lines tagged for the build)
#   load	tests/btf_load out.btf: the kernel accepts it (SKIP only if the
#		kernel cannot be asked: btf_load exit 2)
#   bpftool	bpftool btf dump file out.btf succeeds
#   inplace	dwarf2btf COPY writes .BTF into a copy; bpftool reads it back,
#		the section equals out.btf, an executable still runs
#   jobs	dwarf2btf --jobs=2 and --jobs=4 (units listed by our reader on a
#		thread of its own) write the same bytes as --jobs=1 and the default
# A C++ fixture (NAME.cc) is converted twice: with --cxx-names, C++ names,
# which the kernel refuses by design (no load step), and by default, with
# names the kernel accepts, whose BTF goes through every step (tag
# @kernelnames in NAME.expect); the mixed C and C++ program also with
# --kernel-names, which is the default.
# Builds: the main fixture (types.c) in the full matrix {gcc, clang-14,
# clang-19} x {-O0, -O2} x {-gdwarf-4, -gdwarf-5} as objects, plus file
# variants (executable, shared library, -gz=zlib, legacy .zdebug, separate
# debug file) for some of them; the other fixtures in a reduced matrix.
# Then: the oracle (LLVM's own BTF from clang -target bpf, against ours from
# the same object's DWARF), malformed inputs (malformed.sh), and a
# self-test of the tools (they must be able to fail).
#
# Fixture headers (comment lines in the source):
#	// e2e-cflags: -std=gnu89	extra compiler flags
#	// e2e-compilers: gcc clang-19	only these compilers
#	// e2e-oracle			also run the clang -target bpf oracle
#	// e2e-link			the "obj" build is an executable (with
#					-DWITH_MAIN): what a relocatable object
#					cannot hold whole (type units: one COMDAT
#					section each, of which libdw reads one)
# Expectation lines starting with @TAG apply only to matching builds: @gcc
# @clang (any clang) @clang-14 @clang-19 @O0 @O2 @dwarf4 @dwarf5 @obj @exe
# @so @kernelnames; @!TAG negates.  Several tags must all hold.
#
# Environment:
#	D2B_E2E_MATRIX=reduced	fewer builds (CI's sanitizer run)
#	D2B_E2E_CONVERTER=PATH	test another converter (e.g. fake-dwarf2btf,
#				to check this harness itself)
#	D2B_E2E_KEEP=1		keep the work directory and print its path

set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi

# Known failures (tests/e2e/known-failures: "PREFIX reason" lines): a FAIL
# whose name starts with PREFIX is shown as "SKIP ...: known failure", and
# a PREFIX that no longer fails at all is itself a FAIL, so the list cannot
# go stale.  The whole run is piped through that filter.
if [ -z "${D2B_E2E_FILTERED:-}" ]; then
	D2B_E2E_FILTERED=1 bash "$0" "$@" | awk -v list="$(dirname "$0")/known-failures" '
	BEGIN {
		while ((getline line < list) > 0) {
			if (line ~ /^[ \t]*(#|$)/) continue
			n++; prefix[n] = line; sub(/[ \t].*/, "", prefix[n])
			reason[n] = line; sub(/^[^ \t]+[ \t]*/, "", reason[n])
		}
	}
	/^FAIL / {
		for (i = 1; i <= n; i++) {
			if (index(substr($0, 6), prefix[i]) == 1) {
				hit[i]++
				name = substr($0, 6); sub(/: .*/, "", name)
				print "SKIP " name ": known failure: " reason[i]
				next
			}
		}
	}
	{ print; fflush() }
	END {
		for (i = 1; i <= n; i++)
			if (!hit[i])
				print "FAIL e2e/known-failures/" prefix[i] ": no longer fails; remove it from tests/e2e/known-failures"
	}'
	exit "${PIPESTATUS[0]}"
fi
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/fixtures
D2B=${D2B_E2E_CONVERTER:-$BUILD/dwarf2btf}
CHECK=$BUILD/tests/btf_check
LOAD=$BUILD/tests/btf_load
MATRIX=${D2B_E2E_MATRIX:-full}
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)

. "$HERE/../lib.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-e2e.XXXXXX")
if [ -n "${D2B_E2E_KEEP:-}" ]; then
	note "work directory: $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi

# ---- tools --------------------------------------------------------------

have_tools=1
for t in "$CHECK" "$LOAD"; do
	if [ ! -x "$t" ]; then
		fail "e2e/tools" "$t not built (make O=$BUILD tests)"
		have_tools=0
	fi
done
[ $have_tools -eq 1 ] || exit 1
have_bpftool=1
[ -x "$BPFTOOL" ] || have_bpftool=0

# compiler name -> C driver and C++ driver ("" if missing)
cc_of() {
	case $1 in
	gcc) command -v gcc ;;
	clang-14) command -v clang-14 || { clang --version 2>/dev/null | grep -q 'version 14' && command -v clang; } ;;
	clang-19) command -v clang-19 ;;
	esac
}
cxx_of() {
	case $1 in
	gcc) command -v g++ ;;
	clang-14) command -v clang++-14 || { clang++ --version 2>/dev/null | grep -q 'version 14' && command -v clang++; } ;;
	clang-19) command -v clang++-19 ;;
	esac
}

COMPILERS=(gcc clang-14 clang-19)
for c in "${COMPILERS[@]}"; do
	[ -n "$(cc_of "$c")" ] || skip "e2e/$c" "compiler $c not installed (tests/install-deps.sh test)"
done

# ---- self-test of the tools: each must be able to fail ------------------

selftest_load()
{
	local d=$WORK/selftest k rc
	mkdir -p "$d"
	for k in good badref intbits ptrname loop magic split splitbad; do
		if ! python3 "$HERE/mkblob.py" "$k" "$d/$k.btf"; then
			fail "e2e/selftest/btf_load/$k" "mkblob.py failed"
			return
		fi
	done
	"$LOAD" "$d/good.btf" >"$d/out" 2>&1
	rc=$?
	if [ $rc -eq 2 ]; then
		skip "e2e/selftest/btf_load" "$(tail -n 1 "$d/out")"
		LOAD_SKIP="the kernel cannot be asked here (see e2e/selftest/btf_load)"
		return
	fi
	[ $rc -eq 0 ] && pass "e2e/selftest/btf_load/good" ||
		{ fail "e2e/selftest/btf_load/good" "a valid blob was refused (exit $rc)"; show "$d/out"; }
	"$LOAD" "$d/split.btf" --base "$d/good.btf" >"$d/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && pass "e2e/selftest/btf_load/split" ||
		{ fail "e2e/selftest/btf_load/split" "valid split BTF was refused (exit $rc)"; show "$d/out"; }
	for k in badref intbits ptrname loop magic; do
		"$LOAD" "$d/$k.btf" >"$d/out" 2>&1
		rc=$?
		[ $rc -eq 1 ] && pass "e2e/selftest/btf_load/$k-rejected" ||
			fail "e2e/selftest/btf_load/$k-rejected" "broken blob not rejected (exit $rc)"
	done
	"$LOAD" "$d/splitbad.btf" --base "$d/good.btf" >"$d/out" 2>&1
	rc=$?
	[ $rc -eq 1 ] && pass "e2e/selftest/btf_load/splitbad-rejected" ||
		fail "e2e/selftest/btf_load/splitbad-rejected" "broken split BTF not rejected (exit $rc)"
}

selftest_check()
{
	local d=$WORK/selftest cc
	cc=$(cc_of clang-19)
	[ -n "$cc" ] || cc=$(cc_of clang-14)
	if [ -z "$cc" ]; then
		skip "e2e/selftest/btf_check" "no clang to make reference BTF"
		return
	fi
	if ! "$cc" -target bpf -g -O2 -c "$FIX/types.c" -o "$d/ref.o" 2>"$d/cc.err"; then
		# types.c has x86-only parts; fall back to a tiny source
		printf 'struct s { int a; long b[2][3]; unsigned c:3; };\nstruct s v;\n' >"$d/ref.c"
		"$cc" -target bpf -g -O2 -c "$d/ref.c" -o "$d/ref.o" ||
			{ fail "e2e/selftest/btf_check" "clang -target bpf failed"; return; }
	fi
	"$CHECK" --describe "$d/ref.o" >"$d/ref.expect"
	if [ $? -ne 0 ] || [ ! -s "$d/ref.expect" ]; then
		fail "e2e/selftest/btf_check/describe" "btf_check --describe failed"
		return
	fi
	if "$CHECK" "$d/ref.o" "$d/ref.expect" >"$d/out" 2>&1; then
		pass "e2e/selftest/btf_check/describe-roundtrip"
	else
		fail "e2e/selftest/btf_check/describe-roundtrip" "BTF fails its own description"
		grep '^FAIL' "$d/out" | show /dev/stdin
	fi
	# every description line, made wrong, must fail
	sed -E 's/size=([0-9]+)/size=\1999/; s/bitoffset=([0-9]+)/bitoffset=\1999/;
		s/type="([^"]*)"/type="\1 *"/; s/^typedef (.*)$/typedef \1 */' \
		"$d/ref.expect" | grep -E 'size=|bitoffset=|type=|^typedef' >"$d/wrong.expect"
	"$CHECK" "$d/ref.o" "$d/wrong.expect" >"$d/out" 2>&1
	if grep -q '^PASS' "$d/out"; then
		fail "e2e/selftest/btf_check/mutations" "a wrong expectation passed"
		grep '^PASS' "$d/out" | show /dev/stdin
	elif ! grep -q '^FAIL' "$d/out"; then
		fail "e2e/selftest/btf_check/mutations" "no FAIL line"
	else
		pass "e2e/selftest/btf_check/mutations ($(grep -c '^FAIL' "$d/out") wrong lines caught)"
	fi
}

selftest_load
selftest_check

if [ ! -f "$D2B" ] || [ ! -x "$D2B" ]; then
	fail "e2e/dwarf2btf" "$D2B not built"
	note "nothing else can run without the converter"
	exit 1
fi

# ---- one build ----------------------------------------------------------

# check_btf NAME BTF EXPECT TAGS: btf_check, one PASS for all, FAILs as they are
check_btf()
{
	local name=$1 btf=$2 expect=$3 tags=$4 out=$WORK/check.out n
	[ -f "$expect" ] || return 0
	filter_expect "$tags" "$expect" >"$WORK/expect.now"
	"$CHECK" -p "$name/check: " "$btf" "$WORK/expect.now" >"$out" 2>&1
	n=$(grep -c '^PASS' "$out")
	if grep -q '^FAIL' "$out"; then
		grep '^FAIL' "$out"
	elif [ "$n" -gt 0 ]; then
		pass "$name/check ($n expectations)"
	else
		fail "$name/check" "btf_check printed nothing"
		show "$out"
	fi
}

bpftool_btf()
{
	local name=$1 file=$2 out=$WORK/bpftool.out
	if [ $have_bpftool -eq 0 ]; then
		skip "$name/bpftool" "bpftool not installed"
		return
	fi
	if "$BPFTOOL" btf dump file "$file" >"$out" 2>&1 && [ -s "$out" ]; then
		pass "$name/bpftool"
	else
		fail "$name/bpftool" "bpftool btf dump file failed"
		show "$out" 3
	fi
}

# convert NAME INPUT OUT [ARGS...]: dwarf2btf -o OUT INPUT; 0 if it worked
convert()
{
	local name=$1 in=$2 out=$3 rc
	shift 3
	rm -f "$out"
	# shellcheck disable=SC2086
	"$D2B" ${CONV_ARGS:-} "$@" -o "$out" "$in" >"$WORK/convert.out" 2>"$WORK/convert.err" </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name/convert" "dwarf2btf exited $rc"
		show "$WORK/convert.err"
		return 1
	fi
	if [ ! -s "$out" ]; then
		fail "$name/convert" "dwarf2btf exited 0 but wrote no $out"
		return 1
	fi
	pass "$name/convert"
}

# inplace NAME FILE REF_BTF RUN: convert a copy in place
inplace()
{
	local name=$1 file=$2 ref=$3 run=$4 copy=$WORK/inplace.copy rc
	cp -p "$file" "$copy"
	# shellcheck disable=SC2086
	"$D2B" ${CONV_ARGS:-} "$copy" >"$WORK/convert.out" 2>"$WORK/convert.err" </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name/inplace" "dwarf2btf FILE exited $rc"
		show "$WORK/convert.err"
		return
	fi
	rm -f "$WORK/inplace.btf"
	if ! objcopy --dump-section .BTF="$WORK/inplace.btf" "$copy" "$WORK/objcopy.junk" \
		2>"$WORK/objcopy.err" ||
	   [ ! -s "$WORK/inplace.btf" ]; then
		fail "$name/inplace" "no .BTF section in the converted file"
		show "$WORK/objcopy.err" 3
		return
	fi
	if ! cmp -s "$WORK/inplace.btf" "$ref"; then
		fail "$name/inplace" "the .BTF written in place differs from -o's"
		return
	fi
	if ! readelf -S -W "$copy" >/dev/null 2>"$WORK/readelf.err" || [ -s "$WORK/readelf.err" ]; then
		fail "$name/inplace" "readelf complains about the rewritten file"
		show "$WORK/readelf.err" 3
		return
	fi
	if [ "$run" = run ] && ! "$copy" >/dev/null 2>&1; then
		fail "$name/inplace" "the converted executable no longer runs"
		return
	fi
	pass "$name/inplace"
	bpftool_btf "$name/inplace" "$copy"
}

# test_file NAME FILE EXPECT TAGS [inplace|-] [run|-]
# (environment: CONV_ARGS, dwarf2btf's options; NO_LOAD=1: no load step)
test_file()
{
	local name=$1 file=$2 expect=$3 tags=$4 do_inplace=${5:--} run=${6:--}
	local out=$WORK/out.btf
	convert "$name" "$file" "$out" || return
	check_btf "$name" "$out" "$expect" "$tags"
	[ -n "${NO_LOAD:-}" ] || load_btf "$name" "$out"
	bpftool_btf "$name" "$out"
	[ "$do_inplace" = inplace ] && inplace "$name" "$file" "$out" "$run"
	return 0
}

# header_of FIXTURE KEY: the value of a "// e2e-KEY: value" line
header_of() { sed -n "s|^// e2e-$2:[ ]*||p" "$1" | head -n 1; }

# build_and_test FIXTURE COMPILER OPT DWARF VARIANTS...
# variants: obj exe so gz zdebug debug inplace jobs
build_and_test()
{
	local src=$1 comp=$2 opt=$3 dw=$4
	shift 4
	local variants=" $* " base ext cc cflags tags name dir expect allowed
	base=$(basename "$src"); ext=${base##*.}; base=${base%.*}
	expect=$FIX/$base.expect
	allowed=$(header_of "$src" compilers)
	if [ -n "$allowed" ] && [[ " $allowed " != *" $comp "* ]]; then
		return
	fi
	if [ "$ext" = cc ]; then cc=$(cxx_of "$comp"); else cc=$(cc_of "$comp"); fi
	[ -n "$cc" ] || return	# reported once above
	cflags="$opt -gdwarf-${dw#dwarf} $(header_of "$src" cflags)"
	tags="$comp ${comp%%-*} $opt ${opt#-} $dw"
	name="e2e/$base/$comp$opt-$dw"
	dir=$WORK/$base-$comp$opt-$dw
	mkdir -p "$dir"

	local compile_only=-c
	grep -q '^// e2e-link' "$src" && compile_only=-DWITH_MAIN
	# shellcheck disable=SC2086
	if ! "$cc" $cflags $compile_only "$src" -o "$dir/obj.o" 2>"$dir/cc.err"; then
		fail "$name/compile" "$cc $cflags -c failed"
		show "$dir/cc.err"
		return
	fi
	if [[ $variants == *" obj "* ]]; then
		local ip=-
		[[ $variants == *" inplace "* ]] && ip=inplace
		if [ "$ext" = cc ]; then
			CONV_ARGS=--cxx-names NO_LOAD=1 test_file "$name/cxx-names" "$dir/obj.o" \
				"$expect" "$tags obj"
			test_file "$name/obj" "$dir/obj.o" "$expect" "$tags obj kernelnames" $ip
		else
			test_file "$name/obj" "$dir/obj.o" "$expect" "$tags obj" $ip
		fi
	elif [[ $variants == *" inplace "* ]]; then
		# the object itself was tested by another build of the matrix
		"$D2B" -o "$dir/ref.btf" "$dir/obj.o" 2>/dev/null &&
			inplace "$name/obj" "$dir/obj.o" "$dir/ref.btf" -
	fi
	if [[ $variants == *" jobs "* ]]; then
		if ! "$D2B" -o "$dir/j0.btf" "$dir/obj.o" 2>"$dir/j.err" ||
		   ! "$D2B" --jobs=1 -o "$dir/j1.btf" "$dir/obj.o" 2>>"$dir/j.err" ||
		   ! "$D2B" --jobs=2 -o "$dir/j2.btf" "$dir/obj.o" 2>>"$dir/j.err" ||
		   ! "$D2B" --jobs=4 -o "$dir/j4.btf" "$dir/obj.o" 2>>"$dir/j.err"; then
			fail "$name/jobs-deterministic" "dwarf2btf [--jobs=1|2|4] failed"
			show "$dir/j.err" 3
		elif ! cmp -s "$dir/j0.btf" "$dir/j1.btf" || ! cmp -s "$dir/j0.btf" "$dir/j2.btf" ||
		     ! cmp -s "$dir/j0.btf" "$dir/j4.btf"; then
			fail "$name/jobs-deterministic" "the output depends on the number of jobs"
		else
			pass "$name/jobs-deterministic"
		fi
	fi
	if [[ $variants == *" gz "* ]]; then
		# shellcheck disable=SC2086
		if "$cc" $cflags -gz=zlib -c "$src" -o "$dir/gz.o" 2>"$dir/cc.err"; then
			test_file "$name/gz" "$dir/gz.o" "$expect" "$tags obj"
		else
			skip "$name/gz" "$comp cannot -gz=zlib: $(head -n 1 "$dir/cc.err")"
		fi
	fi
	if [[ $variants == *" zdebug "* ]]; then
		if objcopy --compress-debug-sections=zlib-gnu "$dir/obj.o" "$dir/zdebug.o" 2>"$dir/oc.err" &&
		   readelf -S -W "$dir/zdebug.o" | grep -q '\.zdebug_info'; then
			test_file "$name/zdebug" "$dir/zdebug.o" "$expect" "$tags obj"
		else
			skip "$name/zdebug" "objcopy cannot write .zdebug sections here"
		fi
	fi
	if [[ $variants == *" exe "* || $variants == *" debug "* ]]; then
		# shellcheck disable=SC2086
		if ! "$cc" $cflags -DWITH_MAIN "$src" -o "$dir/exe" 2>"$dir/cc.err"; then
			fail "$name/exe/link" "$cc $cflags -DWITH_MAIN failed"
			show "$dir/cc.err"
		elif ! "$dir/exe" >/dev/null 2>&1; then
			fail "$name/exe/run" "the fixture program fails before conversion"
		else
			[[ $variants == *" exe "* ]] &&
				test_file "$name/exe" "$dir/exe" "$expect" "$tags exe" inplace run
			if [[ $variants == *" debug "* ]]; then
				# separate debug file: convert it directly, then the stripped
				# program that points to it with .gnu_debuglink
				objcopy --only-keep-debug "$dir/exe" "$dir/exe.debug" &&
				objcopy --strip-debug --add-gnu-debuglink="$dir/exe.debug" \
					"$dir/exe" "$dir/exe.stripped"
				test_file "$name/debugfile" "$dir/exe.debug" "$expect" "$tags exe"
				(cd "$dir" && test_file "$name/debuglink" "exe.stripped" "$expect" "$tags exe")
			fi
		fi
	fi
	if [[ $variants == *" so "* ]]; then
		# shellcheck disable=SC2086
		if "$cc" $cflags -fPIC -shared "$src" -o "$dir/lib.so" 2>"$dir/cc.err"; then
			test_file "$name/so" "$dir/lib.so" "$expect" "$tags so" inplace
		else
			fail "$name/so/link" "$cc -shared failed"
			show "$dir/cc.err"
		fi
	fi
	[ -n "${D2B_E2E_KEEP:-}" ] || rm -rf "$dir"
}

# ---- the matrix ---------------------------------------------------------

MAIN=$FIX/types.c
if [ "$MATRIX" = full ]; then
	for comp in "${COMPILERS[@]}"; do
		for opt in -O0 -O2; do
			for dw in dwarf4 dwarf5; do
				build_and_test "$MAIN" "$comp" "$opt" "$dw" obj
			done
		done
	done
	build_and_test "$MAIN" gcc -O2 dwarf5 inplace jobs gz zdebug exe so debug
	build_and_test "$MAIN" clang-19 -O2 dwarf5 inplace gz zdebug exe so debug
	build_and_test "$MAIN" clang-14 -O0 dwarf4 inplace exe so
	build_and_test "$MAIN" gcc -O0 dwarf4 zdebug debug
else
	build_and_test "$MAIN" gcc -O2 dwarf5 obj inplace gz zdebug exe so debug
	build_and_test "$MAIN" clang-19 -O0 dwarf4 obj
fi

for src in "$FIX"/*.c "$FIX"/*.cc; do
	[ -f "$src" ] && [ "$src" != "$MAIN" ] || continue
	build_and_test "$src" gcc -O2 dwarf5 obj inplace
	build_and_test "$src" clang-19 -O0 dwarf4 obj
	[ "$MATRIX" = full ] && build_and_test "$src" clang-14 -O2 dwarf5 obj
	[ "$MATRIX" = full ] && build_and_test "$src" gcc -O0 dwarf4 obj
done

# ---- C and C++ units in one program ---------------------------------------

# types.c (with main) and cxx.cc linked together: the C units' BTF is what
# it is alone (types.expect), the C++ ones' too (cxx.expect), both ways
mixed()
{
	local name=e2e/mixed/gcc-O2-dwarf5 dir=$WORK/mixed cc cxx
	cc=$(cc_of gcc)
	cxx=$(cxx_of gcc)
	if [ -z "$cc" ] || [ -z "$cxx" ]; then
		skip "$name" "gcc or g++ not installed"
		return
	fi
	mkdir -p "$dir"
	printf 'struct ext { virtual int f(); int a; };\nint ext::f() { return a; }\n' >"$dir/ext.cc"
	if ! "$cc" -O2 -gdwarf-5 -DWITH_MAIN -c "$FIX/types.c" -o "$dir/types.o" 2>"$dir/cc.err" ||
	   ! "$cxx" -O2 -gdwarf-5 -c "$FIX/cxx.cc" -o "$dir/cxx.o" 2>>"$dir/cc.err" ||
	   ! "$cxx" -O2 -c "$dir/ext.cc" -o "$dir/ext.o" 2>>"$dir/cc.err" ||
	   ! "$cxx" "$dir/types.o" "$dir/cxx.o" "$dir/ext.o" -o "$dir/mixed" 2>>"$dir/cc.err"; then
		fail "$name/build" "compiling or linking types.c and cxx.cc failed"
		show "$dir/cc.err"
		return
	fi
	CONV_ARGS=--cxx-names NO_LOAD=1 test_file "$name" "$dir/mixed" "$FIX/types.expect" \
		"gcc gcc -O2 O2 dwarf5 exe"
	check_btf "$name/cxx" "$WORK/out.btf" "$FIX/cxx.expect" "gcc gcc -O2 O2 dwarf5 exe"
	CONV_ARGS=--kernel-names test_file "$name/kernel-names" "$dir/mixed" "$FIX/types.expect" \
		"gcc gcc -O2 O2 dwarf5 exe kernelnames"
	check_btf "$name/kernel-names/cxx" "$WORK/out.btf" "$FIX/cxx.expect" \
		"gcc gcc -O2 O2 dwarf5 exe kernelnames"
}
mixed

# ---- the oracle: LLVM's own BTF -----------------------------------------

oracle()
{
	local src=$1 base cc name dir
	base=$(basename "$src" .c)
	name="e2e/llvm-oracle/$base"
	dir=$WORK/oracle-$base
	cc=$(cc_of clang-19)
	if [ -z "$cc" ]; then
		skip "$name" "clang-19 not installed"
		return
	fi
	mkdir -p "$dir"
	if ! "$cc" -target bpf -g -O2 -c "$src" -o "$dir/bpf.o" 2>"$dir/cc.err"; then
		fail "$name/compile" "clang-19 -target bpf failed"
		show "$dir/cc.err"
		return
	fi
	# LLVM's .BTF, described by name, less what DWARF cannot or need not say:
	#  __ARRAY_SIZE_TYPE__  LLVM's private array index type
	#  datasec sizes are 0 in an unlinked BPF object (libbpf fills them in)
	"$CHECK" --describe "$dir/bpf.o" |
		grep -v -e '^int __ARRAY_SIZE_TYPE__ ' >"$dir/llvm.expect"
	if [ ! -s "$dir/llvm.expect" ]; then
		fail "$name/describe" "no description of LLVM's BTF"
		return
	fi
	convert "$name" "$dir/bpf.o" "$dir/ours.btf" || return
	"$CHECK" -p "$name/llvm: " "$dir/ours.btf" "$dir/llvm.expect" >"$dir/out" 2>&1
	if grep -q '^FAIL' "$dir/out"; then
		grep '^FAIL' "$dir/out"
	else
		pass "$name/llvm ($(grep -c '^PASS' "$dir/out") expectations from LLVM's BTF)"
	fi
	[ -f "$FIX/$base.expect" ] && check_btf "$name" "$dir/ours.btf" "$FIX/$base.expect" "clang-19 clang -O2 O2 dwarf5 obj bpf"
	load_btf "$name" "$dir/ours.btf"
}

for src in "$FIX"/*.c; do
	grep -q '^// e2e-oracle' "$src" && oracle "$src"
done

# ---- malformed inputs ---------------------------------------------------

bash "$HERE/malformed.sh" "$D2B" "$WORK/malformed"
test_done
