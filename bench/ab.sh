#!/usr/bin/env bash
# A/B of two corempi builds on the same placement.
#
#   bash bench/ab.sh BUILD_A BUILD_B [ROUNDS] [-- coll options]
#   e.g. bash bench/ab.sh build /tmp/old/build 8 -- -c bcast,allreduce -s 8,65536
#   AB_RANKS=8 bash bench/ab.sh ...   (collectives at 8 ranks; no ping-pong)
#   AB_RECORDS=file bash bench/ab.sh ...   (also keep every run's figure:
#   "placement build what µs", one line each, in run order)
#
# This VM's two vCPUs move between sharing a cache and not, within minutes,
# and every 2-rank figure moves with them (bcast 8 B: ~0.03 µs shared, ~0.09
# split).  make bench rotates contenders per round, so two builds' medians can
# come from different placements.  Here each 2-rank run of bench/coll.c (and of
# the ping-pong) is tagged with the cache-line hand-over timed right before it,
# A and B alternate, and the ratio A/B is taken per placement from the runs on
# that placement only.  Prints one table per placement that both builds saw.
# Rows latency:N are µs (A/B < 1: A faster); rows bw:N are GB/s (A/B > 1: A
# faster).  BUILD_B "-" runs build A alone (bench/check.sh against recorded
# figures: AB_RECORDS then holds A's runs only, no table is printed).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
a=${1:?build A}; b=${2:?build B}; rounds=${3:-6}; ranks=${AB_RANKS:-2}
sides="A B"; [ "$b" = - ] && sides=A
shift 3 2>/dev/null || shift $#
[ "${1:-}" = -- ] && shift
opts=("$@")
work=$(mktemp -d /tmp/corempi-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -O2 -std=c11 -pthread -o "$work/floor" "$here/floor_cacheline.c" || exit 1
for s in $sides; do
    build=$([ $s = A ] && echo "$a" || echo "$b")
    mkdir -p "$work/$s"
    "$build/bin/mpicc" -O2 -std=c11 -o "$work/$s/coll" "$here/coll.c" || exit 1
    "$build/bin/mpicc" -O2 -std=c11 -o "$work/$s/pingpong" "$here/pingpong.c" || exit 1
done
placement() { # "shared" or "split", from the hand-over time in µs
    "$work/floor" -q 2>/dev/null | awk '$2 == "latency" { print ($4 < 0.08 ? "shared" : "split"); exit }'
}
: >"$work/records"
for ((r = 0; r < rounds; r++)); do
    for s in $([ $((r % 2)) = 0 ] && echo "$sides" || echo "$sides" | rev); do
        build=$([ $s = A ] && echo "$a" || echo "$b")
        p=$(placement)
        timeout 120 "$build/bin/mpirun" -n "$ranks" "$work/$s/coll" -q "${opts[@]}" 2>/dev/null |
            awk -v s="$s" -v p="$p" '$1 == "coll" { print p, s, $2 ":" $3, $4 }' >>"$work/records"
        [ "$ranks" = 2 ] || continue
        p=$(placement)
        timeout 60 "$build/bin/mpirun" -n 2 "$work/$s/pingpong" -q 2>/dev/null |
            awk -v s="$s" -v p="$p" '$1 == "pingpong" { print p, s, $2 ":" $3, $4 }' >>"$work/records"
    done
    echo "round $((r + 1))/$rounds" >&2
done
[ -n "${AB_RECORDS:-}" ] && cp "$work/records" "$AB_RECORDS"
awk '
{ k = $1 SUBSEP $3; v[$1, $2, $3, ++n[$1, $2, $3]] = $4; if (!(k in seen)) { seen[k] = 1; order[++nk] = k } }
function median(p, s, key,   m, i, j, t, x) {
    m = n[p, s, key]; if (!m) return ""
    for (i = 1; i <= m; i++) x[i] = v[p, s, key, i]
    for (i = 2; i <= m; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
    return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
}
END {
    split("shared split", ps, " ")
    for (q = 1; q <= 2; q++) {
        p = ps[q]; printed = 0
        for (i = 1; i <= nk; i++) {
            split(order[i], kk, SUBSEP); if (kk[1] != p) continue
            ma = median(p, "A", kk[2]); mb = median(p, "B", kk[2])
            if (ma == "" || mb == "") continue
            if (!printed) { printf "\n### placement: %s caches\n\n| what | A, µs | B, µs | A/B | runs A, B |\n|---|---:|---:|---:|---:|\n", p; printed = 1 }
            printf "| %s | %.3f | %.3f | %.2f | %d, %d |\n", kk[2], ma, mb, ma / mb, n[p, "A", kk[2]], n[p, "B", kk[2]]
        }
    }
}' "$work/records"
