#!/usr/bin/env bash
# corempi side by side with Open MPI and MPICH, and with the machine's floor.
#
#   bash bench/run.sh                      (what `make bench` runs)
#   COREMPI_BUILD=/tmp/build-x bash bench/run.sh
#   BENCH_QUICK=1 bash bench/run.sh        (~1 minute, one round)
#   BENCH_VERBOSE=1 bash bench/run.sh      (full size sweeps; takes longer)
#   BENCH_BASELINE=/tmp/build-old bash bench/run.sh
#                                          (a second corempi build, e.g. of an
#                                           older commit, runs in the same rounds:
#                                           two more columns, its medians and
#                                           corempi/baseline)
#   BENCH_PARTS=patterns bash bench/run.sh (only the application patterns and
#                                           nonblocking collectives, ~4 minutes;
#                                           BENCH_PARTS=osc: only one-sided;
#                                           BENCH_PARTS=io: only MPI-IO;
#                                           BENCH_PARTS=classic: only the rest;
#                                           BENCH_PARTS=placement: the cost model's
#                                           table of --map-by policies and auto,
#                                           bench/placement.sh, ~20 s;
#                                           BENCH_PARTS=osc_sweep: the OSU-style
#                                           one-sided sweep, every op x window
#                                           flavour x sync mode x size;
#                                           BENCH_PARTS=threads: only threads
#                                           against processes, bench/threads_run.sh;
#                                           BENCH_PARTS=wing: corempi's collectives
#                                           inside Open MPI and MPICH, with and
#                                           without libcorempi_coll-<peer>.so,
#                                           bench/wing_run.sh)
#
# Builds every benchmark with each contender's mpicc into a temporary folder,
# runs the contenders in turn (A B C, B C A, ...) for several rounds so they
# share the machine's noise, and prints Markdown tables of medians and ratios.
# The tables also go to bench/results/latest.md (the patterns' part also to
# bench/results/patterns.md, the one-sided part to bench/results/osc.md, the sweep to
# bench/results/osc_sweep.md).  Any contender that is
# missing, fails or runs out of time gets a note in its cells; the rest go on.
# shellcheck disable=SC2086  # flag variables ($qflag, $vflag, $pids) split on purpose
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
corempi_build=${COREMPI_BUILD:-$(dirname "$here")/build}   # the tree this script is in
quick=${BENCH_QUICK:-0}
[ "$quick" = 0 ] && quick=""
verbose=${BENCH_VERBOSE:-}
results_md="$here/results/latest.md"
parts=${BENCH_PARTS:-classic patterns osc osc_sweep io placement threads wing}
want_part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

if [ -n "$quick" ]; then
    rounds=1; rounds8=1; hello_runs=3; limit2=60; limit8=5; qflag=-q
    coll8_sizes=8,65536; coll8_names="barrier bcast allreduce allreduce_init alltoall"
else
    rounds=3; rounds8=2; hello_runs=10; limit2=120; limit8=12; qflag=
    coll8_sizes=8,65536,1048576
    coll8_names="barrier bcast reduce allreduce allreduce_init allgather alltoall gather scatter reduce_scatter_block scan
                 exscan reduce_scatter allgatherv gatherv scatterv alltoallv alltoallw"
fi
# Later rounds are skipped once this many seconds are spent (the first round
# always runs): a loaded machine must not stretch `make bench` without end.
budget=${BENCH_BUDGET:-$([ -n "$quick" ] && echo 60 || echo 600)}
rounds=${BENCH_ROUNDS:-$rounds}
vflag=${verbose:+-v}
coll8_sizes=${BENCH_COLL8_SIZES:-$coll8_sizes}

work=$(mktemp -d /tmp/corempi-bench.XXXXXX)
records="$work/records"   # "<contender> <key> <value>", one per measurement
statuses="$work/statuses" # "<contender> <group> <ok|did-not-finish|failed|not-built>"
: >"$records"
: >"$statuses"

# Ranks of a timed-out job run in timeout's process group and die with it;
# anything still running one of our binaries afterwards is ended by pid.
end_leftovers() {
    local pids
    pids=$(pgrep -f "$work/" 2>/dev/null | grep -vx "$$" || true)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    return 0
}
cleanup() {
    end_leftovers
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '%s\n' "$*" >&2; }

