#!/bin/sh
# allreduce_instr.sh [BUILD_DIR] [LIB_DIR] -- instructions per 8-byte MPI_Allreduce
# at 2 ranks (the 2-rank shortcut), counted with callgrind: the exclusive
# instructions of the functions on the call's path (front end and its impl, shortcut,
# meeting sync and its end, the fold, the loop) over 60,000 calls, per call and
# rank.  The wait loops (await_arrival, cm_wait_backoff) are left out: how
# often a rank polls depends on the schedule, not on the code.  LIB_DIR runs the
# same binary against another build of libcorempi (before/after comparisons).
# Deterministic to +-0.1 on this machine, where timings are not.
build=$(cd "${1:-build}" && pwd) || exit 1
lib=${2:-$build/lib}
src=$(cd "$(dirname "$0")" && pwd)/allreduce_instr.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allreduce_instr.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1
"$build/bin/mpirun" -n 2 env LD_LIBRARY_PATH="$lib" \
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/loop" 60000 >/dev/null 2>&1
for f in "$tmp"/cg.*; do
    callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk '
        /cm_coll_allreduce_shortcut|cm_direct_meet_sync|PMPI_Allreduce|cm_Allreduce|flag_wake|flag_sync_end|meet_other_word|sum_d_3|allreduce_instr.c:main/ {
            gsub(",", "", $1); s += $1 }
        END { printf "instructions per call: %.1f\n", s / 60000 }'
done
