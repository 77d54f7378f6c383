/*
 * shm_fold.c -- rank-ordered folds for the shared-memory reductions, and the
 * core-specialized single-copy reduction (seed 003): rank j reduces slice j of
 * the vector, reading every rank's buffer directly, and announces each
 * finished chunk on its message counter so that readers of slice j copy chunk
 * k while rank j still reduces chunk k + 1.
 */
#include <mpi.h>
#ifdef COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/shm_fold.h"
#include "shm/copy.h"

#include <stdlib.h>
#include <string.h>

int cm_shm_fold_slots(struct cm_shm *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                      int elem_off)
{
    return cm_shm_fold_slots_own(s, p, whole, acc, count, dt, op, elem_off, NULL);
}

int cm_shm_fold_slots_own(struct cm_shm *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                          int elem_off, const char *own)
{
    MPI_Aint tlb, ext;
    cm_shm_bytes(1, dt, NULL, &tlb, &ext);
    size_t off = (size_t)elem_off * (size_t)ext;
    if (count == 0)
        return MPI_SUCCESS;
    /* Slots hold whole vectors (whole bytes): that decides inline vs slot. */
    int me = own ? s->rank : -1;
    const char *last = me == s->n - 1 ? own : (const char *)cm_shm_data(s, s->n - 1, p, whole);
    cm_copy_small(acc, last + off, (size_t)count * (size_t)ext);
    cm_op_kernel_fn kernel = cm_shm_kernel(op, dt);
    for (int r = s->n - 2; r >= 0; r--) {
        const char *x = (r == me ? own : (const char *)cm_shm_data(s, r, p, whole)) + off;
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

int cm_shm_reduce_my_slice(struct cm_shm *s, int p, int count, MPI_Datatype dt, MPI_Op op, char *out)
{
    MPI_Aint tlb, ext;
    cm_shm_bytes(1, dt, NULL, &tlb, &ext);
    int lo, hi;
    cm_shm_slice(count, s->n, s->rank, &lo, &hi);
    if (hi <= lo)
        return MPI_SUCCESS;
    size_t es = (size_t)ext;
    int ce = (int)(cm_shm_chunk() / es);
    if (ce < 1)
        ce = 1;
    if (ce > hi - lo)
        ce = hi - lo;
    char *acc = malloc((size_t)ce * es), *tmp = malloc((size_t)ce * es);
    int rc = acc && tmp ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int c = lo; rc == MPI_SUCCESS && c < hi; c += ce) {
        int cn = hi - c < ce ? hi - c : ce;
        size_t off = (size_t)c * es, len = (size_t)cn * es;
        cm_shm_read(s, s->n - 1, acc, cm_shm_flag(s, s->n - 1, p)->addr[0] + off, len);
        for (int r = s->n - 2; r >= 0 && rc == MPI_SUCCESS; r--) {
            cm_shm_read(s, r, tmp, cm_shm_flag(s, r, p)->addr[0] + off, len);
            rc = PMPI_Reduce_local(tmp - tlb, acc - tlb, cn, dt, op);
        }
        cm_copy(out + off, acc, len);
        cm_shm_publish(s, len);
    }
    free(acc);
    free(tmp);
    return rc;
}

void cm_shm_fetch_slice(struct cm_shm *s, int p, int k, int count, size_t esize, char *dst)
{
    int lo, hi;
    cm_shm_slice(count, s->n, k, &lo, &hi);
    if (hi <= lo)
        return;
    int ce = (int)(cm_shm_chunk() / esize);
    if (ce < 1)
        ce = 1;
    struct cm_shm_flag *f = cm_shm_flag(s, k, p);
    for (int c = lo; c < hi; c += ce) {
        int cn = hi - c < ce ? hi - c : ce;
        size_t off = (size_t)c * esize, len = (size_t)cn * esize;
        cm_shm_wait_progress(s, k, f->base, (size_t)(c + cn - lo) * esize);
        cm_shm_read(s, k, dst + off, f->addr[1] + off, len);
    }
}
int cm_shm_fold_split(struct cm_shm *s, const char *sb, size_t bytes, int count, MPI_Datatype dt, MPI_Op op,
                      const void **result)
{
    int lo, hi, p = cm_shm_parity(s);
    cm_shm_slice(count, s->n, s->rank, &lo, &hi);
    size_t es = bytes / (size_t)count, a = (size_t)lo * es, b = (size_t)hi * es;
    char *slot = cm_shm_data(s, s->rank, p, bytes);
    cm_copy_small(slot, sb, a);
    cm_copy_small(slot + b, sb + b, bytes - b);
    cm_shm_sync(s, NULL, NULL);
    char *out = cm_shm_result(s, cm_shm_parity(s));
    int rc = cm_shm_fold_slots_own(s, p, bytes, out + a, hi - lo, dt, op, lo, sb);
    cm_shm_sync(s, NULL, NULL);
    *result = out;
    return rc;
}
#endif
