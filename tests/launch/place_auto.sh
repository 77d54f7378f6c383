#!/bin/sh
# --map-by auto:FILE (issue 39): placements read through --report-bindings on
# synthetic machines (--topology), the predicted-cost line, the errors, and a
# coreprof trace directory as FILE (when COREPROF and HEAT2D are given).
. "$(dirname "$0")/lib.sh"
# core_of NAME R: the core rank R was placed on
core_of() { grep "MCW rank $2 " "$T/$1.err" | sed -n 's/.*core \([0-9]*\)\[hwt.*/\1/p'; }
pkg_of() { grep "MCW rank $2 " "$T/$1.err" | sed -n 's/.*package \([0-9]*\)\[core.*/\1/p'; }
# auto_line NAME: the predicted cost line; auto must be no worse than the best named policy
auto_ok() {
    line=$(grep "^mpirun: --map-by auto: predicted" "$T/$1.err") || fail "$1: no predicted-cost line"
    echo "$line" | grep -q "best named policy [a-z0-9]* [0-9.]* [a-z]* (-" && fail "$1: worse than a named policy: $line"
    return 0
}

# Pairs (i, i+8) exchange 1 MiB, on two packages of 8 cores: each pair must
# share a package (identity splits all eight).
: >"$T/pairs.csv"
for i in 0 1 2 3 4 5 6 7; do echo "$i,$((i + 8)),1048576" >>"$T/pairs.csv"; echo "$((i + 8)),$i,1048576" >>"$T/pairs.csv"; done
run pairs --topology "package:2 core:8 pu:1" --map-by "auto:$T/pairs.csv" --report-bindings true
expect_rc 0 "auto on 2 x 8"
[ "$(grep -c 'MCW rank' "$T/pairs.err")" -eq 16 ] || fail "pairs: the matrix should give 16 ranks without -n"
for i in 0 1 2 3 4 5 6 7; do
    [ "$(pkg_of pairs $i)" = "$(pkg_of pairs $((i + 8)))" ] || fail "pairs: ranks $i and $((i + 8)) on different packages"
done
auto_ok pairs
expect_err pairs "against identity .* (.*% less)"

# A ring in scrambled order on each of the issue's four machines: auto no
# worse than the best named policy, and every rank on its own core.
ring="3 11 7 0 14 9 1 12 5 15 2 8 13 6 10 4"
: >"$T/ring.csv"
set -- $ring
first=$1; prev=$1; shift
for r in "$@" "$first"; do echo "$prev,$r,65536" >>"$T/ring.csv"; prev=$r; done
for topo in "package:2 core:8 pu:1" "package:2 l3cache:2 core:8 pu:1" "numa:4 core:16 pu:1" "package:2 core:64 pu:1"; do
    run ring --topology "$topo" -n 16 --map-by "auto:$T/ring.csv" --report-bindings true
    expect_rc 0 "ring on $topo"
    auto_ok ring
    cores=$(for r in $(seq 0 15); do core_of ring $r; done | sort -n | uniq | wc -l)
    [ "$cores" -eq 16 ] || fail "ring on $topo: $cores distinct cores for 16 ranks"
done
# On 2 x 2 L3 groups x 8 with 16 ranks (the first package), ring neighbours
# share an L3 group except at two crossings: at most 2 pairs cross.
run ring --topology "package:2 l3cache:2 core:8 pu:1" -n 16 --map-by "auto:$T/ring.csv" --report-bindings true
set -- $ring
cross=0; prev=$1; shift
for r in "$@" "$first"; do
    [ $(( $(core_of ring $prev) / 8 )) -eq $(( $(core_of ring $r) / 8 )) ] || cross=$((cross + 1)); prev=$r
done
[ "$cross" -le 2 ] || fail "ring on 2x2x8: $cross neighbour pairs cross L3 groups (at most 2 needed)"

# No communication at all: identity, cost 0.
printf '# ranks 4\n' >"$T/none.csv"
run none --topology "package:2 core:2 pu:1" --map-by "auto:$T/none.csv" --report-bindings true
expect_rc 0 "no communication"; expect_err none "predicted communication cost 0 ns"
for r in 0 1 2 3; do [ "$(core_of none $r)" = "$r" ] || fail "no communication: rank $r not on core $r"; done

# Ranks that are not placed: said, not an error.
run nobind --topology "package:2 core:2 pu:1" --bind-to none --map-by "auto:$T/none.csv" --report-bindings true
expect_rc 0 "auto with --bind-to none"; expect_err nobind "ranks are not placed (--bind-to none)"

