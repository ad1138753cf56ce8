#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Damage a vmlinux BTF on purpose (tests/clients, D2B_CLIENTS_BREAK):

	btf_break.py MODE FILE

FILE is raw BTF (in place) in the host's byte order.  MODE:
  swap-params	vfs_read()'s FUNC_PROTO gets its first and third parameters
		swapped (struct file * and size_t), so an fentry program's
		load through `file` no longer verifies
  move-member	struct task_struct's tgid moves 4 bytes on, onto the next
		member (offsets stay in order, so the kernel takes the BTF),
		so a CO-RE read of task->tgid reads something else
Exit status 1, with a message, when the type to damage is not there."""

import struct
import sys

KIND_INT, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM = 1, 2, 3, 4, 5, 6
KIND_FUNC, KIND_FUNC_PROTO, KIND_VAR, KIND_DATASEC, KIND_DECL_TAG, KIND_ENUM64 = 12, 13, 14, 15, 17, 19


def types(data):
	"""Yield (id, offset of the type, kind, vlen, name_off, type) of each type."""
	magic, _ver, _flags, hdr_len, type_off, type_len = struct.unpack_from("<HBBIII", data, 0)
	if magic != 0xeb9f:
		sys.exit("btf_break: not little-endian BTF")
	pos, end, tid = hdr_len + type_off, hdr_len + type_off + type_len, 1
	while pos < end:
		name_off, info, size_type = struct.unpack_from("<III", data, pos)
		kind, vlen = (info >> 24) & 0x1f, info & 0xffff
		yield tid, pos, kind, vlen, name_off, size_type
		extra = {KIND_INT: 4, KIND_ARRAY: 12, KIND_VAR: 4, KIND_DECL_TAG: 4}.get(kind, 0)
		extra += vlen * {KIND_STRUCT: 12, KIND_UNION: 12, KIND_ENUM: 8, KIND_FUNC_PROTO: 8,
				 KIND_DATASEC: 12, KIND_ENUM64: 12}.get(kind, 0)
		pos += 12 + extra
		tid += 1


def name(data, off):
	hdr_len, str_off = struct.unpack_from("<I", data, 4)[0], struct.unpack_from("<I", data, 16)[0]
	start = hdr_len + str_off + off
	return data[start:data.index(b"\0", start)].decode()


def find(data, kind, want):
	for t in types(data):
		if t[2] == kind and name(data, t[4]) == want:
			return t
	sys.exit("btf_break: no %s in the BTF" % want)


def main():
	mode, path = sys.argv[1], sys.argv[2]
	data = bytearray(open(path, "rb").read())
	if mode == "swap-params":
		proto_id = find(data, KIND_FUNC, "vfs_read")[5]
		proto = next(t for t in types(data) if t[0] == proto_id)
		p0, p2 = proto[1] + 12, proto[1] + 12 + 2 * 8
		a, b = bytes(data[p0:p0 + 8]), bytes(data[p2:p2 + 8])
		data[p0:p0 + 8], data[p2:p2 + 8] = b, a
	elif mode == "move-member":
		t = find(data, KIND_STRUCT, "task_struct")
		for i in range(t[3]):
			m = t[1] + 12 + i * 12
			if name(data, struct.unpack_from("<I", data, m)[0]) == "tgid":
				off = struct.unpack_from("<I", data, m + 8)[0]
				struct.pack_into("<I", data, m + 8, off + 32)
				break
		else:
			sys.exit("btf_break: task_struct has no tgid")
	else:
		sys.exit("btf_break: unknown mode %s (swap-params, move-member)" % mode)
	open(path, "wb").write(data)


if __name__ == "__main__":
	main()
