#!/bin/sh
# mpi.symbols: every function of the list (generated from spec/ into the build
# tree by spec/gen_symbols.py: mpi41_functions.txt) is exported by
# libcorempi.so as MPI_<name> and PMPI_<name>, or listed in
# tests/mpi/symbols_pending.txt with the issue item that will add it.
# Fails on a function missing and not pending, and on one pending but
# exported (so the pending list only shrinks).  Prints what is missing.
# usage: symbols.sh libcorempi.so functions.txt pending.txt
lib=$1 list=$2 pending=$3
for f in "$lib" "$list" "$pending"; do
    [ -r "$f" ] || { echo "symbols.sh: cannot read '$f'"; exit 2; }
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || { echo "symbols.sh: nm found no symbols in $lib"; exit 2; }
sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$list" | grep . | sort -u >"$tmp/wanted"
# pending lines: "MPI_Name  issue N item M ..."
sed -e 's/#.*//' "$pending" | awk 'NF {print $1}' | sort -u >"$tmp/pending"

# A function is present when both its MPI_ and PMPI_ names are exported.
while read -r name; do
    if grep -qx "$name" "$tmp/exported" && grep -qx "P$name" "$tmp/exported"; then
        echo "$name" >>"$tmp/present"
    else
        echo "$name" >>"$tmp/missing"
    fi
done <"$tmp/wanted"
touch "$tmp/present" "$tmp/missing"

wanted=$(wc -l <"$tmp/wanted")
missing=$(wc -l <"$tmp/missing")
echo "mpi.symbols: $wanted MPI-4.1 functions in the list, $((wanted - missing)) exported, $missing missing"
status=0
unexplained=$(comm -23 "$tmp/missing" "$tmp/pending")
if [ -n "$unexplained" ]; then
    echo "missing and not in $(basename "$pending") (export them or list them with their issue item):"
    echo "$unexplained" | sed 's/^/  /'
    status=1
fi
done_now=$(comm -12 "$tmp/present" "$tmp/pending")
if [ -n "$done_now" ]; then
    echo "exported now, so remove them from $(basename "$pending"):"
    echo "$done_now" | sed 's/^/  /'
    status=1
fi
stray=$(comm -13 "$tmp/wanted" "$tmp/pending")
if [ -n "$stray" ]; then
    echo "in $(basename "$pending") but not in $(basename "$list"):"
    echo "$stray" | sed 's/^/  /'
    status=1
fi
# What is still missing, by the issue item that will add it.  (A function
# with only one of its MPI_/PMPI_ names exported counts as missing.)
if [ "$missing" -gt 0 ]; then
    echo "missing, by pending item:"
    sed -e 's/#.*//' "$pending" | awk -v list="$tmp/missing" '
        BEGIN { while ((getline n < list) > 0) want[n] = 1 }
        NF && ($1 in want) { item = $2; for (i = 3; i <= NF; i++) item = item " " $i;
                             if (!(item in names)) order[++k] = item; names[item] = names[item] " " $1; count[item]++ }
        END { for (i = 1; i <= k; i++) printf "  %s (%d):%s\n", order[i], count[order[i]], names[order[i]] }' |
        fold -s -w 110
fi
exit $status
