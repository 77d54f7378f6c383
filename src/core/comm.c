/*
 * comm.c -- the communicator table, MPI_COMM_WORLD and MPI_COMM_SELF,
 * rank/size queries.  (Creation of new communicators: mpi/comm_create.c.)
 */
#include "core/comm.h"
#include "core/state.h"
#include "core/remote.h"
#include "core/error.h"
#include "core/info.h"
#include "fe_comm.h"
#include "core/thread.h"
#include "shm/fault.h"

#include <stdlib.h>
#include <string.h>

struct cm_comm **cm_comm_table;
int cm_comm_table_len;

static int table_cap;
/* MPI_THREAD_MULTIPLE: adding to and clearing from the table are under
 * this lock; cm_comm_lookup takes none (the table grows as
 * core/request.c's does: the array is stored before the length). */
static pthread_mutex_t cm_comm_table_lock = PTHREAD_MUTEX_INITIALIZER;

static MPI_Comm table_add_locked(struct cm_comm *c);
static MPI_Comm table_add(struct cm_comm *c)
{
    cm_mt_lock(&cm_comm_table_lock);
    MPI_Comm h = table_add_locked(c);
    cm_mt_unlock(&cm_comm_table_lock);
    return h;
}

static MPI_Comm table_add_locked(struct cm_comm *c)
{
    /* Handles 1 and 2 are WORLD and SELF; reuse freed slots after them. */
    for (int i = 3; i < cm_comm_table_len; i++) {
        if (!cm_comm_table[i]) {
            CM_FAULT(mt_comm_slot);   /* another thread must not take the same slot */
            cm_comm_table[i] = c;
            return cm_comm_handle(i);
        }
    }
    if (cm_comm_table_len == table_cap) {
        int cap = table_cap ? 2 * table_cap : 64;
        struct cm_comm **t = cm_table_grow(cm_comm_table, (size_t)table_cap * sizeof *t, (size_t)cap * sizeof *t);
        if (!t)
            return MPI_COMM_NULL;
        __atomic_store_n(&cm_comm_table, t, __ATOMIC_RELEASE);
        table_cap = cap;
    }
    if (cm_comm_table_len < 3)
        cm_comm_table_len = 3;
    int i = cm_comm_table_len;
    cm_comm_table[i] = c;
    __atomic_store_n(&cm_comm_table_len, i + 1, __ATOMIC_RELEASE);
    return cm_comm_handle(i);
}

struct cm_comm *cm_comm_user_or_error(MPI_Comm comm, const char *call, int *rc)
{
    cm_check_initialized(call);
    struct cm_comm *c = cm_comm_user_lookup(comm);
    if (c)
        *rc = MPI_SUCCESS;
    else if (comm == MPI_COMM_NULL)
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "communicator is MPI_COMM_NULL");
    else
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator %ld", (long)(intptr_t)comm);
    return c;
}

struct cm_comm *cm_comm_intra_or_error(MPI_Comm comm, const char *name, const char *call, int *rc)
{
    struct cm_comm *c = cm_comm_user_lookup(comm);
    if (!c)
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%s is %s", name,
                       comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not a valid communicator");
    else if (cm_comm_is_inter(c))
        *rc = cm_error(comm, MPI_ERR_COMM, call, "%s is an intercommunicator (must be an intracommunicator)", name);
    else
        return c;
    return NULL;
}

struct cm_comm *cm_comm_create_raw(const int *world_ranks, int size, int myrank, uint16_t ctx)
{
    struct cm_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->world_of = malloc((size_t)size * sizeof(int));
    c->comm_of = malloc((size_t)cm_g.size * sizeof(int));
    if (!c->world_of || !c->comm_of) {
        free(c->world_of);
        free(c->comm_of);
        free(c);
        return NULL;
    }
    memcpy(c->world_of, world_ranks, (size_t)size * sizeof(int));
    for (int w = 0; w < cm_g.size; w++)
        c->comm_of[w] = -1;
    for (int r = 0; r < size; r++)
        c->comm_of[world_ranks[r]] = r;
    c->size = size;
    c->rank = myrank;
    c->ctx = ctx;
    c->peer_size = size;
    c->peer_world_of = c->world_of;
    c->peer_comm_of = c->comm_of;
    c->errh = MPI_ERRORS_ARE_FATAL;
    c->info = MPI_INFO_NULL; /* not 0: no handle is 0 in the standard ABI */
    c->refcount = 1;
    c->handle = table_add(c);
    if (c->handle == MPI_COMM_NULL) {
        free(c->world_of);
        free(c->comm_of);
        free(c);
        return NULL;
    }
    if (ctx != CM_CTX_CHANNEL)
        cm_remote_ref(c->world_of, size, 1);
    return c;
}

