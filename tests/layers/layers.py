#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Check that lib/ is layered: each folder uses only itself and the folders
that USES (below) lists for it, every one of them, and no files of one
folder call each other in a circle; and that the READMEs name their files.

	layers.py SRC_DIR BUILD_DIR	check lib/ and BUILD_DIR/obj/lib/
	layers.py --self-test		check the checks on made-up trees

Prints one line per case, "PASS name" or "FAIL name: why", with "#" lines
of detail before a FAIL (tests/run.sh's protocol).  The cases:

  includes:F	every #include "..." in lib/F/ names dwarf2btf.h (the public
		header, usable anywhere) or a header of F or of a folder that
		F uses; the files at the top of lib/ may include any, and
		each other's
  calls:F	every symbol that an object of lib/F/ uses and another
		library object defines is defined in F or a folder that F
		uses (from nm on the built objects)
  graph		every folder F uses, by includes or calls, each folder that
		USES lists for it: the graph has no edge the code lacks
  cycles:F	the files of F do not call each other in a circle (the file
		graph from the same symbols; each strongly connected set of
		two or more files is reported with the calls that close it)
  size		no file in lib/ is over MAX_LINES lines
  readme:F	lib/F/README names every .c file of lib/F/, and every .c file
		it names (without a folder) is there, and its sentence "Uses
		..." names the folders USES lists for F, no other; lib/README
		does the same for the files at the top of lib/, names every
		folder, and has a line "  F  uses A, B" per folder as USES
  readme:D	for tests/, each folder of tests/, dwarf2btf/ and examples/:
		D/README names every file and folder in D (by its name, or by
		its stem: "seed_v2" for seed_v2.dg and seed_v2.expect), and
		every .c .h .cc .sh or .py file it names without a folder is
		there or in one of its folders (a file of another folder is
		named with its path)

