#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Check that lib/ is layered: each folder uses only itself and the folders
below it, and no files of one folder call each other in a circle.

	layers.py SRC_DIR BUILD_DIR	check lib/ and BUILD_DIR/obj/lib/
	layers.py --self-test		check the checks on made-up trees

Prints one line per case, "PASS name" or "FAIL name: why", with "#" lines
of detail before a FAIL (tests/run.sh's protocol).  The cases:

  includes:F	every #include "..." in lib/F/ names dwarf2btf.h (the public
		header, usable anywhere) or a header of F or of a lower folder;
		the files at the top of lib/ may also include each other's
  calls:F	every symbol that an object of lib/F/ uses and another
		library object defines is defined in F or a lower folder
		(from nm on the built objects)
  cycles:F	the files of F do not call each other in a circle (the file
		graph from the same symbols; each strongly connected set of
		two or more files is reported with the calls that close it)
  size		no file in lib/ is over MAX_LINES lines
  readme:F	lib/F/README names every .c file of lib/F/, and every .c file
		it names (without a folder) is there; lib/README does the
		same for the files at the top of lib/, and names every folder

The order, lowest first, is LAYERS; lib/convert.c and lib/dwarf2btf.h are
the top and may use everything.  A folder not in LAYERS fails: a new folder
must be given its place here.
"""

import os
import re
import subprocess
import sys

LAYERS = ["base", "btf", "dwarf", "unit", "merge", "finish", "kernel", "elf"]
TOP = "top"			# lib/convert.c, lib/dwarf2btf.h (no folder)
PUBLIC_HEADER = "dwarf2btf.h"
MAX_LINES = 1200


def rank(folder):
	if folder == TOP:
		return len(LAYERS)
	return LAYERS.index(folder) if folder in LAYERS else None


def folder_of(rel):
	"""The folder of a path relative to lib/: "unit/cu.c" -> "unit"."""
	parts = rel.split("/")
	return TOP if len(parts) == 1 else parts[0]


class Report:
	def __init__(self):
		self.nfail = 0

	def case(self, name, problems):
		"""problems: list of detail lines; none means PASS."""
		if not problems:
			print("PASS %s" % name)
			return True
		for p in problems[:40]:
			print("#   %s" % p)
		if len(problems) > 40:
			print("#   ... and %d more" % (len(problems) - 40))
		print("FAIL %s: %s" % (name, problems[0]))
		self.nfail += 1
		return False


# ---- includes ----

def parse_includes(text):
	"""The quoted includes of a C file, with line numbers."""
	out = []
	for n, line in enumerate(text.splitlines(), 1):
		s = line.strip()
		if s.startswith("#") and s[1:].lstrip().startswith("include"):
			rest = s[1:].lstrip()[len("include"):].strip()
			if rest.startswith('"'):
				out.append((n, rest[1:].split('"', 1)[0]))
	return out


def check_includes(files, exists):
	"""files: {rel path under lib/: [(line, include)]}; exists(rel) -> bool.
	Returns {folder: [problems]} for every folder seen."""
	problems = {}
	for rel in sorted(files):
		f = folder_of(rel)
		probs = problems.setdefault(f, [])
		if rank(f) is None:
			probs.append("lib/%s: folder '%s' has no place in the layer order" % (rel, f))
			continue
		for line, inc in files[rel]:
			where = "lib/%s:%d" % (rel, line)
			if inc == PUBLIC_HEADER:
				continue
			if "/" not in inc and f == TOP and exists(inc):
				continue	# a header of the top's own (lib/scheduler.h)
			if "/" not in inc:
				probs.append('%s: #include "%s": spell it "folder/%s"' % (where, inc, inc))
				continue
			g = inc.split("/", 1)[0]
			if rank(g) is None:
				probs.append('%s: #include "%s": no such layer' % (where, inc))
			elif not exists(inc):
				probs.append('%s: #include "%s": no such file in lib/' % (where, inc))
			elif rank(g) > rank(f):
				probs.append('%s: #include "%s": %s is above %s' % (where, inc, g, f))
	return problems


# ---- symbols ----

def read_symbols(obj):
	"""(defined globals, undefined) of an object file, from nm."""
	out = subprocess.run(["nm", "-P", "-g", obj], check=True, stdout=subprocess.PIPE,
			     universal_newlines=True).stdout
	defined, undefined = set(), set()
	for line in out.splitlines():
		w = line.split()
		if len(w) < 2:
			continue
		name, kind = w[0], w[1]
		if kind in ("U", "w", "v"):
			undefined.add(name)
		else:
			defined.add(name)
	return defined, undefined


def file_graph(objs):
	"""objs: {rel source path: (defined, undefined)}.  Returns
	{user: {definer: sorted symbols}} for calls between different files."""
	owner = {}
	for rel in sorted(objs):
		for s in objs[rel][0]:
			owner.setdefault(s, rel)
	graph = {rel: {} for rel in objs}
	for rel in sorted(objs):
		for s in sorted(objs[rel][1]):
			d = owner.get(s)
			if d is not None and d != rel:
				graph[rel].setdefault(d, []).append(s)
	return graph


def check_calls(graph):
	"""Returns {folder: [problems]} for every folder seen."""
	problems = {}
	for user in sorted(graph):
		f = folder_of(user)
		probs = problems.setdefault(f, [])
		for definer, syms in sorted(graph[user].items()):
			g = folder_of(definer)
			if rank(f) is None or rank(g) is None or rank(g) > rank(f):
				probs.append("lib/%s uses %s from lib/%s (%s is above %s)" %
					     (user, ", ".join(syms[:3]) + (", ..." if len(syms) > 3 else ""),
					      definer, g, f))
	return problems


def sccs(nodes, edges):
	"""Tarjan's strongly connected components; edges: {node: iterable}."""
	index, low, on, stack, out = {}, {}, set(), [], []
	counter = [0]

	def visit(v):
		# iterative, so that deep graphs cannot hit the recursion limit
		work = [(v, iter(sorted(edges.get(v, ()))))]
		index[v] = low[v] = counter[0]
		counter[0] += 1
		stack.append(v)
		on.add(v)
		while work:
			node, it = work[-1]
			advanced = False
			for w in it:
				if w not in index:
					index[w] = low[w] = counter[0]
					counter[0] += 1
					stack.append(w)
					on.add(w)
					work.append((w, iter(sorted(edges.get(w, ())))))
					advanced = True
					break
				if w in on:
					low[node] = min(low[node], index[w])
			if advanced:
				continue
			work.pop()
			if work:
				low[work[-1][0]] = min(low[work[-1][0]], low[node])
			if low[node] == index[node]:
				comp = []
				while True:
					w = stack.pop()
					on.discard(w)
					comp.append(w)
					if w == node:
						break
				out.append(sorted(comp))

	for v in sorted(nodes):
		if v not in index:
			visit(v)
	return out


