#!/bin/sh
# The verdict of make bench-check (bench/check.sh): a new build against a base,
# cell by cell, per placement.
#
#   sh bench/check_compare.sh [-t THRESHOLD] RECORDS [RECHECK_RECORDS]
#
# RECORDS (and RECHECK_RECORDS) hold one line per run, as bench/ab.sh's
# AB_RECORDS writes them: "<placement> <side> <what> <value>", side A the new
# build, B the base.  Rows bw:N are GB/s (higher is better), every other row
# is a time (lower is better).  Per placement and cell the medians of the two
# sides are compared; the slowdown is new time / base time (base GB/s / new
# GB/s for bw rows) and a cell fails when it exceeds 1 + THRESHOLD (default
# 0.10).  Only placements and cells both sides measured are compared: a
# hand-over time that differs 5x between placements makes any other ratio
# meaningless; the rest gets a note.
#
# With RECHECK_RECORDS (a second, later pass over the failing cells), a cell
# failing in RECORDS fails only if it fails again in the recheck on the same
# placement, or if the recheck did not see that placement (then nothing
# clears it).
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
awk -v t="$t" -v fails="$fails" -v have2="$([ -n "$recheck" ] && echo 1 || echo 0)" '
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
# Slowdown of the new build (A) against the base (B); "" when a side is missing.
function slowdown(q, p, key,   a, b) {
    a = median(q, p, "A", key); b = median(q, p, "B", key)
    if (a == "" || b == "" || a <= 0 || b <= 0) return ""
    return key ~ /^bw:/ ? b / a : a / b
}
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
        printf "\n### placement: %s caches\n\n", p
        printf "| what | new | base | slowdown (new/base time) | runs new, base |%s verdict |\n", have2 ? " recheck |" : ""
        printf "|---|---:|---:|---:|---:|%s---|\n", have2 ? "---:|" : ""
        for (i = 1; i <= nk; i++) {
            split(order[i], kk, SUBSEP); if (kk[1] != p) continue
            key = kk[2]; r = slowdown(1, p, key)
            if (r == "") {
                notes = notes sprintf("- %s on %s: only the %s build measured it; skipped.\n", key, p, n[1, p, "A", key] ? "new" : "base")
                continue
            }
            compared++; verdict = "ok"; re = ""
            if (r > limit) {
                verdict = "**FAIL**"
                if (have2) {
                    r2 = slowdown(2, p, key)
                    if (r2 == "") re = "not seen"
                    else { re = sprintf("%.2f", r2); if (r2 <= limit) verdict = "ok (noise: recheck passed)" }
                }
            }
            if (verdict == "**FAIL**") {
                nfail++; failed = failed sprintf(" %s/%s %.2f%s", p, key, r, re != "" ? " (recheck " re ")" : "")
                print p, key > fails
            }
            unit = key ~ /^bw:/ ? " GB/s" : " µs"
            printf "| %s | %.4g%s | %.4g%s | %.2f | %d, %d |%s %s |\n", key, median(1, p, "A", key), unit,
                median(1, p, "B", key), unit, r, n[1, p, "A", key], n[1, p, "B", key], have2 ? " " re " |" : "", verdict
        }
    }
    if (notes != "") printf "\n%s", notes
    if (!compared) { print "\nbench-check: nothing compared (no placement and cell that both builds measured)"; exit 2 }
    if (nfail) { printf "\nbench-check: FAIL: %d of %d cells more than %d%% slower:%s\n", nfail, compared, t * 100 + 0.5, failed; exit 1 }
    printf "\nbench-check: ok: %d cells compared, none more than %d%% slower\n", compared, t * 100 + 0.5
}' "$rec" ${recheck:+"$recheck"}
