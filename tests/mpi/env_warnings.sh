#!/bin/sh
# env_warnings.sh -- a COREMPI_* setting the library cannot use is never
# ignored in silence: one line per job names the variable, the value and what
# is used instead (an unknown algorithm name lists the valid ones), and the
# job still runs right.  Good spellings (16k, 256KiB, 0x4e20) say nothing.
# Needs MPIRUN and PROGRAM (env_settings) in the environment.
set -u
: "${MPIRUN:?}" "${PROGRAM:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/env_warnings.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
failed=0
fail() { echo "env_warnings.sh: FAIL: $*" >&2; failed=1; }

# run NAME NPROCS VAR=value... : the job (NPROCS 0: without mpirun), stderr in $T/NAME.err
run() {
    name=$1 n=$2
    shift 2
    if [ "$n" -eq 0 ]; then
        env COREMPI_DEADLOCK_TIMEOUT=20 "$@" timeout 120 "$PROGRAM" >"$T/$name.out" 2>"$T/$name.err"
    else
        env COREMPI_DEADLOCK_TIMEOUT=20 "$@" timeout 120 "$MPIRUN" -n "$n" "$PROGRAM" >"$T/$name.out" 2>"$T/$name.err"
    fi
    rc=$?
    sed "s/^/  $name: /" "$T/$name.err" >&2
    [ $rc -eq 0 ] || fail "$name: the job failed (status $rc)"
    grep -q "all results right" "$T/$name.out" || fail "$name: the program did not finish right"
}

# once NAME LINE: LINE (fixed text) is on stderr exactly once
once() {
    k=$(grep -cxF -- "$2" "$T/$1.err")
    [ "$k" -eq 1 ] || fail "$1: expected once, found $k times: $2"
}

# lines NAME N: stderr has exactly N lines
lines() {
    k=$(grep -c . "$T/$1.err")
    [ "$k" -eq "$2" ] || fail "$1: expected $2 lines on stderr, got $k"
}

# The two settings of the report, at 4 ranks: one line each for the job.
run issue 4 COREMPI_EAGER_MAX=abc COREMPI_ALLREDUCE=nosuchalgo
once issue "corempi: COREMPI_EAGER_MAX=abc is not a number (like 64, 16k or 2M); using 16384"
once issue "corempi: COREMPI_ALLREDUCE=nosuchalgo names no allreduce algorithm (there are: rdb, rdb_barrier, reduce_bcast, rabenseifner, ring, hybrid_a, hybrid_b, shm); using the tuned choice"
lines issue 2

# Every reader at once, with the shared-memory bcast/reduce/gather forced so
# that their settings are read.
sizes="SPIN EAGER_MAX FRAGMENT STREAM_MAX COLL_STREAM_MAX SPLIT_MIN SHM_SLOT SHM_CMA_MIN SHM_YIELDS COLL_NT_MIN COLL_LEVEL"
flags="FENCE_FREE SINGLE_COPY SHM_CHUNKED SHM_BFIFO SHM_RFIFO SHM_BACKOFF"
set --
for v in $sizes; do set -- "$@" "COREMPI_$v=12q"; done
for v in $flags; do set -- "$@" "COREMPI_$v=yes"; done
run all 4 "$@" COREMPI_SHM_SYNC=fast COREMPI_BCAST=shm COREMPI_REDUCE=shm COREMPI_GATHER=shm
for v in $sizes; do
    grep -cE "^corempi: COREMPI_$v=12q is not a number \(like 64, 16k or 2M\); using [0-9]+$" "$T/all.err" |
        grep -qx 1 || fail "all: COREMPI_$v=12q not warned about exactly once"
done
for v in $flags; do once all "corempi: COREMPI_$v=yes is not 0 or 1; using 1"; done
once all "corempi: COREMPI_SHM_SYNC=fast is not a kind of sync (flags, counter); using the default choice"
lines all 18

# Read only by the single-copy bcast, which the chunked one hides.
run unchunked 3 COREMPI_SHM_CHUNKED=0 COREMPI_SHM_CHUNK=64q COREMPI_SHM_FANOUT=-2 COREMPI_BCAST=shm
once unchunked "corempi: COREMPI_SHM_CHUNK=64q is not a number (like 64, 16k or 2M); using 65536"
once unchunked "corempi: COREMPI_SHM_FANOUT=-2 is not a number (like 64, 16k or 2M); using 4"
lines unchunked 2

# Without mpirun, and mpirun's own setting.
run singleton 0 COREMPI_STREAM_MAX=1.5M
once singleton "corempi: COREMPI_STREAM_MAX=1.5M is not a number (like 64, 16k or 2M); using 2097152"
lines singleton 1
run launcher 2 COREMPI_DEADLOCK_TIMEOUT=soon
once launcher "mpirun: COREMPI_DEADLOCK_TIMEOUT=soon is not a number of seconds; no deadlock detection"
lines launcher 1

# Good spellings are read without a word.
run good 2 COREMPI_EAGER_MAX=16k COREMPI_SHM_SLOT=256KiB COREMPI_SPIN=0x4e20 "COREMPI_FRAGMENT= 8192 " \
    COREMPI_SINGLE_COPY=1 COREMPI_SHM_BFIFO=0 COREMPI_ALLREDUCE=rdb COREMPI_SHM_SYNC=counter COREMPI_COLL_LEVEL=2
lines good 0

[ $failed -eq 0 ] && echo "env_warnings.sh: ok"
exit $failed
