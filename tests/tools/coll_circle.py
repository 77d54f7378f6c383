#!/usr/bin/env python3
"""coll_circle.py SRCDIR OBJ[:OBJ...] -- the collective layer's dispatch has no circle.

A blocking collective goes front end (src/coll/api_*.c) -> selector
(select.c) -> algorithm (a row of algorithms.def) -> the shared-memory
engine and the helpers below.  This draws the file graph of src/coll and
src/coll/direct (the generated front ends and coll/inter/ are other
layers' business) and prints its strongly connected components:

  - an edge A -> B when A's object uses a symbol B's object defines (nm:
    calls, and the addresses the selector's table holds: the selector is
    above every algorithm it hands out), or when A includes header B;
  - calls into the registry's entry points (cm_coll_select, cm_coll_row,
    cm_coll_find, cm_coll_list) are left out: they are how an algorithm
    hands a call to another collective or row at run time (a composite
    algorithm, the engine's fallback to point to point), which is dispatch,
    not a dependency on one algorithm.

It fails when
  1. a component of more than one file holds a front end, the selector or
     a file that defines a row (the dispatch is a circle again: e.g. the
     selector also holding a helper the algorithms call);
  2. a front end uses an algorithm's or a shortcut's function by name (it
     calls the selector only: the shortcuts are CM_SHORTCUT rows);
  3. a shared-memory row's file uses a point-to-point row's function by
     name (the engine falls back through the registry, CM_COLL_VIA).
Components inside the engine (its area, syncs, FIFOs and nonblocking
queue call each other) are printed but allowed.
"""
import os
import re
import subprocess
import sys

ENTRY_POINTS = {'cm_coll_select', 'cm_coll_row', 'cm_coll_find', 'cm_coll_list'}


def source_of(obj):
    """build/src/CMakeFiles/cm_coll.dir/coll/direct/x.c.o -> coll/direct/x.c"""
    m = re.search(r'\.dir/(.*)\.o$', obj)
    return m.group(1) if m else obj


def in_scope(path):
    return re.fullmatch(r'coll/(direct/)?[a-z0-9_]+\.[ch]', path) is not None


def read_rows(srcdir):
    rows = {}      # function -> (kind, coll)
    text = open(os.path.join(srcdir, 'src/coll/algorithms.def')).read()
    for kind, coll, name, fn, applies in re.findall(
            r'^CM_(ALGO|DIRECT|SHORTCUT)\((\w+), *(\w+), *(\w+), *(\w+)\)', text, re.M):
        rows[fn] = (kind, coll)
        if kind == 'SHORTCUT':
            rows[applies] = (kind, coll)
    return rows


def nm_graph(objs):
    defs, uses = {}, {}
    for obj in objs:
        f = source_of(obj)
        if not in_scope(f):
            continue
        out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
        uses.setdefault(f, set())
        for line in out.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == 'U':
                uses[f].add(p[1])
            elif len(p) == 3 and p[1] in 'TDBRCVW':
                defs[p[2]] = f
    return defs, uses


def include_edges(srcdir, files):
    edges = {}
    for f in files:
        path = os.path.join(srcdir, 'src', f)
        if not os.path.exists(path):
            continue
        for inc in re.findall(r'^#\s*include\s+"([^"]+)"', open(path).read(), re.M):
            if in_scope(inc):
                edges.setdefault(f, set()).add((inc, '#include'))
    return edges


def tarjan(nodes, edges):
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w, _ in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return comps


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    srcdir, objs = sys.argv[1], [o for o in sys.argv[2].split(':') if o]
    rows = read_rows(srcdir)
    defs, uses = nm_graph(objs)
    if not uses:
        sys.exit('coll_circle: no object of src/coll among the arguments')
    headers = set()
    for d in ('coll', 'coll/direct'):
        headers |= {d + '/' + h for h in os.listdir(os.path.join(srcdir, 'src', d)) if h.endswith('.h')}
    nodes = set(uses) | headers
    edges = include_edges(srcdir, nodes)
    for f, syms in uses.items():
        for s in syms:
            if s in defs and defs[s] != f and s not in ENTRY_POINTS:
                edges.setdefault(f, set()).add((defs[s], s))

    front = {f for f in uses if re.fullmatch(r'coll/api_\w+\.c', f)}
    row_files = {defs[fn] for fn in rows if fn in defs}
    dispatch = front | {'coll/select.c'} | row_files
    bad = 0

    for comp in tarjan(nodes, edges):
        if len(comp) < 2:
            continue
        inside = set(comp)
        hit = inside & dispatch
        print('%s component of %d files: %s' % ('FAIL:' if hit else 'engine', len(comp), ' '.join(comp)))
        for v in comp:
            for w, s in sorted(edges.get(v, ())):
                if w in inside and (hit or v in hit):
                    print('    %s -> %s (%s)' % (v, w, s))
        if hit:
            bad = 1
            print('    the dispatch files in it: %s' % ' '.join(sorted(hit)))

    for f in sorted(front):
        for s in sorted(uses[f] & set(rows)):
            print('FAIL: %s uses %s (%s row of %s) by name: a front end calls the selector only'
                  % (f, s, rows[s][0], rows[s][1]))
            bad = 1
    direct_files = {defs[fn] for fn, (kind, _) in rows.items() if kind == 'DIRECT' and fn in defs}
    for f in sorted(direct_files):
        for s in sorted(s for s in uses[f] if rows.get(s, ('',))[0] == 'ALGO'):
            print('FAIL: %s calls the point-to-point row %s by name (fall back through the registry: '
                  'CM_COLL_VIA)' % (f, s))
            bad = 1
    if not bad:
        print('PASS: front end -> selector -> algorithm, no circle (%d files, %d rows)' % (len(nodes), len(rows)))
    return bad


if __name__ == '__main__':
    sys.exit(main())
