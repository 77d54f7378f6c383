#!/bin/sh
# expect_fail.sh -- run an MPI job that must fail, and check how it fails.
#
# usage: expect_fail.sh [--status N|nonzero] [--stderr ERE] [--first ERE] [--max-seconds S]
#                       --program PATH -- command [args...]
# --first: the first "corempi: " line of stderr matches ERE.
#
# Passes when the command's exit status is N (or any non-zero status), its
# stderr has a line matching ERE, it ended within S seconds, and no process
# running PATH is left afterwards (looked up through /proc/PID/exe, so the
# launcher and this script, which merely name PATH, are not mistaken for it).
# Leftover processes are killed by pid so that none outlives the test.
set -u

status=nonzero
pattern=
first=
max_seconds=10
program=
while [ $# -gt 0 ]; do
    case "$1" in
        --status) status=$2; shift 2 ;;
        --stderr) pattern=$2; shift 2 ;;
        --first) first=$2; shift 2 ;;
        --max-seconds) max_seconds=$2; shift 2 ;;
        --program) program=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "expect_fail.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $# -eq 0 ] || [ -z "$program" ]; then
    echo "usage: expect_fail.sh [--status N|nonzero] [--stderr ERE] [--max-seconds S] --program PATH -- command..." >&2
    exit 2
fi
program_path=$(readlink -f "$program")

errfile=$(mktemp "${TMPDIR:-/tmp}/expect_fail.XXXXXX") || exit 2
trap 'rm -f "$errfile"' EXIT INT TERM

# A hang must not outlast ctest's patience: stop it well after the limit.
start_ns=$(date +%s%N)
timeout -k 5 $((max_seconds * 3)) "$@" 2>"$errfile"
rc=$?
end_ns=$(date +%s%N)
elapsed_ms=$(( (end_ns - start_ns) / 1000000 ))

# Show what the job said, for the ctest log.
cat "$errfile" >&2

failed=0
fail() {
    echo "expect_fail.sh: FAIL: $*" >&2
    failed=1
}

# 124 is also mpirun's status for a deadlock it reported: a hang is a
# 124 or 137 that took timeout(1)'s whole patience.
if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$elapsed_ms" -ge $((max_seconds * 3000)) ]; then
    fail "the job hung and was stopped after $((max_seconds * 3)) s (status $rc)"
elif [ "$status" = nonzero ]; then
    [ "$rc" -ne 0 ] || fail "exit status 0, expected a failure"
else
    [ "$rc" -eq "$status" ] || fail "exit status $rc, expected $status"
fi

if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$errfile"; then
    fail "no line of stderr matches /$pattern/"
fi

if [ -n "$first" ] && ! grep -m1 '^corempi: ' "$errfile" | grep -Eq -- "$first"; then
    fail "the first corempi line of stderr does not match /$first/"
fi

if [ "$elapsed_ms" -ge $((max_seconds * 1000)) ]; then
    fail "took ${elapsed_ms} ms, limit ${max_seconds} s"
fi

# Processes still running the test program (a short grace for reaping).
leftovers() {
    for dir in /proc/[0-9]*; do
        exe=$(readlink "$dir/exe" 2>/dev/null) || continue
        case "$exe" in
            "$program_path"|"$program_path (deleted)") echo "${dir#/proc/}" ;;
        esac
    done
}
left=$(leftovers)
tries=0
while [ -n "$left" ] && [ $tries -lt 10 ]; do
    sleep 0.1
    tries=$((tries + 1))
    left=$(leftovers)
done
if [ -n "$left" ]; then
    fail "processes of $program_path still running: $(echo $left)"
    for pid in $left; do
        kill -9 "$pid" 2>/dev/null
    done
fi

if [ $failed -eq 0 ]; then
    echo "expect_fail.sh: ok (status $rc, ${elapsed_ms} ms)"
fi
exit $failed
