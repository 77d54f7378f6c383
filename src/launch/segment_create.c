/* segment_create.c -- the job's shared segment, as an anonymous memfd.
 *
 * memfd: no name in /dev/shm (nothing to leak, nothing another user can
 * open, no tmpfs size limit of containers); it disappears with the last
 * process holding the fd or a mapping.  Its size is sealed so that no rank
 * can shrink it under the others (that would turn into SIGBUS far away). */
#include "launch/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "shm/segment.h"

int cm_launch_segment_create(struct cm_job *job)
{
    struct cm_seg_header h;
    size_t bytes = cm_seg_layout((uint32_t)job->nslots, &h);
    h.slots_used = (uint32_t)job->nranks;
    h.launcher_pid = (int32_t)getpid();
    h.ncores = (uint32_t)job->ncores_here;
    if (job->nranks > job->ncores_here)
        h.flags |= CM_SEG_OVERSUBSCRIBED;

    /* CLOEXEC here; each rank clears it on its own copy just before exec. */
    int fd = memfd_create("corempi-job", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        perror("mpirun: memfd_create");
        return 1;
    }
    if (ftruncate(fd, (off_t)bytes) != 0) {
        fprintf(stderr, "mpirun: cannot size the shared segment to %zu bytes: %s\n", bytes, strerror(errno));
        close(fd);
        return 1;
    }
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        fprintf(stderr, "mpirun: cannot map the shared segment (%zu bytes): %s\n", bytes, strerror(errno));
        close(fd);
        return 1;
    }
    cm_seg_format(base, &h);
    job->seg = base;
    job->seg_bytes = bytes;
    job->seg_fd = fd;
    return 0;
}

void cm_launch_segment_destroy(struct cm_job *job)
{
    if (job->seg)
        munmap(job->seg, job->seg_bytes);
    if (job->seg_fd >= 0)
        close(job->seg_fd);
    job->seg = NULL;
    job->seg_fd = -1;
}