# ---------------------------------------------------------------- contenders
contenders=(corempi openmpi mpich)
declare -A label=([corempi]="corempi" [openmpi]="Open MPI" [mpich]="MPICH")
declare -A mpicc=([corempi]="$corempi_build/bin/mpicc" [openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A launcher
launcher[corempi]="$corempi_build/bin/mpirun"
# Open MPI refuses root without a flag and refuses more ranks than cores
# without another: both are needed to run at all, nothing more is tuned.
launcher[openmpi]="mpirun.openmpi --oversubscribe"
[ "$(id -u)" = 0 ] && launcher[openmpi]+=" --allow-run-as-root"
launcher[mpich]="mpirun.mpich"
# A before/after comparison needs both builds on the same placement and noise:
# a baseline build joins the rotation as a fourth contender.
baseline_build=${BENCH_BASELINE:-}
if [ -n "$baseline_build" ]; then
    contenders+=(baseline)
    label[baseline]="corempi baseline"
    mpicc[baseline]="$baseline_build/bin/mpicc"
    launcher[baseline]="$baseline_build/bin/mpirun"
fi

ensure_peers() {
    command -v mpicc.openmpi >/dev/null && command -v mpicc.mpich >/dev/null && return
    log "installing Open MPI and MPICH (apt-get)..."
    if [ "$(id -u)" = 0 ]; then
        { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
            openmpi-bin libopenmpi-dev mpich libmpich-dev; } >"$work/apt.log" 2>&1 ||
            log "apt-get failed (see nothing more: the peers will show as not built)"
    else
        log "not root: cannot install the peers"
    fi
}

declare -A built # "<contender>:<prog>" -> 1
# build_for_all PROG: bench/PROG.c with every contender's mpicc ("not built"
# in the cells of a contender whose mpicc or mpi.h cannot).
build_for_all() {
    local c
    for c in "${contenders[@]}"; do
        command -v "${mpicc[$c]}" >/dev/null 2>&1 || continue
        if "${mpicc[$c]}" -O2 -std=c11 -o "$work/$c/$1" "$here/$1.c" >>"$work/build-$c.log" 2>&1; then
            built["$c:$1"]=1
        else
            log "${label[$c]}: $1 did not build:"
            tail -2 "$work/build-$c.log" >&2
        fi
    done
}
# shellcheck source=bench/patterns/run_patterns.sh
. "$here/patterns/run_patterns.sh"
# shellcheck source=bench/osc_run.sh
. "$here/osc_run.sh"
# shellcheck source=bench/io/io_run.sh
. "$here/io/io_run.sh"
# shellcheck source=bench/osc_sweep_run.sh
. "$here/osc_sweep_run.sh"
# shellcheck source=bench/threads_run.sh
. "$here/threads_run.sh"
build_all() {
    local c p
    mkdir -p "$work/floor"
    cc -O2 -std=c11 -pthread -o "$work/floor/floor_cacheline" "$here/floor_cacheline.c" 2>>"$work/build.log" ||
        log "floor_cacheline did not build (see below)"
    cc -O2 -std=c11 -o "$work/floor/floor_cma" "$here/floor_cma.c" 2>>"$work/build.log" ||
        log "floor_cma did not build"
    cc -O2 -std=c11 -o "$work/floor/floor_sched" "$here/floor_sched.c" 2>>"$work/build.log" ||
        log "floor_sched did not build"
    for c in "${contenders[@]}"; do
        mkdir -p "$work/$c"
        if ! command -v "${mpicc[$c]}" >/dev/null 2>&1; then
            log "${label[$c]}: no ${mpicc[$c]}: not built"
            continue
        fi
        want_part classic || continue
        for p in pingpong msgrate coll hello; do
            if "${mpicc[$c]}" -O2 -std=c11 -o "$work/$c/$p" "$here/$p.c" >>"$work/build-$c.log" 2>&1; then
                built[$c:$p]=1
            else
                log "${label[$c]}: $p did not build:"
                tail -5 "$work/build-$c.log" >&2
            fi
        done
    done
    want_part patterns && build_patterns
    want_part osc && build_osc
    want_part io && build_io
    want_part osc_sweep && build_osc_sweep
    want_part threads && build_threads
}

# run_job CONTENDER GROUP LIMIT NRANKS PROG ARGS... : runs one MPI job, turns
# its lines "<bench> <metric> <bytes> <value>" into records "GROUP:metric:bytes".
# Its status is filed under GROUP, or GROUP:$part when the caller sets part
# (one job per collective), so a note lands only on the cells it explains.
part=""
run_job() {
    local c=$1 limit=$3 n=$4 prog=$5 group=$2
    local tag=$group${part:+:$part}
    shift 5
    if [ -z "${built[$c:$prog]:-}" ]; then
        echo "$c $tag not-built" >>"$statuses"
        return
    fi
    local out="$work/out.$c.$tag" rc started=$SECONDS
    [ "$n" = 2 ] && [ -z "${no_placement:-}" ] && note_placement "$c" "$group"
    # shellcheck disable=SC2086  # the launcher string holds its own flags
    timeout -k 5 "$limit" ${launcher[$c]} -n "$n" "$work/$c/$prog" "$@" >"$out" 2>"$out.err" </dev/null
    rc=$?
    end_leftovers
    echo "$group ${label[$c]// /_} $((SECONDS - started))" >>"$work/durations"
    # Only the benchmark's own lines: launchers print their own chatter.
    awk -v c="$c" -v g="$group" -v p="$prog" '
        NF == 4 && $1 == p && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9.eE+-]+$/ { print c, g ":" $2 ":" $3, $4 }' "$out" >>"$records"
    # "<prog> <name> <bytes> n/a": the contender lacks the call (an MPI
    # older than the function); its cell says n/a.
    awk -v c="$c" -v g="$group" -v p="$prog" '
        NF == 4 && $1 == p && $3 ~ /^[0-9]+$/ && $4 == "n/a" { print c, g ":" $2 ":" $3, "absent" }' "$out" >>"$statuses"
    # The patterns' lines "<prog> ranks=N label=v ... metric=value ..." (see
    # bench/patterns/run_patterns.sh): key GROUP:prog:v...:metric.
    awk -v c="$c" -v g="$group" -v p="$prog" '
        $1 == p && $2 ~ /^ranks=[0-9]+$/ {
            lab = ""; nm = 0
            for (i = 3; i <= NF; i++) {
                if (split($i, kv, "=") != 2 || kv[1] == "seed") continue
                if (kv[1] ~ /^us_per_|_us$|_pct$/) {
                    if (kv[2] ~ /^[0-9.eE+-]+$/) { m[++nm] = kv[1]; v[nm] = kv[2] }
                } else lab = lab ":" kv[2]
            }
            for (j = 1; j <= nm; j++) print c, g ":" p lab ":" m[j], v[j]
        }' "$out" >>"$records"
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        echo "$c $tag did-not-finish" >>"$statuses"
        log "  ${label[$c]} $tag: did not finish within ${limit}s"
    elif [ $rc != 0 ]; then
        echo "$c $tag failed" >>"$statuses"
        log "  ${label[$c]} $tag: failed (exit $rc): $(head -c 300 "$out.err" | tr '\n' ' ')"
    else
        echo "$c $tag ok" >>"$statuses"
    fi
}

# This VM moves its two vCPUs between sharing a cache (a cache line changes
# hands in ~0.03 us) and not (~0.16 us), within minutes, and that moves every
# 2-rank figure.  Before each 2-rank job the line hand-over is timed quickly
# and filed per contender and group, so the report can say which placement
# each contender's jobs ran on.
note_placement() {
    [ -x "$work/floor/floor_cacheline" ] || return 0
    local v
    v=$(timeout 20 "$work/floor/floor_cacheline" -q 2>/dev/null | awk '$2 == "latency" { print $4 }')
    [ -n "$v" ] && echo "$1 $2 $v" >>"$work/placements"
    return 0
}

# placement_note GROUP: the hand-over times before each contender's jobs.
placement_note() {
    [ -s "$work/placements" ] || return 0
    local c line far=0 near=0
    line="Cache-line hand-over timed right before each job, µs (≈0.03: the two vCPUs share a cache; ≈0.16: they do not):"
    for c in "${contenders[@]}"; do
        local vals
        vals=$(awk -v c="$c" -v g="$1" '$1 == c && $2 == g { printf "%s ", $3 }' "$work/placements")
        [ -n "$vals" ] || continue
        line+=" ${label[$c]} ${vals% };"
        awk -v c="$c" -v g="$1" '$1 == c && $2 == g && $3 >= 0.08 { f = 1 } END { exit !f }' "$work/placements" && far=1
        awk -v c="$c" -v g="$1" '$1 == c && $2 == g && $3 < 0.08 { f = 1 } END { exit !f }' "$work/placements" && near=1
    done
    echo
    echo "${line%;}."
    if [ $far = 1 ] && [ $near = 1 ]; then
        echo "**The placement changed during these jobs: ratios between contenders that ran on different placements compare different machines; re-run for a clean table.**"
    fi
}

# run_floor ["PROG ARGS"...]: the given floors, by default the 2-rank ones.
run_floor() {
    local prog name args progs=("$@")
    [ $# -gt 0 ] || progs=(floor_cacheline floor_cma)
    for prog in "${progs[@]}"; do
        read -r name args <<<"$prog"
        [ -x "$work/floor/$name" ] || continue
        timeout -k 5 60 "$work/floor/$name" $args $qflag >"$work/out.floor" 2>"$work/out.floor.err" ||
            log "  $prog failed: $(head -c 300 "$work/out.floor.err")"
        awk '$1 == "floor" && NF == 4 { print "floor", $1 ":" $2 ":" $3, $4 }' "$work/out.floor" >>"$records"
    done
}

# The contenders in turn, starting one further along each round, so that no
# one always runs first (or right after the same neighbour).
rotation() {
    local r=$1 i n=${#contenders[@]}
    for ((i = 0; i < n; i++)); do echo "${contenders[$(((r + i) % n))]}"; done
}

time_hello() {
    local c=$1 t0 t1 lines
    [ -n "${built[$c:hello]:-}" ] || { echo "$c hello not-built" >>"$statuses"; return; }
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    lines=$(timeout -k 5 30 ${launcher[$c]} -n 8 "$work/$c/hello" 2>"$work/hello.$c.err" </dev/null | grep -c '^hello from rank')
    t1=$(date +%s%N)
    end_leftovers
    if [ "$lines" = 8 ]; then
        awk -v c="$c" -v us=$(((t1 - t0) / 1000)) 'BEGIN { print c, "hello:ranks:8", us / 1000 }' >>"$records"
        echo "$c hello ok" >>"$statuses"
    else
        grep -q "^$c hello failed" "$statuses" ||
            log "  ${label[$c]} hello: $lines of 8 ranks answered: $(head -c 300 "$work/hello.$c.err" | tr '\n' ' ')"
        echo "$c hello failed" >>"$statuses"
    fi
}

# ---------------------------------------------------------------- reporting
# median CONTENDER KEY -> the median of that contender's values, or nothing
median() {
    awk -v c="$1" -v k="$2" '$1 == c && $2 == k { print $3 }' "$records" | sort -g |
        awk '{ a[NR] = $1 } END {
            if (!NR) exit
            m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
            # three or so significant digits, never an exponent
            if (m >= 100) printf "%.0f\n", m
            else if (m >= 10) printf "%.1f\n", m
            else if (m >= 1) printf "%.2f\n", m
            else if (m >= 0.01) printf "%.3f\n", m
            else printf "%.5f\n", m }'
}

# The floor is measured right before each round's ping-pong, and its median
# over rounds is shown like every other value.  (It used to be the best round,
# but this VM moves its two vCPUs between sharing a cache and not, which
# changes the floor 4-5x within minutes: a best round from one placement
# next to medians from the other compared different machines.)
floor_median() {
    median floor "$1"
}

# What to print where contender C has no value for KEY: the worst status of
# the jobs whose tag KEY starts with.
missing_note() {
    local c=$1 key=$2 found
    found=$(awk -v c="$c" -v k="$key:" '$1 == c && index(k, $2 ":") == 1 { print $3 }' "$statuses")
    case $found in
    *did-not-finish*) echo "did not finish" ;;
    *failed*) echo "failed" ;;
    *not-built*) echo "not built" ;;
    *absent*) echo "n/a" ;;
    *) echo "—" ;;
    esac
}

