# shellcheck shell=bash disable=SC2034
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared helpers of the kernel test group (sourced by run.sh,
# build-kernel.sh and boot.sh; not run on its own).
#
# Environment read here:
#	D2B_KERNEL_CACHE  cache directory (default ~/.cache/dwarf2btf-kernel,
#			  else, without a HOME, BUILD_DIR/kernel-cache)
#	D2B_KERNEL_JOBS	  make -j count (default: nproc)
#	D2B_BUILD	  the dwarf2btf build directory (set by tests/run.sh)

# pass, fail, skip, note, show_tail, ...: the tests' own (tests/lib.sh)
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../lib.sh"

kernel_cache_dir()
{
	if [ -n "${D2B_KERNEL_CACHE:-}" ]; then
		echo "$D2B_KERNEL_CACHE"
	elif [ -n "${HOME:-}" ] && [ -d "$HOME" ]; then
		echo "$HOME/.cache/dwarf2btf-kernel"
	else
		echo "${D2B_BUILD:?D2B_BUILD unset}/kernel-cache"
	fi
}

kernel_jobs() { echo "${D2B_KERNEL_JOBS:-$(nproc 2>/dev/null || echo 2)}"; }

# kernel_tarball VERSION: Debian's linux-source-VERSION tarball: the
# installed package's (6.1, 6.12), else one fetch-source.sh put in the
# cache (7.3, from trixie-backports: Debian 12 cannot install it)
kernel_tarball()
{
	local t=/usr/src/linux-source-$1.tar.xz
	[ -f "$t" ] || t=$(kernel_cache_dir)/tarballs/linux-source-$1.tar.xz
	echo "$t"
}

# kernel_source VERSION: unpack the tarball once into the cache (under a
# lock, into a temporary directory renamed when complete) and print the
# tree's path.  A tarball newer than the unpacked tree is unpacked again.
kernel_source()
{
	local ver=$1 cache tar dir tmp
	cache=$(kernel_cache_dir)
	tar=$(kernel_tarball "$ver")
	dir=$cache/src/linux-source-$ver
	[ -f "$tar" ] || { echo "no $tar ($(kernel_source_hint "$ver"))" >&2; return 1; }
	mkdir -p "$cache/src" || return 1
	(
		flock 9
		if [ -f "$dir/.d2b-unpacked" ] && [ "$dir/.d2b-unpacked" -nt "$tar" ]; then
			exit 0
		fi
		rm -rf "$dir" "$cache/src/.tmp-$ver"
		tmp=$cache/src/.tmp-$ver
		mkdir "$tmp" && tar -xf "$tar" -C "$tmp" || exit 1
		mv "$tmp/linux-source-$ver" "$dir" && rmdir "$tmp" || exit 1
		touch "$dir/.d2b-unpacked"
	) 9>"$cache/src/.lock-$ver" || return 1
	echo "$dir"
}

# kernel_source_hint VERSION: how to get a missing tarball
kernel_source_hint()
{
	case $1 in
	6.*) echo "apt-get install linux-source-$1" ;;
	*)   echo "tests/kernel/fetch-source.sh $1" ;;
	esac
}

# abs_path FILE: FILE's absolute path, symbolic links kept: a pahole
# front end may pick its mode by the name it is invoked as
abs_path() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# pahole_version PAHOLE: "131" for v1.31, as scripts/pahole-version.sh does
pahole_version()
{
	local v
	v=$("$1" --version 2>/dev/null) || { echo 0; return; }
	v=${v#v}
	case $v in
	[0-9]*.[0-9]*) echo "$v" | awk -F. '{ printf "%d%02d\n", $1, $2 }' ;;
	*) echo 0 ;;
	esac
}

# make variables for a compiler name: gcc, clang (= clang-19) and clang-NN
# of this system; gcc16 and clangNN (clang22, clang23) of the sid chroot
# (compiler_root), clangNN with the LLVM tools (LLVM=-NN: LLVM=1 with the
# suffix sid's packages give the tool names)
compiler_make_args()
{
	case $1 in
	gcc)	 echo "CC=gcc" ;;
	clang)	 echo "CC=clang-19" ;;
	clang-*) echo "CC=$1" ;;
	gcc16)	 echo "CC=gcc-16 HOSTCC=gcc-16" ;;
	clang[0-9][0-9]) echo "LLVM=-${1#clang}" ;;
	*)	 return 1 ;;
	esac
}

# compiler_cc COMPILER: the C compiler's command
compiler_cc()
{
	case $1 in
	clang[0-9][0-9]) echo "clang-${1#clang}" ;;
	*)	 compiler_make_args "$1" | sed 's/^CC=//; s/ .*//' ;;
	esac
}

