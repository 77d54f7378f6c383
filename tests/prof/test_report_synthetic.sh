#!/bin/sh
# coreprof report on a synthetic 4-rank ring (test_report_gen): exact matrices,
# call sites, valid and consistent JSON timeline (also split), OTF2 that reads
# back, a self-contained HTML page.
# usage: test_report_synthetic.sh COREPROF GEN SRCDIR
set -u
COREPROF=$1 GEN=$2 SRC=$3
T=$(mktemp -d /tmp/coreprof-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

"$GEN" "$T/tr" 4 10 || fail "generator"
"$COREPROF" report "$T/tr" > "$T/stdout" 2> "$T/stderr" || { cat "$T/stderr"; fail "coreprof report exited $?"; }
R=$T/tr/report
for f in summary.txt matrix_p2p_bytes.csv matrix_p2p_count.csv matrix_coll_bytes.csv matrix.png \
         msgsize_hist.png timeline.json report.html trace.otf2/traces.otf2; do
    [ -s "$R/$f" ] || fail "$f missing or empty"
done
cmp -s "$T/stdout" "$R/summary.txt" || fail "summary printed differs from summary.txt"

# matrices: [r][r+1] = 10 iterations * 1000*(r+1) + the 512-byte Sendrecv, 11 messages, nothing else
python3 - "$R" <<'PY' || exit 1
import csv, sys
R = sys.argv[1]
def load(name):
    rows = list(csv.reader(open(f"{R}/{name}")))
    assert rows[0] == ["sender\\receiver", "0", "1", "2", "3"], rows[0]
    return [[int(x) for x in row[1:]] for row in rows[1:]]
b, c, k = load("matrix_p2p_bytes.csv"), load("matrix_p2p_count.csv"), load("matrix_coll_bytes.csv")
for i in range(4):
    for j in range(4):
        ring = j == (i + 1) % 4
        want_b = 10 * 1000 * (i + 1) + 512 if ring else 0
        want_c = 11 if ring else 0
        if b[i][j] != want_b or c[i][j] != want_c:
            print(f"FAIL: p2p matrix [{i}][{j}] = {b[i][j]} B / {c[i][j]} msgs, expected {want_b} / {want_c}")
            sys.exit(1)
        # collectives: 10 Allreduce of 8 B to every other rank; Bcast 4096 B from rank 0
        want_k = 0 if i == j else 80 + (4096 if i == 0 else 0)
        if k[i][j] != want_k:
            print(f"FAIL: collective matrix [{i}][{j}] = {k[i][j]}, expected {want_k}")
            sys.exit(1)
print("ok: matrices")
PY

grep -q "test_report_gen.c:[0-9]* (write_rank)" "$R/summary.txt" || fail "call sites not resolved to file:line (function)"
grep -q "matched point-to-point messages : 44" "$R/summary.txt" || fail "expected 44 matched messages"
grep -q "sends without a matching receive: 0" "$R/summary.txt" || fail "unmatched sends"
grep -q "trace incomplete" "$R/summary.txt" && fail "complete traces reported incomplete"

python3 "$SRC/test_report_check_timeline.py" "$R/timeline.json" --flows 44 --causal --ranks 4 || fail "timeline"
# the checker can fail: move one arrow's end out of its slice
python3 - "$R/timeline.json" "$T/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = next(e for e in d["traceEvents"] if e.get("ph") == "f")
f["ts"] += 1e9
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$SRC/test_report_check_timeline.py" "$T/bad.json" > /dev/null && fail "timeline checker accepted a flow outside its slice"

# split timeline: several files, each valid alone, same flows in total
"$COREPROF" report "$T/tr" -o "$T/split" --max-events 40 > /dev/null 2>&1 || fail "split report"
n=$(ls "$T/split" | grep -c '^timeline-[0-9][0-9][0-9]\.json$')
[ "$n" -ge 3 ] || fail "expected several timeline parts, got $n"
[ -e "$T/split/timeline.json" ] && fail "timeline.json next to split parts"
python3 "$SRC/test_report_check_timeline.py" "$T"/split/timeline-*.json --flows 44 --causal --ranks 4 || fail "split timeline"
# a later unsplit report into the same directory removes the old parts
"$COREPROF" report "$T/tr" -o "$T/split" > /dev/null 2>&1 || fail "second report"
[ "$(ls "$T/split" | grep -c '^timeline')" -eq 1 ] || fail "stale timeline parts left behind"

# OTF2 reads back: 44 sends, 44 receives, collectives begin/end in pairs
if command -v otf2-print > /dev/null 2>&1; then
    otf2-print "$R/trace.otf2/traces.otf2" > "$T/otf2.txt" 2>&1 || { tail "$T/otf2.txt"; fail "otf2-print"; }
    [ "$(grep -c '^MPI_SEND ' "$T/otf2.txt")" -eq 44 ] || fail "OTF2: expected 44 MPI_SEND"
    [ "$(grep -c '^MPI_RECV ' "$T/otf2.txt")" -eq 44 ] || fail "OTF2: expected 44 MPI_RECV"
    nb=$(grep -c '^MPI_COLLECTIVE_BEGIN ' "$T/otf2.txt"); ne=$(grep -c '^MPI_COLLECTIVE_END ' "$T/otf2.txt")
    [ "$nb" -eq 48 ] && [ "$ne" -eq 48 ] || fail "OTF2: collectives begin $nb end $ne, expected 48"
    [ "$(grep -c '^ENTER ' "$T/otf2.txt")" -eq "$(grep -c '^LEAVE ' "$T/otf2.txt")" ] || fail "OTF2: unbalanced enter/leave"
else
    echo "note: otf2-print not installed, OTF2 read-back not checked"
fi

# HTML: self-contained
H=$R/report.html
[ "$(grep -o 'src="data:image/png;base64,' "$H" | wc -l)" -ge 3 ] || fail "HTML: pictures not embedded"
grep -Eq '(src|href)="(https?:)?//' "$H" && fail "HTML loads something from elsewhere"
grep -qi '<script\|<link' "$H" && fail "HTML has scripts or linked resources"
grep -q 'test_report_gen.c:' "$H" || fail "HTML lacks the call-site table"
# PNGs are PNGs
for p in matrix.png matrix_coll.png msgsize_hist.png; do
    [ "$(head -c 8 "$R/$p" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$p is not a PNG"
done
echo "ok: synthetic ring report"
