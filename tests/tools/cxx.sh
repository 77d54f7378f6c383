#!/bin/sh
# cxx.sh BUILD SRC -- mpicxx and mpic++ build a C++ program (std::complex,
# std::vector, bool with the MPI_CXX_* types) that runs under mpirun on 3
# ranks, with -Wall -Werror -pedantic so that a C-only construct in mpi.h
# fails; mpicc builds the C twin that uses the same types from C.
set -u
b=$(cd "$1" && pwd)/bin
src=$(cd "$2" && pwd)/tests/tools
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
# 77: the build found no C++ compiler (make deps installs g++)
"$b/mpicxx" -showme:version >/dev/null 2>&1 || { echo "cxx.sh: mpicxx has no compiler: skipped"; exit 77; }
for w in mpicxx mpic++; do
    timeout 120 "$b/$w" -std=c++11 -Wall -Wextra -Werror -pedantic -O1 -o "$tmp/cxx_$w" "$src/cxx_types.cc" ||
        { echo "FAIL: $w could not build cxx_types.cc" >&2; fail=1; continue; }
    # linked by the C++ compiler: libstdc++ is there
    ldd "$tmp/cxx_$w" | grep -q libstdc++ || { echo "FAIL: $w did not link with the C++ compiler" >&2; fail=1; }
    n=$(timeout 60 "$b/mpirun" -n 3 "$tmp/cxx_$w" | grep -c '^cxx_types: ok$')
    [ "$n" -eq 3 ] || { echo "FAIL: $w: $n of 3 ranks ok" >&2; fail=1; }
done
timeout 120 "$b/mpicc" -Wall -Werror -O1 -o "$tmp/cxx_c" "$src/cxx_types_c.c" ||
    { echo "FAIL: mpicc could not build cxx_types_c.c" >&2; exit 1; }
n=$(timeout 60 "$b/mpirun" -n 3 "$tmp/cxx_c" | grep -c '^cxx_types_c: ok$')
[ "$n" -eq 3 ] || { echo "FAIL: the C program: $n of 3 ranks ok" >&2; fail=1; }
[ $fail -eq 0 ] && echo "cxx.sh: ok"
exit $fail
