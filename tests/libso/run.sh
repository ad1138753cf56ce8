#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# libdwarf2btf.so as another program sees it:
#
#	tests/libso/run.sh BUILD_DIR
#
#   symbols, abidiff, soname, exports-public-api
#			its soname and exported symbols (nm -D) are
#			tests/libso/abi/'s, and only lib/dwarf2btf.h's
#			functions, all of them; abidiff finds no ABI change
#			(tests/libso/abi.sh)
#   no-print-no-exit	it uses neither stdout, stderr, printf(), exit(),
#			abort() nor their kin (nm -D --undefined-only)
#   man-page		man/libdwarf2btf.3 names every exported function
#   install		make install into a scratch prefix puts the library,
#			its links, the archive, dwarf2btf.h, dwarf2btf.pc and
#			libdwarf2btf.3 in place
#   pkg-config		pkg-config --cflags --libs dwarf2btf from there
#   example/build	examples/convert.c builds with those flags (-Werror)
#			and runs on the installed libdwarf2btf.so.1
#   example/c++		a C++ program includes dwarf2btf.h and links with it
#   example/sample	its BTF bytes of tests/sample/sample.o, from the file,
#			from memory (-m) and with -j2, are dwarf2btf -o's
#   example/module	the same for a module of the corpus over its vmlinux
#			(D2B_CORPUS or /root/.cache/dwarf2btf-corpus; SKIP
#			without it)
#   cli-shared/*	the command line built on the installed library
#			(pkg-config) behaves as the one built on the archive:
#			--help, --version, in place (-v), --dump, an error,
#			and as dwarf2btf-pahole (--version, -J)
#   uninstall		make uninstall leaves no file in the prefix
#
# The library's in-process behaviour (errors, memory input, threads) is
# tests/unit/test_convert_api.c's.

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
SRC=$(cd "$HERE/../.." && pwd)
# the file the soname's link names: a build directory may still hold the
# library of an older SOMINOR beside it
SOLIB=$(readlink -f "$BUILD/libdwarf2btf.so.1" 2>/dev/null)
if [ -z "$SOLIB" ]; then
	solibs=("$BUILD"/libdwarf2btf.so.*.*.*)
	SOLIB=${solibs[0]}
fi
CLI=$BUILD/dwarf2btf
SAMPLE=$SRC/tests/sample/sample.o
CC=${CC:-cc}
CORPUS=${D2B_CORPUS:-/root/.cache/dwarf2btf-corpus}
MODULE=kernel/net/key/af_key.ko

if [ ! -f "$SOLIB" ] || [ ! -x "$CLI" ]; then
	fail setup "no $BUILD/libdwarf2btf.so.* or dwarf2btf (make O=... tests)"
	exit 1
fi
for tool in nm readelf pkg-config make "$CC"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		skip libso "$tool not found"
		exit 0
	fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-libso.XXXXXX") || { fail setup "no scratch directory"; exit 1; }
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix


# ---- the symbols ----
bash "$HERE/abi.sh" check "$SOLIB"

soname=$(readelf -d "$SOLIB" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "soname $soname" = "$(head -n 1 "$HERE/abi/symbols")" ] && [ -e "$BUILD/$soname" ]; then
	pass soname
else
	fail soname "'$soname' (and its link in $BUILD), not tests/libso/abi/symbols's"
fi

# every d2b_ function the library defines is exported (so every one that
# dwarf2btf.h declares: the rest are static inline), and nothing else is
nm -D --defined-only "$SOLIB" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
	LC_ALL=C sort >"$WORK/exported"
nm "$BUILD/libdwarf2btf.a" 2>/dev/null | awk '$2 == "T" && $3 ~ /^d2b_/ { print $3 }' |
	LC_ALL=C sort -u >"$WORK/public"
if [ -s "$WORK/public" ] && cmp -s "$WORK/exported" "$WORK/public"; then
	pass exports-public-api
else
	diff "$WORK/public" "$WORK/exported" | sed 's/^/# /' | head -n 20
	fail exports-public-api "nm -D is not the d2b_ functions of the archive ('<': not exported, '>': not public)"
fi

# the library never prints (but to a stream it is given) and never exits:
# it reaches for none of the C library's ways to
nm -D --undefined-only "$SOLIB" | awk '{ sub(/@.*/, "", $2); print $2 }' >"$WORK/undef"
banned=$(grep -xE 'stdout|stderr|printf|vprintf|puts|putchar|perror|err|errx|warn|warnx|error|exit|_exit|_Exit|abort|quick_exit' \
	"$WORK/undef" | tr '\n' ' ')
