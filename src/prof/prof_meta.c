/*
 * prof_meta.c -- the META blocks: what a reader needs besides the events to
 * name calls, line up clocks, resolve return addresses and translate ranks.
 * Written at Init (so a crashed rank's trace is still readable) and again at
 * Finalize with the communicators created meanwhile.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "prof_internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct meta_buf {
    unsigned char *p;
    size_t len, cap;    /* len counts from the start of p, block header room included */
    uint32_t sections;
    int oom;
} meta_buf;

static void *room(meta_buf *m, size_t n)
{
    if (m->oom) return NULL;
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n) cap *= 2;
        unsigned char *q = realloc(m->p, cap);
        if (!q) { m->oom = 1; return NULL; }
        m->p = q;
        m->cap = cap;
    }
    void *r = m->p + m->len;
    m->len += n;
    return r;
}

/* Section header + two data pieces (either may be empty), zero padding to 8. */
static void section(meta_buf *m, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    size_t len = alen + blen;
    cpt_meta_section s = {type, (uint32_t)len};
    unsigned char *d = room(m, sizeof s + CPT_ALIGN8(len));
    if (!d) return;
    memcpy(d, &s, sizeof s);
    if (alen) memcpy(d + sizeof s, a, alen);
    if (blen) memcpy(d + sizeof s + alen, b, blen);
    memset(d + sizeof s + len, 0, CPT_ALIGN8(len) - len);
    m->sections++;
}

static void add_objects(meta_buf *m)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[4352];
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, end, off;
        char perms[8], path[4096];
        path[0] = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off, path) < 4)
            continue;
        if (perms[2] != 'x' || path[0] == 0) continue;    /* only code can hold return addresses */
        uint64_t v[3] = {start, end, off};
        section(m, CPT_META_OBJECT, v, sizeof v, path, strlen(path) + 1);
    }
    fclose(f);
}

static void add_call_names(meta_buf *m)
{
    unsigned char hdr[4] = {0};
    uint16_t id = CPT_CALL_FLUSH;
    memcpy(hdr, &id, 2);
    section(m, CPT_META_CALLNAME, hdr, 4, "flush", 6);
    for (const cm_prof_call_name_t *c = cm_prof_call_names; c->name; c++) {
        id = (uint16_t)c->id;
        memcpy(hdr, &id, 2);
        section(m, CPT_META_CALLNAME, hdr, 4, c->name, strlen(c->name) + 1);
    }
}

static void add_comms(meta_buf *m)
{
    int n = cm_prof_comm_count();
    for (int i = 0; i < n; i++) {
        const cm_prof_comm_t *c = cm_prof_comm_at(i);
        int32_t total = c->size + c->remote_size;
        int32_t *r = malloc(sizeof(int32_t) * (size_t)(total ? total : 1));
        if (!r) continue;
        for (int32_t k = 0; k < total; k++) r[k] = c->world_ranks ? c->world_ranks[k] : k;
        int32_t h[3];
        uint32_t id = c->id;
        memcpy(&h[0], &id, 4);
        h[1] = c->size;
        h[2] = c->remote_size;
        section(m, CPT_META_COMM, h, sizeof h, r, sizeof(int32_t) * (size_t)total);
        free(r);
    }
}

int cm_prof_write_meta(int phase)
{
    meta_buf m = {0};
    room(&m, sizeof(cpt_block_header));
    uint32_t ph[2] = {(uint32_t)phase, 0};
    section(&m, CPT_META_PHASE, ph, sizeof ph, NULL, 0);
    if (cm_prof_state.have_clock) {
        int64_t v[3] = {cm_prof_state.clock_offset_ns, (int64_t)cm_prof_state.clock_rtt_ns,
                        (int64_t)cm_prof_state.clock_measured_ns};
        section(&m, CPT_META_CLOCK, v, sizeof v, NULL, 0);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    int32_t b[2] = {sched_getcpu(), (int32_t)sizeof set};
    if (sched_getaffinity(0, sizeof set, &set) != 0) b[1] = 0;
    section(&m, CPT_META_BINDING, b, sizeof b, &set, (size_t)b[1]);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    section(&m, CPT_META_HOST, host, strlen(host) + 1, NULL, 0);
    int64_t pid = getpid();
    section(&m, CPT_META_PID, &pid, sizeof pid, NULL, 0);
    add_objects(&m);
    add_call_names(&m);
    add_comms(&m);
    uint64_t run[2] = {cm_prof_state.init_ns, cm_prof_state.finalize_ns};
    section(&m, CPT_META_RUN, run, sizeof run, NULL, 0);
    cm_prof_counters_t c;
    cm_prof_buffer_counters(&c);
    section(&m, CPT_META_COUNTERS, &c, sizeof c, NULL, 0);
    int rc = -1;
    if (!m.oom)
        rc = cm_prof_out_block(m.p, CPT_BLOCK_META, m.sections,
                               (uint32_t)(m.len - sizeof(cpt_block_header)));
    free(m.p);
    return rc;
}
