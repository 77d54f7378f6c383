/*
 * direct/fold.c -- rank-ordered folds for the shared-memory reductions, and the
 * core-specialized single-copy reduction (seed 003): rank j reduces slice j of
 * the vector, reading every rank's buffer directly, and announces each
 * finished chunk on its message counter so that readers of slice j copy chunk
 * k while rank j still reduces chunk k + 1.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "shm/copy.h"

#include <stdlib.h>
#include <string.h>

int cm_direct_fold_slots(struct cm_direct *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                      int elem_off)
{
    return cm_direct_fold_slots_own(s, p, whole, acc, count, dt, op, elem_off, NULL);
}

int cm_direct_fold_slots_own(struct cm_direct *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                          int elem_off, const char *own)
{
    MPI_Aint tlb, ext;
    cm_direct_bytes(1, dt, NULL, &tlb, &ext);
    size_t off = (size_t)elem_off * (size_t)ext;
    if (count == 0)
        return MPI_SUCCESS;
    /* Slots hold whole vectors (whole bytes): that decides inline vs slot. */
    int me = own ? s->rank : -1;
    const char *last = me == s->n - 1 ? own : (const char *)cm_direct_data(s, s->n - 1, p, whole);
    cm_copy_small(acc, last + off, (size_t)count * (size_t)ext);
    cm_op_kernel_fn kernel = cm_direct_kernel(op, dt);
    for (int r = s->n - 2; r >= 0; r--) {
        const char *x = (r == me ? own : (const char *)cm_direct_data(s, r, p, whole)) + off;
        if (kernel) {
            kernel(x, acc, (size_t)count);
            continue;
        }
        int rc = PMPI_Reduce_local(x - tlb, acc - tlb, count, dt, op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int cm_direct_reduce_my_slice(struct cm_direct *s, int p, int count, MPI_Datatype dt, MPI_Op op, char *out)
{
    MPI_Aint tlb, ext;
    cm_direct_bytes(1, dt, NULL, &tlb, &ext);
    int lo, hi;
    cm_direct_slice(count, s->n, s->rank, &lo, &hi);
    if (hi <= lo)
        return MPI_SUCCESS;
    size_t es = (size_t)ext;
    int ce = (int)(cm_direct_chunk() / es);
    if (ce < 1)
        ce = 1;
    if (ce > hi - lo)
        ce = hi - lo;
    char *acc = malloc((size_t)ce * es), *tmp = malloc((size_t)ce * es);
    int rc = acc && tmp ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int c = lo; rc == MPI_SUCCESS && c < hi; c += ce) {
        int cn = hi - c < ce ? hi - c : ce;
        size_t off = (size_t)c * es, len = (size_t)cn * es;
        cm_direct_read(s, s->n - 1, acc, cm_direct_flag(s, s->n - 1, p)->addr[0] + off, len);
        for (int r = s->n - 2; r >= 0 && rc == MPI_SUCCESS; r--) {
            cm_direct_read(s, r, tmp, cm_direct_flag(s, r, p)->addr[0] + off, len);
            rc = PMPI_Reduce_local(tmp - tlb, acc - tlb, cn, dt, op);
        }
        cm_copy(out + off, acc, len);
        cm_direct_publish(s, len);
    }
    free(acc);
    free(tmp);
    return rc;
}

void cm_direct_fetch_slice(struct cm_direct *s, int p, int k, int count, size_t esize, char *dst)
{
    int lo, hi;
    cm_direct_slice(count, s->n, k, &lo, &hi);
    if (hi <= lo)
        return;
    int ce = (int)(cm_direct_chunk() / esize);
    if (ce < 1)
        ce = 1;
    struct cm_direct_flag *f = cm_direct_flag(s, k, p);
    for (int c = lo; c < hi; c += ce) {
        int cn = hi - c < ce ? hi - c : ce;
        size_t off = (size_t)c * esize, len = (size_t)cn * esize;
        cm_direct_wait_progress(s, k, f->base, (size_t)(c + cn - lo) * esize);
        cm_direct_read(s, k, dst + off, f->addr[1] + off, len);
    }
}
/* The first half of a split fold: every rank copies sb into its slot but for
 * its own slice [lo, hi), one sync; returns the parity the slots were filled
 * under. */
static int copy_in_but_my_slice(struct cm_direct *s, const char *sb, size_t bytes, int count, int *lo, int *hi)
{
    int p = cm_direct_parity(s);
    cm_direct_slice(count, s->n, s->rank, lo, hi);
    size_t es = bytes / (size_t)count, a = (size_t)*lo * es, b = (size_t)*hi * es;
    char *slot = cm_direct_data(s, s->rank, p, bytes);
    cm_copy_small(slot, sb, a);
    cm_copy_small(slot + b, sb + b, bytes - b);
    cm_direct_sync(s, NULL, NULL);
    return p;
}

int cm_direct_fold_split(struct cm_direct *s, const char *sb, size_t bytes, int count, MPI_Datatype dt, MPI_Op op,
                      const void **result)
{
    int lo, hi, p = copy_in_but_my_slice(s, sb, bytes, count, &lo, &hi);
    char *out = cm_direct_result(s, cm_direct_parity(s));
    int rc = cm_direct_fold_slots_own(s, p, bytes, out + (size_t)lo * (bytes / (size_t)count), hi - lo, dt, op, lo, sb);
    cm_direct_sync(s, NULL, NULL);
    *result = out;
    return rc;
}

static int split_pieces(struct cm_direct *s, const char *sb, char *rb, int count, size_t es, MPI_Datatype dt,
                        MPI_Op op, int root)
{
    int rc = MPI_SUCCESS;
    if (root >= 0 && root != s->rank)
        rb = NULL;                    /* a reduce's non-root wants no result */
    const char *folded = NULL;      /* the last piece's result: complete after the next sync */
    size_t folded_off = 0, folded_len = 0;
    for (int off = 0, n; off < count; off += n) {
        n = cm_direct_piece(s, es, off, count);
        size_t at = (size_t)off * es, len = (size_t)n * es;
        int lo, hi, p = copy_in_but_my_slice(s, sb + at, len, n, &lo, &hi);
        /* That sync also closed the fold of the previous piece. */
        if (folded && rb)
            cm_copy(rb + folded_off, folded, folded_len);
        char *out = cm_direct_result(s, cm_direct_parity(s));
        int frc = cm_direct_fold_slots_own(s, p, len, out + (size_t)lo * es, hi - lo, dt, op, lo, sb + at);
        if (rc == MPI_SUCCESS)
            rc = frc;                 /* no early exit: the others count on every sync */
        folded = out;
        folded_off = at;
        folded_len = len;
    }
    cm_direct_sync(s, NULL, NULL);
    if (folded && rb)
        cm_copy(rb + folded_off, folded, folded_len);
    return rc;
}

/* A predefined op writes out in one pass over both operands (2-rank
 * allreduce, 1 MiB: 39-43 us against 53-56 with the copy below, shared
 * caches; 64-74 against 74-86 split).  A user op gets the first operand by a
 * copy; where it commutes that is the other's vector (a op b == b op a
 * exactly for two operands), as a copy pulls another cache's lines faster
 * than the op's loop. */
int cm_direct_fold_pair(const char *own, const char *other, char *out, int n, size_t bytes, MPI_Datatype dt,
                     MPI_Op op, int me)
{
    const char *x0 = me == 0 ? own : other, *x1 = me == 0 ? other : own;
    cm_op_kernel3_fn kernel3 = cm_direct_kernel3(op, dt);
    if (kernel3) {
        kernel3(x0, x1, out, (size_t)n);
        return MPI_SUCCESS;
    }
    int other_first = me == 0 || cm_op_is_commutative(op);
    const char *in = other_first ? own : other;
    cm_copy(out, other_first ? other : own, bytes);
    MPI_Aint tlb;
    cm_direct_bytes(1, dt, NULL, &tlb, NULL);
    return PMPI_Reduce_local(in - tlb, out - tlb, n, dt, op);
}

static int two_pieces(struct cm_direct *s, const char *sb, char *rb, int count, size_t es, MPI_Datatype dt,
                      MPI_Op op, int root)
{
    int rc = MPI_SUCCESS, me = s->rank, folds = root < 0 || root == me;
    for (int off = 0, n; off < count; off += n) {
        n = cm_direct_piece(s, es, off, count);
        size_t at = (size_t)off * es, len = (size_t)n * es;
        int p = cm_direct_parity(s);
        char *mine = cm_direct_slot(s, me, p);
        /* In place my vector would be overwritten while read: fold from the
         * slot copy (a reduce root's copy is read by nobody else). */
        if (!folds || root < 0 || sb == rb)
            cm_copy(mine, sb + at, len);
        cm_direct_sync(s, NULL, NULL);
        if (!folds)
            continue;
        const char *own = sb == rb ? mine : sb + at;
        int frc = cm_direct_fold_pair(own, cm_direct_slot(s, 1 - me, p), rb + at, n, len, dt, op, me);
        if (rc == MPI_SUCCESS)
            rc = frc;                 /* no early exit: the other counts on every sync */
    }
    return rc;
}
int cm_direct_fold_pieces(struct cm_direct *s, const char *sb, char *rb, int count, size_t es, MPI_Datatype dt,
                       MPI_Op op, int root)
{
    return s->n == 2 ? two_pieces(s, sb, rb, count, es, dt, op, root)
                     : split_pieces(s, sb, rb, count, es, dt, op, root);
}
#endif
