# shellcheck shell=bash
# The application patterns and nonblocking collectives of `make bench`
# (issue 19): sourced by bench/run.sh, whose contenders, run_job, median,
# ratio and missing_note it uses.  Kept apart so that run.sh stays readable.
#
# Every program in bench/patterns prints lines
#   <program> ranks=N [label=value ...] [seed=S] <metric>=<value> ...
# where a metric is us_per_* or *_us or *_pct; run_job files each metric
# under <group>:<program>[:<label value>...]:<metric>.  A program whose
# source is missing (consensus.c comes from another change) shows "n/a".
# shellcheck disable=SC2154,SC2034  # variables shared with run.sh

pattern_programs=(consensus halo sparse masterworker amg_setup comd miniamr)
pattern_ranks=${BENCH_PATTERN_RANKS:-2 4 8}
nbc_names="ibarrier ibcast ireduce iallreduce igather iscatter iallgather ialltoall ireduce_scatter_block"
nbc_sizes="8 65536 1048576"
pattern_md="$here/results/patterns.md"

# Rows of the pattern table: key under pat<N>, what it is, its unit.
pattern_rows=(
    "consensus:us_per_round|consensus: Issend to min(3, n-1) peers, Iprobe+Recv+Testall, then Ibarrier+Test|µs per round"
    "halo:8:us_per_iter|halo 8 B: 2-D grid, Isend/Irecv, Testall between chunks of work|µs per iteration"
    "halo:16384:us_per_iter|halo 16 KiB: the same with 16 KiB messages|µs per iteration"
    "sparse:waitall:us_per_exchange|sparse: 6-26 links per rank, Waitall|µs per exchange"
    "sparse:waitany:us_per_exchange|sparse: the same, Waitany|µs per exchange"
    "sparse:waitsome:us_per_exchange|sparse: the same, Waitsome|µs per exchange"
    "masterworker:us_per_task|master-worker: Recv(ANY_SOURCE), ~1000 flops per task|µs per task"
    "amg_setup:us_per_setup|AMG setup skeleton: 8 levels of Iprobe contacts, Waitall exchanges, Allreduce, uneven work|µs per setup"
    "comd:step:us_per_step|CoMD skeleton: work, then 6 Sendrecv of 80-130 KB atom halos (self at 2 ranks)|µs per step"
    "comd:halo:us_per_step|CoMD skeleton: the 6 Sendrecv alone, no force computation|µs per exchange"
    "miniamr:us_per_stage|miniAMR skeleton: 3 axes of Irecv/Isend/Waitall of 128 KB faces, stencil, Allreduce|µs per stage"
)

if [ -n "$quick" ]; then
    pattern_secs=0.1; nbc_secs=0.01; consensus_rounds=${BENCH_CONSENSUS_ROUNDS:-50}
    pattern_limit=8; nbc_limit=5
else
    pattern_secs=0.3; nbc_secs=0.03; consensus_rounds=${BENCH_CONSENSUS_ROUNDS:-200}
    pattern_limit=12; nbc_limit=8
fi
pattern_rounds=${BENCH_PATTERN_ROUNDS:-1}

# build_patterns: every pattern program with every contender's mpicc.
declare -A pattern_absent # program -> 1 when its source is not in the tree
build_patterns() {
    local c p
    for p in "${pattern_programs[@]}" nbc; do
        if [ ! -f "$here/patterns/$p.c" ]; then
            pattern_absent[$p]=1
            log "patterns: no bench/patterns/$p.c: its rows show n/a"
            continue
        fi
        for c in "${contenders[@]}"; do
            command -v "${mpicc[$c]}" >/dev/null 2>&1 || continue
            # gnu11, not c11: a pattern may use POSIX calls (getopt) whose
            # declarations strict C11 hides.
            if "${mpicc[$c]}" -O2 -std=gnu11 -o "$work/$c/$p" "$here/patterns/$p.c" >>"$work/build-$c.log" 2>&1; then
                built["$c:$p"]=1
            else
                log "${label[$c]}: $p did not build:"
                tail -5 "$work/build-$c.log" >&2
            fi
        done
    done
}

# pattern_job CONTENDER GROUP LIMIT NRANKS PROG TAG ARGS...: run_job with its
# status under GROUP:TAG (the start of every key the job files), or "n/a"
# when the program's source is absent.  No placement check before 2-rank
# jobs: timing it costs seconds a job on a loaded machine, and the classic
# tables report the placement.
pattern_job() {
    local c=$1 group=$2 limit=$3 n=$4 prog=$5 tag=$6
    shift 6
    if [ -n "${pattern_absent[$prog]:-}" ]; then
        echo "$c $group:$tag absent" >>"$statuses"
        return
    fi
    part=$tag no_placement=1 run_job "$c" "$group" "$limit" "$n" "$prog" "$@"
}

run_patterns() {
    local n r p c name i=0
    pattern_load=$(cut -d' ' -f1-3 /proc/loadavg)
    pattern_started=$SECONDS
    for ((r = 0; r < pattern_rounds; r++)); do
        for n in $pattern_ranks; do
            log "[${SECONDS}s] patterns at $n ranks (round $((r + 1))/$pattern_rounds, limit ${pattern_limit}s per job)"
            for p in "${pattern_programs[@]}"; do
                local args=(-t "$pattern_secs")
                [ "$p" = consensus ] && args=(-r "$consensus_rounds")
                i=$((i + 1))
                for c in $(rotation $i); do pattern_job "$c" "pat$n" "$pattern_limit" "$n" "$p" "$p" "${args[@]}"; done
            done
            # One job per collective, as for the 8-rank collectives: a
            # library that stalls in one is still measured in the others.
            log "[${SECONDS}s] nonblocking collectives at $n ranks (one job per collective, limit ${nbc_limit}s each)"
            for name in $nbc_names; do
                i=$((i + 1))
                for c in $(rotation $i); do
                    pattern_job "$c" "nbc$n" "$nbc_limit" "$n" nbc "nbc:$name" -t "$nbc_secs" -c "$name"
                done
            done
        done
    done
    pattern_seconds=$((SECONDS - pattern_started))
}

pattern_tables() {
    local rows
    rows=$(printf '%s;' "${pattern_rows[@]}")
    awk -f "$here/patterns/report.awk" -v statuses="$statuses" -v ranks="$pattern_ranks" "$@" -v rows="${rows%;}" "$records"
}

patterns_report() {
    echo
    echo "## Application patterns and nonblocking collectives — $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores; load average when this part started: $pattern_load; it took ${pattern_seconds}s."
    echo "Mode: ${quick:+quick, }$pattern_rounds round(s); each pattern job measures for about ${pattern_secs}s per row (consensus: $consensus_rounds rounds), each nonblocking-collective figure for about ${nbc_secs}s; a cell is the median over rounds of each run's median over batches. Limits: ${pattern_limit}s per pattern job, ${nbc_limit}s per nonblocking-collective job (one per collective)."
    echo "corempi from $corempi_build.  Programs and what they check: bench/patterns/*.c, docs/bench.md."
    if awk -v l="${pattern_load%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
        echo
        echo "**Warning: the machine was busy (load average ${pattern_load%% *} on $(nproc) cores): expect noisy numbers; re-run on an idle machine.**"
    fi
    pattern_tables -v table=patterns
    pattern_tables -v table=nbc -v names="$nbc_names" -v sizes="$nbc_sizes"
    echo
    echo "Overlap % = 100 (1 - (Icoll + compute + Wait - compute) / (Icoll + Wait)), within 0..100, the computation as long as Icoll + Wait and free of MPI calls (the usual overlap benchmark): 100 means the collective completed behind the computation."
}
