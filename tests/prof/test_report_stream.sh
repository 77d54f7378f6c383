#!/bin/sh
# coreprof report streams its input: on a synthetic trace of ~200 MB (4 ranks,
# folded polls in every iteration) the summary must be exact and the report's
# peak memory (max RSS) far below the trace size; the timeline and OTF2, which
# need every event in memory, are skipped for such a trace.  Also: a version-1
# trace (before folded polls) still reads.
# usage: test_report_stream.sh COREPROF GEN
set -u
COREPROF=$1 GEN=$2
MB=50            # per rank
MAX_RSS_KB=${REPORT_STREAM_MAX_RSS_KB:-65536} # 64 MiB: a third of the trace; an in-memory report needs ~2x the trace
T=$(mktemp -d /tmp/coreprof-stream.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed: skipped"; exit 77; }

iters=$("$GEN" "$T/tr" 4 0 --big $MB | sed -n 's/^iterations=//p') || fail "generator"
[ -n "$iters" ] || fail "generator did not say how many iterations"
bytes=$(cat "$T"/tr/*.cpt | wc -c)
echo "trace: $bytes bytes, $iters iterations per rank"
/usr/bin/time -f "%M %e" -o "$T/time" "$COREPROF" report "$T/tr" -o "$T/rep" --no-progress > "$T/out" 2> "$T/err" ||
    { cat "$T/err"; fail "coreprof report exited $?"; }
read rss secs < "$T/time"
echo "report: max RSS $rss KiB, $secs s"
[ "$rss" -lt $MAX_RSS_KB ] || fail "max RSS $rss KiB, expected < $MAX_RSS_KB KiB for a $bytes-byte trace"

calls() { awk -v c="$1" '$1 == c { print $2; exit }' "$T/out"; }
[ "$(calls MPI_Allreduce)" = $((4 * iters)) ] || fail "MPI_Allreduce: $(calls MPI_Allreduce) calls, expected $((4 * iters))"
[ "$(calls MPI_Iprobe)" = $((4000 * iters)) ] || fail "MPI_Iprobe: $(calls MPI_Iprobe) calls, expected $((4000 * iters))"
grep -q "matched point-to-point messages : $((4 * iters + 4))\$" "$T/out" || fail "matched messages: $(grep matched "$T/out")"
grep -q "sends without a matching receive: 0" "$T/out" || fail "unmatched sends"
grep -q "timeline and OTF2 not written" "$T/err" || fail "no note that the timeline was skipped"
[ -e "$T/rep/timeline.json" ] && fail "a timeline for a trace over the limit"
[ -s "$T/rep/matrix_p2p_count.csv" ] || fail "no matrix"
echo "ok: exact statistics in bounded memory"

# a version-1 trace: the same small ring with the header's version set to 1
"$GEN" "$T/v1" 4 10 || fail "generator (small)"
python3 - "$T/v1" <<'PY' || fail "patching the version"
import glob, struct, sys
def checksum(b):
    h = 0xcbf29ce484222325
    M = (1 << 64) - 1
    for i in range(0, len(b) - len(b) % 8, 8):
        h = ((h ^ struct.unpack_from("<Q", b, i)[0]) * 0x100000001b3) & M
        h ^= h >> 29
    for c in b[len(b) - len(b) % 8:]:
        h = ((h ^ c) * 0x100000001b3) & M
    return (h ^ (h >> 32)) & 0xffffffff
for f in glob.glob(sys.argv[1] + "/*.cpt"):
    d = bytearray(open(f, "rb").read())
    struct.pack_into("<H", d, 4, 1)
    struct.pack_into("<I", d, 124, checksum(bytes(d[:124])))
    open(f, "wb").write(d)
PY
"$COREPROF" report "$T/v1" -o "$T/v1rep" > "$T/v1out" 2> "$T/v1err" || { cat "$T/v1err"; fail "version-1 trace"; }
grep -q "matched point-to-point messages : 44" "$T/v1out" || fail "version-1 trace: $(grep matched "$T/v1out")"
grep -q "trace incomplete" "$T/v1out" && fail "version-1 trace reported incomplete"
echo "ok: version-1 trace"