def check_cycles(graph):
	"""Returns {folder: [problems]}: the call cycles between files of one folder."""
	problems = {}
	by_folder = {}
	for rel in graph:
		by_folder.setdefault(folder_of(rel), []).append(rel)
	for f, files in sorted(by_folder.items()):
		probs = problems.setdefault(f, [])
		inside = set(files)
		edges = {u: [d for d in graph[u] if d in inside] for u in files}
		for comp in sccs(files, edges):
			if len(comp) < 2:
				continue
			names = [os.path.basename(c) for c in comp]
			probs.append("files that call each other in a circle: %s" % " ".join(names))
			members = set(comp)
			for u in comp:
				for d in sorted(edges[u]):
					if d in members:
						syms = graph[u][d]
						probs.append("  %s -> %s: %s" % (
							os.path.basename(u), os.path.basename(d),
							", ".join(syms[:4]) + (", ..." if len(syms) > 4 else "")))
	return problems


# ---- the READMEs ----

def check_readme(text, folder, files, folders):
	"""text: lib/FOLDER/README's (lib/README's for the top; None if missing);
	files: the .c files of the folder (base names); folders: those that
	lib/README must name (empty for a folder).  Returns the problems."""
	where = "lib/README" if folder == TOP else "lib/%s/README" % folder
	if text is None:
		return ["%s is missing: say what the folder is for and name its files" % where]
	probs = []
	words = {w.rstrip(".") for w in re.findall(r"(?<![A-Za-z0-9_./-])[A-Za-z0-9_.-]+/?", text)}
	for f in sorted(folders):
		if f + "/" not in words:
			probs.append("%s does not name %s/" % (where, f))
	for c in sorted(files):
		if c not in words:
			probs.append("%s does not name %s" % (where, c))
	for w in sorted(words):
		if re.fullmatch(r"[A-Za-z0-9_-]+\.c", w) and w not in files:
			probs.append("%s names %s, which is not in the folder" % (where, w))
	return probs


# ---- the real tree ----

def lib_files(src):
	lib = os.path.join(src, "lib")
	out = []
	for root, dirs, names in os.walk(lib):
		dirs.sort()
		for n in sorted(names):
			if n.endswith((".c", ".h")):
				out.append(os.path.relpath(os.path.join(root, n), lib))
	return out


