#!/bin/sh
# A real MPI run under libcoreprof (corempi, Open MPI or MPICH), then coreprof
# report: the ring of test_report_ring.c must give exactly its matrix, 80
# matched messages with arrows inside their slices, call sites in the source,
# and OTF2 that reads back; test_report_comms.c (split and dup communicators)
# exactly its matrices and 15 matched messages.  Skips (77) when that MPI or its libcoreprof flavour
# is not built/installed.
# usage: test_report_mpi_ring.sh corempi|openmpi|mpich BUILDDIR SRCDIR
set -u
FLAVOUR=$1 BUILD=$2 SRC=$3
COREPROF=$BUILD/bin/coreprof
case $FLAVOUR in
    openmpi) CC=mpicc.openmpi; RUN=mpirun.openmpi; LIB=$BUILD/lib/libcoreprof-openmpi.so ;;
    mpich)   CC=mpicc.mpich;   RUN=mpirun.mpich;   LIB=$BUILD/lib/libcoreprof-mpich.so ;;
    corempi) CC=$BUILD/bin/mpicc; RUN=$BUILD/bin/mpirun; LIB=$BUILD/lib/libcoreprof.so ;;
    *) echo "unknown flavour $FLAVOUR"; exit 2 ;;
esac
for x in "$CC" "$RUN"; do
    command -v "$x" > /dev/null 2>&1 || { echo "SKIP: $x not found"; exit 77; }
done
[ -f "$LIB" ] || { echo "SKIP: $LIB not built"; exit 77; }
T=$(mktemp -d /tmp/coreprof-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

"$CC" -g -O1 "$SRC/test_report_ring.c" -o "$T/ring" || { echo "SKIP: $CC cannot build the ring"; exit 77; }
export COREPROF_DIR=$T/tr COREPROF_QUIET=1
case $FLAVOUR in
    openmpi) timeout 120 "$RUN" --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$LIB" -x COREPROF_DIR -x COREPROF_QUIET "$T/ring" ;;
    mpich)   timeout 120 "$RUN" -np 4 -genv LD_PRELOAD "$LIB" "$T/ring" ;;
    corempi) LD_PRELOAD="$LIB" timeout 120 "$RUN" -n 4 "$T/ring" ;;
esac
rc=$?
[ $rc -eq 0 ] || { echo "SKIP: the $FLAVOUR run failed (exit $rc): not a coreprof report problem"; exit 77; }
# no trace at all is libcoreprof's problem (e.g. a flavour that exports no MPI_* wrappers), not the report's
ls "$T/tr"/*.cpt > /dev/null 2>&1 || { echo "SKIP: $LIB wrote no trace files (does it export MPI_* symbols? nm -D)"; exit 77; }

"$COREPROF" report "$T/tr" > "$T/out" 2> "$T/err" || { cat "$T/err"; fail "coreprof report exited $?"; }
R=$T/tr/report
python3 - "$R" <<'PY' || exit 1
import csv, sys
R = sys.argv[1]
b = [[int(x) for x in r[1:]] for r in list(csv.reader(open(f"{R}/matrix_p2p_bytes.csv")))[1:]]
c = [[int(x) for x in r[1:]] for r in list(csv.reader(open(f"{R}/matrix_p2p_count.csv")))[1:]]
n = len(b)
assert n == 4, n
for i in range(n):
    for j in range(n):
        ring = j == (i + 1) % n
        if b[i][j] != (20 * 100 * (i + 1) if ring else 0) or c[i][j] != (20 if ring else 0):
            print(f"FAIL: [{i}][{j}] = {b[i][j]} B in {c[i][j]} messages")
            sys.exit(1)
print("ok: ring matrix exact")
PY
grep -q "matched point-to-point messages : 80" "$R/summary.txt" || { cat "$R/summary.txt"; fail "expected 80 matched messages"; }
grep -q "receives without a matching send: 0" "$R/summary.txt" || fail "unmatched receives"
grep -q "test_report_ring.c:[0-9]* (round_nonblocking)" "$R/summary.txt" || fail "call sites not resolved"
grep -q "trace incomplete" "$R/summary.txt" && fail "trace reported incomplete"
# no --causal: clock offsets between processes are measured, not exact
python3 "$SRC/test_report_check_timeline.py" "$R/timeline.json" --flows 80 --ranks 4 || fail timeline
if command -v otf2-print > /dev/null 2>&1; then
    otf2-print "$R/trace.otf2/traces.otf2" > "$T/otf2.txt" 2>&1 || fail "otf2-print"
    [ "$(grep -c '^MPI_SEND ' "$T/otf2.txt")" -eq 80 ] || fail "OTF2: expected 80 MPI_SEND"
    [ "$(grep -c '^MPI_RECV ' "$T/otf2.txt")" -eq 80 ] || fail "OTF2: expected 80 MPI_RECV"
fi
echo "ok: $FLAVOUR ring"

# derived communicators
"$CC" -g -O1 "$SRC/test_report_comms.c" -o "$T/comms" || fail "$CC cannot build test_report_comms.c"
export COREPROF_DIR=$T/tc
case $FLAVOUR in
    openmpi) timeout 120 "$RUN" --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$LIB" -x COREPROF_DIR -x COREPROF_QUIET "$T/comms" ;;
    mpich)   timeout 120 "$RUN" -np 4 -genv LD_PRELOAD "$LIB" "$T/comms" ;;
    corempi) LD_PRELOAD="$LIB" timeout 120 "$RUN" -n 4 "$T/comms" ;;
esac
[ $? -eq 0 ] || { echo "SKIP: the $FLAVOUR run of test_report_comms failed: not a coreprof report problem"; exit 77; }
"$COREPROF" report "$T/tc" > /dev/null 2> "$T/err" || { cat "$T/err"; fail "coreprof report (comms) exited $?"; }
python3 - "$T/tc/report" <<'PY' || exit 1
import csv, sys
R = sys.argv[1]
def load(name):
    return [[int(x) for x in r[1:]] for r in list(csv.reader(open(f"{R}/{name}")))[1:]]
p2p, coll = load("matrix_p2p_bytes.csv"), load("matrix_coll_bytes.csv")
want_p2p = {(0, 2): 50, (1, 3): 50, (0, 3): 385}
want_coll = {(0, 2): 100, (1, 3): 100}
for i in range(4):
    for j in range(4):
        if p2p[i][j] != want_p2p.get((i, j), 0) or coll[i][j] != want_coll.get((i, j), 0):
            print(f"FAIL: comms [{i}][{j}]: p2p {p2p[i][j]} coll {coll[i][j]}")
            sys.exit(1)
print("ok: derived-communicator matrices exact")
PY
grep -q "matched point-to-point messages : 15" "$T/tc/report/summary.txt" || { cat "$T/tc/report/summary.txt"; fail "comms: expected 15 matched messages"; }
python3 "$SRC/test_report_check_timeline.py" "$T/tc/report/timeline.json" --flows 15 --ranks 4 || fail "comms timeline"
echo "ok: $FLAVOUR derived communicators"
