/*
 * create.c -- making and freeing windows: Win_create, Win_allocate,
 * Win_allocate_shared, Win_create_dynamic, Win_free, and the queries that
 * need the layout (Win_shared_query).
 *
 * Layout of the shared mapping (map.c), the same in every rank:
 *   [control: struct cm_osc_ctl, rank lines [n], posted [n][n]] page aligned
 *   [rank 0's memory][rank 1's memory]...                      (shared flavours)
 * Win_allocate_shared places the parts back to back (the standard's
 * "contiguous": rank i's first byte follows rank i-1's last) unless the info
 * key alloc_shared_noncontig is "true"; then, as for Win_allocate, every part
 * starts on a page of its own.
 */
#include "osc/osc.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/info.h"
#include "core/state.h"
#include "fe_osc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static size_t round_page(size_t n) { return (n + PAGE - 1) & ~(size_t)(PAGE - 1); }

/* What each rank tells the others at creation. */
struct announce {
    uint64_t addr;
    int64_t size;
    int32_t disp_unit;
    int32_t pid;
    uint64_t win;   /* struct cm_win in the announcer (am.c's requests name it) */
    int64_t mem_fd; /* Win_create on an Alloc_mem shared block: its descriptor, else -1 */
    uint64_t mem_off;  /* ... and the offset of base in it */
};

uint64_t cm_osc_direct_targets;

/* Win_create: map the ranks whose memory lies in an Alloc_mem shared block
 * (memblk.c), through /proc/<pid>/fd as map.c does.  A rank's memory is
 * reached directly only when every rank mapped it (an allreduce agrees),
 * so all accumulates to it take one path (acc.c: the path depends on the
 * window, the target, the type and the address only). */
static void map_alloc_mem(struct cm_win *w, const struct announce *all, MPI_Comm comm)
{
    int n = w->size, *ok = calloc((size_t)n, sizeof *ok), *agreed = calloc((size_t)n, sizeof *agreed);
    if (!ok || !agreed)
        cm_fatal("MPI_Win_create", "out of memory");
    for (int r = 0; r < n; r++) {
        if (all[r].mem_fd < 0)
            continue;
        if (r == w->rank) {
            ok[r] = 1;
            continue;
        }
        size_t first = (size_t)all[r].mem_off & ~(size_t)(PAGE - 1);
        size_t len = round_page((size_t)all[r].mem_off + (size_t)all[r].size) - first;
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/fd/%ld", (long)all[r].pid, (long)all[r].mem_fd);
        int f = open(path, O_RDWR | O_CLOEXEC);
        if (f < 0)
            continue;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, (off_t)first);
        close(f);
        if (m == MAP_FAILED)
            continue;
        w->peer[r].map = m;
        w->peer[r].map_len = len;
        w->peer[r].local = (char *)m + ((size_t)all[r].mem_off - first);
        ok[r] = 1;
    }
    PMPI_Allreduce(ok, agreed, n, MPI_INT, MPI_MIN, comm);
    for (int r = 0; r < n; r++) {
        if (agreed[r]) {
            w->peer[r].shared = 1;
            cm_osc_direct_targets += r != w->rank;
        } else if (w->peer[r].map) {
            munmap(w->peer[r].map, w->peer[r].map_len);
            w->peer[r].map = NULL;
            w->peer[r].local = NULL;
        }
    }
    free(ok);
    free(agreed);
}

