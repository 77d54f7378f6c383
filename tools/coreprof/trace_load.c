/*
 * trace_load.c -- read DIR/<rank>.cpt with the cpt reader and build the model:
 * one aligned clock, interned call names, world-rank peers, events sorted by
 * time, and for every completion / second-half record the slice it belongs to.
 */
#define _GNU_SOURCE
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CP_MAX_RANK_NOTES 32   /* per-rank problem lines on stderr; all of them go to the summary */

const char *cp_name(const cp_trace *tr, const cp_event *e)
{
    return e->name < tr->nnames ? tr->names[e->name] : "?";
}

static int is_probe_name(const char *n)
{
    return strcasestr(n, "probe") != NULL;
}

int cp_event_is_p2p_send(const cp_event *e)
{
    return (e->flags & CPT_F_SEND) && !(e->flags & (CPT_F_COLLECTIVE | CPT_F_COMPLETION)) &&
           e->peer >= 0;
}

/* A receive whose source is known: a blocking receive, the receive half of a
 * Sendrecv, or the completion of a nonblocking receive (matched source). */
int cp_event_is_p2p_recv_done(const cp_event *e)
{
    if (!(e->flags & CPT_F_RECV) || (e->flags & (CPT_F_COLLECTIVE | CPT_F_CANCELLED))) return 0;
    if ((e->flags & CPT_F_NONBLOCKING) && !(e->flags & CPT_F_COMPLETION)) return 0;
    return e->peer >= 0;
}

/* Peers recorded as comm-local ranks (the writer could not translate) are
 * translated here with the communicator table when it is known. */
static int32_t world_peer(const cpt_trace *t, const cpt_event *e)
{
    if (!(e->flags & CPT_F_PEER_LOCAL) || e->peer < 0) return e->peer;
    const cpt_comm *c = cpt_find_comm(t, e->comm);
    if (!c) return CPT_PEER_NONE;
    int64_t idx = e->peer;
    if (c->remote_size > 0) idx += c->size;   /* intercomm: peer is in the remote group */
    if (idx >= (int64_t)c->size + c->remote_size) return CPT_PEER_NONE;
    return c->world_ranks[idx];
}

static int cmp_event_time(const void *a, const void *b)
{
    const cp_event *x = a, *y = b;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    if (x->is_slice != y->is_slice) return x->is_slice ? -1 : 1; /* the call before its completions */
    return 0;
}

/* Request ids are reused after completion, so the initiation of a completion is
 * the latest initiation with its id before it: a small open-addressing map. */
typedef struct req_map { uint32_t *key; int64_t *val; size_t cap; } req_map;

static void req_map_init(req_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n + 16) m->cap *= 2;
    m->key = calloc(m->cap, sizeof *m->key);
    m->val = calloc(m->cap, sizeof *m->val);
    if (!m->key || !m->val) abort();
}
static int64_t *req_map_slot(req_map *m, uint32_t k)
{
    size_t i = (k * 2654435761u) & (m->cap - 1);
    while (m->key[i] && m->key[i] != k) i = (i + 1) & (m->cap - 1);
    if (!m->key[i]) { m->key[i] = k; m->val[i] = -1; }
    return &m->val[i];
}
static void req_map_free(req_map *m) { free(m->key); free(m->val); }

static void link_completions(cp_rank *r)
{
    req_map map;
    req_map_init(&map, r->nev);
    int64_t last_slice = -1;
    for (size_t i = 0; i < r->nev; i++) {
        cp_event *e = &r->ev[i];
        e->order_t = e->t0;
        e->recv_tag = e->tag;
        if (e->is_slice) {
            e->slice = (int32_t)i;
            last_slice = (int64_t)i;
        } else {
            /* MPI calls of one thread do not nest: the enclosing slice, if any, is the last one started */
            if (last_slice >= 0 && e->t0 <= r->ev[last_slice].t1) e->slice = (int32_t)last_slice;
            else e->slice = -1;
        }
        if (e->request && (e->flags & CPT_F_NONBLOCKING) && !(e->flags & CPT_F_COMPLETION))
            *req_map_slot(&map, e->request) = (int64_t)i;
        if (e->request && (e->flags & CPT_F_COMPLETION)) {
            int64_t *slot = req_map_slot(&map, e->request);
            if (*slot >= 0) {
                const cp_event *init = &r->ev[*slot];
                e->order_t = init->t0;
                if (e->tag == CPT_TAG_NONE) e->recv_tag = init->tag;
                if (!e->comm) e->comm = init->comm;
                *slot = -1;
            }
        }
    }
    req_map_free(&map);
    /* a completion outside every call (should not happen) becomes its own slice */
    for (size_t i = 0; i < r->nev; i++)
        if (r->ev[i].slice < 0 && (r->ev[i].flags & CPT_F_COMPLETION)) {
            r->ev[i].is_slice = 1;
            r->ev[i].slice = (int32_t)i;
        }
}

