#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Seed corpora for the fuzz targets, made from the e2e fixtures:
#
#	tests/fuzz/seeds.sh BUILD_DIR	  -> BUILD_DIR/fuzz/seeds/TARGET/
#
#   convert	the fixtures compiled small: gcc and clang-19, -O0 and -O2,
#		DWARF 4 and 5, plus i386 and big-endian ppc64 objects, -gz,
#		the C++ one with g++, and tests/sample/sample.o
#   base	their raw BTF (BUILD_DIR/dwarf2btf -o), split BTF over
#		sample.o's, and btfdump's sample blobs
#   btf_raw	btfdump's sample blobs (every kind, the bpf tree's inline sites too)
#   die_reader	the debug sections of the fixtures built by gcc and clang-19
#		as shared objects (so relocated; also DWARF 4 type units),
#		packed as fuzz_die_reader.c reads them
#   split_file	the fixtures' .dwo files (gcc and clang-19, DWARF 4 and 5,
#		with type units) and llvm-dwp-19 packages of them
#
# Needs BUILD_DIR/dwarf2btf and BUILD_DIR/tests/btfdump.  A compiler that is
# missing just gives fewer seeds.

set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
OUT=$BUILD/fuzz/seeds
WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-seeds.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

rm -rf "$OUT"
mkdir -p "$OUT"/{convert,base,btf_raw,die_reader,split_file}

# small objects: no unwind tables, no identification
small="-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-ident"
n=0
for f in "$SRC"/tests/e2e/fixtures/*.c; do
	name=$(basename "$f" .c)
	for cc in gcc clang-19; do
		command -v $cc >/dev/null || continue
		for v in "O0 -gdwarf-4" "O2 -gdwarf-5"; do
			o="$OUT/convert/$cc-$name-${v%% *}.o"
			# shellcheck disable=SC2086
			$cc -g -${v} $small -c "$f" -o "$o" 2>/dev/null || continue
			n=$((n + 1))
		done
	done
	if command -v clang-19 >/dev/null; then
		for t in i386-linux-gnu powerpc64-linux-gnu; do
			# shellcheck disable=SC2086
			clang-19 --target=$t -g -O1 $small -c "$f" -o "$OUT/convert/$t-$name.o" \
				2>/dev/null || true
		done
	fi
	# shellcheck disable=SC2086
	gcc -g -gz $small -c "$f" -o "$OUT/convert/gz-$name.o" 2>/dev/null || true
done
for f in "$SRC"/tests/e2e/fixtures/*.cc; do
	# shellcheck disable=SC2086
	g++ -g -O1 $small -c "$f" -o "$OUT/convert/g++-$(basename "$f" .cc).o" 2>/dev/null || true
done
cp "$SRC/tests/sample/sample.o" "$OUT/convert/sample.o"

# base: raw BTF of each object, split BTF over sample.o's
cp "$SRC/tests/sample/sample.o" "$WORK/base.o"
"$BUILD/dwarf2btf" "$WORK/base.o"
for o in "$OUT"/convert/*.o; do
	b=$(basename "$o" .o)
	"$BUILD/dwarf2btf" -o "$OUT/base/$b.btf" "$o" 2>/dev/null || true
	"$BUILD/dwarf2btf" -b "$WORK/base.o" -o "$OUT/base/split-$b.btf" "$o" 2>/dev/null || true
done
"$BUILD/tests/btfdump" --samples "$OUT/btf_raw" >/dev/null
cp "$OUT"/btf_raw/* "$OUT/base/"

# die_reader: the sections of shared objects (relocated), packed
for f in "$SRC"/tests/e2e/fixtures/*.c; do
	for cc in gcc clang-19; do
		command -v $cc >/dev/null || continue
		for v in "O0 -gdwarf-4" "O2 -gdwarf-5" "O1 -gdwarf-4 -fdebug-types-section"; do
			b=$cc-$(basename "$f" .c)-${v%% *}
			so=$WORK/$b.so
			# shellcheck disable=SC2086
			$cc -g -${v} $small -fPIC -shared -nostdlib "$f" -o "$so" 2>/dev/null ||
				continue
			args=()
			for s in info types abbrev str line_str str_offsets addr; do
				: >"$WORK/$s"
				objcopy --dump-section ".debug_$s=$WORK/$s" "$so" "$WORK/junk" \
					2>/dev/null || true
				args+=("$WORK/$s")
			done
			python3 - "$OUT/die_reader/$b" "${args[@]}" <<'EOF'
import struct, sys
secs = [open(p, 'rb').read() for p in sys.argv[2:]]
with open(sys.argv[1], 'wb') as f:
    f.write(b'\0' + b''.join(struct.pack('<I', len(s)) for s in secs) + b''.join(secs))
EOF
		done
	done
done

# split_file: .dwo files and packages of the fixtures (DWARF 4 and 5, type
# units too)
for f in "$SRC"/tests/e2e/fixtures/*.c; do
	for cc in gcc clang-19; do
		command -v $cc >/dev/null || continue
		for v in "O0 -gdwarf-4" "O2 -gdwarf-5" "O1 -gdwarf-5 -fdebug-types-section"; do
			b=$cc-$(basename "$f" .c)-${v%% *}
			# shellcheck disable=SC2086
			(cd "$WORK" && $cc -g -${v} $small -gsplit-dwarf -c "$f" -o "$b.o") \
				2>/dev/null || continue
			cp "$WORK/$b.dwo" "$OUT/split_file/$b.dwo"
			if command -v llvm-dwp-19 >/dev/null; then
				(cd "$WORK" && timeout 10 llvm-dwp-19 -o "$b.dwp" "$b.dwo") \
					>/dev/null 2>&1 && cp "$WORK/$b.dwp" "$OUT/split_file/"
			fi
		done
	done
done

for t in convert base btf_raw die_reader split_file; do
	echo "seeds: $t: $(find "$OUT/$t" -type f | wc -l) files, $(du -sk "$OUT/$t" | cut -f1) KiB"
done
