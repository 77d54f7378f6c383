#!/bin/sh
# coreprof report on damaged input: truncated, corrupted, missing and foreign
# rank files give messages naming the file (and byte offset), the rest is still
# reported, and the exit status is non-zero only when nothing is usable.
# usage: test_report_malformed.sh COREPROF GEN SRCDIR
set -u
COREPROF=$1 GEN=$2 SRC=$3
T=$(mktemp -d /tmp/coreprof-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
crashed() { [ "$1" -ge 124 ]; }   # signals, timeouts, sanitizer aborts

# ranks 0 and 4 fine; 1 truncated (killed), 2 corrupted, 3 missing, 5 not a trace
"$GEN" "$T/d" 6 8 --truncate 1 --corrupt 2 --missing 3 --garbage 5 || fail generator
timeout 60 "$COREPROF" report "$T/d" > "$T/out" 2> "$T/err"; rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit $rc although ranks 0 and 4 are usable"
grep -q "1.cpt: at byte [0-9]*:.*incomplete" "$T/err" || fail "no byte-offset message for the truncated 1.cpt"
grep -q "2.cpt: at byte [0-9]*:.*checksum" "$T/err" || fail "no checksum message for the corrupted 2.cpt"
grep -q "3.cpt: cannot open" "$T/err" || fail "no message for the missing 3.cpt"
grep -q "5.cpt: at byte 0: bad magic" "$T/err" || fail "no message for the foreign 5.cpt"
for r in 1 2; do grep -q "Rank $r: trace incomplete" "$T/d/report/summary.txt" || fail "rank $r not marked incomplete"; done
grep -q "trace incomplete" "$T/d/report/report.html" || fail "HTML does not say trace incomplete"
python3 "$SRC/test_report_check_timeline.py" "$T/d/report/timeline.json" --ranks 6 || fail "timeline of damaged trace"

# the last rank left no file at all: still listed as missing (world size from the headers)
rm "$T/d/5.cpt"
timeout 60 "$COREPROF" report "$T/d" > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 0 ] || fail "exit $rc with the last rank file missing"
grep -q "5.cpt: cannot open" "$T/err" || fail "missing last rank not reported"

# a (checksum-valid) header claiming a million ranks must not make us probe a million files
mkdir "$T/w"
cp "$T/d/0.cpt" "$T/w/0.cpt"
python3 - "$T/w/0.cpt" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
struct.pack_into("<i", d, 20, 1 << 20)
h, M = 0xcbf29ce484222325, (1 << 64) - 1
for i in range(0, 120, 8):
    h = ((h ^ struct.unpack_from("<Q", d, i)[0]) * 0x100000001b3) & M
    h ^= h >> 29
for b in d[120:124]:
    h = ((h ^ b) * 0x100000001b3) & M
struct.pack_into("<I", d, 124, (h ^ (h >> 32)) & 0xffffffff)
open(p, "wb").write(d)
PY
timeout 60 "$COREPROF" report "$T/w" > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 0 ] || fail "exit $rc on a header claiming 2^20 ranks"
grep -q "headers claim 1048576 ranks" "$T/err" || { cat "$T/err"; fail "huge world-size claim not reported"; }

# nothing usable: non-zero, and a message naming a file
mkdir "$T/g"
for r in 0 1; do printf 'garbage' > "$T/g/$r.cpt"; done
timeout 60 "$COREPROF" report "$T/g" > /dev/null 2> "$T/err2"; rc=$?
crashed $rc && fail "crashed ($rc) on garbage"
[ $rc -ne 0 ] || fail "exit 0 on a directory of garbage"
grep -q "0.cpt" "$T/err2" || fail "garbage message names no file"

mkdir "$T/empty"
timeout 60 "$COREPROF" report "$T/empty" > /dev/null 2>&1 && fail "exit 0 on an empty directory"
timeout 60 "$COREPROF" report "$T/nonexistent" > /dev/null 2> "$T/err3" && fail "exit 0 on a missing directory"
grep -q "nonexistent" "$T/err3" || fail "missing directory not named"
timeout 60 "$COREPROF" bogus > /dev/null 2>&1; [ $? -eq 2 ] || fail "usage error is not exit 2"

# every corpus file (tiny, partly broken) alone as rank 0, and empty / one-byte files: no crash
for f in "$SRC"/corpus/* EMPTY ONEBYTE; do
    rm -rf "$T/c"; mkdir "$T/c"
    case $f in EMPTY) : > "$T/c/0.cpt";; ONEBYTE) printf C > "$T/c/0.cpt";; *) cp "$f" "$T/c/0.cpt";; esac
    timeout 60 "$COREPROF" report "$T/c" > /dev/null 2>&1; rc=$?
    crashed $rc && fail "crashed ($rc) on $f"
done
echo "ok: malformed input handled"
