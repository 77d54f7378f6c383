#!/bin/bash
# bench/placement.sh BUILD -- the evidence table of issue 39 (docs/placement.md):
# the cost model's predicted communication cost of identity, every named
# --map-by policy and auto, on four synthetic machines x eight patterns.
#   synthetic patterns at one rank per core of each machine: a ring and a 2-D
#   halo in scrambled rank order, recursive doubling, all-to-all in blocks of 8;
#   real programs, recorded here with --profile at 16 ranks: examples/heat2d,
#   bench/patterns/sparse and bench/patterns/halo.
# Also `make bench` part `placement` (BENCH_PARTS=placement bash bench/run.sh).
set -eu
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/cm-placement.XXXXXX)
trap 'rm -rf "$W"' EXIT
machines=("package:2 core:8 pu:1" "package:2 l3cache:2 core:8 pu:1" "numa:4 core:16 pu:1" "package:2 core:64 pu:1")
labels=("2 packages x 8" "2 x 2 L3 groups x 8" "4 NUMA nodes x 16" "2 x 64")

# Synthetic patterns, seeded: python3 is a build dependency anyway.
gen() { # gen KIND N FILE
    python3 - "$1" "$2" "$3" <<'PY'
import random, sys
kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rnd = random.Random(39)
perm = list(range(n)); rnd.shuffle(perm)
flows = []
if kind == "ring":
    flows = [(perm[i], perm[(i + 1) % n], 1 << 20) for i in range(n)]
elif kind == "halo":
    r = int(n ** 0.5)
    while n % r: r -= 1
    c = n // r
    for i in range(r):
        for j in range(c):
            me = perm[i * c + j]
            for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                ii, jj = i + di, j + dj
                if 0 <= ii < r and 0 <= jj < c:
                    flows.append((me, perm[ii * c + jj], 256 << 10))
elif kind == "rdoubling":
    k = 1
    while k < n:
        flows += [(i, i ^ k, 64 << 10) for i in range(n) if i ^ k < n]
        k *= 2
elif kind == "a2a_blocks":
    flows = [(i, j, 32 << 10) for i in range(n) for j in range(n) if i != j and i // 8 == j // 8]
with open(out, "w") as f:
    f.write("# ranks %d\n" % n)
    for s, d, b in flows: f.write("%d,%d,%d\n" % (s, d, b))
PY
}

# Real programs' matrices: recorded at 16 ranks on this machine.
"$BUILD/bin/mpicc" -O2 -I"$SRC/bench/patterns" -o "$W/sparse" "$SRC/bench/patterns/sparse.c" -lm
"$BUILD/bin/mpicc" -O2 -I"$SRC/bench/patterns" -o "$W/halo" "$SRC/bench/patterns/halo.c" -lm
record() { # record NAME program args...
    local name=$1; shift
    "$BUILD/bin/mpirun" -n 16 --profile="$W/trace_$name" "$@" >/dev/null 2>&1 || { echo "placement: $name failed" >&2; return 1; }
    "$BUILD/bin/coreprof" matrix "$W/trace_$name" >"$W/real_$name.csv"
}
record heat2d "$BUILD/examples/heat2d" 128 200
record sparse "$W/sparse" -q -r 20
record halo "$W/halo" -q -r 20

patterns=(ring halo rdoubling a2a_blocks heat2d sparse halo_app)
printf '| machine | pattern (ranks) | identity | ring | evenodd | leap2 | overlap | auto | auto vs best named | how |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n'
for m in 0 1 2 3; do
    spec=${machines[$m]}
    cores=$(python3 -c "import re,functools,operator; print(functools.reduce(operator.mul,[int(x) for x in re.findall(r':(\d+)', '$spec')]))")
    for p in "${patterns[@]}"; do
        case $p in
        heat2d|sparse) f="$W/real_$p.csv" ;;
        halo_app) f="$W/real_halo.csv" ;;
        *) f="$W/$p.$cores.csv"; [ -f "$f" ] || gen "$p" "$cores" "$f" ;;
        esac
        "$BUILD/bin/coreprof" place "$f" --topology "$spec" >"$W/out" 2>&1 || { cat "$W/out" >&2; exit 1; }
        n=$(sed -n 's/^Placement of \([0-9]*\) ranks.*/\1/p' "$W/out")
        cost() { awk -v p="$1" '$1 == p { print $2 " " $3 }' "$W/out"; }
        how=$(sed -n 's/^  auto .*(\(.*\))$/\1/p' "$W/out")
        best=$(awk 'function ns(v, u) { if (u == "s") return v * 1e9; if (u == "ms") return v * 1e6; if (u == "us") return v * 1e3; return v }
                    $1 ~ /^(identity|ring|evenodd|leap2|overlap)$/ { v = ns($2, $3); if (b == "" || v < b) b = v }
                    $1 == "auto" { a = ns($2, $3) }
                    END { r = 0; if (b > 0) r = 100 * (a - b) / b; printf("%.1f%%", r) }' "$W/out")
        printf '| %s | %s (%s) | %s | %s | %s | %s | %s | **%s** | %s | %s |\n' "${labels[$m]}" "$p" "$n" \
            "$(cost identity)" "$(cost ring)" "$(cost evenodd)" "$(cost leap2)" "$(cost overlap)" "$(cost auto)" "$best" "$how"
    done
done
