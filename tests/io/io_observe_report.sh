#!/bin/sh
# io.observe_report: io_observe.c under `mpirun --profile`, then `coreprof
# report`: the I/O section of summary.txt and of report.html must give, for
# each rank, exactly the bytes read and written that the program printed
# (what its statuses counted), their sum on the "*" row, and a time in I/O.
# MODE "summary" records with COREPROF_MODE=summary (statistics only).
# usage: io_observe_report.sh BUILDDIR PROGRAM NRANKS [MODE]
set -u
BUILD=$1 PROG=$2 N=$3 MODE=${4:-trace}
T=$(mktemp -d /tmp/cm_io_observe_report.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

COREPROF_MODE=$MODE COREPROF_QUIET=1 timeout 120 "$BUILD/bin/mpirun" -n "$N" --profile="$T/tr" "$PROG" > "$T/out" 2>&1 ||
    { cat "$T/out"; fail "the profiled run failed"; }
grep -q "^io_observe: OK" "$T/out" || { cat "$T/out"; fail "io_observe itself failed"; }
"$BUILD/bin/coreprof" report "$T/tr" --no-otf2 --no-progress > /dev/null 2> "$T/err" ||
    { cat "$T/err"; fail "coreprof report exited $?"; }
python3 - "$T/out" "$T/tr/report" "$N" <<'PY' || exit 1
import re, sys
out, rep, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = {}
for m in re.finditer(r"^io_observe: rank (\d+) read (\d+) written (\d+)$", open(out).read(), re.M):
    want[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
assert sorted(want) == list(range(n)), f"the program printed ranks {sorted(want)}"
text = open(f"{rep}/summary.txt").read()
sec = text.split("@--- I/O", 1)
assert len(sec) == 2, "summary.txt has no I/O section"
rows = {}
for line in sec[1].split("@---", 1)[0].splitlines():
    f = line.split()
    if len(f) >= 8 and (f[0].isdigit() or f[0] == "*"):
        # Rank Read(2 cells) Written(2 cells) ReadBytes WrittenBytes Time(2) Wall% Calls
        rows[f[0]] = (int(f[5]), int(f[6]), f[7], f[8])
for r, (rd, wr) in want.items():
    got = rows.get(str(r))
    assert got, f"no I/O row for rank {r}"
    assert got[:2] == (rd, wr), f"rank {r}: report read/written {got[:2]}, the program {rd, wr}"
    assert not got[2].startswith("0") or got[3] != "ns", f"rank {r}: no time in I/O ({got[2]} {got[3]})"
tot = (sum(v[0] for v in want.values()), sum(v[1] for v in want.values()))
assert rows.get("*", (None, None))[:2] == tot, f"* row {rows.get('*')}, want {tot}"
html = open(f"{rep}/report.html").read()
assert "<h2>I/O</h2>" in html, "report.html has no I/O section"
for r, (rd, wr) in want.items():
    assert f"<tr><td>{r}</td>" in html and f"<td>{rd}</td><td>{wr}</td>" in html, f"report.html: rank {r}'s bytes"
print(f"io.observe_report: {n} ranks, report matches: {want}")
PY
