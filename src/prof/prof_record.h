/*
 * prof_record.h -- the hot path of libcoreprof, included by the generated wrappers.
 *
 * Compiles against any mpi.h (corempi, Open MPI, MPICH): handles are only ever
 * converted with CM_PROF_KEY, which works for integer and pointer handles alike.
 * No locks, no syscalls, no malloc here: a record is two clock reads, a bounds
 * check and a few stores into the current buffer half.
 */
#ifndef CM_PROF_RECORD_H
#define CM_PROF_RECORD_H

#include <mpi.h>
#include <stdint.h>
#include "cpt_format.h"

#define CM_PROF_KEY(h) ((uintptr_t)(h))
#define CM_PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define CM_PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CM_PROF_HIDDEN __attribute__((visibility("hidden")))
/* the MPI_ names we interpose must be exported whatever mpi.h says about visibility */
#define CM_PROF_EXPORT __attribute__((visibility("default")))
/* The hot path's helpers are forced inline: the generated wrappers file is so
 * large that GCC's unit-growth limits otherwise leave them as out-of-line
 * calls (cm_prof_now, cm_prof_set_peer, cm_prof_bytes... each a call and a
 * spill of the wrapper's registers). */
#define CM_PROF_INLINE static inline __attribute__((always_inline))

typedef struct cm_prof_call_name { int id; const char *name; } cm_prof_call_name_t;
extern const cm_prof_call_name_t cm_prof_call_names[] CM_PROF_HIDDEN;

/* Recording is on: initialized, buffers running, not paused by Pcontrol(0). */
extern int cm_prof_on CM_PROF_HIDDEN;

/* The half being filled: [cur, end).  Each thread fills its own buffer
 * (prof_buffer.c); a thread's first record finds cur == end == NULL and
 * registers its buffer on the slow path. */
typedef struct cm_prof_fill { cpt_event *cur, *end; } cm_prof_fill_t;
cpt_event *cm_prof_switch_half(void) CM_PROF_HIDDEN;   /* slow path: hand the full half to the writer */

typedef struct cm_prof_fold_key { uint64_t w[4]; } cm_prof_fold_key_t;
typedef struct cm_prof_fold { cpt_event *e; cm_prof_fold_key_t key; } cm_prof_fold_t;
typedef struct cm_prof_comm cm_prof_comm_t;

/* ---- per-thread state ------------------------------------------------
 * What a record touches is one thread-local block, so that threads under
 * MPI_THREAD_MULTIPLE never share it and a wrapper reaches all of it through
 * one TLS offset (initial-exec: the library is loaded at start-up, and a
 * record costs no __tls_get_addr call). */
typedef struct cm_prof_thread {
    cm_prof_fill_t fill;
    uintptr_t last_comm_key;           /* the communicator last looked up by this thread */
    const cm_prof_comm_t *last_comm;
    cm_prof_fold_t fold;
} cm_prof_thread_t;
extern __thread cm_prof_thread_t cm_prof_thread CM_PROF_HIDDEN __attribute__((tls_model("initial-exec")));
#define cm_prof_fill (cm_prof_thread.fill)
#define cm_prof_fold (cm_prof_thread.fold)
#define cm_prof_last_comm (cm_prof_thread.last_comm)
#define cm_prof_last_comm_key (cm_prof_thread.last_comm_key)
/* 1 when the program was granted MPI_THREAD_MULTIPLE: the shared tables
 * (communicators, types, requests) take their locks on their slow paths. */
extern int cm_prof_mt CM_PROF_HIDDEN;

/* ---- clock ----------------------------------------------------------- */
typedef struct cm_prof_clock {
    int use_tsc;
    uint64_t tsc0, ns0;
    uint64_t mult;      /* ns per tick, 32.32 fixed point */
} cm_prof_clock_t;
extern cm_prof_clock_t cm_prof_clock CM_PROF_HIDDEN;
uint64_t cm_prof_monotonic_ns(void) CM_PROF_HIDDEN;
void cm_prof_clock_init(void) CM_PROF_HIDDEN;
void cm_prof_clock_refine(void) CM_PROF_HIDDEN;

