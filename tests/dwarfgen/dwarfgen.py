#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""dwarfgen: hand-written DWARF fixtures, for tests only.

Reads a small indented text description of DIE trees (format: README in
this directory) and writes GNU as assembly with .debug_abbrev,
.debug_info (DWARF 4 or 5), .debug_str, and the .text/.data/.bss symbols
the DIEs point at; then assembles it with `as --64` into an x86-64 ET_REL
object, so the reader under test also has to apply relocations (strp,
ref_addr, DW_OP_addr and low_pc all reference other sections).

    dwarfgen.py IN.dg -o OUT.o [-S OUT.s]

Why a generator and not a compiler: no compiler here emits the
"btf:type_tag" placement or GCC 16's DW_TAG_GNU_annotation chains, and
even clang cannot be told to place one annotation in an odd spot.  Here
every DIE, child, attribute and form is spelled out.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

TAGS = {
    "array_type": 0x01, "enumeration_type": 0x04, "formal_parameter": 0x05,
    "lexical_block": 0x0b, "member": 0x0d, "pointer_type": 0x0f,
    "compile_unit": 0x11, "structure_type": 0x13, "subroutine_type": 0x15,
    "typedef": 0x16, "union_type": 0x17, "unspecified_parameters": 0x18,
    "subrange_type": 0x21, "base_type": 0x24, "const_type": 0x26,
    "enumerator": 0x28, "subprogram": 0x2e, "variable": 0x34,
    "volatile_type": 0x35, "restrict_type": 0x37, "unspecified_type": 0x3b,
    "atomic_type": 0x47,
    "LLVM_annotation": 0x6000, "GNU_annotation": 0x6001,
}

# attribute name -> (code, default form class)
ATTRS = {
    "sibling": (0x01, "ref"), "location": (0x02, "exprloc"), "name": (0x03, "str"),
    "byte_size": (0x0b, "udata"), "bit_offset": (0x0c, "udata"), "bit_size": (0x0d, "udata"),
    "low_pc": (0x11, "addr"), "high_pc": (0x12, "data4"), "language": (0x13, "udata"),
    "comp_dir": (0x1b, "str"), "const_value": (0x1c, "const"), "upper_bound": (0x2f, "sdata"),
    "producer": (0x25, "str"), "prototyped": (0x27, "flag"), "abstract_origin": (0x31, "ref"),
    "count": (0x37, "udata"), "data_member_location": (0x38, "udata"),
    "decl_file": (0x3a, "udata"), "decl_line": (0x3b, "udata"), "declaration": (0x3c, "flag"),
    "encoding": (0x3e, "udata"), "external": (0x3f, "flag"), "specification": (0x47, "ref"),
    "type": (0x49, "ref"), "data_bit_offset": (0x6b, "udata"), "alignment": (0x88, "udata"),
    "GNU_annotation": (0x2139, "ref"),
}

FORMS = {
    "addr": 0x01, "data2": 0x05, "data4": 0x06, "data8": 0x07, "string": 0x08,
    "data1": 0x0b, "flag": 0x0c, "sdata": 0x0d, "strp": 0x0e, "udata": 0x0f,
    "ref_addr": 0x10, "ref1": 0x11, "ref2": 0x12, "ref4": 0x13, "ref8": 0x14,
    "ref_udata": 0x15, "exprloc": 0x18, "flag_present": 0x19,
}

# symbolic values of a few integer attributes
VALUES = {
    "encoding": {"address": 1, "boolean": 2, "float": 4, "signed": 5,
                 "signed_char": 6, "unsigned": 7, "unsigned_char": 8},
    "language": {"C89": 0x01, "C": 0x02, "C99": 0x0c, "C11": 0x1d},
}


class GenError(Exception):
    pass


class Die:
    def __init__(self, line, tag, label):
        self.line = line
        self.tag = tag
        self.label = label
        self.attrs = []          # (code, form name, value)
        self.children = []
        self.force_children = False


class Cu:
    def __init__(self, line, version, die, addr_size):
        self.line = line
        self.version = version
        self.die = die
        self.addr_size = addr_size


def parse_int(text, line):
    try:
        return int(text, 0)
    except ValueError:
        raise GenError(f"line {line}: not an integer: {text!r}")


def form_for(aname, fclass, value, strform, line):
    """The concrete form for an attribute given without an explicit one."""
    if fclass == "str":
        return strform
    if fclass == "ref":
        return "ref4"
    if fclass == "flag":
        return "flag_present"
    if fclass == "const":
        return "sdata" if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", value) else strform
    return fclass


