#!/bin/sh
# spawn_lookup.sh -- MPI_Comm_spawn of a command without '/' finds it as users of
# mpiexec expect: in the current directory (MPICH's spawn tests spawn "spaconacc"),
# in the info key path, in wdir; one found nowhere is MPI_ERR_SPAWN saying where it
# looked; one linked with another MPI's library is refused (with CC set).  Nothing is
# left behind.
# usage: [CC=cc] spawn_lookup.sh MPIRUN PROGRAM
set -u
. "$(dirname "$0")/leftovers.sh"
mpirun=$1
prog=$(readlink -f "$2")
dir=$(mktemp -d "${TMPDIR:-/tmp}/spawn_lookup.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
fail() { echo "spawn_lookup: $*"; echo "--- output:"; cat "$dir/out"; exit 1; }
mkdir "$dir/sub" "$dir/w"
cp "$prog" "$dir/cm-spawn-here"; cp "$prog" "$dir/sub/cm-spawn-path"; cp "$prog" "$dir/w/cm-spawn-wdir"
# A program of another MPI (a dummy libmpi.so.40), when a compiler is at hand.
if [ -n "${CC:-}" ] && command -v "$CC" >/dev/null 2>&1; then
    printf 'int MPI_Init(int *c, char ***v) { (void)c; (void)v; return 0; }\n' >"$dir/d.c"
    printf 'int MPI_Init(int *, char ***);\nint main(int c, char **v) { return MPI_Init(&c, &v); }\n' >"$dir/f.c"
    "$CC" -shared -fPIC -Wl,-soname,libmpi.so.40 -o "$dir/libmpi.so.40" "$dir/d.c" &&
        "$CC" -o "$dir/cm-spawn-foreign" "$dir/f.c" "$dir/libmpi.so.40" -Wl,-rpath,"$dir" ||
        fail "cannot build the foreign program"
fi
(cd "$dir" && timeout -k 5 60 "$mpirun" -n 2 --universe-size 6 "$prog" lookup "$dir") >"$dir/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "exit status $rc"
grep -q "spawn lookup: ok" "$dir/out" || fail "the parent did not say ok"
for p in cm-spawn-here cm-spawn-path cm-spawn-wdir "$prog"; do
    left=$(cm_leftovers "$p") || fail "$left"
done
echo "spawn_lookup: ok"
