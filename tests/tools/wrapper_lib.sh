# wrapper_lib.sh -- the start the compiler wrappers' tests share
# (tests/tools/wrapper.sh for mpicc/mpic++, tests/fortran/wrapper.sh for
# mpifort), sourced with the test's arguments BUILD SRC and, in T, the
# seconds one wrapper call may take.  Sets build and src (absolute), b (the
# wrappers' folder), tmp (a folder removed on exit), fail (0 until say names a
# failure) and t (a command under `timeout $T`: a loop fails the test, not
# hangs it).
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
b=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
say() { echo "FAIL: $*" >&2; fail=1; }
t() { timeout "$T" "$@"; }
