/* rank_env.c -- prints what a rank got from mpirun (no MPI involved):
 *   rank=R size=S pid=P fd=memfd ctl_pid=P bound_core=C cpus=LIST [VAR=value...]
 * and checks the segment header, so launcher tests can see the contract. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shm/segment.h"

static void print_cpus(void)
{
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    const char *sep = "";
    printf(" cpus=");
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c; /* in hwloc's list syntax, "0-3,8" */
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        if (last > c)
            printf("%s%d-%d", sep, c, last);
        else
            printf("%s%d", sep, c);
        sep = ",";
        c = last;
    }
}

int main(int argc, char **argv)
{
    const char *rank_s = getenv(CM_ENV_RANK), *size_s = getenv(CM_ENV_SIZE), *fd_s = getenv(CM_ENV_SHM_FD);
    if (!rank_s || !size_s || !fd_s) {
        printf("missing COREMPI_RANK/SIZE/SHM_FD\n");
        return 3;
    }
    int rank = atoi(rank_s), size = atoi(size_s), fd = atoi(fd_s);
    char link[64], target[256] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0)
        target[n] = '\0';
    struct stat st;
    if (fstat(fd, &st) != 0) {
        printf("rank=%d: fd %d not open\n", rank, fd);
        return 4;
    }
    void *base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    const char *why = "";
    if (base == MAP_FAILED || cm_seg_check(base, (size_t)st.st_size, &why) != 0) {
        printf("rank=%d: bad segment: %s\n", rank, why);
        return 5;
    }
    const struct cm_seg_header *h = base;
    const struct cm_rank_ctl *c = cm_seg_ctl(base, (uint32_t)rank);
    printf("rank=%d size=%d pid=%d fd=%s nranks=%u launcher_ok=%d ncores=%u oversub=%d ctl_pid_ok=%d bound_core=%d",
           rank, size, (int)getpid(), strncmp(target, "/memfd:", 7) == 0 ? "memfd" : target, h->nranks,
           h->launcher_pid == getppid(), h->ncores, (h->flags & CM_SEG_OVERSUBSCRIBED) != 0, c->pid == getpid(),
           c->bound_core);
    print_cpus();
    for (int i = 1; i < argc; i++) {
        const char *v = getenv(argv[i]);
        printf(" %s=%s", argv[i], v ? v : "(unset)");
    }
    printf("\n");
    return 0;
}