/* Persistent-request set-up (MPI_Send_init, MPI_Allreduce_init...) moves no data:
 * each MPI_Start of it is recorded as an initiation of its own. */
static int is_persistent_setup(const char *n)
{
    size_t l = strlen(n);
    return l > 5 && strcmp(n + l - 5, "_init") == 0;
}

static int is_init_name(const char *n) { return strcmp(n, "MPI_Init") == 0 || strcmp(n, "MPI_Init_thread") == 0; }
static int is_fini_name(const char *n) { return strcmp(n, "MPI_Finalize") == 0; }

static void convert_rank(cp_trace *tr, cp_rank *r)
{
    const cpt_trace *t = &r->raw;
    int64_t off = t->have_clock ? t->clock_offset_ns : 0;
    r->ev = calloc(t->n_events ? t->n_events : 1, sizeof *r->ev);
    if (!r->ev) abort();
    uint32_t flush_name = cp_intern_name(tr, "coreprof flush");
    /* call-name lookups are per file; cache the interned index per call id */
    size_t ncache = 1;                    /* call ids are 16-bit: size the cache to the largest */
    for (size_t i = 0; i < t->n_events; i++)
        if ((size_t)t->events[i].call + 1 > ncache) ncache = (size_t)t->events[i].call + 1;
    uint32_t *cache = malloc(ncache * sizeof *cache);
    if (!cache) abort();
    memset(cache, 0xff, ncache * sizeof *cache);
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const cpt_event *s = &t->events[i];
        if (s->call == CPT_CALL_NONE) continue;
        cp_event *e = &r->ev[n++];
        /* wrapping arithmetic: hostile files may hold any value; see the shift in cp_trace_build */
        e->t0 = (int64_t)(s->start_ns + (uint64_t)off);
        e->t1 = (int64_t)s->duration_ns;   /* duration until the shift */
        e->bytes = s->bytes;
        e->caller = s->caller;
        e->peer = world_peer(t, s);
        e->tag = s->tag;
        e->comm = s->comm;
        e->request = s->request;
        e->flags = s->flags;
        e->site = -1;
        e->ncalls = 1;
        if (s->flags & CPT_F_FOLDED) {         /* polls that found nothing: duration is their sum */
            e->ncalls = cpt_fold_count(s);
            e->bytes = 0;
            e->request = 0;
        }
        if (s->call == CPT_CALL_FLUSH) {
            e->name = flush_name;
            e->is_slice = 0;
            continue;
        }
        if (cache[s->call] == UINT32_MAX) cache[s->call] = cp_intern_name(tr, cpt_call_name(t, s->call));
        e->name = cache[s->call];
        const char *nm = tr->names[e->name];
        e->is_slice = !(s->flags & (CPT_F_COMPLETION | CPT_F_SECONDARY));
        e->is_init_fini = is_init_name(nm) || is_fini_name(nm);
        if (is_probe_name(nm)) e->flags &= (uint16_t)~(CPT_F_RECV | CPT_F_SEND);
        if (is_persistent_setup(nm)) e->flags &= (uint16_t)~(CPT_F_RECV | CPT_F_SEND | CPT_F_COLLECTIVE);
    }
    free(cache);
    r->nev = n;
}

static uint64_t hash_members(const cpt_comm *c)
{
    uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)(uint32_t)c->size << 32 | (uint32_t)c->remote_size);
    for (int64_t i = 0; i < (int64_t)c->size + c->remote_size; i++)
        h = (h ^ (uint32_t)c->world_ranks[i]) * 0x100000001b3ull;
    return h;
}

static int same_comm(const cp_comm_info *a, const cpt_comm *c, uint64_t h, uint32_t occ)
{
    return a->hash == h && a->occurrence == occ && a->size == c->size && a->remote_size == c->remote_size &&
           a->members && memcmp(a->members, c->world_ranks, ((size_t)c->size + c->remote_size) * 4) == 0;
}