def parse_attr(tok, strform, line):
    """name[:form][=value] -> (code, form, value)."""
    key, eq, value = tok.partition("=")
    aname, _, form = key.partition(":")
    if aname in ATTRS:
        code, fclass = ATTRS[aname]
    elif re.fullmatch(r"at0x[0-9a-fA-F]+", aname):
        code, fclass = int(aname[2:], 16), None
    else:
        raise GenError(f"line {line}: unknown attribute {aname!r}")
    if not form:
        if fclass is None:
            raise GenError(f"line {line}: {aname} needs an explicit :form")
        if not eq and fclass == "flag":
            form = "flag_present"
        else:
            form = form_for(aname, fclass, value, strform, line)
    if form not in FORMS:
        raise GenError(f"line {line}: unknown form {form!r}")
    if not eq and form != "flag_present":
        raise GenError(f"line {line}: {aname} needs a value")
    if aname in VALUES and value in VALUES[aname]:
        value = str(VALUES[aname][value])
    return code, form, value


def parse(text):
    """Returns (list of Cu, dict of symbols)."""
    cus, syms = [], {}
    stack = []                   # (indent, Die)
    strform = "strp"
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if "\t" in raw[:len(raw) - len(raw.lstrip())]:
            raise GenError(f"line {lineno}: indent with spaces, not tabs")
        indent = len(raw) - len(raw.lstrip())
        try:
            toks = shlex.split(raw, comments=True)
        except ValueError as e:
            raise GenError(f"line {lineno}: {e}")
        if not toks:
            continue
        head = toks[0]
        if indent == 0 and head == "sym":
            # sym NAME section=.data|.bss|.text size=N [local]
            if len(toks) < 2:
                raise GenError(f"line {lineno}: sym needs a name")
            sym = {"section": ".bss", "size": 64, "local": False, "line": lineno}
            for t in toks[2:]:
                k, _, v = t.partition("=")
                if k == "section":
                    sym["section"] = v
                elif k == "size":
                    sym["size"] = parse_int(v, lineno)
                elif k == "local":
                    sym["local"] = True
                else:
                    raise GenError(f"line {lineno}: unknown sym option {k!r}")
            syms[toks[1]] = sym
            continue
        if indent == 0:
            if head != "cu":
                raise GenError(f"line {lineno}: top level holds only 'cu' and 'sym'")
            version, strform, addr_size = 4, "strp", 8
            rest = []
            for t in toks[1:]:
                if t.startswith("version="):
                    version = parse_int(t[8:], lineno)
                elif t.startswith("addr_size="):
                    addr_size = parse_int(t[10:], lineno)
                    if addr_size not in (4, 8):
                        raise GenError(f"line {lineno}: addr_size=4|8")
                elif t.startswith("strings="):
                    strform = {"inline": "string", "strp": "strp"}.get(t[8:])
                    if not strform:
                        raise GenError(f"line {lineno}: strings=inline|strp")
                else:
                    rest.append(t)
            if version not in (4, 5):
                raise GenError(f"line {lineno}: version 4 or 5")
            die = Die(lineno, TAGS["compile_unit"], None)
            for t in rest:
                die.attrs.append(parse_attr(t, strform, lineno))
            cus.append(Cu(lineno, version, die, addr_size))
            stack = [(0, die)]
            continue
        if not stack:
            raise GenError(f"line {lineno}: DIE outside a cu")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not stack:
            raise GenError(f"line {lineno}: bad indentation")
        parent = stack[-1][1]
        if head in TAGS:
            tag = TAGS[head]
        elif re.fullmatch(r"tag0x[0-9a-fA-F]+", head):
            tag = int(head[3:], 16)
        else:
            raise GenError(f"line {lineno}: unknown DIE tag {head!r}")
        label, attr_toks, force = None, [], False
        for t in toks[1:]:
            if t.startswith("@") and label is None and not attr_toks:
                label = t[1:]
            elif t == "+children":
                force = True
            elif t.startswith("pc="):
                # shorthand: low_pc at a .text symbol, high_pc its length
                fn = t[3:]
                attr_toks.append(f"low_pc=sym:{fn}")
                attr_toks.append(f"high_pc:data4=len:{fn}")
                syms.setdefault(fn, {"section": ".text", "size": 1, "local": False,
                                     "line": lineno})
            else:
                attr_toks.append(t)
        die = Die(lineno, tag, label)
        die.force_children = force
        for t in attr_toks:
            die.attrs.append(parse_attr(t, strform, lineno))
        # symbols named by DW_OP_addr locations default to 64 bytes of .bss:
        # more than any fixture's variable, so that none overlaps the next
        for code, form, value in die.attrs:
            if form == "exprloc" and value.startswith("addr:"):
                sym = re.split(r"[+-]", value[5:], 1)[0]
                syms.setdefault(sym, {"section": ".bss", "size": 64, "local": False,
                                      "line": lineno})
        parent.children.append(die)
        stack.append((indent, die))
    return cus, syms


