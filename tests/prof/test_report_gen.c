/*
 * test_report_gen.c -- writes synthetic .cpt traces of known patterns, so that
 * coreprof report can be tested without running an MPI job.
 *
 *   test_report_gen DIR NRANKS ITERS [--truncate R] [--corrupt R] [--missing R] [--garbage R]
 *                   [--polls K] [--big MB]
 *
 * Completion records carry the times of their Wait call, as FORMAT.md says.
 * Pattern per iteration on rank r (N ranks, next = r+1 mod N, prev = r-1 mod N):
 *   even iterations: Isend(next, 1000*(r+1) B, tag 7); Recv(ANY_SOURCE -> prev); Wait (send completion)
 *   odd iterations:  Irecv(ANY_SOURCE, ANY_TAG); Send(next); Wait (completion: source prev, tag 7)
 *   then Allreduce 8 B; with --polls K also one folded record of K empty Iprobes
 *   (CPT_F_FOLDED).  Once at the end: Sendrecv(next, prev) 512 B, tag 9; Bcast 4096 B from 0;
 *   Barrier.  MPI_Init first, MPI_Finalize last.
 * So the p2p matrix holds exactly [r][next] = (ITERS * 1000*(r+1) + 512) bytes and
 * ITERS + 1 messages.  Each rank's clock is skewed by r * 5 ms and the skew is
 * recorded as its clock offset: an analysis that ignored it would draw arrows
 * going back in time.  Return addresses are real addresses in this program and
 * the object table is this process's /proc/self/maps, so call sites resolve to
 * test_report_gen.c lines.
 *
 * --big MB: as many iterations as make about MB megabytes per rank (with
 * --polls 1000 unless given), written in blocks of 4096 records like a real
 * buffer half; prints "iterations=N" so that a test knows the exact counts.
 */
#define _GNU_SOURCE
#include "cpt_format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    C_INIT = 16, C_FINALIZE, C_SEND, C_RECV, C_ISEND, C_IRECV, C_WAIT, C_ALLREDUCE, C_BARRIER,
    C_SENDRECV, C_BCAST, C_IPROBE, C_LAST
};
static const char *call_names[] = {
    [C_INIT] = "MPI_Init", [C_FINALIZE] = "MPI_Finalize", [C_SEND] = "MPI_Send", [C_RECV] = "MPI_Recv",
    [C_ISEND] = "MPI_Isend", [C_IRECV] = "MPI_Irecv", [C_WAIT] = "MPI_Wait", [C_ALLREDUCE] = "MPI_Allreduce",
    [C_BARRIER] = "MPI_Barrier", [C_SENDRECV] = "MPI_Sendrecv", [C_BCAST] = "MPI_Bcast",
    [C_IPROBE] = "MPI_Iprobe",
};

typedef struct buf { unsigned char *p; size_t n, cap; } buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void pad8(buf *b) { static const char z[8]; put(b, z, CPT_ALIGN8(b->n) - b->n); }

static void section(buf *b, uint32_t type, const void *d, uint32_t len)
{
    cpt_meta_section s = { type, len };
    put(b, &s, sizeof s);
    put(b, d, len);
    pad8(b);
}

typedef struct writer {
    FILE *f;
    uint32_t seq;
    cpt_event ev[4097];
    int nev;
    int rank, nranks;
    int64_t skew;          /* local = global - skew */
    int block_records;     /* records per EVENTS block (a flush record is added) */
} writer;

static void block(writer *w, uint32_t kind, uint32_t count, const void *payload, uint32_t bytes)
{
    cpt_block_header h = { CPT_BLOCK_MAGIC, kind, w->seq++, count, bytes, cpt_checksum(payload, bytes) };
    fwrite(&h, sizeof h, 1, w->f);
    if (bytes) fwrite(payload, 1, bytes, w->f);
}

