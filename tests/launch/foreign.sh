#!/bin/sh
# A program built with another MPI (its ELF NEEDED names libmpi.so.40, libmpich.so.12
# ...) is refused in one line saying what to do, before anything starts; it would
# otherwise run as N silent singletons.  Scripts and non-MPI programs run as before.
# Needs CC; uses mpicc.openmpi / mpicc.mpich when installed.
. "$(dirname "$0")/lib.sh"
: "${CC:=cc}"
# A synthetic foreign program: linked against a dummy library whose soname is Open MPI's.
printf 'int MPI_Init(int *c, char ***v) { (void)c; (void)v; return 0; }\n' >"$T/dummy.c"
printf 'int MPI_Init(int *, char ***);\nint main(int c, char **v) { MPI_Init(&c, &v); return 0; }\n' >"$T/app.c"
"$CC" -shared -fPIC -Wl,-soname,libmpi.so.40 -o "$T/libmpi.so.40" "$T/dummy.c" || fail "cannot build the dummy libmpi.so.40"
"$CC" -o "$T/app" "$T/app.c" "$T/libmpi.so.40" -Wl,-rpath,"$T" || fail "cannot link against the dummy"
run synth -n 2 "$T/app"; expect_rc 126 "a program linked with libmpi.so.40"
expect_err synth "mpirun: $T/app is linked with Open MPI's libmpi.so.40, not corempi: rebuild it with .*/mpicc"
[ "$(err_lines synth)" -eq 1 ] || fail "synth: expected one line"
# The same for MPICH's soname, and in the second context of an MPMD line.
"$CC" -shared -fPIC -Wl,-soname,libmpich.so.12 -o "$T/libmpich.so.12" "$T/dummy.c" || fail "dummy libmpich"
"$CC" -o "$T/app2" "$T/app.c" "$T/libmpich.so.12" -Wl,-rpath,"$T" || fail "link against libmpich"
run mpmd -n 1 true : -n 1 "$T/app2"; expect_rc 126 "MPMD with an MPICH program"
expect_err mpmd "is linked with MPICH's libmpich.so.12, not corempi"
# Not refused: a script, a system tool, a program of no MPI.
printf '#!/bin/sh\necho script ran\n' >"$T/s.sh"; chmod +x "$T/s.sh"
run script -n 2 "$T/s.sh"; expect_rc 0 "a shell script"; [ "$(grep -c "script ran" "$T/script.out")" -eq 2 ] || fail "script"
run host -n 2 hostname; expect_rc 0 "hostname"; [ "$(err_lines host)" -eq 0 ] || fail "hostname: stderr not empty"
# Garbage that claims to be ELF is started (and fails as exec fails), never a crash.
printf '\177ELF\002\001\001garbage' >"$T/bad"; chmod +x "$T/bad"
run bad -n 1 "$T/bad"; [ "$RC" -ne 0 ] && ! grep -q "linked with" "$T/bad.err" || fail "a broken ELF: status $RC"
# Real builds by the peers' mpicc, when installed.
for peer in openmpi:libmpi.so.40 mpich:libmpi; do
    cc=mpicc.${peer%%:*}
    command -v "$cc" >/dev/null 2>&1 || { echo "($cc not installed: skipped)"; continue; }
    "$cc" -o "$T/peer" "$T/app.c" 2>"$T/cc.err" || fail "$cc cannot build"
    run peer -n 2 "$T/peer"; expect_rc 126 "a program built by $cc"
    expect_err peer "is linked with .*${peer#*:}.*, not corempi"
done
shm_unchanged
echo PASS
