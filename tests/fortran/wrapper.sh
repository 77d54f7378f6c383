#!/bin/sh
# wrapper.sh BUILD SRC -- mpifort and its aliases mpif77/mpif90 keep mpicc's
# conventions (tests/tools/wrapper.sh for the C ones):
#   - FC/F77/F90 naming the wrapper are ignored; COREMPI_FC naming mpifort
#     (path, PATH lookup, alias, a script running it again) is refused with
#     one line naming COREMPI_FC; another compiler in COREMPI_FC is used;
#   - -show/-showme, -compile_info/-showme:compile, -link_info/-showme:link,
#     -showme:libs (mpifort corempi), :incdirs (mpif.h, mpi.mod), rpath;
#   - --version is the compiler's;
#   - a fixed-form program with include 'mpif.h', a free-form one with use
#     mpi, one with include 'mpif.h' in free form, built and run at 2 ranks.
T=20
. "$(dirname "$0")/../tools/wrapper_lib.sh"

# 1. --version is the compiler's, also with FC/F77/F90 naming the wrapper.
comp=$(t "$b/mpifort" -showme:version | sed 's/.*compiler: //; s/)$//')
want=$(t $comp --version 2>&1 | head -1)
for w in mpifort mpif77 mpif90; do
    out=$(FC=$b/$w F77=$b/$w F90=$b/$w t "$b/$w" --version 2>&1 | head -1)
    [ "$out" = "$want" ] || say "$w --version is not the compiler's: $out"
done

# 2. A compiler that is the wrapper itself: refused, one line naming COREMPI_FC.
refused() { # WRAPPER VALUE...
    w=$1; shift
    out=$(cd "$tmp" && env "$@" timeout 10 "$w" -c x.f90 2>&1); rc=$?
    [ $rc -eq 124 ] && { say "$* $w: hangs"; return; }
    [ $rc -ne 0 ] || say "$* $w: accepted (rc 0)"
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || say "$* $w: not one line: $out"
    case "$out" in *COREMPI_FC*) ;; *) say "$* $w: message does not name COREMPI_FC: $out" ;; esac
}
printf '#!/bin/sh\nexec %s "$@"\n' "$b/mpifort" >"$tmp/fc-script"
chmod +x "$tmp/fc-script"
refused "$b/mpifort" COREMPI_FC="$b/mpifort"
refused "$b/mpifort" PATH="$b:$PATH" COREMPI_FC=mpif90
refused "$b/mpif77" COREMPI_FC="$b/mpifort"
refused "$b/mpifort" COREMPI_FC="$tmp/fc-script"
out=$(COREMPI_FC=gfortran t "$b/mpifort" -showme:version) || say "COREMPI_FC=gfortran refused"
case "$out" in *"compiler: gfortran"*) ;; *) say "COREMPI_FC=gfortran not used: $out" ;; esac
s=$(COREMPI_FC=gfortran t "$b/mpifort" -show x.f90)
case "$s" in "gfortran "*) ;; *) say "COREMPI_FC=gfortran: -show gives $s" ;; esac

# 3. The spellings.
. "$src/tests/tools/wrapper_spellings.sh"
for w in mpifort mpif77 mpif90; do
    spellings "$b/$w" a.f90 "mpifort corempi"
done
for d in $(t "$b/mpifort" -showme:incdirs); do
    [ -f "$d/mpif.h" ] && [ -f "$d/mpi.mod" ] || say "-showme:incdirs: no mpif.h/mpi.mod in $d"
done

# 4. Programs built by each name run (fixed form + mpif.h, free form + use mpi).
cd "$tmp"
t "$b/mpif77" -o dtype "$src/tests/fortran/f_dtype.f" 2>"$tmp/err" || say "mpif77 f_dtype.f: $(cat "$tmp/err")"
t "$b/mpif90" -o p2p "$src/tests/fortran/f_check.f90" "$src/tests/fortran/f_p2p.f90" || say "mpif90 f_p2p.f90 failed"
t "$b/mpifort" -c "$src/tests/fortran/f_check.f90" "$src/tests/fortran/f_comm.f90" &&
    t "$b/mpifort" -o comm f_check.o f_comm.o || say "mpifort -c then link failed"
for p in dtype p2p comm; do
    [ -x "$p" ] || continue
    out=$(t "$b/mpirun" -n 2 "./$p" 2>&1) || say "$p built by the wrapper fails: $out"
    echo "$out" | grep -q "errors *0" || say "$p: $out"
done
# mpif.h in a free-form program too
cat >free.f90 <<'F90'
program free_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, n
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  if (n == 2) print *, 'free-form mpif.h: errors 0'
  call MPI_FINALIZE(ierr)
end program free_mpif
F90
t "$b/mpifort" -o free free.f90 2>"$tmp/err" || say "free-form include 'mpif.h': $(cat "$tmp/err")"
[ -x free ] && { t "$b/mpirun" -n 2 ./free | grep -q "errors 0" || say "the free-form mpif.h program fails"; }
# the rpath: runs without LD_LIBRARY_PATH
[ -x p2p ] && { env -u LD_LIBRARY_PATH ./p2p | grep -q "errors *0" || say "p2p without LD_LIBRARY_PATH"; }

[ $fail -eq 0 ] && echo "fortran wrapper.sh: ok"
exit $fail
