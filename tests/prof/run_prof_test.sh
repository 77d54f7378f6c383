#!/bin/sh
# run_prof_test.sh FLAVOUR MODE NP PROGRAM CHECKER PRELOAD_LIB MPIRUN
# Runs PROGRAM under MPIRUN with libcoreprof preloaded, then checks the traces.
# Exit 77 (ctest: skipped) when the MPI of FLAVOUR cannot run a job here.
flavour=$1 mode=$2 np=$3 prog=$4 checker=$5 lib=$6 mpirun=$7
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-rec-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
dir=$tmp/trace
export COREPROF_QUIET=1
kb=1024
[ "$mode" = killed ] && kb=4

case $flavour in
openmpi)
  set -- "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
         -x LD_PRELOAD="$lib" -x COREPROF_DIR="$dir" -x COREPROF_BUFFER_KB=$kb -x COREPROF_QUIET "$prog" ;;
mpich)
  set -- "$mpirun" -np "$np" -genv LD_PRELOAD "$lib" -genv COREPROF_DIR "$dir" \
         -genv COREPROF_BUFFER_KB $kb -genv COREPROF_QUIET 1 "$prog" ;;
corempi)
  # corempi's own launcher; skip while it cannot run a job yet.
  if [ ! -x "$mpirun" ] || ! timeout 20 "$mpirun" -n 1 /bin/true >/dev/null 2>&1 ||
     [ ! -x "$prog" ] || [ ! -f "$lib" ] || ldd "$prog" | grep -q "not found"; then
    echo "corempi's mpirun, library or the test program is not usable yet: skipped"; exit 77
  fi
  if "$mpirun" --help 2>&1 | grep -q -- --profile; then
    set -- env COREPROF_BUFFER_KB=$kb "$mpirun" -n "$np" --profile="$dir" "$prog"
  else
    set -- env LD_PRELOAD="$lib" COREPROF_DIR="$dir" COREPROF_BUFFER_KB=$kb "$mpirun" -n "$np" "$prog"
  fi ;;
*) echo "unknown flavour $flavour"; exit 2 ;;
esac

timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if [ "$mode" = killed ] || [ "$mode" = segv ]; then
  [ $rc -ne 0 ] || { echo "FAIL: the job with a killed rank exited 0"; cat "$tmp/err"; exit 1; }
elif [ $rc -ne 0 ]; then
  echo "FAIL: the job exited with $rc"; cat "$tmp/err"; exit 1
fi
if [ "$mode" = thread_multiple ]; then
  n=$(grep -c "coreprof: warning: MPI_THREAD_MULTIPLE" "$tmp/err")
  if grep -q "multiple=1" "$tmp/out"; then
    [ "$n" -eq 1 ] || { echo "FAIL: expected one THREAD_MULTIPLE warning line, got $n"; cat "$tmp/err"; exit 1; }
  else
    echo "this MPI does not provide THREAD_MULTIPLE: nothing to check"; exit 77
  fi
fi
"$checker" "$mode" "$dir" "$np"
