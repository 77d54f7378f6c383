/*
 * dyn_remote.c -- MPI_Comm_accept/MPI_Comm_connect between two mpirun jobs
 * of one user on this machine (docs/spawn.md "Two jobs").
 *
 * The two jobs have two segments, two slot spaces and two mpiruns.  What
 * joins them:
 *   - each process maps the other job's segment, read through
 *     /proc/<mpirun pid>/fd/<fd> (the port names both): the other side's
 *     control blocks (pid, state, doorbell) and its dynamic-process area;
 *   - the accepting root makes a bridge (shm/bridge.h, a memfd) with one
 *     ring per ordered pair across the groups, which every member maps
 *     through /proc/<root pid>/fd/<n> before the root closes that fd;
 *   - the other group's processes become remote ids of this one (world
 *     ranks past the slots, core/remote.h), so p2p, matching, the
 *     intercommunicator and its collectives need nothing new.
 *
 * Handshake (one port's knock, shm/dyn.h): the connecting root writes who
 * it is into the port's knock in the accepting job's segment and rings the
 * owner; the owner answers with the bridge; the connecting root writes its
 * group's slots into the bridge and sets b_ready.  Both roots hand the link
 * to their groups, every member attaches, and the two groups agree on the
 * context ids over the channel (mpi/dyn.h) as within a job, the leaders
 * now reaching each other through the bridge.
 *
 * Waits for the other job sleep on this process's doorbell, which the
 * other side rings (core/remote.h cm_peer_wake's full fence), and wake up
 * at least every 200 ms to look at the port and the other job: a closed
 * port or an ended job is an error, never a hang.
 */
#include "mpi/dyn.h"
#include "mpi/intercomm.h"
#include "core/error.h"
#include "core/remote.h"
#include "core/state.h"
#include "p2p/p2p.h"
#include "shm/bridge.h"
#include "shm/dyn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The other jobs' segments this process maps (for as long as it runs:
 * remote ids point into them). */
#define SEGS_MAX 16
static struct { long job; void *base; } segs[SEGS_MAX];

static void *map_proc_fd(long pid, int fd, size_t *bytes, char *why, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0) {
        snprintf(why, len, "cannot open %s (%s): is that job still running?", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    void *base = MAP_FAILED;
    if (fstat(f, &st) == 0 && st.st_size > 0)
        base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    int e = errno;
    close(f);
    if (base == MAP_FAILED) {
        snprintf(why, len, "cannot map %s (%s)", path, strerror(e));
        return NULL;
    }
    *bytes = (size_t)st.st_size;
    return base;
}

/* The segment of job `job` (mpirun's pid), whose fd there is seg_fd. */
static void *job_segment(long job, int seg_fd, char *why, size_t len)
{
    for (int i = 0; i < SEGS_MAX; i++)
        if (segs[i].base && segs[i].job == job)
            return segs[i].base;
    int i = 0;
    while (i < SEGS_MAX && segs[i].base)
        i++;
    if (i == SEGS_MAX) {
        snprintf(why, len, "this process is connected to %d other jobs already", SEGS_MAX);
        return NULL;
    }
    size_t bytes;
    void *base = map_proc_fd(job, seg_fd, &bytes, why, len);
    if (!base)
        return NULL;
    const char *bad;
    if (cm_seg_check(base, bytes, &bad) != 0 || ((struct cm_seg_header *)base)->launcher_pid != job) {
        snprintf(why, len, "/proc/%ld/fd/%d is not that job's corempi segment (%s)", job, seg_fd,
                 cm_seg_check(base, bytes, &bad) ? bad : "another launcher");
        munmap(base, bytes);
        return NULL;
    }
    segs[i].job = job;
    segs[i].base = base;
    return base;
}

/* Ring a process of another job (its segment mapped here). */
static void ring_other(struct cm_rank_ctl *c)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&c->sleeping, memory_order_relaxed))
        cm_wake(c);
}

static int alive(long pid) { return kill((pid_t)pid, 0) == 0 || errno != ESRCH; }

