#!/bin/sh
# build_mode.sh SRCDIR -- no library source switches on COREMPI, the macro of
# the public header: the build says it is corempi's (CM_IN_COREMPI), so a
# header a program includes cannot change how the library compiles.
# src/prof is a PMPI tool also built against other MPIs: there COREMPI is
# the honest question "which mpi.h is this?".
src=${1:?usage: build_mode.sh SRCDIR}
found=$(grep -rnwE '(ifdef|ifndef|defined)[ (]*COREMPI' "$src/src" "$src/tools" --include='*.[ch]' --include='*.def' |
        grep -v "^$src/src/prof/")
if [ -n "$found" ]; then
    echo "FAIL: library sources switch on COREMPI from mpi.h (use CM_IN_COREMPI):" >&2
    echo "$found" >&2
    exit 1
fi
echo PASS
