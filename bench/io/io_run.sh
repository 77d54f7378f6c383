# shellcheck shell=bash
# MPI-IO in `make bench` (issue 37 item 6): sourced by bench/run.sh, whose
# contenders, run_job, rotation, table and the rest it uses.  Part "io"
# (BENCH_PARTS=io bash bench/run.sh): at 2 ranks, per contender and round,
#   io_interleaved.c  every rank owns interleaved 64 KiB blocks of a 128 MiB
#                     file through a vector view: write_all + sync, read_all
#                     (best of 3 in one job);
#   io_contig.c       a contiguous write_at_all of 1 GiB by all ranks against
#                     the same ranks' direct pwrite (median of 3, alternated).
# BENCH_QUICK: 32 MiB and 128 MiB, one round.  The contenders run in turn,
# starting one further along each round, and the tables give the medians over
# rounds and the ratios, as the other parts do.
# shellcheck disable=SC2154,SC2034,SC2086  # variables shared with run.sh; $qflag splits

io_md="$here/results/io.md"
io_rounds=${BENCH_IO_ROUNDS:-$([ -n "$quick" ] && echo 1 || echo 3)}
io_limit=$([ -n "$quick" ] && echo 120 || echo 300)
io_inter_mib=${BENCH_IO_INTER_MIB:-$([ -n "$quick" ] && echo 32 || echo 128)}
io_contig_mib=${BENCH_IO_CONTIG_MIB:-$([ -n "$quick" ] && echo 128 || echo 1024)}

build_io() {
    local c p
    for c in "${contenders[@]}"; do
        command -v "${mpicc[$c]}" >/dev/null 2>&1 || continue
        for p in io_interleaved io_contig; do
            if "${mpicc[$c]}" -O2 -std=c11 -D_GNU_SOURCE -o "$work/$c/$p" "$here/io/$p.c" >>"$work/build-$c.log" 2>&1; then
                built["$c:$p"]=1
            else
                log "${label[$c]}: $p did not build:"
                tail -2 "$work/build-$c.log" >&2
            fi
        done
    done
}

run_io() {
    local r c
    for ((r = 0; r < io_rounds; r++)); do
        log "[${SECONDS}s] round $((r + 1))/$io_rounds: MPI-IO at 2 ranks (${io_inter_mib} MiB interleaved, ${io_contig_mib} MiB contiguous)"
        for c in $(rotation "$r"); do run_job "$c" io "$io_limit" 2 io_interleaved "$io_inter_mib" 64 3; done
        for c in $(rotation "$r"); do run_job "$c" iocontig "$io_limit" 2 io_contig "$io_contig_mib" 3; done
    done
}

io_report() {
    echo
    echo "## MPI-IO — $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Load average at start: $load_at_start ($(nproc) cores). $io_rounds round(s), 2 ranks, files in /tmp ($(df -T /tmp 2>/dev/null | awk 'NR == 2 { print $2 }')); \`BENCH_PARTS=io bash bench/run.sh\`."
    table "Interleaved 64 KiB blocks through a vector view, ${io_inter_mib} MiB file: seconds (best of 3 per job)" \
        "call, file bytes" "<1 = corempi faster" io
    table "Contiguous collective write of ${io_contig_mib} MiB by all ranks against their direct pwrite: seconds; ratio = write_at_all rate / pwrite rate (the issue asks >= 0.8)" \
        "metric, file bytes" "time: <1 = corempi faster" iocontig
}
