#!/bin/sh
# bench_check.sh SRCDIR -- the verdict of make bench-check (bench/check_compare.sh)
# on synthetic runs: no timing, so it can run in make check.
#
# A cell 15% slower fails, 5% passes, a median 15% slower with best runs
# alike passes (load, not code); bw rows (GB/s) count the other way; a cell or
# a placement one build measured fewer than 3 times is skipped with a note; a
# failing cell is cleared by a passing recheck, kept by a failing one or by a
# recheck that never saw its placement; nothing comparable is exit 2.
set -u
cmp=${1:?usage: bench_check.sh SRCDIR}/bench/check_compare.sh
T=$(mktemp -d /tmp/cm-bench-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
say() { echo "FAIL: $*" >&2; fail=1; }

# runs FILE PLACEMENT WHAT NEW BASE: three runs of each side, the median as given.
runs() {
    for d in 0.9 1 1.1; do
        echo "$2 A $3 $(awk -v x="$4" -v d="$d" 'BEGIN { print x * d }')"
        echo "$2 B $3 $(awk -v x="$5" -v d="$d" 'BEGIN { print x * d }')"
    done >>"$1"
}
# expect RC NAME ARGS...: run the comparison, check the exit status.
expect() {
    want=$1 name=$2
    shift 2
    BENCH_CHECK_FAILS="$T/fails" sh "$cmp" "$@" >"$T/out" 2>&1
    got=$?
    [ "$got" = "$want" ] || { say "$name: exit $got, wanted $want"; cat "$T/out" >&2; }
}

runs "$T/slow15" split bcast:65536 1.15 1.0
runs "$T/slow15" split latency:8 0.30 0.30
expect 1 "15% slower" "$T/slow15"
grep -q '| bcast:65536 .* 1\.15 .*\*\*FAIL\*\*' "$T/out" || say "15% slower: the cell is not marked"
grep -q '| latency:8 .* ok |' "$T/out" || say "15% slower: the equal cell is not ok"
[ "$(cat "$T/fails")" = "split bcast:65536" ] || say "15% slower: failing cells listed as '$(cat "$T/fails")'"

runs "$T/slow5" split bcast:65536 1.05 1.0
expect 0 "5% slower" "$T/slow5"
grep -q '^bench-check: ok: 1 cells' "$T/out" || say "5% slower: no ok line"
expect 1 "5% slower, threshold 3%" -t 0.03 "$T/slow5"

# The median 15% slower, the best runs alike: the machine's load, not the code.
: >"$T/tail"
for x in 1.0 1.15 1.15; do echo "split A bcast:8 $x"; done >>"$T/tail"
for x in 1.0 1.0 1.0; do echo "split B bcast:8 $x"; done >>"$T/tail"
expect 0 "slower median, same best run" "$T/tail"
grep -q '| 1\.15, 1\.00 | 3, 3 | ok |' "$T/out" || say "slower median: both slowdowns not shown"
sed -i '1d' "$T/tail"
expect 2 "two runs only" "$T/tail"

# GB/s: lower is slower.
runs "$T/bw" split bw:1048576 8.5 10
expect 1 "bandwidth 15% lower" "$T/bw"
: >"$T/bwup"; runs "$T/bwup" split bw:1048576 11.5 10
expect 0 "bandwidth 15% higher" "$T/bwup"

# One placement only in the new runs, one cell only in the base's.
cp "$T/slow5" "$T/onesided"
runs "$T/onesided" shared bcast:8 9 9
sed -i '/^shared B/d' "$T/onesided"
echo "split B allgather:8 0.3" >>"$T/onesided"
expect 0 "one-sided cells" "$T/onesided"
grep -q 'placement shared: only the new build ran on it; not compared' "$T/out" || say "one-sided placement: no note"
grep -q 'split: fewer than 3 runs of new or base (runs new, base), skipped: allgather:8 (0, 1)' "$T/out" || say "one-sided cell: no note"

# Rechecks.
: >"$T/re_ok"; runs "$T/re_ok" split bcast:65536 1.0 1.0
expect 0 "failing cell, passing recheck" "$T/slow15" "$T/re_ok"
grep -q 'ok (noise: recheck passed)' "$T/out" || say "passing recheck: not marked as noise"
: >"$T/re_bad"; runs "$T/re_bad" split bcast:65536 1.2 1.0
expect 1 "failing cell, failing recheck" "$T/slow15" "$T/re_bad"
grep -q '| 1\.20, 1\.20 | \*\*FAIL\*\*' "$T/out" || say "failing recheck: its ratio is not shown"
: >"$T/re_other"; runs "$T/re_other" shared bcast:65536 1.0 1.0
expect 1 "failing cell, recheck on another placement" "$T/slow15" "$T/re_other"
grep -q 'too few runs' "$T/out" || say "recheck elsewhere: not noted"

: >"$T/none"; runs "$T/none" shared bcast:8 1 1
sed -i '/^shared B/d' "$T/none"
expect 2 "nothing comparable" "$T/none"
expect 2 "missing file" "$T/does-not-exist"

[ "$fail" = 0 ] && echo "bench_check: all cases passed"
exit "$fail"
