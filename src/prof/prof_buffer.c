/*
 * prof_buffer.c -- the per-rank double buffer (seed 004): the program fills one
 * half while a writer thread write()s the other to the trace file.  When a half
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

enum { HALF_FREE = 0, HALF_FILLING = 1, HALF_FULL = 2 };
enum { OWNER_NONE = 0, OWNER_NORMAL = 1, OWNER_CRASH = 2 };

typedef struct half {
    unsigned char *mem;        /* block header room + records */
    cpt_event *rec;
    _Atomic int state;
    uint32_t n;                /* records when handed over */
    uint64_t order;            /* hand-over number: the writer keeps this order */
} half_t;

cm_prof_fill_t cm_prof_fill;
cm_prof_fold_t cm_prof_fold;
uint64_t cm_prof_dropped;

#define SUMMARY_HALF_RECORDS 4096   /* summary mode: records between two absorptions */
static int summary_mode, summary_running;
static uint64_t n_summarised;

static int fd = -1;
static _Atomic int fd_owner;
static uint32_t next_seq;      /* block sequence number, advanced by the fd owner */
static half_t halves[2];
static int cur;                /* index of the half being filled */
static size_t capacity;        /* records per half */
static uint64_t handovers;
static pthread_t writer;
static int writer_running;
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

static half_t *oldest_full(void)
{
    half_t *best = NULL;
    for (int i = 0; i < 2; i++)
        if (atomic_load(&halves[i].state) == HALF_FULL && (!best || halves[i].order < best->order))
            best = &halves[i];
    return best;
}

static void *writer_main(void *arg)
{
    (void)arg;
    /* The ranks usually have every core busy: the writer takes what they
     * leave idle instead of preempting them (a half takes ~50 ms to fill at
     * 400k records/s, its write() well under a millisecond, so it keeps up;
     * if it did not, the program would wait for it, and say so in the flush
     * event).  SCHED_IDLE needs no privilege; nice 19 where it is refused. */
    struct sched_param idle = { 0 };
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) != 0)
        (void)setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
    pthread_mutex_lock(&mu);
    for (;;) {
        half_t *h;
        while (!(h = oldest_full()) && !stopping) pthread_cond_wait(&work, &mu);
        if (!h) break;
        uint32_t n = h->n;
        pthread_mutex_unlock(&mu);
        if (!own_fd(OWNER_NORMAL)) {       /* crashing: the handler writes what is left */
            pthread_mutex_lock(&mu);
            break;
        }
        emit_block(h->mem, CPT_BLOCK_EVENTS, n, n * (uint32_t)sizeof(cpt_event));
        /* FREE before giving up the fd: a crash handler that gets the fd then
         * knows this half is already in the file. */
        atomic_store(&h->state, HALF_FREE);
        atomic_store(&fd_owner, OWNER_NONE);
        pthread_mutex_lock(&mu);
        n_records_flushed += n;
        n_flushes++;
        pthread_cond_broadcast(&done);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static int summary_start(void)
{
    capacity = SUMMARY_HALF_RECORDS;
    /* aligned_alloc wants a size that is a multiple of the alignment (C11;
     * AddressSanitizer refuses anything else). */
    size_t bytes = (sizeof(cpt_block_header) + capacity * sizeof(cpt_event) + 63) & ~(size_t)63;
    halves[0].mem = aligned_alloc(64, bytes);
    if (!halves[0].mem) {
        fprintf(stderr, "coreprof: out of memory for the summary buffer (profiling disabled)\n");
        return -1;
    }
    halves[0].rec = (cpt_event *)(halves[0].mem + sizeof(cpt_block_header));
    cur = 0;
    cm_prof_fold_end();
    cm_prof_fill.cur = halves[0].rec;
    cm_prof_fill.end = halves[0].rec + capacity;
    summary_running = 1;
    return 0;
}

int cm_prof_buffer_start(size_t half_bytes, int mode)
{
    summary_mode = mode == CPT_MODE_SUMMARY;
    if (summary_mode) return summary_start();
    capacity = half_bytes / sizeof(cpt_event);
    if (capacity < 16) capacity = 16;
    if (capacity > CPT_MAX_BLOCK_PAYLOAD / sizeof(cpt_event)) capacity = CPT_MAX_BLOCK_PAYLOAD / sizeof(cpt_event);
    for (int i = 0; i < 2; i++) {
        size_t sz = sizeof(cpt_block_header) + capacity * sizeof(cpt_event);
        halves[i].mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
        if (!halves[i].mem) {
            fprintf(stderr, "coreprof: out of memory for trace buffers (profiling disabled)\n");
            return -1;
        }
        memset(halves[i].mem, 0, sz);                /* touch the pages now, not on the hot path */
        halves[i].rec = (cpt_event *)(halves[i].mem + sizeof(cpt_block_header));
        atomic_store(&halves[i].state, HALF_FREE);
    }
    cur = 0;
    atomic_store(&halves[0].state, HALF_FILLING);
    cm_prof_fill.cur = halves[0].rec;
    cm_prof_fill.end = halves[0].rec + capacity;
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
        return -1;
    }
    writer_running = 1;
    return 0;
}