def run(src, build):
	rep = Report()
	lib = os.path.join(src, "lib")
	rels = lib_files(src)
	if not rels:
		print("FAIL layers: no C files under %s" % lib)
		return 1

	texts = {}
	for rel in rels:
		with open(os.path.join(lib, rel), encoding="utf-8", errors="replace") as fh:
			texts[rel] = fh.read()
	folders = sorted({folder_of(r) for r in rels}, key=lambda f: (rank(f) is None, rank(f) or 0, f))

	inc = check_includes({r: parse_includes(t) for r, t in texts.items()},
			     lambda p: os.path.isfile(os.path.join(lib, p)))
	for f in folders:
		rep.case("includes:%s" % f, inc.get(f, []))

	# objects of the sources that exist (a stale object of a removed file is ignored)
	objdir = os.path.join(build, "obj", "lib")
	objs, missing = {}, []
	for rel in rels:
		if not rel.endswith(".c"):
			continue
		o = os.path.join(objdir, rel[:-2] + ".o")
		if os.path.isfile(o):
			objs[rel] = read_symbols(o)
		else:
			missing.append(rel)
	if missing or not objs:
		print("FAIL calls: objects not built for %s (make O=%s)" %
		      (", ".join(missing[:5]) or "any file", build))
		rep.nfail += 1
	else:
		graph = file_graph(objs)
		calls = check_calls(graph)
		cycles = check_cycles(graph)
		for f in folders:
			if any(folder_of(r) == f for r in objs):
				rep.case("calls:%s" % f, calls.get(f, []))
				rep.case("cycles:%s" % f, cycles.get(f, []))

	big = ["lib/%s: %d lines" % (r, t.count("\n")) for r, t in sorted(texts.items())
	       if t.count("\n") > MAX_LINES]
	if big:
		big.insert(0, "over %d lines: %s" % (MAX_LINES, ", ".join(b.split(":")[0] for b in big)))
	rep.case("size", big)

	for f in folders:
		d = lib if f == TOP else os.path.join(lib, f)
		try:
			with open(os.path.join(d, "README"), encoding="utf-8") as fh:
				text = fh.read()
		except OSError:
			text = None
		files = {os.path.basename(r) for r in rels if folder_of(r) == f and r.endswith(".c")}
		subs = [g for g in folders if g != TOP] if f == TOP else []
		rep.case("readme:%s" % f, check_readme(text, f, files, subs))
	return 1 if rep.nfail else 0


# ---- the checks on made-up trees ----

def self_test():
	rep = Report()
	P = lambda probs: sum(len(v) for v in probs.values())

	inc = check_includes({
		"base/a.c": [(1, "base/a.h"), (2, "dwarf2btf.h")],
		"btf/b.c": [(1, "base/a.h"), (2, "btf/b.h")],
		"convert.c": [(1, "elf/e.h"), (2, "base/a.h"), (3, "top.h")],
	}, lambda p: True)
	rep.case("selftest:includes-ok", [] if P(inc) == 0 else ["flagged: %s" % inc])
	inc = check_includes({
		"base/a.c": [(1, "btf/b.h")],		# up
		"btf/b.c": [(1, "b.h")],		# no folder
		"unit/u.c": [(1, "nope/x.h")],		# unknown layer
		"extra/x.c": [],			# folder not in the order
	}, lambda p: True)
	want = ["base", "btf", "unit", "extra"]
	rep.case("selftest:includes-bad", [] if all(inc.get(f) for f in want) else
		 ["missed one of %s: %s" % (want, inc)])

	objs = {
		"base/vec.c": ({"vec__reserve"}, {"malloc"}),
		"btf/btf.c": ({"btf_new"}, {"vec__reserve", "d2b_convert"}),	# up: convert.c
		"unit/unit.c": ({"unit_run", "unit_diag"}, {"cu_type", "btf_new"}),
		"unit/cu_types.c": ({"cu_type"}, {"cu_annot"}),
		"unit/cu_annot.c": ({"cu_annot"}, {"unit_diag"}),		# closes a cycle
		"merge/dedup.c": ({"dedup"}, {"unit_run"}),
		"convert.c": ({"d2b_convert"}, {"dedup", "unit_run"}),
	}
	g = file_graph(objs)
	calls = check_calls(g)
	rep.case("selftest:calls", [] if calls.get("btf") and P(calls) == 1 else
		 ["expected one upward call (btf -> convert.c): %s" % calls])
	cyc = check_cycles(g)
	rep.case("selftest:cycles", [] if cyc.get("unit") and not cyc.get("base") and
		 "cu_annot.c cu_types.c unit.c" in cyc["unit"][0] else ["cycle missed: %s" % cyc])
	objs["unit/cu_annot.c"] = ({"cu_annot"}, set())
	cyc = check_cycles(file_graph(objs))
	rep.case("selftest:no-cycle", [] if P(cyc) == 0 else ["false cycle: %s" % cyc])

	probs = check_readme("lib/unit: units.  unit.c walks, cu.c reads; gone.c, lib/x.c, cu.h.\n",
			     "unit", {"unit.c", "cu.c", "cu_types.c"}, [])
	rep.case("selftest:readme", [] if len(probs) == 2 and "cu_types.c" in probs[0] and
		 "gone.c" in probs[1] else ["expected cu_types.c and gone.c reported: %s" % probs])
	probs = check_readme("convert.c drives base/ and unit/.\n", TOP, {"convert.c"},
			     ["base", "unit", "merge"])
	rep.case("selftest:readme-top", [] if len(probs) == 1 and "merge/" in probs[0] else
		 ["expected merge/ reported: %s" % probs])
	rep.case("selftest:readme-missing", [] if len(check_readme(None, "elf", set(), [])) == 1
		 else ["a missing README not reported"])
	return 1 if rep.nfail else 0


def main(argv):
	if argv[1:] == ["--self-test"]:
		return self_test()
	if len(argv) != 3:
		sys.stderr.write("usage: %s SRC_DIR BUILD_DIR | --self-test\n" % argv[0])
		return 2
	return run(argv[1], argv[2])


if __name__ == "__main__":
	sys.exit(main(sys.argv))
