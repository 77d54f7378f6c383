# shellcheck shell=bash
# Threads in `make bench` (issue 35 item 4): sourced by bench/run.sh, whose
# contenders, run_job, median, ratio and missing_note it uses.
# bench/thread_msgrate.c runs per contender and round in six shapes, each
# thread (or process) pair on its own communicator: 2 ranks with 1, 2 and 4
# threads each (1 thread at MPI_THREAD_SINGLE, and once more at MULTIPLE),
# and 4 and 8 single-threaded processes in 2 and 4 pairs -- the same number
# of senders as 2 and 4 threads per rank.  BENCH_PARTS=threads runs only it.
# shellcheck disable=SC2154,SC2034,SC2086  # variables shared with run.sh; $qflag splits

threads_md="$here/results/threads.md"
threads_rounds=${BENCH_THREADS_ROUNDS:-$([ -n "$quick" ] && echo 1 || echo 3)}
threads_limit=$([ -n "$quick" ] && echo 60 || echo 120)

# group|ranks|arguments|what
threads_shapes=(
    "thr_t1|2|-t 1|2 ranks x 1 thread (SINGLE)"
    "thr_m1|2|-t 1 -m|2 ranks x 1 thread (MULTIPLE)"
    "thr_t2|2|-t 2|2 ranks x 2 threads"
    "thr_t4|2|-t 4|2 ranks x 4 threads"
    "thr_p2|4|-t 1|4 processes, 2 pairs"
    "thr_p4|8|-t 1|8 processes, 4 pairs"
)

build_threads() {
    local c
    for c in "${contenders[@]}"; do
        command -v "${mpicc[$c]}" >/dev/null 2>&1 || continue
        if "${mpicc[$c]}" -O2 -std=c11 -pthread -o "$work/$c/thread_msgrate" "$here/thread_msgrate.c" \
            >>"$work/build-$c.log" 2>&1; then
            built["$c:thread_msgrate"]=1
        else
            log "${label[$c]}: thread_msgrate did not build:"
            tail -2 "$work/build-$c.log" >&2
        fi
    done
}

run_threads() {
    local r c shape group n args
    # corempi grants MPI_THREAD_MULTIPLE only when asked (docs/threads.md);
    # the other libraries ignore the variable.
    export COREMPI_THREAD_MULTIPLE=1
    for ((r = 0; r < threads_rounds; r++)); do
        log "[${SECONDS}s] round $((r + 1))/$threads_rounds: threads and processes, message rate and latency"
        for shape in "${threads_shapes[@]}"; do
            IFS='|' read -r group n args _ <<<"$shape"
            for c in $(rotation "$r"); do run_job "$c" "$group" "$threads_limit" "$n" thread_msgrate $qflag $args; done
        done
    done
    unset COREMPI_THREAD_MULTIPLE
}

# threads_target TEXT VALUE BOUND SENSE: a row of the targets' table.
threads_target() {
    local stands="—"
    if [[ $2 =~ ^[0-9.]+$ ]]; then
        stands=$(awk -v v="$2" -v b="$3" -v s="$4" 'BEGIN { ok = s == "ge" ? v >= b : v <= b; print ok ? "met" : "not met" }')
    fi
    echo "| $1 | $2 | $stands |"
}

threads_report() {
    local shape group n args what c key
    echo
    echo "### Threads: 8-byte message rate and latency, each thread (or process) pair on its own communicator"
    echo
    echo "Load average at start: $load_at_start.  Rate: million messages/s of the whole job (windows of 64 nonblocking sends, the msgrate pattern per pair); latency: one-way µs of an 8-byte ping-pong, all pairs at once.  Medians over $threads_rounds round(s), contenders alternated."
    echo
    echo "| shape | corempi rate | Open MPI rate | MPICH rate | corempi latency | Open MPI latency | MPICH latency |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for shape in "${threads_shapes[@]}"; do
        IFS='|' read -r group n args what <<<"$shape"
        printf '| %s |' "$what"
        for key in "$group:rate:8" "$group:lat:8"; do
            for c in corempi openmpi mpich; do
                local v
                v=$(median "$c" "$key")
                printf ' %s |' "${v:-$(missing_note "$c" "$key")}"
            done
        done
        echo
    done
    echo
    echo "| target (issue 35) | value | stands |"
    echo "|---|---:|---|"
    threads_target "2x2 threads / 4 processes in 2 pairs, message rate (≥ 0.7)" \
        "$(ratio "$(median corempi thr_t2:rate:8)" "$(median corempi thr_p2:rate:8)")" 0.7 ge
    threads_target "2x2 threads, corempi / Open MPI, message rate (≥ 1.0)" \
        "$(ratio "$(median corempi thr_t2:rate:8)" "$(median openmpi thr_t2:rate:8)")" 1.0 ge
    threads_target "1 thread at MULTIPLE / at SINGLE, 8-byte latency (≤ 1.2)" \
        "$(ratio "$(median corempi thr_m1:lat:8)" "$(median corempi thr_t1:lat:8)")" 1.2 le
}
