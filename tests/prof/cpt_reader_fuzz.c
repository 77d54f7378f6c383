/*
 * cpt_reader_fuzz -- the reader must survive any damage: a valid trace is built
 * in memory, then read whole, truncated at every length, and with random bytes
 * flipped.  A damaged trace must never be reported complete with wrong data,
 * and the message must name the file and a byte offset.
 */
#include "cpt_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char file[64 * 1024];
static size_t len;
static uint32_t seq;

#define SOFT_CHECK_NAME "cpt_reader_fuzz"
#include "../soft_check.h"

static void put(const void *p, size_t n) { memcpy(file + len, p, n); len += n; }

static void block(uint32_t kind, uint32_t count, const void *payload, uint32_t bytes)
{
    cpt_block_header h = {CPT_BLOCK_MAGIC, kind, seq++, count, bytes, cpt_checksum(payload, bytes)};
    put(&h, sizeof h);
    put(payload, bytes);
}

static size_t section(unsigned char *at, uint32_t type, const void *d, uint32_t n)
{
    cpt_meta_section s = {type, n};
    memcpy(at, &s, sizeof s);
    memcpy(at + sizeof s, d, n);
    memset(at + sizeof s + n, 0, CPT_ALIGN8(n) - n);
    return sizeof s + CPT_ALIGN8(n);
}

static void build(void)
{
    cpt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CPT_MAGIC, 4);
    h.version = CPT_VERSION;
    h.header_size = CPT_FILE_HEADER_SIZE;
    h.endian_check = CPT_ENDIAN_CHECK;
    h.record_size = sizeof(cpt_event);
    h.rank = 1;
    h.world_size = 2;
    strcpy(h.impl_name, "fuzz MPI");
    h.header_checksum = cpt_checksum(&h, CPT_FILE_HEADER_SIZE - 4);
    put(&h, sizeof h);

    unsigned char meta[1024];
    size_t m = 0;
    unsigned char name[16] = {0};
    uint16_t id = 16;
    memcpy(name, &id, 2);
    strcpy((char *)name + 4, "MPI_Send");
    m += section(meta + m, CPT_META_CALLNAME, name, 13);
    int32_t comm[5] = {1, 2, 0, 0, 1};
    m += section(meta + m, CPT_META_COMM, comm, sizeof comm);
    unsigned char obj[40] = {0};
    uint64_t o[3] = {0x1000, 0x2000, 0};
    memcpy(obj, o, 24);
    strcpy((char *)obj + 24, "/bin/app");
    m += section(meta + m, CPT_META_OBJECT, obj, 33);
    int64_t clk[3] = {-5, 100, 0};
    m += section(meta + m, CPT_META_CLOCK, clk, sizeof clk);
    block(CPT_BLOCK_META, 4, meta, (uint32_t)m);

    for (int b = 0; b < 3; b++) {
        cpt_event ev[10];
        memset(ev, 0, sizeof ev);
        for (int i = 0; i < 10; i++) {
            ev[i].start_ns = (uint64_t)(b * 10 + i);
            ev[i].call = 16;
            ev[i].peer = 0;
            ev[i].bytes = 8;
            ev[i].caller = 0x1800;
        }
        block(CPT_BLOCK_EVENTS, 10, ev, sizeof ev);
    }
    block(CPT_BLOCK_END, 0, "", 0);
}

int main(void)
{
    build();
    cpt_trace t;
    CHECK(cpt_read_buffer(file, len, "fuzz.cpt", &t) == 0 && t.complete && t.n_events == 30,
          "valid trace: complete=%d events=%zu error=%s", t.complete, t.n_events, t.error);
    CHECK(strcmp(cpt_call_name(&t, 16), "MPI_Send") == 0, "call name");
    CHECK(cpt_find_comm(&t, 1) && cpt_find_comm(&t, 1)->size == 2, "comm table");
    uint64_t rel = 0;
    CHECK(cpt_find_object(&t, 0x1800, &rel) && rel == 0x800, "object lookup");
    CHECK(t.have_clock && t.clock_offset_ns == -5, "clock");
    cpt_trace_free(&t);

    /* every truncation: never complete, events only from whole blocks, a message with a byte offset */
    for (size_t n = 0; n < len; n++) {
        int rc = cpt_read_buffer(file, n, "fuzz.cpt", &t);
        CHECK(!t.complete, "truncated to %zu bytes but complete", n);
        CHECK(t.n_events % 10 == 0, "truncated to %zu: %zu events (partial block)", n, t.n_events);
        CHECK(strstr(t.error, "fuzz.cpt") && strstr(t.error, "byte"), "truncated to %zu: message '%s'", n, t.error);
        CHECK(rc == 0 || n < CPT_FILE_HEADER_SIZE, "truncated to %zu: rc %d", n, rc);
        cpt_trace_free(&t);
    }

    /* random damage: no crash; if still "complete", the events are intact */
    static unsigned char copy[sizeof file];
    srand(12345);
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(copy, file, len);
        int flips = 1 + rand() % 4;
        for (int k = 0; k < flips; k++) copy[(size_t)rand() % len] ^= (unsigned char)(1 + rand() % 255);
        cpt_read_buffer(copy, len, "fuzz.cpt", &t);
        if (t.complete) {
            for (size_t i = 0; i < t.n_events; i++)
                CHECK(t.events[i].call == 16, "damaged but complete trace with a wrong event");
        }
        cpt_trace_free(&t);
    }

    CHECK(cpt_read_file("/nonexistent/0.cpt", &t) == -1 && strstr(t.error, "/nonexistent/0.cpt"),
          "missing file: '%s'", t.error);
    cpt_trace_free(&t);

    if (failures) return 1;
    printf("cpt_reader_fuzz: ok (%zu-byte trace, %zu truncations, 20000 damaged copies)\n", len, len);
    return 0;
}
