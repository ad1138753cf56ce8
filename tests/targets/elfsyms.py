#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
The ELF side of tests/targets/run.sh, for objects of any class and byte
order (binutils' objcopy reads only the host's architectures):

  elfsyms.py datasec OBJ DUMP   check the DATASECs of DUMP (dwarf2btf --dump)
                                against OBJ's sections and symbol table
  elfsyms.py section OBJ NAME OUT   write section NAME's bytes to OUT
  elfsyms.py funcs OBJ          print the names of OBJ's function symbols

datasec: each DATASEC names a section of OBJ and has its size; each entry
is a data symbol of that name in that section, at the entry's offset and of
its size; and every sized data symbol with a C name is in some DATASEC (no
variable was left out).  Prints one line per problem; exit 1 if any.
"""
import re
import struct
import sys

SHT_SYMTAB, SHT_NOBITS = 2, 8
STT_OBJECT, STT_FUNC, STT_TLS = 1, 2, 6
SHN_LORESERVE = 0xff00


class Elf:
    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b'\x7fELF':
            raise SystemExit(f'{path}: not an ELF file')
        self.is64 = d[4] == 2
        self.end = '<' if d[5] == 1 else '>'
        if self.is64:
            shoff, = self.unpack('Q', 0x28)
            shentsize, shnum, shstrndx = self.unpack('HHH', 0x3a)
        else:
            shoff, = self.unpack('I', 0x20)
            shentsize, shnum, shstrndx = self.unpack('HHH', 0x2e)
        self.sections = []
        for i in range(shnum):
            off = shoff + i * shentsize
            if self.is64:
                name, typ, _flags, _addr, offset, size, link, _info, _align, entsize = \
                    self.unpack('IIQQQQIIQQ', off)
            else:
                name, typ, _flags, _addr, offset, size, link, _info, _align, entsize = \
                    self.unpack('IIIIIIIIII', off)
            self.sections.append(dict(name_off=name, type=typ, offset=offset, size=size,
                                      link=link, entsize=entsize))
        strtab = self.sections[shstrndx]
        for s in self.sections:
            s['name'] = self.cstr(strtab['offset'] + s['name_off'])

    def unpack(self, fmt, off):
        return struct.unpack_from(self.end + fmt, self.data, off)

    def cstr(self, off):
        return self.data[off:self.data.index(b'\0', off)].decode()

    def bytes_of(self, name):
        for s in self.sections:
            if s['name'] == name and s['type'] != SHT_NOBITS:
                return self.data[s['offset']:s['offset'] + s['size']]
        return None

    def symbols(self):
        """(name, value, size, type, section name or None) of each symbol"""
        for s in self.sections:
            if s['type'] != SHT_SYMTAB or not s['entsize']:
                continue
            strs = self.sections[s['link']]['offset']
            for i in range(1, s['size'] // s['entsize']):
                off = s['offset'] + i * s['entsize']
                if self.is64:
                    name, info, _other, shndx, value, size = self.unpack('IBBHQQ', off)
                else:
                    name, value, size, info, _other, shndx = self.unpack('IIIBBH', off)
                sec = self.sections[shndx]['name'] if 0 < shndx < SHN_LORESERVE else None
                yield self.cstr(strs + name), value, size, info & 0xf, sec


def parse_datasecs(dump):
    """{section name: (size, [(var, offset, size)])} from a --dump listing"""
    secs, cur = {}, None
    head = re.compile(r"^\[\d+\] DATASEC '([^']*)' size=(\d+) vlen=\d+$")
    entry = re.compile(r"^\ttype_id=\d+ offset=(\d+) size=(\d+) \(VAR '([^']*)'\)$")
    with open(dump) as f:
        for line in f:
            line = line.rstrip('\n')
            m = head.match(line)
            if m:
                cur = secs.setdefault(m.group(1), (int(m.group(2)), []))
                continue
            m = entry.match(line)
            if m and cur is not None:
                cur[1].append((m.group(3), int(m.group(1)), int(m.group(2))))
            elif not line.startswith('\t'):
                cur = None
    return secs


def check_datasec(obj, dump):
    elf = Elf(obj)
    secsize = {s['name']: s['size'] for s in elf.sections}
    syms = {}
    for name, value, size, typ, sec in elf.symbols():
        if typ in (STT_OBJECT, STT_TLS) and sec:
            syms.setdefault((sec, name), []).append((value, size))
    problems, seen = [], set()
    for sec, (size, entries) in sorted(parse_datasecs(dump).items()):
        if sec not in secsize:
            problems.append(f'DATASEC {sec}: no such section')
        elif size != secsize[sec]:
            problems.append(f'DATASEC {sec}: size {size}, the section has {secsize[sec]}')
        for var, off, sz in entries:
            seen.add((sec, var))
            cands = syms.get((sec, var), [])
            if not cands:
                problems.append(f'DATASEC {sec}: {var}: no data symbol of that name there')
            elif (off, sz) not in cands:
                v, s = cands[0]
                problems.append(f'DATASEC {sec}: {var} at {off}+{sz}, its symbol at {v}+{s}')
    for (sec, name), vals in sorted(syms.items()):
        if (sec, name) not in seen and re.fullmatch(r'[A-Za-z_]\w*', name) and \
           any(s > 0 for _, s in vals):
            problems.append(f'variable {name} (in {sec}) is in no DATASEC')
    for p in problems:
        print(p)
    return 1 if problems else 0


def main(argv):
    if len(argv) == 4 and argv[1] == 'datasec':
        return check_datasec(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == 'section':
        data = Elf(argv[2]).bytes_of(argv[3])
        if data is None:
            print(f'{argv[2]}: no section {argv[3]}')
            return 1
        with open(argv[4], 'wb') as f:
            f.write(data)
        return 0
    if len(argv) == 3 and argv[1] == 'funcs':
        for name, _v, _s, typ, sec in Elf(argv[2]).symbols():
            if typ == STT_FUNC and sec:
                print(name)
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