# Errors: one line, status 2.
run mism --topology "package:2 core:8 pu:1" -n 4 --map-by "auto:$T/pairs.csv" true
expect_rc 2 "matrix of 16 ranks at -n 4"
expect_err mism "auto:$T/pairs.csv: the matrix is for 16 ranks but -n 4 was asked for"
[ "$(err_lines mism)" -eq 1 ] || fail "mismatch: one line expected"
printf '0,1,lots\n' >"$T/bad.csv"
run bad --map-by "auto:$T/bad.csv" true; expect_rc 2 "bad CSV"; expect_err bad "bad.csv: line 1: expected src,dst,bytes"
run missing --map-by "auto:$T/nonexistent.csv" true; expect_rc 2 "missing file"; expect_err missing "No such file"
run empty --map-by auto: true; expect_rc 2 "auto without a file"; expect_err empty "needs a file"

# --calibrate: measures the levels of this machine through corempi and
# caches them per machine; auto then says its model is calibrated.
if [ -x "$(dirname "$MPIRUN")/corempi_calibrate" ]; then
    mkdir "$T/cache"
    XDG_CACHE_HOME="$T/cache" "$MPIRUN" --calibrate >"$T/cal.out" 2>&1 || fail "--calibrate failed"
    ls "$T"/cache/corempi/calibration-*.txt >/dev/null 2>&1 || fail "--calibrate: no cache file"
    grep -Eq "^  (L2|L3|NUMA|package|machine) +[0-9]+ +[0-9]+ ns" "$T/cal.out" || grep -q "one usable core" "$T/cal.out" ||
        fail "--calibrate: no measured level"
    XDG_CACHE_HOME="$T/cache" "$MPIRUN" -n 2 --map-by "auto:$T/none.csv" --report-bindings true >"$T/calx.out" 2>"$T/calx.err"
    grep -q "matrix is for 4 ranks" "$T/calx.err" || fail "calibrated: the mismatch should still be caught"
    printf '0,1,4096\n' >"$T/two.csv"
    XDG_CACHE_HOME="$T/cache" "$MPIRUN" --map-by "auto:$T/two.csv" --report-bindings true >"$T/calx.out" 2>"$T/calx.err"
    grep -q "calibrated model" "$T/calx.err" || grep -q "not bound" "$T/calx.err" || fail "auto ignores the calibration: $(cat "$T/calx.err")"
fi

# A coreprof trace directory: the matrix of a real run.
if [ -n "${COREPROF:-}" ] && [ -n "${HEAT2D:-}" ] && [ -x "$COREPROF" ]; then
    run prof -n 4 --profile="$T/trace" "$HEAT2D" 64 50
    expect_rc 0 "heat2d under --profile"
    "$COREPROF" matrix "$T/trace" >"$T/m.csv" 2>&1 || fail "coreprof matrix: $(cat "$T/m.csv")"
    grep -q "^# ranks 4" "$T/m.csv" || fail "coreprof matrix: no '# ranks 4'"
    grep -q "^0,1," "$T/m.csv" || fail "coreprof matrix: no 0,1 halo flow"
    run tr --topology "package:2 core:2 pu:1" --map-by "auto:$T/trace" --report-bindings true
    expect_rc 0 "auto from a trace directory"; auto_ok tr
    run trm --topology "package:2 core:2 pu:1" -n 2 --map-by "auto:$T/trace" true
    expect_rc 2 "trace of 4 ranks at -n 2"; expect_err trm "the matrix is for 4 ranks but -n 2"
    "$COREPROF" place "$T/trace" --topology "package:2 core:2 pu:1" >"$T/place.out" 2>&1 || fail "coreprof place"
    for p in identity ring evenodd leap2 overlap auto "mapping (rank:core)"; do
        grep -q "$p" "$T/place.out" || fail "coreprof place: no '$p': $(cat "$T/place.out")"
    done
    # The report: placement.txt, the matrix in auto's order, both in the HTML.
    "$COREPROF" report "$T/trace" --no-progress --no-otf2 >/dev/null 2>&1 || fail "coreprof report"
    grep -q "^  auto " "$T/trace/report/placement.txt" || fail "report: no placement.txt"
    [ -s "$T/trace/report/matrix_placed.png" ] || fail "report: no matrix_placed.png"
    grep -q "<h2>Placement</h2>" "$T/trace/report/report.html" || fail "report.html: no placement section"
fi
shm_unchanged
echo PASS
