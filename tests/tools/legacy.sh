#!/bin/sh
# legacy.sh BUILD SRC -- the build tree's mpicc compiles a program that uses
# the MPI-1 names with -DCOREMPI_LEGACY_NAMES (mpi_legacy.h sits beside mpi.h
# in build/include, which the wrapper's -I names), and the program runs.
# The installed tree's wrapper is checked the same way by install.sh.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -DCOREMPI_LEGACY_NAMES -I"$src/tests/mpi" -o "$tmp/legacy" "$src/tests/mpi/legacy.c" ||
    { echo "legacy.sh: build/bin/mpicc -DCOREMPI_LEGACY_NAMES failed" >&2; exit 1; }
"$build/bin/mpirun" -n 2 "$tmp/legacy" || { echo "legacy.sh: the program built with the legacy names fails" >&2; exit 1; }
echo "legacy.sh: ok"
