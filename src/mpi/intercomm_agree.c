/*
 * intercomm_agree.c -- agreeing on context ids and a payload between the two
 * groups of an intercommunicator being made (MPI-4.1 §7.6.2: the leaders
 * talk over the peer communicator, each group within itself).
 *
 * Three steps, all blocking point-to-point with internal tags:
 *   1. dissemination OR of the context bitmaps within the group (as an
 *      intracommunicator's dup does, mpi/comm_create.c);
 *   2. the two leaders swap (bitmap union, payload);
 *   3. binomial broadcast of (union of both groups, other group's payload)
 *      from the leader within the group.
 * Every member then takes pairs from the same union in the same order, so
 * both groups end with the same pairs, free in all of them.
 */
#include "mpi/intercomm.h"
#include "mpi/comm_create.h"
#include "core/context.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

#define BITS_BYTES (CM_CTX_WORDS * sizeof(uint64_t))

static void sub_xchg(const struct cm_sub *g, const void *sbuf, size_t sbytes, int to, void *rbuf, size_t rbytes,
                     int from)
{
    cm_comm_exchange(g->parent, sbuf, sbytes, to < 0 ? -1 : g->members[to], rbuf, rbytes,
                     from < 0 ? -1 : g->members[from], g->tag);
}

/* Binomial broadcast of buf from group rank root. */
static void sub_bcast(const struct cm_sub *g, void *buf, size_t bytes, int root)
{
    int n = g->n, v = (g->me - root + n) % n, mask = 1;
    while (mask < n) {
        if (v & mask) {
            sub_xchg(g, NULL, 0, -1, buf, bytes, (v - mask + root) % n);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            sub_xchg(g, buf, bytes, (v + mask + root) % n, NULL, 0, -1);
}

int cm_inter_agree(const struct cm_sub *g, int leader, struct cm_comm *chan, int chan_peer, int chan_tag,
                   const void *mine, size_t mine_bytes, void *theirs, size_t theirs_max, uint16_t *ctx, int nctx)
{
    size_t most = mine_bytes > theirs_max ? mine_bytes : theirs_max;
    uint64_t *bits = malloc(BITS_BYTES + theirs_max), *in = malloc(BITS_BYTES + most);
    if (!bits || !in) {
        free(bits);
        free(in);
        return MPI_ERR_NO_MEM;
    }
    cm_context_bits(bits);
    for (int k = 1; k < g->n; k <<= 1) {
        sub_xchg(g, bits, BITS_BYTES, (g->me + k) % g->n, in, BITS_BYTES, (g->me - k % g->n + g->n) % g->n);
        for (int w = 0; w < CM_CTX_WORDS; w++)
            bits[w] |= in[w];
    }
    if (g->me == leader) {
        memcpy(in, bits, BITS_BYTES);
        if (mine_bytes)   /* mine may be NULL then (memcpy's arguments must not be) */
            memcpy((char *)in + BITS_BYTES, mine, mine_bytes);
        cm_comm_exchange(chan, in, BITS_BYTES + mine_bytes, chan_peer, (char *)bits, BITS_BYTES + theirs_max,
                         chan_peer, chan_tag);
        for (int w = 0; w < CM_CTX_WORDS; w++)
            bits[w] |= in[w];
    }
    sub_bcast(g, bits, BITS_BYTES + theirs_max, leader);
    if (theirs_max)
        memcpy(theirs, (char *)bits + BITS_BYTES, theirs_max);
    int rc = MPI_SUCCESS, taken = 0;
    for (; taken < nctx; taken++) {
        if ((rc = cm_context_take(bits, &ctx[taken])) != MPI_SUCCESS)
            break;
        bits[ctx[taken] / 64] |= 3ull << (ctx[taken] % 64);
    }
    if (rc != MPI_SUCCESS) /* every member fails alike: give back what was taken */
        while (taken-- > 0)
            cm_context_free(ctx[taken]);
    free(bits);
    free(in);
    return rc;
}

int cm_inter_agree_on(struct cm_comm *ic, const void *mine, size_t mine_bytes, void *theirs, size_t theirs_max,
                      uint16_t *ctx, int nctx)
{
    /* The hidden local communicator's ranks are the group's ranks. */
    int *ident = malloc((size_t)ic->size * sizeof(int));
    if (!ident)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < ic->size; i++)
        ident[i] = i;
    struct cm_sub g = { ic->local, ident, ic->size, ic->rank, CM_TAG_INTER_OPS };
    int rc = cm_inter_agree(&g, 0, ic, 0, CM_TAG_INTER_OPS, mine, mine_bytes, theirs, theirs_max, ctx, nctx);
    free(ident);
    return rc;
}
