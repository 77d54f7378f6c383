#!/bin/sh
# p2p_instr.sh [BUILD_DIR] [LIB_DIR] [LEVEL] -- instructions per 8-byte
# MPI_Send and per 8-byte MPI_Recv at 2 ranks, counted with callgrind
# (inclusive, so everything the calls run): rank 0's MPI_Send over its
# batches' sends (the acks it receives are left out) and rank 1's MPI_Recv
# over messages already in its ring (bench/p2p_instr.c).  LIB_DIR runs the
# same binary against another build of libcorempi (before/after); LEVEL is
# the thread level MPI_Init_thread asks for (0..3; 3 needs
# COREMPI_THREAD_MULTIPLE=1 to be granted).  Deterministic: the calls never
# wait.
build=$(cd "${1:-build}" && pwd) || exit 1
lib=${2:-$build/lib}
level=${3:-0}
batches=30
runs=${RUNS:-3}
src=$(cd "$(dirname "$0")" && pwd)/p2p_instr.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/p2p_instr.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1
# Per run and rank file: the inclusive count of PMPI_Send (callgrind may
# list a function under two spellings of its file: the larger is the whole)
# and the exclusive counts of the receive's path outside its poll loop
# (PMPI_Recv with what it inlines, cm_match_idle, cm_progress_quiet,
# cm_progress_consumed; cm_recv_fast, which holds the loop, is left out, as
# allreduce_instr.sh leaves out the wait loops).  Rank 0 is the file with
# more in PMPI_Send (its batches; its MPI_Recv waits for acks), rank 1 the
# other.  A receive that found its message late polled and came back to
# cm_match_idle and cm_progress_quiet every 16 polls: the smallest of RUNS
# runs is the figure.
for run in $(seq 1 "$runs"); do
    rm -f "$tmp"/cg.*
    "$build/bin/mpirun" -n 2 env LD_LIBRARY_PATH="$lib" \
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/loop" $batches "$level" >/dev/null 2>&1
    for f in "$tmp"/cg.*; do
        s=$(callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$f" 2>/dev/null |
            awk '/[ :]PMPI_Send( |$)/ { gsub(",", "", $1); if ($1 + 0 > s) s = $1 + 0 } END { print s + 0 }')
        r=$(callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null |
            awk '/[ :](PMPI_Recv|cm_match_idle|cm_progress_quiet|cm_progress_consumed)( |$)/ { gsub(",", "", $1); r += $1 }
                 END { print r + 0 }')
        echo "$s $r"
    done | awk 'NR == 1 { s1 = $1; r1 = $2 } NR == 2 { s2 = $1; r2 = $2 }
                END { if (s1 > s2) print s1, r2; else print s2, r1 }'
done | awk -v n=$((batches * 32)) '
    NR == 1 || $1 < send { send = $1 } NR == 1 || $2 < recv { recv = $2 }
    END { printf "instructions per MPI_Send: %.1f, per MPI_Recv (outside its poll loop): %.1f\n", send / n, recv / n }'