/* Give every (rank, local comm id) its job-wide index; see cp_comm_info. */
void cp_assign_global_comms(cp_trace *tr)
{
    tr->comms = calloc(1, sizeof *tr->comms);
    if (!tr->comms) abort();
    tr->comms[0] = (cp_comm_info){ tr->nranks, 0, NULL, 0, 0 };
    tr->ncomms = 1;
    for (int r = 0; r < tr->nranks; r++) {
        cp_rank *rk = &tr->ranks[r];
        const cpt_trace *t = &rk->raw;
        size_t nc = t->n_comms;
        uint32_t *ids = malloc((nc + 1) * sizeof *ids), *glob = malloc((nc + 1) * sizeof *glob);
        if (!ids || !glob) abort();
        /* creation order = id order on this rank */
        for (size_t i = 0; i < nc; i++) ids[i] = (uint32_t)i;
        for (size_t i = 1; i < nc; i++)
            for (size_t j = i; j > 0 && t->comms[ids[j - 1]].id > t->comms[ids[j]].id; j--) {
                uint32_t x = ids[j]; ids[j] = ids[j - 1]; ids[j - 1] = x;
            }
        for (size_t k = 0; k < nc; k++) {
            const cpt_comm *c = &t->comms[ids[k]];
            glob[ids[k]] = CP_COMM_UNKNOWN;
            if (c->id == CPT_COMM_WORLD) { glob[ids[k]] = 0; continue; }
            uint64_t h = hash_members(c);
            uint32_t occ = 0;
            for (size_t q = 0; q < k; q++) {
                const cpt_comm *o = &t->comms[ids[q]];
                occ += o->id != CPT_COMM_WORLD && hash_members(o) == h;
            }
            size_t g;
            for (g = 1; g < tr->ncomms; g++)
                if (same_comm(&tr->comms[g], c, h, occ)) break;
            if (g == tr->ncomms) {
                cp_comm_info *a = realloc(tr->comms, (tr->ncomms + 1) * sizeof *a);
                if (!a) abort();
                tr->comms = a;
                tr->comms[g] = (cp_comm_info){ c->size, c->remote_size, c->world_ranks, h, occ };
                tr->ncomms++;
            }
            glob[ids[k]] = (uint32_t)g;
        }
        for (size_t i = 0; i < rk->nev; i++) {
            cp_event *e = &rk->ev[i];
            e->gcomm = CP_COMM_UNKNOWN;
            if (e->comm == CPT_COMM_WORLD) { e->gcomm = 0; continue; }
            for (size_t k = 0; k < nc; k++)
                if (t->comms[k].id == e->comm) { e->gcomm = glob[k]; break; }
        }
        free(rk->comm_ids);
        free(rk->comm_g);
        rk->comm_ids = malloc((nc + 1) * sizeof *rk->comm_ids);
        if (!rk->comm_ids) abort();
        for (size_t k = 0; k < nc; k++) rk->comm_ids[k] = t->comms[k].id;
        rk->comm_g = glob;              /* glob[k] belongs to t->comms[k] */
        rk->ncomm_map = nc;
        free(ids);
    }
}

static void compute_wall(const cp_trace *tr, cp_rank *r)
{
    int64_t first = INT64_MAX, last = INT64_MIN, init = INT64_MAX, fini = INT64_MIN;
    for (size_t i = 0; i < r->nev; i++) {
        const cp_event *e = &r->ev[i];
        if (e->t0 < first) first = e->t0;
        if (e->t1 > last) last = e->t1;
        const char *nm = cp_name(tr, e);
        if (e->is_slice && is_init_name(nm) && e->t0 < init) init = e->t0;
        if (e->is_slice && is_fini_name(nm) && e->t1 > fini) fini = e->t1;
    }
    if (!r->nev) { r->wall_t0 = r->wall_t1 = 0; return; }
    r->wall_t0 = init != INT64_MAX ? init : first;
    r->wall_t1 = fini != INT64_MIN ? fini : last;
    if (r->wall_t1 < r->wall_t0) r->wall_t1 = last;
}

int cp_trace_load(const char *dir, cp_trace *tr, FILE *diag)
{
    memset(tr, 0, sizeof *tr);
    tr->dir = dir;
    cpt_trace *raw = NULL;
    int n = 0;
    if (cp_read_trace_dir(dir, &raw, &n, diag) != 0) {
        for (int i = 0; i < n; i++) cpt_trace_free(&raw[i]);
        free(raw);
        return -1;
    }
    return cp_trace_build(tr, dir, raw, n, diag);
}

