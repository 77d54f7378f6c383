#!/bin/sh
# make stress SECONDS=N: run the collective fuzz test (coll_fuzz) in rounds
# until N seconds have passed, each round with a fresh seed, a random rank
# count in 2..9 and a random configuration of forced algorithms from
# <build>/tests/coll/coll_fuzz_configs.txt (written by coll_fuzz.cmake).
# Prints one line per round (seed, ranks, configuration, result) and the
# output of failing rounds (their rerun command included), then
# "N passed, N failed"; exits 1 if a round failed.
#   usage: coll_fuzz_stress.sh BUILD_DIR SECONDS [SECONDS_PER_ROUND]
build=${1:-build}
total=${2:-300}
per=${3:-20}
prog=$build/tests/coll/coll_fuzz
mpirun=$build/bin/mpirun
configs=$build/tests/coll/coll_fuzz_configs.txt
for f in "$prog" "$mpirun" "$configs"; do
    [ -e "$f" ] || { echo "coll_fuzz_stress: $f is missing (build first)" >&2; exit 2; }
done
rand() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
nconf=$(wc -l < "$configs")
start=$(date +%s)
pass=0
fail=0
while :; do
    left=$((total - ($(date +%s) - start)))
    [ "$left" -gt 0 ] || break
    secs=$per
    [ "$left" -lt "$secs" ] && secs=$left
    n=$(($(rand) % 8 + 2))
    line=$(sed -n "$(($(rand) % nconf + 1))p" "$configs")
    name=${line%% *}
    env=${line#"$name"}
    seed=$(($(rand) * 1000 + $(rand) % 1000))
    out=$(env $env COREMPI_DEADLOCK_TIMEOUT=20 timeout $((secs + 90)) "$mpirun" -n "$n" "$prog" --seed "$seed" --seconds "$secs" 2>&1)
    if echo "$out" | grep -q "^coll_fuzz ok"; then
        pass=$((pass + 1))
        echo "ok     seed $seed n$n $name: $(echo "$out" | grep '^coll_fuzz ok' | sed 's/.*seed [0-9]*, //')"
    else
        fail=$((fail + 1))
        echo "FAILED seed $seed n$n $name ($env ):"
        echo "$out" | tail -25 | sed 's/^/    /'
    fi
done
echo "coll_fuzz stress: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
