/*
 * context.c -- context ids for new communicators.
 *
 * Each communicator takes a pair (ctx, ctx+1).  A new pair must be free in
 * every member: members OR their "in use" bitmaps together (mpi/comm_create.c
 * does the exchange), then every member takes the lowest pair free everywhere,
 * which is the same pair for all.  No rank is a central allocator, and freed
 * pairs are reused.
 */
#include "core/comm.h"
#include "core/context.h"

#include "core/thread.h"

#include <string.h>

/* MPI_THREAD_MULTIPLE: communicators are made by several threads at once
 * (on different parents), each claiming and freeing pairs. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* WORLD (0,1), SELF (2,3), the dynamic-process channel (4,5: mpi/dyn.h) */
static uint64_t in_use[CM_CTX_WORDS] = { 0x3f };

void cm_context_bits(uint64_t *out)
{
    cm_mt_lock(&lock);
    memcpy(out, in_use, sizeof in_use);
    cm_mt_unlock(&lock);
}

int cm_context_lowest(const uint64_t *agreed, uint16_t *ctx)
{
    for (int w = 0; w < CM_CTX_WORDS; w++) {
        if (agreed[w] == ~0ull)
            continue;
        for (int b = 0; b < 64; b += 2) {
            if (!(agreed[w] & (3ull << b))) {
                *ctx = (uint16_t)(w * 64 + b);
                return MPI_SUCCESS;
            }
        }
    }
    return MPI_ERR_OTHER;
}

int cm_context_claim(uint16_t ctx)
{
    uint64_t pair = 3ull << (ctx % 64);
    cm_mt_lock(&lock);
    int free_here = !(in_use[ctx / 64] & pair);
    in_use[ctx / 64] |= pair;
    cm_mt_unlock(&lock);
    return free_here;
}

int cm_context_take(const uint64_t *agreed, uint16_t *ctx)
{
    int rc = cm_context_lowest(agreed, ctx);
    if (rc == MPI_SUCCESS)
        cm_context_claim(*ctx);
    return rc;
}

void cm_context_free(uint16_t ctx)
{
    cm_mt_lock(&lock);
    in_use[ctx / 64] &= ~(3ull << (ctx % 64));
    cm_mt_unlock(&lock);
}
