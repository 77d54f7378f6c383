#!/bin/sh
# A rank killed by a signal ends the job: one line, 128+signal, and the
# other ranks (sleeping 60 s) are gone when mpirun returns.
. "$(dirname "$0")/lib.sh"

run segv -n 4 "$HELPERS/rank_crash" 1 segv
expect_rc 139 "rank 1 SIGSEGV"
expect_err segv "mpirun: rank 1 (pid [0-9]*) killed by signal 11 (Segmentation fault); job aborted"
[ "$(err_lines segv)" -eq 1 ] || fail "segv: expected exactly one line on stderr"
[ "$(grep -c '^pid ' "$T/segv.out")" -eq 4 ] || fail "segv: not every rank started"
pids_gone segv

# SIGKILL that mpirun did not send: by whom (the kernel's out-of-memory kill count, here
# a file the rank changes before it dies, in place of /proc/vmstat).
run kill -n 2 "$HELPERS/rank_crash" 1 kill
expect_rc 137 "rank 1 SIGKILL"
expect_err kill "mpirun: rank 1 (pid [0-9]*) killed by signal 9 (Killed), not sent by mpirun (another process sent it; the kernel's out-of-memory killer did not run); job aborted"
pids_gone kill
printf 'nr_free_pages 1\noom_kill 0\n' >"$T/vmstat"
CM_TEST_VMSTAT="$T/vmstat" "$MPIRUN" -n 2 "$HELPERS/rank_crash" 1 "oom:$T/vmstat" >"$T/oom.out" 2>"$T/oom.err"
RC=$?
expect_rc 137 "rank 1 killed by the OOM killer"
expect_err oom "mpirun: rank 1 (pid [0-9]*) killed by signal 9 (Killed) by the kernel's out-of-memory killer, most likely (its kill count in /proc/vmstat rose by 1 during the job;"
[ "$(err_lines oom)" -eq 1 ] || fail "oom: expected one line"
pids_gone oom

# Ranks that ignore SIGTERM are killed (SIGKILL follows).
CM_TEST_IGNORE_TERM=1 "$MPIRUN" -n 3 "$HELPERS/rank_crash" 0 segv >"$T/stubborn.out" 2>"$T/stubborn.err"
RC=$?
expect_rc 139 "rank 0 SIGSEGV, others ignore SIGTERM"
[ "$(grep -c '^pid ' "$T/stubborn.out")" -eq 3 ] || fail "stubborn: not every rank started"
pids_gone stubborn

# With the library's bookkeeping (faked here) the line names the MPI call.
run segvin -n 3 "$HELPERS/rank_fake_mpi" segv-in 2
expect_rc 139 "rank 2 SIGSEGV in MPI_Send"
expect_err segvin "mpirun: rank 2 (pid [0-9]*) killed by signal 11 (Segmentation fault) in MPI_Send; job aborted"
pids_gone segvin
shm_unchanged
echo PASS
