# lib.sh -- shared by the launcher tests (sourced; POSIX sh).
# Needs MPIRUN (the mpirun binary) and HELPERS (directory of the rank_* helpers).
set -u
: "${MPIRUN:?set MPIRUN to the mpirun binary}"
: "${HELPERS:?set HELPERS to the directory of the test helpers}"

T=$(mktemp -d /tmp/cm-launch-test.XXXXXX)
SHM_BEFORE=$(ls /dev/shm 2>/dev/null | grep -i corempi | sort)
BG_PID=

cleanup() {
    # A failed test must not leave ranks behind: kill what we started.
    if [ -n "$BG_PID" ]; then kill -KILL "$BG_PID" 2>/dev/null; fi
    for f in "$T"/*.out; do
        [ -f "$f" ] || continue
        for p in $(sed -n 's/^pid \([0-9][0-9]*\)$/\1/p' "$f"); do kill -KILL "$p" 2>/dev/null; done
    done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

fail() {
    echo "FAIL: $*" >&2
    for f in "$T"/*; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    exit 1
}

# run NAME args...: runs mpirun with args, stdout in $T/NAME.out, stderr in
# $T/NAME.err, status in $RC.
run() {
    name=$1; shift
    "$MPIRUN" "$@" >"$T/$name.out" 2>"$T/$name.err"
    RC=$?
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "$2: exit status $RC, expected $1"; }
expect_err() { grep -q -- "$2" "$T/$1.err" || fail "$1: stderr lacks '$2'"; }
expect_out() { grep -q -- "$2" "$T/$1.out" || fail "$1: stdout lacks '$2'"; }
err_lines() { wc -l <"$T/$1.err" | tr -d ' '; }

# A process is gone when /proc has no entry or only a zombie another parent
# has not reaped yet (never one of mpirun's: it reaps all of its ranks).
alive() {
    [ -r "/proc/$1/stat" ] || return 1
    state=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ]
}

# pids_gone NAME: every "pid P" line of NAME.out names a process that is
# gone, and none of them lived out its sleep.
pids_gone() {
    grep -q "^survived" "$T/$1.out" && fail "$1: a rank was not stopped by mpirun"
    for p in $(sed -n 's/^pid \([0-9][0-9]*\)$/\1/p' "$T/$1.out"); do
        alive "$p" && fail "$1: rank process $p outlived mpirun"
    done
    return 0
}

# wait_lines FILE N: wait (up to 20 s) until FILE has N lines.
wait_lines() {
    i=0
    while [ "$(wc -l 2>/dev/null <"$1" || echo 0)" -lt "$2" ]; do
        i=$((i + 1))
        [ $i -gt 200 ] && fail "timed out waiting for $2 lines in $1"
        if [ -n "$BG_PID" ] && ! kill -0 "$BG_PID" 2>/dev/null; then fail "mpirun ended early"; fi
        sleep 0.1
    done
}

shm_unchanged() {
    after=$(ls /dev/shm 2>/dev/null | grep -i corempi | sort)
    [ "$after" = "$SHM_BEFORE" ] || fail "files left in /dev/shm: $after"
}
