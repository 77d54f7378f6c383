#!/bin/sh
# spawn_lookup.sh -- MPI_Comm_spawn of a command without '/' finds it as users of
# mpiexec expect: in the current directory (MPICH's spawn tests spawn "spaconacc"),
# in the info key path, in wdir; one found nowhere is MPI_ERR_SPAWN saying where it
# looked.  Nothing is left behind.
# usage: spawn_lookup.sh MPIRUN PROGRAM
set -u
. "$(dirname "$0")/leftovers.sh"
mpirun=$1
prog=$(readlink -f "$2")
dir=$(mktemp -d "${TMPDIR:-/tmp}/spawn_lookup.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
fail() { echo "spawn_lookup: $*"; echo "--- output:"; cat "$dir/out"; exit 1; }
mkdir "$dir/sub" "$dir/w"
cp "$prog" "$dir/cm-spawn-here"; cp "$prog" "$dir/sub/cm-spawn-path"; cp "$prog" "$dir/w/cm-spawn-wdir"
(cd "$dir" && timeout -k 5 60 "$mpirun" -n 2 --universe-size 6 "$prog" lookup "$dir") >"$dir/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "exit status $rc"
grep -q "spawn lookup: ok" "$dir/out" || fail "the parent did not say ok"
for p in cm-spawn-here cm-spawn-path cm-spawn-wdir "$prog"; do
    left=$(cm_leftovers "$p") || fail "$left"
done
echo "spawn_lookup: ok"
