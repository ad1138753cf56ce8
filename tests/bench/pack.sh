#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Pack the benchmark for a machine that has none of it: no corpus, no
# pahole, no elfutils (a many-CPU build server, say), then run it there.
#
#	tests/bench/pack.sh DIR [vmlinux | xfs.ko]	(default vmlinux)
#	... copy DIR there ...
#	DIR/run.sh					(bench.sh's variables apply)
#
# DIR gets:
#	lib/	dwarf2btf, pahole and GNU time, and the shared libraries they
#		load but the C library's own (ldd): the other machine brings
#		its glibc, which must be as new as this one's
#	bin/	wrappers that run them with DIR/lib first on the library path
#		(dwarf2btf-pahole is a link, for dwarf2btf to see its name)
#	corpus/	zstd -19 --long=27 copies, to be unpacked where run.sh runs:
#		  vmlinux: its DWARF alone (objcopy --only-keep-debug), less
#		    the relocations, .debug_line, .debug_frame and
#		    .debug_loclists (but in a relocatable file, whose
#		    relocations need them all): the line and frame tables
#		    neither tool reads for BTF; without the location lists
#		    both tools see parameters as they are declared; and
#		    .BTF_ids, whose bytes such a copy does not keep (pahole
#		    1.31 reads GNU objcopy's leftovers as kfunc sets)
#		    (about 55 MB for the Debian 6.1 kernel);
#		  xfs.ko: the module whole, and vmlinux's .BTF as a raw file
#		    to be its base (both tools give what they give over the
#		    ELF vmlinux; about 9 MB)
#	bench.sh, run.sh
#
# Timings on the trimmed vmlinux are not those of the whole file (less to
# map, no location lists for either tool): compare the ratios, not the
# seconds, with the ones bench.sh gives on the corpus.
#
# Environment: D2B_CORPUS, PAHOLE, D2B_BIN as for bench.sh; BENCH_TIME
# (GNU time, default /usr/bin/time).  Needs objcopy, readelf (binutils) and
# zstd.

set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${D2B_CORPUS:-$HOME/.cache/dwarf2btf-corpus}
PAHOLE=${PAHOLE:-$HOME/.cache/pahole-1.31/build/pahole}
D2B=${D2B_BIN:-$SRC/build/dwarf2btf}
TIME=${BENCH_TIME:-/usr/bin/time}

die()
{
	echo "pack.sh: $*" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: tests/bench/pack.sh DIR [vmlinux | xfs.ko]"
out=$1
target=${2:-vmlinux}
case $target in vmlinux | xfs.ko) ;; *) die "'$target' is neither vmlinux nor xfs.ko" ;; esac
for tool in objcopy readelf zstd; do
	command -v $tool >/dev/null 2>&1 || die "no $tool (apt-get install binutils zstd)"
done
for f in "$D2B" "$PAHOLE" "$TIME"; do
	[ -x "$f" ] || die "no $f (see tests/bench/README)"
done
VMLINUX=$CORPUS/vmlinux
[ -f "$VMLINUX" ] || die "no $VMLINUX (set D2B_CORPUS)"
if [ "$target" = xfs.ko ]; then
	XFS=$(find "$CORPUS/modules" -name xfs.ko -type f 2>/dev/null | head -n 1)
	[ -n "$XFS" ] || die "no xfs.ko under $CORPUS/modules"
fi
[ ! -e "$out" ] || [ -z "$(ls -A "$out" 2>/dev/null)" ] || die "$out exists and is not empty"
mkdir -p "$out/lib" "$out/bin" "$out/corpus" || die "cannot create $out"
out=$(cd "$out" && pwd)

