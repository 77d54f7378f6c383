/*
 * msg_match.c -- pair every point-to-point send with its receive.
 *
 * MPI's non-overtaking rule: two messages from one sender to one receiver on one
 * communicator with one tag are received in the order they were sent.  So the
 * k-th send with key (src, dst, comm, tag) is matched by the k-th receive with the
 * same key (communicators identified job-wide, see cp_comm_info), receives ordered by when they were posted (a nonblocking receive's
 * initiation; its source and tag come from the completion: wildcards resolved).
 */
#include "report.h"

#include <stdlib.h>

typedef struct msg_end {
    int32_t src, dst, tag;
    uint32_t comm;
    int64_t order;
    uint32_t rank;
    size_t ev;
} msg_end;

static int cmp_end(const void *a, const void *b)
{
    const msg_end *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    CMP(src); CMP(dst); CMP(comm); CMP(tag); CMP(order); CMP(ev);
#undef CMP
    return 0;
}

static int same_key(const msg_end *x, const msg_end *y)
{
    return x->src == y->src && x->dst == y->dst && x->comm == y->comm && x->tag == y->tag;
}

void cp_match_messages(cp_trace *tr)
{
    size_t ns = 0, nr = 0;
    for (int r = 0; r < tr->nranks; r++)
        for (size_t i = 0; i < tr->ranks[r].nev; i++) {
            const cp_event *e = &tr->ranks[r].ev[i];
            ns += cp_event_is_p2p_send(e);
            nr += cp_event_is_p2p_recv_done(e);
        }
    msg_end *s = malloc((ns + 1) * sizeof *s), *v = malloc((nr + 1) * sizeof *v);
    if (!s || !v) abort();
    size_t is = 0, iv = 0;
    for (int r = 0; r < tr->nranks; r++)
        for (size_t i = 0; i < tr->ranks[r].nev; i++) {
            const cp_event *e = &tr->ranks[r].ev[i];
            if (cp_event_is_p2p_send(e))
                s[is++] = (msg_end){ r, e->peer, e->tag, e->gcomm, e->t0, (uint32_t)r, i };
            if (cp_event_is_p2p_recv_done(e))
                v[iv++] = (msg_end){ e->peer, r, e->recv_tag, e->gcomm, e->order_t, (uint32_t)r, i };
        }
    qsort(s, ns, sizeof *s, cmp_end);
    qsort(v, nr, sizeof *v, cmp_end);

    free(tr->flows);
    tr->flows = malloc(((ns < nr ? ns : nr) + 1) * sizeof *tr->flows);
    if (!tr->flows) abort();
    tr->nflows = 0;
    tr->unmatched_sends = tr->unmatched_recvs = 0;
    size_t a = 0, b = 0;
    while (a < ns || b < nr) {
        if (a < ns && b < nr && same_key(&s[a], &v[b])) {
            const cp_event *se = &tr->ranks[s[a].rank].ev[s[a].ev];
            tr->flows[tr->nflows++] = (cp_flow){ (int)s[a].rank, (int)v[b].rank, s[a].ev, v[b].ev, se->bytes };
            a++; b++;
        } else if (b >= nr || (a < ns && cmp_end(&s[a], &v[b]) < 0)) {
            tr->unmatched_sends++; a++;
        } else {
            tr->unmatched_recvs++; b++;
        }
    }
    free(s);
    free(v);
}
