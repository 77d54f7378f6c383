#!/bin/sh
# prof_poll.sh [BUILD_DIR] [OLD_LIBCOREPROF] -- size of coreprof's output for the
# polling pattern of bench/prof_poll.c (4 ranks on corempi): a trace as it is
# now, statistics only (COREPROF_MODE=summary), and, if given, a trace by an
# older libcoreprof.so (before folding) for comparison.  Then the time and
# max RSS of `coreprof report` on each (the old trace is format version 1).
# DELAY=s makes the run longer (default 0.2 s per phase).
build=${1:-build}
build=$(cd "$build" && pwd) || exit 1
old=${2:-}
src=$(cd "$(dirname "$0")" && pwd)/prof_poll.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/prof_poll.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
np=${NP:-4}
"$build/bin/mpicc" -O2 -o "$tmp/poll" "$src" || exit 1

run() { # NAME LIB MODE
  env LD_PRELOAD="$2" COREPROF_DIR="$tmp/$1" COREPROF_QUIET=1 COREPROF_MODE="$3" \
      "$build/bin/mpirun" -n "$np" "$tmp/poll" "${DELAY:-0.2}" > "$tmp/$1.out" || { echo "$1: the run failed"; return 1; }
  polls=$(awk '{ i += $3; t += $5 } END { print i " Iprobe + " t " Testall" }' "$tmp/$1.out")
  printf "%-22s %12s bytes  (%s)\n" "$1" "$(cat "$tmp/$1"/*.cpt | wc -c)" "$polls"
}

echo "polling pattern, $np ranks, $(nproc) cores: coreprof output"
[ -n "$old" ] && run "trace-before-folding" "$old" trace
run "trace" "$build/lib/libcoreprof.so" trace
run "summary" "$build/lib/libcoreprof.so" summary
echo
echo "coreprof report (streamed summary):"
for d in trace-before-folding trace summary; do
  [ -d "$tmp/$d" ] || continue
  /usr/bin/time -f "%e s, max RSS %M KiB" -o "$tmp/time" "$build/bin/coreprof" report "$tmp/$d" -o "$tmp/rep-$d" \
      --summary-only --no-progress > "$tmp/rep-$d.txt" 2>/dev/null
  printf "%-22s %s; MPI_Iprobe %s calls, MPI_Testall %s calls\n" "$d" "$(cat "$tmp/time")" \
      "$(awk '$1 == "MPI_Iprobe" { print $2; exit }' "$tmp/rep-$d.txt")" \
      "$(awk '$1 == "MPI_Testall" { print $2; exit }' "$tmp/rep-$d.txt")"
done
