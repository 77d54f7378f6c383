#!/bin/sh
# dyn_jobs.sh -- two separate mpirun jobs connected by MPI_Comm_accept /
# MPI_Comm_connect (tests/mpi/dyn_jobs.c, docs/spawn.md "Two jobs").
# usage: dyn_jobs.sh MPIRUN PROGRAM connect NSERVER NCLIENT
#        dyn_jobs.sh MPIRUN PROGRAM slow        (the client job comes after 3 s)
#        dyn_jobs.sh MPIRUN PROGRAM refused     (no such job; a closed port)
#        dyn_jobs.sh MPIRUN PROGRAM killed      (a client dies while connected)
#        dyn_jobs.sh MPIRUN PROGRAM join        (MPI_Comm_join across jobs)
#        dyn_jobs.sh MPIRUN PROGRAM names       (Publish_name/Lookup_name across jobs)
#        dyn_jobs.sh MPIRUN PROGRAM squat       (a connecting root died mid-handshake)
# Each case also checks that no process of PROGRAM and nothing of corempi's
# in /dev/shm is left.
set -u
. "$(dirname "$0")/leftovers.sh"
mpirun=$1
prog=$(readlink -f "$2")
case=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/dyn_jobs.XXXXXX") || exit 2
spids=
cleanup() {
    for p in $spids; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM
fail() {
    echo "dyn_jobs: $*"
    for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f:"; cat "$f"; }; done
    exit 1
}
wait_file() {
    i=0
    while [ ! -s "$1" ]; do
        i=$((i + 1))
        [ $i -gt 300 ] && fail "no port file after 30 s"
        sleep 0.1
    done
}
# The first job, in the background, until it has written $dir/port:
# first_job RANKS NAME ARGS... (its output in $dir/NAME.out and .err).
first_job() {
    n=$1 name=$2
    shift 2
    timeout -k 5 90 "$mpirun" -n "$n" "$prog" "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
    spids=$!
    wait_file "$dir/port"
}
# The second job, then the end of the first: second_job RANKS NAME ARGS...
# sets crc (second) and src (first) to their exit statuses.
second_job() {
    n=$1 name=$2
    shift 2
    timeout -k 5 90 "$mpirun" -n "$n" "$prog" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
    crc=$?
    wait "$spids"
    src=$?
    spids=
}

case $case in
connect)
    ns=$4 nc=$5
    first_job "$ns" server server "$dir/port" "$nc"
    second_job "$nc" client client "$dir/port" "$ns"
    [ "$src" -eq 0 ] || fail "server job exit status $src"
    [ "$crc" -eq 0 ] || fail "client job exit status $crc"
    grep -q "dyn_jobs server: ok ($ns processes)" "$dir/server.out" || fail "server did not say ok"
    grep -q "dyn_jobs client: ok ($nc processes)" "$dir/client.out" || fail "client did not say ok"
    ;;
slow)
    # The server job waits 3 s in MPI_Comm_accept (its root) and in the
    # accept's collective part (the others) with a deadlock timeout of 1 s:
    # a wait on another job is never reported (docs/mpirun.md).
    COREMPI_DEADLOCK_TIMEOUT=1
    export COREMPI_DEADLOCK_TIMEOUT
    first_job 3 server server "$dir/port" 2
    sleep 3
    second_job 2 client client "$dir/port" 3
    [ "$src" -eq 0 ] || fail "server job exit status $src"
    [ "$crc" -eq 0 ] || fail "client job exit status $crc"
    grep -q "dyn_jobs server: ok (3 processes)" "$dir/server.out" || fail "server did not say ok"
    ;;
refused)
    # A job that does not exist (pid 1 is nobody's mpirun).
    echo "corempi-port:1:0:1:3" >"$dir/port"
    timeout -k 5 30 "$mpirun" -n 2 "$prog" refused "$dir/port" >"$dir/nojob.out" 2>"$dir/nojob.err" ||
        fail "connecting to a port of no job: exit status $?"
    grep -q "refused as expected" "$dir/nojob.out" || fail "no refusal for a job that does not exist"
    # A live job whose port is closed.
    timeout -k 5 30 "$mpirun" -n 1 "$prog" closed "$dir/port2" "$dir/done" >"$dir/closed.out" 2>"$dir/closed.err" &
    spids=$!
    wait_file "$dir/port2"
    timeout -k 5 30 "$mpirun" -n 3 "$prog" refused "$dir/port2" >"$dir/refused.out" 2>"$dir/refused.err"
    rrc=$?
    touch "$dir/done"
    wait "$spids"
    spids=
    [ "$rrc" -eq 0 ] || fail "connecting to a closed port of a live job: exit status $rrc"
    grep -q "refused as expected.*is not open" "$dir/refused.out" || fail "the refusal does not say the port is not open"
    ;;
names)
    svc="corempi-dyn-jobs-$$"
    first_job 2 server server "$dir/port" 1 "$svc"
    timeout -k 5 30 "$mpirun" -n 1 "$prog" taken "$dir/x" 0 "$svc" >"$dir/taken.out" 2>"$dir/taken.err" ||
        fail "publishing another job's name: exit status $?"
    second_job 1 client client "$dir/port" 2 "$svc"
    [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] || fail "names: exit status $src (server), $crc (client)"
    # The server left its name published: its mpirun removed it.
    timeout -k 5 30 "$mpirun" -n 1 "$prog" gone "$dir/x" 0 "$svc" >"$dir/gone.out" 2>"$dir/gone.err" ||
        fail "a finished job's name is still found: exit status $?"
    ;;
squat)
    first_job 1 server server "$dir/port" 1
    timeout -k 5 30 "$mpirun" -n 1 "$prog" squat "$dir/port" >"$dir/squat.out" 2>"$dir/squat.err" ||
        fail "squat: exit status $?"
    second_job 1 client client "$dir/port" 1
    [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] || fail "after a dead claim: exit status $src (server), $crc (client)"
    ;;
join)
    first_job 2 joina joina "$dir/port"
    second_job 1 joinb joinb "$dir/port"
    [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] || fail "join: exit status $src (listener), $crc (dialer)"
    grep -q "dyn_jobs joina: ok" "$dir/joina.out" && grep -q "dyn_jobs joinb: ok" "$dir/joinb.out" ||
        fail "join: a side did not say ok"
    ;;
killed)
    first_job 2 server waiter "$dir/port" 2
    second_job 2 client victim "$dir/port" 2
    [ "$crc" -eq 137 ] || fail "client job exit status $crc, expected 137 (its rank 0 was killed)"
    [ "$src" -ne 0 ] && [ "$src" -ne 124 ] || fail "server job exit status $src: expected an error, not success or a hang"
    grep -q "corempi: MPI_Recv on rank [0-9]*: a process of the connected mpirun job (pid [0-9]*, gone) died while this rank waited in this call" "$dir/server.err" ||
        fail "the server does not say in which call the other job's process died: $(cat "$dir/server.err")"
    ;;
*)
    echo "dyn_jobs.sh: unknown case $case"; exit 2 ;;
esac
left=$(cm_leftovers "$prog") || fail "$left"
echo "dyn_jobs $case: ok"
