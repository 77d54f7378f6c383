/*
 * scratch.c -- the temporaries of collective algorithms, kept between calls.
 *
 * An algorithm needs scratch of the message's size for the length of one
 * call.  Taken from malloc and freed each time, a block of a few hundred KiB
 * or more is mmap'ed or trimmed away again, and the next call faults every
 * page back in: a 1 MiB MPI_Reduce at 2 ranks took 640-690 us instead of
 * 110, a 1 MiB MPI_Scan 1.1 ms instead of 0.18 (bench/coll.c).  So blocks
 * from POOL_FROM bytes on go back to a small pool instead of to malloc.
 *
 * This replaces raising glibc's mmap and trim thresholds in MPI_Init, which
 * did the same for our blocks but also moved the user's large buffers from
 * page-aligned mmaps onto the heap, 16 bytes past a page multiple apart:
 * the layout at which "rep movsb" stalls on this machine (shm/copy.h).
 *
 * Invariant: a pooled block is never in use; pool_bytes is the sum of the
 * pooled blocks' capacities and stays under POOL_BYTES.
 */
#include "coll/coll.h"

#include <pthread.h>
#include <stdlib.h>

#define POOL_FROM (64 * 1024)
#define POOL_SLOTS 8
#define POOL_BYTES ((size_t)64 << 20)
#define HEADER 64 /* keeps the data 64-byte aligned */

struct block {
    size_t cap; /* bytes of data after the header */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *pool[POOL_SLOTS];
static size_t pool_bytes;

static struct block *pool_take(size_t bytes)
{
    struct block *best = NULL;
    int at = -1;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < POOL_SLOTS; i++)
        if (pool[i] && pool[i]->cap >= bytes && (!best || pool[i]->cap < best->cap)) {
            best = pool[i];
            at = i;
        }
    if (best) {
        pool[at] = NULL;
        pool_bytes -= best->cap;
    }
    pthread_mutex_unlock(&pool_lock);
    return best;
}

/* Returns 0 when the pool is full: the caller frees the block. */
static int pool_keep(struct block *b)
{
    int kept = 0;
    pthread_mutex_lock(&pool_lock);
    if (pool_bytes + b->cap <= POOL_BYTES) {
        for (int i = 0; i < POOL_SLOTS && !kept; i++)
            if (!pool[i]) {
                pool[i] = b;
                pool_bytes += b->cap;
                kept = 1;
            }
    }
    pthread_mutex_unlock(&pool_lock);
    return kept;
}

static void *block_data(struct block *b)
{
    return (char *)b + HEADER;
}

/* Element i lives at buf + i*extent and touches [true_lb, true_lb+true_extent)
 * from there: the bytes a buffer of count elements spans. */
static size_t span_of(const struct cm_dt *d, int count)
{
    return count > 0 ? (size_t)d->true_extent + (size_t)(count - 1) * (size_t)d->extent : 0;
}

void *cm_coll_tmp_in(MPI_Datatype dt, int count, void *room, size_t room_bytes, void **block)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    size_t span = span_of(&d, count);
    if (count > 0 && span <= room_bytes && d.true_lb >= 0 && (size_t)d.true_lb <= span) {
        *block = NULL;
        return (char *)room - d.true_lb;
    }
    return cm_coll_tmp(dt, count, block);
}

void *cm_coll_tmp(MPI_Datatype dt, int count, void **block)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    /* Size the block for the last element and shift the base back by true_lb. */
    size_t bytes = span_of(&d, count);
    struct block *b = bytes >= POOL_FROM ? pool_take(bytes) : NULL;
    if (!b) {
        /* Pooled sizes round up to an eighth of their power of two, so
         * calls of nearby sizes share blocks. */
        size_t cap = bytes > 0 ? bytes : 1;
        if (bytes >= POOL_FROM) {
            size_t step = 1;
            while (step <= cap / 16)
                step <<= 1;
            cap = (cap + step - 1) & ~(step - 1);
        }
        void *p = NULL;
        if (posix_memalign(&p, bytes >= POOL_FROM ? 4096 : HEADER, HEADER + cap) != 0)
            return *block = NULL;
        b = p;
        b->cap = cap;
    }
    *block = block_data(b);
    return (char *)*block - d.true_lb;
}

void cm_coll_tmp_free(void *data)
{
    if (!data)
        return;
    struct block *b = (struct block *)((char *)data - HEADER);
    if (b->cap < POOL_FROM || !pool_keep(b))
        free(b);
}
