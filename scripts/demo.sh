#!/bin/sh
# demo.sh BUILD -- the main job: the heat-equation demo on 4 ranks under the
# profiler, then the profiler's report.
set -e
build=${1:-build}
out=$build/demo
rm -rf "$out"
mkdir -p "$out"
echo "== mpirun -n 4 --profile=$out/trace $build/examples/heat2d 256 4000"
if [ -f "$build/lib/libcoreprof.so" ]; then
    "$build/bin/mpirun" -n 4 --profile="$out/trace" "$build/examples/heat2d" 256 4000
else
    echo "(profiler not built: running without it)"
    "$build/bin/mpirun" -n 4 "$build/examples/heat2d" 256 4000
fi
if [ -x "$build/bin/coreprof" ] && [ -d "$out/trace" ]; then
    echo "== coreprof report $out/trace"
    "$build/bin/coreprof" report "$out/trace" -o "$out/report"
    echo "== report written to $out/report (open $out/report/report.html)"
fi