/* Remote ids for n processes of the other group: world ranks. */
static int take_ids(int n, int32_t *first)
{
    struct cm_dyn_area *a = cm_seg_dyn(cm_g.seg);
    uint32_t v = atomic_fetch_add_explicit(&a->remote_seq, (uint32_t)n, memory_order_relaxed);
    if ((uint64_t)v + (uint64_t)n > CM_REMOTE_MAX)
        return -1;
    *first = cm_g.slots + (int32_t)v;
    return 0;
}

/* ---- the connecting root --------------------------------------------- */

struct knock_wait {
    struct cm_dyn_knock *k;
    _Atomic uint8_t *open;
    long job;
    int gave_up;
};

static int answered(void *arg)
{
    struct knock_wait *w = arg;
    if (atomic_load_explicit(&w->k->word, memory_order_acquire) == cm_knock_word(getpid(), CM_KNOCK_ANSWERED))
        return 1;
    if (!alive(w->job)) {
        w->gave_up = 1;
        return 1;
    }
    /* Withdraw only a knock the owner has not taken (SERVING): it answers. */
    if (!atomic_load_explicit(w->open, memory_order_acquire)) {
        uint64_t st = cm_knock_word(getpid(), CM_KNOCK_KNOCKED);
        if (atomic_compare_exchange_strong(&w->k->word, &st, 0)) {
            w->gave_up = 1;
            return 1;
        }
    }
    return 0;
}

static int knock_free(void *arg)
{
    struct knock_wait *w = arg;
    uint64_t st = 0, mine = cm_knock_word(getpid(), CM_KNOCK_CLAIMED);
    if (atomic_compare_exchange_strong(&w->k->word, &st, mine))
        return 1;
    /* A claim whose process died mid-handshake: take it over. */
    if (!alive(cm_knock_claimer(st)) && atomic_compare_exchange_strong(&w->k->word, &st, mine))
        return 1;
    if (!atomic_load_explicit(w->open, memory_order_acquire) || !alive(w->job)) {
        w->gave_up = 1;
        return 1;
    }
    return 0;
}

