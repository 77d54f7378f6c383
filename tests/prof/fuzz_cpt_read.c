/*
 * fuzz_cpt_read.c -- libFuzzer target: the .cpt reader and, on what it accepts,
 * coreprof's analysis (model, message matching, statistics, matrices, summary).
 *
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc/prof -Itools/coreprof \
 *          tests/prof/fuzz_cpt_read.c src/prof/cpt_read.c tools/coreprof/{trace_dir,trace_load,agg,msg_match,
 *          call_stats,comm_matrix,fmt_units}.c
 * Without clang, tests/prof/test_report_replay.c provides main() and replays a corpus.
 * Call-site resolution is left out on purpose: it opens the object paths the
 * input names, which is the file system, not the parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpt_read.h"
#include "report.h"

static FILE *devnull(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

/* Touch everything the reader returned, as a consumer would. */
static void walk_trace(const cpt_trace *t)
{
    volatile uint64_t sink = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const cpt_event *e = &t->events[i];
        sink += strlen(cpt_call_name(t, e->call));
        const cpt_comm *c = cpt_find_comm(t, e->comm);
        if (c) for (int32_t k = 0; k < c->size + c->remote_size; k++) sink += (uint32_t)c->world_ranks[k];
        uint64_t rel;
        const cpt_object *o = cpt_find_object(t, e->caller, &rel);
        if (o) sink += strlen(o->path) + rel;
#ifdef CP_FUZZ_GLOBAL_NS
        /* cpt_global_ns adds in int64_t: a file with start_ns near 2^63 and a large
         * clock offset overflows (UBSan).  coreprof does not use it; off by default
         * so that the fuzzer gets past it; -DCP_FUZZ_GLOBAL_NS to reproduce. */
        sink += (uint64_t)cpt_global_ns(t, e);
#endif
    }
    for (size_t i = 0; i < t->n_objects; i++) sink += strlen(t->objects[i].path);
    for (size_t i = 0; i < t->affinity_bytes; i++) sink += t->affinity[i];
    sink += strlen(t->error) + strlen(t->hostname);
    (void)sink;
}

/* Checksums stop almost every mutation at the first block; a second pass on a
 * copy with the header and block checksums recomputed lets the fuzzer reach the
 * metadata and event parsers (and coreprof's analysis) behind them. */
static uint8_t *fix_checksums(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (!p) return NULL;
    memcpy(p, data, size);
    if (size < CPT_FILE_HEADER_SIZE) return p;
    uint32_t h = cpt_checksum(p, CPT_FILE_HEADER_SIZE - 4);
    memcpy(p + CPT_FILE_HEADER_SIZE - 4, &h, 4);
    size_t off = CPT_FILE_HEADER_SIZE;
    while (size - off >= sizeof(cpt_block_header)) {
        cpt_block_header b;
        memcpy(&b, p + off, sizeof b);
        size_t pay = off + sizeof b;
        if (b.payload_bytes > size - pay) break;
        b.checksum = cpt_checksum(p + pay, b.payload_bytes);
        memcpy(p + off, &b, sizeof b);
        off = pay + b.payload_bytes;
    }
    return p;
}

static void run_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run_one(data, size);
    uint8_t *fixed = fix_checksums(data, size);
    if (fixed) run_one(fixed, size);
    free(fixed);
    return 0;
}

static void run_one(const uint8_t *data, size_t size)
{
    /* rank files of a job share one format: the input is read as every rank of a
     * world of its own size (capped), which exercises cross-rank matching too */
    cpt_trace probe;
    int rc = cpt_read_buffer(data, size, "fuzz.cpt", &probe);
    walk_trace(&probe);
    int n = rc == 0 && probe.header.world_size > 0 && probe.header.world_size <= 4 ? probe.header.world_size : 1;
    cpt_trace_free(&probe);
    if (rc != 0) return;

    cpt_trace *raw = calloc((size_t)n, sizeof *raw);
    if (!raw) return;
    for (int r = 0; r < n; r++) cpt_read_buffer(data, size, "fuzz.cpt", &raw[r]);
    cp_trace tr;
    if (cp_trace_build(&tr, "fuzz", raw, n, devnull()) == 0) {
        cp_match_messages(&tr);
        cp_stats st;
        cp_stats_compute(&tr, &st);
        cp_write_summary(&tr, &st, devnull());
        cp_matrices m;
        if (cp_matrices_build(&tr, &m) == 0) cp_matrices_free(&m);
        else cp_matrices_free(&m);
        cp_stats_free(&st);
    }
    cp_trace_free(&tr);
}