def asm_string(s):
    out = []
    for ch in s.encode():
        c = chr(ch)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= ch < 127:
            out.append(c)
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


class Emitter:
    def __init__(self, cus, syms):
        self.cus = cus
        self.syms = syms
        self.abbrevs = {}        # key -> code
        self.strs = {}           # string -> label
        self.labels = set()
        self.info = []

    def str_label(self, s):
        if s not in self.strs:
            self.strs[s] = f".Lstr{len(self.strs)}"
        return self.strs[s]

    def abbrev(self, die):
        has_children = bool(die.children) or die.force_children
        key = (die.tag, has_children, tuple((c, f) for c, f, _ in die.attrs))
        if key not in self.abbrevs:
            self.abbrevs[key] = len(self.abbrevs) + 1
        return self.abbrevs[key]

    def collect_labels(self, die):
        if die.label:
            if die.label in self.labels:
                raise GenError(f"line {die.line}: label @{die.label} defined twice")
            self.labels.add(die.label)
        for c in die.children:
            self.collect_labels(c)

    def ref_label(self, value, line):
        if not value.startswith("@"):
            raise GenError(f"line {line}: a reference is @label, got {value!r}")
        if value[1:] not in self.labels:
            raise GenError(f"line {line}: no DIE labelled {value}")
        return ".Ldie_" + value[1:]

    def value(self, die, cu_start, code, form, value):
        line, o = die.line, self.info
        if form in ("ref1", "ref2", "ref4", "ref8", "ref_udata"):
            # a plain number is written as it is: a unit offset that may
            # lead nowhere (malformed-input fixtures)
            if value.isdigit():
                diff = value
            else:
                diff = f"{self.ref_label(value, line)} - {cu_start}"
            o.append({"ref1": "\t.byte ", "ref2": "\t.value ", "ref4": "\t.long ",
                      "ref8": "\t.quad ", "ref_udata": "\t.uleb128 "}[form] + diff)
        elif form == "ref_addr":
            o.append(f"\t.long {self.ref_label(value, line)}")
        elif form == "string":
            o.append(f"\t.string {asm_string(value)}")
        elif form == "strp":
            o.append(f"\t.long {self.str_label(value)}")
        elif form == "flag_present":
            pass
        elif form == "exprloc":
            if value.startswith("addr:"):
                o.append(f"\t.uleb128 {1 + self.addr_size}\n\t.byte 0x3\t# DW_OP_addr")
                o.append(f"{self.addr_op}{value[5:]}")
            elif value.startswith("hex:"):
                data = bytes.fromhex(value[4:])
                o.append(f"\t.uleb128 {len(data)}")
                if data:
                    o.append("\t.byte " + ", ".join(str(b) for b in data))
            else:
                raise GenError(f"line {line}: exprloc is addr:SYM or hex:BYTES")
        elif form == "addr":
            if not value.startswith("sym:"):
                o.append(f"{self.addr_op}{parse_int(value, line)}")
            else:
                o.append(f"{self.addr_op}{value[4:]}")
        elif value.startswith("len:"):
            if form not in ("data4", "data8", "udata"):
                raise GenError(f"line {line}: len: needs data4, data8 or udata")
            sym = value[4:]
            expr = f".Lend_{sym} - {sym}"
            o.append({"data4": "\t.long ", "data8": "\t.quad ", "udata": "\t.uleb128 "}[form] + expr)
        else:
            n = parse_int(value, line)
            o.append({"data1": "\t.byte ", "data2": "\t.value ", "data4": "\t.long ",
                      "data8": "\t.quad ", "flag": "\t.byte ", "udata": "\t.uleb128 ",
                      "sdata": "\t.sleb128 "}[form] + str(n))

    def die_out(self, die, cu_start, depth):
        code = self.abbrev(die)
        if die.label:
            self.info.append(f".Ldie_{die.label}:")
        self.info.append(f"\t.uleb128 {code}\t# line {die.line}, tag 0x{die.tag:x}")
        for acode, form, value in die.attrs:
            self.value(die, cu_start, acode, form, value)
        if die.children or die.force_children:
            for c in die.children:
                self.die_out(c, cu_start, depth + 1)
            self.info.append("\t.byte 0\t# end of children")

    def emit(self):
        for cu in self.cus:
            self.collect_labels(cu.die)
        for i, cu in enumerate(self.cus):
            start, end = f".Lcu{i}_start", f".Lcu{i}_end"
            self.addr_size = cu.addr_size
            self.addr_op = "\t.quad " if cu.addr_size == 8 else "\t.long "
            self.info.append(f"{start}:")
            self.info.append(f"\t.long {end} - {start} - 4")
            if cu.version == 5:
                self.info.append(f"\t.value 5\n\t.byte 1\t# DW_UT_compile\n\t.byte {cu.addr_size}")
                self.info.append("\t.long .Labbrev0")
            else:
                self.info.append(f"\t.value 4\n\t.long .Labbrev0\n\t.byte {cu.addr_size}")
            self.die_out(cu.die, start, 0)
            self.info.append(f"{end}:")

        out = ["# generated by tests/dwarfgen/dwarfgen.py: do not edit", ""]
        by_section = {}
        for name, sym in sorted(self.syms.items()):
            by_section.setdefault(sym["section"], []).append((name, sym))
        for sec, entries in sorted(by_section.items()):
            if sec == ".text":
                out.append('\t.section .text,"ax",@progbits')
            elif sec == ".bss" or sec.startswith(".bss."):
                out.append(f'\t.section {sec},"aw",@nobits')
            else:
                out.append(f'\t.section {sec},"aw",@progbits')
            for name, sym in entries:
                if not sym["local"]:
                    out.append(f"\t.globl {name}")
                if sec == ".text":
                    out.append(f"\t.type {name}, @function\n{name}:")
                    out.append("\t.byte 0xc3\n" * 1 + f".Lend_{name}:")
                    out.append(f"\t.size {name}, .Lend_{name} - {name}")
                else:
                    out.append(f"\t.balign 8\n\t.type {name}, @object\n{name}:")
                    out.append(f"\t.zero {sym['size']}\n.Lend_{name}:")
                    out.append(f"\t.size {name}, {sym['size']}")
        out.append('\n\t.section .debug_info,"",@progbits')
        out.extend(self.info)
        out.append('\n\t.section .debug_abbrev,"",@progbits\n.Labbrev0:')
        for key, code in self.abbrevs.items():
            tag, has_children, attrs = key
            out.append(f"\t.uleb128 {code}\n\t.uleb128 0x{tag:x}\n\t.byte {int(has_children)}")
            for acode, form in attrs:
                out.append(f"\t.uleb128 0x{acode:x}\n\t.uleb128 0x{FORMS[form]:x}\t# {form}")
            out.append("\t.byte 0, 0")
        out.append("\t.byte 0")
        out.append('\n\t.section .debug_str,"MS",@progbits,1')
        for s, label in self.strs.items():
            out.append(f"{label}:\n\t.string {asm_string(s)}")
        out.append('\t.section .note.GNU-stack,"",@progbits')
        return "\n".join(out) + "\n"


def generate(text):
    cus, syms = parse(text)
    if not cus:
        raise GenError("no cu")
    return Emitter(cus, syms).emit()


def main():
    ap = argparse.ArgumentParser(description="DWARF fixture generator (tests only)")
    ap.add_argument("input")
    ap.add_argument("-o", dest="output", required=True, help="object file to write")
    ap.add_argument("-S", dest="asm", help="also keep the assembly here")
    args = ap.parse_args()
    with open(args.input) as f:
        text = f.read()
    try:
        asm = generate(text)
    except GenError as e:
        print(f"dwarfgen: {args.input}: {e}", file=sys.stderr)
        return 1
    if args.asm:
        with open(args.asm, "w") as f:
            f.write(asm)
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(asm)
        tmp = f.name
    try:
        r = subprocess.run(["as", "--64", "-o", args.output, tmp])
    finally:
        os.unlink(tmp)
    if r.returncode:
        print(f"dwarfgen: {args.input}: as failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
