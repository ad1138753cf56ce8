#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Build a tiny x86-64 kernel with BTF, using a given PAHOLE:
#
#	tests/kernel/build-kernel.sh VERSION COMPILER VARIANT PAHOLE
#
# VERSION is a Debian linux-source-VERSION package (6.12, 6.1), unpacked
# once into the cache (lib.sh; variant "split" builds a copy of it,
# variant_source).  COMPILER is gcc, clang (clang-19) or clang-NN, or
# gcc16 or clangNN (clang22, clang23): make runs in the sid chroot then,
# with the cache and PAHOLE bound into it (lib.sh: compiler_root,
# in_root).  VARIANT is base, ipc, split or selftests (lib.sh: variant_options).  The build
# goes to its own O= directory in the cache, keyed by version, compiler,
# variant and PAHOLE's path and version; its path is the last line on
# stdout.  Steps:
#   1. configure (only when the wanted configuration changed): tinyconfig,
#      then the options of lib.sh, then olddefconfig;
#   2. check that every wanted option survived in .config: Kconfig silently
#      drops DEBUG_INFO_BTF when PAHOLE's version probe fails or is too old;
#   3. delete vmlinux and the modules' .ko so that PAHOLE runs again even
#      when nothing else changed (a new binary at the same path), then
#      make bzImage modules.  The log is O/d2b-build.log, this build's
#      only (the configuration's is dropped once it succeeded); the
#      seconds the make took go to O/d2b-build-seconds.
# On failure the last line on stderr says why; exit status 1 for a build
# failure, 2 for a configuration check failure, 3 for a setup problem.
#
# Environment: D2B_KERNEL_CACHE, D2B_KERNEL_JOBS (lib.sh);
#	D2B_KERNEL_MAKEFLAGS	extra make arguments (e.g. "LLVM=1")
#	D2B_KERNEL_TIMESTAMP	build with KBUILD_BUILD_TIMESTAMP set to it
#				(a reproducible build: 7.x's Makefile.btf then
#				passes --btf_features=+reproducible_build) and
#				V=1, in the same O= directory: only what the
#				timestamp changes is built again
#	D2B_KERNEL_REUSE=1	keep a build this script finished (same
#				configuration, vmlinux newer than PAHOLE) as
#				it is: no relink (tests/clients reuses the
#				kernel group's builds so)

set -euo pipefail

