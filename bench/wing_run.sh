#!/bin/sh
# wing_run.sh BUILD -- the `make bench` part for libcorempi_coll-<peer>.so
# (BENCH_PARTS=wing, docs/wing.md "Speed"): every collective the library
# serves, at each rank count, with and without it, under each peer that is
# installed, through bench/wing_ab.sh (alternated rounds, medians).  Prints
# one markdown table; a peer without its mpicc or library is left out.
#   WING_ROUNDS=3 WING_RANK_COUNTS="2 4 8" sh bench/wing_run.sh build
set -u
build=${1:?build dir}
here=$(cd "$(dirname "$0")" && pwd)
rounds=${WING_ROUNDS:-3}
export WING_COLLS=${WING_COLLS:-barrier,bcast,reduce,allreduce,allgather,alltoall}
export WING_SIZES=${WING_SIZES:-8,65536}
echo "Rounds: $rounds alternated per cell; medians in µs; wing/host below 1: the library is faster."
echo "Load before: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| peer | ranks | coll | bytes | host µs | wing µs | wing/host |"
echo "|---|---|---|---|---|---|---|"
for flavour in openmpi mpich; do
    for n in ${WING_RANK_COUNTS:-2 4}; do
        sh "$here/wing_ab.sh" "$build" "$rounds" "$n" "$flavour" 2>/dev/null |
            awk -v f="$flavour" -v n="$n" 'NF == 5 && $2 ~ /^[0-9]+$/ { printf "| %s | %s | %s | %s | %s | %s | %s |\n", f, n, $1, $2, $3, $4, $5 }'
    done
done
echo
echo "Load after: $(cut -d' ' -f1-3 /proc/loadavg)."
