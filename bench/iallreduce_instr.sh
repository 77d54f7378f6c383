#!/bin/bash
# iallreduce_instr.sh [BUILD_DIR] [NP] [COLL] [BYTES] -- instructions per call of a
# blocking collective and of its MPI_I<coll> + MPI_Wait (default: allreduce of
# 8 bytes at 2 ranks), counted with callgrind on the busier rank: the difference
# between loops of 12000 and 4000 calls over 8000, without the wait loops (how
# often a rank polls depends on the schedule, not on the code), as
# allreduce_pair_instr.sh counts.  COLL: barrier bcast allreduce reduce allgather
# alltoall (bench/nbc_instr.c).  Deterministic to about +-1 on this machine.
build=$(cd "${1:-build}" && pwd) || exit 1
np=${2:-2}
coll=${3:-allreduce}
bytes=${4:-8}
src=$(cd "$(dirname "$0")" && pwd)/nbc_instr.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iallreduce_instr.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1
waits='await_arrival|cm_wait_backoff|cm_progress|poll_ring|progress_pending|cm_futex|await_release|cm_match_idle|sched_yield|nanosleep|wait32|meet_await|sync_await'
for mode in 0 1; do
    for n in 4000 12000; do
        "$build/bin/mpirun" -n "$np" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$mode.$n.%p" \
            "$tmp/loop" "$coll" $mode "$bytes" $n >/dev/null 2>&1
        for f in "$tmp"/cg.$mode.$n.*; do
            callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null |
                awk -v w="$waits" 'NR > 20 && /\// { gsub(",", "", $1); if ($0 !~ w) s += $1 } END { print s }'
        done | sort -n | tail -1 >"$tmp/sum.$mode.$n"
    done
    per=$(( ($(cat "$tmp/sum.$mode.12000") - $(cat "$tmp/sum.$mode.4000")) / 8000 ))
    echo "$([ $mode = 0 ] && echo "MPI_$coll" || echo "MPI_I$coll+Wait") $bytes B, $np ranks: $per instructions per call"
done