# compiler_root COMPILER: / for a compiler of this system; for gcc16 and
# clangNN the Debian sid chroot they run in: D2B_SID, default ~/.cache/sid
# (made by ../shared/tools/debian-next.sh chroot, as .ci/sid-build.sh does)
compiler_root()
{
	case $1 in
	gcc16|clang[0-9][0-9]) echo "${D2B_SID:-$HOME/.cache/sid}" ;;
	*)	       echo / ;;
	esac
}

# root_missing ROOT CC: why compiler CC cannot run in ROOT, or nothing
root_missing()
{
	[ "$1" = / ] && return 0
	if [ ! -x "$1/usr/bin/make" ]; then
		echo "no chroot with make at $1 (../shared/tools/debian-next.sh chroot $1 ...)"
	elif [ ! -x "$1/usr/bin/$2" ]; then
		echo "no $2 in the chroot $1"
	elif [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		echo "running in the chroot $1 needs root and unshare"
	fi
}

# in_root ROOT PAHOLE COMMAND...: run COMMAND here (ROOT /) or chrooted
# in ROOT, in a mount namespace of its own (unshare) where the kernel
# cache and PAHOLE (when not empty) are bound at the paths they have here,
# so that the kernel's O= directories and its PAHOLE=... work unchanged;
# the mounts go with the namespace.  PAHOLE is bound as a file: a
# symbolic link's target, under the link's name.
in_root()
{
	local root=$1 pahole=$2 cache
	shift 2
	if [ "$root" = / ]; then
		"$@"
		return
	fi
	cache=$(kernel_cache_dir)
	mkdir -p "$root$cache" || return
	if [ -n "$pahole" ]; then
		mkdir -p "$root$(dirname "$pahole")" && touch "$root$pahole" || return
	fi
	# shellcheck disable=SC2016	# expanded by that sh
	unshare --mount --propagation private sh -ec '
		root=$1 cache=$2 pahole=$3
		shift 3
		for d in proc dev; do
			mountpoint -q "$root/$d" || mount --bind "/$d" "$root/$d"
		done
		mount --bind "$cache" "$root$cache"
		[ -z "$pahole" ] || mount --bind "$(readlink -f "$pahole")" "$root$pahole"
		exec chroot "$root" "$@"' in_root "$root" "$cache" "$pahole" "$@"
}

# Kernel configuration variants: extra options on top of the base list.
# "ipc" adds System V IPC, which adds and changes types (task_struct grows
# sysvsem/sysvshm members), so vmlinux's BTF type IDs differ from "base".
# "selftests" is the kernel tests/selftests runs the kernel's test_progs
# on (SELFTEST_OPTIONS).
variant_options()
{
	case $1 in
	base) ;;
	ipc)  echo "SYSVIPC" ;;
	split) echo "DEBUG_INFO_SPLIT" ;;
	selftests) echo "$SELFTEST_OPTIONS" ;;
	*)    return 1 ;;
	esac
}

# What the BPF selftests of tests/selftests need on top of CLIENT_OPTIONS:
# the system calls tinyconfig leaves out that test_progs and its C library
# make (futexes for its threads, POSIX timers for its watchdog, membarrier,
# epoll, eventfd, timerfd, signalfd, shmem (memfd), file locks, user IDs,
# fadvise, file handles, Unix sockets), network namespaces (test_progs
# restores its network namespace after each test), IPv4 (bpf_testmod's sockets),
# fprobe (kprobe.multi), fmod_ret on
# ALLOW_ERROR_INJECTION functions, cgroups (btf_tag's per-CPU type tag
# program reads struct cgroup), syscall tracepoints (vmlinux's program
# reads struct syscall_trace_enter), and what test_progs' add_key() of its
# signing certificate and the signed light skeletons (fentry_test,
# fexit_test) need: keys, X.509 and PKCS#7 with RSA and SHA-256, which
# only a select brings in (SYSTEM_DATA_VERIFICATION has no prompt:
# MODULE_SIG selects it)
SELFTEST_OPTIONS="FUTEX POSIX_TIMERS MEMBARRIER EPOLL EVENTFD TIMERFD SIGNALFD
	SHMEM TMPFS FILE_LOCKING MULTIUSER ADVISE_SYSCALLS FHANDLE UNIX NAMESPACES NET_NS
	INET FPROBE FUNCTION_ERROR_INJECTION CGROUPS FTRACE_SYSCALLS
	MODULE_SIG SYSTEM_DATA_VERIFICATION KEYS ASYMMETRIC_KEY_TYPE
	X509_CERTIFICATE_PARSER PKCS7_MESSAGE_PARSER CRYPTO_RSA CRYPTO_SHA256"

