#!/usr/bin/env python3
"""abi.functions: the library exports every function of the MPI Forum's ABI
header, and its mpi.h defines every function type of it (issue 37 item 7).

A client that sees MPI_ABI_VERSION assumes the whole standard ABI is there
(mpi4py 4 does).  spec.check compares the library with the spec; this test
compares it with the Forum's header itself, so that a function the spec
never listed is caught too.

  abi_functions.py FORUM_MPI_H COREMPI_MPI_H LIBRARY [LEGACY_H]

Fails on: a function of the Forum's header that the library does not export
(as MPI_ and as PMPI_), an exported MPI_ function that neither the Forum's
header nor include/mpi_legacy.h declares, and a function type (typedef) of
the Forum's header that corempi's mpi.h does not define.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "spec"))
import spec  # noqa: E402  (spec/spec.py: the header parser spec.check uses)


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return {l.split()[2] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in ("T", "W")}


def function_types(text):
    """The names the header typedefs as function types, and their aliases
    (typedef MPI_File_errhandler_function MPI_File_errhandler_fn)."""
    flat = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    names = set(re.findall(r"typedef\s+\w+\s*\(?\s*\*?\s*(MPI_\w+)\s*\)?\s*\(", flat))
    names |= {b for a, b in re.findall(r"typedef\s+(MPI_\w+)\s+(MPI_\w+)\s*;", flat) if a in names}
    return names


def main(argv):
    if len(argv) < 3:
        print("usage: abi_functions.py FORUM_MPI_H COREMPI_MPI_H LIBRARY [LEGACY_H]")
        return 2
    forum_text = open(argv[0]).read()
    mine_text = open(argv[1]).read()
    forum = set(spec.c_header_prototypes(forum_text))
    legacy = set(spec.c_header_prototypes(open(argv[3]).read())) if len(argv) > 3 else set()
    syms = exported(argv[2])
    errors = []
    for n in sorted(forum):
        for name in (n, "P" + n):
            if name not in syms:
                errors.append("%s: in the Forum's header, not exported" % name)
    for n in sorted(s for s in syms if s.startswith("MPI_")):
        if n not in forum and n not in legacy:
            errors.append("%s: exported, but neither the Forum's header nor mpi_legacy.h declares it" % n)
    theirs, mine = function_types(forum_text), function_types(mine_text)
    for n in sorted(theirs - mine):
        errors.append("%s: a function type of the Forum's header that corempi's mpi.h does not define" % n)
    for e in errors:
        print("abi.functions: " + e)
    print("abi.functions: %d functions and %d function types in the Forum's header; %d MPI_ names exported; "
          "%d error(s)" % (len(forum), len(theirs), len([s for s in syms if s.startswith("MPI_")]), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