ratio() { # a b -> a/b, or — when either is not a number
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (!(a ~ /^[0-9.eE+-]+$/ && b ~ /^[0-9.eE+-]+$/ && b + 0 > 0)) { print "—"; exit }
        r = a / b
        if (r >= 0.1) printf "%.2f\n", r
        else if (r >= 0.001) printf "%.3f\n", r
        else print "<0.001" }'
}

# table TITLE FIRST-COLUMN DIRECTION PREFIX: one row per key that starts with
# PREFIX, in measured order; the part before the first ':' names the job group.
table() {
    local title=$1 unit=$2 better=$3 prefix=$4 key c v floor_key
    local group=${prefix%%:*} keys
    keys=$(awk -v g="$prefix:" 'index($2, g) == 1 && !seen[$2]++ { print $2 }' "$records")
    echo
    echo "### $title"
    echo
    if [ -z "$keys" ]; then
        echo "(no contender produced a result: $(for c in "${contenders[@]}"; do printf '%s: %s; ' "${label[$c]}" "$(missing_note "$c" "$prefix")"; done))"
        return
    fi
    if [ -n "$baseline_build" ]; then
        echo "| $unit | corempi | Open MPI | MPICH | floor | corempi/Open MPI ($better) | corempi/MPICH ($better) | baseline | corempi/baseline ($better) |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    else
        echo "| $unit | corempi | Open MPI | MPICH | floor | corempi/Open MPI ($better) | corempi/MPICH ($better) |"
        echo "|---|---:|---:|---:|---:|---:|---:|"
    fi
    for key in $keys; do
        local -A val=()
        for c in "${contenders[@]}"; do
            v=$(median "$c" "$key")
            val[$c]=${v:-$(missing_note "$c" "$key")}
        done
        # The floor of a point-to-point metric was measured under floor:<metric>
        # (latency at any size is the one cache-line hand-over).
        floor_key=""
        case $key in
        pingpong:latency:*) floor_key="floor:latency:0" ;;
        pingpong:bw:*) floor_key="floor:bw:${key##*:}" ;;
        # Every rank depends on every rank's call: one scheduling round each.
        coll8:barrier:0 | coll8:allreduce:8 | coll8:allgather:8 | coll8:alltoall:8 | coll8:reduce_scatter_block:8)
            floor_key="floor:sched:8" ;;
        esac
        v=""
        [ -n "$floor_key" ] && v=$(floor_median "$floor_key")
        local what=${key#"$prefix:"}
        printf '| %s | %s | %s | %s | %s | %s | %s |' "${what//:/ }" \
            "${val[corempi]}" "${val[openmpi]}" "${val[mpich]}" "${v:-—}" \
            "$(ratio "${val[corempi]}" "${val[openmpi]}")" "$(ratio "${val[corempi]}" "${val[mpich]}")"
        [ -n "$baseline_build" ] &&
            printf ' %s | %s |' "${val[baseline]}" "$(ratio "${val[corempi]}" "${val[baseline]}")"
        echo
    done
}

