# host_mpi_lib.sh -- the start that tests/mpi/validate_host_mpi.sh and
# tests/topo/validate_host_mpi.sh share (they run corempi's tests under Open
# MPI, to check the tests themselves).  Sourced with NAME set, the name of the
# temporary folder.  Sets here (the calling script's folder), work (the
# temporary folder, made current and removed on exit), M (Open MPI's mpirun),
# pass and fail (counts), and result STATUS WHAT (counts STATUS, and names
# WHAT with the tail of last.out when it is not 0).
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/$NAME.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
# Open MPI's shared-memory files go into our temporary folder: a killed job
# (crash, abort) can leave them behind, and they must not outlive the run.
M="mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl_vader_backing_directory $work"
pass=0
fail=0
result() {
    if [ "$1" -eq 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $2 (status $1)"
        [ -f last.out ] && tail -5 last.out
    fi
}
