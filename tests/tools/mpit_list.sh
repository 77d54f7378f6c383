#!/bin/sh
# build/bin/mpit_list prints every MPI_T variable with its value: every row of
# src/core/config.def (the family row as its collectives), the performance
# variables, the settings of the environment it runs in; with --init under
# mpirun each rank prints, with the per-communicator variables; a bad option
# is refused.
# usage: mpit_list.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
tool=$build/bin/mpit_list
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "mpit_list.sh: $*" >&2; exit 1; }

COREMPI_EAGER_MAX=8k COREMPI_ALLREDUCE=ring "$tool" >"$out" 2>"$err" || fail "mpit_list failed: $(cat "$err")"
for name in $(sed -n 's/^CM_CONFIG(\(COREMPI_[A-Z0-9_]*\),.*/\1/p' "$src/src/core/config.def"); do
    grep -q "^  $name = " "$out" || fail "no line for $name"
done
for coll in $(sed -n 's/^CM_COLL([a-z_]*, *\([A-Z_]*\)).*/\1/p' "$src/src/coll/algorithms.def"); do
    grep -q "^  COREMPI_$coll = " "$out" || fail "no line for COREMPI_$coll"
    lower=$(echo "$coll" | tr 'A-Z' 'a-z')
    grep -q "^  coll_algorithm_$lower (state) = none" "$out" || fail "no state variable for $lower"
done
grep -q '^  COREMPI_EAGER_MAX = 8k ' "$out" || fail "COREMPI_EAGER_MAX does not show the environment's 8k"
grep -q '^  COREMPI_ALLREDUCE = ring ' "$out" || fail "COREMPI_ALLREDUCE does not show ring"
grep -q '^  COREMPI_CHECK = 0  (writable' "$out" || fail "COREMPI_CHECK is not shown writable with 0"
for v in p2p_msgs_same_level p2p_bytes_across_level p2p_unexpected_length p2p_unexpected_max; do
    grep -q "^  $v (.*) = 0$" "$out" || fail "no value for $v"
done
grep -q '^  p2p_peer_msgs .*needs MPI_Init' "$out" || fail "p2p_peer_msgs without MPI_Init not explained"
for cat in p2p collectives launch/topology profiling; do
    grep -q "^$cat: " "$out" || fail "no category $cat"
done

"$build/bin/mpirun" -n 2 "$tool" --init >"$out" 2>"$err" || fail "mpirun -n 2 mpit_list --init failed: $(cat "$err")"
for r in 0 1; do
    grep -q "^== rank $r of 2 ==" "$out" || fail "rank $r printed nothing"
done
[ "$(grep -c '^  p2p_peer_msgs (counter, per rank of a communicator) = 0 0$' "$out")" = 2 ] ||
    fail "p2p_peer_msgs for MPI_COMM_WORLD not printed by both ranks"

if "$tool" --bogus >"$out" 2>"$err"; then fail "--bogus accepted"; fi
grep -q 'unknown option --bogus' "$err" || fail "--bogus refused without naming it"
echo "mpit_list.sh: ok"
