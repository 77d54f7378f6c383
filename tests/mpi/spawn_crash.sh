#!/bin/sh
# spawn_crash.sh -- a spawned process that crashes ends the whole job the
# usual way: mpirun prints exactly one line naming it, exits 139, and leaves
# no process of the program and nothing of corempi's in /dev/shm.
# usage: spawn_crash.sh MPIRUN PROGRAM
set -u
. "$(dirname "$0")/leftovers.sh"
mpirun=$1
prog=$(readlink -f "$2")
err=$(mktemp "${TMPDIR:-/tmp}/spawn_crash.XXXXXX") || exit 2
trap 'rm -f "$err"' EXIT INT TERM
fail() { echo "spawn_crash: $*"; echo "--- stderr:"; cat "$err"; exit 1; }

timeout -k 5 30 "$mpirun" -n 2 --universe-size 3 "$prog" crash 2>"$err" >/dev/null
rc=$?
[ "$rc" -eq 139 ] || fail "exit status $rc, expected 139 (128 + SIGSEGV)"
n=$(grep -c '^mpirun: ' "$err")
[ "$n" -eq 1 ] || fail "$n lines from mpirun, expected one"
grep -Eq '^mpirun: spawned rank 0 \(slot 2\) \(pid [0-9]+\) killed by signal 11 .*job aborted$' "$err" ||
    fail "mpirun's line does not name the spawned process"
left=$(cm_leftovers "$prog") || fail "$left"
echo "spawn_crash: ok"
