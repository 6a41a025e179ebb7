#!/usr/bin/env python3
"""No include loop between modules (tests/layout.sh runs this).

A module is a stem: sb_x.c with sb_x.h, and its private headers sb_x_int.h
or sb_x_internal.h (or a table sb_x.def) count as the same module. Module A
depends on module B when a file of A includes a header of B. A loop is a
strongly connected set of two or more modules; each is reported on one line,
its modules in order and one include that closes it.

usage: include_loops.py ROOT   (exit 1 and lines on stderr when a loop exists)
"""
import os
import re
import sys

DIRS = ("kernels", "bench", "harness")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def stem(name):
    base = os.path.splitext(name)[0]
    for suffix in ("_internal", "_int"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def main(root):
    files = []
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in names:
                if n.endswith((".c", ".h", ".inc", ".def")):
                    files.append(os.path.join(dirpath, n))
    files.sort()
    # a module is named by its folder and stem, so that two folders' stems
    # never merge; a header is found by its name (tests/layout.sh makes
    # header names unique)
    home = {}
    for f in files:
        if not f.endswith(".c"):
            home[os.path.basename(f)] = os.path.dirname(f)
    module = lambda f: os.path.relpath(
        os.path.join(os.path.dirname(f), stem(os.path.basename(f))), root)
    edges = {}
    for f in files:
        a = module(f)
        edges.setdefault(a, {})
        with open(f, encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INC.match(line)
                if not m or m.group(1) not in home:
                    continue
                b = module(os.path.join(home[m.group(1)], m.group(1)))
                if b != a and b not in edges[a]:
                    edges[a][b] = "%s:%d" % (os.path.relpath(f, root), lineno)
    # Tarjan's strongly connected components, iteratively
    index, low, on, stack, sccs = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))
    for comp in sorted(sccs):
        members = set(comp)
        where = [edges[a][b] for a in comp for b in sorted(edges[a]) if b in members]
        names = " ".join(os.path.basename(m) for m in comp)
        print("loops: an include loop between %d modules: %s (%s)"
              % (len(comp), names, ", ".join(where)), file=sys.stderr)
    return 1 if sccs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
