#!/usr/bin/env bash
# nbc_vs_blocking.sh [BUILD_DIR] [ROUNDS] [RANKS...] -- Icoll + Wait against the
# blocking call (issue 38 item 2), corempi beside Open MPI: bench/patterns/nbc.c
# (both forms timed in one run, as the ratio's two sides) for Ibarrier,
# Ibcast, Iallreduce, Ireduce, Iallgather, Ialltoall at 8 B, 64 KiB and 1 MiB,
# corempi and Open MPI runs alternated ROUNDS times (default 5) per rank count
# (default 2 4); a cell is the median over rounds.  Prints a markdown table:
# the ratio Icoll+Wait / blocking of each run's own pair, corempi's Icoll+Wait
# against Open MPI's, and where the targets (<= 1.2, <= 1.0) stand.
# NBC_SECS: seconds per figure (default 0.03).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-build}" && pwd) || exit 1
rounds=${2:-5}
shift 2 2>/dev/null || shift $#
ranks=("$@")
[ ${#ranks[@]} = 0 ] && ranks=(2 4)
secs=${NBC_SECS:-0.03}
colls="ibarrier ibcast iallreduce ireduce iallgather ialltoall"
work=$(mktemp -d /tmp/nbc_vs_blocking.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
"$build/bin/mpicc" -O2 -std=gnu11 -o "$work/cm" "$here/patterns/nbc.c" || exit 1
have_ompi=1
mpicc.openmpi -O2 -std=gnu11 -o "$work/ompi" "$here/patterns/nbc.c" 2>/dev/null || have_ompi=0
run() { # contender np coll -> lines "coll bytes blocking wait"
    local out
    if [ "$1" = cm ]; then
        out=$(timeout 60 "$build/bin/mpirun" -n "$2" "$work/cm" -t "$secs" -c "$3" 2>/dev/null)
    else
        out=$(timeout 60 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$2" "$work/ompi" -t "$secs" -c "$3" 2>/dev/null)
    fi
    echo "$out" | awk '/^nbc / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        print v["coll"], v["bytes"], v["blocking_us"], v["wait_us"] }'
}
for np in "${ranks[@]}"; do
    for ((r = 0; r < rounds; r++)); do
        for c in $colls; do
            for who in $([ $((r % 2)) = 0 ] && echo "cm ompi" || echo "ompi cm"); do
                [ $who = ompi ] && [ $have_ompi = 0 ] && continue
                run $who "$np" "$c" | sed "s/^/$who $np /" >>"$work/raw"
            done
        done
    done
done
echo "Run $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $rounds alternated rounds, -t $secs"
echo
echo "| ranks | call, bytes per rank | corempi blocking µs | corempi Icoll+Wait µs | corempi ratio (target ≤ 1.2) | Open MPI blocking µs | Open MPI Icoll+Wait µs | Open MPI ratio | corempi ÷ Open MPI, Icoll+Wait (target ≤ 1.0) | targets |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
awk '
function median(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : "" }
{ k = $2 SUBSEP $3 SUBSEP $4; if (!(k in seen)) { seen[k] = 1; order[++m] = k }
  b[$1, k] = b[$1, k] " " $5; w[$1, k] = w[$1, k] " " $6; if ($5 > 0) q[$1, k] = q[$1, k] " " $6 / $5 }
END { for (i = 1; i <= m; i++) { k = order[i]; split(k, f, SUBSEP)
    cb = median(b["cm", k]); cw = median(w["cm", k]); cq = median(q["cm", k])
    ob = median(b["ompi", k]); ow = median(w["ompi", k]); oq = median(q["ompi", k])
    x = (ow != "" && ow > 0) ? cw / ow : ""
    t = (cq != "" && cq <= 1.2 ? "1.2x met" : "1.2x missed") (x == "" ? "" : (x <= 1.0 ? ", OMPI met" : ", OMPI missed"))
    printf "| %s | %s %s | %.3g | %.3g | %.2f | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], cb, cw, cq,
        ob == "" ? "n/a" : sprintf("%.3g", ob), ow == "" ? "n/a" : sprintf("%.3g", ow), oq == "" ? "n/a" : sprintf("%.2f", oq),
        x == "" ? "n/a" : sprintf("%.2f", x), t } }' "$work/raw"