USES is the graph of lib/'s folders; LAYERS lists them in an order that
puts each after those it uses.  The files at the top of lib/
(lib/convert.c, lib/scheduler.c, lib/load_base.c, lib/dwarf2btf.h) are
the top and may use every folder.  A folder not in
USES fails: a new folder must be given its place here and in lib/README.
"""

import os
import re
import subprocess
import sys

# Which folders each folder uses (includes or calls), and nothing else:
# lib/README draws the same graph.
USES = {
	"base": [],
	"btf": ["base"],
	"dwarf": ["base"],
	"unit": ["base", "btf", "dwarf"],
	"merge": ["base", "btf"],
	"finish": ["base", "btf"],
	"kernel": ["base", "btf", "dwarf", "unit", "merge"],
	"output": ["base", "btf"],
}
LAYERS = ["base", "btf", "dwarf", "unit", "merge", "finish", "kernel", "output"]
TOP = "top"			# the files at the top of lib/ (no folder)
PUBLIC_HEADER = "dwarf2btf.h"
MAX_LINES = 1200


def rank(folder):
	if folder == TOP:
		return len(LAYERS)
	return LAYERS.index(folder) if folder in LAYERS else None


def may_use(f, g, uses=None):
	"""May folder f include or call folder g?"""
	uses = USES if uses is None else uses
	return f == g or f == TOP or g in uses.get(f, ())


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
			elif not may_use(f, g):
				probs.append('%s: #include "%s": %s does not use %s (USES in %s)' %
					     (where, inc, f, g, "tests/layers/layers.py"))
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
			if rank(f) is None or rank(g) is None or not may_use(f, g):
				probs.append("lib/%s uses %s from lib/%s (%s does not use %s: USES)" %
					     (user, ", ".join(syms[:3]) + (", ..." if len(syms) > 3 else ""),
					      definer, f, g))
	return problems


def used_edges(includes, graph):
	"""{folder: set of other folders it includes or calls}, from includes
	({rel: [(line, include)]}) and the file graph; the top left out."""
	used = {}
	for rel, incs in includes.items():
		f = folder_of(rel)
		for _, inc in incs:
			if "/" in inc:
				used.setdefault(f, set()).add(inc.split("/", 1)[0])
	for user, defs in graph.items():
		for definer in defs:
			used.setdefault(folder_of(user), set()).add(folder_of(definer))
	return {f: gs - {f} for f, gs in used.items() if f != TOP}


def check_graph(used, uses=None):
	"""The edges of uses (USES) that the code does not have."""
	uses = USES if uses is None else uses
	return ["USES says %s uses %s, but lib/%s/ neither includes nor calls it" % (f, g, f)
		for f in sorted(uses) for g in uses[f] if g not in used.get(f, set())]


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

def named_folders(phrase, uses):
	"""The folders of uses that phrase names (what is in parentheses aside)."""
	phrase = re.sub(r"\([^)]*\)", "", phrase)
	return {w for w in re.findall(r"[a-z]+", phrase) if w in uses}


def check_uses(text, folder, uses):
	"""The "Uses ..." sentence of lib/FOLDER/README, or lib/README's
	"  F  uses ..." lines (folder TOP), against uses."""
	if folder != TOP:
		where = "lib/%s/README" % folder
		said = re.findall(r"(?:^|(?<=\s))Uses\s+([^.]*)\.", text)
		if len(said) != 1:
			return ['%s: one sentence "Uses lib/A and lib/B." (or "Uses nothing of ours.") '
				"names the folders it uses; found %d" % (where, len(said))]
		got, want = named_folders(said[0], uses), set(uses[folder])
		return [] if got == want else ["%s says it uses %s; it uses %s" % (
			where, " ".join(sorted(got)) or "nothing", " ".join(sorted(want)) or "nothing")]
	probs = []
	lines = {m.group(1): m.group(2) for m in
		 re.finditer(r"^\s+([a-z]+)/?\s+uses\s+(.*)$", text, re.M)}
	for f in sorted(uses):
		if f not in lines:
			probs.append('lib/README has no line "  %s  uses ..." for its graph' % f)
			continue
		got, want = named_folders(lines[f], uses), set(uses[f])
		if got != want:
			probs.append("lib/README: %s uses %s, not %s" % (
				f, " ".join(sorted(want)) or "nothing", " ".join(sorted(got)) or "nothing"))
	return probs


def check_readme(text, folder, files, folders, uses=None):
	"""text: lib/FOLDER/README's (lib/README's for the top; None if missing);
	files: the .c files of the folder (base names); folders: those that
	lib/README must name (empty for a folder); uses: the graph to hold the
	"Uses" sentences to (None: do not check them).  Returns the problems."""
	where = "lib/README" if folder == TOP else "lib/%s/README" % folder
	if text is None:
		return ["%s is missing: say what the folder is for and name its files" % where]
	probs = [] if uses is None else check_uses(text, folder, uses)
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


DOC_SKIP = re.compile(r"^(\..*|README|__pycache__|.*\.pyc|.*~)$")
CODE_NAME = re.compile(r"[A-Za-z0-9_-]*[a-z][A-Za-z0-9_-]*\.(c|h|cc|sh|py)")


def check_files_readme(text, where, entries, inner=()):
	"""text: a folder's README (None if missing); entries: the names in the
	folder, folders ending in "/"; inner: the names in its folders, which
	it may name without their folder.  Returns the problems."""
	if text is None:
		return ["%s is missing: say what the folder is for and what each file holds" % where]
	names, bare = set(), set()
	for tok in re.findall(r"[A-Za-z0-9_./*=-]+", text):
		tok = tok.rstrip(".")
		parts = [p for p in tok.split("/") if p]
		names.update(parts)
		if "/" not in tok.rstrip("/"):
			bare.add(tok.rstrip("/"))
	probs = []
	plain = {e.rstrip("/") for e in entries}
	for e in sorted(entries):
		n = e.rstrip("/")
		if n not in names and n.split(".", 1)[0] not in names:
			probs.append("%s does not name %s" % (where, e))
	for w in sorted(bare):
		if CODE_NAME.fullmatch(w) and w not in plain and w not in inner:
			probs.append("%s names %s, which is not in the folder (name another folder's "
				     "file with its path)" % (where, w))
	return probs


def doc_folders(src):
	"""(README path relative to src, folder path) of the folders whose READMEs
	check_files_readme() holds to their files."""
	out = [("tests", os.path.join(src, "tests"))]
	tests = os.path.join(src, "tests")
	for n in sorted(os.listdir(tests)):
		if os.path.isdir(os.path.join(tests, n)) and not DOC_SKIP.match(n):
			out.append(("tests/" + n, os.path.join(tests, n)))
	out += [("dwarf2btf", os.path.join(src, "dwarf2btf")), ("examples", os.path.join(src, "examples"))]
	return [(rel, d) for rel, d in out if os.path.isdir(d)]


def folder_entries(d):
	return sorted(n + "/" if os.path.isdir(os.path.join(d, n)) else n
		      for n in os.listdir(d) if not DOC_SKIP.match(n))


def inner_names(d):
	"""The names in the folders of d (one level down)."""
	return {n for e in folder_entries(d) if e.endswith("/")
		for n in os.listdir(os.path.join(d, e))}


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
		rep.case("graph", check_graph(used_edges(
			{r: parse_includes(t) for r, t in texts.items()}, graph)))

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
		rep.case("readme:%s" % f, check_readme(text, f, files, subs, USES))

	for rel, d in doc_folders(src):
		try:
			with open(os.path.join(d, "README"), encoding="utf-8") as fh:
				text = fh.read()
		except OSError:
			text = None
		rep.case("readme:%s" % rel, check_files_readme(text, rel + "/README", folder_entries(d),
							       inner_names(d)))
	return 1 if rep.nfail else 0


# ---- the checks on made-up trees ----

def self_test():
	rep = Report()
	P = lambda probs: sum(len(v) for v in probs.values())

	inc = check_includes({
		"base/a.c": [(1, "base/a.h"), (2, "dwarf2btf.h")],
		"btf/b.c": [(1, "base/a.h"), (2, "btf/b.h")],
		"convert.c": [(1, "output/e.h"), (2, "base/a.h"), (3, "top.h")],
	}, lambda p: True)
	rep.case("selftest:includes-ok", [] if P(inc) == 0 else ["flagged: %s" % inc])
	inc = check_includes({
		"base/a.c": [(1, "btf/b.h")],		# up
		"btf/b.c": [(1, "b.h")],		# no folder
		"unit/u.c": [(1, "nope/x.h")],		# unknown layer
		"finish/f.c": [(1, "merge/m.h")],	# sideways: finish does not use merge
		"extra/x.c": [],			# folder not in the order
	}, lambda p: True)
	want = ["base", "btf", "unit", "finish", "extra"]
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
	rep.case("selftest:calls", [] if calls.get("btf") and calls.get("merge") and P(calls) == 2
		 else ["expected an upward call (btf -> convert.c) and a sideways one "
		       "(merge -> unit): %s" % calls])
	used = used_edges({"unit/unit.c": [(1, "btf/btf.h")]}, g)
	probs = check_graph(used, {"unit": ["btf", "dwarf"], "merge": ["unit"]})
	rep.case("selftest:graph", [] if len(probs) == 1 and "unit uses dwarf" in probs[0] else
		 ["expected the unused edge unit -> dwarf reported: %s" % probs])
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
	rep.case("selftest:readme-missing", [] if len(check_readme(None, "output", set(), [])) == 1
		 else ["a missing README not reported"])
	uses = {"base": [], "btf": ["base"], "unit": ["base", "btf"]}
	probs = check_uses("lib/unit: units.  Uses lib/base (for vec.c).\n", "unit", uses)
	rep.case("selftest:readme-uses", [] if len(probs) == 1 and "uses base btf" in probs[0] else
		 ["expected btf missing from the Uses sentence: %s" % probs])
	probs = check_uses("  base   uses nothing of ours\n  btf    uses base\n  unit   uses btf\n",
			   TOP, uses)
	rep.case("selftest:readme-graph", [] if len(probs) == 1 and "unit uses base btf" in probs[0]
		 else ["expected unit's line reported: %s" % probs])
	probs = check_files_readme("tests/x: run.sh runs; seed_v2 (.dg, .expect); gone.py; "
				   "tests/lib.sh; X.c.\n", "tests/x/README",
				   ["run.sh", "seed_v2.dg", "seed_v2.expect", "new.c", "bad/"])
	rep.case("selftest:readme-files", [] if len(probs) == 3 and "new.c" in probs[1] and
		 "bad/" in probs[0] and "gone.py" in probs[2] else
		 ["expected bad/, new.c and gone.py reported: %s" % probs])
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
