#!/bin/sh
# validate_host_mpi.sh -- run the MPI-level tests against Open MPI, to check
# the tests themselves (not corempi).  Not part of ctest: it needs openmpi-bin.
#
# usage: tests/mpi/validate_host_mpi.sh        (prints "N passed, N failed")
#
# Known Open MPI 4.1.4 defects the tests would otherwise (rightly) report:
# - a truncated receive of a rendezvous-size message through vader's CMA
#   single copy writes past the receive buffer, so p2p_truncate runs with
#   btl_vader_single_copy_mechanism=none;
# - the MPI_ERRORS_ARE_FATAL message of a rank travels to mpirun through
#   show_help, which loses it now and then ("Data unpack would read past end
#   of buffer"), more so on a loaded machine: fatal's stderr is not checked
#   here (the exit status and the leftover check still are); the corempi
#   tests in ctest do check its one-line message.
# The few other Open MPI deviations are handled in the sources (#if OPEN_MPI).
NAME=validate_host_mpi
. "$(dirname "$0")/../host_mpi_lib.sh"
M="$M --mca orte_base_help_aggregate 0"

for t in p2p_storm p2p_modes p2p_persistent p2p_probe p2p_wait p2p_truncate p2p_errors \
         env_basic crash abort fatal; do
    mpicc.openmpi -O2 -Wall -Wextra -std=gnu11 -o "$t" "$here/$t.c"
    result $? "build $t"
done

for n in 1 2 3 4 8; do
    for t in p2p_storm p2p_modes p2p_persistent p2p_probe p2p_wait p2p_errors; do
        timeout 120 $M -n $n "./$t" >last.out 2>&1
        result $? "$t n=$n"
    done
    timeout 120 $M --mca btl_vader_single_copy_mechanism none -n $n ./p2p_truncate >last.out 2>&1
    result $? "p2p_truncate n=$n"
    timeout 60 $M -n $n ./env_basic init $n >last.out 2>&1
    result $? "env_basic n=$n"
done
for level in init single funneled serialized multiple; do
    timeout 60 $M -n 2 ./env_basic $level 2 >last.out 2>&1
    result $? "env_basic $level"
done
for t in p2p_modes p2p_persistent p2p_probe p2p_wait p2p_truncate p2p_errors; do
    timeout 60 "./$t" >last.out 2>&1
    result $? "$t singleton"
done
timeout 60 ./env_basic init 1 >last.out 2>&1
result $? "env_basic singleton"

for n in 1 2 4 8; do
    sh "$here/expect_fail.sh" --status nonzero --stderr 'Segmentation|signal 11' \
        --program ./crash -- $M -n $n ./crash >last.out 2>&1
    result $? "crash n=$n"
    sh "$here/expect_fail.sh" --status 7 --program ./abort -- $M -n $n ./abort >last.out 2>&1
    result $? "abort n=$n"
    sh "$here/expect_fail.sh" --status nonzero --program ./fatal -- $M -n $n ./fatal >last.out 2>&1
    result $? "fatal n=$n"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
