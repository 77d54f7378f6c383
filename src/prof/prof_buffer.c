/*
 * prof_buffer.c -- the per-thread double buffers (seed 004): a thread fills one
 * half while the writer thread write()s the other to the trace file.  Every
 * thread that records gets its own pair of halves, registered under the lock
 * on its first record (the record path itself takes no lock); the one writer
 * drains the full halves of all threads, oldest hand-over first, each as an
 * EVENTS block that names its thread (cpt_format.h).  A thread that exits
 * hands over its partial half; its buffer stays on the list until the end.  When a half
 * fills, it is handed over and the program continues in the other half; only if
 * that one is still being written does the program wait (counted, and recorded
 * in the flush event).
 *
 * Each half has room for a block header in front of its records, so a block
 * goes out in one write(): a killed rank leaves only whole blocks (plus at most
 * one torn tail the reader recognises).  The file descriptor has one owner at a
 * time (fd_owner), so that the crash handler never interleaves with the writer.
 *
 * Summary mode (COREPROF_MODE=summary) uses one small half and no writer: a
 * full half is folded into the statistics table (prof_summary.c) on the spot
 * and refilled; the table is written when the buffer stops.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "prof_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { HALF_FREE = 0, HALF_FILLING = 1, HALF_FULL = 2, HALF_WRITING = 3 };
enum { OWNER_NONE = 0, OWNER_NORMAL = 1, OWNER_CRASH = 2 };

typedef struct half {
    unsigned char *mem;        /* block header room + records */
    cpt_event *rec;
    _Atomic int state;
    uint32_t n;                /* records when handed over */
    uint64_t order;            /* hand-over number: the writer keeps this order */
} half_t;

/* One thread's buffer.  `fill` points at the owner's thread-local fill
 * pointers while it lives (others read them only at the end, in
 * cm_prof_buffer_stop, and in the crash handler); NULL once it has exited. */
typedef struct tbuf {
    half_t halves[2];
    int cur;                   /* index of the half being filled */
    uint32_t thread;           /* 0: the thread that started the profiler, then 1, 2... */
    cm_prof_fill_t *fill;
    struct tbuf *next;
} tbuf_t;

uint64_t cm_prof_dropped;

#define SUMMARY_HALF_RECORDS 4096   /* summary mode: records between two absorptions */
static int summary_mode, running, stopped;
static uint64_t n_summarised;

static int fd = -1;
static _Atomic int fd_owner;
static uint32_t next_seq;      /* block sequence number, advanced by the fd owner */
static tbuf_t *_Atomic threads; /* every registered buffer, newest first (pushed under mu) */
static uint32_t n_threads;
static __thread tbuf_t *mine;  /* this thread's buffer, once registered */
static __thread cpt_event sink; /* records of a thread without a buffer go here (lost) */
static size_t capacity;        /* records per half */
static uint64_t handovers;
static pthread_t writer;
static int writer_running;
static pthread_key_t exit_key; /* its destructor hands over an exiting thread's records */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int stopping;
static uint64_t n_records_flushed, n_flushes, n_waits, wait_ns;
static int write_failed;

static int write_all(const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Caller owns the fd. */
static int emit_block(void *block, uint32_t kind, uint32_t count, uint32_t payload_bytes)
{
    cpt_block_header h;
    h.magic = CPT_BLOCK_MAGIC;
    h.kind = kind;
    h.seq = next_seq++;
    h.count = count;
    h.payload_bytes = payload_bytes;
    h.checksum = cpt_checksum((unsigned char *)block + sizeof h, payload_bytes);
    memcpy(block, &h, sizeof h);
    if (fd < 0 || write_all(block, sizeof h + payload_bytes) != 0) {
        if (!write_failed++)
            fprintf(stderr, "coreprof: rank %d: writing the trace failed: %s (records are lost)\n",
                    cm_prof_state.rank, strerror(errno));
        return -1;
    }
    return 0;
}

static int own_fd(int who)
{
    int expect = OWNER_NONE;
    return atomic_compare_exchange_strong(&fd_owner, &expect, who);
}

int cm_prof_out_block(void *block, uint32_t kind, uint32_t count, uint32_t payload_bytes)
{
    if (!own_fd(OWNER_NORMAL)) return -1;      /* a crash handler has the file */
    int rc = emit_block(block, kind, count, payload_bytes);
    atomic_store(&fd_owner, OWNER_NONE);
    return rc;
}

int cm_prof_out_open(const char *path, const cpt_file_header *h)
{
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "coreprof: cannot create %s: %s (profiling disabled)\n", path, strerror(errno));
        return -1;
    }
    next_seq = 0;
    if (write_all(h, sizeof *h) != 0) {
        fprintf(stderr, "coreprof: cannot write %s: %s (profiling disabled)\n", path, strerror(errno));
        close(fd);
        fd = -1;
        return -1;
    }
    return 0;
}