if [ -s "$WORK/undef" ] && [ -z "$banned" ]; then
	pass no-print-no-exit
else
	fail no-print-no-exit "the library uses ${banned:-nothing at all?}"
fi

# libdwarf2btf.3 documents every exported function
undocumented=
while read -r f; do
	grep -q "$f\b" "$SRC/man/libdwarf2btf.3" || undocumented="$undocumented $f"
done <"$WORK/exported"
if [ -s "$WORK/exported" ] && [ -z "$undocumented" ]; then
	pass man-page
else
	fail man-page "man/libdwarf2btf.3 does not name:$undocumented"
fi

# ---- install, pkg-config ----
# A library built with sanitizers: make install is told (so that nothing
# is made again without them), and the programs need their runtime too.
san=
undef=$(nm -D --undefined-only "$SOLIB")
[[ $undef == *__asan_* ]] && san=$san,address
[[ $undef == *__ubsan_* ]] && san=$san,undefined
[[ $undef == *__tsan_* ]] && san=$san,thread
san=${san#,}
sanflags=${san:+-fsanitize=$san}

if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$SRC" O="$BUILD" PREFIX="$PREFIX" \
	${san:+SANITIZE=$san} install >"$WORK/install.log" 2>&1; then
	missing=
	for f in lib/libdwarf2btf.so lib/"$soname" lib/"$(basename "$SOLIB")" lib/libdwarf2btf.a \
		 include/dwarf2btf.h lib/pkgconfig/dwarf2btf.pc share/man/man3/libdwarf2btf.3 \
		 bin/dwarf2btf; do
		[ -e "$PREFIX/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		pass install
	else
		fail install "missing:$missing"
	fi
else
	show_tail "$WORK/install.log"
	fail install "make install PREFIX=$PREFIX failed"
	exit 1
fi

export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
export LD_LIBRARY_PATH=$PREFIX/lib
flags=$(pkg-config --cflags --libs dwarf2btf 2>"$WORK/pc.err")
static=$(pkg-config --static --libs dwarf2btf 2>>"$WORK/pc.err")
if [ -n "$flags" ] && [[ $flags == *-ldwarf2btf* ]] && [[ $static == *-ldw* ]] &&
   [[ $static == *-lelf* ]] && [[ $static == *-lz* ]]; then
	pass pkg-config
else
	show_tail "$WORK/pc.err"
	fail pkg-config "'$flags' / static '$static'"
fi

# ---- the example ----
EX=$WORK/convert
# shellcheck disable=SC2086
if $CC -std=gnu11 -Wall -Wextra -Werror $sanflags -o "$EX" "$SRC/examples/convert.c" $flags \
	>"$WORK/cc.log" 2>&1 && ldd "$EX" | grep -q "$PREFIX/lib/$soname"; then
	pass example/build
else
	show_tail "$WORK/cc.log"
	fail example/build "examples/convert.c does not build on the installed library"
	exit 1
fi

# a C++ program (bpftrace is one) includes the header and links as well
if command -v "${CXX:-g++}" >/dev/null 2>&1; then
	cat >"$WORK/cxx.cc" <<-'EOF'
	#include <dwarf2btf.h>
	int main()
	{
		char err[64];
		struct d2b_opts opts = {};
		struct d2b_btf *btf = nullptr;

		opts.errbuf = err;
		opts.errlen = sizeof(err);
		return d2b_convert_file("/nonexistent.o", nullptr, &opts, &btf) == -2 && err[0] ? 0 : 1;
	}
	EOF
	# shellcheck disable=SC2086
	if "${CXX:-g++}" -Wall -Wextra -Werror $sanflags -o "$WORK/cxx" "$WORK/cxx.cc" $flags \
		>"$WORK/cxx.log" 2>&1 && "$WORK/cxx" >>"$WORK/cxx.log" 2>&1; then
		pass example/c++
	else
		show_tail "$WORK/cxx.log"
		fail example/c++ "dwarf2btf.h does not build, link or run as C++"
	fi
else
	skip example/c++ "no C++ compiler (${CXX:-g++})"
fi

# same_bytes NAME CLI-ARGS -- EXAMPLE-ARGS: dwarf2btf -o and the example agree
same_bytes()
{
	local name=$1 cli=() ex=()

	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do cli+=("$1"); shift; done
	shift
	ex=("$@")
	if ! "$CLI" -o "$WORK/cli.btf" "${cli[@]}" >"$WORK/cli.log" 2>&1; then
		show_tail "$WORK/cli.log"
		fail "$name" "dwarf2btf ${cli[*]} failed"
	elif ! "$EX" "${ex[@]}" "$WORK/ex.btf" >"$WORK/ex.log" 2>&1; then
		show_tail "$WORK/ex.log"
		fail "$name" "convert ${ex[*]} failed"
	elif ! cmp -s "$WORK/cli.btf" "$WORK/ex.btf"; then
		fail "$name" "not dwarf2btf's bytes ($(stat -c %s "$WORK/ex.btf") against $(stat -c %s "$WORK/cli.btf"))"
	else
		head -n 1 "$WORK/ex.log" | sed 's/^/# /'
		pass "$name"
	fi
}

same_bytes example/sample "$SAMPLE" -- "$SAMPLE"
same_bytes example/sample-memory "$SAMPLE" -- -m "$SAMPLE"
same_bytes example/sample-j2 -j2 "$SAMPLE" -- -j 2 "$SAMPLE"
if "$EX" /nonexistent.o "$WORK/x.btf" 2>"$WORK/err.log"; then
	fail example/error "converted a file that does not exist"
elif grep -qx "convert: /nonexistent.o: No such file or directory" "$WORK/err.log"; then
	pass example/error
else
	show_tail "$WORK/err.log"
	fail example/error "not the one line with errbuf's message"
fi

if [ -f "$CORPUS/VERSION" ] && [ -f "$CORPUS/vmlinux" ] && [ -f "$CORPUS/modules/$MODULE" ]; then
	same_bytes example/module -b "$CORPUS/vmlinux" "$CORPUS/modules/$MODULE" -- \
		-b "$CORPUS/vmlinux" -j 2 "$CORPUS/modules/$MODULE"
	same_bytes example/module-memory -b "$CORPUS/vmlinux" "$CORPUS/modules/$MODULE" -- \
		-b "$CORPUS/vmlinux" -m "$CORPUS/modules/$MODULE"
else
	skip example/module "no corpus at $CORPUS (set D2B_CORPUS, or run /work/shared/corpus/fetch-debian-kernel.sh)"
fi

# ---- the command line on the shared library ----
# Both built programs, each as dwarf2btf and dwarf2btf-pahole in a folder of
# its own (a/: the archive's, b/: the shared library's), run in that folder.
mkdir -p "$WORK/a" "$WORK/b"
ln -s "$CLI" "$WORK/a/dwarf2btf"
ln -s dwarf2btf "$WORK/a/dwarf2btf-pahole"
ln -s dwarf2btf "$WORK/b/dwarf2btf-pahole"
# shellcheck disable=SC2086
if $CC -std=gnu11 -D_GNU_SOURCE -pthread $sanflags -I"$SRC/dwarf2btf" -o "$WORK/b/dwarf2btf" \
	"$SRC"/dwarf2btf/*.c $flags >"$WORK/cli-cc.log" 2>&1 &&
   ldd "$WORK/b/dwarf2btf" | grep -q "$PREFIX/lib/$soname"; then
	pass cli-shared/build
else
	show_tail "$WORK/cli-cc.log"
	fail cli-shared/build "dwarf2btf/*.c does not build on the installed library"
	exit 0
fi

# run_both NAME PROG ARGS...: the same output, status and x.o from both
run_both()
{
	local name=$1 prog=$2 d out=()

	shift 2
	for d in a b; do
		cp "$SAMPLE" "$WORK/$d/x.o"
		out+=("$(cd "$WORK/$d" && "./$prog" "$@" 2>&1; echo "exit $?")")
	done
	if [ "${out[0]}" != "${out[1]}" ]; then
		printf '# archive: %s\n# shared:  %s\n' "$(head -c 300 <<<"${out[0]}")" \
			"$(head -c 300 <<<"${out[1]}")"
		fail "cli-shared/$name" "outputs differ"
	elif ! cmp -s "$WORK/a/x.o" "$WORK/b/x.o"; then
		fail "cli-shared/$name" "the files written differ"
	else
		pass "cli-shared/$name"
	fi
}
run_both help dwarf2btf --help
run_both version dwarf2btf --version
run_both in-place dwarf2btf -v x.o
run_both dump dwarf2btf --dump x.o
run_both error dwarf2btf /nonexistent.o
run_both pahole-version dwarf2btf-pahole --version
run_both pahole-J dwarf2btf-pahole -J x.o

# ---- and away again ----
if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$SRC" O="$BUILD" PREFIX="$PREFIX" \
	${san:+SANITIZE=$san} uninstall >"$WORK/uninstall.log" 2>&1 &&
   [ -z "$(find "$PREFIX" ! -type d)" ]; then
	pass uninstall
else
	show_tail "$WORK/uninstall.log"
	fail uninstall "left: $(cd "$PREFIX" && find . ! -type d | tr '\n' ' ')"
fi
test_done