static int info_true(MPI_Info info, const char *key)
{
    if (info == MPI_INFO_NULL)
        return 0;
    char v[16];
    int flag = 0, len = sizeof v;
    if (PMPI_Info_get_string(info, key, &len, v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
}

static void destroy(struct cm_win *w)
{
    if (w->am_sent)
        cm_osc_am_close(w);
    if (w->map)
        munmap(w->map, w->map_bytes);
    for (int r = 0; w->peer && r < w->size; r++)
        if (w->peer[r].map)
            munmap(w->peer[r].map, w->peer[r].map_len);
    if (w->group != MPI_GROUP_NULL)
        PMPI_Group_free(&w->group);
    cm_info_release(w->info);
    cm_errh_release(w->errh);
    free(w->world_of);
    free(w->peer);
    free(w->lock);
    free(w->start_ranks);
    free(w->started);
    free(w);
}

/* The common part of every creation call: checks, the exchange, the shared
 * mapping (data_bytes of shared memory for the allocating flavours).
 * my_base: the user's memory (Win_create) or NULL. */
static int create(const char *call, int flavor, void *my_base, MPI_Aint size, int disp_unit, MPI_Info info,
                  MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    struct cm_comm *c = cm_comm_user_lookup(comm);
    if (!c || comm == MPI_COMM_NULL)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator %ld", (long)(intptr_t)comm);
    if (cm_comm_is_inter(c))
        return cm_error(comm, MPI_ERR_COMM, call, "communicator %ld is an intercommunicator", (long)(intptr_t)comm);
    CM_ARG_NOT_NULL(comm, win, call);
    if (size < 0)
        return cm_error(comm, MPI_ERR_SIZE, call, "size %ld is negative", (long)size);
    if (disp_unit <= 0)
        return cm_error(comm, MPI_ERR_DISP, call, "disp_unit %d is not positive", disp_unit);
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
        return cm_error(comm, MPI_ERR_ARG, call, "baseptr is NULL");
    if (flavor == MPI_WIN_FLAVOR_CREATE && !my_base && size > 0)
        return cm_error(comm, MPI_ERR_BASE, call, "base is NULL for %ld bytes", (long)size);
    MPI_Info info_copy;
    if (cm_info_copy(info, &info_copy) != MPI_SUCCESS)
        return cm_error(comm, MPI_ERR_INFO, call, "invalid info %ld", (long)(intptr_t)info);

    struct cm_win *w = calloc(1, sizeof *w);
    int n = c->size;
    if (w) {
        w->world_of = malloc((size_t)n * sizeof *w->world_of);
        w->peer = calloc((size_t)n, sizeof *w->peer);
        w->lock = calloc((size_t)n, 1);
        w->started = calloc((size_t)n, sizeof *w->started);
    }
    struct announce *all = malloc((size_t)n * sizeof *all);
    if (!w || !w->world_of || !w->peer || !w->lock || !w->started || !all)
        cm_fatal(call, "out of memory for a window of %d ranks", n);
    w->group = MPI_GROUP_NULL;
    w->info = info_copy;
    w->flavor = flavor;
    w->rank = c->rank;
    w->size = n;
    w->errh = MPI_ERRORS_ARE_FATAL;
    w->my_size = size;
    w->my_disp_unit = disp_unit;
    w->noncontig = flavor == MPI_WIN_FLAVOR_ALLOCATE ||
                   (flavor == MPI_WIN_FLAVOR_SHARED && info_true(info, "alloc_shared_noncontig"));
    memcpy(w->world_of, c->world_of, (size_t)n * sizeof *w->world_of);
    PMPI_Comm_group(comm, &w->group);

    struct announce me = { (uint64_t)(uintptr_t)my_base, size, disp_unit, (int32_t)getpid(), (uint64_t)(uintptr_t)w,
                          -1, 0 };
    int mem_fd;
    size_t mem_off;
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && cm_osc_mem_find(my_base, (size_t)size, &mem_fd, &mem_off)) {
        me.mem_fd = mem_fd;
        me.mem_off = mem_off;
    }
    PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);

    size_t posted_end = sizeof(struct cm_osc_ctl) + (size_t)n * sizeof(struct cm_osc_rank_ctl) +
                        (size_t)n * (size_t)n * sizeof(uint32_t);
    size_t dyn_at = (posted_end + 63) & ~(size_t)63;
    size_t ctl_bytes = round_page(flavor == MPI_WIN_FLAVOR_DYNAMIC
                                      ? dyn_at + (size_t)n * CM_OSC_DYN_MAX * sizeof(struct cm_osc_region)
                                      : posted_end);
    size_t total = ctl_bytes;
    int shared = flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED;
    size_t *off = calloc((size_t)n, sizeof *off);
    if (!off)
        cm_fatal(call, "out of memory");
    if (shared) {
        for (int r = 0; r < n; r++) {
            if (w->noncontig)
                total = round_page(total);
            off[r] = total;
            total += (size_t)all[r].size;
        }
        total = round_page(total ? total : 1);
    }
    const char *why;
    w->map = cm_osc_map_shared(comm, total, &why);
    if (!w->map) {
        free(off);
        free(all);
        destroy(w);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "cannot share %zu bytes among %d ranks: %s", total, n, why);
    }
    w->map_bytes = total;
    w->ctl = (struct cm_osc_ctl *)w->map;
    w->rctl = (struct cm_osc_rank_ctl *)(w->map + sizeof(struct cm_osc_ctl));
    w->posted = (_Atomic uint32_t *)(w->rctl + n);
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->dyn = (struct cm_osc_region *)(void *)(w->map + dyn_at);
    for (int r = 0; r < n; r++) {
        w->peer[r].size = all[r].size;
        w->peer[r].disp_unit = all[r].disp_unit;
        w->peer[r].pid = all[r].pid;
        w->peer[r].addr = all[r].addr;
        w->peer[r].win = all[r].win;
        if (shared)
            w->peer[r].local = w->map + off[r];
        else if (r == w->rank)
            w->peer[r].local = my_base;
    }
    for (int r = 0; r < n && shared; r++)
        w->peer[r].shared = 1;
    if (flavor == MPI_WIN_FLAVOR_CREATE)
        map_alloc_mem(w, all, comm);
    /* a rank that gave size 0 has no memory of its own: a NULL base, as
     * Win_shared_query reports for it */
    w->base = shared ? (all[w->rank].size ? (void *)(w->map + off[w->rank]) : NULL) : my_base;
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->base = MPI_BOTTOM;
    free(off);
    free(all);
    if (cm_win_register(w) == MPI_WIN_NULL) {
        destroy(w);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "too many windows");
    }
    if (!shared) {
        /* Without single copy, origins send active messages (am.c); with
         * it, one may still be refused later.  Either way every rank takes
         * them before any origin can send one: the barrier. */
        cm_osc_am_open(w);
        w->am = !cm_g.cma_ok;
        cm_osc_barrier(w);
    }
    if (shared)
        *(void **)baseptr = w->base;
    *win = w->handle;
    return MPI_SUCCESS;
}