# The floor of a design with one queue per direction, next to corempi's
# 1-byte latency: how much of the gap to the one-line floor is software.
ring_floor_note() {
    local rf lat
    rf=$(floor_median "floor:latency_rings:0")
    lat=$(median corempi "pingpong:latency:1")
    [ -n "$rf" ] || return 0
    echo "Ring floor: a ring of lines per direction, the next line per message (what any two-queue design, MPI's included, must pay), same two threads: $rf µs; corempi 1 B / ring floor = $(ratio "$lat" "$rf")."
}

# The floor under the 8-rank rows whose every rank waits for every other.
sched_floor_note() {
    local f
    f=$(floor_median "floor:sched:8")
    [ -n "$f" ] || return 0
    echo
    echo "Scheduling floor: 8 processes pinned 4 to a core doing nothing but sched_yield take $f µs per round (every process ran once). A barrier, allreduce, allgather, alltoall or reduce_scatter_block cannot end on a rank before every other rank has run since its previous call, so a loop of them costs at least that per call in any library; corempi's barrier / floor = $(ratio "$(median corempi coll8:barrier:0)" "$f"), Open MPI's = $(ratio "$(median openmpi coll8:barrier:0)" "$f")."
}

report() {
    echo "## corempi benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $load_at_start."
    echo "Mode: ${quick:+quick, }$rounds round(s) at 2 ranks, $rounds8 at 8 ranks; each value is the median over rounds of each run's median over batches."
    echo "corempi from $corempi_build."
    if awk -v l="${load_at_start%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
        echo
        echo "**Warning: the machine was busy (load average ${load_at_start%% *} on $(nproc) cores): expect noisy numbers; re-run on an idle machine.**"
    fi
    table "Point-to-point, 2 ranks: one-way latency, µs (half a ping-pong round trip)" "bytes" "<1 = corempi faster" pingpong:latency
    echo
    echo "Latency floor: one cache line handed between two threads pinned to two cores (median over rounds)."
    ring_floor_note
    placement_note pingpong
    table "Point-to-point, 2 ranks: ping-pong bandwidth, GB/s (1e9 B/s)" "bytes" ">1 = corempi faster" pingpong:bw
    echo
    echo "Bandwidth floor: process_vm_readv of another process's buffer, the two pinned to different cores (one copy; median over rounds)."
    table "Message rate, 2 ranks: windows of 64 nonblocking 8 B sends, million msg/s" "bytes" ">1 = corempi faster" msgrate:rate
    placement_note msgrate
    table "Collectives, 2 ranks: µs per call (slowest rank)" "collective, bytes per rank" "<1 = corempi faster" coll2
    placement_note coll2
    table "Collectives, 8 ranks on $(nproc) cores: µs per call (slowest rank)" "collective, bytes per rank" "<1 = corempi faster" coll8
    sched_floor_note
    table "Start-up: wall time of \`mpirun -n 8 ./hello\`, ms (median of $hello_runs)" "ranks" "<1 = corempi faster" hello:ranks
    prof_table
}

