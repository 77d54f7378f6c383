/*
 * otf2_export.c -- the trace as an OTF2 archive (Vampir, Score-P tools, otf2-print).
 *
 * Locations = ranks (one process location group each, under one system-tree
 * node: the machine), regions = MPI call names.  Per call: Enter, then MpiSend
 * (sends) or MpiCollectiveBegin (collectives), MpiRecv at the end of the call
 * for each receive that completed inside it, MpiCollectiveEnd, Leave.  Communicators come from
 * the ranks' communicator tables; peers and roots are written as ranks of the
 * communicator, as OTF2 wants.  Timestamps are the aligned nanoseconds.
 */
#define _GNU_SOURCE
#include "report.h"

#include <ftw.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* ---- communicators: the job-wide list built at load time ------------------------ */
/* OTF2 index of an event's communicator; intercommunicators and unknown ones are
 * written against MPI_COMM_WORLD with world ranks (OTF2 has separate records for
 * intercommunicators that this exporter does not write). */
static size_t comm_of(const cp_trace *tr, const cp_event *e)
{
    if (e->gcomm == CP_COMM_UNKNOWN || e->gcomm >= tr->ncomms) return 0;
    return tr->comms[e->gcomm].remote_size > 0 ? 0 : e->gcomm;
}

static uint32_t local_rank(const cp_comm_info *d, int32_t world)
{
    if (world < 0) return OTF2_UNDEFINED_UINT32;
    if (!d->members) return (uint32_t)world;
    for (int32_t i = 0; i < d->size; i++)
        if (d->members[i] == world) return (uint32_t)i;
    return OTF2_UNDEFINED_UINT32;
}

/* ---- collective kinds -------------------------------------------------------- */
static OTF2_CollectiveOp collective_op(const char *name)
{
    static const struct { const char *n; OTF2_CollectiveOp op; } t[] = {
        { "Barrier", OTF2_COLLECTIVE_OP_BARRIER }, { "Bcast", OTF2_COLLECTIVE_OP_BCAST },
        { "Gather", OTF2_COLLECTIVE_OP_GATHER }, { "Gatherv", OTF2_COLLECTIVE_OP_GATHERV },
        { "Scatter", OTF2_COLLECTIVE_OP_SCATTER }, { "Scatterv", OTF2_COLLECTIVE_OP_SCATTERV },
        { "Allgather", OTF2_COLLECTIVE_OP_ALLGATHER }, { "Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV },
        { "Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL }, { "Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV },
        { "Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW }, { "Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
        { "Reduce", OTF2_COLLECTIVE_OP_REDUCE }, { "Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
        { "Scan", OTF2_COLLECTIVE_OP_SCAN }, { "Exscan", OTF2_COLLECTIVE_OP_EXSCAN },
        { "Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
    };
    const char *b = strncmp(name, "MPI_", 4) == 0 ? name + 4 : name;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            if (strcmp(b, t[i].n) == 0) return t[i].op;
        if (b[0] == 'I' && b[1] >= 'a' && b[1] <= 'z') {      /* Iallreduce -> Allreduce */
            static __thread char buf[64];
            snprintf(buf, sizeof buf, "%c%s", b[1] - 'a' + 'A', b + 2);
            b = buf;
        } else break;
    }
    return strstr(name, "free") ? OTF2_COLLECTIVE_OP_DESTROY_HANDLE : OTF2_COLLECTIVE_OP_CREATE_HANDLE;
}

/* ---- archive plumbing ---------------------------------------------------------- */
static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool final)
{
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l) { return 0; }
static OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(p);
}

/* An earlier report's archive is in the way: OTF2 refuses to overwrite one. */
static int rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_rank_events(const cp_trace *tr, int r, OTF2_EvtWriter *w, uint64_t *nevents)
{
    const cp_rank *rk = &tr->ranks[r];
    uint64_t last = 0, count = 0;
    int open = -1;                 /* index of the slice being written */
    int open_coll = 0;
#define CLAMP(t) ((uint64_t)(t) < last ? last : (last = (uint64_t)(t)))
    for (size_t i = 0; i <= rk->nev; i++) {
        const cp_event *e = i < rk->nev ? &rk->ev[i] : NULL;
        if (e && !e->is_slice && e->slice == open && open >= 0) {
            if (cp_event_is_p2p_recv_done(e)) {
                const cp_event *s = &rk->ev[open];
                size_t ci = comm_of(tr, e);
                /* known to have arrived when the call that completed it returns */
                int64_t t = s->t1;
                OTF2_EvtWriter_MpiRecv(w, NULL, CLAMP(t), local_rank(&tr->comms[ci], e->peer), (OTF2_CommRef)ci,
                                       e->recv_tag == CPT_TAG_NONE ? 0 : (uint32_t)e->recv_tag, e->bytes);
                count++;
            }
            continue;
        }
        if (e && !e->is_slice) continue;
        if (open >= 0) {                                   /* close the previous call */
            const cp_event *s = &rk->ev[open];
            if (open_coll) {
                size_t ci = comm_of(tr, s);
                uint32_t root = (s->flags & CPT_F_ROOT) ? local_rank(&tr->comms[ci], s->peer) : OTF2_UNDEFINED_UINT32;
                OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, CLAMP(s->t1), collective_op(cp_name(tr, s)),
                                                (OTF2_CommRef)ci, root, s->bytes, s->bytes);
                count++;
            }
            OTF2_EvtWriter_Leave(w, NULL, CLAMP(s->t1), s->name);
            count++;
            open = -1;
        }
        if (!e) break;
        OTF2_EvtWriter_Enter(w, NULL, CLAMP(e->t0), e->name);
        count++;
        open = (int)i;
        open_coll = (e->flags & CPT_F_COLLECTIVE) && !(e->flags & CPT_F_COMPLETION);
        if (open_coll) { OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, CLAMP(e->t0)); count++; }
        if (cp_event_is_p2p_send(e)) {
            size_t ci = comm_of(tr, e);
            OTF2_EvtWriter_MpiSend(w, NULL, CLAMP(e->t0), local_rank(&tr->comms[ci], e->peer), (OTF2_CommRef)ci,
                                   e->tag == CPT_TAG_NONE ? 0 : (uint32_t)e->tag, e->bytes);
            count++;
        }
        if (cp_event_is_p2p_recv_done(e)) {                /* a blocking receive: the call is the receive */
            size_t ci = comm_of(tr, e);
            OTF2_EvtWriter_MpiRecv(w, NULL, CLAMP(e->t1), local_rank(&tr->comms[ci], e->peer), (OTF2_CommRef)ci,
                                   e->recv_tag == CPT_TAG_NONE ? 0 : (uint32_t)e->recv_tag, e->bytes);
            count++;
        }
    }
