/*
 * prof_comm.c -- the profiler's communicator table: handle -> id and members'
 * world ranks, so records carry world ranks and the trace can say who is who.
 * A communicator is registered the first time a successful call uses it
 * (no need to wrap every constructor); Comm_free unhooks the handle because
 * a freed handle may be reused for another communicator.
 */
#include "prof_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CM_PROF_MAX_COMMS 4096
#define CM_PROF_INDEX_SLOTS 8192       /* power of two, > 2 * max comms */

static cm_prof_comm_t comms[CM_PROF_MAX_COMMS]; /* creation order; freed ones stay for the trace */
static int n_comms;
static int comm_index[CM_PROF_INDEX_SLOTS];     /* 0 empty, -1 tombstone, else entry + 1 */
static uintptr_t unknown_key_seen;

/* the key (uintptr_t)-1 matches no handle until a thread's first lookup */
__thread cm_prof_thread_t cm_prof_thread = { .last_comm_key = (uintptr_t)-1 };
int cm_prof_mt;
/* Under MPI_THREAD_MULTIPLE the table is changed and searched under this lock
 * (slow path only: each thread's last lookup is its own). */
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
#define TABLE_LOCK() do { if (cm_prof_mt) pthread_mutex_lock(&table_mu); } while (0)
#define TABLE_UNLOCK() do { if (cm_prof_mt) pthread_mutex_unlock(&table_mu); } while (0)

static unsigned slot_of(uintptr_t k)
{
    k ^= k >> 17;
    k *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(k >> 40) & (CM_PROF_INDEX_SLOTS - 1);
}

static cm_prof_comm_t *find_entry(uintptr_t key)
{
    for (unsigned s = slot_of(key), n = 0; n < CM_PROF_INDEX_SLOTS; s = (s + 1) & (CM_PROF_INDEX_SLOTS - 1), n++) {
        int v = comm_index[s];
        if (v == 0) return NULL;
        if (v > 0 && comms[v - 1].key == key) return &comms[v - 1];
    }
    return NULL;
}

static void index_insert(uintptr_t key, int entry)
{
    for (unsigned s = slot_of(key);; s = (s + 1) & (CM_PROF_INDEX_SLOTS - 1)) {
        if (comm_index[s] <= 0) { comm_index[s] = entry + 1; return; }
    }
}

static cm_prof_comm_t *add_entry(uintptr_t key, int32_t size, int32_t rsize, int32_t *ranks)
{
    if (n_comms >= CM_PROF_MAX_COMMS) { free(ranks); return NULL; }
    cm_prof_comm_t *c = &comms[n_comms];
    c->key = key;
    c->id = (uint32_t)n_comms + 1;            /* world = 1, self = 2 (registered first) */
    c->size = size;
    c->remote_size = rsize;
    c->world_ranks = ranks;
    index_insert(key, n_comms);
    n_comms++;
    return c;
}

/* Members of `group` as world ranks; NULL on failure. */
static int32_t *group_world_ranks(MPI_Group group, int n, MPI_Group world_group, int32_t *out)
{
    int *in = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *res = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!in || !res) { free(in); free(res); return NULL; }
    for (int i = 0; i < n; i++) in[i] = i;
    int ok = PMPI_Group_translate_ranks(group, n, in, world_group, res) == MPI_SUCCESS;
    for (int i = 0; ok && i < n; i++) out[i] = res[i] == MPI_UNDEFINED ? -1 : res[i];
    free(in);
    free(res);
    return ok ? out : NULL;
}

void cm_prof_comm_init(int world_rank, int world_size)
{
    memset(comm_index, 0, sizeof comm_index);
    n_comms = 0;
    add_entry(CM_PROF_KEY(MPI_COMM_WORLD), world_size, 0, NULL);
    int32_t *self = malloc(sizeof *self);
    if (self) *self = world_rank;
    add_entry(CM_PROF_KEY(MPI_COMM_SELF), 1, 0, self);
    cm_prof_last_comm = &comms[0];
    cm_prof_last_comm_key = CM_PROF_KEY(MPI_COMM_WORLD);
}

static const cm_prof_comm_t *comm_lookup(MPI_Comm comm)
{
    uintptr_t key = CM_PROF_KEY(comm);
    cm_prof_comm_t *c = find_entry(key);
    if (!c && key != unknown_key_seen) {
        int inter = 0, size = 0, rsize = 0;
        MPI_Group g = MPI_GROUP_NULL, rg = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
        if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) { unknown_key_seen = key; return NULL; }
        PMPI_Comm_group(MPI_COMM_WORLD, &wg);
        PMPI_Comm_group(comm, &g);
        PMPI_Group_size(g, &size);
#if defined(COREMPI)
        inter = 0;      /* corempi has no intercommunicators (and no Comm_remote_group) */
#else
        if (inter) {
            PMPI_Comm_remote_group(comm, &rg);
            PMPI_Group_size(rg, &rsize);
        }
#endif
        int32_t *ranks = malloc(sizeof(int32_t) * (size_t)(size + rsize + 1));
        int ok = ranks && group_world_ranks(g, size, wg, ranks) &&
                 (!inter || group_world_ranks(rg, rsize, wg, ranks + size));
        PMPI_Group_free(&g);
        if (inter) PMPI_Group_free(&rg);
        PMPI_Group_free(&wg);
        if (!ok) { free(ranks); unknown_key_seen = key; return NULL; }
        c = add_entry(key, size, rsize, ranks);
        if (!c) return NULL;
    }
    if (c) { cm_prof_last_comm = c; cm_prof_last_comm_key = key; }
    return c;
}

const cm_prof_comm_t *cm_prof_comm_slow(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return NULL;
    TABLE_LOCK();
    const cm_prof_comm_t *c = comm_lookup(comm);
    TABLE_UNLOCK();
    return c;
}

void cm_prof_comm_forget(MPI_Comm comm)
{
    uintptr_t key = CM_PROF_KEY(comm);
    TABLE_LOCK();
    for (unsigned s = slot_of(key), n = 0; n < CM_PROF_INDEX_SLOTS; s = (s + 1) & (CM_PROF_INDEX_SLOTS - 1), n++) {
        int v = comm_index[s];
        if (v == 0) break;
        if (v > 0 && comms[v - 1].key == key) {
            comm_index[s] = -1;
            comms[v - 1].key = 0;           /* keep the entry: the trace still names it */
            break;
        }
    }
    if (cm_prof_last_comm_key == key) { cm_prof_last_comm_key = (uintptr_t)-1; cm_prof_last_comm = NULL; }
    if (unknown_key_seen == key) unknown_key_seen = 0;
    TABLE_UNLOCK();
}

const cm_prof_comm_t *cm_prof_comm_unknown(void) { return NULL; }

int cm_prof_comm_count(void) { return n_comms; }
const cm_prof_comm_t *cm_prof_comm_at(int i) { return &comms[i]; }

int cm_prof_peers(const cm_prof_comm_t *c, MPI_Comm comm, int neighbor)
{
    if (!c) return 0;
    if (!neighbor) return c->remote_size > 0 ? c->remote_size : c->size;
    int kind = MPI_UNDEFINED, n = 0, rank = 0, in = 0, weighted = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS) return 0;
    if (kind == MPI_CART && PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS) return 2 * n;
    if (kind == MPI_GRAPH && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
        PMPI_Graph_neighbors_count(comm, rank, &n) == MPI_SUCCESS)
        return n;
    if (kind == MPI_DIST_GRAPH && PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted) == MPI_SUCCESS)
        return n;
    return 0;
}
