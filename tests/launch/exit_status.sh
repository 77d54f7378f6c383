#!/bin/sh
# mpirun's exit status is the first non-zero status of a rank; a rank that
# fails ends the job; programs that never use MPI run like with `hostname`.
. "$(dirname "$0")/lib.sh"

run true -n 3 /bin/true
expect_rc 0 "3 x /bin/true"
[ "$(err_lines true)" -eq 0 ] || fail "true: mpirun printed something"

run echo -n 2 sh -c 'echo hello from $COREMPI_RANK'
expect_rc 0 "sh echo"
expect_out echo "hello from 0"
expect_out echo "hello from 1"

# A program from PATH, like `mpirun -n 2 hostname`.
run path -n 2 uname -s
expect_rc 0 "uname from PATH"
[ "$(grep -c . "$T/path.out")" -eq 2 ] || fail "path: expected two lines of output"

run fail1 -n 3 "$HELPERS/rank_crash" 1 exit:3
expect_rc 3 "rank 1 exits 3"
expect_err fail1 "mpirun: rank 1 (pid [0-9]*) exited with status 3 before MPI_Init; job aborted"
[ "$(err_lines fail1)" -eq 1 ] || fail "fail1: expected one line on stderr"
pids_gone fail1

# Finalized ranks end normally; the status still comes out.
run fin -n 2 "$HELPERS/rank_fake_mpi" finalize-exit 5
expect_rc 5 "finalized rank 0 exits 5"
[ "$(err_lines fin)" -eq 0 ] || fail "fin: a normal end must be silent"

run false -n 2 /bin/false
expect_rc 1 "/bin/false"
shm_unchanged
echo PASS
