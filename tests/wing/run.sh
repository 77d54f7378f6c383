#!/bin/sh
# run.sh FLAVOUR LIB SRC_DIR [RANKS...] -- libcorempi_coll-FLAVOUR.so under its
# host MPI (docs/wing.md): tests/wing/wing_check.c built with mpicc.FLAVOUR,
# run at each rank count with the library preloaded, and once more with
# COREMPI_VERBOSE=1 and the fallback cases (an intercommunicator, a type with
# holes), whose notes must say the host served them.  Each preloaded run
# must also say the engine was serving (so a library that silently does
# nothing fails).  Then at 3-5 of those rank counts with COREMPI_COLL_NODES=2
# and 3 (pretend nodes): the same checks through the hierarchical paths,
# whose notes must say so, and the host for a non-commutative op on a
# communicator whose nodes' ranks interleave.  Exit 77 (skip) when the peer
# or the library is missing.
set -u
flavour=$1 lib=$2 src=$3
shift 3
ranks=${*:-1 2 3 4 5}
case $flavour in
    openmpi) cc=mpicc.openmpi run="mpirun.openmpi --allow-run-as-root --oversubscribe"
             pre="-x LD_PRELOAD=$lib -x COREMPI_VERBOSE -x COREMPI_COLL_NODES" ;;
    mpich)   cc=mpicc.mpich run=mpirun.mpich
             # MPICH 4.0's own device reduce crashes on large vectors here
             # (docs/wing.md, "Testing"): its generic one is used.
             export MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0
             pre="-genv LD_PRELOAD $lib -genv COREMPI_VERBOSE 1 -genv COREMPI_COLL_NODES \$COREMPI_COLL_NODES" ;;
    *) echo "run.sh: unknown flavour $flavour"; exit 2 ;;
esac
command -v $cc >/dev/null 2>&1 || { echo "SKIP: no $cc"; exit 77; }
[ -f "$lib" ] || { echo "SKIP: no $lib"; exit 77; }
tmp=$(mktemp -d /tmp/corempi-wing.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
$cc -O1 -o "$tmp/wing_check" "$src/wing_check.c" || exit 1
fail=0
# check N K: wing_check at N ranks on K pretend nodes; 0 when it says ok.
check() {
    export COREMPI_COLL_NODES=$2
    if COREMPI_VERBOSE=1 timeout 240 $run $(eval echo $pre) -n "$1" "$tmp/wing_check" fallback >"$tmp/out" 2>&1 &&
       grep -q "wing_check: $1 ranks, ok" "$tmp/out"; then
        echo "ok   $flavour n=$1 nodes=$2"
    else
        echo "FAIL $flavour n=$1 nodes=$2"; grep -v "corempi wing:" "$tmp/out" | head -20; fail=1; return 1
    fi
}
for n in $ranks; do
    check "$n" 1 || continue
    # What the verbose notes must show: the engine serving, and each fallback once.
    note="serving collectives from corempi's shared-memory engine ($n ranks"
    grep -qF "rank 0: $note" "$tmp/out" || { echo "FAIL $flavour n=$n: no note \"$note\""; fail=1; }
    if [ "$n" -ge 2 ]; then      # one rank: nothing to serve, nothing declined
        note="an intercommunicator: the host MPI's own collective serves it"
        grep -qF "$note" "$tmp/out" || { echo "FAIL $flavour n=$n: no note \"$note\""; fail=1; }
        note="rank 0: MPI_Allreduce: a datatype with holes: the host MPI's own collective serves it"
        c=$(grep -cF "$note" "$tmp/out")
        [ "$c" = 1 ] || { echo "FAIL $flavour n=$n: the note came $c times, not once"; fail=1; }
    fi
done
for k in 2 3; do
    for n in $ranks; do
        [ "$n" -ge 3 ] || continue
        check "$n" "$k" || continue
        note="a communicator of $n ranks across $k nodes: node, leaders through the host, node"
        grep -qF "rank 0: $note" "$tmp/out" || { echo "FAIL $flavour n=$n nodes=$k: no note \"$note\""; fail=1; }
        # Evens then odds: some node's ranks interleave once a node has two.
        [ "$n" -gt "$k" ] || continue
        note="a non-commutative op on a communicator whose nodes' ranks interleave"
        grep -qF "$note" "$tmp/out" || { echo "FAIL $flavour n=$n nodes=$k: no note \"$note\""; fail=1; }
    done
done
exit $fail
