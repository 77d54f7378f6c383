#!/usr/bin/env bash
# make bench-check: the 2-rank micro-benchmarks of a build against a base, per
# placement; fails on a cell more than 10% slower (docs/bench.md, "Regression
# gate").
#
#   bash bench/check.sh NEW_BUILD [BASE]
#     BASE a git revision: built from `git archive` into a scratch folder under
#          /tmp (removed at exit), then the two builds alternate (bench/ab.sh).
#     BASE a build folder (holding bin/mpirun): used as it is.
#     BASE "recorded": no base build; NEW_BUILD's runs against the figures in
#          bench/results/bench-check-<placement>.tsv.
#     no BASE: the commit those recorded figures were measured on, else HEAD~1.
#   bash bench/check.sh NEW_BUILD --record   (make bench-record: measure
#          NEW_BUILD alone and write the recorded figures of each placement seen)
#
# Environment: BENCH_CHECK_ROUNDS (default 8) rounds, BENCH_CHECK_THRESHOLD
# (default 0.10), BENCH_CHECK_MIN_RUNS (default 3).  A failing cell is measured again in a second pass of the
# same rounds over the failing cells only, and fails only if it fails again
# (bench/check_compare.sh).  Exit 0 ok, 1 a cell slower, 2 nothing comparable
# or a build/run error.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(dirname "$here")
new=$(cd "${1:?usage: check.sh NEW_BUILD [BASE|recorded|--record]}" && pwd)
base=${2:-}
rounds=${BENCH_CHECK_ROUNDS:-8}
threshold=${BENCH_CHECK_THRESHOLD:-0.10}
colls=barrier,bcast,allreduce,allgather
sizes=8,65536,1048576
recorded() { echo "$here/results/bench-check-$1.tsv"; }
start=$(date +%s)
work=$(mktemp -d /tmp/corempi-bench-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
log() { printf 'bench-check: %s\n' "$*" >&2; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown; }
load0=$(load)
[ -x "$new/bin/mpirun" ] || { log "no $new/bin/mpirun: build first (make build)"; exit 2; }

# describe DIR: the commit a source tree is at, and whether it has changes.
describe() {
    local c
    c=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || { echo "unknown commit"; return; }
    git -C "$1" diff --quiet HEAD 2>/dev/null && echo "$c" || echo "$c plus uncommitted changes"
}

# run_pass SIDE_B OUT [coll options]: ab.sh rounds of NEW (A) against SIDE_B
# (a build folder, or "-" for NEW alone), every run's figure into OUT.
run_pass() {
    local b=$1 out=$2
    shift 2
    AB_RECORDS="$out" bash "$here/ab.sh" "$new" "$b" "$rounds" -- "$@" >/dev/null 2>"$work/ab.log" ||
        { cat "$work/ab.log" >&2; return 1; }
    [ -s "$out" ] || { log "no figures measured (see above)"; cat "$work/ab.log" >&2; return 1; }
}

if [ "$base" = --record ]; then
    run_pass - "$work/rec" -c "$colls" -s "$sizes" || exit 2
    for p in shared split; do
        grep -q "^$p " "$work/rec" || continue
        { echo "# make bench-record: corempi $(describe "$src"), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $load0 on $(nproc) cores, $rounds rounds; one line per run"
          awk -v p="$p" '$1 == p { printf "%s\t%s\n", $3, $4 }' "$work/rec"; } >"$(recorded "$p")"
        log "wrote $(recorded "$p")"
    done
    log "$(($(date +%s) - start)) s"
    exit 0
fi

# The base: figures (recorded), a build folder, or a revision to build.
if [ -z "$base" ]; then
    base=$(sed -n '1s/^# make bench-record: corempi \([0-9a-f]\{7,\}\).*/\1/p' \
        "$(recorded split)" "$(recorded shared)" 2>/dev/null | head -n 1)
    [ -n "$base" ] || base=HEAD~1
fi
if [ "$base" = recorded ]; then
    b=-
    ls "$here"/results/bench-check-*.tsv >/dev/null 2>&1 || { log "no recorded figures: make bench-record"; exit 2; }
    log "base: the recorded figures: $(head -q -n 1 "$here"/results/bench-check-*.tsv | tr '\n' ' ')"
elif [ -x "$base/bin/mpirun" ]; then
    b=$(cd "$base" && pwd)
    log "base: the build in $b"
else
    rev=$(git -C "$src" rev-parse --verify --quiet "$base^{commit}") || { log "BASE=$base: neither a build folder nor a revision"; exit 2; }
    log "base: $base = $(git -C "$src" log -1 --format='%h %s' "$rev" | cut -c1-90), building in $work/base"
    mkdir -p "$work/base"
    git -C "$src" archive "$rev" | tar -x -C "$work/base" || exit 2
    launcher=()
    # Relative paths under the scratch folder keep ccache's hits across runs.
    command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="$work/base"
    { cmake -S "$work/base" -B "$work/base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" &&
      { cmake --build "$work/base/build" -j "$(nproc)" --target corempi mpirun ||
        cmake --build "$work/base/build" -j "$(nproc)"; }; } >"$work/base-build.log" 2>&1 ||
        { tail -n 30 "$work/base-build.log" >&2; log "the base did not build"; exit 2; }
    b=$work/base/build
    log "base built in $(($(date +%s) - start)) s"
fi

# add_recorded OUT: the recorded figures as base (B) runs.
add_recorded() {
    local p
    for p in shared split; do
        [ -r "$(recorded "$p")" ] || continue
        awk -v p="$p" '!/^#/ && NF == 2 { print p, "B", $1, $2 }' "$(recorded "$p")" >>"$1"
    done
}

log "pass 1: $rounds rounds of ping-pong and $colls at $sizes B"
run_pass "$b" "$work/pass1" -c "$colls" -s "$sizes" || exit 2
[ "$b" = - ] && add_recorded "$work/pass1"
BENCH_CHECK_FAILS="$work/fails" sh "$here/check_compare.sh" -t "$threshold" "$work/pass1" >"$work/table1"
rc=$?
if [ "$rc" = 1 ]; then
    # Again over the failing cells only; ping-pong always runs (it is short).
    names=$(awk '{ split($2, k, ":") } k[1] != "latency" && k[1] != "bw" { print k[1] }' "$work/fails" | sort -u | paste -sd, -)
    szs=$(awk '{ split($2, k, ":") } k[1] != "latency" && k[1] != "bw" { print k[2] }' "$work/fails" | sort -u | paste -sd, -)
    log "pass 2: the failing cells again ($(awk '{ printf "%s/%s ", $1, $2 }' "$work/fails"))"
    run_pass "$b" "$work/pass2" -c "${names:-barrier}" -s "${szs:-8}" || exit 2
    [ "$b" = - ] && add_recorded "$work/pass2"
    sh "$here/check_compare.sh" -t "$threshold" "$work/pass1" "$work/pass2"
    rc=$?
else
    cat "$work/table1"
fi
awk -v a="$load0" -v b="$(load)" -v c="$(nproc)" 'BEGIN { exit !(a > c || b > c) }' &&
    echo "bench-check: warning: the machine was busy (load average above $(nproc)): on a loaded machine equal builds differ by more than 10%; rerun a failure on a quiet machine before believing it"
echo "bench-check: new $(describe "$src") in $new; $rounds rounds per pass; $(($(date +%s) - start)) s; load average $load0 at start, $(load) at end, $(nproc) cores"
exit "$rc"
