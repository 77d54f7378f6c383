/*
 * direct/view.c -- typed buffers as bytes: the area's result buffers, views
 * of user buffers (contiguous in place, else packed), packing a part of a
 * typed buffer, and when to write the user's buffers non-temporally.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "coll/direct/layout.h"
#include "core/state.h"
#include "shm/copy.h"

#include <stdint.h>
#include <stdlib.h>

void *cm_direct_result(struct cm_direct *s, int p)
{
    return s->base + results_off(s->n) + (size_t)p * s->result_bytes;
}

/* ---- typed buffers as bytes -------------------------------------------- */

int cm_direct_view(struct cm_direct_view *v, const void *buf, int count, MPI_Datatype dt, int pack)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    v->buf = buf;
    v->count = count;
    v->dt = dt;
    v->tmp = NULL;
    v->len = (size_t)count * (size_t)d.size;
    if (d.size == d.extent && d.size == d.true_extent) {
        v->bytes = (char *)buf + d.true_lb;
        return MPI_SUCCESS;
    }
    v->tmp = malloc(v->len ? v->len : 1);
    if (!v->tmp)
        return MPI_ERR_NO_MEM;
    v->bytes = v->tmp;
    if (pack && v->len) {
        int pos = 0;
        return PMPI_Pack(buf, count, dt, v->tmp, (int)v->len, &pos, MPI_COMM_SELF);
    }
    return MPI_SUCCESS;
}

void cm_direct_view_done(struct cm_direct_view *v, int unpack)
{
    if (!v->tmp)
        return;
    if (unpack && v->len) {
        int pos = 0;
        PMPI_Unpack(v->tmp, (int)v->len, &pos, (void *)v->buf, v->count, v->dt, MPI_COMM_SELF);
    }
    free(v->tmp);
    v->tmp = NULL;
}

void cm_direct_pack_part(void *dst, const void *buf, int count, MPI_Datatype dt, size_t off, size_t len)
{
    int contig;
    MPI_Aint tlb;
    cm_direct_bytes(count, dt, &contig, &tlb, NULL);
    if (contig)
        cm_copy(dst, (const char *)buf + tlb + off, len);
    else
        cm_dt_pack_range(buf, count, cm_dt_lookup(dt), off, dst, len);
}

void cm_direct_unpack_part(const void *src, void *buf, int count, MPI_Datatype dt, size_t off, size_t len, int nt)
{
    int contig;
    MPI_Aint tlb;
    cm_direct_bytes(count, dt, &contig, &tlb, NULL);
    if (contig && nt)
        cm_copy_nt((char *)buf + tlb + off, src, len);
    else if (contig)
        cm_copy((char *)buf + tlb + off, src, len);
    else
        cm_dt_unpack_range(src, len, buf, count, cm_dt_lookup(dt), off);
}

/* A large all-to-all, allgather or gather writes more into the user's buffers
 * than the caches keep, and ordinary stores first read every destination
 * line from memory and push the slots out of the cache on the way.
 * Non-temporal stores do neither.  8 ranks on 2 cores, alltoall of 256 KiB /
 * 512 KiB / 1 MiB / 4 MiB blocks (1.75-28 MiB out per rank): 6 / 12 / 19 /
 * 18% faster (medians of 4-5 alternated runs); 1 MiB blocks, 3 runs each:
 * allgather 923-1270 us against 1566-2214, alltoall(v,w) 2800-4680 against
 * 3570-4790 (Open MPI 4680-5060).  2 ranks: 2 MiB out per rank no gain (a
 * core's 1 MiB L2 is not shared with other ranks), 4 MiB alltoall(v) 15%.
 * So from 4 MiB out per core's worth of ranks: 4 MiB at 2 ranks on 2 cores,
 * 1 MiB at 8 (COREMPI_COLL_NT_MIN overrides; 0: never). */
int cm_direct_out_nt(size_t out)
{
    size_t cores = cm_g.hdr && cm_g.hdr->ncores ? cm_g.hdr->ncores : 1;
    size_t ranks = cm_g.world_size > 0 ? (size_t)cm_g.world_size : 1;
    size_t def = ranks > cores ? (4u << 20) * cores / ranks : 4u << 20;
    size_t min = cm_config_size(COREMPI_COLL_NT_MIN, def);
    return min && out >= min;   /* 0: never */
}

/* Between a user buffer and its packed bytes: unpack 0 packs buf into
 * bytes, 1 unpacks bytes into buf. */
static int pack_or_unpack(void *bytes, void *buf, int count, MPI_Datatype dt, int unpack)
{
    int contig;
    MPI_Aint tlb;
    size_t len = cm_direct_bytes(count, dt, &contig, &tlb, NULL);
    if (!len)
        return MPI_SUCCESS;
    if (contig) {
        char *user = (char *)buf + tlb;
        cm_copy_small(unpack ? user : bytes, unpack ? bytes : user, len);
        return MPI_SUCCESS;
    }
    int pos = 0;
    return unpack ? PMPI_Unpack(bytes, (int)len, &pos, buf, count, dt, MPI_COMM_SELF)
                  : PMPI_Pack(buf, count, dt, bytes, (int)len, &pos, MPI_COMM_SELF);
}

int cm_direct_pack(void *dst, const void *buf, int count, MPI_Datatype dt)
{
    return pack_or_unpack(dst, (void *)buf, count, dt, 0);
}

int cm_direct_unpack(const void *src, void *buf, int count, MPI_Datatype dt)
{
    return pack_or_unpack((void *)src, buf, count, dt, 1);
}
#endif
