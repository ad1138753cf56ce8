#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Does a refactor change any output?  Converts the corpus with two builds
# and compares the BTF byte for byte:
#
#	tests/bench/same-output.sh OLD_BUILD NEW_BUILD [CORPUS]
#
# OLD_BUILD and NEW_BUILD are build folders (each with dwarf2btf and
# dwarf2btf-pahole); CORPUS defaults to $D2B_CORPUS or
# ~/.cache/dwarf2btf-corpus (../shared/corpus/fetch-debian-kernel.sh).
# The vmlinux in five modes (default; pahole 1.32's kernel flags; the same
# under policy 1.31; with true_signature; with a layout section), and every
# 4th module (FULL=1: every module) in three (split over vmlinux's BTF by
# each front end and policy).  The old build's outputs are kept in
# $D2B_SAME_CACHE (default ~/.cache/dwarf2btf-same/<old build's digest>), so
# a second comparison against the same old build converts only the new.
# Prints "IDENTICAL (N outputs)" and exits 0, or lists what differs and
# exits 1.  Output only: speed is bench.sh's.

set -euo pipefail

old=$(cd "${1:?usage: $0 OLD_BUILD NEW_BUILD [CORPUS]}" && pwd)
new=$(cd "${2:?usage: $0 OLD_BUILD NEW_BUILD [CORPUS]}" && pwd)
corpus=${3:-${D2B_CORPUS:-$HOME/.cache/dwarf2btf-corpus}}
[ -s "$corpus/vmlinux" ] || { echo "same-output: no corpus at $corpus" >&2; exit 2; }

flags='--btf_gen_floats -j --lang_exclude=rust --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs'

digest=$(cat "$old/dwarf2btf" "$old/dwarf2btf-pahole" | sha256sum | cut -c1-16)
oldout=${D2B_SAME_CACHE:-$HOME/.cache/dwarf2btf-same}/$digest
newout=$(mktemp -d "${TMPDIR:-/tmp}/d2b-same.XXXXXX")
trap 'rm -rf "$newout"' EXIT
export DWARF2BTF_CACHE_DIR=none

# convert BUILD OUT: every output of the modes below into OUT
convert()
{
	local b=$1 out=$2 m name n=0
	mkdir -p "$out/m"
	"$b/dwarf2btf" -o "$out/v.default" "$corpus/vmlinux"
	# shellcheck disable=SC2086
	"$b/dwarf2btf-pahole" $flags --btf_encode_detached="$out/v.p132" "$corpus/vmlinux"
	# shellcheck disable=SC2086
	"$b/dwarf2btf-pahole" $flags --pahole-policy=1.31 --btf_encode_detached="$out/v.p131" "$corpus/vmlinux"
	# shellcheck disable=SC2086
	"$b/dwarf2btf-pahole" ${flags},true_signature --btf_encode_detached="$out/v.truesig" "$corpus/vmlinux"
	"$b/dwarf2btf" --layout -o "$out/v.layout" "$corpus/vmlinux"
	find "$corpus/modules" -name '*.ko' | LC_ALL=C sort | while read -r m; do
		n=$((n + 1))
		[ "${FULL:-0}" = 1 ] || [ $((n % 4)) = 1 ] || continue
		name=$(basename "$m" .ko)
		printf '%s\0' "$m" >>"$out/list"
		"$b/dwarf2btf" -b "$corpus/vmlinux" -o "$out/m/$name.default" "$m"
		# shellcheck disable=SC2086
		"$b/dwarf2btf-pahole" $flags --btf_base="$corpus/vmlinux" \
			--btf_encode_detached="$out/m/$name.p132" "$m"
		# shellcheck disable=SC2086
		"$b/dwarf2btf-pahole" $flags --pahole-policy=1.31 --btf_base="$corpus/vmlinux" \
			--btf_encode_detached="$out/m/$name.p131" "$m"
	done
}

mark=$oldout/.done${FULL:+-full$FULL}
if [ ! -e "$mark" ]; then
	rm -rf "$oldout"
	convert "$old" "$oldout" </dev/null
	touch "$mark"
fi
convert "$new" "$newout" </dev/null

differ=()
total=0
while read -r f; do
	total=$((total + 1))
	cmp -s "$oldout/$f" "$newout/$f" || differ+=("$f")
done < <(cd "$oldout" && find . -type f ! -name list ! -name '.done*' | LC_ALL=C sort)
[ "$(cd "$newout" && find . -type f ! -name list | wc -l)" = "$total" ] || differ+=("(the number of outputs)")
if [ ${#differ[@]} -eq 0 ]; then
	echo "IDENTICAL ($total outputs)"
	exit 0
fi
echo "DIFFERENT: ${#differ[@]} of $total outputs differ:"
printf '  %s\n' "${differ[@]}"
exit 1
