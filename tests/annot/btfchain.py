#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""btfchain: check BTF by meaning, not by type ID.

A BTF file is read through `bpftool btf dump file F -j`.  Every type
reference is shown as the chain of kinds it goes through down to the first
type that is not a modifier, pointer or array, e.g.

    VAR c: TYPE_TAG __c -> TYPEDEF foo -> INT int

so expectations stay valid whatever order the converter gives its types.

    btfchain.py check [--mode full|no-type-tags|no-decl-tags] FILE EXPECT
    btfchain.py compare [--strip-type-tags] [--strip-decl-tags] [--known F]
                        OURS THEIRS      (both: anything bpftool reads;
                                          the strip options apply to THEIRS;
                                          F lists tolerated "missing: X" or
                                          "extra: X" lines)
    btfchain.py show FILE                (every chain, for writing EXPECT)

EXPECT lines ("# " starts a comment):

    VAR g: PTR -> TYPE_TAG tag1 -> INT int     type of a variable
    MEMBER buz.self: PTR -> STRUCT buz         member of a struct/union
    PARAM fn.x: ...   or   PARAM fn.#0: ...    parameter of FUNC fn
    RETURN fn: ...                             return type of FUNC fn
    TYPEDEF foo: INT int                       what a typedef names
    COUNT STRUCT bar = 1                       how many types of that kind
    COUNT TYPE_TAG = 3                         (and name, if given)
    DECL_TAG t1 on VAR g                       component_idx -1
    DECL_TAG t1 on FUNC fn                     (also STRUCT/UNION/TYPEDEF x)
    DECL_TAG t1 on PARAM fn.x                  component_idx = x's index
    DECL_TAG t1 on MEMBER s.m                  component_idx = m's index