int cm_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win);
}

int cm_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr, win);
}

int cm_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                           MPI_Win *win)
{
    return create("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, baseptr,
                  win);
}

int cm_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL, win);
}

/* Collective.  Every epoch this process opened must be over; the barrier
 * then waits for every other rank's, so no rank still reaches into memory
 * that goes away. */
int cm_Win_free(MPI_Win *win)
{
    CM_CALL_INITIALIZED("MPI_Win_free");
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, win, call);
    struct cm_win *w = cm_win_check(*win, call, &rc);
    if (!w)
        return rc;
    /* MPI-4.1 section 12.2.5: every epoch must be complete, a fence epoch
     * with RMA calls in it included (its closing fence completes them) */
    if (w->lock_all || w->nlocks || w->start_ranks || w->post_open || w->fence_used)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "window %ld still has an epoch open (%s)",
                            (long)(intptr_t)*win,
                            w->lock_all ? "Win_lock_all" : w->nlocks ? "Win_lock" : w->start_ranks ? "Win_start"
                                                     : w->post_open ? "Win_post"
                                                                    : "Win_fence, with RMA calls since it");
    if ((rc = cm_osc_free_attrs(w)) != MPI_SUCCESS)
        return rc;
    cm_osc_am_drain(w, -1);
    cm_osc_barrier(w);
    cm_win_unregister(w);
    destroy(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

int cm_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    CM_CALL_INITIALIZED("MPI_Win_shared_query");
    struct cm_win *w = cm_win_check(win, call, &rc);
    if (!w)
        return rc;
    if (!size || !disp_unit || !baseptr)
        return cm_win_error(w, MPI_ERR_ARG, call, "%s is NULL", !size ? "size" : !disp_unit ? "disp_unit" : "baseptr");
    if (rank == MPI_PROC_NULL) {
        /* the first rank with memory (the standard's choice) */
        for (rank = 0; rank < w->size - 1 && w->peer[rank].size == 0; rank++)
            ;
    } else if (rank < 0 || rank >= w->size) {
        return cm_win_error(w, MPI_ERR_RANK, call, "rank %d is not in the window (size %d)", rank, w->size);
    }
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return cm_win_error(w, MPI_ERR_RMA_FLAVOR, call,
                            "window %ld was made by MPI_Win_create_dynamic (its memory is attached, not queried)",
                            (long)(intptr_t)win);
    /* MPI-4.1 section 12.2.3: memory this process cannot reach by loads and
     * stores answers size 0 and a NULL base.  Win_create memory is shared
     * when it came from MPI_Alloc_mem and every rank mapped it (create.c's
     * map_alloc_mem); this process's own memory always is. */
    int reach = w->peer[rank].shared || rank == w->rank;
    *size = reach ? w->peer[rank].size : 0;
    *disp_unit = w->peer[rank].disp_unit;
    *(void **)baseptr = reach && w->peer[rank].size ? w->peer[rank].local : NULL;
    return MPI_SUCCESS;
}
