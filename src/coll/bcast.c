/*
 * bcast.c -- broadcast algorithms of seed 000 §3.4.
 *
 *  flat                 one-to-all: the root sends to everybody (best for small
 *                       data on one level: fewest rounds, little contention).
 *  two_to_all           the root first sends to a partner in the other half
 *                       ("other chip"), then both do one-to-all in their half.
 *  binomial_ordered     binomial tree in which a child with more descendants
 *                       gets the data first (no priority inversion).
 *  kchain               k fan-out followed by k pipelined chains, in segments.
 *  seg_binomial         halves of the data down two subtrees, then the two
 *                       subtrees exchange halves pairwise.
 *  hybrid_seg_binomial  one message to a representative of the other half of
 *                       the ranks, then seg_binomial inside each half, so the
 *                       second phase never crosses the level.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_BCAST
#define KCHAIN_K 4
#define KCHAIN_SEGMENT_BYTES (64 * 1024)

/* The segmented algorithms cut the data into pieces; ranks may describe the
 * same bytes with different datatypes (2 x MPI_INT at the root, one pair
 * type elsewhere), so they cut bytes, never elements.  A type with holes is
 * staged through a contiguous copy. */
struct as_bytes {
    void *buf;          /* the bytes to broadcast */
    int n;              /* how many */
    void *block;        /* staging copy (non-contiguous types), else NULL */
};

static int bytes_begin(struct as_bytes *b, void *buf, int count, MPI_Datatype dt, int is_root, MPI_Comm comm)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    b->n = count * d.size;
    b->block = NULL;
    if (d.size == d.extent && d.size == d.true_extent) {
        b->buf = (char *)buf + d.true_lb;
        return MPI_SUCCESS;
    }
    b->buf = cm_coll_tmp(MPI_BYTE, b->n, &b->block);
    if (!b->buf)
        return MPI_ERR_NO_MEM;
    return is_root ? cm_coll_copy(buf, count, dt, b->buf, b->n, MPI_BYTE, comm) : MPI_SUCCESS;
}

static int bytes_end(struct as_bytes *b, int rc, void *buf, int count, MPI_Datatype dt, int is_root, MPI_Comm comm)
{
    if (b->block && !is_root && rc == MPI_SUCCESS)
        rc = cm_coll_copy(b->buf, b->n, MPI_BYTE, buf, count, dt, comm);
    cm_coll_tmp_free(b->block);
    return rc;
}

static void rank_size(MPI_Comm comm, int *rank, int *p)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, p);
}

/* The root sends to members [from, to) of m (vranks), all at once. */
static int one_to_range(void *buf, int count, MPI_Datatype dt, const struct cm_members *m, int from,
                        int to, MPI_Comm comm)
{
    if (to <= from)
        return MPI_SUCCESS;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(to - from));
    if (!req)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int i = from; i < to && rc == MPI_SUCCESS; i++)
        rc = cm_coll_isend(buf, count, dt, cm_member_rank(m, i), TAG, comm, &req[i - from]);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_waitall(to - from, req, MPI_STATUSES_IGNORE);
    free(req);
    return rc;
}

int cm_coll_bcast_flat(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (rank != root)
        return cm_coll_recv(buf, count, dt, root, TAG, comm, MPI_STATUS_IGNORE);
    struct cm_members all = {0, 1, p, root, p};     /* vrank i -> rank root + i */
    return one_to_range(buf, count, dt, &all, 1, p, comm);
}

