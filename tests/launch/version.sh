#!/bin/sh
# mpirun --version / -V: one line naming corempi's release (CMakeLists.txt)
# and the MPI version of mpi.h; exit status 0, nothing started.
. "$(dirname "$0")/lib.sh"
src="$(dirname "$0")/../.."
ver=$(sed -n 's/^project(corempi VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
mv=$(sed -n 's/^#define MPI_VERSION *\([0-9]*\).*/\1/p' "$src/include/mpi.h")
ms=$(sed -n 's/^#define MPI_SUBVERSION *\([0-9]*\).*/\1/p' "$src/include/mpi.h")
[ -n "$ver" ] && [ -n "$mv" ] && [ -n "$ms" ] || fail "cannot read the versions from the sources"
for opt in --version -V -version; do
    run v "$opt"; expect_rc 0 "$opt"
    [ "$(wc -l <"$T/v.out" | tr -d ' ')" -eq 1 ] || fail "$opt: expected one line"
    [ -s "$T/v.err" ] && fail "$opt wrote to stderr"
    expect_out v "^mpirun (corempi) $ver, implementing MPI $mv\.$ms$"
done
run help --help; expect_out help "--version"
echo PASS
