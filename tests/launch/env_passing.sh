#!/bin/sh
# What each rank receives: rank, size, the segment's memfd (inherited, not
# close-on-exec), its own pid in its control block, and -x / -genv variables.
. "$(dirname "$0")/lib.sh"

CM_TEST_FROM_MPIRUN=inherited
export CM_TEST_FROM_MPIRUN
run env -n 3 -x CM_TEST_A=alpha -x CM_TEST_FROM_MPIRUN --genv CM_TEST_B "two words" -x CM_TEST_C=x=y \
    "$HELPERS/rank_env" CM_TEST_A CM_TEST_B CM_TEST_C CM_TEST_FROM_MPIRUN
expect_rc 0 "rank_env"
# The segment has a slot per process of the universe: by default the larger of 64 and the cores.
slots=$(nproc); [ "$slots" -lt 64 ] && slots=64
for r in 0 1 2; do
    line=$(grep "^rank=$r " "$T/env.out") || fail "no line from rank $r"
    for want in "size=3" "fd=memfd" "nranks=$slots" "launcher_ok=1" "ctl_pid_ok=1" \
                "CM_TEST_A=alpha" "CM_TEST_B=two words" "CM_TEST_C=x=y" "CM_TEST_FROM_MPIRUN=inherited"; do
        case "$line" in *"$want"*) ;; *) fail "rank $r: '$want' missing in: $line" ;; esac
    done
done

# mpiexec is the same program; -np is -n.
MPIEXEC="$(dirname "$MPIRUN")/mpiexec"
"$MPIEXEC" -np 2 "$HELPERS/rank_env" >"$T/exec.out" 2>"$T/exec.err" || fail "mpiexec failed"
[ "$(grep -c 'size=2' "$T/exec.out")" -eq 2 ] || fail "mpiexec -np 2: expected two ranks"

# Only rank 0 reads mpirun's stdin.
echo "input-line" | "$MPIRUN" -n 2 sh -c 'read x || x=none; echo "$COREMPI_RANK:$x"' >"$T/stdin.out" 2>&1
grep -q "^0:input-line$" "$T/stdin.out" || fail "rank 0 did not get stdin"
grep -q "^1:none$" "$T/stdin.out" || fail "rank 1 should read /dev/null"

# Accepted-and-ignored habits of other launchers.
run habits --oversubscribe --allow-run-as-root -n 1 /bin/true
expect_rc 0 "--oversubscribe --allow-run-as-root"
shm_unchanged
echo PASS
