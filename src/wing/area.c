/*
 * area.c -- a communicator's area in the node's segment, followed through
 * the host's calls (docs/wing.md, "Communicators").  On a communicator's
 * first collective its rank 0 takes units for the engine's area
 * (coll/direct/layout.h) and sends the offset with the host's PMPI_Bcast;
 * the engine's view of it is an attribute on the host's communicator, whose
 * delete callback (MPI_Comm_free, MPI_Finalize) detaches it.  A
 * communicator the wing does not serve gets the attribute too, marked so,
 * and every member asks no more.
 */
#include "wing/wing.h"
#include "coll/direct/layout.h"

#include <stdlib.h>

MPI_Comm cm_wing_last_comm = MPI_COMM_NULL;
int cm_wing_last_index = -1;
static int keyval = MPI_KEYVAL_INVALID;
static int serial;

/* Not served: the attribute's value for every member. */
static struct cm_direct declined;

static int detach(MPI_Comm comm, int kv, void *value, void *extra)
{
    struct cm_direct *s = value;
    if (s == cm_direct_recent)
        cm_direct_recent = NULL;
    if (comm == cm_wing_last_comm)
        cm_wing_last_comm = MPI_COMM_NULL;
    if (s == &declined)
        return MPI_SUCCESS;
    struct area_hdr *a = hdr(s);
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
        cm_wing_give((long)(s->base - cm_wing_base()), (size_t)a->units * CM_WING_UNIT);
    free(s);
    return MPI_SUCCESS;
}

static struct cm_direct *attached(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID || PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return v;
}

static struct cm_direct *remember(MPI_Comm comm, struct cm_direct *s)
{
    if (s && s != &declined) {
        cm_direct_recent = s;
        cm_wing_last_comm = comm;
        cm_wing_last_index = s->comm_index;
        return s;
    }
    return NULL;
}

int cm_wing_comm_index_slow(MPI_Comm h)
{
    struct cm_direct *s = attached(h);
    return s && s != &declined ? remember(h, s)->comm_index : -1;
}

struct cm_direct *cm_direct_peek_slow(MPI_Comm cc) { return remember(cc, attached(cc)); }

/* Why comm cannot be served, or NULL.  Every member gets the same answer
 * from its own view: an intercommunicator is one for all, and a member that
 * finds another member off its node knows all the others find one too. */
static const char *unservable(MPI_Comm comm, int *n, int *rank)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return "an intercommunicator";
    PMPI_Comm_size(comm, n);
    PMPI_Comm_rank(comm, rank);
    if (*n < 2)
        return NULL;
    if (*n > 255)
        return "more than 255 ranks";
    for (int r = 0; r < *n; r++)
        if (cm_wing_node_rank(comm, r) < 0)
            return "members on other nodes";
    return NULL;
}

struct cm_direct *cm_direct_get(MPI_Comm cc, const char *coll)
{
    if (cc == cm_wing_last_comm && cm_direct_recent)
        return cm_direct_recent;
    struct cm_direct *s = attached(cc);
    if (s)
        return remember(cc, s);
    if (!cm_wing_on)
        return NULL;
    if (keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, detach, &keyval, NULL);
    int n = 0, rank = 0;
    const char *why = unservable(cc, &n, &rank);
    if (why || n < 2) {
        if (why)
            cm_wing_declined(coll, why);
        PMPI_Comm_set_attr(cc, keyval, &declined);
        return NULL;
    }
    size_t slot = cm_wing_slot_bytes(), bytes = area_bytes(n, slot);
    long off = -1;
    if (rank == 0 && (off = cm_wing_take(bytes)) >= 0) {
        cm_direct_area_zero(cm_wing_base() + off, n, slot);
        struct area_hdr *a = (struct area_hdr *)(cm_wing_base() + off);
        a->units = (uint32_t)((bytes + CM_WING_UNIT - 1) / CM_WING_UNIT);
        a->slot = slot;
        atomic_store_explicit(&a->refs, (uint32_t)n, memory_order_release);
    }
    PMPI_Bcast(&off, 1, MPI_LONG, 0, cc);
    s = off >= 0 ? calloc(1, sizeof *s) : NULL;
    if (!s) {
        /* No room (or memory): all learn it from the same broadcast. */
        cm_wing_declined(coll, "no room for its area in the node's segment");
        if (off >= 0 && atomic_fetch_sub(&((struct area_hdr *)(cm_wing_base() + off))->refs, 1) == 1)
            cm_wing_give(off, bytes);
        PMPI_Comm_set_attr(cc, keyval, &declined);
        return NULL;
    }
    cm_direct_area_view(s, cm_wing_base() + off, n, rank, slot);
    s->comm_index = serial++;
    s->cc = cc;
    PMPI_Comm_set_attr(cc, keyval, s);
    return remember(cc, s);
}

/* MPI_Finalize: the attributes of communicators still alive go first. */
void cm_wing_areas_free(void)
{
    if (keyval != MPI_KEYVAL_INVALID) {
        PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
        PMPI_Comm_free_keyval(&keyval);
    }
}
