#!/bin/sh
# Binding and placement: default binding when every rank gets a core, none
# when ranks outnumber the PUs, --bind-to core|none, --report-bindings, and
# the seed 001 permutations on a synthetic 8-core machine.
. "$(dirname "$0")/lib.sh"

# report line of rank R in NAME.err
report_line() { grep "MCW rank $2 (pid [0-9]*) " "$T/$1.err"; }

# One rank always has a core: bound, and its affinity is that core's PUs.
run one -n 1 --report-bindings "$HELPERS/rank_env"
expect_rc 0 "one rank"
line=$(report_line one 0) || fail "no binding report for rank 0"
case "$line" in *"bound to "*"[hwt "*) ;; *) fail "rank 0 not bound: $line" ;; esac
core=$(echo "$line" | sed 's/.*\[core \([0-9]*\)\[hwt.*/\1/')
hwt=$(echo "$line" | sed 's/.*\[hwt \([^]]*\)\].*/\1/')
grep -q "cpus=$hwt\$" "$T/one.out" || fail "rank 0 affinity differs from the report ($hwt): $(cat "$T/one.out")"
grep -q "bound_core=$core " "$T/one.out" || fail "bound_core is not the reported core $core"
grep -q "oversub=0" "$T/one.out" || fail "one rank marked oversubscribed"

# The report comes before anything the program prints.
"$MPIRUN" -n 2 --report-bindings "$HELPERS/rank_env" >"$T/order.out" 2>&1 || fail "report order run failed"
[ "$(head -n 2 "$T/order.out" | grep -c 'MCW rank')" -eq 2 ] || fail "bindings report not first: $(cat "$T/order.out")"

# Without -n: one rank per usable core (the header's ncores).
run default_n --report-bindings "$HELPERS/rank_env"
expect_rc 0 "no -n"
ncores=$(sed -n 's/.* ncores=\([0-9]*\) .*/\1/p' "$T/default_n.out" | head -n 1)
[ "$(grep -c '^rank=' "$T/default_n.out")" -eq "$ncores" ] || fail "no -n: expected $ncores ranks"
[ "$(grep -c 'bound to ' "$T/default_n.out")" -eq 0 ] && [ "$(grep -c 'bound to ' "$T/default_n.err")" -eq "$ncores" ] \
    || fail "no -n: every rank should be bound"

# More ranks than PUs: unbound (no hwloc at all), marked oversubscribed.
many=$(( $(getconf _NPROCESSORS_ONLN) + 1 ))
run many -n $many --report-bindings "$HELPERS/rank_env"
expect_rc 0 "$many ranks"
[ "$(grep -c 'is not bound' "$T/many.err")" -eq $many ] || fail "many: expected $many unbound ranks"
[ "$(grep -c 'oversub=1' "$T/many.out")" -eq $many ] || fail "many: segment not marked oversubscribed"
[ "$(grep -c 'bound_core=-1 ' "$T/many.out")" -eq $many ] || fail "many: bound_core should be -1"

# ... unless --bind-to core asks for round-robin binding.
run rr -n $many --bind-to core --report-bindings "$HELPERS/rank_env"
expect_rc 0 "--bind-to core"
[ "$(grep -c 'bound to ' "$T/rr.err")" -eq $many ] || fail "rr: every rank should be bound"
grep -q "bound_core=-1 " "$T/rr.out" && fail "rr: a rank was left unbound"

run none -n 1 --bind-to none --report-bindings "$HELPERS/rank_env"
expect_rc 0 "--bind-to none"
grep -q "is not bound" "$T/none.err" || fail "--bind-to none still bound"

# Seed 001 permutations, on a synthetic two-package, 8-core machine.
topo="package:2 core:4 pu:1"
for case in "core:0 1 2 3 4 5 6 7" "identity:0 1 2 3 4 5 6 7" "ring:0 2 4 6 7 5 3 1" \
            "evenodd:0 4 2 6 1 5 3 7" "leap2:0 4 7 3 1 5 6 2" "overlap:0 7 2 5 4 3 6 1"; do
    policy=${case%%:*}; want=${case#*:}
    run "map_$policy" -n 8 --topology "$topo" --map-by "$policy" --report-bindings "$HELPERS/rank_env"
    expect_rc 0 "--map-by $policy"
    expect_err "map_$policy" "describes another machine"
    got=""
    for r in 0 1 2 3 4 5 6 7; do
        c=$(report_line "map_$policy" $r | sed -n 's/.*placed on (not bound) package [0-9]*\[core \([0-9]*\)\[.*/\1/p')
        got="$got${got:+ }$c"
        grep -q "^rank=$r .*bound_core=$c " "$T/map_$policy.out" || fail "$policy: rank $r bound_core is not $c"
    done
    [ "$got" = "$want" ] || fail "--map-by $policy: cores '$got', expected '$want'"
done
# Cores 4..7 are on the second package.
report_line map_evenodd 1 | grep -q "package 1\[core 4" || fail "evenodd: rank 1 not on package 1"

# Fewer ranks than cores: a permutation of the first N cores.
COREMPI_TOPOLOGY="$topo" "$MPIRUN" -n 4 --map-by evenodd --report-bindings /bin/true >"$T/env4.out" 2>"$T/env4.err" \
    || fail "COREMPI_TOPOLOGY run failed"
got=$(sed -n 's/.*MCW rank \([0-9]\) .*\[core \([0-9]*\)\[.*/\1:\2/p' "$T/env4.err" | sort | tr '\n' ' ')
[ "$got" = "0:0 1:2 2:1 3:3 " ] || fail "evenodd on 4 of 8 cores: got '$got'"

# An XML topology file works like a synthetic string.
if command -v lstopo-no-graphics >/dev/null 2>&1; then
    lstopo-no-graphics -i "package:1 core:3 pu:2" --of xml "$T/topo.xml" 2>/dev/null
    run xml -n 3 --topology "$T/topo.xml" --report-bindings /bin/true
    expect_rc 0 "XML topology"
    expect_err xml "MCW rank 2 (pid [0-9]*) placed on (not bound) package 0\[core 2\[hwt 4-5\]\]: \[../../BB\]"
fi
shm_unchanged
echo PASS