static void meta(writer *w, uint32_t phase)
{
    buf b = { 0 };
    uint32_t n = 0;
    int64_t clk[3] = { w->skew, 200, 0 };
    section(&b, CPT_META_CLOCK, clk, sizeof clk); n++;
    section(&b, CPT_META_HOST, "synthetic-host", 15); n++;
    int64_t pid = getpid();
    section(&b, CPT_META_PID, &pid, 8); n++;
    unsigned char bind[8 + 8] = { 0 };
    int32_t cpu = w->rank % 2;
    uint32_t mb = 8;
    memcpy(bind, &cpu, 4); memcpy(bind + 4, &mb, 4); bind[8] = (unsigned char)(1u << (w->rank % 8));
    section(&b, CPT_META_BINDING, bind, sizeof bind); n++;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long long lo, hi, off;
        char perm[8], path[3000] = "";
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %2999[^\n]", &lo, &hi, perm, &off, path) < 4) continue;
        if (perm[2] != 'x' || path[0] != '/') continue;
        unsigned char o[24 + 3000];
        uint64_t v[3] = { lo, hi, off };
        memcpy(o, v, 24);
        size_t pl = strlen(path) + 1;
        memcpy(o + 24, path, pl);
        section(&b, CPT_META_OBJECT, o, (uint32_t)(24 + pl)); n++;
    }
    if (maps) fclose(maps);
    for (int c = C_INIT; c < C_LAST; c++) {
        unsigned char d[64] = { 0 };
        uint16_t id = (uint16_t)c;
        memcpy(d, &id, 2);
        size_t l = strlen(call_names[c]) + 1;
        memcpy(d + 4, call_names[c], l);
        section(&b, CPT_META_CALLNAME, d, (uint32_t)(4 + l)); n++;
    }
    if (phase == CPT_PHASE_FINALIZE) {
        size_t sz = 12 + 4 * (size_t)w->nranks;
        unsigned char *d = calloc(1, sz);
        uint32_t id = CPT_COMM_WORLD;
        int32_t size = w->nranks, rs = 0;
        memcpy(d, &id, 4); memcpy(d + 4, &size, 4); memcpy(d + 8, &rs, 4);
        for (int32_t i = 0; i < w->nranks; i++) memcpy(d + 12 + 4 * i, &i, 4);
        section(&b, CPT_META_COMM, d, (uint32_t)sz); n++;
        free(d);
        uint64_t cnt[5] = { 0, w->seq, 0, 0, 0 };
        section(&b, CPT_META_COUNTERS, cnt, sizeof cnt); n++;
    }
    uint32_t ph[2] = { phase, 0 };
    section(&b, CPT_META_PHASE, ph, sizeof ph); n++;
    block(w, CPT_BLOCK_META, n, b.p, (uint32_t)b.n);
    free(b.p);
}

static void flush_events(writer *w, int64_t t_global)
{
    if (!w->nev) return;
    cpt_event fl = { .start_ns = (uint64_t)(t_global - w->skew), .bytes = (uint64_t)w->nev * 48,
                     .peer = -1, .tag = (int32_t)w->seq, .call = CPT_CALL_FLUSH };
    w->ev[w->nev++] = fl;
    block(w, CPT_BLOCK_EVENTS, (uint32_t)w->nev, w->ev, (uint32_t)(w->nev * sizeof(cpt_event)));
    w->nev = 0;
}

/* Records one event; `caller` is this function's return address: a real call site. */
static __attribute__((noinline)) void rec(writer *w, int call, int64_t t, uint32_t dur, int32_t peer, int32_t tag,
                                          uint64_t bytes, uint32_t req, uint16_t flags)
{
    cpt_event e = { .start_ns = (uint64_t)(t - w->skew), .bytes = bytes,
                    .caller = (uint64_t)(uintptr_t)__builtin_return_address(0), .duration_ns = dur,
                    .peer = peer, .tag = tag, .comm = (flags & (CPT_F_SEND | CPT_F_RECV | CPT_F_COLLECTIVE)) ? CPT_COMM_WORLD : 0,
                    .request = req, .call = (uint16_t)call, .flags = flags };
    w->ev[w->nev++] = e;
    if (w->nev >= w->block_records) flush_events(w, t + dur);
}

/* K empty Iprobes of 50..150 ns folded into one record, as libcoreprof writes them */
static __attribute__((noinline)) void rec_polls(writer *w, int64_t t, uint32_t k)
{
    cpt_event e = { .start_ns = (uint64_t)(t - w->skew), .bytes = cpt_fold_pack(k, 50),
                    .caller = (uint64_t)(uintptr_t)__builtin_return_address(0), .duration_ns = 100 * k,
                    .peer = CPT_PEER_ANY, .tag = 3, .comm = CPT_COMM_WORLD, .request = 150,
                    .call = C_IPROBE, .flags = CPT_F_FOLDED };
    w->ev[w->nev++] = e;
    if (w->nev >= w->block_records) flush_events(w, t + 100 * k);
}

