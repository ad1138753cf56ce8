#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
DWARF mutants through the whole conversion, judged by the kernel.

    mutate.py --d2b DWARF2BTF --load BTF_LOAD --work DIR --seed S --count N OBJ...

Each mutant is one of the objects OBJ with a few bytes of one of its
.debug_* sections changed (a random byte, a flipped bit, 0x00/0xff, a small
step of a number, or a byte copied from elsewhere in the section: damaged
lengths, offsets, forms, names).  dwarf2btf converts it with -o; the
outcome must be one of
  - exit 1, a clean error (the input was damaged);
  - exit 0 with BTF that BPF_BTF_LOAD accepts (the damage was harmless, or
    gave other valid types).
Anything else is a finding: a crash (a signal, or a sanitizer's exit code),
a hang (--timeout seconds), another exit status, or exit 0 with BTF the
kernel refuses (the verifier, lib/btf/btf_verify.c, let it through).  Each
finding is kept as DIR/finding-N-WHAT.o with the kernel's verdict beside
it, and printed as "FINDING ...".  btf_load's exit 2 (the kernel cannot be
asked) stops the run: the caller SKIPs.

The mutants depend on the seed alone (Python's random.Random): a finding
is reproduced with the same seed, count and objects.  Exit 0: no finding;
1: findings; 2: the kernel cannot be asked.  The last line counts outcomes.
"""
import argparse
import os
import random
import struct
import subprocess
import sys

SAN_EXIT = 86	# ASAN_OPTIONS/UBSAN_OPTIONS exitcode: a report is not "exit 1"


def debug_sections(data):
    """[(name, offset, size)] of the .debug_* sections with bytes in the file"""
    if data[:4] != b'\x7fELF':
        return []
    is64 = data[4] == 2
    end = '<' if data[5] == 1 else '>'
    if is64:
        shoff, = struct.unpack_from(end + 'Q', data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + 'HHH', data, 0x3a)
        fmt = end + 'IIQQQQIIQQ'
    else:
        shoff, = struct.unpack_from(end + 'I', data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + 'HHH', data, 0x2e)
        fmt = end + 'IIIIIIIIII'
    secs = [struct.unpack_from(fmt, data, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    out = []
    for s in secs:
        name = data[stroff + s[0]:data.index(b'\0', stroff + s[0])].decode()
        if name.startswith('.debug_') and s[1] != 8 and s[5] > 0:	# not NOBITS
            out.append((name, s[4], s[5]))
    return out


def mutate(rnd, data, secs):
    """a mutated copy of data and a short description of the change"""
    b = bytearray(data)
    name, off, size = rnd.choice(secs)
    what = []
    for _ in range(rnd.choice((1, 1, 1, 2, 3))):
        i = off + rnd.randrange(size)
        op = rnd.randrange(6)
        if op == 0:
            b[i] = rnd.randrange(256)
        elif op == 1:
            b[i] ^= 1 << rnd.randrange(8)
        elif op == 2:
            b[i] = rnd.choice((0, 0xff, 0x7f, 0x80))
        elif op == 3:
            b[i] = (b[i] + rnd.choice((-2, -1, 1, 2))) & 0xff
        elif op == 4:
            b[i] = b[off + rnd.randrange(size)]
        else:	# a printable character: damaged names stay "names"
            b[i] = rnd.choice(b'`~!@#$%^&*()-+= 0123456789azAZ_.')
        what.append('%s+0x%x=0x%02x' % (name, i - off, b[i]))
    return bytes(b), ' '.join(what)


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        return None, 'timed out after %d s' % timeout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--d2b', required=True)
    ap.add_argument('--load', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--count', type=int, required=True)
    ap.add_argument('--timeout', type=int, default=20)
    ap.add_argument('--progress', type=int, default=0, help='print counts every N mutants')
    ap.add_argument('objs', nargs='+')
    a = ap.parse_args()

    inputs = []
    for p in a.objs:
        data = open(p, 'rb').read()
        secs = debug_sections(data)
        if secs:
            inputs.append((os.path.basename(p), data, secs))
    if not inputs:
        print('no object with .debug_* sections')
        return 1
    rnd = random.Random(a.seed)
    mut = os.path.join(a.work, 'mutant.o')
    out = os.path.join(a.work, 'mutant.btf')
    counts = {'error': 0, 'loaded': 0, 'finding': 0}
    for n in range(a.count):
        base, data, secs = rnd.choice(inputs)
        mdata, what = mutate(rnd, data, secs)
        with open(mut, 'wb') as f:
            f.write(mdata)
        if os.path.exists(out):
            os.unlink(out)
        rc, err = run([a.d2b, '-o', out, mut], a.timeout)
        bad = None
        if rc is None:
            bad = 'hang'
        elif rc < 0 or rc >= 128:
            bad = 'crash (signal %d)' % (-rc if rc < 0 else rc - 128)
        elif rc == SAN_EXIT:
            bad = 'sanitizer report'
        elif rc not in (0, 1):
            bad = 'exit %d' % rc
        elif rc == 1:
            counts['error'] += 1
        else:
            lrc, lerr = run([a.load, out], a.timeout)
            if lrc == 2:
                print('the kernel cannot be asked: ' + lerr.strip().splitlines()[-1:][0]
                      if lerr.strip() else 'the kernel cannot be asked')
                return 2
            if lrc == 0:
                counts['loaded'] += 1
            else:
                bad = 'exit 0 with BTF the kernel refuses'
                err = lerr
        if bad:
            counts['finding'] += 1
            keep = os.path.join(a.work, 'finding-%d-%s.o' % (n, bad.split()[0]))
            with open(keep, 'wb') as f:
                f.write(mdata)
            with open(keep + '.txt', 'w') as f:
                f.write('%s: %s\n%s\n' % (base, what, err))
            tail = ' '.join(err.strip().splitlines()[-2:])[:300]
            print('FINDING mutant %d (seed %d) of %s: %s: %s [%s] -> %s' %
                  (n, a.seed, base, bad, what, keep, tail))
        if a.progress and (n + 1) % a.progress == 0:
            print('# %d mutants: %d errors, %d loaded, %d findings' %
                  (n + 1, counts['error'], counts['loaded'], counts['finding']), flush=True)
    print('# %d mutants (seed %d): %d clean errors, %d converted and loaded, %d findings' %
          (a.count, a.seed, counts['error'], counts['loaded'], counts['finding']))
    return 1 if counts['finding'] else 0


if __name__ == '__main__':
    sys.exit(main())