CM_PROF_INLINE uint64_t cm_prof_now(void)
{
#if defined(__x86_64__)
    if (CM_PROF_LIKELY(cm_prof_clock.use_tsc)) {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        uint64_t d = (((uint64_t)hi << 32) | lo) - cm_prof_clock.tsc0;
        return cm_prof_clock.ns0 + (uint64_t)(((unsigned __int128)d * cm_prof_clock.mult) >> 32);
    }
#endif
    return cm_prof_monotonic_ns();
}

/* ---- records --------------------------------------------------------- */
CM_PROF_INLINE cpt_event *cm_prof_begin(unsigned call, unsigned flags, uint64_t t0, uint64_t t1,
                                       void *caller)
{
    cpt_event *e = cm_prof_fill.cur;
    if (CM_PROF_UNLIKELY(e == cm_prof_fill.end)) e = cm_prof_switch_half();
    uint64_t d = t1 - t0;
    e->start_ns = t0;
    e->bytes = 0;
    e->caller = (uint64_t)(uintptr_t)caller;
    if (CM_PROF_UNLIKELY(d > UINT32_MAX)) { d = UINT32_MAX; flags |= CPT_F_DURATION_SAT; }
    e->duration_ns = (uint32_t)d;
    e->peer = CPT_PEER_NONE;
    e->tag = CPT_TAG_NONE;
    e->comm = 0;
    e->request = 0;
    e->call = (uint16_t)call;
    e->flags = (uint16_t)flags;
    return e;
}

/* Publish the record: only committed records are written, even by the crash handler. */
CM_PROF_INLINE void cm_prof_commit(cpt_event *e) { cm_prof_fill.cur = e + 1; }

CM_PROF_INLINE void cm_prof_begin_commit(unsigned call, unsigned flags, uint64_t t0, uint64_t t1,
                                        void *caller)
{
    cm_prof_commit(cm_prof_begin(call, flags, t0, t1, caller));
}

/* ---- folding of unsuccessful polls --------------------------------------
 * A program that polls (Iprobe/Test* in a loop) makes millions of identical
 * calls that find nothing.  The first unsuccessful poll is recorded as usual
 * and becomes the open fold; a following one with the same key (call, call
 * site, arguments) is added to that record in place (CPT_F_FOLDED, see
 * cpt_format.h) as long as the record is still the last one committed.  So a
 * fold ends by itself when any other record is made (another call, a
 * successful poll, the flush record of a new half).  Invariant: fold.e is
 * NULL or points into the half being filled; cm_prof_fold_end() is called
 * wherever a half changes hands and by Pcontrol. */
/* The key is compared word by word (no hashing on the hot path): call, call
 * site and two words of arguments; only polls over request arrays hash them. */
/* (cm_prof_fold_key_t and cm_prof_fold_t: see the per-thread state above) */

CM_PROF_INLINE void cm_prof_fold_end(void) { cm_prof_fold.e = NULL; }

CM_PROF_INLINE cm_prof_fold_key_t cm_prof_fold_key(unsigned call, const void *caller, uint64_t a, uint64_t b)
{
    cm_prof_fold_key_t k = {{(uint64_t)call, (uint64_t)(uintptr_t)caller, a, b}};
    return k;
}

/* Iprobe/Improbe: source and tag in one word, the communicator in the other. */
CM_PROF_INLINE uint64_t cm_prof_fold_source_tag(int source, int tag)
{
    return (uint64_t)(uint32_t)source << 32 | (uint32_t)tag;
}

/* Polls over an array of requests: the count, and the handles hashed. */
CM_PROF_INLINE cm_prof_fold_key_t cm_prof_fold_key_reqs(unsigned call, const void *caller, const MPI_Request *r, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint64_t)CM_PROF_KEY(r[i])) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    return cm_prof_fold_key(call, caller, (uint64_t)(int64_t)n, h);
}