int cm_coll_bcast_two_to_all(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p, rc;
    rank_size(comm, &rank, &p);
    struct cm_members all = {0, 1, p, root, p};
    int vr = (rank - root + p) % p, h = (p + 1) / 2;
    if (vr == 0) {
        if (h < p && (rc = cm_coll_send(buf, count, dt, cm_member_rank(&all, h), TAG, comm)) != MPI_SUCCESS)
            return rc;
        return one_to_range(buf, count, dt, &all, 1, h, comm);
    }
    if (vr == h) {
        if ((rc = cm_coll_recv(buf, count, dt, root, TAG, comm, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return rc;
        return one_to_range(buf, count, dt, &all, h + 1, p, comm);
    }
    return cm_coll_recv(buf, count, dt, cm_member_rank(&all, vr < h ? 0 : h), TAG, comm, MPI_STATUS_IGNORE);
}

int cm_coll_bcast_binomial_ordered(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    struct cm_members all = {0, 1, p, 0, 0};
    return cm_part_bcast_binomial(buf, count, dt, &all, rank, root, TAG, comm);
}

static int kchain_bytes(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    rank_size(comm, &rank, &p);
    if (p == 1)
        return MPI_SUCCESS;
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int k = p - 1 < KCHAIN_K ? p - 1 : KCHAIN_K;
    int seg = d.size > 0 ? KCHAIN_SEGMENT_BYTES / d.size : count;
    if (seg < 1) seg = 1;
    if (seg > count) seg = count;
    int nseg = seg ? (count + seg - 1) / seg : 1;     /* a count of 0: one empty message (its tag's word) */
    /* Non-root vranks 1..p-1 in k contiguous chains; the first (p-1)%k chains
     * are one longer, and the root serves them first (more descendants). */
    int base = (p - 1) / k, extra = (p - 1) % k;
    int vr = (rank - root + p) % p;
#define VRANK(v) (((v) + root) % p)
    if (vr == 0) {
        for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
            int n = s == nseg - 1 ? count - s * seg : seg;
            int head = 1;
            for (int c = 0; c < k && rc == MPI_SUCCESS; c++) {
                rc = cm_coll_send(cm_coll_at(buf, (MPI_Aint)s * seg, &d), n, dt, VRANK(head), TAG, comm);
                head += base + (c < extra);
            }
        }
        return rc;
    }
    /* find my chain and my successor */
    int start = 1, len = 0;
    for (int c = 0; c < k; c++) {
        len = base + (c < extra);
        if (vr < start + len)
            break;
        start += len;
    }
    int pred = vr == start ? 0 : vr - 1;
    int succ = vr + 1 < start + len ? vr + 1 : -1;
    MPI_Request fwd = MPI_REQUEST_NULL;
    for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
        int n = s == nseg - 1 ? count - s * seg : seg;
        void *at = cm_coll_at(buf, (MPI_Aint)s * seg, &d);
        rc = cm_coll_recv(at, n, dt, VRANK(pred), TAG, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || succ < 0)
            continue;
        /* forward segment s while receiving s+1 */
        if ((rc = cm_coll_wait(&fwd, MPI_STATUS_IGNORE)) == MPI_SUCCESS)
            rc = cm_coll_isend(at, n, dt, VRANK(succ), TAG, comm, &fwd);
    }
    if (succ >= 0) {
        int rc2 = cm_coll_wait(&fwd, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
#undef VRANK
    return rc;
}

/* Node j of a subtree (sub) of seg_binomial_part: its half h of the data,
 * from the root when it heads the subtree (j 0), then down the subtree. */
static int half_down(void *h, int ch, MPI_Datatype dt, const struct cm_members *ring,
                     const struct cm_members *sub, int j, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    if (j == 0)
        rc = cm_coll_recv(h, ch, dt, cm_member_rank(ring, 0), TAG, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = cm_part_bcast_binomial(h, ch, dt, sub, j, 0, TAG, comm);
    return rc;
}

/* Segmented binomial over ranks [first, first + n) rooted at member root_idx. */
static int seg_binomial_part(void *buf, int count, MPI_Datatype dt, int first, int n, int root_idx,
                             int my_idx, MPI_Comm comm)
{
    struct cm_members ring = {first, 1, n, root_idx, n};   /* index = vrank */
    int vr = (my_idx - root_idx + n) % n;
    /* The shape depends on n only, not on the count (a count of 0 or 1 sends
     * empty halves): ranks whose counts differ still exchange the same
     * messages, whose tags carry the word, instead of waiting for a message
     * of another tree. */
    if (n <= 2)
        return cm_part_bcast_binomial(buf, count, dt, &ring, vr, 0, TAG, comm);
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int ca = count / 2, cb = count - ca;
    void *a = buf, *b = cm_coll_at(buf, ca, &d);
    int nodes = n - 1, nl = (nodes + 1) / 2, nr = nodes / 2;
    struct cm_members left = {first, 1, nl, root_idx + 1, n};
    struct cm_members right = {first, 1, nr, root_idx + 1 + nl, n};
    int rc = MPI_SUCCESS;
    if (vr == 0) {
        /* Left half of the data down the left subtree, right half down the
         * right one; with an odd number of non-root nodes the last left node
         * has no partner and gets the right half from the root. */
        rc = cm_coll_send(a, ca, dt, cm_member_rank(&left, 0), TAG, comm);
        if (rc == MPI_SUCCESS && nr > 0)
            rc = cm_coll_send(b, cb, dt, cm_member_rank(&right, 0), TAG, comm);
        if (rc == MPI_SUCCESS && nl > nr)
            rc = cm_coll_send(b, cb, dt, cm_member_rank(&left, nl - 1), TAG, comm);
        return rc;
    }
    if (vr <= nl) {
        int j = vr - 1;
        if ((rc = half_down(a, ca, dt, &ring, &left, j, comm)) != MPI_SUCCESS)
            return rc;
        if (j < nr)
            return cm_coll_sendrecv(a, ca, dt, cm_member_rank(&right, j), TAG, b, cb, dt,
                                 cm_member_rank(&right, j), TAG, comm, MPI_STATUS_IGNORE);
        return cm_coll_recv(b, cb, dt, cm_member_rank(&ring, 0), TAG, comm, MPI_STATUS_IGNORE);
    }
    int j = vr - 1 - nl;
    if ((rc = half_down(b, cb, dt, &ring, &right, j, comm)) != MPI_SUCCESS)
        return rc;
    return cm_coll_sendrecv(b, cb, dt, cm_member_rank(&left, j), TAG, a, ca, dt, cm_member_rank(&left, j),
                         TAG, comm, MPI_STATUS_IGNORE);
}

static int seg_binomial_bytes(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    return seg_binomial_part(buf, count, dt, 0, p, root, rank, comm);
}

static int hybrid_seg_binomial_bytes(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    rank_size(comm, &rank, &p);
    if (p < 4)
        return seg_binomial_part(buf, count, dt, 0, p, root, rank, comm);
    /* Two levels: ranks [0, h) and [h, p).  One message crosses. */
    int h = (p + 1) / 2;
    int root_half = root >= h, my_half = rank >= h;
    int other_first = root_half ? 0 : h;
    int my_first = my_half ? h : 0, my_n = my_half ? p - h : h;
    int local_root = my_half == root_half ? root - my_first : 0;
    if (rank == root)
        rc = cm_coll_send(buf, count, dt, other_first, TAG, comm);
    else if (rank == other_first)
        rc = cm_coll_recv(buf, count, dt, root, TAG, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    return seg_binomial_part(buf, count, dt, my_first, my_n, local_root, rank - my_first, comm);
}

/* Entry points: the segmented algorithms on bytes. */
static int on_bytes(int (*alg)(void *, int, MPI_Datatype, int, MPI_Comm), void *buf, int count, MPI_Datatype dt,
                    int root, MPI_Comm comm)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    struct as_bytes b;
    int rc = bytes_begin(&b, buf, count, dt, rank == root, comm);
    if (rc == MPI_SUCCESS)
        rc = alg(b.buf, b.n, MPI_BYTE, root, comm);
    return bytes_end(&b, rc, buf, count, dt, rank == root, comm);
}

int cm_coll_bcast_kchain(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return on_bytes(kchain_bytes, buf, count, dt, root, comm);
}

int cm_coll_bcast_seg_binomial(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return on_bytes(seg_binomial_bytes, buf, count, dt, root, comm);
}

int cm_coll_bcast_hybrid_seg_binomial(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return on_bytes(hybrid_seg_binomial_bytes, buf, count, dt, root, comm);
}
