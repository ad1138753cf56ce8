#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""many_units: a dwarfgen description of N compile units (N in the
hundreds), enough for dwarf2btf to merge them in groups (lib/convert.c).

    many_units.py [--one-amb] N > OUT.dg

Unit i has: int and long; struct common { int a; struct common *next; }
(only declared in every fourth unit, so that its pointers meet the
definition through graph walks); struct amb, defined as { long y; } in
the middle third of the units and as { int x; } in the others, only
declared in every fifth (a forward declaration with two definitions: the
groups of the middle third resolve it otherwise than those before them;
with --one-amb, { int x; } in every unit that defines it);
struct holder { struct common *c; struct amb *p; }; a struct s<i> of its
own holding a holder; a global variable v<i> of type struct s<i>; and a
function f<i>(struct s<i> *arg) returning int.  Every third unit keeps
its strings inline (the unit's own strings), the others in .debug_str.
Unit 0 also has a variable "big" of a 32-byte integer type, which BTF
cannot hold: one diagnostic, to be said once however the units merge.
Labels are dwarfgen's per file, so each carries its unit's number.
"""

import sys


def unit(i, n, one_amb):
    strings = " strings=inline" if i % 3 == 0 else ""
    out = [f"cu version={4 + i % 2} name=u{i}.c language=C11{strings}",
           f"  base_type @int{i} name=int encoding=signed byte_size=4",
           f"  base_type @long{i} name=long encoding=signed byte_size=8"]
    if i % 4 == 1:
        out.append(f"  structure_type @common{i} name=common declaration")
    else:
        out += [f"  structure_type @common{i} name=common byte_size=16",
                f"    member name=a type=@int{i} data_member_location=0",
                f"    member name=next type=@pcommon{i} data_member_location=8"]
    out.append(f"  pointer_type @pcommon{i} type=@common{i} byte_size=8")
    if i % 5 == 2:
        out.append(f"  structure_type @amb{i} name=amb declaration")
    elif not n // 3 <= i < 2 * n // 3 or one_amb:
        out += [f"  structure_type @amb{i} name=amb byte_size=4",
                f"    member name=x type=@int{i} data_member_location=0"]
    else:
        out += [f"  structure_type @amb{i} name=amb byte_size=8",
                f"    member name=y type=@long{i} data_member_location=0"]
    out += [f"  pointer_type @pamb{i} type=@amb{i} byte_size=8",
            f"  structure_type @holder{i} name=holder byte_size=16",
            f"    member name=c type=@pcommon{i} data_member_location=0",
            f"    member name=p type=@pamb{i} data_member_location=8",
            f"  structure_type @s{i} name=s{i} byte_size=24",
            f"    member name=h type=@holder{i} data_member_location=0",
            f"    member name=n{i % 7} type=@long{i} data_member_location=16",
            f"  pointer_type @ps{i} type=@s{i} byte_size=8",
            f"  variable name=v{i} type=@s{i} external location=addr:v{i}",
            f"  subprogram name=f{i} type=@int{i} external prototyped pc=f{i}",
            f"    formal_parameter name=arg type=@ps{i}"]
    if i == 0:
        out += ["  base_type @big name=__int256 encoding=signed byte_size=32",
                "  variable name=big type=@big external location=addr:big"]
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    one_amb = args[:1] == ["--one-amb"]
    if one_amb:
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: many_units.py [--one-amb] N > OUT.dg")
    n = int(args[0])
    print("\n".join(unit(i, n, one_amb) for i in range(n)))


main()