# ---------------------------------------------------------------- profiler
# coreprof's cost under each MPI (issue 5): ns added per recorded call
# (bench/prof_overhead.sh: a Comm_rank loop and a ping-pong, medians of 1001
# blocks) and the slowdown of the demo program (bench/prof_demo.sh:
# alternating runs without/with the profiler, median of per-pair ratios).
run_prof() {
    [ -f "$corempi_build/lib/libcoreprof.so" ] || { log "profiler not built: no overhead table"; return; }
    log "[${SECONDS}s] profiler overhead: per call, then the demo program"
    ITERS=${PROF_ITERS:-1000} sh "$here/prof_overhead.sh" "$corempi_build" >"$work/prof_calls" 2>/dev/null
    PAIRS=${PROF_PAIRS:-$([ -n "$quick" ] && echo 3 || echo 31)} HEAT_ARGS=${PROF_HEAT_ARGS:-256 6000} \
        sh "$here/prof_demo.sh" "$corempi_build" >"$work/prof_demo" 2>/dev/null
    sh "$here/prof_poll.sh" "$corempi_build" >"$work/prof_poll" 2>/dev/null   # issue 19: polling loops
}
prof_table() {
    [ -s "$work/prof_calls" ] || [ -s "$work/prof_demo" ] || return 0
    echo
    echo "### Profiler overhead (coreprof)"
    echo
    echo "| MPI | ns added per call (Comm_rank loop) | ns added per call (ping-pong) | demo without, s | demo with, s | demo slowdown | records per rank | expected slowdown (records x ns / time) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for c in corempi openmpi mpich; do
        local calls pp off on slow recs
        read -r calls pp <<<"$(awk -v c=$c '$1 == c { print $4, $7 }' "$work/prof_calls" 2>/dev/null)"
        read -r off on slow recs <<<"$(awk -v c=$c '$1 == c && NF == 5 { print $2, $3, $4, $5 }' "$work/prof_demo" 2>/dev/null)"
        local expect="—"
        [ -n "$calls" ] && [ -n "$recs" ] && [ -n "$off" ] &&
            expect=$(awk -v r="$recs" -v ns="$calls" -v t="$off" 'BEGIN { printf "%.2f%%", r * ns / (t * 1e9) * 100 }')
        printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "${label[$c]}" "${calls:-not run}" "${pp:-not run}" \
            "${off:-not run}" "${on:-not run}" "${slow:+$slow%}" "${recs:-—}" "$expect"
    done
    echo
    echo "Demo: examples/heat2d ${PROF_HEAT_ARGS:-256 6000} at 2 ranks, ${PROF_PAIRS:-31} pairs (one core each), its own loop timing; slowdown = median over pairs of (with / without - 1), pairs run alternately.  The machine's run-to-run noise is a few percent: the expected figure, from the per-call cost and the number of records, is the steadier one."
    [ -s "$work/prof_poll" ] || return 0
    echo
    echo "Polling pattern (bench/prof_poll.c, 4 ranks on corempi: Iprobe, then Testall, until a message sent 0.2 s later arrives):"
    echo
    echo "| output | polls, all ranks | bytes, all ranks | bytes per poll | smaller than one 48-byte record per poll |"
    echo "|---|---:|---:|---:|---:|"
    awk '($1 == "trace" || $1 == "summary") && $3 == "bytes" {
        gsub(/[()]/, ""); p = $4 + $7
        printf "| %s | %d | %d | %.4f | %.0fx |\n", $1, p, $2, $2 / p, 48 * p / $2 }' "$work/prof_poll"
}

