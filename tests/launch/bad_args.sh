#!/bin/sh
# Usage errors and missing programs: one clear line, non-zero status, and
# nothing started.
. "$(dirname "$0")/lib.sh"

run n0 -n 0 /bin/true;        expect_rc 2 "-n 0";        expect_err n0 "mpirun: -n needs a positive number"
run nx -n many /bin/true;     expect_rc 2 "-n many";     expect_err nx "mpirun: -n needs a positive number"
run nmiss -n;                 expect_rc 2 "-n at end";   expect_err nmiss "needs a positive number"
run noprog -n 2;              expect_rc 2 "no program";  expect_err noprog "mpirun: no program given"
run unk --frobnicate -n 2 /bin/true; expect_rc 2 "unknown option"; expect_err unk "unknown option --frobnicate"
run map --map-by spiral -n 2 /bin/true; expect_rc 2 "bad policy"; expect_err map "unknown --map-by policy 'spiral'"
run bind --bind-to board -n 2 /bin/true; expect_rc 2 "bad bind"; expect_err bind "unknown --bind-to target 'board'"
run topo --topology "not a topology" -n 2 /bin/true; expect_rc 2 "bad topology"; expect_err topo "cannot use topology"
run help --help; expect_rc 0 "--help"; expect_out help "usage: mpirun"

run missing -n 2 ./no-such-program-here; expect_rc 127 "missing program"
expect_err missing "mpirun: ./no-such-program-here: program not found"
[ "$(err_lines missing)" -eq 1 ] || fail "missing: expected one line"
run missingpath -n 2 no-such-program-in-path; expect_rc 127 "missing program in PATH"

touch "$T/plain"
run noexec -n 2 "$T/plain"; expect_rc 126 "not executable"; expect_err noexec "not an executable file"
run dir -n 2 /tmp; expect_rc 126 "a directory"

# Executable bit but no valid format: the exec failure comes back as one line.
printf 'garbage' >"$T/badformat"; chmod +x "$T/badformat"
run badfmt -n 3 "$T/badformat"; expect_rc 126 "exec format error"
expect_err badfmt "cannot run .*badformat: Exec format error"
[ "$(err_lines badfmt)" -eq 1 ] || fail "badfmt: expected one line"
shm_unchanged
echo PASS
