#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Malformed inputs: dwarf2btf must fail cleanly.
#
#	tests/e2e/malformed.sh DWARF2BTF WORKDIR	(run by tests/e2e/run.sh)
#
# Each bad input is converted both in place and with -o.  Every run must:
# exit 1 (not a crash: any status >= 128 is a signal), print exactly one
# line on stderr naming the file once (the library's messages never name
# it: lib/dwarf2btf.h), leave the input byte-identical, and leave no output
# file behind.

set -u
D2B=$1
W=$2
mkdir -p "$W"
CC=$(command -v gcc || command -v clang || true)

. "$(dirname "$0")/../lib.sh"

# expect_error NAME FILE [ARGS...]: the run must fail cleanly, naming FILE
# (or NAMED, if set: the file the error is about) once
expect_error()
{
	local name=$1 file=$2 rc lines named=${NAMED:-$2}
	shift 2
	local before=$W/before
	[ -f "$file" ] && cp -p "$file" "$before"
	rm -f "$W/out.btf"
	"$D2B" "$@" "$file" >"$W/stdout" 2>"$W/stderr" </dev/null
	rc=$?
	lines=$(wc -l <"$W/stderr")
	if [ $rc -ge 128 ]; then
		fail "$name" "crashed (exit $rc, signal $((rc - 128)))"
	elif [ $rc -ne 1 ]; then
		fail "$name" "exit $rc, expected 1"
	elif [ "$lines" -ne 1 ]; then
		fail "$name" "$lines lines on stderr, expected one"
	elif ! grep -qF -- "$(basename "$named")" "$W/stderr"; then
		fail "$name" "the error does not name the file: $(head -c 200 "$W/stderr")"
	elif [ "$(grep -oF -- "$(basename "$named")" "$W/stderr" | wc -l)" -ne 1 ]; then
		fail "$name" "the error names the file more than once: $(head -c 200 "$W/stderr")"
	elif ! grep -q '^dwarf2btf: ' "$W/stderr"; then
		fail "$name" "the error does not start with 'dwarf2btf: ': $(head -c 200 "$W/stderr")"
	elif [ -f "$file" ] && ! cmp -s "$file" "$before"; then
		fail "$name" "the input was modified"
	elif [ -e "$W/out.btf" ]; then
		fail "$name" "an output file was left behind"
	else
		pass "$name"
		return 0
	fi
	sed 's/^/#   /' "$W/stderr" | head -n 5
	return 1
}

# both NAME FILE: in place and with -o
both()
{
	expect_error "e2e/malformed/$1/inplace" "$2"
	expect_error "e2e/malformed/$1/output" "$2" -o "$W/out.btf"
}

# -- nonexistent
expect_error e2e/malformed/nonexistent/inplace "$W/no-such-file.o"
expect_error e2e/malformed/nonexistent/output "$W/no-such-file.o" -o "$W/out.btf"
expect_error e2e/malformed/nonexistent/dump "$W/no-such-file.o" --dump

# -- not ELF
printf 'this is not an ELF file\n' >"$W/text.o"
both not-elf "$W/text.o"
expect_error e2e/malformed/not-elf/dump "$W/text.o" --dump
expect_error e2e/malformed/directory/dump "$W" --dump
: >"$W/empty.o"
both empty "$W/empty.o"

if [ -z "$CC" ]; then
	skip e2e/malformed/elf "no C compiler"
	exit 0
fi

cat >"$W/src.c" <<'EOF'
struct point { int x, y; };
struct point origin = { 1, 2 };
int add(int a, int b) { return a + b + origin.x; }
EOF
"$CC" -gdwarf-5 -O1 -c "$W/src.c" -o "$W/good.o" || { fail e2e/malformed/compile "$CC failed"; exit 0; }

# -- truncated ELF (header only; half the file)
head -c 64 "$W/good.o" >"$W/trunc64.o"
both truncated-header "$W/trunc64.o"
head -c $(($(stat -c %s "$W/good.o") / 2)) "$W/good.o" >"$W/trunchalf.o"
both truncated-half "$W/trunchalf.o"

# -- errors about another file than the input: it is the one named, once
NAMED=$W/text.o expect_error e2e/malformed/bad-base "$W/good.o" -b "$W/text.o" -o "$W/out.btf"
"$D2B" -o "$W/good.btf" "$W/good.o" &&
	NAMED=$W/text.o expect_error e2e/malformed/bad-compare "$W/good.btf" --compare "$W/text.o"
NAMED=$W/nodir/out.btf expect_error e2e/malformed/output-nodir "$W/good.o" -o "$W/nodir/out.btf"

# -- a base that numbers every type ID BTF has (0xfffff, the kernel's
# BTF_MAX_TYPE): the file's own types have none left, and the error says so
if python3 - "$W/full.btf" <<'EOF'
import struct, sys
types = bytearray(struct.pack("<IIII", 1, 1 << 24, 4, (1 << 24) | 32))  # [1] int
for n in range(2, 0xfffff + 1):  # [2 ..] int[n]: each its own
	types += struct.pack("<IIIIII", 0, 3 << 24, 0, 1, 1, n)