# ---------------------------------------------------------------- main
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
ensure_peers
build_all
[ -x "${launcher[corempi]%% *}" ] || log "corempi: no launcher at ${launcher[corempi]}"

# The existing tables ("classic"), then the application patterns.
if want_part classic; then
    for ((r = 0; r < rounds; r++)); do
        if ((r > 0 && SECONDS > budget * 45 / 100)); then
            log "time budget: stopping after $r round(s) at 2 ranks"; rounds=$r; break
        fi
        log "[${SECONDS}s] round $((r + 1))/$rounds: floor, pingpong, msgrate, collectives at 2 ranks"
        run_floor
        for c in $(rotation $r); do run_job "$c" pingpong "$limit2" 2 pingpong $qflag $vflag; done
        for c in $(rotation $r); do run_job "$c" msgrate "$limit2" 2 msgrate $qflag; done
        for c in $(rotation $r); do run_job "$c" coll2 "$limit2" 2 coll $qflag $vflag; done
    done
    for ((r = 0; r < rounds8; r++)); do
        if ((r > 0 && SECONDS > budget * 70 / 100)); then
            log "time budget: stopping after $r round(s) at 8 ranks"; rounds8=$r; break
        fi
        log "[${SECONDS}s] round $((r + 1))/$rounds8: collectives at 8 ranks (one job per collective, limit ${limit8}s each)"
        run_floor "floor_sched 8"
        # One job per collective: a library that stalls in one collective
        # still gets measured in the others.
        for part in $coll8_names; do
            for c in $(rotation $r); do run_job "$c" coll8 "$limit8" 8 coll $qflag -c "$part" -s "$coll8_sizes"; done
        done
        part=""
    done
    log "[${SECONDS}s] start-up: $hello_runs runs of mpirun -n 8 ./hello each"
    for ((i = 0; i < hello_runs; i++)); do
        for c in $(rotation $i); do time_hello "$c"; done
    done

    run_prof
