#!/bin/sh
# wrong_flavour.sh BUILD SRC -- every libcoreprof flavour preloaded under an
# MPI it was not built for (corempi, Open MPI, MPICH: every pair whose two
# sides are installed) ends the job fast with one line naming the right
# library, and no rank crashes.  Skipped (77) without a peer MPI.
set -u
bin=$(cd "$1/bin" && pwd) lib=$(cd "$1/lib" && pwd)
hello=$(cd "$2/examples" && pwd)/hello.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT INT TERM
# The MPIs present, each with a hello of its own.
mpis=corempi
"$bin/mpicc" -o "$tmp/hello_corempi" "$hello" || { echo "FAIL: mpicc" >&2; exit 1; }
for m in openmpi mpich; do
    command -v mpicc.$m >/dev/null && command -v mpirun.$m >/dev/null && [ -e "$lib/libcoreprof-$m.so" ] || continue
    mpicc.$m -o "$tmp/hello_$m" "$hello" && mpis="$mpis $m"
done
[ "$mpis" = corempi ] && { echo "wrong_flavour.sh: no Open MPI/MPICH with its libcoreprof flavour: skipped"; exit 77; }

flavour_lib() { case $1 in corempi) echo "$lib/libcoreprof.so" ;; *) echo "$lib/libcoreprof-$1.so" ;; esac; }
want_name() { case $1 in corempi) echo "libcoreprof.so" ;; *) echo "libcoreprof-$1.so" ;; esac; }
run() { # MPI PRELOAD: run hello on 2 ranks of MPI with PRELOAD
    case $1 in
    corempi) LD_PRELOAD=$2 timeout 60 "$bin/mpirun" -n 2 "$tmp/hello_corempi" ;;
    openmpi) timeout 60 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 -x LD_PRELOAD="$2" "$tmp/hello_openmpi" ;;
    mpich) timeout 60 mpirun.mpich -n 2 -genv LD_PRELOAD "$2" "$tmp/hello_mpich" ;;
    esac
}
fail=0
for m in $mpis; do
    for f in $mpis; do
        [ "$m" = "$f" ] && continue
        out=$(run "$m" "$(flavour_lib "$f")" 2>&1); rc=$?
        lines=$(printf '%s\n' "$out" | grep -c '^coreprof: this program runs on')
        if [ $rc -eq 124 ]; then
            echo "FAIL: $f's flavour under $m: hangs" >&2; fail=1
        elif [ $rc -eq 0 ]; then
            echo "FAIL: $f's flavour under $m: exit status 0" >&2; fail=1
        elif [ "$lines" -ne 1 ]; then
            echo "FAIL: $f's flavour under $m: $lines coreprof lines, want 1:" >&2; printf '%s\n' "$out" >&2; fail=1
        elif ! printf '%s\n' "$out" | grep -q "preload $(want_name "$m") instead"; then
            echo "FAIL: $f's flavour under $m does not name $(want_name "$m"):" >&2; printf '%s\n' "$out" >&2; fail=1
        elif printf '%s\n' "$out" | grep -qiE 'segmentation|signal 11|invalid communicator'; then
            echo "FAIL: $f's flavour under $m: a rank crashed:" >&2; printf '%s\n' "$out" >&2; fail=1
        else
            echo "ok: $f's flavour under $m: $(printf '%s\n' "$out" | grep '^coreprof:')"
        fi
    done
done
exit $fail
