#!/bin/sh
# End to end with corempi's library: the control blocks the library fills
# give mpirun the MPI call names in its one-line reports.
. "$(dirname "$0")/lib.sh"
APP="$HELPERS/mpi_app"

run hello -n 4 "$APP" hello
expect_rc 0 "hello"
for r in 0 1 2 3; do expect_out hello "^hello $r/4$"; done
[ "$(err_lines hello)" -eq 0 ] || fail "hello: mpirun printed something"

run abort -n 3 "$APP" abort 1 7
expect_rc 7 "MPI_Abort(7)"
expect_err abort "mpirun: rank 1 called MPI_Abort with code 7; job aborted"
[ "$(err_lines abort)" -eq 1 ] || fail "abort: expected one line"
pids_gone abort

run kill -n 2 "$APP" kill-in-recv
expect_rc 139 "SIGSEGV in MPI_Recv"
expect_err kill "mpirun: rank 0 (pid [0-9]*) killed by signal 11 (Segmentation fault).*MPI_Recv.*; job aborted"
pids_gone kill

run noexit -n 3 "$APP" noexit 1 3
expect_rc 3 "exit(3) without MPI_Finalize"
expect_err noexit "mpirun: rank 1 (pid [0-9]*) exited with status 3 without calling MPI_Finalize (last MPI call: MPI_Send); job aborted"
pids_gone noexit

COREMPI_DEADLOCK_TIMEOUT=1 "$MPIRUN" -n 3 "$APP" deadlock >"$T/dead.out" 2>"$T/dead.err"
RC=$?
expect_rc 124 "deadlock"
for r in 0 1 2; do
    expect_err dead "mpirun: deadlock: rank $r blocked in MPI_Recv (peer $(( (r + 1) % 3 )), tag 5, context [0-9]*)"
done
pids_gone dead

# A rank blocked inside a collective is reported in the collective, not in
# the point-to-point call its algorithm happens to be waiting in.
for algo in rdb shm; do
    COREMPI_ALLREDUCE=$algo COREMPI_DEADLOCK_TIMEOUT=1 "$MPIRUN" -n 3 "$APP" coll-deadlock 1 \
        >"$T/colldead.out" 2>"$T/colldead.err"
    RC=$?
    expect_rc 124 "deadlock in a collective ($algo)"
    expect_err colldead "mpirun: deadlock: rank 1 blocked in MPI_Recv (peer 2, tag 5, context [0-9]*)"
    for r in 0 2; do
        expect_err colldead "mpirun: deadlock: rank $r blocked in MPI_Allreduce"
    done
    grep -q "rank [02] blocked in MPI_Recv\|rank [02] blocked in MPI_Send" "$T/colldead.err" &&
        fail "colldead ($algo): a collective reported as its inner p2p call"
    pids_gone colldead
done

# The library reports its own fatal errors: mpirun adds nothing.
run bad -n 2 "$APP" bad-dest
[ "$RC" -ne 0 ] || fail "bad-dest: exit status 0"
expect_err bad "corempi: MPI_Send on rank 0: invalid destination"
[ "$(err_lines bad)" -eq 1 ] || fail "bad-dest: expected only the library's line"
pids_gone bad
shm_unchanged
echo PASS
