/*
 * hier.c -- collectives on a communicator across nodes (docs/wing.md,
 * "Across nodes"): the node's shared memory first, then one leader per node
 * through the host MPI, then the node's shared memory again.  The node's
 * part is a host communicator of comm's ranks on this node (in comm's rank
 * order; its rank 0 is the leader), served by the wing like any other; the
 * leaders' part is the host's own collective.  Set up on comm's first
 * collective, which every member makes: all of them find comm across nodes
 * from the same group, so all split it together.
 */
#include "wing/wing.h"

#include <stdlib.h>

static int keyval = MPI_KEYVAL_INVALID;
static struct cm_wing_hier none;    /* the attribute of a communicator on one node */

static int drop(MPI_Comm comm, int kv, void *value, void *extra)
{
    struct cm_wing_hier *h = value;
    if (h == &none)
        return MPI_SUCCESS;
    PMPI_Comm_free(&h->local);
    if (h->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&h->leaders);
    free(h->leader_of);
    free(h->local_of);
    free(h);
    return MPI_SUCCESS;
}

/* 1 when some member of comm is on another node: every member sees it. */
static int across(MPI_Comm comm, int n)
{
    for (int r = 0; r < n; r++)
        if (cm_wing_node_rank(comm, r) < 0)
            return 1;
    return 0;
}

static struct cm_wing_hier *build(MPI_Comm comm, int n, int rank)
{
    struct cm_wing_hier *h = calloc(1, sizeof *h);
    int *ids = malloc((size_t)n * sizeof *ids), *first = malloc((size_t)n * sizeof *first);
    if (h) {
        h->leader_of = malloc((size_t)n * sizeof(int));
        h->local_of = malloc((size_t)n * sizeof(int));
    }
    /* Every member must split alike: a member short of memory tells all. */
    int ok = h && ids && first && h->leader_of && h->local_of, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    if (all)
        PMPI_Allgather(&cm_wing_node_id, 1, MPI_INT, ids, 1, MPI_INT, comm);
    if (!all) {
        if (h) {
            free(h->leader_of);
            free(h->local_of);
        }
        free(h);
        free(ids);
        free(first);
        cm_wing_declined("a collective across nodes", "no memory for its hierarchy");
        return NULL;
    }
    /* Nodes numbered in the order of their first member, as the leaders'
     * communicator (split with comm's ranks as keys) numbers their leaders. */
    int nodes = 0;
    h->ordered = 1;
    for (int r = 0; r < n; r++) {
        int k = 0, before = 0;
        while (k < nodes && ids[first[k]] != ids[r])
            k++;
        if (k == nodes)
            first[nodes++] = r;
        else if (r > 0 && ids[r - 1] != ids[r])
            h->ordered = 0;             /* the node's ranks come back after another node's */
        for (int j = first[k]; j < r; j++)
            before += ids[j] == ids[r];
        h->leader_of[r] = k;
        h->local_of[r] = before;
    }
    h->n = n;
    h->rank = rank;
    h->node = h->leader_of[rank];
    PMPI_Comm_split(comm, cm_wing_node_id, rank, &h->local);
    PMPI_Comm_split(comm, h->local_of[rank] == 0 ? 0 : MPI_UNDEFINED, rank, &h->leaders);
    free(ids);
    free(first);
    cm_wing_say("a communicator of %d ranks across %d nodes: node, leaders through the host, node%s", n, nodes,
                h->ordered ? "" : " (its nodes' ranks interleave: non-commutative ops go to the host)");
    return h;
}

struct cm_wing_hier *cm_wing_hier(MPI_Comm comm)
{
    if (!cm_wing_hier_on || comm == MPI_COMM_NULL)
        return NULL;
    if (keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop, &keyval, NULL);
    void *v = NULL;
    int flag = 0, inter = 0, n = 0, rank = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &v, &flag) == MPI_SUCCESS && flag)
        return v == &none ? NULL : v;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter) {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_rank(comm, &rank);
    }
    struct cm_wing_hier *h = !inter && n > 1 && across(comm, n) ? build(comm, n, rank) : NULL;
    PMPI_Comm_set_attr(comm, keyval, h ? h : &none);
    return h;
}

