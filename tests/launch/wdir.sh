#!/bin/sh
# -wdir / --wdir / --wd DIR: ranks start in DIR (a relative program still
# means mpirun's directory); -gwdir for every context; a missing DIR is one
# clear line before anything starts.
. "$(dirname "$0")/lib.sh"
mkdir "$T/d1" "$T/d2"
for opt in -wdir --wdir --wd; do
    run w -n 2 "$opt" "$T/d1" pwd; expect_rc 0 "$opt"
    [ "$(grep -c "^$T/d1\$" "$T/w.out")" -eq 2 ] || fail "$opt: ranks not in $T/d1"
done
run inl -n 1 --wdir="$T/d2" pwd; expect_rc 0 "--wdir="; expect_out inl "^$T/d2\$"
# A relative program path is resolved where mpirun runs, not in DIR.
cp "$HELPERS/rank_env" "$T/prog"
(cd "$T" && "$MPIRUN" -n 1 -wdir "$T/d1" ./prog >"$T/rel.out" 2>"$T/rel.err") || fail "relative program with -wdir"
grep -q "^rank=0 " "$T/rel.out" || fail "relative program did not run"
# Per context, and -gwdir as every context's default.
run ctx -gwdir "$T/d2" -n 1 sh -c 'echo "a $PWD"' : -n 1 -wdir "$T/d1" sh -c 'echo "b $PWD"'; expect_rc 0 "-gwdir"
expect_out ctx "^a $T/d2\$"; expect_out ctx "^b $T/d1\$"
# Errors: before launch, one line, status 2.
run missing -n 2 -wdir "$T/nope" sh -c 'echo started'; expect_rc 2 "missing -wdir"
expect_err missing "mpirun: -wdir $T/nope: No such file or directory"
[ "$(err_lines missing)" -eq 1 ] || fail "missing: expected one line"
grep -q started "$T/missing.out" && fail "a rank started despite a missing -wdir"
run file -n 1 -wdir "$T/prog" true; expect_rc 2 "-wdir on a file"; expect_err file "not a directory"
run nodir -n 1 -wdir; expect_rc 2 "-wdir without value"; expect_err nodir "needs a directory"
shm_unchanged
echo PASS