fi
want_part patterns && run_patterns
want_part osc && run_osc
want_part io && run_io
want_part osc_sweep && run_osc_sweep
want_part threads && run_threads

mkdir -p "$(dirname "$results_md")"
saved=""
if want_part classic; then
    report | tee "$results_md"
    saved=$results_md
fi
if want_part patterns; then
    patterns_report | tee "$pattern_md"
    want_part classic && cat "$pattern_md" >>"$results_md"
    saved+=" $pattern_md"
fi
if want_part osc; then
    osc_report | tee "$osc_md"
    want_part classic && cat "$osc_md" >>"$results_md"
    saved+=" $osc_md"
fi
if want_part io; then
    io_report | tee "$io_md"
    want_part classic && cat "$io_md" >>"$results_md"
    saved+=" $io_md"
fi
if want_part placement; then
    placement_md="$here/results/placement.md"
    { echo "### Placement: predicted communication cost per --map-by policy (docs/placement.md)"; echo
      bash "$here/placement.sh" "$corempi_build"; } | tee "$placement_md"
    want_part classic && cat "$placement_md" >>"$results_md"
    saved+=" $placement_md"
fi
if want_part osc_sweep; then
    sweep_report | tee "$sweep_md"
    want_part classic && cat "$sweep_md" >>"$results_md"
    saved+=" $sweep_md"
fi
if want_part threads; then
    threads_report | tee "$threads_md"
    want_part classic && cat "$threads_md" >>"$results_md"
    saved+=" $threads_md"
fi
if want_part wing; then
    wing_md="$here/results/wing.md"
    { echo "### corempi's collectives inside Open MPI and MPICH (docs/wing.md)"; echo
      sh "$here/wing_run.sh" "$corempi_build"; } | tee "$wing_md"
    want_part classic && cat "$wing_md" >>"$results_md"
    saved+=" $wing_md"
fi
log "[${SECONDS}s] done; tables saved to$saved"
log "seconds spent per benchmark and contender (all rounds): $(awk '{ t[$1 " " $2] += $3 } END { for (k in t) printf "%s %ds; ", k, t[k] }' "$work/durations" 2>/dev/null)"
