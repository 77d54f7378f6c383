/*
 * map.c -- the shared mapping of a window: one memfd, created by rank 0 of
 * the window's communicator and mapped by every rank through
 * /proc/<pid>/fd/<n> while rank 0 still holds it open.
 *
 * A memfd has no name in any file system, so nothing outlives the job: the
 * memory goes away with the last mapping, whether the ranks free the window,
 * exit, abort or crash.  /proc/<pid>/fd needs only the ptrace "read" access
 * check (same user), which ptrace_scope settings that refuse
 * process_vm_readv leave alone.
 */
#include "osc/osc.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

char *cm_osc_map_shared(MPI_Comm comm, size_t bytes, const char **why)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    long info[2] = { 0, -1 };   /* pid, fd (-1: rank 0 failed) */
    char *map = MAP_FAILED;
    int fd = -1;
    *why = NULL;
    if (rank == 0) {
        fd = memfd_create("corempi-window", MFD_CLOEXEC);
        if (fd < 0)
            *why = "memfd_create failed";
        else if (ftruncate(fd, (off_t)bytes) != 0)
            *why = "cannot size the shared memory (ftruncate)";
        else if ((map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
            *why = "cannot map the shared memory";
        info[0] = getpid();
        info[1] = *why ? -1 : fd;
    }
    PMPI_Bcast(info, 2, MPI_LONG, 0, comm);
    if (rank != 0 && info[1] >= 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/fd/%ld", info[0], info[1]);
        int f = open(path, O_RDWR | O_CLOEXEC);
        if (f < 0)
            *why = "cannot open rank 0's shared memory through /proc/<pid>/fd";
        else {
            map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
            if (map == MAP_FAILED)
                *why = "cannot map the shared memory";
            close(f);
        }
    } else if (rank != 0) {
        *why = "rank 0 could not create the shared memory";
    }
    int ok = *why == NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (fd >= 0)
        close(fd);   /* every rank has mapped it (or given up) */
    if (!all) {
        if (map != MAP_FAILED)
            munmap(map, bytes);
        if (!*why)
            *why = "another rank could not map the shared memory";
        return NULL;
    }
    return map;
}
