#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write a small raw BTF blob, valid or broken on purpose, for the
self-test of tests/btf_load: the kernel must accept 'good' and reject every
other kind, which proves that btf_load can fail.

    mkblob.py KIND OUT      KIND: good badref intbits ptrname loop magic
                            split splitbad (split BTF over 'good')
"""
import struct
import sys

INT, PTR, STRUCT, CONST = 1, 2, 4, 10


def info(kind, vlen=0, kflag=0):
    return kflag << 31 | kind << 24 | vlen


def blob(kind):
    strs = b"\0int\0pt\0x\0y\0"
    off = {"int": 1, "pt": 5, "x": 8, "y": 10}
    int_bits = 64 if kind == "intbits" else 32
    member_type = 99 if kind == "badref" else 1
    types = b""
    # [1] INT int size=4 signed
    types += struct.pack("<III", off["int"], info(INT), 4) + struct.pack("<I", 1 << 24 | int_bits)
    # [2] PTR -> 1 (named when broken on purpose)
    types += struct.pack("<III", off["pt"] if kind == "ptrname" else 0, info(PTR), 1)
    # [3] STRUCT pt size=8 { int x; int y; }
    types += struct.pack("<III", off["pt"], info(STRUCT, 2), 8)
    types += struct.pack("<III", off["x"], member_type, 0)
    types += struct.pack("<III", off["y"], 1, 32)
    if kind == "loop":
        # [4] CONST -> 5, [5] CONST -> 4: a modifier cycle
        types += struct.pack("<III", 0, info(CONST), 5)
        types += struct.pack("<III", 0, info(CONST), 4)
    magic = 0xEB9E if kind == "magic" else 0xEB9F
    hdr = struct.pack("<HBBIIIII", magic, 1, 0, 24, 0, len(types), len(types), len(strs))
    return hdr + types + strs


def split_blob(kind):
    """[4] STRUCT q { struct pt p; } over 'good': IDs and string offsets
    continue after the base's (whose strings are 12 bytes)."""
    base_str_len = 12
    strs = b"q\0"
    member_type = 99 if kind == "splitbad" else 3
    types = struct.pack("<III", base_str_len + 0, info(STRUCT, 1), 8)
    types += struct.pack("<III", 8, member_type, 0)    # 'x' from the base's strings
    hdr = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types), len(strs))
    return hdr + types + strs


KINDS = ("good", "badref", "intbits", "ptrname", "loop", "magic", "split", "splitbad")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    if sys.byteorder != "little":
        sys.exit("mkblob.py: writes little-endian BTF only")
    with open(sys.argv[2], "wb") as f:
        kind = sys.argv[1]
        f.write(split_blob(kind) if kind.startswith("split") else blob(kind))


main()