int cm_dyn_remote_knock(const char *port, long job, int seg_fd, int owner_slot, unsigned number,
                        const struct cm_comm *c, int root, struct cm_dyn_link *l, char *why, size_t len)
{
    if (cm_g.seg_fd_num < 0) {
        snprintf(why, len, "port '%.200s' belongs to another mpirun job, and this process was started without "
                           "mpirun (a singleton cannot be reached by another job): run it with mpirun -n 1", port);
        return MPI_ERR_PORT;
    }
    if (!alive(job)) {
        snprintf(why, len, "port '%.200s': its job (mpirun pid %ld) is not running", port, job);
        return MPI_ERR_PORT;
    }
    void *seg = job_segment(job, seg_fd, why, len);
    if (!seg)
        return MPI_ERR_PORT;
    struct cm_seg_header *h = seg;
    struct cm_dyn_area *a = cm_seg_dyn(seg);
    if (number == 0 || number >= CM_PORTS_MAX || owner_slot < 0 || (uint32_t)owner_slot >= h->nranks ||
        !atomic_load_explicit(&a->port_open[number], memory_order_acquire)) {
        snprintf(why, len, "port '%.200s' is not open", port);
        return MPI_ERR_PORT;
    }
    if (c->size > CM_BRIDGE_SIDE_MAX) {
        snprintf(why, len, "a group of %d processes cannot connect to another job (at most %d)", c->size,
                 CM_BRIDGE_SIDE_MAX);
        return MPI_ERR_OTHER;
    }
    struct knock_wait w = { &a->knock[number], &a->port_open[number], job, 0 };
    cm_progress_until(knock_free, &w, -1, 0, -1, 0, 0);
    if (w.gave_up) {
        snprintf(why, len, "port '%.200s' was closed (or its job ended) before it accepted", port);
        return MPI_ERR_PORT;
    }
    struct cm_dyn_knock *k = w.k;
    k->job = cm_g.hdr->launcher_pid;
    k->seg_fd = cm_g.seg_fd_num;
    k->slot = cm_g.rank;
    k->pid = (int32_t)getpid();
    k->n = c->size;
    k->root = root;
    k->err = 0;
    atomic_store_explicit(&k->word, cm_knock_word(getpid(), CM_KNOCK_KNOCKED), memory_order_release);
    ring_other(cm_seg_ctl(seg, (uint32_t)owner_slot));
    cm_progress_until(answered, &w, -1, 0, -1, 0, 0);
    if (w.gave_up) {
        snprintf(why, len, "port '%.200s' was closed (or its job ended) before it accepted", port);
        return MPI_ERR_PORT;
    }
    int err = k->err;
    l->side = 1;
    l->job = job;
    l->seg_fd = seg_fd;
    l->bridge_pid = k->bridge_pid;
    l->bridge_fd = k->bridge_fd;
    l->root = k->acc_root;
    int rc = MPI_SUCCESS;
    struct cm_bridge_hdr *b = NULL;
    size_t bytes = 0;
    if (err) {
        snprintf(why, len, "the accepting side of port '%.200s' could not make the connection", port);
        rc = err;
    } else if (!(b = map_proc_fd(l->bridge_pid, l->bridge_fd, &bytes, why, len))) {
        rc = MPI_ERR_OTHER;
    } else {
        l->n = (int32_t)b->na;
        if (take_ids(l->n, &l->vbase) != 0) {
            snprintf(why, len, "this job has connected %d processes of other jobs, its most", CM_REMOTE_MAX);
            rc = MPI_ERR_OTHER;
        } else {
            for (int i = 0; i < c->size; i++)
                b->slots_b[i] = c->world_of[i];
        }
    }
    /* Tell the accepting root, then let the port's next connection in. */
    if (b) {
        atomic_store_explicit(&b->b_ready, rc ? 2u : 1u, memory_order_release);
        munmap(b, bytes);
    }
    uint64_t ans = cm_knock_word(getpid(), CM_KNOCK_ANSWERED);
    atomic_compare_exchange_strong(&k->word, &ans, 0);
    ring_other(cm_seg_ctl(seg, (uint32_t)owner_slot));
    return rc;
}

/* ---- the accepting root ---------------------------------------------- */

struct accept_wait {
    struct cm_request *chan_recv;
    struct cm_dyn_knock *k;
};

static int knocked(void *arg)
{
    struct accept_wait *w = arg;
    if (w->chan_recv->complete)
        return 1;
    uint64_t s = atomic_load_explicit(&w->k->word, memory_order_acquire);
    if (cm_knock_state(s) != CM_KNOCK_KNOCKED)
        return 0;
    if (alive(cm_knock_claimer(s)))
        return 1;
    atomic_compare_exchange_strong(&w->k->word, &s, 0);   /* its process died: drop the knock */
    return 0;
}

struct ready_wait {
    struct cm_bridge_hdr *b;
    long job;
};

static int b_ready(void *arg)
{
    struct ready_wait *w = arg;
    return atomic_load_explicit(&w->b->b_ready, memory_order_acquire) != 0 || !alive(w->job);
}

/* A knock from another job is waiting on port `number`: make the bridge
 * and wait until the connecting root has filled its part in. */
