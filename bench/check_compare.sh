#!/bin/sh
# The verdict of make bench-check (bench/check.sh): a new build against a base,
# cell by cell, per placement.
#
#   sh bench/check_compare.sh [-t THRESHOLD] RECORDS [RECHECK_RECORDS]
#
# RECORDS (and RECHECK_RECORDS) hold one line per run, as bench/ab.sh's
# AB_RECORDS writes them: "<placement> <side> <what> <value>", side A the new
# build, B the base.  Rows bw:N are GB/s (higher is better), every other row
# is a time (lower is better).  Per placement and cell the two sides are
# compared twice: their medians and their best runs.  The slowdown is new time
# / base time (base GB/s / new GB/s for bw rows); a cell fails when both
# slowdowns exceed 1 + THRESHOLD (default 0.10).  The best run is the one the
# machine's other jobs disturbed least: on a loaded machine the medians of two
# equal builds differ by 2x, their best runs far less, while a change that
# makes the code slower moves both.  Only placements and cells that both sides
# measured at least BENCH_CHECK_MIN_RUNS times (default 3) are compared: a
# hand-over time that differs 5x between placements makes any other ratio
# meaningless, and a median of one run is that run; the rest gets a note.
#
# With RECHECK_RECORDS (a second, later pass over the failing cells), a cell
# failing in RECORDS fails only if it fails again in the recheck on the same
# placement, or if the recheck has too few runs there (then nothing clears
# it).
#
# Prints Markdown tables and a last line starting "bench-check: ok",
# "bench-check: FAIL" or "bench-check: nothing compared".  When
# BENCH_CHECK_FAILS names a file, the failing cells ("<placement> <what>")
# go there, one a line.  Exit 0 ok, 1 a cell slower, 2 nothing comparable.
set -u
t=0.10
[ "${1:-}" = -t ] && { t=${2:?threshold}; shift 2; }
rec=${1:?usage: check_compare.sh [-t THRESHOLD] RECORDS [RECHECK_RECORDS]}
recheck=${2:-}
[ -r "$rec" ] || { echo "check_compare.sh: cannot read $rec" >&2; exit 2; }
[ -z "$recheck" ] || [ -r "$recheck" ] || { echo "check_compare.sh: cannot read $recheck" >&2; exit 2; }
fails=${BENCH_CHECK_FAILS:-/dev/null}
awk -v t="$t" -v fails="$fails" -v minruns="${BENCH_CHECK_MIN_RUNS:-3}" -v have2="$([ -n "$recheck" ] && echo 1 || echo 0)" '
FNR == 1 { pass++ }
NF >= 4 && ($2 == "A" || $2 == "B") {
    k = $1 SUBSEP $3
    v[pass, $1, $2, $3, ++n[pass, $1, $2, $3]] = $4
    if (pass == 1 && !(k in seen)) { seen[k] = 1; order[++nk] = k }
    saw[pass, $1, $2] = 1
}
function median(q, p, s, key,   m, i, j, x, y) {
    m = n[q, p, s, key]; if (!m) return ""
    for (i = 1; i <= m; i++) x[i] = v[q, p, s, key, i]
    for (i = 2; i <= m; i++) { y = x[i]; for (j = i - 1; j >= 1 && x[j] > y; j--) x[j + 1] = x[j]; x[j + 1] = y }
    return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
}
# The best run of a side: the least time, the most GB/s.
function best(q, p, s, key,   m, i, x, bw) {
    m = n[q, p, s, key]; bw = key ~ /^bw:/
    for (i = 1; i <= m; i++) if (i == 1 || (bw ? v[q, p, s, key, i] > x : v[q, p, s, key, i] < x)) x = v[q, p, s, key, i]
    return x
}
function ratio(key, a, b) { return key ~ /^bw:/ ? b / a : a / b }
# Slowdowns of the new build (A) against the base (B) into sl["median"] and
# sl["best"]; 0 when a side has fewer than minruns runs.
function slowdown(q, p, key,   a, b) {
    if (n[q, p, "A", key] < minruns || n[q, p, "B", key] < minruns) return 0
    a = median(q, p, "A", key); b = median(q, p, "B", key)
    if (a <= 0 || b <= 0) return 0
    sl["median"] = ratio(key, a, b); sl["best"] = ratio(key, best(q, p, "A", key), best(q, p, "B", key))
    return 1
}
function slower() { return sl["median"] > limit && sl["best"] > limit }
END {
    limit = 1 + t; compared = 0; nfail = 0; failed = ""
    split("shared split", ps, " ")
    for (q = 1; q <= 2; q++) {
        p = ps[q]
        if (!saw[1, p, "A"] && !saw[1, p, "B"]) continue
        if (!saw[1, p, "A"] || !saw[1, p, "B"]) {
            notes = notes sprintf("- placement %s: only the %s build ran on it; not compared.\n", p, saw[1, p, "A"] ? "new" : "base")
            continue
        }
        header = sprintf("\n### placement: %s caches\n\n", p)
        header = header sprintf("| what | new, median | base, median | slowdown: median, best run | runs new, base |%s verdict |\n", have2 ? " recheck |" : "")
        header = header sprintf("|---|---:|---:|---:|---:|%s---|\n", have2 ? "---:|" : "")
        for (i = 1; i <= nk; i++) {
            split(order[i], kk, SUBSEP); if (kk[1] != p) continue
            key = kk[2]
            if (!slowdown(1, p, key)) {
                few[p] = few[p] sprintf(" %s (%d, %d)", key, n[1, p, "A", key], n[1, p, "B", key])
                continue
            }
            compared++; verdict = "ok"; re = ""; r = sprintf("%.2f, %.2f", sl["median"], sl["best"])
            if (slower()) {
                verdict = "**FAIL**"
                if (have2) {
                    if (!slowdown(2, p, key)) re = "too few runs"
                    else { re = sprintf("%.2f, %.2f", sl["median"], sl["best"]); if (!slower()) verdict = "ok (noise: recheck passed)" }
                }
            }
            if (verdict == "**FAIL**") {
                nfail++; failed = failed sprintf(" %s/%s %s%s", p, key, r, re != "" ? " (recheck " re ")" : "")
                print p, key > fails
            }
            unit = key ~ /^bw:/ ? " GB/s" : " µs"
            printf "%s", header; header = ""
            printf "| %s | %.4g%s | %.4g%s | %s | %d, %d |%s %s |\n", key, median(1, p, "A", key), unit,
                median(1, p, "B", key), unit, r, n[1, p, "A", key], n[1, p, "B", key], have2 ? " " re " |" : "", verdict
        }
    }
    for (q = 1; q <= 2; q++) if (few[ps[q]] != "")
        notes = notes sprintf("- %s: fewer than %d runs of new or base (runs new, base), skipped:%s.\n", ps[q], minruns, few[ps[q]])
    if (notes != "") printf "\n%s", notes
    if (!compared) { printf "\nbench-check: nothing compared (no cell that both builds measured %d times on one placement)\n", minruns; exit 2 }
    if (nfail) { printf "\nbench-check: FAIL: %d of %d cells more than %d%% slower:%s\n", nfail, compared, t * 100 + 0.5, failed; exit 1 }
    printf "\nbench-check: ok: %d cells compared, none more than %d%% slower\n", compared, t * 100 + 0.5
}' "$rec" ${recheck:+"$recheck"}
