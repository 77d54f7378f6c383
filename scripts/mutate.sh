#!/bin/sh
# mutate.sh [patch...] -- apply each deliberate protocol mutation
# (scripts/mutations/*.patch, docs/protocols.md "Mutations") to a copy of
# the tree, build it with fault injection, run the tests its header names,
# and print how often each failed.  The mutations are never committed: the
# copy lives in build-mutate/ and each patch is reversed after its runs.
#
# A patch starts with a header before its diff:
#   protocol: <name>
#   mutation: <one line>
#   tests: <ctest name> ...       (exact names; faults.* run with COREMPI_FAULTS)
#   build: <target> ...           (optional: targets beyond cm_fault_programs)
# Environment: RUNS (default 3) runs per test, FAULT_SEED (default 1),
# FAULT_RATE (default 0.1), JOBS (default 2).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build-mutate
runs=${RUNS:-3}
seed=${FAULT_SEED:-1}
rate=${FAULT_RATE:-0.1}
jobs=${JOBS:-2}
[ $# -gt 0 ] || set -- "$top"/scripts/mutations/*.patch

# A fresh copy of the committed tree and the working changes (never the
# build directories), configured once with the fault points compiled in.
# Only files whose content changed since the last run are copied over, with
# the time of the copy: tar would restore the source's older mtime, and make
# would keep an object built from the previous content by the last run.
mkdir -p "$work/tree"
rm -rf "$work/stage" && mkdir -p "$work/stage"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf -) | tar -xf - -C "$work/stage"
(cd "$work/stage" && find . -type f) | while IFS= read -r f; do
    cmp -s "$work/stage/$f" "$work/tree/$f" && continue
    mkdir -p "$(dirname "$work/tree/$f")"
    cp -p "$work/stage/$f" "$work/tree/$f" && touch "$work/tree/$f"
done
rm -rf "$work/stage"
cmake -S "$work/tree" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOREMPI_FAULTS=ON >/dev/null || exit 1

results=$work/results.txt
: > "$results"
for p in "$@"; do
    name=$(basename "$p" .patch)
    tests=$(sed -n 's/^tests: *//p' "$p")
    targets="cm_fault_programs $(sed -n 's/^build: *//p' "$p")"
    if ! patch -s -p1 -d "$work/tree" < "$p"; then
        echo "$name: patch does not apply" | tee -a "$results"
        continue
    fi
    if cmake --build "$work/build" -j "$jobs" --target $targets >"$work/build.log" 2>&1; then
        for t in $tests; do
            fails=0
            for i in $(seq 1 "$runs"); do
                case $t in
                    faults.*) env="COREMPI_FAULTS=$((seed + i - 1)),$rate" ;;
                    *) env="COREMPI_FAULTS=" ;;
                esac
                (cd "$work/build" && env $env COREMPI_DEADLOCK_TIMEOUT=20 \
                    ctest -R "^$(echo "$t" | sed 's/\./\\./g')\$" --timeout 120 >"$work/last.log" 2>&1) ||
                    fails=$((fails + 1))
                grep -q "No tests were found" "$work/last.log" && { fails="?"; break; }
            done
            echo "$name: $t failed $fails of $runs" | tee -a "$results"
        done
    else
        echo "$name: does not build (see $work/build.log)" | tee -a "$results"
    fi
    patch -s -R -p1 -d "$work/tree" < "$p" || { echo "mutate.sh: cannot reverse $p" >&2; exit 1; }
done
cmake --build "$work/build" -j "$jobs" --target cm_fault_programs >/dev/null 2>&1
echo "mutate.sh: results in $results"