strs = b"\0int\0"
hdr = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types), len(strs))
open(sys.argv[1], "wb").write(hdr + types + strs)
EOF
then
	expect_error e2e/malformed/full-base "$W/good.o" --no-cache -b "$W/full.btf" -o "$W/out.btf"
	grep -q "more types than one BTF can number (IDs up to 1048575, 0xfffff" "$W/stderr" ||
		fail e2e/malformed/full-base/message "the error does not name the limit: $(head -c 200 "$W/stderr")"
	rm -f "$W/full.btf"
else
	fail e2e/malformed/full-base "python3 could not write the base"
fi

# -- ELF without DWARF
"$CC" -O1 -c "$W/src.c" -o "$W/nodebug.o"
both no-dwarf "$W/nodebug.o"

# -- corrupt .debug_info: overwrite bytes inside it (fixed patterns, no randomness)
info=$(readelf -S -W "$W/good.o" | sed -n 's/.*\] \.debug_info  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\)  *\([0-9a-f]*\).*/\1 \2/p')
if [ -z "$info" ]; then
	fail e2e/malformed/corrupt "no .debug_info in the compiled object"
	exit 0
fi
set -- $info
off=$((16#$1)) size=$((16#$2))
corrupt()
{
	# corrupt NAME OFFSET BYTE COUNT
	cp "$W/good.o" "$W/$1.o"
	python3 -c '
import sys
path, off, byte, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0), int(sys.argv[4])
with open(path, "r+b") as f:
    f.seek(off)
    f.write(bytes([byte]) * count)
' "$W/$1.o" "$2" "$3" "$4"
	both "corrupt-$1" "$W/$1.o"
}
corrupt unit-length-ff $off 0xff 4		# unit length 0xffffffff: 64-bit DWARF, truncated
corrupt header-zero $off 0x00 11		# unit length 0
corrupt version $((off + 4)) 0x7f 2		# DWARF version 0x7f7f
corrupt abbrev-garbage $((off + 12)) 0xee $((size > 40 ? 24 : size - 12))	# the first DIEs (after a DWARF 5 header)
corrupt tail-ff $((off + size / 2)) 0xff $((size / 2))

# -- a damaged .debug_str: "point" becomes "po nt", a name the kernel
# refuses; the conversion must fail naming the type, not write that BTF
cp "$W/good.o" "$W/badname.o"
if python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
i = data.find(b"point\0")
if i < 0:
    sys.exit(1)
open(sys.argv[1], "r+b").write(data[:i] + b"po nt\0" + data[i + 6:])
' "$W/badname.o"; then
	both bad-name "$W/badname.o"
	grep -q "STRUCT 'po nt': invalid name" "$W/stderr" ||
		fail e2e/malformed/bad-name/message "the error does not name the type: $(head -c 200 "$W/stderr")"
else
	fail e2e/malformed/bad-name "no string 'point' in .debug_str"
fi

# -- damaged DWARF that once gave BTF the kernel refuses (tests/e2e/damaged/:
# mutants a mutation run found); each must fail naming the type and why
damaged()
{
	# damaged NAME MESSAGE-REGEX
	cp "$(dirname "$0")/damaged/$1.o" "$W/$1.o"
	both "damaged-$1" "$W/$1.o"
	grep -qE -- "$2" "$W/stderr" ||
		fail "e2e/malformed/damaged-$1/message" "not /$2/: $(head -c 300 "$W/stderr")"
}
damaged var-name-backtick "VAR '\`wide': invalid name"
damaged var-name-digit "VAR '16_t': invalid name"
damaged bitfield-size-40 "STRUCT 'flags': bitfield '[a-g]'"
damaged bitfield-size-1 "STRUCT 'flags': bitfield 'a' of kind ARRAY"
damaged array-elem-const-void "ARRAY: element type \\[1\\] has no size"

# -- unwritable target: root ignores permissions, so use an immutable file
cp "$W/good.o" "$W/immutable.o"
if chattr +i "$W/immutable.o" 2>/dev/null; then
	expect_error e2e/malformed/unwritable/inplace "$W/immutable.o"
	chattr -i "$W/immutable.o"
elif [ "$(id -u)" -ne 0 ]; then
	chmod 444 "$W/immutable.o"
	mkdir -p "$W/ro" && cp "$W/good.o" "$W/ro/good.o" && chmod 555 "$W/ro"
	expect_error e2e/malformed/unwritable/inplace "$W/ro/good.o"
	chmod 755 "$W/ro"
else
	skip e2e/malformed/unwritable "root ignores file modes and chattr +i is not supported on $(stat -f -c %T "$W")"
fi

# -- unwritable output directory for -o
mkdir -p "$W/rodir"
if chattr +i "$W/rodir" 2>/dev/null; then
	rm -f "$W/out.btf"
	"$D2B" -o "$W/rodir/out.btf" "$W/good.o" >/dev/null 2>"$W/stderr" </dev/null
	rc=$?
	chattr -i "$W/rodir"
	if [ $rc -eq 1 ] && [ "$(wc -l <"$W/stderr")" -eq 1 ]; then
		pass e2e/malformed/unwritable/output
	else
		fail e2e/malformed/unwritable/output "exit $rc, $(wc -l <"$W/stderr") stderr lines (expected 1, one line)"
	fi
else
	skip e2e/malformed/unwritable/output "chattr +i is not supported on $(stat -f -c %T "$W")"
fi
test_done
