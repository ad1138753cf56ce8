#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Golden dumps: our d2b_btf__dump() must print exactly what
# `bpftool btf dump file F` (bpftool 7.1, raw format) prints, and parsing
# then re-encoding a blob must give it back byte for byte.
#
#	tests/golden/run.sh BUILD_DIR
#
# Inputs: the BTF clang -target bpf -g writes into objects built from
# tests/golden/src/*.c (with clang and clang-19 when present), blobs made
# with the builder API (BUILD_DIR/tests/btfdump --samples: every kind, the
# other byte order, split BTF over a base, the bpf tree's inline sites,
# which a bpftool before that tree cannot read: skipped), the running kernel's
# /sys/kernel/btf/vmlinux and module BTF (split over it), and, when
# D2B_CORPUS is set, the corpus vmlinux's .BTF and some modules over it.
#
# Set D2B_GOLDEN_MODULES to the number of modules to check per source
# (default 20).

set -u
. "$(dirname "$0")/../lib.sh"

build=${1:?usage: tests/golden/run.sh BUILD_DIR}
src=$(cd "$(dirname "$0")" && pwd)/src
dump=$build/tests/btfdump
bpftool=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
max_modules=${D2B_GOLDEN_MODULES:-20}

if [ ! -x "$dump" ]; then
	fail "golden" "$dump not built (make O=$build tests)"
	exit 1
fi
if [ ! -x "$bpftool" ]; then
	skip "golden" "bpftool not found"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/d2b-golden.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# compare_dump NAME FILE [BASE]
compare_dump() {
	local name=$1 file=$2 base=${3:-}
	local bopt=() oopt=()

	if [ -n "$base" ]; then
		bopt=(-B "$base")
		oopt=(-B "$base")
	fi
	if ! "$bpftool" "${bopt[@]}" btf dump file "$file" >"$tmp/want" 2>"$tmp/want.err"; then
		skip "$name" "bpftool cannot read it: $(head -c 200 "$tmp/want.err")"
		return
	fi
	if ! "$dump" "${oopt[@]}" "$file" >"$tmp/got" 2>"$tmp/got.err"; then
		fail "$name" "btfdump: $(head -c 300 "$tmp/got.err")"
		return
	fi
	if ! [ -s "$tmp/want" ]; then
		fail "$name" "bpftool printed nothing"
		return
	fi
	if cmp -s "$tmp/want" "$tmp/got"; then
		pass "$name"
	else
		note "first differences (< bpftool, > ours):"
		diff "$tmp/want" "$tmp/got" | head -10 | sed 's/^/# /'
		fail "$name" "dump differs from bpftool"
	fi
}

# compare_reencode NAME RAW [BASE]: parse + encode gives RAW back
compare_reencode() {
	local name=$1 raw=$2 base=${3:-}
	local bopt=()

	[ -n "$base" ] && bopt=(-B "$base")
	rm -f "$tmp/re.btf"
	if ! "$dump" "${bopt[@]}" -o "$tmp/re.btf" "$raw" 2>"$tmp/re.err"; then
		fail "$name" "btfdump -o: $(head -c 300 "$tmp/re.err")"
	elif cmp -s "$raw" "$tmp/re.btf"; then
		pass "$name"
	else
		fail "$name" "re-encoded blob differs from the input"
	fi
}

# extract_btf ELF OUT: the raw .BTF section of an ELF file
# (binutils objcopy does not know EM_BPF; llvm-objcopy does)
extract_btf() {
	local oc

	for oc in objcopy llvm-objcopy llvm-objcopy-19 llvm-objcopy-14; do
		command -v "$oc" >/dev/null || continue
		rm -f "$2"
		"$oc" --dump-section ".BTF=$2" "$1" "$tmp/objcopy.junk" 2>/dev/null && return 0
	done
	return 1
}

