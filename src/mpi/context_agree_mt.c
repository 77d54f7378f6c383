/*
 * context_agree_mt.c -- a context id for a new communicator while other
 * threads of the same processes make communicators on other parents
 * (MPI_THREAD_MULTIPLE).
 *
 * The single-threaded agreement (comm_create.c) ORs the members' bitmaps
 * and takes the lowest pair free everywhere.  With threads, two agreements
 * on different parents can pick the same pair from bitmaps read before
 * either took it.  So here the pair is only a candidate: each member claims
 * it (core/context.c, under its lock) and a second OR says whether anyone
 * could not; then all keep it or all give it back and try again.
 *
 * Why it ends: a refused agreement waits before its next try, longer for a
 * higher parent context, so of two agreements that keep refusing each other
 * the one on the lower parent tries alone and wins.  No lock is held
 * across an exchange, so agreements on different parents never wait for
 * each other (no deadlock).  Both rounds use the caller's tag on the
 * parent's collective context: messages of one sender on one context do
 * not overtake, and each round's dissemination partners are distinct.
 */
#include "core/comm.h"
#include "core/context.h"
#include "mpi/comm_create.h"

#include <time.h>

/* OR of every member's words, by dissemination. */
static void or_all(struct cm_comm *parent, const int *members, int n, int me, int tag, uint64_t *words)
{
    uint64_t incoming[CM_CTX_WORDS];
    for (int k = 1; k < n; k <<= 1) {
        cm_comm_exchange(parent, words, sizeof incoming, members[(me + k) % n], incoming, sizeof incoming,
                         members[(me - k % n + n) % n], tag);
        for (int w = 0; w < CM_CTX_WORDS; w++)
            words[w] |= incoming[w];
    }
}

int cm_comm_agree_context_mt(struct cm_comm *parent, const int *members, int n, int me, int tag, uint16_t *ctx)
{
    for (unsigned attempt = 1;; attempt++) {
        uint64_t words[CM_CTX_WORDS];
        cm_context_bits(words);
        or_all(parent, members, n, me, tag, words);
        uint16_t candidate;
        if (cm_context_lowest(words, &candidate) != MPI_SUCCESS)
            return MPI_ERR_OTHER;   /* every pair is taken somewhere */
        int claimed = cm_context_claim(candidate);
        for (int w = 0; w < CM_CTX_WORDS; w++)
            words[w] = 0;
        words[0] = !claimed;
        or_all(parent, members, n, me, tag, words);
        if (!words[0]) {
            *ctx = candidate;
            return MPI_SUCCESS;
        }
        if (claimed)
            cm_context_free(candidate);
        unsigned us = (unsigned)(parent->ctx / 2 % 8 + 1) * 50u * (attempt < 20 ? attempt : 20);
        struct timespec ts = { 0, (long)us * 1000L };
        nanosleep(&ts, NULL);
    }
}
