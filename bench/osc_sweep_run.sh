# shellcheck shell=bash
# The OSU-style one-sided sweep in `make bench` (issue 38 item 1): sourced by
# bench/run.sh, whose contenders, built, run_job, rotation and records it
# uses.  bench/osc_sweep.c runs at 2 ranks as one job per operation and
# window flavour (every synchronisation mode and size inside), so a library
# that crashes on one combination (Open MPI 4.1's Compare_and_swap on
# Win_allocate windows does) loses only those cells.  The report gives, per
# operation, corempi/Open MPI for every flavour x mode x size, the cells
# where corempi is slower, and whether the bar holds: every
# accumulate cell at most 1.0x Open MPI.
# shellcheck disable=SC2154,SC2034,SC2086  # variables shared with run.sh; $qflag splits

sweep_md="$here/results/osc_sweep.md"
sweep_rounds=${BENCH_SWEEP_ROUNDS:-$([ -n "$quick" ] && echo 1 || echo 3)}
sweep_limit=$([ -n "$quick" ] && echo 60 || echo 240)
sweep_ops=${BENCH_SWEEP_OPS:-put get acc get_acc fop cas}   # e.g. BENCH_SWEEP_OPS="acc fop"
sweep_flavours="create allocate allocate_shared dynamic"

build_osc_sweep() {
    build_for_all osc_sweep
}

run_osc_sweep() {
    local r c op f
    for ((r = 0; r < sweep_rounds; r++)); do
        if ((r > 0 && SECONDS > budget * 3)); then
            log "time budget: stopping the sweep after $r round(s)"; sweep_rounds=$r; break
        fi
        log "[${SECONDS}s] round $((r + 1))/$sweep_rounds: one-sided sweep at 2 ranks"
        for f in $sweep_flavours; do
            for op in $sweep_ops; do
                part="${op}_$f"
                for c in $(rotation "$r"); do
                    run_job "$c" oscsweep "$sweep_limit" 2 osc_sweep $qflag -w "$f" -o "$op"
                done
            done
        done
        part=""
    done
}

# sweep_report: the tables, from every contender's median of each cell.
sweep_report() {
    echo
    echo "### One-sided sweep, 2 ranks (bench/osc_sweep.c; µs per operation as OSU measures it; median of $sweep_rounds round(s))"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); load average at start: $load_at_start (on $(nproc) cores). Command: \`BENCH_PARTS=osc_sweep${quick:+ BENCH_QUICK=1}${BENCH_SWEEP_OPS:+ BENCH_SWEEP_OPS=\"$sweep_ops\"} bash bench/run.sh\`."
    awk -v st="$statuses" -v ops="$sweep_ops" -v flavs="$sweep_flavours" '
    function med(c, k,   n, i, j, t, a) {
        n = cnt[c, k]; if (!n) return ""
        for (i = 1; i <= n; i++) a[i] = val[c, k, i]
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function fmt(v) {
        if (v == "") return "—"
        if (v >= 100) return sprintf("%.0f", v); if (v >= 10) return sprintf("%.1f", v)
        if (v >= 1) return sprintf("%.2f", v); return sprintf("%.3f", v)
    }
    function note(c, op, f,   s) { s = stat[c, "oscsweep:" op "_" f]; return s == "" || s == "ok" ? "—" : s }
    function size(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
    FILENAME == st { if ($3 != "ok") stat[$1, $2] = $3; else if (!(($1, $2) in stat)) stat[$1, $2] = "ok"; next }
    $2 ~ /^oscsweep:/ {
        split($2, k, ":"); cell = k[2] ":" k[3] ":" k[4]
        val[$1, cell, ++cnt[$1, cell]] = $3
        if (!(k[4] in seen_size)) { seen_size[k[4]] = 1; sizes[++ns] = k[4] + 0 }
        if (!((k[2] ":" k[3]) in seen_row)) { seen_row[k[2] ":" k[3]] = 1 }
    }
    END {
        for (i = 2; i <= ns; i++) { t = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] > t; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = t }
        nsync = split("lock flush flush_local lock_all fence pscw", syncs, " ")
        nop = split(ops, opl, " "); nfl = split(flavs, fll, " ")
        nlose = 0
        for (o = 1; o <= nop; o++) {
            op = opl[o]; single = op == "fop" || op == "cas"
            printf "\n#### %s: corempi / Open MPI (<1 = corempi faster; **bold** = corempi slower)\n\n", op
            hdr = "| window, sync |"; sep = "|---|"
            for (z = 1; z <= ns; z++) { if (single && sizes[z] != 8) continue; hdr = hdr " " size(sizes[z]) " |"; sep = sep "---:|" }
            print hdr; print sep
            worst[op] = 0; cells[op] = 0; wins[op] = 0
            for (f = 1; f <= nfl; f++) for (s = 1; s <= nsync; s++) {
                row = op "_" fll[f] ":" syncs[s]
                if (!(row in seen_row)) continue
                line = "| " fll[f] ", " syncs[s] " |"
                for (z = 1; z <= ns; z++) {
                    if (single && sizes[z] != 8) continue
                    cell = row ":" sizes[z]
                    c = med("corempi", cell); p = med("openmpi", cell); m = med("mpich", cell)
                    if (c == "" || p == "" || p <= 0) {
                        line = line " " (c == "" ? note("corempi", op, fll[f]) : p == "" ? "Open MPI " note("openmpi", op, fll[f]) : "—") " |"
                        continue
                    }
                    r = c / p; cells[op]++
                    if (r <= 1.0) wins[op]++
                    if (r > worst[op]) { worst[op] = r; worst_at[op] = fll[f] ", " syncs[s] ", " size(sizes[z]) }
                    line = line sprintf(r > 1.0 ? " **%.2f** |" : " %.2f |", r)
                    if (r > 1.0) lose[++nlose] = sprintf("| %s | %s, %s | %s | %s | %s | %s | %.2f | %s |", op, fll[f], syncs[s], size(sizes[z]), fmt(c), fmt(p), fmt(m), r, m > 0 ? sprintf("%.2f", c / m) : "—")
                }
                print line
            }
        }
        printf "\n#### Cells where corempi is slower than Open MPI\n\n"
        if (!nlose) print "None."
        else {
            print "| op | window, sync | size | corempi µs | Open MPI µs | MPICH µs | corempi/Open MPI | corempi/MPICH |"
            print "|---|---|---|---:|---:|---:|---:|---:|"
            for (i = 1; i <= nlose; i++) print lose[i]
        }
        printf "\n#### Where the target stands (every accumulate cell at most 1.0x Open MPI)\n\n"
        print "| op | cells compared | at most 1.0x | worst ratio | at | stands |"
        print "|---|---:|---:|---:|---|---|"
        for (o = 1; o <= nop; o++) {
            op = opl[o]; acc = op == "acc" || op == "get_acc" || op == "fop" || op == "cas"
            printf "| %s | %d | %d | %.2f | %s | %s |\n", op, cells[op], wins[op], worst[op], worst_at[op] == "" ? "—" : worst_at[op],
                !acc ? "—" : cells[op] && wins[op] == cells[op] ? "met" : "not met"
        }
    }' "$statuses" "$records"
    echo
    echo "Cells: the median over rounds of each run's median over batches; a ratio compares medians of the same rounds, the contenders alternated (A B C, B C A, ...). A cell without a ratio names why (a crash, a time-out) in the library that lacks the value."
    placement_note oscsweep
}
