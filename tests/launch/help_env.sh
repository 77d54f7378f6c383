#!/bin/sh
# mpirun --help-env (and mpiexec's) lists every user variable of
# src/core/config.def with its default, and none of the internal ones.
. "$(dirname "$0")/lib.sh"
def="$(dirname "$0")/../../src/core/config.def"

run env --help-env; expect_rc 0 "--help-env"
[ -s "$T/env.err" ] && fail "env: --help-env wrote to stderr"
expect_out env "COREMPI_EAGER_MAX  *size  *default 16384; bytes"
expect_out env "COREMPI_<COLL>"
rows=0
for row in $(sed -n 's/^CM_CONFIG(\([^,]*\), *[A-Z]*, *\([A-Z]*\),.*/\1:\2/p' "$def"); do
    name=${row%:*}
    rows=$((rows + 1))
    if [ "${row#*:}" = INTERNAL ]; then
        grep -q "^  $name " "$T/env.out" && fail "env: lists the internal $name"
    else
        grep -q "^  $name " "$T/env.out" || fail "env: lacks $name"
    fi
done
[ "$rows" -gt 30 ] || fail "read only $rows rows of $def"

# mpiexec is the same program.
mpiexec="$(dirname "$MPIRUN")/mpiexec"
"$mpiexec" --help-env >"$T/exec.out" 2>&1 || fail "mpiexec --help-env: exit status $?"
cmp -s "$T/env.out" "$T/exec.out" || fail "mpiexec --help-env differs from mpirun's"

run help --help; expect_rc 0 "--help"; expect_out help "--help-env"
echo PASS
