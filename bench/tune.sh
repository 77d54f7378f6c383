#!/usr/bin/env bash
# tune.sh -- `make tune`: time every registered algorithm of every collective
# that bench/coll.c measures, forced by COREMPI_<COLL>=name, at 2 and 8 ranks,
# next to what the tuning table picks by itself ("auto").  The table in
# src/coll/tuning.def is read off this output: per size, the fastest row.
#   COREMPI_BUILD=build bash bench/tune.sh      (TUNE_RANKS="2 8", TUNE_SIZES=8,1024,65536,1048576)
set -euo pipefail
build=${COREMPI_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
ranks=${TUNE_RANKS:-2 8}
sizes=${TUNE_SIZES:-8,1024,65536,1048576}
out=$(cd "$(dirname "$0")" && pwd)/results/tune.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

"$build/bin/mpicc" -O2 -o "$tmp/coll" "$(dirname "$0")/coll.c"
measured="barrier bcast reduce allreduce allgather alltoall gather scatter reduce_scatter_block scan"

{
echo "# Collective algorithm sweep ($(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "Median µs per call of the slowest rank; bytes are one rank's contribution."
for n in $ranks; do
    for coll in $measured; do
        algos=$("$build/bench/coll_algos" | awk -v c="$coll" '$1 == c { print $2 }')
        echo
        echo "## $coll, $n ranks"
        echo
        printf '| algorithm |'; for s in ${sizes//,/ }; do printf ' %s B |' "$s"; done; echo
        printf '|---|'; for s in ${sizes//,/ }; do printf -- '---|'; done; echo
        for a in auto $algos; do
            var="COREMPI_$(echo "$coll" | tr a-z A-Z)"
            if [ "$a" = auto ]; then envs=(); else envs=("$var=$a"); fi
            res=$(env "${envs[@]}" timeout 60 "$build/bin/mpirun" -n "$n" "$tmp/coll" -q -c "$coll" -s "$sizes" 2>/dev/null || true)
            printf '| %s |' "$a"
            for s in ${sizes//,/ }; do
                # a barrier carries no data: its one figure goes in every column
                v=$(echo "$res" | awk -v s="$s" -v c="$coll" '$1 == "coll" && ($3 == s || c == "barrier") { print $4; exit }')
                printf ' %s |' "${v:-—}"
            done
            echo
        done
    done
done
} | tee "$out"
echo "tune.sh: written to $out"