CM_PROF_INLINE int cm_prof_fold_same(const cm_prof_fold_key_t *a, const cm_prof_fold_key_t *b)
{
    return a->w[0] == b->w[0] && a->w[1] == b->w[1] && a->w[2] == b->w[2] && a->w[3] == b->w[3];
}

/* An unsuccessful poll with this key took [t0, t1]: add it to the open fold if
 * it continues it (returns 1: nothing else to record).  Returns 0 when the
 * caller must make a record of its own (and then open a fold with it). */
CM_PROF_INLINE int cm_prof_fold_extend(cm_prof_fold_key_t key, uint64_t t0, uint64_t t1)
{
    cpt_event *e = cm_prof_fold.e;
    if (e == NULL || e + 1 != cm_prof_fill.cur || !cm_prof_fold_same(&cm_prof_fold.key, &key)) return 0;
    uint64_t d = t1 - t0, total = (uint64_t)e->duration_ns + d;
    if (total >= UINT32_MAX || (e->flags & CPT_F_DURATION_SAT)) return 0;
    uint32_t n, lo, hi;
    if (e->flags & CPT_F_FOLDED) {
        n = cpt_fold_count(e);
        lo = cpt_fold_min_ns(e);
        hi = cpt_fold_max_ns(e);
        if (n == UINT32_MAX) return 0;
    } else {                      /* the second call: the plain record becomes a fold */
        n = 1;
        lo = hi = e->duration_ns;
    }
    if (d < lo) lo = (uint32_t)d;
    if (d > hi) hi = (uint32_t)d;
    e->bytes = cpt_fold_pack(n + 1, lo);
    e->request = hi;
    e->duration_ns = (uint32_t)total;
    e->flags |= CPT_F_FOLDED;
    return 1;
}

/* `e` (just committed) is an unsuccessful poll with this key: later ones may join it. */
CM_PROF_INLINE void cm_prof_fold_open(cpt_event *e, cm_prof_fold_key_t key)
{
    cm_prof_fold.e = e;
    cm_prof_fold.key = key;
}

/* A Test-family poll that found nothing: its record has no fields of its own. */
CM_PROF_INLINE void cm_prof_idle_poll(unsigned call, cm_prof_fold_key_t key, uint64_t t0, uint64_t t1,
                                     void *caller)
{
    if (cm_prof_fold_extend(key, t0, t1)) return;
    cpt_event *e = cm_prof_begin(call, 0, t0, t1, caller);
    cm_prof_commit(e);
    cm_prof_fold_open(e, key);
}

/* ---- communicators --------------------------------------------------- */
struct cm_prof_comm {
    uintptr_t key;         /* handle; 0 and free slots never match a live lookup */
    uint32_t id;           /* profiler id (CPT_COMM_WORLD, CPT_COMM_SELF, 3, ...) */
    int32_t size, remote_size;
    int32_t *world_ranks;  /* NULL: identity (MPI_COMM_WORLD) */
};

const cm_prof_comm_t *cm_prof_comm_slow(MPI_Comm comm) CM_PROF_HIDDEN;
void cm_prof_comm_forget(MPI_Comm comm) CM_PROF_HIDDEN;
const cm_prof_comm_t *cm_prof_comm_unknown(void) CM_PROF_HIDDEN;

/* The table entry of a communicator the call just used; NULL if the call failed. */
CM_PROF_INLINE const cm_prof_comm_t *cm_prof_comm(MPI_Comm comm, int rc)
{
    if (CM_PROF_UNLIKELY(rc != MPI_SUCCESS)) return NULL;
    if (CM_PROF_LIKELY(CM_PROF_KEY(comm) == cm_prof_last_comm_key)) return cm_prof_last_comm;
    return cm_prof_comm_slow(comm);
}