# copy_prog FILE NAME: FILE as lib/NAME, and the libraries it loads (a
# script is copied alone)
copy_prog()
{
	local lib libs
	cp "$1" "$out/lib/$2" || die "cannot copy $1"
	mapfile -t libs < <(ldd "$1" 2>/dev/null | sed -n 's/^.*=> \(\/[^ ]*\) .*$/\1/p')
	for lib in "${libs[@]}"; do
		case ${lib##*/} in
		libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
		*) cp -L "$lib" "$out/lib/" || die "cannot copy $lib, which $1 loads" ;;
		esac
	done
}
copy_prog "$D2B" dwarf2btf
copy_prog "$PAHOLE" pahole
copy_prog "$TIME" time
ln -s dwarf2btf "$out/lib/dwarf2btf-pahole"
for name in dwarf2btf dwarf2btf-pahole pahole time; do
	# shellcheck disable=SC2016
	printf '#!/bin/sh\nd=$(cd "$(dirname "$0")/.." && pwd)\nLD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/lib/%s" "$@"\n' \
		"$name" >"$out/bin/$name"
	chmod +x "$out/bin/$name"
done
cp "$SRC/tests/bench/bench.sh" "$out/" || exit 1

if [ "$target" = vmlinux ]; then
	tmp=$out/corpus/vmlinux.tmp
	drop=(--remove-section='.rela*' --remove-section=.debug_line
	      --remove-section=.debug_frame --remove-section=.debug_loclists
	      --remove-section=.BTF_ids)
	# (a relocatable file's debug sections need their relocations, and
	# those name the other debug sections: it keeps them all)
	if readelf -h "$VMLINUX" 2>/dev/null | grep -Eq '^ *Type: *REL '; then
		drop=()
	fi
	objcopy --only-keep-debug "${drop[@]}" "$VMLINUX" "$tmp" ||
		die "objcopy failed on $VMLINUX"
	zstd -19 --long=27 -T0 -q -f "$tmp" -o "$out/corpus/vmlinux.zst" || die "zstd failed"
	rm -f "$tmp"
else
	objcopy --dump-section .BTF="$out/corpus/vmlinux.btf" "$VMLINUX" /dev/null 2>/dev/null ||
		die "no .BTF in $VMLINUX to be xfs.ko's base"
	zstd -19 -q -f --rm "$out/corpus/vmlinux.btf" -o "$out/corpus/vmlinux.zst" || die "zstd failed"
	zstd -19 --long=27 -T0 -q -f "$XFS" -o "$out/corpus/xfs.ko.zst" || die "zstd failed"
fi
zstd_bin=$(command -v zstd)
copy_prog "$zstd_bin" zstd

cat >"$out/run.sh" <<EOF
#!/bin/bash
# Made by dwarf2btf's tests/bench/pack.sh: unpack the corpus into
# \${BENCH_CORPUS_DIR:-/tmp/d2b-bench-corpus} and run bench.sh on $target
# (bench.sh's variables apply: BENCH_RUNS, BENCH_JOBS, ...).
set -u
d=\$(cd "\$(dirname "\$0")" && pwd)
c=\${BENCH_CORPUS_DIR:-/tmp/d2b-bench-corpus}
mkdir -p "\$c/modules" || exit 2
z() { LD_LIBRARY_PATH="\$d/lib" "\$d/lib/zstd" -d -q -f --long=27 "\$@"; }
z "\$d/corpus/vmlinux.zst" -o "\$c/vmlinux" || exit 2
if [ -f "\$d/corpus/xfs.ko.zst" ]; then
	z "\$d/corpus/xfs.ko.zst" -o "\$c/modules/xfs.ko" || exit 2
fi
D2B_CORPUS=\$c BENCH_TARGETS=$target PAHOLE=\$d/bin/pahole \\
	D2B_PAHOLE=\$d/bin/dwarf2btf-pahole D2B_BIN=\$d/bin/dwarf2btf BENCH_TIME=\$d/bin/time \\
	"\$d/bench.sh"
EOF
chmod +x "$out/run.sh"
echo "pack.sh: $out ($(du -sh "$out" | cut -f1)): copy it over, then run $out/run.sh there"
