# shellcheck shell=bash
# One-sided communication in `make bench` (issue 23 item 6): sourced by
# bench/run.sh, whose contenders, run_job, median, ratio and missing_note it
# uses.  bench/osc_bench.c runs twice per contender and round, at 2 ranks:
# "-p rma" (group osc: Put/Get/Accumulate/Fetch_and_op on Win_allocate, under
# lock_all+flush and under fence) and "-p shm" (group oscshm: stores through
# Win_allocate_shared against a plain memcpy into POSIX shared memory, the
# floor).  Separate jobs, so a library that fails on shared windows (Open
# MPI 4.1 did, issue 23) loses only those cells.
# shellcheck disable=SC2154,SC2034,SC2086  # variables shared with run.sh; $qflag splits

osc_md="$here/results/osc.md"
osc_rounds=${BENCH_OSC_ROUNDS:-$([ -n "$quick" ] && echo 1 || echo 3)}
osc_limit=$([ -n "$quick" ] && echo 60 || echo 120)

# build_osc: osc_bench with every contender's mpicc (a corempi whose mpi.h
# has no windows yet fails to build it: its cells say "not built").
build_osc() {
    build_for_all osc_bench
}

run_osc() {
    local r c
    for ((r = 0; r < osc_rounds; r++)); do
        log "[${SECONDS}s] round $((r + 1))/$osc_rounds: one-sided at 2 ranks"
        for c in $(rotation "$r"); do run_job "$c" osc "$osc_limit" 2 osc_bench $qflag -p rma; done
        for c in $(rotation "$r"); do run_job "$c" oscshm "$osc_limit" 2 osc_bench $qflag -p shm; done
    done
}

# Rows: key|what|unit|target (the issue's, ratios in one run)|how to judge it
osc_rows=(
    "osc:put_lat_flush:8|Put 8 B + Win_flush (lock_all)|µs|≤1.0x Open MPI, ≤0.25x MPICH|lat"
    "osc:get_lat_flush:8|Get 8 B + Win_flush (lock_all)|µs|≤1.0x Open MPI, ≤0.25x MPICH|lat"
    "osc:fop_lat:8|Fetch_and_op SUM long + Win_flush|µs|≤1.0x Open MPI, ≤0.25x MPICH|lat"
    "osc:fop_rate:8|Fetch_and_op SUM long, 64 per flush|M ops/s||"
    "osc:acc_rate:8|Accumulate SUM 1 double, 64 per flush|M ops/s||"
    "osc:fence_lat:0|Win_fence, no operations|µs|≤0.6x Open MPI|fence"
    "osc:put_lat_fence:8|Put 8 B + Win_fence|µs||"
    "osc:get_lat_fence:8|Get 8 B + Win_fence|µs||"
    "osc:put_bw_flush:65536|Put 64 KiB + Win_flush|GB/s||"
    "osc:put_bw_flush:1048576|Put 1 MiB + Win_flush|GB/s|≥1.0x Open MPI, ≥0.8x floor|bw"
    "osc:put_bw_flush:4194304|Put 4 MiB + Win_flush|GB/s||"
    "osc:get_bw_flush:65536|Get 64 KiB + Win_flush|GB/s||"
    "osc:get_bw_flush:1048576|Get 1 MiB + Win_flush|GB/s|≥1.0x Open MPI, ≥0.8x floor|bw"
    "osc:get_bw_flush:4194304|Get 4 MiB + Win_flush|GB/s||"
    "osc:put_bw_fence:65536|Put 64 KiB + Win_fence|GB/s||"
    "osc:put_bw_fence:1048576|Put 1 MiB + Win_fence|GB/s||"
    "osc:put_bw_fence:4194304|Put 4 MiB + Win_fence|GB/s||"
    "osc:get_bw_fence:65536|Get 64 KiB + Win_fence|GB/s||"
    "osc:get_bw_fence:1048576|Get 1 MiB + Win_fence|GB/s||"
    "osc:get_bw_fence:4194304|Get 4 MiB + Win_fence|GB/s||"
    "oscshm:shm_store_bw:65536|memcpy 64 KiB into a peer's Win_allocate_shared segment|GB/s||"
    "oscshm:shm_store_bw:1048576|memcpy 1 MiB into a peer's Win_allocate_shared segment|GB/s||"
    "oscshm:shm_store_bw:4194304|memcpy 4 MiB into a peer's Win_allocate_shared segment|GB/s||"
    "oscshm:shm_memcpy_floor:65536|floor: memcpy 64 KiB into plain POSIX shared memory|GB/s||"
    "oscshm:shm_memcpy_floor:1048576|floor: memcpy 1 MiB into plain POSIX shared memory|GB/s||"
    "oscshm:shm_memcpy_floor:4194304|floor: memcpy 4 MiB into plain POSIX shared memory|GB/s||"
)

# osc_stands KIND CORE OMPI MPICH FLOOR: "met", "not met" or "—".
osc_stands() {
    awk -v k="$1" -v c="$2" -v o="$3" -v m="$4" -v f="$5" 'BEGIN {
        num = "^[0-9.eE+-]+$"
        if (k == "" || c !~ num || o !~ num || o + 0 <= 0) { print "—"; exit }
        if (k == "lat") { if (m !~ num) { print "—"; exit }; ok = c / o <= 1.0 && c / m <= 0.25 }
        else if (k == "fence") ok = c / o <= 0.6
        else if (k == "bw") { if (f !~ num) { print "—"; exit }; ok = c / o >= 1.0 && c / f >= 0.8 }
        print ok ? "met" : "not met" }'
}

osc_report() {
    local row key what unit target kind c v
    echo
    echo "### One-sided, 2 ranks (bench/osc_bench.c; median of $osc_rounds round(s))"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); load average at start: $load_at_start (on $(nproc) cores)."
    echo
    echo "| operation | unit | corempi | Open MPI | MPICH | corempi/Open MPI | corempi/MPICH | target | stands |"
    echo "|---|---|---:|---:|---:|---:|---:|---|---|"
    # The floor involves no MPI: corempi's job measured it, or else a peer's.
    local floor1m
    for c in corempi openmpi mpich; do
        floor1m=$(median "$c" "oscshm:shm_memcpy_floor:1048576")
        [ -n "$floor1m" ] && break
    done
    for row in "${osc_rows[@]}"; do
        IFS='|' read -r key what unit target kind <<<"$row"
        local -A val=()
        for c in corempi openmpi mpich; do
            v=$(median "$c" "$key")
            val[$c]=${v:-$(missing_note "$c" "$key")}
        done
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$what" "$unit" \
            "${val[corempi]}" "${val[openmpi]}" "${val[mpich]}" \
            "$(ratio "${val[corempi]}" "${val[openmpi]}")" "$(ratio "${val[corempi]}" "${val[mpich]}")" \
            "${target:-—}" "$(osc_stands "$kind" "${val[corempi]}" "${val[openmpi]}" "${val[mpich]}" "$floor1m")"
    done
    echo
    echo "Latencies and times: <1 = corempi faster; bandwidths and rates: >1 = corempi faster. The floor of the bandwidth targets is the floor row at 1 MiB (corempi's job's, else a peer's), measured in the same run."
    placement_note osc
}
