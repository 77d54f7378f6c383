#!/bin/sh
# prof_overhead.sh [BUILD_DIR] -- coreprof's added time per recorded call, side by
# side under Open MPI, MPICH and corempi (each skipped if it cannot run here).
# Prints, per MPI: the medians without and with the profiler, and the added ns
# per call: from the MPI_Comm_rank loop, and from the ping-pong (delta / 4 calls).
build=${1:-build}
build=$(cd "$build" && pwd) || exit 1
src=$(cd "$(dirname "$0")" && pwd)/prof_overhead.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof_overhead.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
iters=${ITERS:-200}

run() { # flavour preload|none
  fl=$1 mode=$2
  case $fl in
  openmpi) pre=""; [ "$mode" = on ] && pre="-x LD_PRELOAD=$build/lib/libcoreprof-openmpi.so -x COREPROF_DIR=$tmp/t-$fl -x COREPROF_QUIET=1"
           mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --bind-to core $pre "$tmp/pp-$fl" "$iters" ;;
  mpich)   pre=""; [ "$mode" = on ] && pre="-genv LD_PRELOAD $build/lib/libcoreprof-mpich.so -genv COREPROF_DIR $tmp/t-$fl -genv COREPROF_QUIET 1"
           mpirun.mpich -np 2 -bind-to core $pre "$tmp/pp-$fl" "$iters" ;;
  corempi) if [ "$mode" = on ]; then
             env LD_PRELOAD="$build/lib/libcoreprof.so" COREPROF_DIR="$tmp/t-$fl" COREPROF_QUIET=1 \
                 "$build/bin/mpirun" -n 2 "$tmp/pp-$fl" "$iters"
           else "$build/bin/mpirun" -n 2 "$tmp/pp-$fl" "$iters"; fi ;;
  esac
}

printf "%-8s %12s %12s %10s   %14s %14s %10s\n" MPI call_ns prof_call +ns/call pingpong_ns prof_pingpong +ns/call
for fl in openmpi mpich corempi; do
  case $fl in
  openmpi) cc=mpicc.openmpi; lib=$build/lib/libcoreprof-openmpi.so ;;
  mpich)   cc=mpicc.mpich;   lib=$build/lib/libcoreprof-mpich.so ;;
  corempi) cc=$build/bin/mpicc; lib=$build/lib/libcoreprof.so ;;
  esac
  if ! command -v "$cc" >/dev/null 2>&1 || [ ! -f "$lib" ] || ! "$cc" -O2 -o "$tmp/pp-$fl" "$src" 2>/dev/null; then
    echo "$fl: not available (compiler or $lib missing)"; continue
  fi
  off=$(run $fl off 2>/dev/null)
  on=$(run $fl on 2>/dev/null)
  if [ -z "$off" ] || [ -z "$on" ]; then echo "$fl: the benchmark did not run"; continue; fi
  echo "$off
$on" | awk -v fl=$fl '
    /call_ns/ { c[n1++] = $2 } /pingpong_ns/ { p[n2++] = $2 }
    END { printf "%-8s %12.1f %12.1f %10.1f   %14.1f %14.1f %10.1f\n", fl, c[0], c[1], c[1]-c[0], p[0], p[1], (p[1]-p[0])/4 }'
done
