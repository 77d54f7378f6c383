#!/bin/sh
# Signals to mpirun reach the ranks and end the job (143 / 130), and a
# SIGKILLed mpirun takes its ranks with it (PR_SET_PDEATHSIG).
. "$(dirname "$0")/lib.sh"

start_sleepers() { # NAME: 3 ranks that sleep 20 s; waits until all are up
    "$MPIRUN" -n 3 "$HELPERS/rank_crash" -1 none >"$T/$1.out" 2>"$T/$1.err" &
    BG_PID=$!
    wait_lines "$T/$1.out" 3
}

start_sleepers term
kill -TERM "$BG_PID"
wait "$BG_PID"; RC=$?; BG_PID=
expect_rc 143 "SIGTERM to mpirun"
expect_err term "mpirun: received signal 15 (Terminated); forwarded to the ranks; job aborted"
pids_gone term

start_sleepers int
kill -INT "$BG_PID"
wait "$BG_PID"; RC=$?; BG_PID=
expect_rc 130 "SIGINT to mpirun"
pids_gone int

start_sleepers hup
kill -HUP "$BG_PID"
wait "$BG_PID"; RC=$?; BG_PID=
expect_rc 129 "SIGHUP to mpirun"
pids_gone hup

# mpirun killed outright: the ranks must not survive it.
start_sleepers kill9
kill -KILL "$BG_PID"
wait "$BG_PID" 2>/dev/null; BG_PID=
i=0
for p in $(sed -n 's/^pid \([0-9][0-9]*\)$/\1/p' "$T/kill9.out"); do
    while alive "$p"; do
        i=$((i + 1)); [ $i -gt 100 ] && fail "rank $p survived a SIGKILLed mpirun"
        sleep 0.1
    done
done
shm_unchanged
echo PASS
