/*
 * prof_summary.c -- COREPROF_MODE=summary: statistics instead of a trace.
 *
 * The records of the (small) buffer are folded into a table keyed by (call,
 * kind flags, communicator, peer, size class, call site) whenever the buffer
 * fills, in the program's thread, and the table is written as SUMMARY blocks
 * at MPI_Finalize.  The table grows with the number of distinct keys a program
 * uses, never with the number of calls: a run 10x longer writes the same file.
 * Keys beyond SUMMARY_MAX_ENTRIES are counted as dropped records.
 */
#include "prof_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_MAX_ENTRIES (1u << 20)   /* 64 MiB of entries: far beyond any real program */

static cpt_summary_entry *entries;    /* open addressing; calls == 0 marks a free slot */
static size_t cap, used;

static uint64_t key_hash(unsigned call, unsigned flags, unsigned bin, int32_t peer, uint32_t comm, uint64_t caller)
{
    uint64_t h = ((uint64_t)call << 32) ^ ((uint64_t)flags << 16) ^ bin;
    h = (h ^ ((uint64_t)(uint32_t)peer << 32 | comm)) * 0x9E3779B97F4A7C15ull;
    h = (h ^ caller) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int same_key(const cpt_summary_entry *s, unsigned call, unsigned flags, unsigned bin, int32_t peer,
                    uint32_t comm, uint64_t caller)
{
    return s->call == call && s->flags == flags && s->size_bin == bin && s->peer == peer && s->comm == comm &&
           s->caller == caller;
}

static int grow(void)
{
    size_t ncap = cap ? cap * 2 : 1024;
    cpt_summary_entry *a = calloc(ncap, sizeof *a);
    if (!a) return -1;
    for (size_t i = 0; i < cap; i++) {
        const cpt_summary_entry *s = &entries[i];
        if (!s->calls) continue;
        size_t k = key_hash(s->call, s->flags, s->size_bin, s->peer, s->comm, s->caller) & (ncap - 1);
        while (a[k].calls) k = (k + 1) & (ncap - 1);
        a[k] = *s;
    }
    free(entries);
    entries = a;
    cap = ncap;
    return 0;
}

static cpt_summary_entry *slot(unsigned call, unsigned flags, unsigned bin, int32_t peer, uint32_t comm,
                               uint64_t caller)
{
    if (used * 2 >= cap && (used >= SUMMARY_MAX_ENTRIES || grow() != 0)) {
        if (used + 1 >= cap) return NULL;     /* full (or no memory to grow): drop */
    }
    size_t k = key_hash(call, flags, bin, peer, comm, caller) & (cap - 1);
    for (;;) {
        cpt_summary_entry *s = &entries[k];
        if (!s->calls) {
            s->call = (uint16_t)call;
            s->flags = (uint16_t)flags;
            s->size_bin = (uint8_t)bin;
            s->peer = peer;
            s->comm = comm;
            s->caller = caller;
            s->min_ns = UINT64_MAX;
            used++;
            return s;
        }
        if (same_key(s, call, flags, bin, peer, comm, caller)) return s;
        k = (k + 1) & (cap - 1);
    }
}

void cm_prof_summary_absorb(const cpt_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const cpt_event *e = &ev[i];
        uint64_t calls, bytes, lo, hi;
        cpt_event_counts(e, &calls, &bytes, &lo, &hi);
        unsigned flags = e->flags & CPT_F_KIND_MASK;
        unsigned bin = cpt_size_bin(calls ? bytes / calls : 0);
        cpt_summary_entry *s = slot(e->call, flags, bin, e->peer, e->comm, e->caller);
        if (!s) { cm_prof_dropped += calls; continue; }
        s->calls += calls;
        s->total_ns += e->duration_ns;
        s->bytes += bytes;
        if (lo < s->min_ns) s->min_ns = lo;
        if (hi > s->max_ns) s->max_ns = hi;
    }
}

/* SUMMARY blocks at most CPT_MAX_BLOCK_PAYLOAD each; one write() per block. */
int cm_prof_summary_write(void)
{
    size_t per_block = CPT_MAX_BLOCK_PAYLOAD / sizeof(cpt_summary_entry);
    size_t n = used < per_block ? used : per_block;
    unsigned char *block = malloc(sizeof(cpt_block_header) + (n ? n : 1) * sizeof(cpt_summary_entry));
    if (!block) {
        fprintf(stderr, "coreprof: rank %d: out of memory writing the summary\n", cm_prof_state.rank);
        return -1;
    }
    cpt_summary_entry *out = (cpt_summary_entry *)(block + sizeof(cpt_block_header));
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i <= cap; i++) {
        if (i < cap && entries[i].calls) out[k++] = entries[i];
        if (k && (k == n || i == cap)) {
            if (cm_prof_out_block(block, CPT_BLOCK_SUMMARY, (uint32_t)k,
                                  (uint32_t)(k * sizeof(cpt_summary_entry))) != 0)
                rc = -1;
            k = 0;
        }
    }
    free(block);
    free(entries);
    entries = NULL;
    cap = used = 0;
    return rc;
}
