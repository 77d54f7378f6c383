#!/usr/bin/env python3
"""spec.mutants: the checker of spec.check catches each kind of mistake.

Copies spec/ to a temporary directory, makes one mistake at a time in the
copy (a function deleted, a type changed, a length naming no parameter, a
buffer naming no datatype, a syntax slip) and expects spec.py to fail
naming it; the untouched copy must pass.  A checker that stopped checking
would fail this test.  GEN_MUTANTS do the same to the front-end generator.
usage: spec_mutants.py source-dir forum-mpi.h exported-names-file-or-lib
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(py_spec, spec_dir, headers, exports):
    cmd = [sys.executable, py_spec, '--spec', spec_dir, '--exports', exports]
    for h in headers:
        cmd += ['--header', h]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def mutate(path, old, new):
    text = open(path).read()
    if not re.search(old, text, re.M):
        raise SystemExit('spec_mutants: %r not found in %s (the spec changed: update this test)' % (old, path))
    open(path, 'w').write(re.sub(old, new, text, count=1, flags=re.M))


# (what, file, pattern, replacement, text the failure must contain)
MUTANTS = [
    ('a function deleted', 'p2p.api', r'^MPI_Ssend\b.*\n(    .*\n)+', '',
     'MPI_Ssend is exported but not in the spec'),
    ('a type changed', 'coll.api', r'^(    sendcount +in +)int\|Count', r'\1Aint|Count',
     'MPI_Allgather: parameter types differ'),
    ('a _c type changed', 'dt.api', r'^(    array_of_displacements +in +Aint\|)Count', r'\1Aint',
     'parameter types differ'),
    ('a direction changed', 'dt.api', r'^(    newtype +)out ', r'\1in  ',
     'parameter types differ'),
    ('a length naming no parameter', 'coll.api', r'int\|Count\[rsize\(comm\)\]', 'int|Count[rsize(com)]',
     "names 'com', which is no parameter"),
    ('a buffer naming no datatype', 'p2p.api', r'buf\(count, datatype\)', 'buf(count, dtype)',
     "names datatype 'dtype'"),
    ('a buffer naming no count', 'p2p.api', r'buf\(count, datatype\)', 'buf(cnt, datatype)',
     "names 'cnt', which is no parameter"),
    ('a function declared twice', 'env.api', r'^(MPI_Wtime\b.*\n)', r'\1\n\1',
     'declared twice'),
    ('a length of the wrong sort', 'topo.api', r'^(MPI_Cart_create\b.*\n(    .*\n)*?    dims +in +int)\[ndims\]', r'\1[comm_old]',
     "uses 'comm_old', which is no integer"),
    ('a constant of no name', 'comm.api', r'char\[MPI_MAX_OBJECT_NAME\]', 'char[MPI_MAX_OBJ_NAME]',
     'the header has no MPI_MAX_OBJ_NAME'),
    ('a special value of no name', 'p2p.api', r'^(    source +in +int +rank \+PROC_NULL \+ANY_)SOURCE', r'\1SAUCE',
     'the header has no MPI_ANY_SAUCE'),
    ('a front-end flag misspelt', 'dt.api', r'^(MPI_Type_size +large) impl_c=', r'\1 implc=',
     'unknown flag(s) implc='),
    ('an unknown word', 'p2p.api', r'^(    dest +in +int +rank)', r'\1 sometimes',
     "unknown word 'sometimes'"),
    ('a frontends word misspelt', 'p2p.api', r'^(frontends p2p) checks', r'\1 chekcs',
     '"frontends LAYER [checks]"'),
]

# Mistakes only the front-end generator sees (spec/gen_frontends.py, gen_checks.py).
GEN_MUTANTS = [
    ('a check below its helper', 'p2p.api', r'^frontends p2p checks', 'frontends core checks',
     'its check cm_p2p_check lives in layer p2p, above its front end\'s (core)'),
]


def run_gen(py_gen, spec_dir, out_dir):
    p = subprocess.run([sys.executable, py_gen, spec_dir, out_dir], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def main():
    src, forum, exports = sys.argv[1:4]
    py_spec = os.path.join(src, 'spec', 'spec.py')
    py_gen = os.path.join(src, 'spec', 'gen_frontends.py')
    headers = [forum, os.path.join(src, 'include', 'mpi_legacy.h')]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, 'spec')
        shutil.copytree(os.path.join(src, 'spec'), work, ignore=shutil.ignore_patterns('*.py', '__pycache__'))
        rc, out = run(py_spec, work, headers, exports)
        if rc != 0:
            print('spec_mutants: the unchanged spec fails:\n' + out)
            return 1
        rc, out = run_gen(py_gen, work, os.path.join(tmp, 'gen'))
        if rc != 0:
            print('spec_mutants: the generator fails on the unchanged spec:\n' + out)
            return 1
        cases = [(m, lambda: run(py_spec, work, headers, exports)) for m in MUTANTS]
        cases += [(m, lambda: run_gen(py_gen, work, os.path.join(tmp, 'gen'))) for m in GEN_MUTANTS]
        for (what, fname, old, new, expect), check in cases:
            shutil.rmtree(work)
            shutil.copytree(os.path.join(src, 'spec'), work, ignore=shutil.ignore_patterns('*.py', '__pycache__'))
            mutate(os.path.join(work, fname), old, new)
            rc, out = check()
            ok = rc != 0 and expect in out
            print('%-30s %s' % (what, 'caught' if ok else 'MISSED'))
            if not ok:
                failures += 1
                print('  expected a failure saying %r; spec.py said (rc %d):\n%s' % (expect, rc, out))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
