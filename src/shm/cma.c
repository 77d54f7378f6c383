/*
 * cma.c -- single copy between processes.
 *
 * The kernel copies with "rep movsb" too, so a transfer whose two addresses
 * are 1..31 bytes past a multiple of 4 KiB apart stalls just as memcpy does
 * (copy.h): 1 MiB read in 490 us instead of 112 (strace -T, bench/coll.c
 * allgather, heap buffers).  Such a transfer goes through a 64 KiB bounce
 * placed 64 bytes past the remote address's page offset, so that neither
 * the kernel's copy nor ours from the bounce is skewed; the bounce stays in
 * L2, and the two copies cost about a third of the stalled one.
 */
#include "shm/cma.h"
#include "shm/copy.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/uio.h>

#define BOUNCE_BYTES (64 * 1024)

static char *bounce;                 /* BOUNCE_BYTES + a page, page aligned */
static atomic_flag bounce_busy = ATOMIC_FLAG_INIT;

/* The bounce, or NULL when another thread holds it (that transfer then
 * takes the slow direct path: correct, only slower). */
static char *bounce_take(void)
{
    if (atomic_flag_test_and_set_explicit(&bounce_busy, memory_order_acquire))
        return NULL;
    if (!bounce && posix_memalign((void **)&bounce, 4096, BOUNCE_BYTES + 4096) != 0) {
        bounce = NULL;
        atomic_flag_clear_explicit(&bounce_busy, memory_order_release);
    }
    return bounce;
}

static void bounce_give(void)
{
    atomic_flag_clear_explicit(&bounce_busy, memory_order_release);
}

/* One system call, retried on a signal; < 0 or 0 is a refusal. */
static ssize_t transfer(pid_t pid, int write, void *local, uint64_t addr, size_t len)
{
    struct iovec l = { local, len }, r = { (void *)(uintptr_t)addr, len };
    ssize_t n;
    do
        n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        errno = EIO;
    return n;
}

static size_t direct(pid_t pid, int write, char *local, uint64_t addr, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = transfer(pid, write, local + done, addr + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done;
}

static size_t bounced(pid_t pid, int write, char *local, uint64_t addr, size_t len, char *b0)
{
    size_t done = 0;
    while (done < len) {
        size_t chunk = len - done < BOUNCE_BYTES ? len - done : BOUNCE_BYTES;
        char *b = b0 + ((addr + done + 64) & 4095);
        ssize_t n;
        if (write) {
            cm_copy(b, local + done, chunk);
            n = transfer(pid, 1, b, addr + done, chunk);
        } else {
            n = transfer(pid, 0, b, addr + done, chunk);
            if (n > 0)
                cm_copy(local + done, b, (size_t)n);
        }
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done;
}

static size_t cma(pid_t pid, int write, char *local, uint64_t addr, size_t len)
{
    char *b;
    if (len < CM_COPY_SKEW_MIN ||
        !(write ? cm_copy_skewed((void *)(uintptr_t)addr, local) : cm_copy_skewed(local, (void *)(uintptr_t)addr)) ||
        !(b = bounce_take()))
        return direct(pid, write, local, addr, len);
    size_t done = bounced(pid, write, local, addr, len, b);
    bounce_give();
    return done;
}

size_t cm_cma_read(pid_t pid, void *dst, uint64_t addr, size_t len)
{
    return cma(pid, 0, dst, addr, len);
}

size_t cm_cma_write(pid_t pid, uint64_t addr, const void *src, size_t len)
{
    return cma(pid, 1, (char *)src, addr, len);
}