CM_PROF_INLINE int32_t cm_prof_special_rank(int rank)
{
    if (rank == MPI_ANY_SOURCE) return CPT_PEER_ANY;
    if (rank == MPI_PROC_NULL) return CPT_PEER_PROC_NULL;
    return CPT_PEER_NONE;
}

CM_PROF_INLINE void cm_prof_set_peer(cpt_event *e, const cm_prof_comm_t *c, int rank, unsigned dirflag)
{
    e->flags |= (uint16_t)dirflag;
    if (rank < 0) { e->peer = cm_prof_special_rank(rank); return; }
    if (CM_PROF_LIKELY(c != NULL)) {
        if (c->world_ranks == NULL) { e->peer = rank; return; }
        int32_t base = c->remote_size > 0 ? c->size : 0;      /* intercomm peers are remote */
        int32_t n = c->remote_size > 0 ? c->remote_size : c->size;
        if (rank < n) { e->peer = c->world_ranks[base + rank]; return; }
    }
    e->peer = rank;
    e->flags |= CPT_F_PEER_LOCAL;
}

/* ---- sizes ----------------------------------------------------------- */
typedef struct cm_prof_type_slot { uintptr_t key; int valid; int size; } cm_prof_type_slot_t;
#define CM_PROF_TYPE_SLOTS 64
extern cm_prof_type_slot_t cm_prof_types[CM_PROF_TYPE_SLOTS] CM_PROF_HIDDEN;
int cm_prof_type_size_slow(MPI_Datatype t) CM_PROF_HIDDEN;
void cm_prof_type_forget(void) CM_PROF_HIDDEN;

/* count is an int, or an MPI_Count in the large-count (_c) forms. */
CM_PROF_INLINE uint64_t cm_prof_bytes(long long count, MPI_Datatype t)
{
    if (count <= 0) return 0;
    uintptr_t k = CM_PROF_KEY(t);
    cm_prof_type_slot_t *s = &cm_prof_types[(k ^ (k >> 6)) & (CM_PROF_TYPE_SLOTS - 1)];
    int size = (CM_PROF_LIKELY(s->valid && s->key == k)) ? s->size : cm_prof_type_size_slow(t);
    return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}

uint64_t cm_prof_status_bytes(const MPI_Status *st) CM_PROF_HIDDEN;

/* The v-forms' bytes (gen_wrappers.py, vbytes_expr): the mean over n peers of
 * term, evaluated with i = 0..n-1 (a GNU statement expression). */
#define cm_prof_mean_bytes(n, i, term)                                        \
    ({                                                                        \
        int cm_n_ = (n);                                                      \
        uint64_t cm_s_ = 0;                                                   \
        for (int i = 0; i < cm_n_; i++) cm_s_ += (term);                      \
        cm_n_ > 0 ? cm_s_ / (uint64_t)cm_n_ : 0;                              \
    })
/* How many peers a v-form's count arrays cover: the remote group of an
 * intercommunicator, the out-neighbours for the neighbourhood collectives,
 * else the group; 0 when the call failed (c NULL). */
int cm_prof_peers(const cm_prof_comm_t *c, MPI_Comm comm, int neighbor) CM_PROF_HIDDEN;

/* ---- requests -------------------------------------------------------- */
uint32_t cm_prof_req_add(MPI_Request r, const cpt_event *init, int persistent) CM_PROF_HIDDEN;
void cm_prof_req_forget(MPI_Request r) CM_PROF_HIDDEN;
void cm_prof_completed(unsigned call, MPI_Request r, MPI_Status *st, uint64_t t0, uint64_t t1,
                       void *caller) CM_PROF_HIDDEN;
void cm_prof_started(unsigned call, MPI_Request r, int rc, int secondary, uint64_t t0, uint64_t t1,
                     void *caller) CM_PROF_HIDDEN;
MPI_Request *cm_prof_scratch_reqs(int n) CM_PROF_HIDDEN;
MPI_Status *cm_prof_scratch_statuses(int n) CM_PROF_HIDDEN;

#endif /* CM_PROF_RECORD_H */
