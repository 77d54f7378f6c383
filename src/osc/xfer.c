/*
 * xfer.c -- finding a target's bytes and moving packed data to and from
 * them: plain copies into shared memory (or the rank's own), single copies
 * by the kernel (process_vm_readv/writev) into another process's memory.
 *
 * Packed data is the datatype engine's packed form (core/datatype.h): the
 * blocks of the target type, in typemap order, back to back.
 */
#include "osc/osc.h"
#include "core/datatype.h"
#include "shm/cma.h"
#include "shm/fault.h"

#include <stdio.h>
#include <string.h>

/* Lowest and one-past-highest byte of count elements of t, relative to buf. */
static void span(int count, const struct cm_datatype *t, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint reach = (MPI_Aint)(count - 1) * t->extent;
    *lo = t->true_lb + (reach < 0 ? reach : 0);
    *hi = t->true_lb + t->true_extent + (reach > 0 ? reach : 0);
}

/* Is [a, a + len) inside one region rank r attached?  Read under the
 * owner's sequence count (it may be attaching right now). */
static int dyn_inside(const struct cm_win *w, int r, uint64_t a, uint64_t len)
{
    struct cm_osc_rank_ctl *rc = &w->rctl[r];
    const struct cm_osc_region *reg = w->dyn + (size_t)r * CM_OSC_DYN_MAX;
    for (;;) {
        uint32_t s = atomic_load_explicit(&rc->dyn_seq, memory_order_acquire);
        if (s & 1)
            continue;
        int found = 0;
        uint32_t n = rc->dyn_count;
        for (uint32_t i = 0; i < n && i < CM_OSC_DYN_MAX && !found; i++)
            if (a >= reg[i].base && a + len <= reg[i].base + reg[i].size)
                found = 1;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&rc->dyn_seq, memory_order_relaxed) == s)
            return found;
    }
}

int cm_osc_target(struct cm_win *w, int rank, MPI_Aint disp, int count, const struct cm_datatype *t,
                  struct cm_osc_tgt *out, char *why, size_t whylen)
{
    const struct cm_osc_peer *p = &w->peer[rank];
    MPI_Aint lo = 0, hi = 0;
    if (count > 0 && t->size > 0)
        span(count, t, &lo, &hi);
    out->pid = p->pid;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uint64_t a = (uint64_t)disp;
        if (hi > lo && !dyn_inside(w, rank, a + (uint64_t)lo, (uint64_t)(hi - lo))) {
            snprintf(why, whylen, "target %d: bytes [%#lx, %#lx) are not in a region the target attached",
                     rank, (unsigned long)(a + (uint64_t)lo), (unsigned long)(a + (uint64_t)hi));
            return MPI_ERR_RMA_RANGE;
        }
        out->local = rank == w->rank ? (char *)(uintptr_t)a : NULL;
        out->addr = a;
        return 0;
    }
    MPI_Aint off = disp * (MPI_Aint)p->disp_unit;
    if (disp < 0 || (hi > lo && (off + lo < 0 || off + hi > p->size))) {
        snprintf(why, whylen,
                 "target %d, displacement %ld (x disp_unit %d): bytes [%ld, %ld) are outside its %ld-byte window",
                 rank, (long)disp, p->disp_unit, (long)(off + lo), (long)(off + hi), (long)p->size);
        return MPI_ERR_RMA_RANGE;
    }
    out->local = p->local ? p->local + off : NULL;
    out->addr = p->addr + (uint64_t)off;
    return 0;
}

int cm_osc_for_each_block(int count, const struct cm_datatype *t,
                          int (*fn)(MPI_Aint off, size_t len, void *arg), void *arg)
{
    if (count <= 0 || t->size == 0)
        return 0;
    if (t->contig)
        return fn(t->true_lb, (size_t)count * t->size, arg);
    /* adjacent runs are merged: one system call per hole, not per block */
    MPI_Aint run = 0;
    size_t run_len = 0;
    int rc;
    for (int i = 0; i < count; i++) {
        MPI_Aint e = (MPI_Aint)i * t->extent;
        for (size_t r = 0; r < t->rep_count; r++) {
            for (size_t b = 0; b < t->nblocks; b++) {
                MPI_Aint o = e + (MPI_Aint)r * t->rep_stride + t->blocks[b].disp;
                size_t len = t->blocks[b].len;
                if (run_len && o == run + (MPI_Aint)run_len) {
                    run_len += len;
                    continue;
                }
                if (run_len && (rc = fn(run, run_len, arg)))
                    return rc;
                run = o;
                run_len = len;
            }
        }
    }
    return run_len ? fn(run, run_len, arg) : 0;
}

struct remote {
    const struct cm_osc_tgt *tgt;
    char *packed;
    int write;
};

static int remote_block(MPI_Aint off, size_t len, void *p)
{
    struct remote *r = p;
    uint64_t a = r->tgt->addr + (uint64_t)off;
    if (CM_FAULT_REFUSE(osc_cma))
        return -1;   /* as EPERM would: the caller falls back to messages */
    size_t done = r->write ? cm_cma_write(r->tgt->pid, a, r->packed, len) : cm_cma_read(r->tgt->pid, r->packed, a, len);
    r->packed += len;
    return done == len ? 0 : -1;
}

int cm_osc_write(const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t, const void *packed)
{
    size_t bytes = (size_t)count * t->size;
    if (!bytes)
        return 0;
    if (tgt->local) {
        if (t->contig)
            cm_osc_copy(tgt->local + t->true_lb, packed, bytes);
        else
            cm_dt_unpack(packed, bytes, tgt->local, count, t);
        return 0;
    }
    struct remote r = { tgt, (char *)packed, 1 };
    return cm_osc_for_each_block(count, t, remote_block, &r);
}

int cm_osc_read(const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t, void *packed)
{
    size_t bytes = (size_t)count * t->size;
    if (!bytes)
        return 0;
    if (tgt->local) {
        if (t->contig)
            cm_osc_copy(packed, tgt->local + t->true_lb, bytes);
        else
            cm_dt_pack(tgt->local, count, t, packed);
        return 0;
    }
    struct remote r = { tgt, packed, 0 };
    return cm_osc_for_each_block(count, t, remote_block, &r);
}
