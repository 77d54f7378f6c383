/*
 * agg.c -- the statistics of each rank, built one record at a time: per key
 * (call, kind flags, communicator, peer, size class, call site) the number of
 * calls, bytes and min/total/max time; the flush counters; the wall time; and
 * the number of messages per (peer, communicator, tag, direction).
 *
 * Memory grows with the number of distinct keys and of requests in flight,
 * never with the number of records: a multi-gigabyte trace is summarised in a
 * few megabytes.  A folded poll (CPT_F_FOLDED) counts as the calls it stands
 * for.  The same code takes a summary-mode file's entries, which carry no tags:
 * message counts are then unknown.
 */
#define _GNU_SOURCE
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- a small hash map: three 64-bit words -> one, with deletion --------- */
typedef struct cp_map {
    uint64_t (*k)[3];
    uint64_t *v;
    unsigned char *used;
    size_t cap, n;
} cp_map;

static size_t map_hash(const uint64_t *k)
{
    uint64_t h = (k[0] * 0x9E3779B97F4A7C15ull) ^ (k[1] + 0x632BE59BD9B4E019ull);
    h = (h ^ (h >> 31)) * 0xff51afd7ed558ccdull ^ k[2];
    h = (h ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ull;
    return (size_t)(h ^ (h >> 32));
}

static void map_init(cp_map *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->k = malloc(cap * sizeof *m->k);
    m->v = malloc(cap * sizeof *m->v);
    m->used = calloc(cap, 1);
    if (!m->k || !m->v || !m->used) abort();
}

static void map_free(cp_map *m)
{
    free(m->k);
    free(m->v);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static size_t map_find_slot(const cp_map *m, const uint64_t *k)
{
    size_t i = map_hash(k) & (m->cap - 1);
    while (m->used[i] && (m->k[i][0] != k[0] || m->k[i][1] != k[1] || m->k[i][2] != k[2]))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void map_grow(cp_map *m)
{
    cp_map b;
    map_init(&b, m->cap * 2);
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            size_t j = map_find_slot(&b, m->k[i]);
            b.used[j] = 1;
            memcpy(b.k[j], m->k[i], sizeof b.k[j]);
            b.v[j] = m->v[i];
            b.n++;
        }
    map_free(m);
    *m = b;
}

/* The value of key k; inserted with `init` if absent. */
static uint64_t *map_get(cp_map *m, uint64_t k0, uint64_t k1, uint64_t k2, uint64_t init)
{
    if (2 * (m->n + 1) > m->cap) map_grow(m);
    uint64_t k[3] = { k0, k1, k2 };
    size_t i = map_find_slot(m, k);
    if (!m->used[i]) {
        m->used[i] = 1;
        memcpy(m->k[i], k, sizeof k);
        m->v[i] = init;
        m->n++;
    }
    return &m->v[i];
}

static uint64_t *map_peek(cp_map *m, uint64_t k0, uint64_t k1, uint64_t k2)
{
    uint64_t k[3] = { k0, k1, k2 };
    size_t i = map_find_slot(m, k);
    return m->used[i] ? &m->v[i] : NULL;
}

/* Backward-shift deletion: no tombstones pile up under millions of requests. */
static void map_erase(cp_map *m, uint64_t *val)
{
    size_t hole = (size_t)(val - m->v);
    m->used[hole] = 0;
    m->n--;
    for (size_t s = (hole + 1) & (m->cap - 1); m->used[s]; s = (s + 1) & (m->cap - 1)) {
        size_t home = map_hash(m->k[s]) & (m->cap - 1);
        int stays = hole <= s ? (home > hole && home <= s) : (home > hole || home <= s);
        if (!stays) {
            memcpy(m->k[hole], m->k[s], sizeof m->k[hole]);
            m->v[hole] = m->v[s];
            m->used[hole] = 1;
            m->used[s] = 0;
            hole = s;
        }
    }
}

/* ---- per-rank accumulation -------------------------------------------- */

enum { CALL_PROBE = 1u << 24, CALL_PSETUP = 1u << 25, CALL_INIT = 1u << 26, CALL_FINI = 1u << 27,
       CALL_KNOWN = 1u << 31, CALL_NAME_MASK = (1u << 24) - 1 };

typedef struct cp_acc {
    uint32_t *call_info;      /* call id -> interned name | CALL_* (0: not looked up yet) */
    cp_map agg;               /* key -> index into r->agg */
    size_t agg_cap;
    uint64_t last_key[3];     /* polling loops repeat one key: skip the lookup */
    size_t last_idx;
    int have_last;
    cp_map reqs;              /* request id -> tag << 32 | comm of its initiation */
    cp_map msgs;              /* (peer, comm, tag, direction) -> messages */
    uint64_t first_ns, last_ns, init_ns, fini_ns;
    int have_any, have_init, have_fini;
} cp_acc;

uint32_t cp_intern_name(cp_trace *tr, const char *s)
{
    for (size_t i = 0; i < tr->nnames; i++)
        if (strcmp(tr->names[i], s) == 0) return (uint32_t)i;
    char **a = realloc(tr->names, (tr->nnames + 1) * sizeof *a);
    if (!a) abort();
    tr->names = a;
    tr->names[tr->nnames] = strdup(s);
    if (!tr->names[tr->nnames]) abort();
    return (uint32_t)tr->nnames++;
}

static uint32_t call_info(cp_trace *tr, cp_rank *r, unsigned call)
{
    uint32_t *ci = &r->acc->call_info[call];
    if (*ci) return *ci;
    const char *nm = cpt_call_name(&r->raw, call);
    size_t l = strlen(nm);
    uint32_t v = cp_intern_name(tr, nm) | CALL_KNOWN;
    if (strcasestr(nm, "probe")) v |= CALL_PROBE;
    if (l > 5 && strcmp(nm + l - 5, "_init") == 0) v |= CALL_PSETUP;
    if (!strcmp(nm, "MPI_Init") || !strcmp(nm, "MPI_Init_thread")) v |= CALL_INIT;
    if (!strcmp(nm, "MPI_Finalize")) v |= CALL_FINI;
    return *ci = v;
}

void cp_acc_begin(cp_trace *tr, cp_rank *r)
{
    (void)tr;
    cp_acc *a = calloc(1, sizeof *a);
    if (!a) abort();
    a->call_info = calloc(65536, sizeof *a->call_info);
    if (!a->call_info) abort();
    map_init(&a->agg, 256);
    map_init(&a->reqs, 256);
    map_init(&a->msgs, 256);
    r->acc = a;
}

/* Adjusted flags: a probe is not a message; a persistent set-up moves no data (its Starts do). */
static uint16_t kind_flags(uint32_t info, uint16_t flags)
{
    flags &= CPT_F_KIND_MASK;
    if (info & CALL_PROBE) flags &= (uint16_t)~(CPT_F_RECV | CPT_F_SEND);
    if (info & CALL_PSETUP) flags &= (uint16_t)~(CPT_F_RECV | CPT_F_SEND | CPT_F_COLLECTIVE);
    return flags;
}

static void agg_add(cp_rank *r, uint32_t info, uint16_t flags, unsigned bin, int32_t peer, uint32_t comm,
                    uint64_t caller, uint64_t calls, uint64_t bytes, uint64_t total, uint64_t lo, uint64_t hi)
{
    cp_acc *a = r->acc;
    uint64_t k0 = (uint64_t)(info & CALL_NAME_MASK) << 32 | (uint64_t)flags << 8 | (bin & 0xff);
    uint64_t k1 = (uint64_t)(uint32_t)peer << 32 | comm;
    size_t idx;
    if (a->have_last && a->last_key[0] == k0 && a->last_key[1] == k1 && a->last_key[2] == caller) {
        idx = a->last_idx;
    } else {
        uint64_t *v = map_get(&a->agg, k0, k1, caller, UINT64_MAX);
        if (*v == UINT64_MAX) {
            if (r->nagg == a->agg_cap) {
                a->agg_cap = a->agg_cap ? 2 * a->agg_cap : 64;
                cp_agg *g = realloc(r->agg, a->agg_cap * sizeof *g);
                if (!g) abort();
                r->agg = g;
            }
            cp_agg *g = &r->agg[r->nagg];
            memset(g, 0, sizeof *g);
            g->name = info & CALL_NAME_MASK;
            g->flags = flags;
            g->bin = (uint8_t)bin;
            g->is_slice = !(flags & (CPT_F_COMPLETION | CPT_F_SECONDARY));
            g->is_init_fini = !!(info & (CALL_INIT | CALL_FINI));
            g->peer = peer;
            g->comm = comm;
            g->gcomm = CP_COMM_UNKNOWN;
            g->caller = caller;
            g->site = -1;
            g->min_ns = INT64_MAX;
            *v = r->nagg++;
        }
        idx = (size_t)*v;
        a->last_key[0] = k0; a->last_key[1] = k1; a->last_key[2] = caller;
        a->last_idx = idx;
        a->have_last = 1;
    }
    cp_agg *g = &r->agg[idx];
    g->calls += calls;
    g->bytes += bytes;
    cp_add_sat(&g->total_ns, total > INT64_MAX ? INT64_MAX : (int64_t)total);
    if ((int64_t)lo < g->min_ns) g->min_ns = lo > INT64_MAX ? INT64_MAX : (int64_t)lo;
    if (hi > INT64_MAX) hi = INT64_MAX;
    if ((int64_t)hi > g->max_ns) g->max_ns = (int64_t)hi;
}

/* message key: peer and communicator as recorded (translated in cp_acc_end) */
static void count_message(cp_acc *a, int32_t peer, uint32_t comm, int32_t tag, int recv, int peer_local)
{
    uint64_t *v = map_get(&a->msgs, (uint64_t)(uint32_t)peer << 32 | comm,
                          (uint64_t)(uint32_t)tag << 32 | (uint64_t)recv << 1 | (uint64_t)peer_local, 0, 0);
    (*v)++;
}

void cp_acc_events(cp_trace *tr, cp_rank *r, const cpt_event *ev, size_t n)
{
    cp_acc *a = r->acc;
    for (size_t i = 0; i < n; i++) {
        const cpt_event *s = &ev[i];
        if (s->call == CPT_CALL_NONE) continue;
        uint64_t t0 = s->start_ns, t1 = t0 + s->duration_ns;
        if (!a->have_any || t0 < a->first_ns) a->first_ns = t0;
        if (!a->have_any || t1 > a->last_ns) a->last_ns = t1;
        a->have_any = 1;
        if (s->call == CPT_CALL_FLUSH) {
            r->flushes++;
            if (s->flags & CPT_F_FLUSH_WAITED) { r->flush_waits++; cp_add_sat(&r->flush_wait_ns, s->duration_ns); }
            continue;
        }
        uint32_t info = call_info(tr, r, s->call);
        uint16_t flags = kind_flags(info, s->flags);
        uint64_t calls, bytes, lo, hi;
        cpt_event_counts(s, &calls, &bytes, &lo, &hi);
        int slice = !(flags & (CPT_F_COMPLETION | CPT_F_SECONDARY));
        if (slice && (info & CALL_INIT) && (!a->have_init || t0 < a->init_ns)) { a->init_ns = t0; a->have_init = 1; }
        if (slice && (info & CALL_FINI) && (!a->have_fini || t1 > a->fini_ns)) { a->fini_ns = t1; a->have_fini = 1; }
        agg_add(r, info, flags, cpt_size_bin(bytes), s->peer, s->comm, s->caller, calls, bytes, s->duration_ns, lo, hi);

        /* messages, as msg_match.c pairs them */
        int peer_local = !!(s->flags & CPT_F_PEER_LOCAL);
        if ((flags & CPT_F_SEND) && !(flags & (CPT_F_COLLECTIVE | CPT_F_COMPLETION)) && s->peer >= 0)
            count_message(a, s->peer, s->comm, s->tag, 0, peer_local);
        uint64_t *init = NULL;
        if (s->request && (flags & CPT_F_COMPLETION)) init = map_peek(&a->reqs, s->request, 0, 0);
        if ((flags & CPT_F_RECV) && !(flags & (CPT_F_COLLECTIVE | CPT_F_CANCELLED)) &&
            (!(flags & CPT_F_NONBLOCKING) || (flags & CPT_F_COMPLETION)) && s->peer >= 0) {
            int32_t tag = s->tag;
            uint32_t comm = s->comm;
            if (init && tag == CPT_TAG_NONE) tag = (int32_t)(uint32_t)(*init >> 32);
            if (init && !comm) comm = (uint32_t)*init;
            count_message(a, s->peer, comm, tag, 1, peer_local);
        }
        if (init) map_erase(&a->reqs, init);
        if (s->request && (flags & CPT_F_NONBLOCKING) && !(flags & CPT_F_COMPLETION))
            *map_get(&a->reqs, s->request, 0, 0, 0) = (uint64_t)(uint32_t)s->tag << 32 | s->comm;
    }
}

void cp_acc_summary(cp_trace *tr, cp_rank *r, const cpt_summary_entry *e, size_t n)
{
    r->summary_mode = 1;
    for (size_t i = 0; i < n; i++) {
        const cpt_summary_entry *s = &e[i];
        if (s->call == CPT_CALL_NONE || !s->calls) continue;
        if (s->call == CPT_CALL_FLUSH) { r->flushes += s->calls; continue; }
        uint32_t info = call_info(tr, r, s->call);
        agg_add(r, info, kind_flags(info, s->flags), s->size_bin, s->peer, s->comm, s->caller, s->calls,
                s->bytes, s->total_ns, s->min_ns, s->max_ns);
    }
}

/* A comm-local peer (the writer did not know the communicator) to a world rank. */
static int32_t world_peer(const cpt_trace *t, uint32_t comm, int32_t peer)
{
    if (peer < 0) return peer;
    const cpt_comm *c = cpt_find_comm(t, comm);
    if (!c) return CPT_PEER_NONE;
    int64_t idx = peer;
    if (c->remote_size > 0) idx += c->size;   /* intercomm: peer is in the remote group */
    if (idx >= (int64_t)c->size + c->remote_size) return CPT_PEER_NONE;
    return c->world_ranks[idx];
}

void cp_acc_end(cp_trace *tr, cp_rank *r)
{
    (void)tr;
    cp_acc *a = r->acc;
    if (!a) return;
    for (size_t i = 0; i < r->nagg; i++) {
        cp_agg *g = &r->agg[i];
        if (g->flags & CPT_F_PEER_LOCAL) {
            g->peer = world_peer(&r->raw, g->comm, g->peer);
            g->flags &= (uint16_t)~CPT_F_PEER_LOCAL;
        }
        if (g->min_ns == INT64_MAX) g->min_ns = 0;
    }
    if (r->summary_mode || r->raw.header.mode == CPT_MODE_SUMMARY) {
        r->summary_mode = 1;
        r->wall_ns = r->raw.have_run && r->raw.finalize_ns > r->raw.init_ns
                   ? (int64_t)(r->raw.finalize_ns - r->raw.init_ns) : 0;
    } else if (a->have_any) {
        uint64_t t0 = a->have_init ? a->init_ns : a->first_ns;
        uint64_t t1 = a->have_fini ? a->fini_ns : a->last_ns;
        if (t1 < t0) t1 = a->last_ns;
        uint64_t w = t1 - t0;
        r->wall_ns = w > (1ull << 62) ? (int64_t)(1ull << 62) : (int64_t)w;
    }
    map_free(&a->agg);
    map_free(&a->reqs);
    free(a->call_info);
    a->call_info = NULL;
    /* a->msgs stays for cp_acc_finish: its communicators are not global yet */
}

static uint32_t gcomm_of(const cp_rank *r, uint32_t comm)
{
    if (comm == CPT_COMM_WORLD) return 0;
    for (size_t i = 0; i < r->ncomm_map; i++)
        if (r->comm_ids[i] == comm) return r->comm_g[i];
    return CP_COMM_UNKNOWN;
}

void cp_acc_finish(cp_trace *tr)
{
    cp_map all;                 /* (src, dst), (gcomm, tag), direction -> messages */
    map_init(&all, 1024);
    int unknown = 0;
    for (int ri = 0; ri < tr->nranks; ri++) {
        cp_rank *r = &tr->ranks[ri];
        for (size_t i = 0; i < r->nagg; i++) r->agg[i].gcomm = gcomm_of(r, r->agg[i].comm);
        if (r->summary_mode) unknown = 1;
        cp_acc *a = r->acc;
        if (!a) continue;
        for (size_t i = 0; i < a->msgs.cap; i++) {
            if (!a->msgs.used[i]) continue;
            int32_t peer = (int32_t)(uint32_t)(a->msgs.k[i][0] >> 32);
            uint32_t comm = (uint32_t)a->msgs.k[i][0];
            int32_t tag = (int32_t)(uint32_t)(a->msgs.k[i][1] >> 32);
            uint64_t recv = (a->msgs.k[i][1] >> 1) & 1;
            if (a->msgs.k[i][1] & 1) peer = world_peer(&r->raw, comm, peer);
            if (peer < 0) continue;
            int32_t src = recv ? peer : ri, dst = recv ? ri : peer;
            *map_get(&all, (uint64_t)(uint32_t)src << 32 | (uint32_t)dst,
                     (uint64_t)gcomm_of(r, comm) << 32 | (uint32_t)tag, recv, 0) += a->msgs.v[i];
        }
        map_free(&a->msgs);
        free(a);
        r->acc = NULL;
    }
    tr->msgs_matched = tr->msgs_unmatched_sends = tr->msgs_unmatched_recvs = 0;
    for (size_t i = 0; i < all.cap; i++) {
        if (!all.used[i]) continue;
        uint64_t *other = map_peek(&all, all.k[i][0], all.k[i][1], all.k[i][2] ^ 1);
        uint64_t mine = all.v[i], theirs = other ? *other : 0;
        if (all.k[i][2] == 0) {                 /* count each key once: from its sends */
            tr->msgs_matched += mine < theirs ? mine : theirs;
            if (mine > theirs) tr->msgs_unmatched_sends += mine - theirs;
        } else if (mine > theirs) {
            tr->msgs_unmatched_recvs += mine - theirs;
        }
    }
    tr->msgs_unknown = unknown;
    map_free(&all);
}

void cp_acc_free(cp_rank *r)
{
    cp_acc *a = r->acc;
    if (!a) return;
    map_free(&a->agg);
    map_free(&a->reqs);
    map_free(&a->msgs);
    free(a->call_info);
    free(a);
    r->acc = NULL;
}
