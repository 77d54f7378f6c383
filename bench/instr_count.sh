#!/bin/sh
# instr_count.sh PROGRAM.c NP CALLS PATTERN BUILD_DIR LIB_DIR [ARG...] -- the
# instructions per call of a loop of CALLS MPI calls at NP ranks, one line per
# rank, counted with callgrind: the exclusive instructions of the functions
# whose "file:function" line of callgrind_annotate matches the awk regular
# expression PATTERN, over CALLS.  PROGRAM.c is built with BUILD_DIR's mpicc
# and run with BUILD_DIR's mpirun as "loop CALLS ARG...", against the
# libcorempi of LIB_DIR (before/after comparisons).  The *_instr.sh scripts
# beside it say which functions a call's path has.
src=${1:?PROGRAM.c}
np=${2:?NP}
calls=${3:?CALLS}
pattern=${4:?PATTERN}
build=$(cd "${5:?BUILD_DIR}" && pwd) || exit 1
lib=${6:?LIB_DIR}
shift 6
tmp=$(mktemp -d "${TMPDIR:-/tmp}/instr_count.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1
"$build/bin/mpirun" -n "$np" env LD_LIBRARY_PATH="$lib" \
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$tmp/loop" "$calls" "$@" >/dev/null 2>&1
for f in "$tmp"/cg.*; do
    callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk -v p="$pattern" -v n="$calls" '
        $0 ~ p { gsub(",", "", $1); s += $1 }
        END { printf "instructions per call: %.1f\n", s / n }'
done