/* MPI_Finalize: MPI_COMM_WORLD's node and leaders go before the areas. */
void cm_wing_hier_free(void)
{
    void *v;
    int flag = 0;
    if (keyval != MPI_KEYVAL_INVALID) {
        /* Open MPI refuses to delete an attribute that was never set. */
        if (PMPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &v, &flag) == MPI_SUCCESS && flag)
            PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
        PMPI_Comm_free_keyval(&keyval);
    }
}

static int leader(const struct cm_wing_hier *h) { return h->leaders != MPI_COMM_NULL; }

/* The first error of two steps. */
static int then(int rc, int next) { return rc != MPI_SUCCESS ? rc : next; }

int cm_wing_hier_barrier(struct cm_wing_hier *h)
{
    int rc = cm_wing_barrier(h->local);
    if (leader(h))
        rc = then(rc, PMPI_Barrier(h->leaders));
    return then(rc, cm_wing_barrier(h->local));
}

/* The root's node first (its leader gets the data there), then the
 * leaders from that node's leader, then every other node from its leader. */
int cm_wing_hier_bcast(void *buf, int count, MPI_Datatype dt, int root, struct cm_wing_hier *h)
{
    int from = h->leader_of[root], rc = MPI_SUCCESS;
    if (h->node == from)
        rc = cm_wing_bcast(buf, count, dt, h->local_of[root], h->local);
    if (leader(h))
        rc = then(rc, PMPI_Bcast(buf, count, dt, from, h->leaders));
    if (h->node != from)
        rc = then(rc, cm_wing_bcast(buf, count, dt, 0, h->local));
    return rc;
}

/* Each node reduces to its leader, the leaders allreduce, each node takes
 * the result from its leader.  In rank order when comm is ordered. */
int cm_wing_hier_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           struct cm_wing_hier *h)
{
    /* In place: a non-leader's contribution is its rbuf (MPI_IN_PLACE
     * means something only at a reduce's root). */
    const void *mine = sbuf == MPI_IN_PLACE && !leader(h) ? rbuf : sbuf;
    int rc = cm_wing_reduce(mine, rbuf, count, dt, op, 0, h->local);
    if (leader(h))
        rc = then(rc, PMPI_Allreduce(MPI_IN_PLACE, rbuf, count, dt, op, h->leaders));
    return then(rc, cm_wing_bcast(rbuf, count, dt, 0, h->local));
}

/* Each node reduces to its leader, the leaders reduce to the root's
 * node's leader, which hands the result to the root if it is not the root.
 * Reductions take only types without holes (wing/front.c): count elements
 * are count * extent bytes from the true lower bound. */
int cm_wing_hier_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                        struct cm_wing_hier *h)
{
    int to = h->leader_of[root], rc;
    int at_root = h->rank == root, root_leads = h->local_of[root] == 0;
    /* In place at a root that does not lead: its contribution is rbuf,
     * sent up like any member's. */
    const void *mine = sbuf == MPI_IN_PLACE && !leader(h) ? rbuf : sbuf;
    char *tmp = NULL, *part = rbuf;
    if (leader(h) && !at_root) {
        const struct cm_datatype *t = cm_wing_dt(dt);
        tmp = malloc((size_t)count * t->size + 1);
        if (!tmp)
            return MPI_ERR_NO_MEM;  /* erroneous for all: the job ends (the host's handler) */
        part = tmp - t->true_lb;
    }
    rc = cm_wing_reduce(mine, part, count, dt, op, 0, h->local);
    if (leader(h))
        rc = then(rc, h->node == to ? PMPI_Reduce(MPI_IN_PLACE, part, count, dt, op, to, h->leaders)
                                    : PMPI_Reduce(part, NULL, count, dt, op, to, h->leaders));
    if (h->node == to && !root_leads) {
        /* The node's communicator is the wing's own: no message of the
         * program's can meet this one. */
        if (leader(h))
            rc = then(rc, PMPI_Send(part, count, dt, h->local_of[root], 0, h->local));
        else if (at_root)
            rc = then(rc, PMPI_Recv(rbuf, count, dt, 0, 0, h->local, MPI_STATUS_IGNORE));
    }
    free(tmp);
    return rc;
}
