#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Pack the benchmark for a machine that has none of it: no corpus, no
# pahole, no elfutils (a many-CPU build server, say), then run it there.
#
#	tests/bench/pack.sh DIR [vmlinux | xfs.ko | modules]	(default vmlinux)
#	... copy DIR there ...
#	DIR/run.sh					(bench.sh's variables apply)
#
# DIR gets:
#	lib/	dwarf2btf, pahole 1.31 and GNU time, and the shared libraries
#		they load but the C library's own (ldd): the other machine
#		brings its glibc, which must be as new as this one's
#	lib132/	pahole 1.32, if there, with every library it loads, the C
#		library and its loader too: the launcher debian-next.sh
#		writes runs the sid chroot's pahole with the chroot's loader,
#		so it is copied that way (a plain binary goes into lib/)
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
#		  xfs.ko: the module whole, vmlinux's .BTF as a raw file (both
#		    tools give what they give over the ELF vmlinux), and each
#		    tool's own vmlinux BTF, made here with bench.sh's flags
#		    (about 1 MB each, packed), its base there
#		    (BENCH_MODULE_BASE; "vmlinux" is vmlinux's .BTF; about
#		    13 MB in all);
#		  modules: bench.sh's sample of the modules (one in 28 of the
#		    sorted list, BENCH_MODULE_EVERY) whole, in one tar, and
#		    the bases as for xfs.ko (about 11 MB for the 41 of the
#		    Debian 6.1 corpus); there bench.sh times all the modules
#		    it carries.  All 1,121 (1.2 GB, about 0.2 GB packed) would
#		    not fit the 64 MiB a copy to such a machine may take
#	bench.sh, run.sh
#
# Timings on the trimmed vmlinux are not those of the whole file (less to
# map, no location lists for either tool): compare the ratios, not the
# seconds, with the ones bench.sh gives on the corpus.
#
# Environment: D2B_CORPUS, PAHOLE, D2B_PAHOLE132, D2B_BIN,
# BENCH_MODULE_EVERY as for bench.sh; BENCH_TIME (GNU time, default
# /usr/bin/time).  Needs objcopy, readelf (binutils), tar and zstd.

set -u

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${D2B_CORPUS:-$HOME/.cache/dwarf2btf-corpus}
PAHOLE=${PAHOLE:-$HOME/.cache/pahole-1.31/build/pahole}
PAHOLE132=${D2B_PAHOLE132:-$HOME/.cache/pahole-1.32}
MOD_EVERY=${BENCH_MODULE_EVERY:-28}
D2B=${D2B_BIN:-$SRC/build/dwarf2btf}
TIME=${BENCH_TIME:-/usr/bin/time}

