/*
 * io_stats.h -- what MPI-IO has moved in this process: bytes read, bytes
 * written, time in data access calls (docs/io.md, "Observing I/O").
 *
 * The counters sit in core so that MPI_T (src/mpi, a layer below io) can
 * read them; only src/io adds to them, once per data access call (never
 * per byte or per run), with relaxed atomic adds so that threads of an
 * MPI_THREAD_MULTIPLE program may access files at once.  They only grow.
 */
#ifndef CM_CORE_IO_STATS_H
#define CM_CORE_IO_STATS_H

#include <stdint.h>
#include <time.h>

struct cm_io_stats {
    uint64_t bytes_read, bytes_written;   /* data bytes of the calls, as their statuses count them */
    uint64_t time_ns;                     /* wall time inside data access calls and MPI_File_sync */
};
extern struct cm_io_stats cm_io_stats;

static inline uint64_t cm_io_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A call that began at t0 (cm_io_clock) moved `bytes` (write: 1). */
static inline void cm_io_stats_add(int write, uint64_t bytes, uint64_t t0)
{
    uint64_t dt = cm_io_clock() - t0;
    if (bytes)
        __atomic_fetch_add(write ? &cm_io_stats.bytes_written : &cm_io_stats.bytes_read, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cm_io_stats.time_ns, dt, __ATOMIC_RELAXED);
}

#endif