#undef CLAMP
    *nevents = count;
}

int cp_write_otf2(const cp_trace *tr, const char *outdir, FILE *diag)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.otf2", outdir);
    if (rm_tree(path) != 0) { fprintf(diag, "coreprof: cannot clear %s\n", path); return -1; }
    OTF2_Archive *ar = OTF2_Archive_Open(path, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) { fprintf(diag, "coreprof: %s: cannot create the OTF2 archive\n", path); return -1; }
    OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_SetCreator(ar, "coreprof report");
    OTF2_Archive_OpenEvtFiles(ar);

    uint64_t *nev = calloc((size_t)tr->nranks, sizeof *nev);
    if (!nev) abort();
    for (int r = 0; r < tr->nranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)r);
        if (!w) continue;
        write_rank_events(tr, r, w, &nev[r]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);

    /* empty local definitions: readers expect one file per location */
    OTF2_Archive_OpenDefFiles(ar);
    for (int r = 0; r < tr->nranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, (OTF2_LocationRef)r);
        if (dw) OTF2_Archive_CloseDefWriter(ar, dw);
    }
    OTF2_Archive_CloseDefFiles(ar);

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, 0, (uint64_t)tr->t_end + 1, OTF2_UNDEFINED_TIMESTAMP);
    /* strings: names first (ids 0..nnames-1), then ours */
    uint32_t sid = 0;
    for (size_t i = 0; i < tr->nnames; i++) OTF2_GlobalDefWriter_WriteString(g, sid++, tr->names[i]);
    uint32_t s_empty = sid++, s_machine = sid++, s_node = sid++, s_mpi = sid++;
    OTF2_GlobalDefWriter_WriteString(g, s_empty, "");
    OTF2_GlobalDefWriter_WriteString(g, s_machine, tr->ranks[0].host[0] ? tr->ranks[0].host : "machine");
    OTF2_GlobalDefWriter_WriteString(g, s_node, "node");
    OTF2_GlobalDefWriter_WriteString(g, s_mpi, "MPI");
    OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS);
    for (size_t i = 0; i < tr->nnames; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, (OTF2_StringRef)i, (OTF2_StringRef)i, s_empty,
                                         OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
                                         s_empty, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int r = 0; r < tr->nranks; r++) {
        char buf[64];
        snprintf(buf, sizeof buf, "rank %d", r);
        uint32_t s = sid++;
        OTF2_GlobalDefWriter_WriteString(g, s, buf);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, s, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r],
                                           (OTF2_LocationGroupRef)r);
    }
    uint64_t *mem = malloc(((size_t)tr->nranks + 1) * sizeof *mem);
    if (!mem) abort();
    for (int r = 0; r < tr->nranks; r++) mem[r] = (uint64_t)r;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)tr->nranks, mem);
    for (size_t i = 0; i < tr->ncomms; i++) {
        const cp_comm_info *d = &tr->comms[i];
        if (d->remote_size > 0) d = &tr->comms[0];   /* not referenced by any event: keep the ids dense */
        uint64_t *m = malloc(((size_t)d->size + 1) * sizeof *m);
        if (!m) abort();
        for (int32_t k = 0; k < d->size; k++) m[k] = d->members ? (uint64_t)d->members[k] : (uint64_t)k;
        char buf[64];
        if (i == 0) snprintf(buf, sizeof buf, "MPI_COMM_WORLD");
        else snprintf(buf, sizeof buf, "communicator %zu (%d ranks)", i, d->size);
        uint32_t s = sid++;
        OTF2_GlobalDefWriter_WriteString(g, s, buf);
        OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)(i + 1), s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)d->size, m);
        OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)i, s, (OTF2_GroupRef)(i + 1), OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
        free(m);
    }
    free(mem);
    free(nev);
    OTF2_ErrorCode rc = OTF2_Archive_Close(ar);
    if (rc != OTF2_SUCCESS) {
        fprintf(diag, "coreprof: %s: closing the OTF2 archive failed: %s\n", path, OTF2_Error_GetDescription(rc));
        return -1;
    }
    return 0;
}
