#!/bin/sh
# --timeout S and MPIEXEC_TIMEOUT=S: the job ends after S seconds with one
# line and status 124; no rank outlives it; a quicker job is untouched.
. "$(dirname "$0")/lib.sh"
sleeper='echo "pid $$"; sleep 30; echo survived'
run to -n 3 --timeout 1 sh -c "$sleeper"; expect_rc 124 "--timeout 1"
expect_err to "^mpirun: job exceeded its time limit of 1 s (--timeout); killing 3 ranks$"
[ "$(err_lines to)" -eq 1 ] || fail "to: expected one line"
[ "$(grep -c '^pid ' "$T/to.out")" -eq 3 ] || fail "to: not every rank started"
pids_gone to
MPIEXEC_TIMEOUT=0.5 "$MPIRUN" -n 2 sh -c "$sleeper" >"$T/env.out" 2>"$T/env.err"; RC=$?
expect_rc 124 "MPIEXEC_TIMEOUT=0.5"
expect_err env "time limit of 0.5 s (MPIEXEC_TIMEOUT); killing 2 ranks"
pids_gone env
run quick -n 2 --timeout=20 true; expect_rc 0 "a job within its limit"
[ -s "$T/quick.err" ] && fail "quick: mpirun said something"
# A rank that ignores SIGTERM is killed anyway.
run stubborn -n 1 --timeout 0.5 sh -c 'trap "" TERM; echo "pid $$"; sleep 30; echo survived'
expect_rc 124 "a rank ignoring SIGTERM"
pids_gone stubborn
run bad -n 1 --timeout soon true; expect_rc 2 "--timeout soon"; expect_err bad "--timeout needs a positive number of seconds"
MPIEXEC_TIMEOUT=-3 "$MPIRUN" -n 1 true 2>"$T/badenv.err"; RC=$?
expect_rc 2 "MPIEXEC_TIMEOUT=-3"; expect_err badenv "MPIEXEC_TIMEOUT='-3' is not a positive number of seconds"
shm_unchanged
echo PASS
