#!/bin/sh
# osc_peer_check.sh -- build the one-sided tests (tests/osc) with MPICH and run
# them under mpirun.mpich, to check the tests themselves against another MPI
# (not corempi).  Not part of ctest: it needs the mpich package (make deps).
# Open MPI 4.1's one-sided component is not used here: it crashes on shared
# windows (issue 23).
#
# usage: scripts/osc_peer_check.sh [ranks...]    (default: 1 2 3 4 9)
#   OSC_PEER_TESTS="osc_matrix osc_fuzz" limits the programs;
#   COREMPI_TEST_SEED=N fixes the random tests' seed (printed otherwise).
# Prints one line per failure and "N passed, N failed"; exit status 1 on any
# failure.  MPICH polls without yielding, so runs with more ranks than cores
# are slow (minutes at 9 ranks on 2 cores): a generous timeout per run.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
src=$here/tests/osc
ranks=${*:-1 2 3 4 9}
tests=${OSC_PEER_TESTS:-$(for f in "$src"/osc_*.c; do basename "$f" .c; done)}
limit=${OSC_PEER_TIMEOUT:-900}
command -v mpicc.mpich >/dev/null || { echo "osc_peer_check: no mpicc.mpich (make deps)"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/osc_peer.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

pass=0
fail=0
for t in $tests; do
    if mpicc.mpich -O2 -g -Wall -Wextra -std=gnu11 -I"$src" -I"$here/tests/mpi" \
        -o "$work/$t" "$src/$t.c" 2>"$work/$t.build"; then
        :
    else
        fail=$((fail + 1))
        echo "FAIL: build $t"
        tail -5 "$work/$t.build"
        continue
    fi
    for n in $ranks; do
        start=$(date +%s)
        # osc_idle needs more ranks than CPUs: two CPUs, as in ctest.
        pin=""
        [ "$t" = osc_idle ] && command -v taskset >/dev/null && pin="taskset -c 0,1"
        # shellcheck disable=SC2086  # $pin is a command and its arguments, or nothing
        timeout -k 5 "$limit" $pin mpirun.mpich -n "$n" "$work/$t" >"$work/out" 2>&1 </dev/null
        rc=$?
        if [ $rc = 0 ]; then
            pass=$((pass + 1))
            echo "ok   $t n=$n ($(($(date +%s) - start)) s): $(grep -m1 'seed' "$work/out")"
        elif [ $rc = 77 ]; then
            echo "skip $t n=$n: $(tail -1 "$work/out")"
        else
            fail=$((fail + 1))
            echo "FAIL: $t n=$n (status $rc)"
            tail -8 "$work/out"
        fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