static int write_rank(const char *dir, int r, int n, int iters, int truncate, uint32_t polls, int per_block)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
    writer w = { .rank = r, .nranks = n, .skew = (int64_t)r * 5000000, .block_records = per_block };
    w.f = fopen(path, "wb");
    if (!w.f) { perror(path); return -1; }
    cpt_file_header h = { .magic = { 'C', 'P', 'T', '1' }, .version = CPT_VERSION, .header_size = CPT_FILE_HEADER_SIZE,
                          .endian_check = CPT_ENDIAN_CHECK, .record_size = sizeof(cpt_event), .rank = r,
                          .world_size = n, .clock_resolution_ns = 1, .start_ns = 1000000000,
                          .clock_source = CPT_CLOCK_MONOTONIC };
    snprintf(h.impl_name, sizeof h.impl_name, "synthetic (test_report_gen)");
    h.header_checksum = cpt_checksum(&h, CPT_FILE_HEADER_SIZE - 4);
    fwrite(&h, sizeof h, 1, w.f);
    meta(&w, CPT_PHASE_INIT);

    int next = (r + 1) % n, prev = (r + n - 1) % n;
    uint64_t mine = 1000ull * (r + 1), theirs = 1000ull * (prev + 1);
    int64_t t = 1000000000 + 1000;             /* global ns */
    rec(&w, C_INIT, t, 500, -1, CPT_TAG_NONE, 0, 0, 0);
    t += 10000;
    uint32_t req = 1;
    for (int i = 0; i < iters; i++, t += 100000) {
        int64_t base = t + 1000 * r;            /* ranks a little out of step */
        if (i % 2 == 0) {
            rec(&w, C_ISEND, base, 2000, next, 7, mine, req, CPT_F_SEND | CPT_F_NONBLOCKING);
            rec(&w, C_RECV, base + 5000, 40000, prev, 7, theirs, 0, CPT_F_RECV);
            rec(&w, C_WAIT, base + 50000, 3000, -1, CPT_TAG_NONE, 0, 0, 0);
            rec(&w, C_WAIT, base + 50000, 3000, next, 7, mine, req, CPT_F_SEND | CPT_F_COMPLETION);
        } else {
            rec(&w, C_IRECV, base, 1000, CPT_PEER_ANY, -1, 100000, req, CPT_F_RECV | CPT_F_NONBLOCKING);
            rec(&w, C_SEND, base + 5000, 6000, next, 7, mine, 0, CPT_F_SEND);
            rec(&w, C_WAIT, base + 50000, 8000, -1, CPT_TAG_NONE, 0, 0, 0);
            rec(&w, C_WAIT, base + 50000, 8000, prev, 7, theirs, req, CPT_F_RECV | CPT_F_COMPLETION);
        }
        req++;
        rec(&w, C_ALLREDUCE, t + 70000, 20000, -1, CPT_TAG_NONE, 8, 0, CPT_F_COLLECTIVE);
        if (polls) rec_polls(&w, t + 91000, polls);
    }
    rec(&w, C_SENDRECV, t, 30000, next, 9, 512, 0, CPT_F_SEND);
    rec(&w, C_SENDRECV, t, 30000, prev, 9, 512, 0, CPT_F_RECV | CPT_F_SECONDARY);
    t += 50000;
    rec(&w, C_BCAST, t, 10000, 0, CPT_TAG_NONE, 4096, 0, CPT_F_COLLECTIVE | CPT_F_ROOT);
    rec(&w, C_BARRIER, t + 20000, 10000, -1, CPT_TAG_NONE, 0, 0, CPT_F_COLLECTIVE);
    rec(&w, C_FINALIZE, t + 40000, 1000, -1, CPT_TAG_NONE, 0, 0, 0);
    flush_events(&w, t + 41000);
    if (truncate) {                     /* killed rank: no final metadata, no end marker, half a block */
        cpt_block_header hh = { CPT_BLOCK_MAGIC, CPT_BLOCK_EVENTS, w.seq, 10, 480, 0 };
        fwrite(&hh, sizeof hh, 1, w.f);
        fwrite(w.ev, 1, 100, w.f);
    } else {
        meta(&w, CPT_PHASE_FINALIZE);
        block(&w, CPT_BLOCK_END, 0, NULL, 0);
    }
    return fclose(w.f) == 0 ? 0 : -1;
}

/* flip a byte in the middle of the file: inside some block, caught by its checksum */
static int corrupt_file(const char *dir, int r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
    FILE *f = fopen(path, "r+b");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x5a, f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s DIR NRANKS ITERS [--truncate R] [--corrupt R] [--missing R] [--garbage R]"
                        " [--polls K] [--big MB]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int n = atoi(argv[2]), iters = atoi(argv[3]);
    int trunc = -1, corrupt = -1, missing = -1, garbage = -1, per_block = 60;
    long polls = 0, big = 0;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--truncate")) trunc = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--corrupt")) corrupt = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--missing")) missing = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--garbage")) garbage = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--polls")) polls = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--big")) big = atol(argv[i + 1]);
    }
    if (n < 1 || iters < 0 || polls < 0 || polls > UINT32_MAX / 100 || big < 0 || big > 1000000) return 2;
    if (big) {
        if (!polls) polls = 1000;
        per_block = 4096;
        iters = (int)((big << 20) / (6 * (long)sizeof(cpt_event)));    /* 6 records per iteration */
        printf("iterations=%d\n", iters);
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) { perror(dir); return 1; }
    for (int r = 0; r < n; r++) {
        if (r == missing) continue;
        if (r == garbage) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
            FILE *f = fopen(path, "wb");
            if (!f) return 1;
            for (int k = 0; k < 8; k++) fputs("this is not a trace file at all\n", f);   /* longer than a header */
            fclose(f);
            continue;
        }
        if (write_rank(dir, r, n, iters, r == trunc, (uint32_t)polls, per_block) != 0) return 1;
        if (r == corrupt && corrupt_file(dir, r) != 0) return 1;
    }
    return 0;
}
