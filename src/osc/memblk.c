/*
 * memblk.c -- MPI_Alloc_mem's shared blocks: memory a later window on it
 * (MPI_Win_create) lets every rank of the window map and reach with its own
 * loads and stores, as for MPI_Win_allocate (docs/osc.md, "Alloc_mem").
 *
 * A block of CM_OSC_MEM_SHARED_MIN bytes or more is a memfd of its own,
 * mapped here and kept open: Win_create announces the descriptor number and
 * the offset of the window's base in the block, and the other ranks open
 * /proc/<pid>/fd/<n> and map the pages that hold the window.  Smaller blocks
 * stay malloc memory (mpi/alloc_mem.c): a memfd block costs a page and a
 * descriptor at least, and three system calls to make (memfd_create,
 * ftruncate, mmap) and two to free, where malloc costs none; a program
 * that takes many small Alloc_mem buffers (as send buffers, say) would run
 * out of descriptors.  A window under a page gains little from direct
 * access anyway... except 8-byte atomics, so the threshold is one page and
 * no more.
 *
 * Invariants: a block is in the list from Alloc_mem to Free_mem; its
 * descriptor stays open as long (a window made later may need it); a peer's
 * mapping keeps the pages alive after Free_mem, so a window the user
 * freed late never reaches unmapped memory in another process.
 */
#include "osc/osc.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct memblk {
    struct memblk *next;
    char *base;
    size_t len;
    int fd;
};

static struct memblk *blocks;

void *cm_osc_mem_alloc(size_t size)
{
    if (size < CM_OSC_MEM_SHARED_MIN)
        return NULL;
    size_t len = (size + 4095) & ~(size_t)4095;
    struct memblk *b = malloc(sizeof *b);
    int fd = memfd_create("corempi-alloc-mem", MFD_CLOEXEC);
    void *p = MAP_FAILED;
    if (b && fd >= 0 && ftruncate(fd, (off_t)len) == 0)
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {   /* no descriptor left, say: malloc will do */
        if (fd >= 0)
            close(fd);
        free(b);
        return NULL;
    }
    *b = (struct memblk){ .next = blocks, .base = p, .len = len, .fd = fd };
    blocks = b;
    return p;
}

/* The link that points at base's block, or NULL. */
static struct memblk **link_of(const void *base)
{
    struct memblk **pp = &blocks;
    while (*pp && (*pp)->base != base)
        pp = &(*pp)->next;
    return *pp ? pp : NULL;
}

int cm_osc_mem_free(void *base)
{
    struct memblk **pp = link_of(base), *b;
    if (!pp)
        return 0;
    b = *pp;
    *pp = b->next;
    munmap(b->base, b->len);
    close(b->fd);
    free(b);
    return 1;
}

int cm_osc_mem_find(const void *p, size_t len, int *fd, size_t *off)
{
    uintptr_t a = (uintptr_t)p;
    for (struct memblk *b = blocks; b; b = b->next) {
        uintptr_t lo = (uintptr_t)b->base;
        if (a >= lo && a + len <= lo + b->len) {
            *fd = b->fd;
            *off = a - lo;
            return 1;
        }
    }
    return 0;
}
