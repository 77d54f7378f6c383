/*
 * comm_matrix.c -- rank-by-rank communication matrices and message-size histograms.
 *
 * Point-to-point: every send (blocking, nonblocking, persistent start) adds its
 * bytes to [sender][destination], matched or not.  Computed from the per-rank
 * statistics (cp_agg): sums, so it is the same from a trace or a summary.
 * Collectives show the *logical* data flow (what the MPI standard says moves
 * where), not the messages of whatever algorithm the library chose: the bytes a
 * rank recorded for the call go
 *   one-to-all (Bcast, Scatter*):  root -> every other member (from the root's record)
 *   all-to-one (Reduce, Gather*):  every member -> root
 *   all-to-all (the others):       every member -> every other member.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static int is_one_to_all(const char *name)
{
    return strstr(name, "Bcast") || strstr(name, "bcast") || strstr(name, "Scatter") ||
           (strstr(name, "scatter") && !strstr(name, "Reduce_scatter") && !strstr(name, "reduce_scatter"));
}

static void add_collective(const cp_trace *tr, int r, const cp_agg *e, cp_matrices *m)
{
    int n = m->n;
    if (e->gcomm == CP_COMM_UNKNOWN || e->gcomm >= tr->ncomms) return;
    const cp_comm_info *c = &tr->comms[e->gcomm];
    if (c->remote_size > 0) return;   /* intercommunicator: no logical flow drawn */
    const int32_t *members = c->members;
    int nmem = c->members ? c->size : n;
#define MEMBER(i) (members ? members[i] : (int32_t)(i))
    if ((e->flags & CPT_F_ROOT) && e->peer >= 0 && e->peer < n) {
        int root = e->peer;
        if (is_one_to_all(e->name < tr->nnames ? tr->names[e->name] : "?")) {
            if (r != root) return;
            for (int i = 0; i < nmem; i++) {
                int j = MEMBER(i);
                if (j != root && j >= 0 && j < n) {
                    m->coll_bytes[(size_t)root * n + j] += (double)e->bytes;
                    m->coll_count[(size_t)root * n + j] += (double)e->calls;
                }
            }
        } else if (r != root) {
            m->coll_bytes[(size_t)r * n + root] += (double)e->bytes;
            m->coll_count[(size_t)r * n + root] += (double)e->calls;
        }
        return;
    }
    for (int i = 0; i < nmem; i++) {
        int j = MEMBER(i);
        if (j != r && j >= 0 && j < n) {
            m->coll_bytes[(size_t)r * n + j] += (double)e->bytes;
            m->coll_count[(size_t)r * n + j] += (double)e->calls;
        }
    }
#undef MEMBER
}

int cp_matrices_build(const cp_trace *tr, cp_matrices *m)
{
    memset(m, 0, sizeof *m);
    int n = tr->nranks;
    m->n = n;
    size_t cells = (size_t)n * (size_t)n;
    m->p2p_bytes = calloc(cells, sizeof(double));
    m->p2p_count = calloc(cells, sizeof(double));
    m->coll_bytes = calloc(cells, sizeof(double));
    m->coll_count = calloc(cells, sizeof(double));
    if (!m->p2p_bytes || !m->p2p_count || !m->coll_bytes || !m->coll_count) return -1;
    for (int r = 0; r < n; r++) {
        const cp_rank *rk = &tr->ranks[r];
        for (size_t i = 0; i < rk->nagg; i++) {
            const cp_agg *e = &rk->agg[i];
            const char *name = e->name < tr->nnames ? tr->names[e->name] : "?";
            unsigned bin = e->bin < 65 ? e->bin : 64;
            if ((e->flags & CPT_F_SEND) && !(e->flags & (CPT_F_COLLECTIVE | CPT_F_COMPLETION)) &&
                e->peer >= 0 && e->peer < n) {
                m->p2p_bytes[(size_t)r * n + e->peer] += (double)e->bytes;
                m->p2p_count[(size_t)r * n + e->peer] += (double)e->calls;
                m->hist_p2p[bin] += e->calls;
            } else if ((e->flags & CPT_F_COLLECTIVE) && e->is_slice && !(e->flags & CPT_F_COMPLETION)) {
                if (bin || strstr(name, "arrier")) m->hist_coll[bin] += e->calls;
                add_collective(tr, r, e, m);
            }
        }
    }
    return 0;
}

void cp_matrices_free(cp_matrices *m)
{
    free(m->p2p_bytes);
    free(m->p2p_count);
    free(m->coll_bytes);
    free(m->coll_count);
    memset(m, 0, sizeof *m);
}

int cp_matrix_write_csv(const char *path, const double *mat, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "sender\\receiver");
    for (int j = 0; j < n; j++) fprintf(f, ",%d", j);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d", i);
        for (int j = 0; j < n; j++) fprintf(f, ",%.0f", mat[(size_t)i * n + j]);
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    return bad ? -1 : 0;
}
