# The tables of the patterns' part of `make bench`, from run.sh's statuses
# and records, in one pass (a process per cell took minutes on a loaded
# machine).  Same cells as run.sh's tables: the median over runs, three or so
# significant digits; where a contender has no value, the worst status of the
# jobs whose tag starts its key.
#   awk -f report.awk -v table=patterns -v ranks="2 4 8" -v rows="key|what|unit;..." -v statuses=FILE RECORDS
#   awk -f report.awk -v table=nbc -v ranks=... -v names="ibarrier ..." -v sizes="8 ..." -v statuses=FILE RECORDS
# STATUSES: "<contender> <tag> <status>"; RECORDS: "<contender> <key> <value>".

function num(m) {
    if (m >= 100) return sprintf("%.0f", m)
    if (m >= 10) return sprintf("%.1f", m)
    if (m >= 1) return sprintf("%.2f", m)
    if (m >= 0.01) return sprintf("%.3f", m)
    return sprintf("%.5f", m)
}

function median(c, key,    n, i, j, t, a) {
    n = count[c, key]
    if (!n) return ""
    for (i = 1; i <= n; i++) a[i] = vals[c, key, i] + 0
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function missing(c, key,    i, worst, s) {
    worst = 0
    for (i = 1; i <= nst; i++)
        if (st_c[i] == c && index(key ":", st_tag[i] ":") == 1) {
            s = st_s[i]
            if (s == "did-not-finish") s = 4
            else if (s == "failed") s = 3
            else if (s == "not-built") s = 2
            else if (s == "absent") s = 1
            else s = 0
            if (s > worst) worst = s
        }
    return worst == 4 ? "did not finish" : worst == 3 ? "failed" : worst == 2 ? "not built" : worst == 1 ? "n/a" : "—"
}

# A cell: the median formatted as a time, as a whole percent, or why none.
function cell(c, key, pct,    m) {
    m = median(c, key)
    if (m == "") return missing(c, key)
    return pct ? sprintf("%.0f", m) : num(m)
}

function ratio(a, b,    r) {
    if (!(a ~ /^[0-9.eE+-]+$/ && b ~ /^[0-9.eE+-]+$/ && b + 0 > 0)) return "—"
    r = a / b
    if (r >= 0.1) return sprintf("%.2f", r)
    if (r >= 0.001) return sprintf("%.3f", r)
    return "<0.001"
}

function patterns_table(    nr, nn, i, j, f, r, n, v0, v1, v2) {
    print ""
    print "### Application patterns: time per round, iteration, exchange or task, µs (slowest rank)"
    print ""
    print "| pattern | unit | ranks | corempi | Open MPI | MPICH | corempi/Open MPI (<1 = corempi faster) | corempi/MPICH (<1 = corempi faster) |"
    print "|---|---|---:|---:|---:|---:|---:|---:|"
    nr = split(rows, r, ";")
    nn = split(ranks, n, " ")
    for (i = 1; i <= nr; i++) {
        split(r[i], f, "|")
        for (j = 1; j <= nn; j++) {
            v0 = cell("corempi", "pat" n[j] ":" f[1])
            v1 = cell("openmpi", "pat" n[j] ":" f[1])
            v2 = cell("mpich", "pat" n[j] ":" f[1])
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", f[2], f[3], n[j], v0, v1, v2, ratio(v0, v1), ratio(v0, v2)
        }
    }
}

function nbc_table(n,    nk, ns, i, j, k, size, key, v0, v1, v2, b) {
    print ""
    print "### Nonblocking collectives, " n " ranks: Icoll + Wait, µs per call (slowest rank); overlap %"
    print ""
    print "| collective, bytes per rank | corempi | Open MPI | MPICH | corempi/Open MPI (<1 = corempi faster) | corempi/MPICH (<1 = corempi faster) | corempi blocking form | corempi Icoll/blocking (target ≤ 1.2) | overlap % corempi | overlap % Open MPI | overlap % MPICH |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    nk = split(names, k, " ")
    ns = split(sizes, s, " ")
    for (i = 1; i <= nk; i++)
        for (j = 1; j <= ns; j++) {
            size = k[i] == "ibarrier" ? 0 : s[j]
            key = "nbc" n ":nbc:" k[i] ":" size
            v0 = cell("corempi", key ":wait_us")
            v1 = cell("openmpi", key ":wait_us")
            v2 = cell("mpich", key ":wait_us")
            b = cell("corempi", key ":blocking_us")
            printf "| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k[i], size, v0, v1, v2,
                ratio(v0, v1), ratio(v0, v2), b, ratio(v0, b),
                cell("corempi", key ":overlap_pct", 1), cell("openmpi", key ":overlap_pct", 1), cell("mpich", key ":overlap_pct", 1)
            if (k[i] == "ibarrier") break
        }
}

BEGIN { while ((getline line < statuses) > 0) { nst++; split(line, w, " "); st_c[nst] = w[1]; st_tag[nst] = w[2]; st_s[nst] = w[3] } }
{ vals[$1, $2, ++count[$1, $2]] = $3 }
END {
    if (table == "patterns") patterns_table()
    else { nn = split(ranks, n, " "); for (j = 1; j <= nn; j++) nbc_table(n[j]) }
}
