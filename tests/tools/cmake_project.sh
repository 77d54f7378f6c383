#!/bin/sh
# cmake_project.sh BUILD SRC -- a user's CMake project (tests/tools/cmake_project:
# C and C++ targets, find_package(MPI)) configured with exactly the cache
# variables the README documents, built, and its ctest run under corempi's
# mpirun.  Its CMakeCache must name corempi's include dir and library, not
# Open MPI's or MPICH's (both are installed on the test machines; MPICH's
# mpi.mod is in /usr/include).  With mpifort built, the project's Fortran
# targets too (-DMPI_Fortran_COMPILER, as a C+Fortran client such as
# ScaLAPACK is configured: docs/fortran.md).
set -u
b=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
"$b/bin/mpicxx" -showme:version >/dev/null 2>&1 || { echo "cmake_project.sh: no C++ compiler: skipped"; exit 77; }
fortran=""
[ -x "$b/bin/mpifort" ] && fortran="-DWITH_FORTRAN=ON -DMPI_Fortran_COMPILER=$b/bin/mpifort"
# The README's command, verbatim but for the paths.
# shellcheck disable=SC2086 # $fortran: two words or none
cmake -S "$src/tests/tools/cmake_project" -B "$tmp/b" \
    -DMPI_C_COMPILER="$b/bin/mpicc" -DMPI_CXX_COMPILER="$b/bin/mpicxx" \
    -DMPIEXEC_EXECUTABLE="$b/bin/mpirun" $fortran >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log" >&2; fail "configure"; }
cache=$tmp/b/CMakeCache.txt
for lang in C CXX; do
    inc=$(sed -n "s/^MPI_${lang}_HEADER_DIR:[A-Z]*=//p" "$cache")
    [ "$inc" = "$b/include" ] || fail "MPI_${lang}_HEADER_DIR is '$inc', not $b/include"
    lib=$(sed -n "s/^MPI_corempi_LIBRARY:[A-Z]*=//p" "$cache")
    [ "$lib" = "$b/lib/libcorempi.so" ] || fail "MPI_corempi_LIBRARY is '$lib'"
done
if [ -n "$fortran" ]; then
    for v in F77_HEADER_DIR MODULE_DIR; do
        d=$(sed -n "s/^MPI_Fortran_$v:[A-Z]*=//p" "$cache")
        [ "$d" = "$b/include" ] || fail "MPI_Fortran_$v is '$d', not $b/include"
    done
    lib=$(sed -n "s/^MPI_mpifort_LIBRARY:[A-Z]*=//p" "$cache")
    [ "$lib" = "$b/lib/libmpifort.so" ] || fail "MPI_mpifort_LIBRARY is '$lib'"
    grep -q '^MPI_RESULT_Fortran_test_mpi_F08_MODULE:INTERNAL=TRUE' "$cache" ||
        fail "FindMPI found no usable mpi_f08 module"
fi
grep -iE '^MPI_.*(openmpi|mpich)' "$cache" && fail "the cache names another MPI"
cmake --build "$tmp/b" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; fail "build"; }
(cd "$tmp/b" && ctest --output-on-failure) || fail "the project's ctest"
echo "cmake_project.sh: ok${fortran:+ (with Fortran)}"
