#!/bin/sh
# run.sh cmd... -- run an MPI test with fault injection (src/shm/fault.h).
# make check-faults exports COREMPI_FAULTS=<seed>,<rate>; run from ctest
# alone the test takes seed 1 at rate 0.05, so it still injects.
: "${COREMPI_FAULTS:=1,0.05}"
: "${COREMPI_DEADLOCK_TIMEOUT:=30}"
export COREMPI_FAULTS COREMPI_DEADLOCK_TIMEOUT
exec "$@"
