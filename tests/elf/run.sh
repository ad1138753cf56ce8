#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The ELF writer (d2b_elf__write_btf, lib/output/elf_out.c), end to end:
#
#	tests/elf/run.sh BUILD_DIR
#
# Writes known BTF (tests/tools/elf_write_btf.c) into objects from gcc and
# clang, executables and shared libraries that must still run, objects
# that must still link, 32-bit and big-endian objects, and checks that the
# sections read back byte for byte, that loaded bytes did not move, and that
# eu-elflint finds nothing new.  Then the failures: bad input, unwritable
# directory, a full file system; each must leave the original identical and
# no temporary file behind.  One line per case: PASS/FAIL/SKIP.

set -u

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
. "$(dirname "$0")/../lib.sh"
TOOL=$BUILD/tests/elf_write_btf
need_built "$TOOL"

# a sanitizer report must not pass for the tool's ordinary "exit 1"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86

WORK=$(mktemp -d "${TMPDIR:-/tmp}/d2b-elf.XXXXXX")
MNT=
cleanup()
{
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK" || exit 1

sum() { sha256sum "$1" | cut -d' ' -f1; }

# no temporary file left in directory $1
no_temp() { ! ls -a "$1" | grep -q '\.d2b-'; }

# elflint finds nothing in $2 that it did not find in $1
lint_same()
{
	have eu-elflint || return 0
	eu-elflint --gnu-ld "$1" 2>&1 | sed "s|$1||g" | sort >"$WORK/lint.a"
	eu-elflint --gnu-ld "$2" 2>&1 | sed "s|$2||g" | sort >"$WORK/lint.b"
	if ! diff -q "$WORK/lint.a" "$WORK/lint.b" >/dev/null; then
		echo "# eu-elflint, new messages:"
		comm -13 "$WORK/lint.a" "$WORK/lint.b" | head -5 | sed 's/^/#   /'
		return 1
	fi
}

# readelf reads the section table without complaint
readelf_ok()
{
	local err
	err=$(readelf -SW "$1" 2>&1 >/dev/null)
	[ -z "$err" ] || { echo "# readelf: $err"; return 1; }
}

# program headers and the bytes of every PT_LOAD (ELF header aside) unchanged
loaded_same()
{
	python3 - "$1" "$2" <<'EOF'
import struct, sys
a, b = (open(p, 'rb').read() for p in sys.argv[1:3])
c64, end = a[4] == 2, '<' if a[5] == 1 else '>'
if c64:
    phoff, = struct.unpack_from(end + 'Q', a, 0x20); phent, phnum = struct.unpack_from(end + 'HH', a, 0x36)
else:
    phoff, = struct.unpack_from(end + 'I', a, 0x1c); phent, phnum = struct.unpack_from(end + 'HH', a, 0x2a)
ehsize = 64 if c64 else 52
if a[phoff:phoff + phent * phnum] != b[phoff:phoff + phent * phnum]:
    sys.exit('# program headers differ')
for i in range(phnum):
    o = phoff + i * phent
    if c64:
        typ, _, off, _, _, filesz = struct.unpack_from(end + 'IIQQQQ', a, o)
    else:
        typ, off, _, _, filesz = struct.unpack_from(end + 'IIIII', a, o)
    lo = max(off, ehsize)
    if typ == 1 and a[lo:off + filesz] != b[lo:off + filesz]:
        sys.exit('# PT_LOAD %d bytes differ' % i)
EOF
}

# write FILE VARIANT [BASE]: write, then check it reads back
write_check()
{
	local out
	out=$("$TOOL" write "$@" 2>&1) || { echo "# $out"; return 1; }
	"$TOOL" check "$@" || return 1
	readelf_ok "$1"
}

# expect_write_error NAME FILE PATTERN [VARIANT]: the write fails with PATTERN,
# the file is unchanged and no temporary file is left
expect_write_error()
{
	local name=$1 file=$2 pat=$3 before out rc
	before=$(sum "$file")
	out=$("$TOOL" write "$file" "${4:-3}" 2>&1)
	rc=$?
	if [ $rc -ne 1 ]; then
		fail "$name" "exit $rc (expected 1): $out"
	elif ! grep -Eq -- "$pat" <<<"$out"; then
		fail "$name" "message '$out' does not match '$pat'"
	elif [ "$(sum "$file")" != "$before" ]; then
		fail "$name" "the file changed"
	elif ! no_temp "$(dirname "$file")"; then
		fail "$name" "temporary file left behind"
	else
		pass "$name"
	fi
}

cat >prog.c <<'EOF'
#include <stdio.h>
struct point { int x, y; };
int add(const struct point *p) { return p->x + p->y; }
int main(void) { struct point p = { 40, 2 }; printf("answer %d\n", add(&p)); return 0; }
EOF
cat >lib.c <<'EOF'
struct point { int x, y; };
int lib_add(const struct point *p) { return p->x + p->y; }
EOF
cat >uselib.c <<'EOF'
#include <stdio.h>
struct point { int x, y; };
int lib_add(const struct point *p);
int main(void) { struct point p = { 40, 2 }; printf("answer %d\n", lib_add(&p)); return 0; }
EOF
# no headers: builds for any --target
cat >plain.c <<'EOF'
struct point { int x, y; long z; };
int add(struct point *p) { return p->x + p->y + (int)p->z; }
int counter = 3;
EOF

# ---- objects ----

for cc in gcc clang; do
	name=obj_$cc
	if ! have $cc || ! $cc -g -O1 -c prog.c -o $cc.o; then
		skip $name "$cc cannot compile"
		continue
	fi
	cp $cc.o $cc.orig.o
	if ! write_check $cc.o 3; then
		fail $name "write or read back failed"
	elif ! lint_same $cc.orig.o $cc.o; then
		fail $name "eu-elflint complains"
	elif ! $cc $cc.o -o $cc.linked || [ "$(./$cc.linked)" != "answer 42" ]; then
		fail $name "the object no longer links and runs"
	else
		pass $name
	fi
done

# ---- executables and shared libraries still run ----

run_case()
{
	local name=$1 file=$2 runcmd=$3
	cp "$file" "$file.orig"
	if ! write_check "$file" 5; then
		fail $name "write or read back failed"
	elif ! loaded_same "$file.orig" "$file"; then
		fail $name "loaded bytes changed"
	elif ! lint_same "$file.orig" "$file"; then
		fail $name "eu-elflint complains"
	elif [ "$(eval "$runcmd")" != "answer 42" ]; then
		fail $name "no longer runs"
	else
		pass $name
	fi
}

gcc -g -no-pie prog.c -o exe && run_case exe_nopie exe ./exe
gcc -g -pie -fPIE prog.c -o pie && run_case exe_pie pie ./pie
if gcc -g -static prog.c -o static 2>/dev/null; then
	run_case exe_static static ./static
else
	skip exe_static "gcc -static does not link (no libc.a?)"
fi
clang -g prog.c -o clangexe && run_case exe_clang clangexe ./clangexe
gcc -g -shared -fPIC lib.c -o libpt.so && gcc -g uselib.c -L. -lpt -o uselib &&
	run_case shared_lib libpt.so "LD_LIBRARY_PATH=. ./uselib"

# ---- replacing ----

name=replace
gcc -g -c prog.c -o rep.o
if ! write_check rep.o 3; then
	fail $name "first write"
else
	s1=$(stat -c %s rep.o)
	ok=1
	for v in 3 9 0 1 3; do
		write_check rep.o $v || { ok=0; fail $name "write variant $v"; break; }
	done
	n=$(readelf -SW rep.o | grep -c ' \.BTF ')
	if [ $ok = 1 ] && [ "$(stat -c %s rep.o)" != "$s1" ]; then
		fail $name "the file grows on rewrite: $s1 -> $(stat -c %s rep.o) bytes"
	elif [ $ok = 1 ] && [ "$n" != 1 ]; then
		fail $name "$n .BTF sections"
	elif [ $ok = 1 ]; then
		pass $name
	fi
fi

name=replace_in_middle
gcc -g -c prog.c -o mid.o
printf 'old btf bytes' >blob
if ! objcopy --add-section .BTF=blob --add-section .zzz=blob mid.o 2>/dev/null; then
	skip $name "objcopy cannot prepare the fixture"
else
	cp mid.o mid.orig.o
	idx=$(readelf -SW mid.o | sed -n 's/^ *\[ *\([0-9]*\)\] \.BTF .*/\1/p')
	if ! write_check mid.o 4; then
		fail $name "write or read back failed"
	elif [ "$(readelf -SW mid.o | sed -n 's/^ *\[ *\([0-9]*\)\] \.BTF .*/\1/p')" != "$idx" ]; then
		fail $name ".BTF changed index"
	elif ! lint_same mid.orig.o mid.o; then
		fail $name "eu-elflint complains"
	else
		pass $name
	fi
fi

# ---- .BTF.base ----

name=base_add_remove
gcc -g -c prog.c -o base.o
cp base.o base.orig.o
nsec=$(readelf -hW base.o | sed -n 's/.*Number of section headers: *//p')
if ! write_check base.o 4 2; then
	fail $name "write with a base"
elif ! lint_same base.orig.o base.o; then
	fail $name "eu-elflint complains"
elif ! write_check base.o 6 5; then
	fail $name "rewrite with another base"
elif ! write_check base.o 3; then
	fail $name "rewrite without a base"
elif [ "$(readelf -hW base.o | sed -n 's/.*Number of section headers: *//p')" != $((nsec + 1)) ]; then
	fail $name "the dropped .BTF.base left a section behind"
elif ! lint_same base.orig.o base.o; then
	fail $name "eu-elflint complains"
else
	pass $name
fi

name=base_blanked
gcc -g -c prog.c -o bb.o
if ! objcopy --add-section .BTF.base=blob --add-section .zzz=blob bb.o 2>/dev/null; then
	skip $name "objcopy cannot prepare the fixture"
else
	zidx=$(readelf -SW bb.o | sed -n 's/^ *\[ *\([0-9]*\)\] \.zzz .*/\1/p')
	if ! write_check bb.o 3; then
		fail $name "write failed"
	elif [ "$(readelf -SW bb.o | sed -n 's/^ *\[ *\([0-9]*\)\] \.zzz .*/\1/p')" != "$zidx" ]; then
		fail $name "a later section changed index"
	elif ! readelf -x .zzz bb.o 2>/dev/null | grep -q 'old btf'; then
		fail $name "a later section lost its contents"
	else
		pass $name
	fi
fi

# ---- BPF objects: clang's .BTF and its relocations ----

for t in bpfel bpfeb; do
	name=bpf_$t
	cat >bpf.c <<'EOF'
struct s { int a; long b; } g;
int f(struct s *p) { return p->a + (int)g.b; }
EOF
	if ! clang -target $t -g -O2 -c bpf.c -o $t.o 2>/dev/null; then
		skip $name "clang cannot target $t"
		continue
	fi
	if ! write_check $t.o 3; then
		fail $name "write or read back failed"
	elif readelf -SW $t.o | grep ' \.rel\.BTF ' | grep -vq ' 000000 '; then
		fail $name ".rel.BTF (relocations of the old .BTF) not emptied"
	elif have bpftool && ! bpftool btf dump file $t.o 2>&1 | grep -q "STRUCT 'struct_2'"; then
		fail $name "bpftool does not read the new .BTF"
	else
		pass $name
	fi
done

# ---- 32-bit and big-endian ----

for t in i386-linux-gnu powerpc-linux-gnu powerpc64-linux-gnu s390x-linux-gnu aarch64-linux-gnu; do
	name=target_$t
	if ! clang --target=$t -g -c plain.c -o $t.o 2>/dev/null; then
		skip $name "clang cannot target $t"
		continue
	fi
	cp $t.o $t.orig.o
	if ! write_check $t.o 4 || ! write_check $t.o 5 1; then
		fail $name "write or read back failed"
	elif ! lint_same $t.orig.o $t.o; then
		fail $name "eu-elflint complains"
	else
		pass $name
	fi
done

name=target_i386_links
if gcc -m32 -g -c prog.c -o m32.o 2>/dev/null && gcc -m32 m32.o -o m32.probe 2>/dev/null; then
	if ! write_check m32.o 3; then
		fail $name "write failed"
	elif ! gcc -m32 m32.o -o m32 || [ "$(./m32)" != "answer 42" ]; then
		fail $name "no longer links and runs"
	else
		pass $name
	fi
else
	skip $name "no 32-bit x86 toolchain (gcc -m32)"
fi

# ---- loaded .BTF ----

name=alloc_btf
size=$("$TOOL" size 3)
for n in $((size + 8)) $size; do
	cat >alloc.c <<EOF
#include <stdio.h>
__attribute__((section(".BTF"), used, aligned(4))) const char btf_blob[$n] = { 1 };
int main(void) { printf("answer %d\n", 42); return 0; }
EOF
	gcc -g alloc.c -o alloc$n
done
expect_write_error alloc_btf_resize alloc$((size + 8)) 'is loaded \(SHF_ALLOC'
cp alloc$size alloc.orig
if ! write_check alloc$size 3; then
	fail alloc_btf_same_size "in-place write failed"
elif ! [ "$(./alloc$size)" = "answer 42" ]; then
	fail alloc_btf_same_size "no longer runs"
elif [ "$(readelf -SW alloc.orig | grep ' \.BTF ')" != "$(readelf -SW alloc$size | grep ' \.BTF ')" ]; then
	fail alloc_btf_same_size "the section header changed"
else
	pass alloc_btf_same_size
fi

# ---- files without a section table ----

name=no_section_headers
gcc -g prog.c -o nosh
python3 - nosh <<'EOF'
import struct, sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
del b[shoff:]
struct.pack_into('<Q', b, 0x28, 0)
struct.pack_into('<HHH', b, 0x3a, 0, 0, 0)
open(p, 'wb').write(b)
EOF
# (readelf warns that no section covers the dynamic segment: not checked)
if ! out=$("$TOOL" write nosh 2 2>&1) || ! "$TOOL" check nosh 2; then
	fail $name "write failed: $out"
elif [ "$(./nosh)" != "answer 42" ]; then
	fail $name "no longer runs"
elif ! readelf -SW nosh 2>/dev/null | grep -q ' \.shstrtab '; then
	fail $name "no section name table"
else
	pass $name
fi

# ---- many sections: extended numbering ----

name=extended_numbering
for i in $(seq 1 65300); do echo ".section .s$i,\"a\""; echo ".byte 1"; done >many.s
if ! as many.s -o many.o 2>/dev/null; then
	skip $name "as cannot assemble 65300 sections"
else
	cp many.o many.orig.o
	if ! write_check many.o 3; then
		fail $name "write failed"
	elif ! readelf -SW many.o | grep -q '\.s65300 '; then
		fail $name "sections lost"
	elif ! lint_same many.orig.o many.o; then
		fail $name "eu-elflint complains"
	else
		pass $name
	fi
fi
rm -f many.s many.orig.o

# ---- owner, mode, symbolic links ----

name=keeps_mode_owner
gcc -g -c prog.c -o own.o
chmod 0640 own.o
[ "$(id -u)" = 0 ] && chown 1234:4321 own.o
before=$(stat -c '%a %u %g' own.o)
if ! write_check own.o 3; then
	fail $name "write failed"
elif [ "$(stat -c '%a %u %g' own.o)" != "$before" ]; then
	fail $name "mode/owner $before became $(stat -c '%a %u %g' own.o)"
else
	pass $name
fi

name=symlink
gcc -g -c prog.c -o target.o
ln -s target.o link.o
if ! write_check link.o 3; then
	fail $name "write failed"
elif [ ! -L link.o ] || ! "$TOOL" check target.o 3; then
	fail $name "the link was replaced instead of its target"
else
	pass $name
fi

# ---- bad input ----

gcc -g -c prog.c -o good.o
echo 'hello, I am not an ELF file' >notelf
expect_write_error not_elf notelf 'not an ELF file'
: >empty
expect_write_error empty_file empty 'not an ELF file'
head -c 40 good.o >trunc_hdr.o
expect_write_error truncated_header trunc_hdr.o 'truncated ELF header'
head -c $(($(stat -c %s good.o) - 100)) good.o >trunc_sh.o
expect_write_error truncated_section_table trunc_sh.o 'section header table truncated'
gcc -g prog.c -o trunc_exe
truncate -s $(($(stat -c %s trunc_exe) / 2)) trunc_exe
expect_write_error truncated_executable trunc_exe 'truncated|extends past'

# patch FILE NAME: a copy of good.o with one header field changed
patch()
{
	cp good.o "$2"
	python3 - "$2" "$3" <<'EOF'
import struct, sys
p, what = sys.argv[1:3]; b = bytearray(open(p, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28); shstrndx, = struct.unpack_from('<H', b, 0x3e)
sec = lambda i: shoff + 64 * i
if what == 'shentsize': struct.pack_into('<H', b, 0x3a, 12)
if what == 'shoff': struct.pack_into('<Q', b, 0x28, 1 << 40)
if what == 'shnum': struct.pack_into('<H', b, 0x3c, 0xfe00)
if what == 'shstrndx': struct.pack_into('<H', b, 0x3e, 999)
if what == 'secoff': struct.pack_into('<Q', b, sec(1) + 0x18, 1 << 40)
if what == 'secsize': struct.pack_into('<Q', b, sec(1) + 0x20, (1 << 64) - 16)
if what == 'name': struct.pack_into('<I', b, sec(1), 0xffffff)
if what == 'strtype': struct.pack_into('<I', b, sec(shstrndx) + 4, 1)
if what == 'strname':
    stroff, = struct.unpack_from('<Q', b, sec(shstrndx) + 0x18)
    i = b.index(b'.shstrtab\0', stroff); b[i:i + 10] = b'.BTF\0tab\0\0'
if what == 'align': struct.pack_into('<Q', b, sec(1) + 0x30, 3)
if what == 'phoff':
    struct.pack_into('<Q', b, 0x20, 1 << 40); struct.pack_into('<HH', b, 0x36, 56, 1)
open(p, 'wb').write(b)
EOF
	expect_write_error "$1" "$2" "$4"
}
patch corrupt_shentsize c1.o shentsize 'section header size'
patch corrupt_shoff c2.o shoff 'section header table truncated'
patch corrupt_shnum c3.o shnum 'section header table truncated'
patch corrupt_shstrndx c4.o shstrndx 'name table index'
patch corrupt_section_offset c5.o secoff 'extends past the end'
patch corrupt_section_size c6.o secsize 'extends past the end'
patch corrupt_section_name c7.o name 'invalid name offset'
patch corrupt_name_table_type c8.o strtype 'not SHT_STRTAB'
patch corrupt_alignment c9.o align 'alignment'
patch name_table_called_btf c11.o strname 'name table \[[0-9]+\] is named .BTF'
patch corrupt_phdrs c10.o phoff 'program header table truncated'

# random damage to the headers and tables: an error (file unchanged) or a
# file that still parses, never a crash
name=mutations
python3 - good.o >mut.list <<'EOF'
import random, struct, sys
b = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', b, 0x28)
rnd = random.Random(1)
for i in range(150):
    off = rnd.choice([rnd.randrange(0, 64), rnd.randrange(shoff, len(b))])
    print(off, rnd.randrange(256))
EOF
bad= nerr=0 nok=0
while read -r off val; do
	cp good.o mut.o
	printf "$(printf '\\%03o' "$val")" | dd of=mut.o bs=1 seek="$off" conv=notrunc status=none
	before=$(sum mut.o)
	out=$("$TOOL" write mut.o 3 2>&1)
	rc=$?
	if [ $rc -gt 1 ]; then
		bad="byte $off = $val: exit $rc: $out"
	elif [ $rc = 1 ] && [ "$(sum mut.o)" != "$before" ]; then
		bad="byte $off = $val: failed but changed the file"
	elif ! no_temp .; then
		bad="byte $off = $val: temporary file left"
	elif [ $rc = 0 ] && ! readelf -SW mut.o >/dev/null 2>&1; then
		bad="byte $off = $val: succeeded but readelf cannot read the result"
	fi
	[ -n "$bad" ] && break
	[ $rc = 0 ] && nok=$((nok + 1)) || nerr=$((nerr + 1))
done <mut.list
echo "# mutations: $nerr rejected, $nok written"
[ -n "$bad" ] && fail $name "$bad" || pass $name

# ---- environment failures ----

name=unwritable_dir
mkdir -p ro && gcc -g -c prog.c -o ro/x.o
if [ "$(id -u)" != 0 ]; then
	chmod 0555 ro
	expect_write_error $name ro/x.o 'cannot create a temporary file'
	chmod 0755 ro
elif have setpriv && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	chmod 0755 "$WORK" ro
	chmod 0644 ro/x.o
	before=$(sum ro/x.o)
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOL" write ro/x.o 3 2>&1)
	if [ $? -ne 1 ] || ! grep -q 'cannot create a temporary file' <<<"$out"; then
		fail $name "as nobody: $out"
	elif [ "$(sum ro/x.o)" != "$before" ] || ! no_temp ro; then
		fail $name "the file changed or a temporary file was left"
	else
		pass $name
	fi
else
	skip $name "running as root and cannot drop privileges with setpriv"
fi

name=readonly_fs
MNT=$WORK/mnt
mkdir -p "$MNT"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null; then
	cp good.o "$MNT/x.o"
	mount -o remount,ro "$MNT"
	expect_write_error $name "$MNT/x.o" 'cannot create a temporary file.*Read-only'
	umount "$MNT"
else
	skip $name "needs root and a tmpfs mount"
fi

name=disk_full
# an object of ~600 KiB in a 1 MiB file system: the copy runs out of space
cat >big.c <<'EOF'
char big[600000] = { 1, 2, 3 };
int main(void) { return big[1]; }
EOF
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
	if gcc -c big.c -o "$MNT/big.o" 2>/dev/null; then
		expect_write_error $name "$MNT/big.o" 'No space left'
	else
		skip $name "cannot build the large object in the small tmpfs"
	fi
	umount "$MNT"
else
	skip $name "mounting a small tmpfs needs root (mount -t tmpfs -o size=1m)"
fi
MNT=

# ---- a kernel module from the corpus ----

name=kernel_module
ko=
[ -n "${D2B_CORPUS:-}" ] && ko=$(find "$D2B_CORPUS" -name '*.ko' -size -2M 2>/dev/null | sort | head -n 1)
if [ -z "$ko" ]; then
	skip $name "D2B_CORPUS unset or holds no .ko"
else
	cp "$ko" mod.ko
	cp mod.ko mod.orig.ko
	if ! write_check mod.ko 7; then
		fail $name "write failed on $(basename "$ko")"
	elif ! lint_same mod.orig.ko mod.ko; then
		fail $name "eu-elflint complains"
	else
		pass $name
	fi
fi

test_done