/* Hand the current half to the writer; returns the time waited for the other one. */
static uint64_t hand_over(int take_next)
{
    half_t *h = &halves[cur];
    half_t *o = &halves[1 - cur];
    uint64_t waited = 0;
    pthread_mutex_lock(&mu);
    h->n = (uint32_t)(cm_prof_fill.cur - h->rec);
    h->order = handovers++;
    atomic_store(&h->state, h->n ? HALF_FULL : HALF_FREE);
    pthread_cond_signal(&work);
    if (take_next) {
        if (atomic_load(&o->state) != HALF_FREE) {
            uint64_t t = cm_prof_monotonic_ns();
            n_waits++;
            while (atomic_load(&o->state) != HALF_FREE) pthread_cond_wait(&done, &mu);
            waited = cm_prof_monotonic_ns() - t;
            wait_ns += waited;
        }
        atomic_store(&o->state, HALF_FILLING);
    }
    pthread_mutex_unlock(&mu);
    if (take_next) {
        cur = 1 - cur;
        cm_prof_fill.cur = o->rec;
        cm_prof_fill.end = o->rec + capacity;
    }
    return waited;
}

cpt_event *cm_prof_switch_half(void)
{
    cm_prof_fold_end();             /* the full half is no longer ours to change */
    if (summary_mode) {
        size_t n = (size_t)(cm_prof_fill.cur - halves[0].rec);
        cm_prof_summary_absorb(halves[0].rec, n);
        n_summarised += n;
        cm_prof_fill.cur = halves[0].rec;
        return cm_prof_fill.cur;
    }
    uint64_t t = cm_prof_now();
    uint64_t bytes = (uint64_t)(cm_prof_fill.cur - halves[cur].rec) * sizeof(cpt_event);
    uint64_t number = handovers;
    uint64_t waited = hand_over(1);
    /* the flush is itself an event, first in the new half */
    cpt_event *e = cm_prof_fill.cur;
    memset(e, 0, sizeof *e);
    e->start_ns = t;
    e->duration_ns = waited > UINT32_MAX ? UINT32_MAX : (uint32_t)waited;
    e->call = CPT_CALL_FLUSH;
    e->flags = waited ? CPT_F_FLUSH_WAITED : 0;
    e->peer = CPT_PEER_NONE;
    e->tag = (int32_t)number;
    e->bytes = bytes;
    cm_prof_fill.cur = e + 1;
    return cm_prof_fill.cur;
}

void cm_prof_buffer_stop(void)
{
    cm_prof_fold_end();
    if (summary_running) {
        size_t n = (size_t)(cm_prof_fill.cur - halves[0].rec);
        cm_prof_summary_absorb(halves[0].rec, n);
        n_summarised += n;
        summary_running = 0;
        cm_prof_fill.cur = cm_prof_fill.end = NULL;
        cm_prof_summary_write();
        return;
    }
    if (!writer_running) return;
    hand_over(0);
    pthread_mutex_lock(&mu);
    stopping = 1;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&mu);
    pthread_join(writer, NULL);
    writer_running = 0;
    cm_prof_fill.cur = cm_prof_fill.end = NULL;
}

void cm_prof_buffer_counters(cm_prof_counters_t *c)
{
    pthread_mutex_lock(&mu);
    c->records = n_records_flushed + n_summarised;
    c->flushes = n_flushes;
    c->flush_waits = n_waits;
    c->dropped = cm_prof_dropped;
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
    if (fd < 0 || !halves[0].mem) return;
    int got = 0;
    for (int i = 0; i < 2000 && !(got = own_fd(OWNER_CRASH)); i++) {
        if (atomic_load(&fd_owner) == OWNER_CRASH) return;     /* another handler is at it */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (!got) return;
    /* full halves the writer had not written yet, oldest first */
    for (int pass = 0; pass < 2; pass++) {
        half_t *best = NULL;
        for (int i = 0; i < 2; i++)
            if (atomic_load(&halves[i].state) == HALF_FULL && (!best || halves[i].order < best->order))
                best = &halves[i];
        if (!best) break;
        emit_block(best->mem, CPT_BLOCK_EVENTS, best->n, best->n * (uint32_t)sizeof(cpt_event));
        atomic_store(&best->state, HALF_FREE);
    }
    half_t *h = &halves[cur];
    if (cm_prof_fill.cur && atomic_load(&h->state) == HALF_FILLING) {
        uint32_t n = (uint32_t)(cm_prof_fill.cur - h->rec);
        if (n) emit_block(h->mem, CPT_BLOCK_EVENTS, n, n * (uint32_t)sizeof(cpt_event));
        cm_prof_fill.cur = h->rec;   /* a second signal must not write it again */
    }
    /* keep the fd owned: nothing may append after a crash flush */
}
