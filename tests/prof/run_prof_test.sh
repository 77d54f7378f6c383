#!/bin/sh
# run_prof_test.sh FLAVOUR MODE NP PROGRAM CHECKER PRELOAD_LIB MPIRUN [COREPROF]
# Runs PROGRAM under MPIRUN with libcoreprof preloaded, then checks the traces.
# MODE fold also checks what `coreprof report` makes of the folded polls; MODE
# summary runs PROGRAM twice (1x and 10x longer) with COREPROF_MODE=summary and
# checks that the files do not grow and that the report counts every call.
# Exit 77 (ctest: skipped) when the MPI of FLAVOUR cannot run a job here.
flavour=$1 mode=$2 np=$3 prog=$4 checker=$5 lib=$6 mpirun=$7 coreprof=${8:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-rec-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export COREPROF_QUIET=1
kb=1024
[ "$mode" = killed ] && kb=4
[ "$mode" = thread_multiple ] && kb=16     # ~340 records a half: every thread hands over halves

if [ "$flavour" = corempi ]; then
  # corempi's own launcher; skip while it cannot run a job yet.
  if [ ! -x "$mpirun" ] || ! timeout 20 "$mpirun" -n 1 /bin/true >/dev/null 2>&1 ||
     [ ! -x "$prog" ] || [ ! -f "$lib" ] || ldd "$prog" | grep -q "not found"; then
    echo "corempi's mpirun, library or the test program is not usable yet: skipped"; exit 77
  fi
fi

# corempi grants MPI_THREAD_MULTIPLE only when asked (docs/threads.md)
[ "$mode" = thread_multiple ] && export COREMPI_THREAD_MULTIPLE=1

# run_job DIR COREPROF_MODE ARGS...: the program under the flavour's launcher
run_job() {
  dir=$1 cmode=$2; shift 2
  case $flavour in
  openmpi)
    set -- "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
           -x LD_PRELOAD="$lib" -x COREPROF_DIR="$dir" -x COREPROF_BUFFER_KB=$kb -x COREPROF_QUIET \
           -x COREPROF_MODE="$cmode" "$prog" "$@" ;;
  mpich)
    set -- "$mpirun" -np "$np" -genv LD_PRELOAD "$lib" -genv COREPROF_DIR "$dir" \
           -genv COREPROF_BUFFER_KB $kb -genv COREPROF_QUIET 1 -genv COREPROF_MODE "$cmode" "$prog" "$@" ;;
  corempi)
    if "$mpirun" --help 2>&1 | grep -q -- --profile; then
      set -- env COREPROF_BUFFER_KB=$kb COREPROF_MODE="$cmode" "$mpirun" -n "$np" --profile="$dir" "$prog" "$@"
    else
      set -- env LD_PRELOAD="$lib" COREPROF_DIR="$dir" COREPROF_BUFFER_KB=$kb COREPROF_MODE="$cmode" \
             "$mpirun" -n "$np" "$prog" "$@"
    fi ;;
  *) echo "unknown flavour $flavour"; exit 2 ;;
  esac
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
}

# report_calls DIR CALL: the Calls column of CALL in `coreprof report`'s summary
report_calls() {
  "$coreprof" report "$1" --summary-only --no-progress -o "$tmp/rep" >"$tmp/rep.txt" 2>"$tmp/rep.err" ||
    { echo "FAIL: coreprof report exited $?"; cat "$tmp/rep.err"; exit 1; }
  awk -v c="$2" '$1 == c { print $2; exit }' "$tmp/rep.txt"
}

expect_calls() {   # DIR CALL N
  got=$(report_calls "$1" "$2")
  [ "$got" = "$3" ] || { echo "FAIL: report shows ${got:-no} $2 calls, expected $3"; cat "$tmp/rep.txt"; exit 1; }
  echo "ok: report shows $3 $2 calls"
}

if [ "$mode" = summary ]; then
  [ -n "$coreprof" ] || { echo "summary mode needs the coreprof binary"; exit 2; }
  for scale in 2000 20000; do
    run_job "$tmp/s$scale" summary "$scale" || { echo "FAIL: the job (scale $scale) exited $?"; cat "$tmp/err"; exit 1; }
    [ -s "$tmp/s$scale/0.cpt" ] || { echo "FAIL: no summary file"; cat "$tmp/err"; exit 1; }
  done
  for r in $(seq 0 $((np - 1))); do
    a=$(stat -c %s "$tmp/s2000/$r.cpt") b=$(stat -c %s "$tmp/s20000/$r.cpt")
    [ "$a" -eq "$b" ] || { echo "FAIL: rank $r: summary file of $a bytes at 1x, $b bytes at 10x the calls"; exit 1; }
    [ "$a" -lt 200000 ] || { echo "FAIL: rank $r: summary file of $a bytes"; exit 1; }
  done
  echo "ok: summary files of the same size at 1x and 10x ($(stat -c %s "$tmp/s2000/0.cpt") bytes for rank 0)"
  expect_calls "$tmp/s20000" MPI_Testall $((10000 * np))
  expect_calls "$tmp/s20000" MPI_Test $((4000 * np))
  grep -q "statistics only" "$tmp/rep.txt" || { echo "FAIL: the report does not say statistics only"; exit 1; }
  got=$(report_calls "$tmp/s2000" MPI_Iprobe)
  [ "${got:-0}" -ge $((2033 * np)) ] || { echo "FAIL: ${got:-no} MPI_Iprobe calls at 1x"; exit 1; }
  echo "ok: $got MPI_Iprobe calls at 1x"
  exit 0
fi

dir=$tmp/trace
run_job "$dir" trace
rc=$?
cat "$tmp/out"
if [ "$mode" = killed ] || [ "$mode" = segv ]; then
  [ $rc -ne 0 ] || { echo "FAIL: the job with a killed rank exited 0"; cat "$tmp/err"; exit 1; }
elif [ $rc -ne 0 ]; then
  echo "FAIL: the job exited with $rc"; cat "$tmp/err"; exit 1
fi
if [ "$mode" = thread_multiple ]; then
  grep -q "multiple=1" "$tmp/out" || { echo "this MPI does not provide THREAD_MULTIPLE: nothing to check"; exit 77; }
  ! grep -q "coreprof: warning" "$tmp/err" || { echo "FAIL: coreprof warned"; cat "$tmp/err"; exit 1; }
fi
"$checker" "$mode" "$dir" "$np" > "$tmp/check" || { cat "$tmp/check"; exit 1; }
cat "$tmp/check"
if [ "$mode" = thread_multiple ] && [ -n "$coreprof" ]; then
  # thread_multiple.c: 2 ranks x 3 threads x 4000 iterations (every 4th with an allreduce)
  expect_calls "$dir" MPI_Send $((np * 3 * 4000))
  expect_calls "$dir" MPI_Recv $((np * 3 * 4000))
  expect_calls "$dir" MPI_Allreduce $((np * 3 * 1000))
fi
if [ "$mode" = fold ] && [ -n "$coreprof" ]; then
  expect_calls "$dir" MPI_Testall $((50000 * np))
  expect_calls "$dir" MPI_Test $((20000 * np))
  expect_calls "$dir" MPI_Iprobe "$(sed -n 's/^iprobe_calls=//p' "$tmp/check")"
fi
