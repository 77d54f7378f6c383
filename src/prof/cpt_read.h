/*
 * cpt_read.h -- read one coreprof trace file (.cpt) or a directory of them.
 *
 * The reader never trusts the file: a missing, truncated or corrupted file gives
 * a message naming the file and the byte offset, never a crash.  Whole blocks
 * before the first damaged one are kept; such a trace is "incomplete", as is a
 * trace without the end marker (the rank crashed or was killed).
 *
 * Usage:
 *   cpt_trace t;
 *   if (cpt_read_file("dir/0.cpt", &t) != 0) { fprintf(stderr, "%s\n", t.error); ... }
 *   if (!t.complete) fprintf(stderr, "warning: %s\n", t.error);
 *   for (size_t i = 0; i < t.n_events; i++) ... t.events[i] ...
 *   cpt_trace_free(&t);
 */
#ifndef CPT_READ_H
#define CPT_READ_H

#include <stddef.h>
#include <stdint.h>
#include "cpt_format.h"

typedef struct cpt_object {      /* one mapping from /proc/self/maps */
    uint64_t start, end, file_offset;
    char *path;
} cpt_object;

typedef struct cpt_comm {        /* profiler communicator id -> members' world ranks */
    uint32_t id;
    int32_t size;                /* local group size */
    int32_t remote_size;         /* 0 for an intracommunicator */
    int32_t *world_ranks;        /* size + remote_size entries: local group, then remote group */
} cpt_comm;

typedef struct cpt_counters {
    uint64_t records, flushes, flush_waits, dropped, wait_ns;
} cpt_counters;

typedef struct cpt_trace {
    char path[512];
    cpt_file_header header;

    cpt_event *events;           /* all events of all whole blocks, in file order (cpt_read_*);
                                    with several threads, merged into start-time order */
    size_t n_events;
    size_t n_event_blocks;
    uint32_t n_threads;          /* 1 + the highest thread number of an EVENTS block */
    cpt_summary_entry *summary;  /* summary-mode files: the SUMMARY entries (cpt_read_*) */
    size_t n_summary;

    int complete;                /* 1: end marker seen and no damage */
    char error[1200];             /* why it is incomplete / why reading failed; "" if complete */
    uint64_t error_offset;       /* byte offset of the problem */

    /* metadata (from the last META block that had each section) */
    int have_meta;               /* at least one META block */
    int have_final_meta;         /* the Finalize META block was read */
    int have_clock;
    int64_t clock_offset_ns;     /* rank 0 time = local start_ns + clock_offset_ns */
    uint64_t clock_rtt_ns;
    int cpu;                     /* -1 unknown */
    unsigned char *affinity;     /* cpu_set_t bits */
    size_t affinity_bytes;
    char hostname[256];
    int64_t pid;                 /* -1 unknown */
    cpt_object *objects;
    size_t n_objects;
    char **call_names;           /* indexed by call id; NULL where unknown */
    size_t n_call_names;         /* array length */
    cpt_comm *comms;
    size_t n_comms;
    int have_counters;
    cpt_counters counters;
    int have_run;
    uint64_t init_ns, finalize_ns;  /* local clock: MPI_Init entry, MPI_Finalize exit (0 = none) */
} cpt_trace;

/* Read a whole file.  Returns 0 if the header was valid (events may still be
 * partial: check t->complete), -1 if nothing usable could be read (t->error says
 * why).  Always call cpt_trace_free afterwards, also after -1. */
int cpt_read_file(const char *path, cpt_trace *t);

/* The same on a buffer already in memory (used by the fuzzer); `name` is used in messages. */
int cpt_read_buffer(const void *data, size_t size, const char *name, cpt_trace *t);

void cpt_trace_free(cpt_trace *t);

/* Streaming: one block at a time, in bounded memory (the largest block), for
 * traces too big to hold.  META blocks are parsed into the cpt_trace as they
 * pass; EVENTS and SUMMARY blocks are handed out (their payload is valid until
 * the next call).  At the end (0 returned) t->complete / t->error say how the
 * file ended, as for cpt_read_file.  Events and summary entries are not kept
 * in the cpt_trace.
 *
 *   cpt_stream s; cpt_trace t; cpt_block b;
 *   if (cpt_stream_open(&s, path, &t) == 0)
 *       while (cpt_stream_next(&s, &b)) ... b.payload, b.count ...
 *   cpt_stream_close(&s); ... cpt_trace_free(&t);                             */
typedef struct cpt_block {
    uint32_t kind;               /* CPT_BLOCK_EVENTS or CPT_BLOCK_SUMMARY */
    uint32_t count;              /* records / entries */
    const void *payload;
    uint64_t offset;             /* of the block header in the file */
    uint32_t thread;             /* EVENTS: the rank's thread that recorded them (0: MPI_Init's) */
} cpt_block;

typedef struct cpt_stream {
    cpt_trace *t;
    int fd;                      /* -1: reading from memory */
    const unsigned char *mem;
    uint64_t size, off;          /* file size, bytes consumed */
    uint32_t expect_seq;
    size_t events_seen;
    unsigned char *buf;
    size_t cap;
    int done;
} cpt_stream;

int  cpt_stream_open(cpt_stream *s, const char *path, cpt_trace *t);   /* 0, or -1 (t->error) */
int  cpt_stream_open_buffer(cpt_stream *s, const void *data, size_t size, const char *name, cpt_trace *t);
int  cpt_stream_next(cpt_stream *s, cpt_block *b);                    /* 1: a block; 0: the end */
void cpt_stream_close(cpt_stream *s);                                 /* always, also after -1 */

/* "MPI_Send", "flush", or "call#<id>" (in a static buffer per call: copy it if kept). */
const char *cpt_call_name(const cpt_trace *t, unsigned call);

/* NULL if the id is not in the table (e.g. incomplete trace). */
const cpt_comm *cpt_find_comm(const cpt_trace *t, uint32_t comm_id);

/* Time of an event on rank 0's timeline (local time if no clock offset is known). */
static inline int64_t cpt_global_ns(const cpt_trace *t, const cpt_event *e)
{
    /* Unsigned arithmetic: a corrupted offset must wrap, not overflow. */
    return (int64_t)(e->start_ns + (uint64_t)(t->have_clock ? t->clock_offset_ns : 0));
}

/* Resolve a return address to an object; returns NULL if none. *rel gets the
 * address relative to the object's file (what addr2line wants). */
const cpt_object *cpt_find_object(const cpt_trace *t, uint64_t addr, uint64_t *rel);

/* Read DIR/0.cpt .. DIR/<n-1>.cpt where n is the world size found in the first
 * readable file (or the number of *.cpt files).  *traces gets an array of *n
 * traces (missing files have t.error set and n_events 0).  Returns 0 if at least
 * one file was read, -1 otherwise with a message in err. */
int cpt_read_dir(const char *dir, cpt_trace **traces, int *n, char *err, size_t errlen);
void cpt_free_dir(cpt_trace *traces, int n);

#endif /* CPT_READ_H */