void cm_prof_out_close(void)
{
    if (fd >= 0 && own_fd(OWNER_NORMAL)) {
        close(fd);
        fd = -1;
        atomic_store(&fd_owner, OWNER_NONE);
    }
}

/* Under mu (or in the crash handler): the full half handed over first, of any thread. */
static half_t *oldest_full(tbuf_t **owner)
{
    half_t *best = NULL;
    for (tbuf_t *t = atomic_load(&threads); t; t = t->next)
        for (int i = 0; i < 2; i++)
            if (atomic_load(&t->halves[i].state) == HALF_FULL && (!best || t->halves[i].order < best->order)) {
                best = &t->halves[i];
                *owner = t;
            }
    return best;
}

static int emit_events(tbuf_t *t, half_t *h, uint32_t n)
{
    return emit_block(h->mem, CPT_BLOCK_EVENTS | t->thread << CPT_BLOCK_THREAD_SHIFT, n,
                      n * (uint32_t)sizeof(cpt_event));
}

/* Under mu: write the oldest full half, unless none is full or the file is
 * busy (another thread writing, or a crash handler's).  Called by the writer
 * and by a thread that finds its other half still full: with every core
 * spinning in MPI the writer (SCHED_IDLE) may get no time, and the thread
 * would wait for it for ever.  A thread has at most one full half, so its
 * halves reach the file in its own order whoever writes them. */
static int write_oldest(void)
{
    tbuf_t *t = NULL;
    half_t *h = oldest_full(&t);
    if (!h || !own_fd(OWNER_NORMAL)) return 0;
    atomic_store(&h->state, HALF_WRITING);
    uint32_t n = h->n;
    pthread_mutex_unlock(&mu);
    emit_events(t, h, n);
    /* FREE before giving up the fd: a crash handler that gets the fd then
     * knows this half is already in the file. */
    atomic_store(&h->state, HALF_FREE);
    atomic_store(&fd_owner, OWNER_NONE);
    pthread_mutex_lock(&mu);
    n_records_flushed += n;
    n_flushes++;
    pthread_cond_broadcast(&done);
    return 1;
}