if [ $# -ne 4 ]; then
	echo "usage: $0 VERSION COMPILER VARIANT PAHOLE" >&2
	exit 3
fi
VER=$1 COMPILER=$2 VARIANT=$3 PAHOLE=$4
. "$(dirname "$0")/lib.sh"

die() { echo "build-kernel: $2" >&2; exit "$1"; }
trap 'echo "build-kernel: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

[ -x "$PAHOLE" ] || PAHOLE=$(command -v "$PAHOLE") || die 3 "PAHOLE $4 not found"
PAHOLE=$(abs_path "$PAHOLE")
CCARGS=$(compiler_make_args "$COMPILER") || die 3 "unknown compiler '$COMPILER'"
EXTRA=$(variant_options "$VARIANT") || die 3 "unknown variant '$VARIANT'"
cc=$(compiler_cc "$COMPILER")
ROOT=$(compiler_root "$COMPILER")
if [ "$ROOT" = / ]; then
	command -v "$cc" >/dev/null || die 3 "compiler $cc not installed"
else
	why=$(root_missing "$ROOT" "$cc")
	[ -z "$why" ] || die 3 "$why"
fi
SRC=$(variant_source "$VER" "$VARIANT") || die 3 "cannot unpack linux-source-$VER"
O=$(kernel_out_dir "$VER" "$COMPILER" "$VARIANT" "$PAHOLE")
mkdir -p "$O"
LOG=$O/d2b-build.log
# one build at a time in a directory
exec 9>"$O.lock"
flock 9

# shellcheck disable=SC2086   # word splitting of the make arguments is wanted
kmake()
{
	in_root "$ROOT" "$PAHOLE" make -C "$SRC" O="$O" ARCH=x86_64 $CCARGS PAHOLE="$PAHOLE" \
		${D2B_KERNEL_TIMESTAMP:+KBUILD_BUILD_TIMESTAMP="$D2B_KERNEL_TIMESTAMP" V=1} \
		${D2B_KERNEL_MAKEFLAGS:-} "$@"
}

# 1. configure
wanted="$KERNEL_OPTIONS $(version_options "$VER") $EXTRA"
sig=$(printf '%s\n' "$wanted" "$CCARGS" "$PAHOLE" "$("$PAHOLE" --version 2>&1)" \
	"${D2B_KERNEL_MAKEFLAGS:-}" | sha256sum | cut -c1-16)
if [ ! -f "$O/.config" ] || [ "$(cat "$O/.d2b-config-sig" 2>/dev/null)" != "$sig" ]; then
	rm -f "$O/.d2b-config-sig" "$O/d2b-build-seconds"
	kmake tinyconfig >"$LOG" 2>&1 || { show_tail "$LOG" >&2; die 2 "make tinyconfig failed"; }
	args=()
	for opt in $wanted; do
		case $opt in
		*=m) args+=(-m "${opt%=m}") ;;
		*)   args+=(-e "$opt") ;;
		esac
	done
	# the debug info choice: DWARF 5 rather than none or the default
	for opt in DEBUG_INFO_NONE DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT DEBUG_INFO_DWARF4 \
		DEBUG_INFO_REDUCED DEBUG_INFO_SPLIT MODULE_ALLOW_BTF_MISMATCH; do
		case " $(echo $wanted) " in *" $opt "*) ;; *) args+=(-d "$opt") ;; esac
	done
	"$SRC/scripts/config" --file "$O/.config" "${args[@]}"
	kmake olddefconfig >>"$LOG" 2>&1 || { show_tail "$LOG" >&2; die 2 "make olddefconfig failed"; }
	echo "$sig" >"$O/.d2b-config-sig"
fi

# 2. check the configuration
missing=()
for opt in $wanted; do
	case $opt in
	*=m) grep -qx "CONFIG_${opt}" "$O/.config" || missing+=("$opt") ;;
	*)   grep -qx "CONFIG_${opt}=y" "$O/.config" || missing+=("$opt") ;;
	esac
done
if [ ${#missing[@]} -gt 0 ]; then
	rm -f "$O/.d2b-config-sig"	# configure again next time
	pv=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$O/.config")
	why="Kconfig dropped: ${missing[*]} (CONFIG_PAHOLE_VERSION=${pv:-unset}"
	why+=" from '$PAHOLE --version' = '$("$PAHOLE" --version 2>&1 | head -n1)';"
	why+=" DEBUG_INFO_BTF needs >= 116, >= 121 with DWARF 5)"
	die 2 "$why"
fi

# 3. build; PAHOLE must run again on vmlinux and every module
if [ "${D2B_KERNEL_REUSE:-}" = 1 ] && [ -z "${D2B_KERNEL_TIMESTAMP:-}" ] &&
   [ -f "$O/d2b-build-seconds" ] && [ -f "$O/arch/x86/boot/bzImage" ] &&
   [ "$O/vmlinux" -nt "$PAHOLE" ]; then
	echo "$O"
	exit 0
fi
# 7.x links vmlinux.unstripped (where the BTF is made) and strips it into
# vmlinux: both go, or make only strips again and PAHOLE never runs
rm -f "$O/vmlinux" "$O/vmlinux.unstripped" "$O"/.tmp_vmlinux* "$O/d2b-build-seconds"
find "$O" -name '*.ko' -delete
start=$(date +%s)
if ! kmake -j"$(kernel_jobs)" bzImage modules >"$LOG" 2>&1; then
	show_tail "$LOG" 15 >&2
	die 1 "make bzImage modules failed (log: $LOG)"
fi
echo $(($(date +%s) - start)) >"$O/d2b-build-seconds"
echo "$O"
