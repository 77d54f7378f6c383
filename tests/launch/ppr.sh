#!/bin/sh
# --map-by ppr:N:core|l3cache|numa|package and --bind-to
# core|l3cache|numa|package|none: on a synthetic two-package topology (placed,
# not bound) and on this machine (bound: each rank's affinity is the object's
# set that --report-bindings names).
. "$(dirname "$0")/lib.sh"
topo="package:2 l3cache:2 core:2 pu:1"
# rank_line NAME R: the report line of rank R
rank_line() { grep "MCW rank $2 " "$T/$1.err" || fail "$1: no report for rank $2"; }
has() { rank_line "$1" "$2" | grep -q -- "$3" || fail "$1: rank $2 should say '$3': $(rank_line "$1" "$2")"; }

run pk --topology "$topo" --map-by ppr:2:package --bind-to package --report-bindings true
expect_rc 0 "ppr:2:package"
[ "$(grep -c 'MCW rank' "$T/pk.err")" -eq 4 ] || fail "ppr:2:package on 2 packages: expected 4 ranks by default"
has pk 0 "package 0\[hwt 0-3\]: \[B/B/B/B\]\[./././.\]"; has pk 1 "package 0\[hwt 0-3\]"
has pk 2 "package 1\[hwt 4-7\]: \[./././.\]\[B/B/B/B\]"; has pk 3 "package 1\[hwt 4-7\]"

# socket: Open MPI's synonym of package, for --bind-to and ppr.
run so --topology "$topo" --map-by ppr:2:socket --bind-to socket --report-bindings true
expect_rc 0 "--bind-to socket"
has so 0 "package 0\[hwt 0-3\]: \[B/B/B/B\]\[./././.\]"; has so 2 "package 1\[hwt 4-7\]"

run l3 --topology "$topo" --map-by ppr:1:l3cache --bind-to l3cache --report-bindings true
expect_rc 0 "ppr:1:l3cache"
[ "$(grep -c 'MCW rank' "$T/l3.err")" -eq 4 ] || fail "ppr:1:l3cache: expected 4 ranks"
has l3 0 "l3cache 0\[hwt 0-1\]"; has l3 1 "l3cache 1\[hwt 2-3\]"; has l3 3 "l3cache 3\[hwt 6-7\]: \[./././.\]\[././B/B\]"

# ppr onto cores inside each object, one per core.
run pc --topology "$topo" --map-by ppr:1:package --report-bindings true; expect_rc 0 "ppr:1:package"
has pc 0 "package 0\[core 0\[hwt 0\]\]"; has pc 1 "package 1\[core 4\[hwt 4\]\]"
run cc --topology "$topo" -n 3 --map-by ppr:4:core --report-bindings true; expect_rc 0 "ppr:4:core"
has cc 0 "core 0\[hwt 0\]"; has cc 2 "core 0\[hwt 0\]"
run nu --topology "$topo" -n 2 --bind-to numa --report-bindings true; expect_rc 0 "--bind-to numa"
has nu 1 "numa 0\[hwt 0-7\]"

# Too many ranks for ppr, and malformed values: one line, status 2.
run over --topology "$topo" -n 5 --map-by ppr:1:package true; expect_rc 2 "too many for ppr"
expect_err over "ppr:1:package places at most 2 ranks on 2 packages, and 5 were asked for"
for bad in ppr:0:core ppr:x:core ppr:2:board ppr:2 ppr::core; do
    run bad --map-by "$bad" -n 1 true; expect_rc 2 "--map-by $bad"; expect_err bad "expected ppr:N:core|l3cache|numa|package"
done

# This machine: the rank's affinity is what the report says.
for what in package numa core; do
    run real -n 2 --bind-to "$what" --report-bindings "$HELPERS/rank_env"; expect_rc 0 "--bind-to $what here"
    for r in 0 1; do
        set=$(rank_line real $r | sed -n 's/.*\[hwt \([0-9,-]*\)\].*/\1/p')
        [ -n "$set" ] || fail "--bind-to $what: rank $r not bound: $(rank_line real $r)"
        grep "^rank=$r " "$T/real.out" | grep -q " cpus=$set\$" || fail "--bind-to $what: rank $r runs on other cpus than $set"
    done
done
run none -n 1 --bind-to none --map-by ppr:1:package --report-bindings true; expect_rc 0 "ppr with --bind-to none"
expect_err none "not bound"
shm_unchanged
echo PASS
