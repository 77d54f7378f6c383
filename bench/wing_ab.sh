#!/bin/sh
# wing_ab.sh BUILD [ROUNDS] [RANKS] [FLAVOUR] -- the same binary (bench/coll.c
# built with the peer's mpicc) with and without libcorempi_coll-FLAVOUR.so
# preloaded, alternated ROUNDS times (default 7, 2 ranks, openmpi); prints
# the median of each side's figures per collective and size, their ratio
# (wing / host: below 1 the wing is faster), and the load average before and
# after.  The bar coll-under-host (issue 40): at 2 ranks under Open MPI,
# barrier and 8-byte allreduce <= 0.7, 1 MiB allreduce <= 0.6.
#   sh bench/wing_ab.sh build 9
#   WING_COLLS=barrier,bcast,reduce,allreduce WING_SIZES=8,65536 sh bench/wing_ab.sh build 5 4 mpich
set -u
build=${1:?build dir}; rounds=${2:-7}; n=${3:-2}; flavour=${4:-openmpi}
colls=${WING_COLLS:-barrier,allreduce}; sizes=${WING_SIZES:-8,1048576}
here=$(cd "$(dirname "$0")" && pwd)
lib=$(cd "$build" && pwd)/lib/libcorempi_coll-$flavour.so
case $flavour in
    openmpi) cc=mpicc.openmpi; run="mpirun.openmpi --allow-run-as-root --oversubscribe"; pre="-x LD_PRELOAD=$lib" ;;
    # MPICH leaves ranks unbound: two may share a core while one spins (docs/wing.md, "Speed").
    mpich) cc=mpicc.mpich; run="mpirun.mpich -bind-to core"; pre="-genv LD_PRELOAD $lib"
           export MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0 ;;   # tests/wing/run.sh: MPICH's own crashes here
esac
command -v $cc >/dev/null 2>&1 && [ -f "$lib" ] || { echo "wing_ab.sh: no $cc or no $lib"; exit 77; }
work=$(mktemp -d /tmp/corempi-wing-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
$cc -O2 -std=c11 -I"$here" -o "$work/coll" "$here/coll.c" || exit 1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
    for side in host wing; do
        p=""; [ $side = wing ] && p=$pre
        timeout 300 $run $p -n "$n" "$work/coll" -c "$colls" -s "$sizes" 2>/dev/null |
            awk -v s=$side '$1 == "coll" { print s, $2, $3, $4 }' >>"$work/rec"
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $flavour, $n ranks, $rounds alternated rounds: medians in us"
echo "coll bytes host wing wing/host"
sort -k2,2 -k3,3n -k1,1 "$work/rec" | awk '
  function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
  { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    if ($1 == "host") h[key, ++nh[key]] = $4; else w[key, ++nw[key]] = $4 }
  END { for (i = 1; i <= nk; i++) { k = order[i]; delete a; delete b
          for (j = 1; j <= nh[k]; j++) a[j] = h[k, j]; for (j = 1; j <= nw[k]; j++) b[j] = w[k, j]
          mh = med(a, nh[k]); mw = med(b, nw[k]); printf "%s %.3f %.3f %.2f\n", k, mh, mw, (mh > 0 ? mw / mh : 0) } }'