# 1. BTF that LLVM writes into BPF objects
ncc=0
for cc in clang clang-19; do
	command -v "$cc" >/dev/null || continue
	ncc=$((ncc + 1))
	for c in "$src"/*.c; do
		base=$(basename "$c" .c)
		obj=$tmp/$base-$cc.o
		if ! "$cc" -target bpf -g -O2 -c "$c" -o "$obj" 2>"$tmp/cc.err"; then
			fail "golden-$cc-$base" "$cc failed: $(head -c 300 "$tmp/cc.err")"
			continue
		fi
		compare_dump "golden-$cc-$base" "$obj"
		if extract_btf "$obj" "$tmp/$base.btf"; then
			compare_reencode "reencode-$cc-$base" "$tmp/$base.btf"
		else
			skip "reencode-$cc-$base" "objcopy cannot extract .BTF"
		fi
	done
done
[ "$ncc" = 0 ] && skip "golden-clang" "no clang to build BPF objects"

# 2. builder-made blobs
if "$dump" --samples "$tmp" 2>"$tmp/samples.err"; then
	compare_dump golden-sample-all "$tmp/all.btf"
	compare_dump golden-sample-swapped "$tmp/all-swapped.btf"
	compare_dump golden-sample-base "$tmp/base.btf"
	compare_dump golden-sample-split "$tmp/split.btf" "$tmp/base.btf"
	compare_dump golden-sample-split-nostr "$tmp/split-nostr.btf" "$tmp/base.btf"
	compare_reencode reencode-sample-all "$tmp/all.btf"
	compare_reencode reencode-sample-swapped "$tmp/all-swapped.btf"
	compare_reencode reencode-sample-split "$tmp/split.btf" "$tmp/base.btf"
	compare_reencode reencode-sample-split-nostr "$tmp/split-nostr.btf" "$tmp/base.btf"
	# the bpf tree's inline sites: a bpftool of that tree prints them (its
	# selftest's text is tests/unit/test_btf_loc.c's); an older one skips
	compare_dump golden-sample-loc "$tmp/loc.btf"
	compare_dump golden-sample-split-loc "$tmp/split-loc.btf" "$tmp/loc.btf"
	compare_reencode reencode-sample-loc "$tmp/loc.btf"
	compare_reencode reencode-sample-split-loc "$tmp/split-loc.btf" "$tmp/loc.btf"
else
	fail "golden-samples" "btfdump --samples: $(head -c 300 "$tmp/samples.err")"
fi

# 3. the running kernel
vmlinux=/sys/kernel/btf/vmlinux
if [ -r "$vmlinux" ]; then
	compare_dump golden-sysfs-vmlinux "$vmlinux"
	compare_reencode reencode-sysfs-vmlinux "$vmlinux"
	n=0
	for m in /sys/kernel/btf/*; do
		[ "$m" = "$vmlinux" ] && continue
		[ "$n" -ge "$max_modules" ] && break
		n=$((n + 1))
		compare_dump "golden-sysfs-$(basename "$m")" "$m" "$vmlinux"
		compare_reencode "reencode-sysfs-$(basename "$m")" "$m" "$vmlinux"
	done
	[ "$n" = 0 ] && skip "golden-sysfs-modules" "no module BTF in /sys/kernel/btf"
else
	skip "golden-sysfs-vmlinux" "$vmlinux not present"
fi

# 4. the corpus: a distribution vmlinux and modules over it
corpus=${D2B_CORPUS:-}
if [ -n "$corpus" ] && [ -r "$corpus/vmlinux" ]; then
	compare_dump golden-corpus-vmlinux "$corpus/vmlinux"
	if extract_btf "$corpus/vmlinux" "$tmp/vmlinux.btf"; then
		compare_reencode reencode-corpus-vmlinux "$tmp/vmlinux.btf"
		n=0
		while read -r ko; do
			[ "$n" -ge "$max_modules" ] && break
			n=$((n + 1))
			name=$(basename "$ko" .ko)
			compare_dump "golden-corpus-$name" "$ko" "$tmp/vmlinux.btf"
			if extract_btf "$ko" "$tmp/mod.btf"; then
				compare_reencode "reencode-corpus-$name" "$tmp/mod.btf" "$tmp/vmlinux.btf"
			fi
		done < <(find "$corpus/modules/" -name '*.ko' 2>/dev/null | sort |
			 awk -v n="$max_modules" 'NR % 37 == 1' | head -n "$max_modules")
	else
		skip "reencode-corpus-vmlinux" "objcopy cannot extract .BTF"
	fi
else
	skip "golden-corpus" "D2B_CORPUS not set"
fi
test_done
