#!/usr/bin/env python3
"""spec.handwritten: the MPI_/PMPI_ front ends written by hand are the ones
the spec says are (docs/spec.md, "By hand"), and no more than MOST of them.

A hand-written definition is a line of a src/ C file that starts
`int PMPI_X(` (or another return type): the count docs/spec.md gives.  Each
must be a function of a chapter without generated front ends, or flagged
`manual`; their number must not exceed MOST (issue 34's bar is 60: lower
MOST as chapters are converted, never raise it).  Front ends made by
macros (src/mpi/large.def's rows) are not counted.
usage: spec_handwritten.py SOURCE_DIR MOST
"""
import os
import re
import sys

DEF = re.compile(r'^(?:int|double|MPI_[A-Za-z]+) PMPI_(\w+)\(', re.M)


def hand_written(src):
    """[(name, path)] of the hand-written PMPI_ definitions under src."""
    out = []
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith('.c'):
                path = os.path.join(root, f)
                out += [('MPI_' + n, os.path.relpath(path, os.path.dirname(src)))
                        for n in DEF.findall(open(path, errors='replace').read())]
    return out


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    root, most = argv[0], int(argv[1])
    sys.path.insert(0, os.path.join(root, 'spec'))
    import spec
    api = spec.load(os.path.join(root, 'spec'))
    fns = api.by_name()
    defs = hand_written(os.path.join(root, 'src'))
    errors = []
    for name, path in defs:
        fn = fns.get(name)
        if fn is None:
            continue   # not an MPI function of the spec (spec.check holds the exports to it)
        if fn.chapter in api.frontends and 'manual' not in fn.flags:
            errors.append('%s: %s is by hand, but chapter %s generates it (flag it manual, '
                          'or make it the impl)' % (path, name, fn.chapter))
    if len(defs) > most:
        errors.append('%d hand-written PMPI_ definitions, more than %d:\n  %s' % (
            len(defs), most, '\n  '.join('%s %s' % d for d in defs)))
    for e in errors:
        print('spec.handwritten: ' + e)
    print('spec.handwritten: %d hand-written PMPI_ definitions (at most %d)' % (len(defs), most))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
