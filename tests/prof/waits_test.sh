#!/bin/sh
# coreprof report's wait analysis (waits.txt) on late_sender.c at 3 ranks:
# rank 1 is named first (rank 0 waited ~600 ms for it), rank 0's late-sender
# wait is at least 500 ms, rank 2 waits >= 200 ms for rank 1 at the barrier,
# and rank 1 is the most loaded before it.
# usage: waits_test.sh MPIRUN PROGRAM COREPROF
set -u
MPIRUN=$1 PROG=$2 COREPROF=$3
T=$(mktemp -d /tmp/cm-waits.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$T/report/waits.txt" >&2 2>/dev/null; exit 1; }
"$MPIRUN" -n 3 --profile="$T/trace" "$PROG" >/dev/null 2>&1 || fail "the profiled run failed"
"$COREPROF" report "$T/trace" -o "$T/report" --no-progress --no-otf2 >/dev/null 2>&1 || fail "coreprof report failed"
W="$T/report/waits.txt"
[ -s "$W" ] || fail "no waits.txt"
grep -q "^Slowest rank: 1 " "$W" || fail "rank 1 is not named first"
# rank 0's late-sender wait, in ms or s
line=$(grep -E "^ +0 +[0-9]" "$W" | head -1) || fail "no row for rank 0"
ms=$(echo "$line" | awk '{ v = $2; u = $3; if (u == "s") v *= 1000; else if (u == "us") v /= 1000; else if (u == "ns") v /= 1e6; print int(v) }')
[ "$ms" -ge 500 ] || fail "rank 0 waited $ms ms as a late receiver of rank 1's sends, expected >= 500"
grep -q "late sender *MPI_Recv" "$W" || fail "no late-sender call site for MPI_Recv"
grep -q "collective *MPI_Barrier" "$W" || fail "no collective wait at MPI_Barrier"
line=$(grep -E "^ +2 +[0-9]" "$W" | head -1) || fail "no row for rank 2"
echo "$line" | awk '{ exit !(($7 == "ms" && $6 >= 200) || $7 == "s") }' || fail "rank 2 should wait >= 200 ms at the barrier: $line"
grep -q "before MPI_Barrier #1: rank 1 worked" "$W" || fail "rank 1 is not the most loaded before the barrier"
grep -q "^Critical path" "$W" || fail "no critical path"
grep -q "<h2>Who waits</h2>" "$T/report/report.html" || fail "report.html has no wait section"
echo PASS
