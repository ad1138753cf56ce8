#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Check the inline sites of a raw BTF against what llvm-dwarfdump says.

    check_sites.py BTF DWARFDUMP SECTIONS [EXPECT...]

rel (first of EXPECT): an object, whose sections all start at 0.
BTF: raw BTF with the LOC kinds (dwarf2btf --inline-sites=together -o).
DWARFDUMP: `llvm-dwarfdump --debug-info` of the object, whose parser is
LLVM's, not ours.  SECTIONS: `readelf -SW` of it (section addresses).
Each DW_TAG_inlined_subroutine with an address must be a LOCSEC entry of
its section (the function by name, the offset from the section's start),
and each parameter's LOC_PARAM what the DWARF says there: the expression
whose range holds the entry address (else one of an empty range at it),
read for the forms dwarf2btf encodes; any other is no LOC_PARAM (0).
Then the LOCSECs' order (func, offset, loc_proto), and that equal
LOC_PARAMs and LOC_PROTOs are one type each.

EXPECT: FUNC:PARAM:WANT, the parameter PARAM (0-based) of every site of
FUNC must be WANT: 'reg5', 'reg5+reg4', 'const7', 'const-5', 'none'.

Prints '# ...' lines and one 'ok N sites' line; exit 1 with the reasons.
"""
import re
import struct
import sys

REG, CONST, ADDR, DEREF, OFFSET, SIGNED = 0x8, 0x2, 0x4, 0x10, 0x20, 0x1
SIZES = {1: 4, 3: 12, 4: None, 5: None, 6: 8, 13: 8, 14: 4, 15: 12, 17: 4, 19: 12,
         20: None, 21: 4, 22: 12}


def read_btf(path):
    data = open(path, 'rb').read()
    magic = struct.unpack_from('<H', data, 0)[0]
    end = '<' if magic == 0xeb9f else '>'
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from(end + '5I', data, 4)
    strs = data[hdr_len + str_off:hdr_len + str_off + str_len]
    p, q = hdr_len + type_off, hdr_len + type_off + type_len
    types = [None]
    while p < q:
        name_off, info, size = struct.unpack_from(end + '3I', data, p)
        kind, vlen = (info >> 24) & 0x7f, info & 0xffffff
        p += 12
        extra = data[p:]
        t = {'kind': kind, 'vlen': vlen, 'size': size, 'kflag': info >> 31,
             'name': strs[name_off:strs.index(b'\0', name_off)].decode()}
        if kind == 20:
            t['flags'] = struct.unpack_from(end + 'I', extra, 0)[0]
            t['values'] = list(struct.unpack_from(end + '%dI' % vlen, extra, 4))
            p += 4 + 4 * vlen
        elif kind == 21:
            t['params'] = list(struct.unpack_from(end + '%dI' % vlen, extra, 0))
            p += 4 * vlen
        elif kind == 22:
            t['locs'] = [struct.unpack_from(end + '3I', extra, 12 * i) for i in range(vlen)]
            p += 12 * vlen
        elif kind in (4, 5):
            p += 12 * vlen
        elif kind == 13:
            p += 8 * vlen
        elif kind in (6, 15, 19):
            p += (8 if kind == 6 else 12) * vlen
        elif kind in (1, 14, 17):
            p += 4
        elif kind == 3:
            p += 12
        types.append(t)
    return types


def parse_dwarfdump(path):
    """DIEs as dicts: tag, depth, attrs (raw text), children."""
    dies, stack = [], []
    cur = None
    attr = None
    for line in open(path, errors='replace'):
        m = re.match(r'^0x([0-9a-f]+):( *)(DW_TAG_\w+|NULL)', line)
        if m:
            depth = len(m.group(2))
            if m.group(3) == 'NULL':
                cur = None
                continue
            cur = {'off': int(m.group(1), 16), 'tag': m.group(3), 'depth': depth, 'attrs': {},
                   'kids': []}
            while stack and stack[-1]['depth'] >= depth:
                stack.pop()
            if stack:
                stack[-1]['kids'].append(cur)
            stack.append(cur)
            dies.append(cur)
            attr = None
            continue
        if cur is None:
            continue
        m = re.match(r'^\s+(DW_AT_\w+)\s+\((.*)$', line)
        if m:
            attr = m.group(1)
            cur['attrs'][attr] = m.group(2)
        elif attr and line.strip():
            cur['attrs'][attr] += '\n' + line.strip()
    return dies


def origin_name(die):
    m = re.search(r'"([^"]*)"', die['attrs'].get('DW_AT_abstract_origin', ''))
    return m.group(1) if m else None


def first_addr(text):
    m = re.search(r'0x([0-9a-f]+)', text or '')
    return int(m.group(1), 16) if m else None


def entry_pc(die):
    a = die['attrs']
    if 'DW_AT_entry_pc' in a:
        return first_addr(a['DW_AT_entry_pc'])
    if 'DW_AT_low_pc' in a:
        return first_addr(a['DW_AT_low_pc'])
    m = re.search(r'\[0x([0-9a-f]+), 0x([0-9a-f]+)\)', a.get('DW_AT_ranges', ''))
    return int(m.group(1), 16) if m else None


def expr_at(loc, pc):
    """The expression text of a DW_AT_location value that holds at pc."""
    entries = re.findall(r'\[0x([0-9a-f]+), 0x([0-9a-f]+)\): ([^\n)]*(?:\([^\n]*\))?[^\n]*)', loc)
    if not entries:
        return loc.rstrip(')')
    empty = None
    for lo, hi, e in entries:
        lo, hi = int(lo, 16), int(hi, 16)
        if lo <= pc < hi:
            return e.rstrip(')')
        if lo == hi == pc:
            empty = e.rstrip(')')
    return empty


def want_of(expr, const, at_entry):
    """What dwarf2btf must write for an expression: (flags, values) or None."""
    if const is not None:
        v = int(const, 0)
        return ('const', v)
    if expr is None:
        return None
    ops = [o.strip() for o in expr.split(', ')]
    stack = ops and ops[-1] == 'DW_OP_stack_value'
    if stack:
        ops = ops[:-1]
    if len(ops) == 1:
        o = ops[0]
        m = re.match(r'DW_OP_reg(\d+)\b', o)
        if m and not stack:
            return ('reg', int(m.group(1)))
        m = re.match(r'DW_OP_regx (0x[0-9a-f]+)', o)
        if m and not stack:
            return ('reg', int(m.group(1), 16))
        m = re.match(r'DW_OP_breg(\d+) \S+ ([+-]\d+)', o)
        if m:
            return ('mem' if not stack else 'regoff', int(m.group(1)), int(m.group(2)))
        m = re.match(r'DW_OP_fbreg ([+-]?\d+)', o)
        if m:
            return ('mem' if not stack else 'regoff', 0xffffffff, int(m.group(1)))
        m = re.match(r'DW_OP_lit(\d+)$', o)
        if m and stack:
            return ('const', int(m.group(1)))
        m = re.match(r'DW_OP_const\w* ([+-]?(?:0x[0-9a-f]+|\d+))', o)
        if m and stack:
            return ('const', int(m.group(1), 0))
        m = re.match(r'DW_OP_addr (0x[0-9a-f]+)$', o)
        if m and stack:
            return ('addrabs', int(m.group(1), 16))
        if o.startswith('DW_OP_addrx') and stack:
            return ('unknown',)	# an index into .debug_addr: not read here
        m = re.match(r'DW_OP_(?:GNU_)?entry_value\(DW_OP_reg(\d+)\b', o)
        if m and stack:
            return ('reg', int(m.group(1))) if at_entry else None
        return None
    if len(ops) == 2 and stack:
        m = re.match(r'DW_OP_addr (0x[0-9a-f]+)$', ops[0])
        p = re.match(r'DW_OP_plus_uconst (0x[0-9a-f]+)$', ops[1])
        if m and p:
            return ('addrabs', int(m.group(1), 16) + int(p.group(1), 16))
    if len(ops) == 4:
        m1 = re.match(r'DW_OP_reg(\d+)\b', ops[0])
        m2 = re.match(r'DW_OP_reg(\d+)\b', ops[2])
        p1 = re.match(r'DW_OP_piece (0x[0-9a-f]+)', ops[1])
        p2 = re.match(r'DW_OP_piece (0x[0-9a-f]+)', ops[3])
        if m1 and m2 and p1 and p2 and p1.group(1) == p2.group(1) and not stack:
            return ('pair', int(m1.group(1)), int(m2.group(1)))
    return None


def have_of(t):
    """What a LOC_PARAM says, in want_of()'s terms."""
    if t is None:
        return None
    f, v = t['flags'], t['values']
    if f & CONST and f & ADDR:
        return ('addr', v[0] | (v[1] << 32 if len(v) > 1 else 0))
    if f & CONST and not f & ADDR:
        x = v[0] | (v[1] << 32 if len(v) > 1 else 0)
        if f & SIGNED:
            x -= (1 << (32 * len(v))) if x >> (32 * len(v) - 1) else 0
        return ('const', x)
    if f & REG:
        off = 0
        if f & OFFSET:
            off = v[1] - (1 << 32) if v[1] >> 31 else v[1]
        if f & DEREF:
            return ('mem', v[0], off)
        if f & OFFSET:
            return ('regoff', v[0], off)
        return ('reg', v[0]) if len(v) == 1 else ('pair', v[0], v[1])
    return ('other', f, tuple(v))


def word(h):
    if h is None:
        return 'none'
    if h[0] == 'reg':
        return 'reg%d' % h[1]
    if h[0] == 'pair':
        return 'reg%d+reg%d' % (h[1], h[2])
    if h[0] == 'const':
        return 'const%d' % h[1]
    if h[0] == 'addr':
        return 'addr0x%x' % h[1]
    return '%s%s' % (h[0], ','.join(str(x) for x in h[1:]))


def sections(path):
    secs = {}
    for line in open(path):
        m = re.match(r'\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)',
                     line)
        if m:
            secs[m.group(2)] = (int(m.group(3), 16), int(m.group(5), 16))
    return secs


def main():
    btf_path, dd_path, sec_path = sys.argv[1:4]
    expects = [e.split(':') for e in sys.argv[4:]]
    rel = False
    if expects and expects[0] == ['rel']:
        rel = True
        expects = expects[1:]
    types = read_btf(btf_path)
    dies = parse_dwarfdump(dd_path)
    secs = sections(sec_path)
    errors = []
    byoff = {d['off']: d for d in dies}

    # the LOCSECs' entries, by (section, offset, function)
    have = {}
    for i, t in enumerate(types):
        if t and t['kind'] == 22:
            locs = t['locs']
            if locs != sorted(locs, key=lambda l: (l[0], l[2], l[1])):
                errors.append('LOCSEC %s [%d]: entries not sorted by func, offset, loc_proto'
                              % (t['name'], i))
            for func, proto, off in locs:
                fname = types[func]['name'] if types[func]['kind'] == 12 else None
                params = [types[p] if p else None for p in types[proto]['params']]
                have.setdefault((t['name'], off, fname), []).append(params)
    # one type per LOC_PARAM, per LOC_PROTO
    seen = {}
    for i, t in enumerate(types):
        if t and t['kind'] in (20, 21):
            key = (t['kind'], t['size'], t.get('flags'), tuple(t.get('values', t.get('params'))))
            if key in seen:
                errors.append('types [%d] and [%d] are equal (not deduplicated)' % (seen[key], i))
            seen[key] = i

    # the origins' parameter names, in order
    def params_of(fn_die):
        return [origin_name(k) or re.sub(r'^"|"\)?$', '', k['attrs'].get('DW_AT_name', ''))
                for k in fn_die['kids'] if k['tag'] == 'DW_TAG_formal_parameter']

    fn_entry = {}
    nsites = 0
    for d in dies:
        if d['tag'] == 'DW_TAG_subprogram' and 'DW_AT_low_pc' in d['attrs']:
            fn_entry[d['off']] = first_addr(d['attrs']['DW_AT_low_pc'])

    def walk(d, fentry, fname):
        for k in d['kids']:
            if k['tag'] == 'DW_TAG_inlined_subroutine':
                site(k, fentry, fname)
            if k['tag'] in ('DW_TAG_inlined_subroutine', 'DW_TAG_lexical_block'):
                walk(k, fentry, fname)

    def site(k, fentry, fname):
        nonlocal nsites
        pc = entry_pc(k)
        name = origin_name(k)
        if pc is None or not name:
            return
        m = re.search(r'0x([0-9a-f]+)', k['attrs']['DW_AT_abstract_origin'])
        origin = byoff.get(int(m.group(1), 16))
        names = params_of(origin) if origin else []
        if rel:		# every section at 0: the function's own, or .text
            own = '.text.' + fname
            sec = [(own if own in secs else '.text', 0)]
        else:
            sec = [(s, a) for s, (a, size) in secs.items() if a <= pc < a + size]
        if not sec:
            errors.append('%s at 0x%x: in no section' % (name, pc))
            return
        sname, saddr = sec[0]
        got = have.get((sname, pc - saddr, name))
        if not got:
            errors.append('%s at 0x%x: no LOCSEC %s entry at offset 0x%x' %
                          (name, pc, sname, pc - saddr))
            return
        params = got[0]
        nsites += 1
        for kid in k['kids']:
            if kid['tag'] != 'DW_TAG_formal_parameter':
                continue
            pname = origin_name(kid)
            if pname not in names:
                continue
            i = names.index(pname)
            loc = kid['attrs'].get('DW_AT_location')
            const = kid['attrs'].get('DW_AT_const_value')
            if const is not None:
                const = re.sub(r'[()\s]', '', const)
            want = want_of(expr_at(loc, pc) if loc else None, const, pc == fentry)
            if want and want[0] == 'addrabs':	# relative to .text, outside objects
                want = None if rel or '.text' not in secs else \
                    ('addr', want[1] - secs['.text'][0])
            h = have_of(params[i]) if i < len(params) else None
            if want == ('unknown',):
                want = h
            if want != h:
                errors.append('%s at 0x%x, parameter %s: LOC_PARAM says %s, the DWARF %s' %
                              (name, pc, pname, word(h), word(want)))
            print('# %s@%s+0x%x %s: %s' % (name, sname, pc - saddr, pname, word(h)))
        for fn, pi, w in expects:
            if fn == name and (int(pi) >= len(params) or word(have_of(params[int(pi)])) != w):
                errors.append('%s parameter %s: %s, expected %s' %
                              (fn, pi, word(have_of(params[int(pi)])) if int(pi) < len(params)
                               else 'missing', w))

    for d in dies:
        if d['tag'] == 'DW_TAG_subprogram' and d['off'] in fn_entry:
            walk(d, fn_entry[d['off']], re.sub(r'^"|"\)?$', '', d['attrs'].get('DW_AT_name', '')))
    for fn, _, _ in expects:
        if not any(k[2] == fn for k in have):
            errors.append('no site of %s' % fn)
    nentries = sum(len(v) for v in have.values())
    if nentries != nsites:
        errors.append('%d LOCSEC entries, %d sites in the DWARF' % (nentries, nsites))
    for e in errors:
        print('# ' + e)
    if errors:
        sys.exit(1)
    print('ok %d sites' % nsites)


main()
