/*
 * context.c -- context ids for new communicators.
 *
 * Each communicator takes a pair (ctx, ctx+1).  A new pair must be free in
 * every member: members OR their "in use" bitmaps together over the parent
 * (a collective), then take the lowest pair free everywhere.  No rank is a
 * central allocator, and freed pairs are reused.
 */
#include "core/comm.h"
#include "core/state.h"
#include "core/error.h"

#include <string.h>

#define CM_CTX_WORDS (CM_CTX_MAX / 64)
static uint64_t in_use[CM_CTX_WORDS] = { 0xf }; /* WORLD (0,1) and SELF (2,3) */

/* Implemented by the collective layer: OR-allreduce of the bitmaps over parent. */
int cm_context_agree(struct cm_comm *parent, uint64_t *bits, int nwords) __attribute__((weak));

int cm_context_alloc(struct cm_comm *parent, uint16_t *ctx)
{
    uint64_t bits[CM_CTX_WORDS];
    memcpy(bits, in_use, sizeof bits);
    if (parent->size > 1) {
        if (!cm_context_agree)
            return MPI_ERR_INTERN;
        int rc = cm_context_agree(parent, bits, CM_CTX_WORDS);
        if (rc)
            return rc;
    }
    for (int w = 0; w < CM_CTX_WORDS; w++) {
        if (bits[w] == ~0ull)
            continue;
        for (int b = 0; b < 64; b += 2) {
            if (!(bits[w] & (3ull << b))) {
                in_use[w] |= 3ull << b;
                *ctx = (uint16_t)(w * 64 + b);
                return MPI_SUCCESS;
            }
        }
    }
    return MPI_ERR_OTHER;
}

void cm_context_free(uint16_t ctx)
{
    in_use[ctx / 64] &= ~(3ull << (ctx % 64));
}
