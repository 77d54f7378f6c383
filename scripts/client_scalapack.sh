#!/bin/sh
# client_scalapack.sh [BUILD] -- issue 36's real client (docs/fortran.md, "Real
# client: ScaLAPACK"): Debian's source package of ScaLAPACK built with corempi's
# mpicc and mpifort, its ctest run under corempi's mpirun.  If the archive does
# not serve ScaLAPACK's source, HDF5's parallel Fortran interface is tried instead
# (the issue allows either), with its parallel tests.
#
# From a clean Debian 12 machine, as root: a deb-src entry copied from the
# deb entries of /etc/apt (only when there is none; left in place as
# /etc/apt/sources.list.d/corempi-deb-src.{sources,list}), apt-get update, the build
# dependencies that are not an MPI (never libopenmpi-dev or mpich), the source,
# the build, the tests.  Work happens in a scratch directory (WORK, default a
# mktemp -d under /tmp) removed at the end unless KEEP=1.  SCALAPACK_SRC=DIR
# builds an unpacked ScaLAPACK tree instead of fetching one.
# Exit status: 0 the client's tests all passed; 1 a step failed or a test
# failed (each named); 2 neither client could be built, with the reason.
set -u
b=$(cd "${1:-build}" 2>/dev/null && pwd) || b=$(pwd)/${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
say() { echo "client_scalapack.sh: $*"; }
die() { say "$*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (apt-get source, apt-get install)"

# corempi: only what a client needs (the library, the wrappers, mpirun).
if [ ! -x "$b/bin/mpifort" ] || [ ! -x "$b/bin/mpirun" ]; then
    sh "$src/scripts/deps.sh" build || die "deps.sh build failed"
    [ -f "$b/CMakeCache.txt" ] || cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
        die "configuring corempi failed"
    cmake --build "$b" -j "$jobs" --target corempi mpifort mpirun >/dev/null ||
        die "building corempi failed"
fi
[ -x "$b/bin/mpifort" ] || die "$b/bin/mpifort missing: corempi was configured without a Fortran compiler"
sh "$src/scripts/deps.sh" build client || die "deps.sh client failed"

# A deb-src entry for the same archive as the deb entries, if there is none.
have_src() {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -Eq '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)'
}
if ! have_src; then
    out=/etc/apt/sources.list.d/corempi-deb-src
    # deb822 stanzas whose Types has deb: the same stanza as deb-src.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk 'BEGIN { RS = ""; ORS = "\n\n" }
             /(^|\n)Types:[^\n]*[[:space:]]deb([[:space:]]|$|\n)/ {
                 sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
    done >"$out.sources"
    # one-line entries: "deb [options] URI SUITE COMPONENTS" as deb-src.
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' >"$out.list"
    for f in "$out.sources" "$out.list"; do
        if [ -s "$f" ]; then say "added $f"; else rm -f "$f"; fi
    done
    have_src || die "no deb entry in /etc/apt to copy as deb-src"
fi
apt-get update -qq || die "apt-get update failed"

work=${WORK:-$(mktemp -d /tmp/corempi-client.XXXXXX)}
mkdir -p "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 1
say "work directory $work; corempi $b"
W=$b/bin

# Fails when a line of LOG adds another MPI's headers, modules or libraries.
no_peer_mpi() {
    if grep -E -- '-[IL][[:space:]]*[^[:space:]]*(openmpi|mpich)|lib(mpi|mpich|mpi_mpifh|mpi_usempif08)\.so' "$1" >"$work/peer.txt"; then
        head -3 "$work/peer.txt" >&2
        die "$2 uses another MPI (above)"
    fi
}
# ldd of PROG names corempi's libmpi_abi (libcorempi.so's soname) and no other MPI.
linked_to_corempi() {
    ldd "$1" | grep -q "=> $b/lib/libmpi_abi.so" || die "$1 is not linked to corempi's libmpi_abi"
    ldd "$1" | grep -Eq 'libmpi\.so|libmpich|openmpi' && die "$1 is linked to another MPI: $(ldd "$1" | grep -E 'libmpi\.so|mpich|openmpi')"
    return 0
}

scalapack() {
    t0=$(date +%s)
    if [ -n "${SCALAPACK_SRC:-}" ]; then
        dir=$SCALAPACK_SRC    # an unpacked tree obtained some other way
    else
        apt-get source scalapack >source.log 2>&1 || return 2
        set -- scalapack-*/
        dir=$1
    fi
    cmake -S "$dir" -B sb -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER="$W/mpicc" -DCMAKE_Fortran_COMPILER="$W/mpifort" \
        -DMPI_C_COMPILER="$W/mpicc" -DMPI_Fortran_COMPILER="$W/mpifort" \
        -DMPIEXEC_EXECUTABLE="$W/mpirun" -DMPIEXEC="$W/mpirun" -DMPIEXEC_NUMPROC_FLAG=-n \
        -DBUILD_SHARED_LIBS=ON -DSCALAPACK_BUILD_TESTS=ON >configure.log 2>&1 ||
        { tail -30 configure.log >&2; die "ScaLAPACK: cmake failed (configure.log)"; }
    grep -E '^MPI_' sb/CMakeCache.txt | grep -Ei 'openmpi|mpich' && die "ScaLAPACK: FindMPI found another MPI"
    t1=$(date +%s)
    cmake --build sb -j "$jobs" -- VERBOSE=1 >build.log 2>&1 ||
        { grep -E 'error|Error' build.log | head -20 >&2; die "ScaLAPACK: build failed (build.log)"; }
    no_peer_mpi build.log "ScaLAPACK's build"
    t2=$(date +%s)
    say "ScaLAPACK built: configure $((t1 - t0)) s, build $((t2 - t1)) s"
    for p in sb/TESTING/x*; do linked_to_corempi "$p"; break; done
    # -V: a tester exits 0 even when residual checks fail, printing
    # "N tests completed and failed residual checks": those count too.
    (cd sb && ctest -V --timeout 1200 >"$work/ctest.log" 2>&1)
    rc=$?
    grep -E 'Test +#' ctest.log
    grep -E 'tests passed|tests failed' ctest.log
    if grep -E '^[0-9]+: +[1-9][0-9]* tests completed and failed' ctest.log; then
        say "ScaLAPACK: residual checks failed (above: ctest's test number first)"
        rc=1
    fi
    say "ScaLAPACK tests: $(($(date +%s) - t2)) s"
    return $((rc != 0))
}

hdf5() {
    t0=$(date +%s)
    apt-get source hdf5 >source.log 2>&1 || { say "apt-get source hdf5 failed too"; return 2; }
    set -- hdf5-*/
    dir=$(cd "$1" && pwd)
    mkdir -p hb && cd hb || return 1
    # RUNPARALLEL: 6 ranks, HDF5's own default, through corempi's mpirun.
    "$dir/configure" CC="$W/mpicc" FC="$W/mpifort" --enable-parallel --enable-fortran \
        --disable-hl --disable-cxx --disable-java RUNPARALLEL="$W/mpirun -n \$\${NPROCS:=6}" \
        >configure.log 2>&1
    crc=$?
    say "HDF5 configure: $(($(date +%s) - t0)) s"
    if [ $crc -ne 0 ]; then
        tail -1 configure.log
        grep -E 'undefined reference to .MPI_' config.log | sort -u | head -5
        return 2
    fi
    make -j "$jobs" V=1 >build.log 2>&1 || { tail -20 build.log >&2; die "HDF5: build failed"; }
    no_peer_mpi build.log "HDF5's build"
    rc=0
    for d in testpar fortran/testpar; do
        make -C "$d" check >"check-$(echo $d | tr / -).log" 2>&1 || rc=1
        grep -E 'PASSED|FAILED|passed|failed' "check-$(echo $d | tr / -).log" | tail -20
    done
    return $rc
}

scalapack
rc=$?
if [ $rc -eq 2 ]; then
    say "ScaLAPACK's source could not be fetched:"
    grep -E '^E:' source.log
    say "trying HDF5's parallel Fortran interface instead"
    hdf5
    rc=$?
    [ $rc -eq 2 ] && say "HDF5 could not be built with corempi either (above)"
fi
exit $rc
