#!/bin/sh
# check_layer_calls.sh ROOT LAYER=OBJ:OBJ:... ... -- fail on any call upward.
#
# An upward call needs no #include when it goes through a public PMPI_ name
# (mpi.h declares them all) or a cm_ function declared in the wrong header,
# so check_layers.sh cannot see it.  This reads the compiled objects of each
# layer (ctest passes them, one argument per layer) with nm: a symbol one
# layer leaves undefined and another defines is a call into that layer, and
# it must be one that ROOT/src/layers.txt allows.  Prints each offence as
# "caller.c: symbol, defined in callee.c"; exit 1 if there was one.
#
# A second rule, downward but unwanted: coll's algorithms reach p2p through
# its internal entry (coll/p2p.h -> p2p/coll_entry.h), never through the
# checked public PMPI_ point-to-point calls, which would record and check
# every message as a user call.  Files exempt: coll_p2p_exempt, a regular
# expression on the source path (none now; '^$' matches no path).
coll_p2p_exempt='^$'
coll_p2p_checked='^PMPI_(Send|Recv|Sendrecv|Isend|Irecv|Wait|Waitall|Testall)$'
root=$1
shift
table="$root/src/layers.txt"
[ -r "$table" ] || { echo "check_layer_calls: cannot read $table" >&2; exit 2; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# One line per symbol: D|U layer object symbol.
for group in "$@"; do
    layer=${group%%=*}
    echo "${group#*=}" | tr ':' '\n' | grep . | xargs nm -A |
        awk -v l="$layer" '{
            src = $1; sub(/:.*/, "", src); sub(/.*\/CMakeFiles\/[^\/]*\.dir\//, "", src); sub(/\.o$/, "", src)
            if ($(NF-1) == "U") print "U", l, src, $NF
            else if (NF == 3 && $2 ~ /^[TDBRCVW]$/) print "D", l, src, $3
        }'
done > "$tmp"
sed -e 's/#.*//' "$table" | awk 'NF { for (i = 2; i <= NF; i++) ok[$1 " " $i] = 1 }
    END { for (k in ok) print "A", k }' |
    cat - "$tmp" | awk -v exempt="$coll_p2p_exempt" -v checked="$coll_p2p_checked" '
    $1 == "A" { ok[$2 " " $3] = 1; next }
    $1 == "D" { layer[$4] = $2; file[$4] = $3; next }
    $1 == "U" { n++; ul[n] = $2; uf[n] = $3; us[n] = $4 }
    END {
        bad = 0
        for (i = 1; i <= n; i++) {
            s = us[i]
            if (ul[i] == "coll" && s ~ checked && uf[i] !~ exempt) {
                printf "src/%s: %s, the checked public entry (coll calls p2p through coll/p2p.h)\n", uf[i], s
                bad = 1
                continue
            }
            if (!(s in layer) || layer[s] == ul[i] || ((ul[i] " " layer[s]) in ok))
                continue
            printf "src/%s: %s, defined in src/%s (%s is not below %s)\n", uf[i], s, file[s], layer[s], ul[i]
            bad = 1
        }
        exit bad
    }'
status=$?
[ $status = 0 ] && echo "check_layer_calls: no layer calls one above it (src/layers.txt), coll calls no checked p2p entry"
exit $status
