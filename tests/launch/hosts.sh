#!/bin/sh
# -H/--host and --hostfile/-f/--machinefile: this machine under any of its
# names, with slots that size the job when -n is not given; any other host
# is one clear line saying corempi runs on one node.
. "$(dirname "$0")/lib.sh"
me=$(hostname)
count() { grep -c "^rank=" "$T/$1.out"; }
run h1 -H localhost "$HELPERS/rank_env"; expect_rc 0 "-H localhost"; [ "$(count h1)" -eq 1 ] || fail "h1: 1 rank"
run h3 --host "localhost:2,127.0.0.1" "$HELPERS/rank_env"; expect_rc 0 "--host list"
[ "$(count h3)" -eq 3 ] || fail "h3: expected 3 ranks (2 + 1 slots)"
run hn -H "$me:2" "$HELPERS/rank_env"; expect_rc 0 "-H hostname:2"; [ "$(count hn)" -eq 2 ] || fail "hn: 2 ranks"
run hx -H localhost:4 -n 1 "$HELPERS/rank_env"; expect_rc 0 "-n wins"; [ "$(count hx)" -eq 1 ] || fail "hx: -n 1"
printf '# this machine\nlocalhost slots=2   # two\n\n%s max_slots=8\n' "$me" >"$T/hf"
for opt in --hostfile -f --machinefile; do
    run hf "$opt" "$T/hf" "$HELPERS/rank_env"; expect_rc 0 "$opt"
    [ "$(count hf)" -eq 3 ] || fail "$opt: expected 3 ranks (2 + 1 slots)"
done
run other -H localhost,node-elsewhere:4 -n 2 "$HELPERS/rank_env"; expect_rc 2 "another host"
expect_err other "host 'node-elsewhere' is not this machine"
expect_err other "corempi runs a job on one node"
expect_err other "Open MPI's or MPICH's mpicc"
[ "$(err_lines other)" -eq 1 ] || fail "other: expected one line"
[ -s "$T/other.out" ] && fail "other: a rank started"
printf 'localhost\nfaraway slots=4\n' >"$T/hf2"
run other2 --hostfile "$T/hf2" true; expect_rc 2 "hostfile with another host"; expect_err other2 "line 2: host 'faraway'"
run slots -H localhost:zero true; expect_rc 2 "bad slots"; expect_err slots "bad slot count"
printf 'localhost slots=x\n' >"$T/hf3"
run slots2 --hostfile "$T/hf3" true; expect_rc 2 "bad slots="; expect_err slots2 "bad 'slots=x'"
run nofile --hostfile "$T/none" true; expect_rc 2 "missing hostfile"; expect_err nofile "No such file"
shm_unchanged
echo PASS