static void *writer_main(void *arg)
{
    (void)arg;
    /* The ranks usually have every core busy: the writer takes what they
     * leave idle instead of preempting them (a half takes ~50 ms to fill at
     * 400k records/s, its write() well under a millisecond, so it keeps up;
     * if it did not, the program writes the half itself, see write_oldest,
     * and says so in the flush event).  SCHED_IDLE needs no privilege; nice
     * 19 where it is refused. */
    struct sched_param idle = { 0 };
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) != 0)
        (void)setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
    pthread_mutex_lock(&mu);
    for (;;) {
        tbuf_t *t = NULL;
        while (!oldest_full(&t) && !stopping) pthread_cond_wait(&work, &mu);
        if (!oldest_full(&t) || atomic_load(&fd_owner) == OWNER_CRASH) break;
        if (!write_oldest()) {            /* the file is busy: look again in a moment */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 1000000;
            if (until.tv_nsec >= 1000000000) { until.tv_sec++; until.tv_nsec -= 1000000000; }
            pthread_cond_timedwait(&done, &mu, &until);
        }
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static int alloc_half(half_t *h)
{
    /* aligned_alloc wants a size that is a multiple of the alignment (C11;
     * AddressSanitizer refuses anything else). */
    size_t sz = sizeof(cpt_block_header) + capacity * sizeof(cpt_event);
    h->mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
    if (!h->mem) return -1;
    memset(h->mem, 0, sz);                /* touch the pages now, not on the hot path */
    h->rec = (cpt_event *)(h->mem + sizeof(cpt_block_header));
    atomic_store(&h->state, HALF_FREE);
    return 0;
}

static void fill_from(half_t *h)
{
    cm_prof_fill.cur = h->rec;
    cm_prof_fill.end = h->rec + capacity;
}

/* The calling thread's buffer, under mu: its first half (summary mode: its only one). */
static int register_thread(void)
{
    tbuf_t *t = calloc(1, sizeof *t);
    if (!t || alloc_half(&t->halves[0]) != 0 || (!summary_mode && alloc_half(&t->halves[1]) != 0)) {
        if (t) free(t->halves[0].mem);
        free(t);
        if (n_threads == 0)
            fprintf(stderr, "coreprof: out of memory for trace buffers (profiling disabled)\n");
        return -1;
    }
    t->thread = n_threads++;
    t->fill = &cm_prof_fill;
    atomic_store(&t->halves[0].state, HALF_FILLING);
    t->next = atomic_load(&threads);
    atomic_store(&threads, t);       /* whole before it is visible to the crash handler */
    mine = t;
    cm_prof_fold_end();
    fill_from(&t->halves[0]);
    if (t->thread > 0) pthread_setspecific(exit_key, t);
    return 0;
}

static void thread_exit(void *arg);

int cm_prof_buffer_start(size_t half_bytes, int mode)
{
    summary_mode = mode == CPT_MODE_SUMMARY;
    capacity = summary_mode ? SUMMARY_HALF_RECORDS : half_bytes / sizeof(cpt_event);
    if (capacity < 16) capacity = 16;
    if (capacity > CPT_MAX_BLOCK_PAYLOAD / sizeof(cpt_event)) capacity = CPT_MAX_BLOCK_PAYLOAD / sizeof(cpt_event);
    if (pthread_key_create(&exit_key, thread_exit) != 0) {
        fprintf(stderr, "coreprof: cannot create a thread key (profiling disabled)\n");
        return -1;
    }
    pthread_mutex_lock(&mu);
    int rc = register_thread();
    pthread_mutex_unlock(&mu);
    if (rc != 0) return -1;
    running = 1;
    if (summary_mode) return 0;
    stopping = 0;
    /* The writer blocks all signals: SIGTERM & co. must run the crash flush in a
     * program thread, never in the writer while it holds the file. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&writer, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err != 0) {
        fprintf(stderr, "coreprof: cannot start the writer thread (profiling disabled)\n");
        running = 0;
        return -1;
    }
    writer_running = 1;
    return 0;
}

/* Summary mode, under mu: fold t's records into the table and empty its half. */
static void absorb(tbuf_t *t)
{
    half_t *h = &t->halves[0];
    size_t n = (size_t)(t->fill->cur - h->rec);
    cm_prof_summary_absorb(h->rec, n);
    n_summarised += n;
    t->fill->cur = h->rec;
}

/* Under mu: hand t's current half to the writer; returns the time waited for
 * the other one (take_next: t's thread continues in it). */
static uint64_t hand_over_locked(tbuf_t *t, int take_next)
{
    half_t *h = &t->halves[t->cur];
    half_t *o = &t->halves[1 - t->cur];
    uint64_t waited = 0;
    h->n = (uint32_t)(t->fill->cur - h->rec);
    h->order = handovers++;
    atomic_store(&h->state, h->n ? HALF_FULL : HALF_FREE);
    pthread_cond_signal(&work);
    if (take_next) {
        if (atomic_load(&o->state) != HALF_FREE) {
            uint64_t t0 = cm_prof_monotonic_ns();
            n_waits++;
            while (atomic_load(&o->state) != HALF_FREE)
                if (!write_oldest()) pthread_cond_wait(&done, &mu);
            waited = cm_prof_monotonic_ns() - t0;
            wait_ns += waited;
        }
        atomic_store(&o->state, HALF_FILLING);
        t->cur = 1 - t->cur;
        fill_from(o);
    }
    return waited;
}

/* A record with nowhere to go (no buffer, or after the end): into the sink. */
static cpt_event *no_buffer(void)
{
    __atomic_fetch_add(&cm_prof_dropped, 1, __ATOMIC_RELAXED);
    cm_prof_fill.cur = &sink;
    cm_prof_fill.end = &sink + 1;
    return &sink;
}

cpt_event *cm_prof_switch_half(void)
{
    cm_prof_fold_end();             /* the full half is no longer ours to change */
    tbuf_t *t = mine;
    if (!t || t->fill == NULL) {
        if (cm_prof_fill.cur == &sink + 1) return no_buffer();
        pthread_mutex_lock(&mu);
        int rc = running && !stopped && !t ? register_thread() : -1;
        pthread_mutex_unlock(&mu);
        return rc == 0 ? cm_prof_fill.cur : no_buffer();
    }
    if (summary_mode) {
        pthread_mutex_lock(&mu);
        absorb(t);
        pthread_mutex_unlock(&mu);
        return cm_prof_fill.cur;
    }
    uint64_t now = cm_prof_now();
    uint64_t bytes = (uint64_t)(cm_prof_fill.cur - t->halves[t->cur].rec) * sizeof(cpt_event);
    pthread_mutex_lock(&mu);
    uint64_t number = handovers;
    uint64_t waited = hand_over_locked(t, 1);
    pthread_mutex_unlock(&mu);
    /* the flush is itself an event, first in the new half */
    cpt_event *e = cm_prof_fill.cur;
    memset(e, 0, sizeof *e);
    e->start_ns = now;
    e->duration_ns = waited > UINT32_MAX ? UINT32_MAX : (uint32_t)waited;
    e->call = CPT_CALL_FLUSH;
    e->flags = waited ? CPT_F_FLUSH_WAITED : 0;
    e->peer = CPT_PEER_NONE;
    e->tag = (int32_t)number;
    e->bytes = bytes;
    cm_prof_fill.cur = e + 1;
    return cm_prof_fill.cur;
}

/* Under mu: t's thread records no more; what it has goes out. */
static void retire(tbuf_t *t)
{
    if (!t->fill) return;
    if (summary_mode)
        absorb(t);
    else
        hand_over_locked(t, 0);
    t->fill->cur = t->fill->end = NULL;
    t->fill = NULL;
}

/* pthread key destructor: the thread exits, its thread-local fill pointers
 * with it (they are still readable here). */
static void thread_exit(void *arg)
{
    pthread_mutex_lock(&mu);
    retire(arg);
    pthread_mutex_unlock(&mu);
}

void cm_prof_buffer_stop(void)
{
    cm_prof_fold_end();
    if (!running) return;
    pthread_mutex_lock(&mu);
    stopped = 1;
    running = 0;
    /* threads still alive: MPI_Finalize waits for their MPI calls to end (the
     * standard requires it), so none is recording now */
    for (tbuf_t *t = atomic_load(&threads); t; t = t->next) retire(t);
    stopping = 1;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&mu);
    if (summary_mode) {
        cm_prof_summary_write();
        return;
    }
    if (!writer_running) return;
    pthread_join(writer, NULL);
    writer_running = 0;
}

void cm_prof_buffer_counters(cm_prof_counters_t *c)
{
    pthread_mutex_lock(&mu);
    c->records = n_records_flushed + n_summarised;
    c->flushes = n_flushes;
    c->flush_waits = n_waits;
    c->dropped = __atomic_load_n(&cm_prof_dropped, __ATOMIC_RELAXED);
    c->wait_ns = wait_ns;
    pthread_mutex_unlock(&mu);
}

/* From a signal handler: no locks, no malloc.  Waits a little for the writer to
 * finish a block in progress, then writes what is still only in memory. */
void cm_prof_buffer_crash_flush(void)
{
    /* summary mode: the table may need malloc to take the last records, which a
     * signal handler must not call; such a file has no SUMMARY block */
    if (summary_mode) return;
    if (fd < 0 || !atomic_load(&threads)) return;
    int got = 0;
    for (int i = 0; i < 2000 && !(got = own_fd(OWNER_CRASH)); i++) {
        if (atomic_load(&fd_owner) == OWNER_CRASH) return;     /* another handler is at it */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (!got) return;
    /* full halves the writer had not written yet, oldest first */
    half_t *h;
    tbuf_t *t = NULL;
    while ((h = oldest_full(&t))) {
        emit_events(t, h, h->n);
        atomic_store(&h->state, HALF_FREE);
    }
    /* then what each live thread is filling (best effort for the others:
     * they may be adding a record as we read) */
    for (t = atomic_load(&threads); t; t = t->next) {
        h = &t->halves[t->cur];
        cm_prof_fill_t *f = t->fill;
        if (!f || !f->cur || atomic_load(&h->state) != HALF_FILLING) continue;
        uint32_t n = (uint32_t)(f->cur - h->rec);
        if (n && n <= capacity) emit_events(t, h, n);
        f->cur = h->rec;   /* a second signal must not write it again */
    }
    /* keep the fd owned: nothing may append after a crash flush */
}
