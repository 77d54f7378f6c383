/*
 * util.c -- datatype arithmetic and local copies shared by
 * the collective algorithms.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

#ifdef CM_IN_COREMPI
#include "core/datatype.h"
#include "shm/copy.h"
#else
#define cm_move memmove   /* over another MPI: libc's copy will do */
#endif

void cm_coll_dt(MPI_Datatype dt, struct cm_dt *d)
{
#ifdef CM_IN_COREMPI
    /* Every collective call asks this two or three times: read the type
     * object instead of three PMPI calls (the front ends checked dt). */
    const struct cm_datatype *t = cm_dt_lookup(dt);
    if (t) {
        d->lb = t->lb;
        d->extent = t->extent;
        d->true_lb = t->true_lb;
        d->true_extent = t->true_extent;
        d->size = (int)t->size;
        return;
    }
#endif
    PMPI_Type_get_extent(dt, &d->lb, &d->extent);
    PMPI_Type_get_true_extent(dt, &d->true_lb, &d->true_extent);
    PMPI_Type_size(dt, &d->size);
}

static int contiguous(const struct cm_dt *d)
{
    return d->size == d->extent && d->size == d->true_extent;
}

int cm_coll_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    if (src == dst && stype == rtype && scount == rcount)
        return MPI_SUCCESS;
    /* The usual case, one type for both sides, looks the type up once.  By
     * pointer, not by copying the struct: a copy reads back with 16-byte
     * loads what the lookup just wrote with 8-byte stores, which the store
     * buffer cannot forward (a third of this function's time in a tiny
     * scatter). */
    struct cm_dt s, r_own;
    const struct cm_dt *r = &s;
    cm_coll_dt(stype, &s);
    if (rtype != stype) {
        cm_coll_dt(rtype, &r_own);
        r = &r_own;
    }
    size_t sbytes = (size_t)scount * (size_t)s.size;
    if (sbytes == 0)
        return MPI_SUCCESS;
    if (contiguous(&s) && contiguous(r) && sbytes <= (size_t)rcount * (size_t)r->size) {
        cm_move((char *)dst + r->true_lb, (const char *)src + s.true_lb, sbytes);
        return MPI_SUCCESS;
    }
    /* Holes or different layouts: let point-to-point do the (un)packing. */
    int rank;
    PMPI_Comm_rank(comm, &rank);
    return cm_coll_sendrecv(src, scount, stype, rank, CM_TAG_COPY, dst, rcount, rtype, rank,
                         CM_TAG_COPY, comm, MPI_STATUS_IGNORE);
}

int cm_coll_is_commutative(MPI_Op op)
{
    int c = 1;
    if (PMPI_Op_commutative(op, &c) != MPI_SUCCESS)
        return 1;
    return c;
}