int cm_comm_set_remote(struct cm_comm *c, const int *remote_world, int remote_size, struct cm_comm *local)
{
    int *wo = malloc((size_t)remote_size * sizeof(int)), *co = malloc((size_t)cm_g.size * sizeof(int));
    if (!wo || !co) {
        free(wo);
        free(co);
        return MPI_ERR_NO_MEM;
    }
    memcpy(wo, remote_world, (size_t)remote_size * sizeof(int));
    for (int w = 0; w < cm_g.size; w++)
        co[w] = -1;
    for (int r = 0; r < remote_size; r++)
        co[remote_world[r]] = r;
    c->remote_size = remote_size;
    c->remote_world_of = wo;
    cm_remote_ref(wo, remote_size, 1);
    c->remote_comm_of = co;
    c->peer_size = remote_size;
    c->peer_world_of = wo;
    c->peer_comm_of = co;
    c->local = local;
    return MPI_SUCCESS;
}

void cm_comm_release(struct cm_comm *c)
{
    if (--c->refcount > 0)
        return;
    if (c->local)
        cm_comm_release(c->local);
    if (c->ctx != CM_CTX_CHANNEL)
        cm_remote_ref(c->world_of, c->size, -1);
    if (c->remote_world_of)
        cm_remote_ref(c->remote_world_of, c->remote_size, -1);
    free(c->remote_world_of);
    free(c->remote_comm_of);
    if (c->coll_free)
        c->coll_free(c->coll);
    if (c->topo && cm_topo_free)
        cm_topo_free(c->topo);
    cm_errh_release(c->errh);
    cm_info_release(c->info);
    int i = cm_comm_index(c->handle);
    cm_mt_lock(&cm_comm_table_lock);
    cm_comm_table[i] = NULL;
    if (i > cm_comm_index(MPI_COMM_SELF))
        cm_context_free(c->ctx);
    cm_mt_unlock(&cm_comm_table_lock);
    free(c->world_of);
    free(c->comm_of);
    free(c);
}

int cm_comm_init(void)
{
    table_cap = 64;
    cm_comm_table = calloc((size_t)table_cap, sizeof *cm_comm_table);
    if (!cm_comm_table)
        return MPI_ERR_NO_MEM;
    cm_comm_table_len = 1;

    int *all = malloc((size_t)cm_g.world_size * sizeof(int));
    if (!all)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < cm_g.world_size; i++)
        all[i] = cm_g.world_first + i;
    /* Contexts 0/1 belong to WORLD and 2/3 to SELF in every process (4/5:
     * the dynamic-process channel, mpi/dyn.h).  Two jobs' WORLDs share
     * context 0 but never a member, so their messages cannot meet. */
    cm_comm_table_len = 1;
    struct cm_comm *w = cm_comm_create_raw(all, cm_g.world_size, cm_g.rank - cm_g.world_first, 0);
    free(all);
    if (!w)
        return MPI_ERR_NO_MEM;
    /* table_add put WORLD at 3: move it to its fixed handle. */
    cm_comm_table[cm_comm_index(w->handle)] = NULL;
    cm_comm_table_len = 3;
    w->handle = MPI_COMM_WORLD;
    cm_comm_table[cm_comm_index(MPI_COMM_WORLD)] = w;
    strcpy(w->name, "MPI_COMM_WORLD");

    int me = cm_g.rank;
    struct cm_comm *s = cm_comm_create_raw(&me, 1, 0, 2);
    if (!s)
        return MPI_ERR_NO_MEM;
    cm_comm_table[cm_comm_index(s->handle)] = NULL;
    cm_comm_table_len = 3;
    s->handle = MPI_COMM_SELF;
    cm_comm_table[cm_comm_index(MPI_COMM_SELF)] = s;
    strcpy(s->name, "MPI_COMM_SELF");
    return MPI_SUCCESS;
}

void cm_comm_finalize_attrs(void)
{
    /* Callbacks may create and free communicators: the table is read again
     * for each. */
    if (cm_attr_delete_all && cm_comm_table) {
        cm_attr_delete_all(cm_comm_table[cm_comm_index(MPI_COMM_SELF)]);
        cm_attr_delete_all(cm_comm_table[cm_comm_index(MPI_COMM_WORLD)]);
    }
}

void cm_comm_finalize(void)
{
    cm_comm_finalize_attrs();   /* already done by MPI_Finalize; a session's end needs it here */
    for (int i = cm_comm_table_len - 1; i >= 1; i--) {
        struct cm_comm *c = cm_comm_table[i];
        if (!c)
            continue;
        if (c->coll_free)
            c->coll_free(c->coll);
        if (c->topo && cm_topo_free)
            cm_topo_free(c->topo);
        free(c->world_of);
        free(c->comm_of);
        free(c->remote_world_of); /* c->local is in the table too: freed by this loop */
        free(c->remote_comm_of);
        free(c);
        cm_comm_table[i] = NULL;
    }
    free(cm_comm_table);
    cm_comm_table = NULL;
    cm_comm_table_len = 0;
    table_cap = 0;
    cm_info_finalize();
}

int cm_Comm_rank(MPI_Comm comm, int *rank)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_rank", "invalid communicator %ld", (long)(intptr_t)comm);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int cm_Comm_size(MPI_Comm comm, int *size)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_size", "invalid communicator %ld", (long)(intptr_t)comm);
    *size = c->size;
    return MPI_SUCCESS;
}
