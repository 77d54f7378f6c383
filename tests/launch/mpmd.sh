#!/bin/sh
# MPMD: "mpirun -n 1 a : -n 2 b": one MPI_COMM_WORLD with the contexts'
# ranks in order, each context's own program, arguments, -x/-env/-wdir, and
# MPI_APPNUM = the context's index; -configfile; the mistakes.
. "$(dirname "$0")/lib.sh"
app="$HELPERS/mpi_app"
run mpmd -n 1 "$app" appnum first : -n 2 -x CM_T=b "$app" appnum second : -np 1 "$app" appnum third
expect_rc 0 "three contexts"
expect_out mpmd "^appnum 0/4 0 first$"
expect_out mpmd "^appnum 1/4 1 second$"
expect_out mpmd "^appnum 2/4 1 second$"
expect_out mpmd "^appnum 3/4 2 third$"
[ "$(grep -c '^appnum' "$T/mpmd.out")" -eq 4 ] || fail "mpmd: expected 4 ranks"
run one -n 2 "$app" appnum; expect_rc 0 "one context"; expect_out one "^appnum 1/2 0$"

# Per-context environment and directory; -genv for all.
mkdir "$T/w"
run env -genv CM_G all -n 1 -x CM_X=one "$HELPERS/rank_env" CM_G CM_X CM_Y : \
    -n 1 -env CM_Y two -wdir "$T/w" sh -c 'echo "rank=$COREMPI_RANK size=$COREMPI_SIZE app=$COREMPI_APPNUM CM_G=$CM_G CM_X=${CM_X:-(unset)} CM_Y=$CM_Y pwd=$PWD"'
expect_rc 0 "env per context"
grep "^rank=0 " "$T/env.out" | grep -q "size=2 .*CM_G=all CM_X=one CM_Y=(unset)" || fail "context 0 env"
expect_out env "^rank=1 size=2 app=1 CM_G=all CM_X=(unset) CM_Y=two pwd=$T/w$"

# -configfile: one context per line.
printf '# two contexts\n-n 2 %s appnum from \\\n  file\n\n-n 1 %s appnum second  # line\n' "$app" "$app" >"$T/cfg"
run cfg -configfile "$T/cfg"; expect_rc 0 "-configfile"
expect_out cfg "^appnum 1/3 0 from file$"; expect_out cfg "^appnum 2/3 1 second$"

# The mistakes: one clear line each, nothing started.
run trail -n 1 "$app" hello :; expect_rc 2 "trailing ':'"; expect_err trail "no program after the last ':'"
run lead : -n 1 "$app" hello; expect_rc 2 "leading ':'"; expect_err lead "':' with no program before it"
run non -n 1 "$app" hello : "$app" hello; expect_rc 2 "context without -n"; expect_err non "context 1 .* has no -n"
run miss -n 1 "$app" hello : -n 1 ./no-such-prog; expect_rc 127 "missing second program"
expect_err miss "no-such-prog: program not found"
[ -s "$T/miss.out" ] && fail "miss: a rank started"
run cfgmiss -configfile "$T/nofile"; expect_rc 2 "missing configfile"; expect_err cfgmiss "No such file"
shm_unchanged
echo PASS
