#!/bin/sh
# Fuzz the .cpt reader and coreprof's analysis for a short while (clang +
# libFuzzer), or, without clang, replay the seed corpus through the same target
# built with gcc's sanitizers.  New inputs go to a temporary directory, never
# into the source tree.
# usage: test_report_fuzz.sh SRCROOT SECONDS
set -u
ROOT=$1 SECS=${2:-20}
T=$(mktemp -d /tmp/coreprof-fuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
SRCS="$ROOT/tests/prof/fuzz_cpt_read.c $ROOT/src/prof/cpt_read.c"
for f in trace_dir trace_load agg msg_match call_stats comm_matrix fmt_units io_report; do SRCS="$SRCS $ROOT/tools/coreprof/$f.c"; done
INC="-I$ROOT/src/prof -I$ROOT/tools/coreprof"
CORPUS=$ROOT/tests/prof/corpus
if command -v clang > /dev/null 2>&1 &&
   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $INC $SRCS \
         -o "$T/fuzz" 2> "$T/build.log"; then
    mkdir "$T/new" "$T/art"
    "$T/fuzz" -max_total_time="$SECS" -seed=1 -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$T/art/" \
        "$T/new" "$CORPUS" > "$T/log" 2>&1
    rc=$?
    grep -E 'ERROR|runtime error|SUMMARY|Done [0-9]+ runs' "$T/log" | head -20
    if [ $rc -ne 0 ]; then
        for a in "$T"/art/*; do [ -e "$a" ] && { echo "crashing input (base64):"; base64 "$a" | head -40; }; done
        echo "FAIL: fuzzer found a problem (exit $rc)"
        exit 1
    fi
    echo "ok: fuzzed ${SECS}s without findings"
    exit 0
fi
[ -s "$T/build.log" ] && { echo "note: clang/libFuzzer unusable:"; head -5 "$T/build.log"; }
echo "note: no clang with libFuzzer: replaying the corpus with gcc sanitizers instead"
gcc -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined $INC $SRCS \
    "$ROOT/tests/prof/test_report_replay.c" -o "$T/replay" 2> "$T/build.log" ||
gcc -g -O1 $INC $SRCS "$ROOT/tests/prof/test_report_replay.c" -o "$T/replay" || { cat "$T/build.log"; echo "FAIL: build"; exit 1; }
"$T/replay" "$CORPUS" || { echo "FAIL: replay"; exit 1; }
