#!/bin/sh
# validate_host_mpi.sh -- build the topology tests with Open MPI's mpicc and run
# them under Open MPI at 1..9 ranks, to check the tests themselves (not
# corempi).  Not part of ctest: it needs openmpi-bin.
#
# usage: tests/topo/validate_host_mpi.sh        (prints "N passed, N failed")
#
# Checks Open MPI 4.1 does not make (Cart_coords rank range, Cart_shift
# direction, Graph_create edge range) and corempi-only behaviour (exact error
# classes, MPI_INFO_ENV contents, Comm_get_info returning unknown hints,
# predefined attributes on communicators other than MPI_COMM_WORLD) are inside
# #ifdef COREMPI in the sources.
NAME=validate_topo
. "$(dirname "$0")/../host_mpi_lib.sh"
run() { # program ranks
    timeout 60 $M -n "$2" "./$1" > last.out 2>&1
    result $? "$1 at $2 ranks"
}
for p in dims_create cart cart_sub graph neighbor info attr errors; do
    mpicc.openmpi -O1 -w -o "$p" "$here/$p.c" || { echo "FAIL: build of $p"; fail=$((fail + 1)); continue; }
done
run dims_create 1
for n in 1 2 3 4 5 6 7 8 9; do
    for p in cart cart_sub graph neighbor; do
        run "$p" "$n"
    done
done
for n in 1 3 4; do
    for p in info attr errors; do
        run "$p" "$n"
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
