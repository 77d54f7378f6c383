#!/bin/sh
# bcast_instr.sh NP BYTES [BUILD_DIR] [LIB_DIR] -- instructions per MPI_Bcast
# of BYTES bytes at NP ranks spent in the front end and the selector (the
# exclusive instructions of PMPI_Bcast, cm_coll_select and the functions of
# the selection and the area check), counted with callgrind over 20,000
# calls, per call, one line per rank.  The algorithm itself is left out: the
# figure is what choosing it costs (docs/collectives.md, "Ranks on different
# paths": 3 8 takes the FIFO, 4 7600 the flat point-to-point bcast).  LIB_DIR
# runs the same binary against another build of libcorempi.
np=${1:?NP}
bytes=${2:?BYTES}
build=$(cd "${3:-build}" && pwd) || exit 1
lib=${4:-$build/lib}
src=$(cd "$(dirname "$0")" && pwd)/bcast_instr.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bcast_instr.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1
"$build/bin/mpirun" -n "$np" env LD_LIBRARY_PATH="$lib" \
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/loop" 20000 "$bytes" >/dev/null 2>&1
for f in "$tmp"/cg.*; do
    callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk '
        /:(PMPI_Bcast|cm_coll_select|prepare_area|remember|cm_direct_prepare|cm_coll_call_name|cm_coll_state_of)/ {
            gsub(",", "", $1); s += $1 }
        END { printf "instructions per call: %.1f\n", s / 20000 }'
done
