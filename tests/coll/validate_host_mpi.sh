#!/bin/sh
# validate_host_mpi.sh [mpicc mpirun-args...] -- build coll_test with src/coll
# over a host MPI (default: Open MPI) through harness_ompi.c, and run every
# algorithm variant (as tests/coll/CMakeLists.txt sweeps them) at 1..9 ranks.  Validates the algorithms and the test
# itself independently of corempi's point-to-point.
#   sh tests/coll/validate_host_mpi.sh
#   NS="4 9" sh tests/coll/validate_host_mpi.sh
# The sources are compiled as they are: corempi's own build defines the
# switch of the corempi-only parts, this one must not.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MPICC=${MPICC:-mpicc.openmpi}
MPIRUN=${MPIRUN:-"mpirun.openmpi --allow-run-as-root --oversubscribe"}
NS=${NS:-"1 2 3 4 5 6 7 8 9"}
# ctest runs this too (coll.host_mpi, NS=2): no host MPI is a skip, not a failure.
command -v "${MPICC%% *}" >/dev/null 2>&1 || { echo "SKIP: no $MPICC"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The front ends are generated from the spec (spec/gen_frontends.py): those
# of src/coll's layer, but the persistent _init ones (persist.c is
# corempi-only) and their checked twins, over a template that records and
# checks nothing (no corempi state here; CM_FRONT_ENTER never takes the twin).
python3 "$root/spec/gen_frontends.py" "$root/spec" "$tmp/gen" >/dev/null
mkdir -p "$tmp/host/core"
printf '%s\n' '#define CM_FRONT_ENTER(name) 0' '#define CM_FRONT_LEAVE(rc) (rc)' \
    '#define CM_THREAD_CHECKED(name) do { } while (0)' > "$tmp/host/core/frontend.h"
awk '/^#pragma weak MPI_[A-Za-z_]*_init = / || /^__attribute__.* checked_[A-Za-z_]*_init\(/ { skip = 1 }
     !skip { print } skip && /^}/ { skip = 0 }' \
    "$tmp/gen/coll/fe_coll.c" > "$tmp/fe_coll.c"
$MPICC -std=gnu11 -O1 -g -I"$tmp/host" -I"$tmp/gen" -I"$root/src" "$here/coll_test.c" "$here/harness_ompi.c" \
    "$tmp/fe_coll.c" $(ls "$root"/src/coll/*.c | grep -v -e "/hier.c$") -o "$tmp/coll_test"
# The variants of tests/coll/CMakeLists.txt, from src/coll/algorithms.def:
# variant v forces the v-th point-to-point algorithm (modulo) of every
# collective with several, the only one of the others in variant 0.  One
# line of COREMPI_<COLL>=name words per variant.
variants=$(awk -F'[(), ]+' '
  /^CM_COLL\(/ { order[++nc] = $2; up[$2] = $3 }
  /^CM_ALGO\(/ { a[$2, n[$2]++] = $3 }
  END {
    for (i = 1; i <= nc; i++) if (n[order[i]] > max) max = n[order[i]]
    for (v = 0; v < max; v++) {
      line = ""
      for (i = 1; i <= nc; i++) {
        c = order[i]
        if (n[c] > 1 || v == 0) line = line " COREMPI_" up[c] "=" a[c, v % n[c]]
      }
      print substr(line, 2)
    }
  }' "$root/src/coll/algorithms.def")
fail=0
while read -r vars; do
  for n in $NS; do
    if env $vars timeout 300 $MPIRUN -n $n "$tmp/coll_test" < /dev/null > "$tmp/out" 2>&1; then
      echo "ok   n=$n $vars"
    else
      echo "FAIL n=$n $vars"; grep -E "rank [0-9]+:" "$tmp/out" | head -3; fail=1
    fi
  done
done <<EOT
$variants
EOT
exit $fail