static int serve_knock(struct cm_dyn_knock *k, int32_t claimer, const struct cm_comm *c, int root,
                       struct cm_dyn_link *l, char *why, size_t len)
{
    long job = k->job;
    int slot = k->slot, n = k->n;
    l->side = 0;
    l->job = job;
    l->seg_fd = k->seg_fd;
    l->n = n;
    l->root = k->root;
    int err = 0, fd = -1;
    struct cm_bridge_hdr *b = NULL;
    struct cm_bridge_hdr lay;
    memset(&lay, 0, sizeof lay);
    uint64_t bytes = 0;
    void *seg = job_segment(job, k->seg_fd, why, len);
    if (!seg || slot < 0 || (uint32_t)slot >= ((struct cm_seg_header *)seg)->nranks) {
        err = MPI_ERR_OTHER;
    } else if (n < 1 || n > CM_BRIDGE_SIDE_MAX || c->size > CM_BRIDGE_SIDE_MAX) {
        snprintf(why, len, "groups of %d and %d processes cannot connect (at most %d each)", c->size, n,
                 CM_BRIDGE_SIDE_MAX);
        err = MPI_ERR_OTHER;
    } else if (take_ids(n, &l->vbase) != 0) {
        snprintf(why, len, "this job has connected %d processes of other jobs, its most", CM_REMOTE_MAX);
        err = MPI_ERR_OTHER;
    } else {
        bytes = cm_bridge_layout((uint32_t)c->size, (uint32_t)n, &lay);
        fd = memfd_create("corempi-bridge", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0 ||
            (b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
            snprintf(why, len, "cannot make the shared memory between the two jobs (%zu bytes): %s", (size_t)bytes,
                     strerror(errno));
            b = NULL;
            err = MPI_ERR_NO_MEM;
        } else {
            memcpy(b, &lay, offsetof(struct cm_bridge_hdr, slots_a));
            for (int i = 0; i < c->size; i++)
                b->slots_a[i] = c->world_of[i];
        }
    }
    k->err = err;
    k->bridge_pid = (int32_t)getpid();
    k->bridge_fd = err ? -1 : fd;
    k->acc_root = root;
    k->n = c->size;
    uint64_t serving = cm_knock_word(claimer, CM_KNOCK_SERVING);
    if (!atomic_compare_exchange_strong(&k->word, &serving, cm_knock_word(claimer, CM_KNOCK_ANSWERED)) && !err) {
        snprintf(why, len, "the connecting process (pid %d) died during the handshake", (int)claimer);
        err = MPI_ERR_OTHER;
    } else if (seg) {
        ring_other(cm_seg_ctl(seg, (uint32_t)slot));
    }
    if (err) {
        if (b)
            munmap(b, bytes);
        if (fd >= 0)
            close(fd);
        return err;
    }
    struct ready_wait rw = { b, job };
    cm_progress_until(b_ready, &rw, -1, 0, -1, 0, 0);
    uint32_t ready = atomic_load_explicit(&b->b_ready, memory_order_acquire);
    munmap(b, bytes);
    if (ready != 1) {
        close(fd);
        snprintf(why, len, ready ? "the connecting job could not take the connection"
                                 : "the connecting job ended before the connection was made");
        return MPI_ERR_OTHER;
    }
    l->bridge_pid = (int32_t)getpid();
    l->bridge_fd = fd;
    return MPI_SUCCESS;
}

int cm_dyn_remote_await(unsigned number, int knock_tag, const struct cm_comm *c, int root, int *peer_slot,
                        struct cm_dyn_link *l, char *why, size_t len)
{
    struct cm_dyn_knock *k = &cm_seg_dyn(cm_g.seg)->knock[number];
    int knock;
    struct cm_request r = { .kind = CM_REQ_RECV, .internal = 1, .buf = &knock, .count = (int)sizeof knock,
                            .dtype = MPI_BYTE, .comm = cm_coll_comm(cm_dyn_chan()->handle),
                            .peer = MPI_ANY_SOURCE, .tag = knock_tag };
    cm_recv_start(&r);
    struct accept_wait w = { &r, k };
    int32_t claimer = 0;
    int taken = 0;
    for (;;) {
        cm_progress_until(knocked, &w, -1, CM_CALL_Comm_accept, MPI_ANY_SOURCE, knock_tag, CM_CTX_DYN);
        if (r.complete)
            break;
        /* Take the other job's knock unless its root withdrew it meanwhile. */
        uint64_t st = atomic_load_explicit(&k->word, memory_order_acquire);
        claimer = cm_knock_claimer(st);
        if (cm_knock_state(st) == CM_KNOCK_KNOCKED &&
            atomic_compare_exchange_strong(&k->word, &st, cm_knock_word(claimer, CM_KNOCK_SERVING))) {
            taken = 1;
            break;
        }
    }
    /* A knock of this job wins; a cancelled receive cannot match later. */
    if (r.complete || !cm_recv_cancel(&r)) {
        uint64_t st = cm_knock_word(claimer, CM_KNOCK_SERVING);
        if (taken)   /* give the other job's knock back for the next accept */
            atomic_compare_exchange_strong(&k->word, &st, cm_knock_word(claimer, CM_KNOCK_KNOCKED));
        cm_request_wait(&r, CM_CALL_Comm_accept);
        *peer_slot = r.status.MPI_SOURCE;
        return MPI_SUCCESS;
    }
    *peer_slot = -1;
    return serve_knock(k, claimer, c, root, l, why, len);
}

/* ---- every member ------------------------------------------------------ */

int cm_dyn_remote_join(struct cm_comm *c, int root, const struct cm_dyn_link *l, int tag, const char *call,
                       MPI_Comm *out)
{
    char why[300];
    void *seg = job_segment(l->job, l->seg_fd, why, sizeof why);
    size_t bytes;
    struct cm_bridge_hdr *b = seg ? map_proc_fd(l->bridge_pid, l->bridge_fd, &bytes, why, sizeof why) : NULL;
    /* The roots made the link and the other group waits in the agreement
     * below: a member that cannot map what its root mapped a moment ago
     * (out of address space) cannot tell them; end the job clearly. */
    if (!b)
        cm_fatal(call, "cannot join the connection to the other job: %s", why);
    const int32_t *theirs_slots = l->side == 0 ? b->slots_b : b->slots_a;
    int me = c->rank;
    for (int r = 0; r < l->n; r++) {
        int w = l->vbase + r;
        cm_p2p_attach_remote(w, cm_bridge_ring(b, l->side, me, r), cm_bridge_ringctl(b, l->side, me, r),
                             cm_bridge_ring(b, 1 - l->side, r, me), cm_bridge_ringctl(b, 1 - l->side, r, me),
                             CM_BRIDGE_RING_BYTES);
        cm_remote_register(w, cm_seg_ctl(seg, (uint32_t)theirs_slots[r]));
    }
    int *ident = malloc((size_t)c->size * sizeof(int)), *remote = malloc(((size_t)l->n + 1) * sizeof(int));
    int rc = MPI_SUCCESS;
    if (!ident || !remote) {
        rc = cm_error(c->handle, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    for (int i = 0; i < c->size; i++)
        ident[i] = i;
    remote[0] = l->n;
    for (int r = 0; r < l->n; r++)
        remote[1 + r] = l->vbase + r;
    struct cm_sub g = { c, ident, c->size, c->rank, CM_TAG_DYN_GROUP };
    uint16_t ctx[2];
    int mine = c->size, theirs = 0;
    rc = cm_inter_agree(&g, root, cm_dyn_chan(), c->rank == root ? l->vbase + l->root : -1, tag, &mine,
                        sizeof mine, &theirs, sizeof theirs, ctx, 2);
    if (rc)
        rc = cm_error(c->handle, rc, call, "no context id is free in both groups");
    else if (theirs != l->n)
        cm_fatal(call, "the other job's group has %d processes, its root said %d", theirs, l->n);
    else
        rc = cm_inter_build(call, c->handle, c->world_of, c->size, c->rank, remote, ctx, c->errh, out);
out:
    for (int r = 0; r < l->n; r++)
        cm_remote_unpin(l->vbase + r);
    /* Every member of both groups has mapped the bridge once this barrier
     * is over: the accepting root may close the fd they opened it by. */
    if (!rc && (rc = PMPI_Barrier(*out)) != MPI_SUCCESS)
        rc = cm_error(c->handle, rc, call, "the first barrier with the other job failed");
    if (l->side == 0 && c->rank == root)
        close(l->bridge_fd);
    free(ident);
    free(remote);
    return rc;
}
