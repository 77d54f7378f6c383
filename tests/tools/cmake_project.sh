#!/bin/sh
# cmake_project.sh BUILD SRC -- a user's CMake project (tests/tools/cmake_project:
# C and C++ targets, find_package(MPI)) configured with exactly the cache
# variables the README documents, built, and its ctest run under corempi's
# mpirun.  Its CMakeCache must name corempi's include dir and library, not
# Open MPI's or MPICH's (both are installed on the test machines).
set -u
b=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
"$b/bin/mpicxx" -showme:version >/dev/null 2>&1 || { echo "cmake_project.sh: no C++ compiler: skipped"; exit 77; }
# The README's command, verbatim but for the paths.
cmake -S "$src/tests/tools/cmake_project" -B "$tmp/b" \
    -DMPI_C_COMPILER="$b/bin/mpicc" -DMPI_CXX_COMPILER="$b/bin/mpicxx" \
    -DMPIEXEC_EXECUTABLE="$b/bin/mpirun" >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log" >&2; fail "configure"; }
cache=$tmp/b/CMakeCache.txt
for lang in C CXX; do
    inc=$(sed -n "s/^MPI_${lang}_HEADER_DIR:[A-Z]*=//p" "$cache")
    [ "$inc" = "$b/include" ] || fail "MPI_${lang}_HEADER_DIR is '$inc', not $b/include"
    lib=$(sed -n "s/^MPI_corempi_LIBRARY:[A-Z]*=//p" "$cache")
    [ "$lib" = "$b/lib/libcorempi.so" ] || fail "MPI_corempi_LIBRARY is '$lib'"
done
grep -iE '^MPI_.*(openmpi|mpich)' "$cache" && fail "the cache names another MPI"
cmake --build "$tmp/b" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; fail "build"; }
(cd "$tmp/b" && ctest --output-on-failure) || fail "the project's ctest"
echo "cmake_project.sh: ok"