# variant_source VERSION VARIANT: the tree a variant builds.  "split"
# (-gsplit-dwarf) needs DEBUG_INFO_BTF's "depends on !DEBUG_INFO_SPLIT"
# lifted (it is there only because pahole cannot read split DWARF): a
# copy of the tree, hard-linked, with its own lib/Kconfig.debug.
variant_source()
{
	local src dir
	src=$(kernel_source "$1") || return 1
	[ "$2" = split ] || { echo "$src"; return 0; }
	dir=$src-nosplitdep
	(
		flock 9
		[ -f "$dir/.d2b-copied" ] && [ "$dir/.d2b-copied" -nt "$src/.d2b-unpacked" ] && exit 0
		rm -rf "$dir" && cp -al "$src" "$dir" || exit 1
		# a new file, not the linked one
		sed 's/depends on !DEBUG_INFO_SPLIT && /depends on /' "$src/lib/Kconfig.debug" \
			>"$dir/lib/Kconfig.debug.new" &&
			rm "$dir/lib/Kconfig.debug" &&
			mv "$dir/lib/Kconfig.debug.new" "$dir/lib/Kconfig.debug" || exit 1
		touch "$dir/.d2b-copied"
	) 9>"$src.lock-split" || return 1
	echo "$dir"
}

# What the BPF programs of tests/clients need: the JIT (kfunc calls),
# fentry/fexit (ftrace with direct calls), tp_btf (BPF_EVENTS, which wants
# kprobes and perf events), a socket filter (libbpf's probe for global
# variables), per-CPU variables as __ksym (SMP puts them in
# .data..percpu, KALLSYMS_ALL lets the kernel find their addresses)
CLIENT_OPTIONS="BPF_JIT FTRACE FUNCTION_TRACER DYNAMIC_FTRACE
	DYNAMIC_FTRACE_WITH_DIRECT_CALLS KPROBES KPROBE_EVENTS PERF_EVENTS
	BPF_EVENTS NET SMP KALLSYMS KALLSYMS_ALL"

# Options the tiny kernel needs on top of tinyconfig: NAME (=y) or NAME=m.
# Every one of them is checked in the final .config.
KERNEL_OPTIONS="64BIT PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE
	BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT PROC_FS SYSFS
	DEVTMPFS DEVTMPFS_MOUNT MODULES MODULE_UNLOAD BPF BPF_SYSCALL
	DEBUG_KERNEL DEBUG_INFO DEBUG_INFO_DWARF5 DEBUG_INFO_BTF
	DEBUG_INFO_BTF_MODULES $CLIENT_OPTIONS"

# version_options VERSION: what a version adds: its two modules
# (kernel_modules), and for 7.x CONFIG_WERROR, which makes the warnings
# of resolve_btfids (a kfunc without FUNC, a name with several) fail the
# build (7.0+, where gen-btf.sh runs it on PAHOLE's BTF)
version_options()
{
	case $1 in
	6.*) echo "CRC7=m CRC_ITU_T=m" ;;
	*)   echo "WERROR RUNTIME_TESTING_MENU TEST_BITOPS=m TEST_HEXDUMP=m" ;;
	esac
}

# kernel_pahole_flags SRC O: the PAHOLE flags SRC's scripts/Makefile.btf
# gives O's configuration (PAHOLE_FLAGS, as gen-btf.sh gets them), for a
# build of kernel_jobs jobs without KBUILD_BUILD_TIMESTAMP
kernel_pahole_flags()
{
	# shellcheck disable=SC2016	# make's $(...)
	printf '%s\n' "include $2/include/config/auto.conf" "include $1/scripts/Kbuild.include" \
		"include $1/scripts/Makefile.btf" 'flags: ; @echo $(PAHOLE_FLAGS)' |
		env -u KBUILD_BUILD_TIMESTAMP make -s --no-print-directory -f - \
			JOBS="$(kernel_jobs)" flags
}

# kernel_modules VERSION: the modules version_options builds, as
# MODULE_NAME:PATH in the O dir.  Since 6.16 the CRC libraries cannot be
# chosen by hand: 7.x builds two lib/ tests instead.
kernel_modules()
{
	case $1 in
	6.*) echo "crc7:lib/crc7.ko crc_itu_t:lib/crc-itu-t.ko" ;;
	*)   echo "test_bitops:lib/test_bitops.ko test_hexdump:lib/test_hexdump.ko" ;;
	esac
}

# kernel_out_dir VERSION COMPILER VARIANT PAHOLE: the O= directory for a
# build, keyed by what changes the compiled objects: kernel version,
# compiler, config variant, and PAHOLE's path and version (its version
# picks options in Kconfig).  A new binary at the same path reuses the
# tree; build-kernel.sh always redoes the BTF steps.
kernel_out_dir()
{
	local id
	id=$(printf '%s\n%s\n' "$(abs_path "$4")" "$("$4" --version 2>&1)" |
		sha256sum | cut -c1-10)
	echo "$(kernel_cache_dir)/out/$1-$2-$3-$id"
}
