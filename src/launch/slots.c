/* slots.c -- the universe's slots: which are free, and giving the slots of
 * children that ended to new ones (MPI_Comm_spawn, dynspawn.c).
 *
 * A slot of [nranks, slots_used) is free once its process was reaped
 * (pids[s] == 0): a pool of workers spawned and disconnected again and
 * again (mpi4py's MPIPoolExecutor) reuses the same few slots forever instead
 * of running out of the universe.  Before a new process starts in a used
 * slot, mpirun raises the slot's gen, resets its control block, sets the
 * consumer positions of the slot's rings (both directions, with every slot
 * in use) to their new base (shm/segment.h), gives the rings' pages back
 * (punched out of the memfd), and raises reuse_epoch; each live process then
 * resets its own side of those rings (p2p/reuse.c). */
#include "launch/launch.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "shm/segment.h"

/* How long a spawn that does not fit waits for spawned processes to end. */
#define CM_SLOTS_WAIT_MS 2000

static double waiting_since; /* ms, 0: no request waits */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A pool disconnects a worker and at once spawns the next: the old one may
 * not have exited yet.  While spawned processes live, a request that does
 * not fit waits (unanswered, looked at again on every turn of the watch
 * loop, which a child's exit wakes) up to CM_SLOTS_WAIT_MS. */
int cm_launch_slots_wait(const struct cm_job *job)
{
    int live = 0;
    for (int s = job->nranks; s < job->nslots && !live; s++)
        live = job->pids[s] > 0;
    if (!live)
        return 0;
    double now = now_ms();
    if (waiting_since == 0)
        waiting_since = now;
    return now - waiting_since < CM_SLOTS_WAIT_MS;
}

void cm_launch_slots_waited(void)
{
    waiting_since = 0;
}

static int is_free(const struct cm_job *job, int s, int used)
{
    return s >= used || job->pids[s] == 0;
}

int cm_launch_slots_find(const struct cm_job *job, int total, int *nfree)
{
    const struct cm_seg_header *h = job->seg;
    int used = (int)atomic_load_explicit(&h->slots_used, memory_order_relaxed), run = 0, first = -1;
    *nfree = 0;
    for (int s = job->nranks; s < job->nslots; s++) {
        if (!is_free(job, s, used)) {
            run = 0;
            continue;
        }
        ++*nfree;
        if (++run == total && first < 0)
            first = s - total + 1;
    }
    return first;
}

void cm_launch_slot_released(struct cm_job *job, int s)
{
    struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)s);
    /* A process that counted itself for fence-free wakes (shm/wait.h) leaves
     * the count: the slot's next process may not register, and the count
     * must not vouch for it. */
    if (atomic_exchange_explicit(&c->fence_joined, 0, memory_order_relaxed))
        atomic_fetch_sub_explicit(&((struct cm_seg_header *)job->seg)->fence_free_ranks, 1, memory_order_seq_cst);
}

static void punch(const struct cm_job *job, uint64_t off, uint64_t len)
{
    /* The pages come back to the system; reads see zeros (a failure only
     * keeps the memory: the ring bases, not the zeros, keep order). */
    (void)fallocate(job->seg_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
}

void cm_launch_slots_reuse(struct cm_job *job, int first, int total, int used)
{
    struct cm_seg_header *h = job->seg;
    int reused = 0, upto = first + total > used ? first + total : used;
    for (int s = first; s < first + total && s < used; s++, reused++) {
        struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)s);
        uint32_t gen = atomic_load_explicit(&c->gen, memory_order_relaxed) + 1;
        c->pid = 0;
        c->bound_core = -1;
        c->last_call = c->blocked_call = 0;
        c->exit_code = 0;
        atomic_store_explicit(&c->state, CM_RANK_STARTING, memory_order_relaxed);
        atomic_store_explicit(&c->progress, 0, memory_order_relaxed);
        atomic_store_explicit(&c->am_wanted, 0, memory_order_relaxed);
        atomic_store_explicit(&c->sleeping, 0, memory_order_relaxed);
        for (int p = 0; p < upto; p++) {
            uint32_t pg = p == s ? gen : atomic_load_explicit(&cm_seg_ctl(job->seg, (uint32_t)p)->gen,
                                                               memory_order_relaxed);
            uint64_t base = cm_seg_ring_base(gen, pg);
            atomic_store_explicit(&cm_seg_ringctl(job->seg, (uint32_t)p, (uint32_t)s)->rpos, base,
                                  memory_order_relaxed);
            atomic_store_explicit(&cm_seg_ringctl(job->seg, (uint32_t)s, (uint32_t)p)->rpos, base,
                                  memory_order_relaxed);
            if (p != s)
                punch(job, h->ring_off + ((uint64_t)p * h->nranks + (uint64_t)s) * h->ring_bytes, h->ring_bytes);
        }
        punch(job, h->ring_off + (uint64_t)s * h->nranks * h->ring_bytes, (uint64_t)h->nranks * h->ring_bytes);
        atomic_store_explicit(&c->gen, gen, memory_order_release);
    }
    if (reused)
        atomic_fetch_add_explicit(&h->reuse_epoch, 1, memory_order_release);
}
