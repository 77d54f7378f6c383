#!/bin/sh
# validate_host_mpi.sh [mpicc mpirun-args...] -- build coll_test with src/coll
# over a host MPI (default: Open MPI) through harness_ompi.c, and run every
# algorithm variant at 1..9 ranks.  Validates the algorithms and the test
# itself independently of corempi's point-to-point.
#   sh tests/coll/validate_host_mpi.sh
#   NS="4 9" sh tests/coll/validate_host_mpi.sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MPICC=${MPICC:-mpicc.openmpi}
MPIRUN=${MPIRUN:-"mpirun.openmpi --allow-run-as-root --oversubscribe"}
NS=${NS:-"1 2 3 4 5 6 7 8 9"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$MPICC -std=gnu11 -O1 -g -I"$root/src" "$here/coll_test.c" "$here/harness_ompi.c" $(ls "$root"/src/coll/*.c | grep -v -e "/hier.c$" -e "/shm_") -o "$tmp/coll_test"
set -- rdb:binomial_ordered:binomial:rdb:rdb \
       dissemination:flat:rabenseifner:rdb_barrier:bruck \
       flat:two_to_all:binomial:reduce_bcast:ring \
       tree:kchain:rabenseifner:rabenseifner:gather_bcast \
       rdb:seg_binomial:binomial:ring:hybrid \
       dissemination:hybrid_seg_binomial:rabenseifner:hybrid_a:rdb \
       flat:binomial_ordered:binomial:hybrid_b:bruck
fail=0
for v in "$@"; do
  IFS=: read bar bc red ar ag <<EOT
$v
EOT
  for n in $NS; do
    if COREMPI_BARRIER=$bar COREMPI_BCAST=$bc COREMPI_REDUCE=$red COREMPI_ALLREDUCE=$ar COREMPI_ALLGATHER=$ag \
       timeout 300 $MPIRUN -n $n "$tmp/coll_test" > "$tmp/out" 2>&1; then
      echo "ok   n=$n $v"
    else
      echo "FAIL n=$n $v"; grep -E "rank [0-9]+:" "$tmp/out" | head -3; fail=1
    fi
  done
done
exit $fail
