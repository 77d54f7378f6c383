#!/bin/sh
# prof_pingpong.sh [BUILD_DIR] [RUNS] [OTHER_LIBCOREPROF] -- coreprof's added
# time per call under corempi, alternated in one session: RUNS rounds of
# bench/prof_overhead.c (an 8-byte ping-pong and an MPI_Comm_rank loop, each
# the median of 1001 short blocks) run without the profiler, with
# BUILD_DIR's libcoreprof.so (as `mpirun --profile` preloads it), and with
# OTHER_LIBCOREPROF if given (an older build: before/after on one machine
# state).  Prints each round and the medians over rounds of the added ns
# per call (ping-pong: delta of the round trip / 4 calls), with the load.
build=$(cd "${1:-build}" && pwd) || exit 1
runs=${2:-9}
other=$3
src=$(cd "$(dirname "$0")" && pwd)/prof_overhead.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof_pingpong.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 "$src" -o "$tmp/pp" || exit 1
one() { # [lib]
    if [ -n "$1" ]; then
        env LD_PRELOAD="$1" COREPROF_DIR="$tmp/trace" COREPROF_QUIET=1 "$build/bin/mpirun" -n 2 "$tmp/pp" "${ITERS:-200}"
    else
        "$build/bin/mpirun" -n 2 "$tmp/pp" "${ITERS:-200}"
    fi | awk '/call_ns/ { c = $2 } /pingpong_ns/ { p = $2 } END { print c, p }'
    rm -rf "$tmp/trace"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$runs"); do
    off=$(one) on=$(one "$build/lib/libcoreprof.so")
    line="$off $on"
    [ -n "$other" ] && line="$line $(one "$other")"
    echo "$line"
done | awk -v other="$other" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { n++; c1[n] = $3 - $1; p1[n] = ($4 - $2) / 4; if (other != "") { c2[n] = $5 - $1; p2[n] = ($6 - $2) / 4 }
      printf "round %d: off call %s pp %s | on call %s pp %s", n, $1, $2, $3, $4
      if (other != "") printf " | other call %s pp %s", $5, $6
      printf "\n" }
    END { printf "median added ns per call: Comm_rank loop %.1f, ping-pong %.1f (this build)\n", med(c1, n), med(p1, n)
          if (other != "") printf "median added ns per call: Comm_rank loop %.1f, ping-pong %.1f (%s)\n", med(c2, n), med(p2, n), other }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
