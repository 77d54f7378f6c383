#!/bin/sh
# allreduce_instr.sh [BUILD_DIR] [LIB_DIR] -- instructions per 8-byte MPI_Allreduce
# at 2 ranks (the 2-rank shortcut), counted with callgrind (bench/instr_count.sh):
# the exclusive instructions of the functions on the call's path (front end and
# its impl, shortcut, meeting sync and its end, the fold, the loop) over 60,000 calls, per
# call and rank.  The wait loops (await_arrival, cm_wait_backoff) are left out:
# how often a rank polls depends on the schedule, not on the code.  LIB_DIR runs
# the same binary against another build of libcorempi (before/after comparisons).
# Deterministic to +-0.1 on this machine, where timings are not.
build=${1:-build}
dir=$(cd "$(dirname "$0")" && pwd)
exec "$dir/instr_count.sh" "$dir/allreduce_instr.c" 2 60000 \
    'cm_coll_allreduce_meet|cm_direct_meet_sync|PMPI_Allreduce|cm_Allreduce|flag_wake|flag_sync_end|meet_other_word|sum_d_3|allreduce_instr.c:main' \
    "$build" "${2:-$build/lib}"