Modes: no-type-tags checks every chain with its TYPE_TAG steps removed and
that no TYPE_TAG exists at all; no-decl-tags skips DECL_TAG lines and checks
that no DECL_TAG exists.  COUNT lines of the dropped kind are skipped.  A
line starting with [full] is checked in full mode only.
"""

import collections
import json
import re
import subprocess
import sys

MODIFIERS = {"TYPE_TAG", "CONST", "VOLATILE", "RESTRICT", "TYPEDEF", "PTR"}


class Btf:
    def __init__(self, path):
        r = subprocess.run(["bpftool", "btf", "dump", "file", path, "-j"],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"bpftool cannot read {path}: {r.stderr.strip()}")
        self.types = {t["id"]: t for t in json.loads(r.stdout)["types"]}

    def of_kind(self, kind, name=None):
        return [t for t in self.types.values()
                if t["kind"] == kind and (name is None or t["name"] == name)]

    def chain(self, tid):
        steps = []
        for _ in range(64):
            if tid == 0:
                steps.append("void")
                return " -> ".join(steps)
            t = self.types.get(tid)
            if t is None:
                steps.append(f"<bad id {tid}>")
                return " -> ".join(steps)
            kind = t["kind"]
            if kind in ("TYPE_TAG", "TYPEDEF"):
                steps.append(f"{kind} {t['name']}")
            elif kind in MODIFIERS:
                steps.append(kind)
            elif kind == "ARRAY":
                steps.append(f"ARRAY[{t['nr_elems']}]")
            elif kind == "FUNC_PROTO":
                steps.append("FUNC_PROTO")
                return " -> ".join(steps)
            else:
                steps.append(f"{kind} {t['name']}")
                return " -> ".join(steps)
            tid = t["type_id"]
        steps.append("<loop>")
        return " -> ".join(steps)


def strip_tags(chain):
    return " -> ".join(s for s in chain.split(" -> ") if not s.startswith("TYPE_TAG "))


def split_dotted(what):
    owner, _, field = what.partition(".")
    return owner, field


def resolve(btf, root):
    """'VAR g' etc. -> list of (type id, description) or raises KeyError."""
    kind, _, what = root.partition(" ")
    if kind == "VAR":
        return [(t["type_id"], f"VAR {what}") for t in btf.of_kind("VAR", what)]
    if kind == "TYPEDEF":
        return [(t["type_id"], f"TYPEDEF {what}") for t in btf.of_kind("TYPEDEF", what)]
    if kind == "MEMBER":
        owner, field = split_dotted(what)
        out = []
        for t in btf.of_kind("STRUCT", owner) + btf.of_kind("UNION", owner):
            for m in t["members"]:
                if m["name"] == field:
                    out.append((m["type_id"], f"[{t['id']}] {owner}.{field}"))
        return out
    if kind in ("PARAM", "RETURN"):
        fn, field = split_dotted(what) if kind == "PARAM" else (what, None)
        out = []
        for f in btf.of_kind("FUNC", fn):
            proto = btf.types[f["type_id"]]
            if kind == "RETURN":
                out.append((proto["ret_type_id"], f"RETURN {fn}"))
                continue
            for i, p in enumerate(proto["params"]):
                if p["name"] == field or field == f"#{i}":
                    out.append((p["type_id"], f"PARAM {fn}.{field}"))
        return out
    raise KeyError(f"unknown root kind {kind!r}")


def decl_target(btf, target):
    """'VAR g' -> [(type id, component_idx)]"""
    kind, _, what = target.partition(" ")
    if kind in ("VAR", "FUNC", "STRUCT", "UNION", "TYPEDEF"):
        return [(t["id"], -1) for t in btf.of_kind(kind, what)]
    if kind == "MEMBER":
        owner, field = split_dotted(what)
        out = []
        for t in btf.of_kind("STRUCT", owner) + btf.of_kind("UNION", owner):
            out += [(t["id"], i) for i, m in enumerate(t["members"]) if m["name"] == field]
        return out
    if kind == "PARAM":
        fn, field = split_dotted(what)
        out = []
        for f in btf.of_kind("FUNC", fn):
            proto = btf.types[f["type_id"]]
            out += [(f["id"], i) for i, p in enumerate(proto["params"])
                    if p["name"] == field or field == f"#{i}"]
        return out
    raise KeyError(f"unknown DECL_TAG target kind {kind!r}")


def check(btf, expect_lines, mode):
    """Returns a list of failure messages."""
    fails = []
    for lineno, raw in expect_lines:
        line = re.split(r"(?:^|\s)#(?:\s|$)", raw, 1)[0].strip()
        if not line:
            continue
        if line.startswith("[full]"):
            if mode != "full":
                continue
            line = line[6:].strip()
        where = f"line {lineno}"
        try:
            m = re.fullmatch(r"COUNT (\w+)(?: (\S+))? = (\d+)", line)
            if m:
                kind, name, want = m.group(1), m.group(2), int(m.group(3))
                if (kind == "TYPE_TAG" and mode == "no-type-tags") or \
                   (kind == "DECL_TAG" and mode == "no-decl-tags"):
                    continue
                got = len(btf.of_kind(kind, name))
                if got != want:
                    fails.append(f"{where}: {line}: got {got}")
                continue
            m = re.fullmatch(r"DECL_TAG (\S+) on (.+)", line)
            if m:
                if mode == "no-decl-tags":
                    continue
                value, target = m.group(1), m.group(2)
                targets = decl_target(btf, target)
                if not targets:
                    fails.append(f"{where}: {line}: no {target}")
                    continue
                tags = {(t["type_id"], t["component_idx"]) for t in btf.of_kind("DECL_TAG", value)}
                for tgt in targets:
                    if tgt not in tags:
                        have = sorted((t["name"], t["component_idx"]) for t in btf.of_kind("DECL_TAG")
                                      if t["type_id"] == tgt[0])
                        fails.append(f"{where}: {line}: not found on [{tgt[0]}] "
                                     f"component_idx {tgt[1]}; its DECL_TAGs: {have}")
                continue
            m = re.fullmatch(r"((?:VAR|MEMBER|PARAM|RETURN|TYPEDEF) \S+): (.+)", line)
            if m:
                root, want = m.group(1), m.group(2).strip()
                if mode == "no-type-tags":
                    want = strip_tags(want)
                found = resolve(btf, root)
                if not found:
                    fails.append(f"{where}: {root}: not in the BTF")
                for tid, desc in found:
                    got = btf.chain(tid)
                    if got != want:
                        fails.append(f"{where}: {desc}: expected {want}; got {got}")
                continue
            fails.append(f"{where}: cannot parse: {raw.strip()}")
        except KeyError as e:
            fails.append(f"{where}: {e}")
    if mode == "no-type-tags" and btf.of_kind("TYPE_TAG"):
        fails.append(f"--no-type-tags: {len(btf.of_kind('TYPE_TAG'))} TYPE_TAG left")
    if mode == "no-decl-tags" and btf.of_kind("DECL_TAG"):
        fails.append(f"--no-decl-tags: {len(btf.of_kind('DECL_TAG'))} DECL_TAG left")
    return fails


def meaning(btf):
    """Every named reference as 'ROOT: chain', and every DECL_TAG as text;
    a multiset, so duplicates show."""
    out = collections.Counter()
    for t in btf.types.values():
        k, name = t["kind"], t["name"]
        if k in ("VAR", "TYPEDEF"):
            out[f"{k} {name}: {btf.chain(t['type_id'])}"] += 1
        elif k in ("STRUCT", "UNION") and name != "(anon)":
            for m in t["members"]:
                out[f"MEMBER {name}.{m['name']}: {btf.chain(m['type_id'])}"] += 1
        elif k == "FUNC":
            proto = btf.types[t["type_id"]]
            out[f"RETURN {name}: {btf.chain(proto['ret_type_id'])}"] += 1
            for i, p in enumerate(proto["params"]):
                out[f"PARAM {name}.#{i}: {btf.chain(p['type_id'])}"] += 1
        elif k == "DECL_TAG":
            tgt = btf.types.get(t["type_id"], {"kind": "?", "name": "?"})
            idx = t["component_idx"]
            comp = ""
            if idx >= 0 and tgt["kind"] in ("STRUCT", "UNION"):
                comp = "." + tgt["members"][idx]["name"]
            elif idx >= 0 and tgt["kind"] == "FUNC":
                comp = f".#{idx}"
            out[f"DECL_TAG {name} on {tgt['kind']} {tgt['name']}{comp}"] += 1
    return out


def compare(args):
    """compare [--strip-type-tags] [--strip-decl-tags] [--known FILE] OURS THEIRS"""
    strip_type = strip_decl = False
    known = set()
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--strip-type-tags":
            strip_type = True
        elif opt == "--strip-decl-tags":
            strip_decl = True
        elif opt == "--known" and args:
            with open(args.pop(0)) as f:
                for raw in f:
                    line = re.split(r"(?:^|\s)#(?:\s|$)", raw.rstrip("\n"), 1)[0].strip()
                    if line:
                        known.add(re.sub(r"\s+", " ", line))
        else:
            print(compare.__doc__, file=sys.stderr)
            return 2
    if len(args) != 2:
        print(compare.__doc__, file=sys.stderr)
        return 2
    ours, theirs_full = meaning(Btf(args[0])), meaning(Btf(args[1]))
    theirs = collections.Counter()
    for k, n in theirs_full.items():
        if strip_decl and k.startswith("DECL_TAG "):
            continue
        if strip_type:
            root, _, chain = k.partition(": ")
            k = f"{root}: {strip_tags(chain)}" if chain else k
        theirs[k] += n
    fails = 0
    for what, keys in (("missing:", theirs - ours), ("extra:", ours - theirs)):
        for k in sorted(keys.elements()):
            if f"{what} {k}" in known:
                print(f"  known {what} {k}")
                continue
            print(f"  {what:8} {k}")
            fails += 1
    return 1 if fails else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "show":
        for k in sorted(meaning(Btf(argv[2])).elements()):
            print(k)
        return 0
    if len(argv) >= 4 and argv[1] == "compare":
        return compare(argv[2:])
    if len(argv) >= 4 and argv[1] == "check":
        mode, args = "full", argv[2:]
        if args[0] == "--mode":
            mode, args = args[1], args[2:]
        if mode not in ("full", "no-type-tags", "no-decl-tags") or len(args) != 2:
            print(__doc__, file=sys.stderr)
            return 2
        with open(args[1]) as f:
            lines = list(enumerate(f.read().splitlines(), 1))
        fails = check(Btf(args[0]), lines, mode)
        for msg in fails:
            print(f"  {msg}")
        return 1 if fails else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except RuntimeError as e:
        print(f"btfchain: {e}", file=sys.stderr)
        sys.exit(2)
