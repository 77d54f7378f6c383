#!/bin/sh
# prof_demo.sh [BUILD_DIR] -- how much coreprof slows down the demo program
# (examples/heat2d.c, what `make demo` runs) under Open MPI, MPICH and corempi.
#
# Per MPI: PAIRS runs without and PAIRS with the profiler, alternating (off,
# on, off, on, ...) so both see the same machine; heat2d times its own loop
# (start-up and the profiler's final writes are outside it).  2 ranks, one
# core each: at 4 ranks on 2 cores run-to-run noise is +-30% here, which
# would hide a 1% effect.  Prints one line per MPI:
#   <mpi> <median off s> <median on s> <slowdown %> <records per rank>
# slowdown = median over pairs of (on / off - 1); records per rank = the
# trace's size / 48 bytes (every recorded call and request completion), so
# that records x ns-per-record / loop time gives the slowdown to expect.
# PAIRS (default 7), HEAT_ARGS (default "256 12000": ~0.4 s per run), MPIS
# (default "openmpi mpich corempi").
build=${1:-build}
build=$(cd "$build" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../examples/heat2d.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof_demo.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pairs=${PAIRS:-7}
heat_args=${HEAT_ARGS:-256 12000}

run() { # flavour off|on -> prints the loop time in seconds
  fl=$1 mode=$2 dir=$tmp/t-$1
  rm -rf "$dir"
  case $fl in
  openmpi) set -- mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --bind-to core
           [ "$mode" = on ] && set -- "$@" -x LD_PRELOAD="$build/lib/libcoreprof-openmpi.so" \
               -x COREPROF_DIR="$dir" -x COREPROF_QUIET=1 ;;
  mpich)   set -- mpirun.mpich -np 2 -bind-to core
           [ "$mode" = on ] && set -- "$@" -genv LD_PRELOAD "$build/lib/libcoreprof-mpich.so" \
               -genv COREPROF_DIR "$dir" -genv COREPROF_QUIET 1 ;;
  corempi) set -- "$build/bin/mpirun" -n 2
           [ "$mode" = on ] && set -- "$@" --profile="$dir" ;;
  esac
  # shellcheck disable=SC2086  # heat_args is two words on purpose
  COREPROF_QUIET=1 timeout 120 "$@" "$tmp/heat-$fl" $heat_args 2>/dev/null |
    awk '/^heat2d: [0-9.]+ s / { print $2 }'
}

for fl in ${MPIS:-openmpi mpich corempi}; do
  case $fl in
  openmpi) cc=mpicc.openmpi; lib=$build/lib/libcoreprof-openmpi.so ;;
  mpich)   cc=mpicc.mpich;   lib=$build/lib/libcoreprof-mpich.so ;;
  corempi) cc=$build/bin/mpicc; lib=$build/lib/libcoreprof.so ;;
  esac
  if ! command -v "$cc" >/dev/null 2>&1 || [ ! -f "$lib" ] ||
     ! "$cc" -O2 -o "$tmp/heat-$fl" "$src" -lm 2>/dev/null; then
    echo "$fl not-available"; continue
  fi
  : >"$tmp/pairs-$fl"
  i=0
  while [ $i -lt "$pairs" ]; do
    off=$(run $fl off); on=$(run $fl on)
    [ -n "$off" ] && [ -n "$on" ] && echo "$off $on" >>"$tmp/pairs-$fl"
    i=$((i + 1))
  done
  if [ ! -s "$tmp/pairs-$fl" ]; then echo "$fl did-not-run"; continue; fi
  trace=$(ls "$tmp/t-$fl"/*.cpt 2>/dev/null | head -1)
  bytes=$( [ -n "$trace" ] && wc -c <"$trace" || echo 0)
  sort -n -k1 "$tmp/pairs-$fl" | awk -v fl=$fl -v bytes="$bytes" '
    { off[NR] = $1; on_[NR] = $2; r[NR] = ($2 / $1 - 1) * 100 }
    END {
      n = NR
      # medians: off and on separately, and of the per-pair slowdowns
      for (i = 1; i <= n; i++) a[i] = off[i]
      asort_n(a, n); mo = a[int((n + 1) / 2)]
      for (i = 1; i <= n; i++) a[i] = on_[i]
      asort_n(a, n); mn = a[int((n + 1) / 2)]
      for (i = 1; i <= n; i++) a[i] = r[i]
      asort_n(a, n); mr = a[int((n + 1) / 2)]
      printf "%s %.4f %.4f %.2f %d\n", fl, mo, mn, mr, bytes / 48
    }
    function asort_n(v, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    }'
done
