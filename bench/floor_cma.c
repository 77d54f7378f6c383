/* The physical floor of large-message bandwidth: one process copies another
 * process's buffer straight into its own with process_vm_readv (one copy,
 * as an MPI library's single-copy path does), the two pinned to different
 * cores.  The child owns and first-touches the source; the parent reads it.
 * Parent-reads-child is allowed even under Yama ptrace_scope=1, so this works
 * where a read between two unrelated ranks might be refused.
 *
 * Prints: floor bw <bytes> <GB/s> for 64 KiB, 1 MiB, 4 MiB (1 GB = 1e9 B),
 * median of batches.  -q quick.  Plain C; build with cc -O2. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_floor.h"
#include "bench_stats.h"

#define MAX_BYTES (4u << 20)

/* The child: fill the source on its own core, publish its address, then
 * block until the parent closes the pipe. */
static void run_child(int cpu, int addr_fd, int done_fd)
{
    bench_pin_cpu(cpu);
    unsigned char *src = malloc(MAX_BYTES);
    if (!src)
        _exit(1);
    for (size_t i = 0; i < MAX_BYTES; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    uintptr_t addr = (uintptr_t)src;
    if (write(addr_fd, &addr, sizeof addr) != (ssize_t)sizeof addr)
        _exit(1);
    char c;
    while (read(done_fd, &c, 1) > 0)
        ;
    _exit(0);
}

static int read_remote(pid_t pid, void *dst, uintptr_t src, size_t n)
{
    struct iovec local = {dst, n};
    struct iovec remote = {(void *)src, n};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    return got == (ssize_t)n ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse_opts(argc, argv);
    int cpu_a, cpu_b;
    if (bench_two_cpus("floor_cma", &cpu_a, &cpu_b) != 0)
        return 1;
    int addr_pipe[2], done_pipe[2];
    if (pipe(addr_pipe) != 0 || pipe(done_pipe) != 0)
        return 1;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(addr_pipe[0]);
        close(done_pipe[1]);
        run_child(cpu_b, addr_pipe[1], done_pipe[0]);
    }
    close(addr_pipe[1]);
    close(done_pipe[0]);
    bench_pin_cpu(cpu_a);

    int rc = 0;
    uintptr_t src = 0;
    unsigned char *dst = malloc(MAX_BYTES);
    if (!dst || read(addr_pipe[0], &src, sizeof src) != (ssize_t)sizeof src) {
        fprintf(stderr, "floor_cma: child did not start\n");
        rc = 1;
        goto out;
    }
    memset(dst, 0, MAX_BYTES);

    static const size_t sizes[] = {65536, 1u << 20, 4u << 20};
    const int batches = o.quick ? 5 : 15;
    const double target = o.quick ? 0.004 : 0.02;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        if (read_remote(pid, dst, src, n) != 0) {
            fprintf(stderr, "floor_cma: process_vm_readv refused: %s\n", strerror(errno));
            rc = 1;
            goto out;
        }
        /* Check the copy really landed: last byte carries the child's pattern. */
        if (dst[n - 1] != (unsigned char)((n - 1) * 7 + 1)) {
            fprintf(stderr, "floor_cma: wrong data\n");
            rc = 1;
            goto out;
        }
        double t0 = bench_now();
        for (int i = 0; i < 10; i++)
            read_remote(pid, dst, src, n);
        int iters = bench_clamp_iters(target / ((bench_now() - t0) / 10), 1, 100000);
        double samples[64];
        for (int b = 0; b < batches; b++) {
            double t = bench_now();
            for (int i = 0; i < iters; i++)
                read_remote(pid, dst, src, n);
            samples[b] = (double)n * iters / (bench_now() - t) / 1e9;
        }
        printf("floor bw %zu %.3f\n", n, bench_median(samples, batches));
        fflush(stdout);
    }
out:
    close(done_pipe[1]); /* releases the child */
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    free(dst);
    return rc;
}
