#!/bin/bash
# allreduce_pair_instr.sh [BUILD_DIR] [COUNT] -- instructions per call of MPI_Allreduce
# and of a started MPI_Allreduce_init (Start + Wait) at 2 ranks, COUNT doubles
# (default 1), counted with callgrind: the difference between loops of 12000
# and 4000 calls over 8000, on the busier rank, without the wait loops (how
# often a rank polls depends on the schedule, not on the code).
build=$(cd "${1:-build}" && pwd) || exit 1
count=${2:-1}
src=$(cd "$(dirname "$0")" && pwd)/allreduce_pair_instr.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allreduce_pair.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1
waits='await_arrival|cm_wait_backoff|cm_progress|poll_ring|progress_pending|cm_futex|await_release|cm_match_idle|sched_yield|nanosleep'
for mode in 0 1; do
    for n in 4000 12000; do
        "$build/bin/mpirun" -n 2 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$mode.$n.%p" \
            "$tmp/loop" $mode "$count" $n >/dev/null 2>&1
        for f in "$tmp"/cg.$mode.$n.*; do
            callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null |
                awk -v w="$waits" 'NR > 20 && /\// { gsub(",", "", $1); if ($0 !~ w) s += $1 } END { print s }'
        done | sort -n | tail -1 >"$tmp/sum.$mode.$n"
    done
    echo "$([ $mode = 0 ] && echo MPI_Allreduce || echo 'Allreduce_init Start+Wait') $count doubles:" \
        "$(( ($(cat "$tmp/sum.$mode.12000") - $(cat "$tmp/sum.$mode.4000")) / 8000 )) instructions per call"
done
