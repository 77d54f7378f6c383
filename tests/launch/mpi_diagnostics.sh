#!/bin/sh
# What mpirun reads from the ranks' control blocks (written here by a fake
# that plays the library's part): MPI_Abort, exit without MPI_Finalize, and
# the deadlock watch.
. "$(dirname "$0")/lib.sh"

run abort -n 3 "$HELPERS/rank_fake_mpi" abort 1 42
expect_rc 42 "MPI_Abort code 42"
expect_err abort "mpirun: rank 1 called MPI_Abort with code 42; job aborted"
[ "$(err_lines abort)" -eq 1 ] || fail "abort: expected one line"
pids_gone abort

run abort300 -n 2 "$HELPERS/rank_fake_mpi" abort 0 300
expect_rc 44 "MPI_Abort code 300 (masked)"

run noexit -n 3 "$HELPERS/rank_fake_mpi" noexit 2
expect_rc 1 "exit 0 without MPI_Finalize"
expect_err noexit "mpirun: rank 2 (pid [0-9]*) exited with status 0 without calling MPI_Finalize (last MPI call: MPI_Send); job aborted"
pids_gone noexit

COREMPI_DEADLOCK_TIMEOUT=1
export COREMPI_DEADLOCK_TIMEOUT
run dead -n 3 "$HELPERS/rank_fake_mpi" deadlock
expect_rc 124 "deadlock"
for r in 0 1 2; do
    expect_err dead "mpirun: deadlock: rank $r blocked in MPI_Recv (peer $(( (r + 1) % 3 )), tag 5, context 0)"
done
expect_err dead "job aborted with status 124"
pids_gone dead

# Blocked but moving is not a deadlock.
COREMPI_DEADLOCK_TIMEOUT=2
run moving -n 3 "$HELPERS/rank_fake_mpi" slow-progress 4
expect_rc 0 "blocked ranks that make progress"
grep -q deadlock "$T/moving.err" && fail "moving: reported as a deadlock"
unset COREMPI_DEADLOCK_TIMEOUT
shm_unchanged
echo PASS
