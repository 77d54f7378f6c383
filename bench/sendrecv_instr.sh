#!/bin/sh
# sendrecv_instr.sh [BUILD_DIR] [LIB_DIR] -- instructions per round trip of an
# 8-byte MPI_Send/MPI_Recv ping-pong at 2 ranks (each rank one MPI_Send and one
# MPI_Recv), counted with callgrind (bench/instr_count.sh): the exclusive
# instructions of the functions on the calls' path (front ends, their impls,
# the inline fast tests, the immediate ring write, the loop) over 60,000 round
# trips, per round trip and rank.  The receive's wait is left out: the polling
# in cm_recv_fast (with the sweeps it makes: cm_progress, poll_ring,
# cm_progress_quiet) runs as often as the schedule makes it, not the code.
# LIB_DIR runs the same binary against another build of libcorempi
# (before/after comparisons).  Deterministic to +-0.1 on this machine.
build=${1:-build}
dir=$(cd "$(dirname "$0")" && pwd)
exec "$dir/instr_count.sh" "$dir/sendrecv_instr.c" 2 60000 \
    ':(PMPI_Send|PMPI_Recv|cm_Send|cm_Recv|send_now|send_blocking|recv_blocking|cm_send_try_immediate|main)( |$)' \
    "$build" "${2:-$build/lib}"