die()
{
	echo "pack.sh: $*" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: tests/bench/pack.sh DIR [vmlinux | xfs.ko | modules]"
out=$1
target=${2:-vmlinux}
case $target in vmlinux | xfs.ko | modules) ;; *) die "'$target' is none of vmlinux, xfs.ko and modules" ;; esac
case $MOD_EVERY in '' | *[!0-9]* | 0) die "BENCH_MODULE_EVERY must be a positive number" ;; esac
for tool in objcopy readelf tar zstd; do
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
if [ "$target" = modules ]; then
	# bench.sh's sample, by the same rule
	mapfile -t MODULES < <(cd "$CORPUS/modules" 2>/dev/null && find . -name '*.ko' -type f |
		sed 's|^\./||' | LC_ALL=C sort | awk -v n="$MOD_EVERY" '(NR - 1) % n == 0')
	[ ${#MODULES[@]} -gt 0 ] || die "no modules (*.ko) under $CORPUS/modules"
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
names=(dwarf2btf dwarf2btf-pahole pahole time)
# bench.sh's timer, where make tests built it
RUNSTAT=${BENCH_RUNSTAT-$SRC/build/tests/runstat}
if [ -n "$RUNSTAT" ] && [ -x "$RUNSTAT" ]; then
	copy_prog "$RUNSTAT" runstat
	names+=(runstat)
	runstat='$d/bin/runstat'
else
	runstat=
fi

# pahole 1.32: debian-next.sh's launcher ("exec LOADER --library-path DIR
# --argv0 NAME PROG") is carried as the loader, PROG and every library the
# loader lists for it; a program of another kind as pahole 1.31 is
have132=0
if [ -x "$PAHOLE132" ]; then
	have132=1
	read -r loader libdir prog < <(sed -n \
		's/^exec \([^ ]*\) --library-path \([^ ]*\) --argv0 [^ ]* \([^ ]*\) "\$@"$/\1 \2 \3/p' \
		"$PAHOLE132")
	if [ -n "${prog:-}" ]; then
		mkdir -p "$out/lib132"
		cp "$prog" "$out/lib132/pahole" || die "cannot copy $prog, which $PAHOLE132 runs"
		ld=${loader##*/}
		cp -L "$loader" "$out/lib132/$ld" || die "cannot copy $loader"
		mapfile -t libs < <("$loader" --library-path "$libdir" --list "$prog" |
			sed -n 's/^.*=> \(\/[^ ]*\) .*$/\1/p')
		for lib in "${libs[@]}"; do
			cp -L "$lib" "$out/lib132/" || die "cannot copy $lib, which $prog loads"
		done
		# shellcheck disable=SC2016
		printf '#!/bin/sh\nd=$(cd "$(dirname "$0")/.." && pwd)\nexec "$d/lib132/%s" --library-path "$d/lib132" --argv0 pahole "$d/lib132/pahole" "$@"\n' \
			"$ld" >"$out/bin/pahole132"
		chmod +x "$out/bin/pahole132"
	else
		copy_prog "$PAHOLE132" pahole132
		names+=(pahole132)
	fi
fi
for name in "${names[@]}"; do
	# shellcheck disable=SC2016
	printf '#!/bin/sh\nd=$(cd "$(dirname "$0")/.." && pwd)\nLD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/lib/%s" "$@"\n' \
		"$name" >"$out/bin/$name"
	chmod +x "$out/bin/$name"
done
cp "$SRC/tests/bench/bench.sh" "$out/" || exit 1

# make_bases: each tool's vmlinux BTF, with bench.sh's flags, by the packed
# tools, into corpus/bases.tar.zst (bench.sh's BENCH_MODULE_BASE=DIR)
make_bases()
{
	local features tool cmd
	features=$(sed -n 's/^FEATURES=//p' "$SRC/tests/bench/bench.sh")
	mkdir -p "$out/corpus/bases" || die "cannot create $out/corpus/bases"
	for tool in pahole pahole132 ours default; do
		case $tool in
		pahole132) [ $have132 = 1 ] || continue; cmd=("$out/bin/pahole132") ;;
		pahole) cmd=("$out/bin/pahole") ;;
		ours) cmd=("$out/bin/dwarf2btf-pahole") ;;
		default) cmd=("$out/bin/dwarf2btf" -j -o "$out/corpus/bases/default.btf" "$VMLINUX") ;;
		esac
		[ "$tool" = default ] ||
			cmd+=(-J -j"$(nproc)" --btf_features="$features" --lang_exclude=rust
			      --btf_encode_detached="$out/corpus/bases/$tool.btf" "$VMLINUX")
		echo "pack.sh: the base of $tool's modules: ${cmd[*]}"
		"${cmd[@]}" >"$out/corpus/bases/$tool.log" 2>&1 ||
			die "$tool failed on $VMLINUX: $(tail -n 1 "$out/corpus/bases/$tool.log")"
		rm -f "$out/corpus/bases/$tool.log"
	done
	tar cf - -C "$out/corpus" bases | zstd -19 -T0 -q -o "$out/corpus/bases.tar.zst" ||
		die "tar or zstd failed"
	rm -rf "$out/corpus/bases"
}

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
		die "no .BTF in $VMLINUX to be the modules' base"
	zstd -19 -q -f --rm "$out/corpus/vmlinux.btf" -o "$out/corpus/vmlinux.zst" || die "zstd failed"
	if [ "$target" = xfs.ko ]; then
		zstd -19 --long=27 -T0 -q -f "$XFS" -o "$out/corpus/xfs.ko.zst" || die "zstd failed"
	else
		(cd "$CORPUS/modules" && tar cf - -- "${MODULES[@]}") |
			zstd -19 --long=27 -T0 -q -o "$out/corpus/modules.tar.zst" || die "tar or zstd failed"
	fi
	make_bases
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
# modules/ holds what this unpacks, and nothing else: a folder of other
# modules is left alone
if [ -n "\$(ls -A "\$c/modules" 2>/dev/null)" ] && [ ! -e "\$c/modules/.d2b-pack" ]; then
	echo "run.sh: \$c/modules holds other files; set BENCH_CORPUS_DIR to a new folder" >&2
	exit 2
fi
rm -rf "\$c/modules"
mkdir -p "\$c/modules" && : >"\$c/modules/.d2b-pack" || exit 2
z() { LD_LIBRARY_PATH="\$d/lib" "\$d/lib/zstd" -d -q -f --long=27 "\$@"; }
z "\$d/corpus/vmlinux.zst" -o "\$c/vmlinux" || exit 2
if [ -f "\$d/corpus/xfs.ko.zst" ]; then
	z "\$d/corpus/xfs.ko.zst" -o "\$c/modules/xfs.ko" || exit 2
fi
if [ -f "\$d/corpus/modules.tar.zst" ]; then
	# the sample alone: bench.sh times every one
	z -c "\$d/corpus/modules.tar.zst" | tar xf - -C "\$c/modules" || exit 2
	export BENCH_ALL_MODULES=1 BENCH_MODULE_ROWS=\${BENCH_MODULE_ROWS:-1}
fi
if [ -f "\$d/corpus/bases.tar.zst" ]; then
	z -c "\$d/corpus/bases.tar.zst" | tar xf - -C "\$c" || exit 2
	export BENCH_MODULE_BASE=\${BENCH_MODULE_BASE:-\$c/bases}
fi
p132=\$d/bin/pahole132
[ $have132 = 1 ] || p132="\$d/bin/pahole132 (not packed: pahole 1.32 was not there)"
D2B_CORPUS=\$c BENCH_TARGETS=$target PAHOLE=\$d/bin/pahole D2B_PAHOLE132=\$p132 \\
	D2B_PAHOLE=\$d/bin/dwarf2btf-pahole D2B_BIN=\$d/bin/dwarf2btf BENCH_TIME=\$d/bin/time \\
	BENCH_RUNSTAT=$runstat \\
	"\$d/bench.sh"
EOF
chmod +x "$out/run.sh"
echo "pack.sh: $out ($(du -sh "$out" | cut -f1)): copy it over, then run $out/run.sh there"
