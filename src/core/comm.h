/*
 * comm.h -- communicators: handle table, context ids, rank translation.
 *
 * Every communicator owns two context ids: ctx (user point-to-point) and
 * ctx + 1 (collectives).  cm_coll_comm() returns the communicator's handle with
 * CM_COMM_COLL_BIT set; point-to-point calls on such a handle use ctx + 1, so
 * collective traffic can never match a user's message.  Users never see these
 * handles.
 */
#ifndef CM_CORE_COMM_H
#define CM_CORE_COMM_H

#include <stddef.h> /* NULL: the standard ABI header does not include it */
#include <stdint.h>
#include "mpi.h"
#include "core/handle.h"
#include "core/thread.h"

#define CM_COMM_COLL_BIT 0x40000000
#define CM_CTX_MAX 65536 /* context ids travel in 16 bits */
/* The dynamic-process channel's pair (mpi/dyn.h): every process has it,
 * over every world rank; it holds no remote id (core/remote.h). */
#define CM_CTX_CHANNEL 4

struct cm_comm {
    MPI_Comm handle;
    uint16_t ctx;            /* even; ctx + 1 is the collective context */
    int rank;                /* my rank in it */
    int size;
    int *world_of;           /* comm rank -> world rank */
    int *comm_of;            /* world rank -> comm rank, -1 if absent (cm_g.size entries) */
    MPI_Errhandler errh;
    int refcount;
    char name[MPI_MAX_OBJECT_NAME];
    void *attrs;             /* attribute list (core/attr.c) */
    void *topo;              /* process topology (core/topo), NULL if none */
    void *coll;              /* collective layer's per-communicator data */
    void (*coll_free)(void *coll);
    MPI_Info info;
    int session;             /* index of the session it derives from (mpi/session.c), 0: none;
                              * its buffered sends may use that session's buffer (p2p/bsend.c) */
    unsigned idup_count;     /* Comm_idups started on it: tags them apart (mpi/comm_idup.c) */
    /* Point-to-point's view: the group that dest/source ranks and
     * status.MPI_SOURCE name.  Invariant: for an intracommunicator these
     * alias size/world_of/comm_of; for an intercommunicator, remote_*. */
    int peer_size;
    const int *peer_world_of;
    const int *peer_comm_of;
    /* Intercommunicators (made by mpi/intercomm*.c; the invariants are
     * stated there).  remote_size is 0 for an intracommunicator.  size,
     * rank, world_of and comm_of always describe the local group (Comm_size,
     * Comm_rank, Comm_group); local is a hidden intracommunicator of the
     * local group on a context of its own, for the collectives and the
     * context agreements of the intercommunicator. */
    int remote_size;
    int *remote_world_of;    /* remote rank -> world rank */
    int *remote_comm_of;     /* world rank -> remote rank, -1 if absent */
    struct cm_comm *local;
};

static inline int cm_comm_is_inter(const struct cm_comm *c) { return c->remote_size > 0; }

extern struct cm_comm **cm_comm_table;
extern int cm_comm_table_len;

/* Is h a collective twin (cm_coll_comm), and h without that bit.  The bit
 * is above every handle's kind and index bits (core/handle.h), in both
 * layouts, so these never need to know which one is in use. */
static inline int cm_comm_is_coll(MPI_Comm h) { return ((uintptr_t)h & CM_COMM_COLL_BIT) != 0; }
static inline MPI_Comm cm_comm_plain(MPI_Comm h) { return (MPI_Comm)((uintptr_t)h & ~(uintptr_t)CM_COMM_COLL_BIT); }

/* Fast lookup; NULL for an invalid handle.  *ctx gets the context for p2p. */
static inline struct cm_comm *cm_comm_lookup(MPI_Comm h, uint16_t *ctx)
{
    int coll = cm_comm_is_coll(h);
    int i = cm_comm_index(cm_comm_plain(h));
    if (i <= 0 || i >= CM_RACY_LOAD(cm_comm_table_len))
        return NULL;
    struct cm_comm *c = CM_RACY_LOAD(CM_RACY_LOAD(cm_comm_table)[i]);
    if (c && ctx)
        *ctx = (uint16_t)(c->ctx + coll);
    return c;
}

/* The hidden twin of comm that collectives' messages travel on. */
static inline MPI_Comm cm_coll_comm(MPI_Comm comm) { return (MPI_Comm)((uintptr_t)comm | CM_COMM_COLL_BIT); }

/* A communicator the user may name: NULL for a collective twin, which no
 * user call (attributes, info, topology, free, ...) may reach. */
static inline struct cm_comm *cm_comm_user_lookup(MPI_Comm h)
{
    return cm_comm_is_coll(h) ? NULL : cm_comm_lookup(h, NULL);
}

/* The communicator a user call names (cm_comm_user_lookup), after the check
 * that MPI is initialized; NULL, with *rc the error raised on MPI_COMM_WORLD
 * (MPI_ERR_COMM naming call), when comm names none.  *rc is MPI_SUCCESS
 * otherwise. */
struct cm_comm *cm_comm_user_or_error(MPI_Comm comm, const char *call, int *rc);

/* The intracommunicator a user call names in its argument `name`: NULL,
 * with *rc the MPI_ERR_COMM raised (naming call and the argument), when comm
 * names no communicator or an intercommunicator. */
struct cm_comm *cm_comm_intra_or_error(MPI_Comm comm, const char *name, const char *call, int *rc);

/* Set up WORLD and SELF (at MPI_Init). */
int cm_comm_init(void);
void cm_comm_finalize(void);
/* The start of MPI_Finalize (MPI-4.1 11.2.4): run the attribute delete
 * callbacks of SELF (as if SELF were freed), then of WORLD, last set first,
 * while MPI is still fully usable and MPI_Finalized still answers false.
 * cm_comm_finalize finds the lists empty afterwards. */
void cm_comm_finalize_attrs(void);

/* Create a communicator from a list of world ranks (members in comm-rank order)
 * with a given context; registers a handle.  myrank is my rank in it. */
struct cm_comm *cm_comm_create_raw(const int *world_ranks, int size, int myrank, uint16_t ctx);
void cm_comm_release(struct cm_comm *c);

/* Make c an intercommunicator with the given remote group (world ranks in
 * remote-rank order) and hidden local intracommunicator (taken over: freed
 * with c).  0, or MPI_ERR_NO_MEM with c unchanged. */
int cm_comm_set_remote(struct cm_comm *c, const int *remote_world, int remote_size, struct cm_comm *local);

void cm_context_free(uint16_t ctx);

/* Hooks of the attribute and topology modules (core/attr.c, core/topo.c). */
int cm_attr_copy_all(struct cm_comm *oldc, struct cm_comm *newc) __attribute__((weak));
int cm_attr_delete_all(struct cm_comm *c) __attribute__((weak));
void cm_topo_free(void *topo) __attribute__((weak));
void *cm_topo_dup(const void *topo) __attribute__((weak));

#endif
