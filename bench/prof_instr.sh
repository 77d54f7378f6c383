#!/bin/sh
# prof_instr.sh [BUILD_DIR] [PROF_LIB] -- the instructions coreprof adds to an
# 8-byte MPI_Send and MPI_Recv at 2 ranks, counted with callgrind over
# bench/p2p_instr.c (the calls never wait, so the count is deterministic).
# The program runs twice: plainly, and with PROF_LIB (default
# BUILD_DIR/lib/libcoreprof.so) preloaded as `mpirun --profile` does.  Per
# call it prints the instructions of MPI_Send / MPI_Recv without the
# profiler, and the wrapper's own share (the wrapper's inclusive count minus
# that of the PMPI_ call it makes, from the profiled run alone, so independent
# of how long a receive polled).  PROF_LIB lets an older
# build's libcoreprof be measured against the same libcorempi (bisecting).
build=$(cd "${1:-build}" && pwd) || exit 1
prof=${2:-$build/lib/libcoreprof.so}
batches=${BATCHES:-20}
src=$(cd "$(dirname "$0")" && pwd)/p2p_instr.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof_instr.XXXXXX") || exit 1
[ -n "$KEEP" ] || trap 'rm -rf "$tmp"' EXIT INT TERM; [ -n "$KEEP" ] && echo "kept $tmp" >&2
"$build/bin/mpicc" -O2 -g "$src" -o "$tmp/loop" || exit 1

# The wrapper's own instructions per call of MPI_FN, over the rank files in
# DIR: the wrapper's inclusive count minus the arc into PMPI_FN that it makes
# (callgrind_annotate --tree=caller lists the arc "< ...:MPI_FN (Nx)" above
# "* ...:PMPI_FN"), over the N calls of that arc.
# callgrind_annotate runs in $tmp, so that it spells every file absolutely: a
# file under the current directory would also get a relative spelling, and a
# wrapper's inclusive count be split between the two (the absolute spelling
# holds the whole, with what it inlines from prof_record.h).
wrapper() { # dir fn
    for f in "$1"/cg.*; do
        (cd "$tmp" && callgrind_annotate --inclusive=yes --tree=caller --auto=no --threshold=100 "$f" 2>/dev/null) |
            awk -v fn="$2" '
                function num(s) { gsub(",", "", s); return s + 0 }
                /^ *$/ { pc = 0; next }
                $0 ~ "[*]  .*wrappers_[a-z]+[.]c:MPI_" fn " [[]" { if (num($1) > incl) incl = num($1); next }
                $0 ~ "< .*wrappers_[a-z]+[.]c:MPI_" fn " [(][0-9,]+x[)]" { pv = num($1)
                    c = $0; sub(/.*[(]/, "", c); sub(/x[)].*/, "", c); pc = num(c); next }
                $0 ~ "[*]  .*:PMPI_" fn " [[]" && pc { arc = pv; n = pc }
                END { print incl - arc, n }'
    done | awk '{ s += $1; n += $2 } END { if (n) printf "%.1f", s / n; else printf "?" }'
}

# Inclusive instructions per call of PMPI_FN in the run without the profiler,
# over the sends of rank 0 (they never wait) / the receives of rank 1 (their
# messages are already in the ring): the rank file with more of them.
plain() { # dir fn
    for f in "$1"/cg.*; do
        (cd "$tmp" && callgrind_annotate --inclusive=yes --tree=caller --auto=no --threshold=100 "$f" 2>/dev/null) |
            awk -v fn="$2" '
                $0 ~ "< .*:main [(][0-9]+x[)]" { v = $1; gsub(",", "", v); pv = v + 0
                    c = $0; sub(/.*[(]/, "", c); sub(/x[)].*/, "", c); gsub(",", "", c); pc = c + 0; next }
                $0 ~ "[*] .*:P?MPI_" fn " " && pc { if (pc > n) { arc = pv; n = pc } }
                /^ *$/ { pc = 0 }
                END { print arc, n }'
    done | awk '$2 > n { n = $2; s = $1 } END { if (n) printf "%.1f", s / n; else printf "?" }'
}

run() { # dir [preload]
    mkdir -p "$1"
    if [ -n "$2" ]; then
        "$build/bin/mpirun" -n 2 env LD_PRELOAD="$2" COREPROF_DIR="$tmp/trace" COREPROF_QUIET=1 \
            valgrind --tool=callgrind --callgrind-out-file="$1/cg.%p" "$tmp/loop" "$batches" >/dev/null 2>&1
    else
        "$build/bin/mpirun" -n 2 \
            valgrind --tool=callgrind --callgrind-out-file="$1/cg.%p" "$tmp/loop" "$batches" >/dev/null 2>&1
    fi
}
run "$tmp/off"
run "$tmp/on" "$prof"
echo "MPI_Send: $(plain "$tmp/off" Send) instructions without the profiler; the wrapper adds $(wrapper "$tmp/on" Send)"
echo "MPI_Recv: the wrapper adds $(wrapper "$tmp/on" Recv) (without the profiler: bench/p2p_instr.sh)"
