#!/bin/sh
# deps.sh GROUP... -- install the Debian packages a make target needs, only
# those missing, so that a second run costs nothing.
#   build : compilers (C; C++ for mpicxx and its tests; gfortran for the
#           Fortran bindings, mpifort and their tests), cmake, hwloc, cmocka
#   prof  : libraries of the coreprof report (cairo, libdw, OTF2 + otf2-print)
#   peers : Open MPI and MPICH, for benchmarks and the profiler's peer tests
#   browser : headless Chromium, which opens the report's HTML page in a test
#   client  : what scripts/client_scalapack.sh needs besides an MPI: BLAS and
#             LAPACK, zlib (HDF5), dpkg-dev (apt-get source unpacks with it)
set -e
pkgs=""
for group in "$@"; do
    case "$group" in
        build) pkgs="$pkgs gcc g++ gfortran make cmake pkg-config libhwloc-dev hwloc libcmocka-dev python3" ;;
        prof)  pkgs="$pkgs libdw-dev libelf-dev libcairo2-dev libpng-dev libopen-trace-format2-dev otf2-tools binutils" ;;
        peers) pkgs="$pkgs openmpi-bin libopenmpi-dev mpich libmpich-dev" ;;
        browser) pkgs="$pkgs chromium" ;;
        client) pkgs="$pkgs libblas-dev liblapack-dev zlib1g-dev dpkg-dev" ;;
        *) echo "deps.sh: unknown group '$group' (build, prof, peers, browser, client)" >&2; exit 2 ;;
    esac
done
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps.sh: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