int cp_rank_take(cp_rank *r, int i, const cpt_trace *raw, int *noted, FILE *diag)
{
    r->rank = i;
    r->raw = *raw;
    r->usable = raw->header.world_size > 0 && (raw->n_events > 0 || raw->n_event_blocks > 0 ||
                                               raw->have_meta || raw->complete);
    r->complete = raw->complete;
    snprintf(r->message, sizeof r->message, "%s", raw->error);
    snprintf(r->impl, sizeof r->impl, "%s", raw->header.impl_name);
    snprintf(r->host, sizeof r->host, "%s", raw->hostname);
    r->cpu = raw->cpu;
    r->have_clock = raw->have_clock;
    r->clock_offset_ns = raw->clock_offset_ns;
    r->dropped = raw->have_counters ? raw->counters.dropped : 0;
    if (!r->complete && ++*noted == CP_MAX_RANK_NOTES + 1)
        fprintf(diag, "coreprof: ... more damaged or missing ranks: see summary.txt\n");
    else if (!r->usable && *noted <= CP_MAX_RANK_NOTES)
        fprintf(diag, "coreprof: rank %d: no usable trace: %s\n", i, r->message);
    else if (!r->complete && *noted <= CP_MAX_RANK_NOTES)
        fprintf(diag, "coreprof: rank %d: trace incomplete: %s\n", i,
                r->message[0] ? r->message : "no end marker");
    return r->usable;
}

int cp_trace_build(cp_trace *tr, const char *dir, cpt_trace *raw, int n, FILE *diag)
{
    memset(tr, 0, sizeof *tr);
    tr->dir = dir;
    tr->nranks = n;
    tr->ranks = calloc((size_t)n, sizeof *tr->ranks);
    if (!tr->ranks) abort();
    int usable = 0, noted = 0;
    for (int i = 0; i < n; i++) {
        cp_rank *r = &tr->ranks[i];
        usable += cp_rank_take(r, i, &raw[i], &noted, diag);   /* takes ownership of the reader's arrays */
        cp_acc_begin(tr, r);
        cp_acc_events(tr, r, r->raw.events, r->raw.n_events);
        cp_acc_summary(tr, r, r->raw.summary, r->raw.n_summary);
        cp_acc_end(tr, r);
        convert_rank(tr, r);
        /* the model has its own copy of the events: halve the memory of big traces */
        free(r->raw.events);
        r->raw.events = NULL;
        r->raw.n_events = 0;
    }
    free(raw);                            /* the elements now belong to tr->ranks[i].raw */
    if (!usable) {
        fprintf(diag, "coreprof: %s: no usable trace file\n", dir);
        return -1;
    }
    /* shift so that the run starts at 0: smaller numbers in every output.  In
     * unsigned arithmetic from the smallest start, clamped, so that no value
     * from a damaged file can overflow anything downstream. */
    uint64_t origin = UINT64_MAX;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < tr->ranks[i].nev; k++)
            if ((uint64_t)tr->ranks[i].ev[k].t0 < origin) origin = (uint64_t)tr->ranks[i].ev[k].t0;
    const uint64_t limit = 1ull << 62;
    tr->t_end = 0;
    for (int i = 0; i < n; i++) {
        cp_rank *r = &tr->ranks[i];
        for (size_t k = 0; k < r->nev; k++) {
            cp_event *e = &r->ev[k];
            uint64_t t0 = (uint64_t)e->t0 - origin;
            e->t0 = (int64_t)(t0 < limit ? t0 : limit);
            e->t1 = e->t0 + e->t1;
            if (e->t1 > tr->t_end) tr->t_end = e->t1;
        }
        qsort(r->ev, r->nev, sizeof *r->ev, cmp_event_time);
        link_completions(r);
        compute_wall(tr, r);
    }
    cp_assign_global_comms(tr);
    cp_acc_finish(tr);
    return 0;
}

void cp_trace_free(cp_trace *tr)
{
    for (int i = 0; i < tr->nranks; i++) {
        cp_rank *r = &tr->ranks[i];
        free(r->ev);
        free(r->agg);
        free(r->comm_ids);
        free(r->comm_g);
        cp_acc_free(r);                 /* left by an error path */
        cpt_trace_free(&r->raw);
    }
    free(tr->ranks);
    for (size_t i = 0; i < tr->nnames; i++) free(tr->names[i]);
    free(tr->names);
    free(tr->flows);
    free(tr->comms);
    for (size_t i = 0; i < tr->nsites; i++) free(tr->sites[i].where);
    free(tr->sites);
    memset(tr, 0, sizeof *tr);
}
