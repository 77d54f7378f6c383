/*
 * cpt_read.c -- the .cpt reader.  Every length in the file is checked against
 * what is left before it is used: files come from crashed programs and fuzzers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpt_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_error(cpt_trace *t, uint64_t offset, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t->error_offset = offset;
    snprintf(t->error, sizeof t->error, "%s: at byte %llu: %s", t->path,
             (unsigned long long)offset, msg);
}

static void init_trace(cpt_trace *t, const char *name)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", name ? name : "(buffer)");
    t->cpu = -1;
    t->pid = -1;
}

/* Copy a NUL-terminated string out of [p, p+len); NULL if it is not terminated. */
static char *dup_bounded_string(const unsigned char *p, size_t len)
{
    const unsigned char *nul = memchr(p, 0, len);
    if (!nul) return NULL;
    return strdup((const char *)p);
}

static int add_call_name(cpt_trace *t, unsigned id, char *name)
{
    if (id >= t->n_call_names) {
        size_t n = id + 1 > 2 * t->n_call_names ? id + 1 : 2 * t->n_call_names;
        char **a = realloc(t->call_names, n * sizeof *a);
        if (!a) { free(name); return -1; }
        memset(a + t->n_call_names, 0, (n - t->n_call_names) * sizeof *a);
        t->call_names = a;
        t->n_call_names = n;
    }
    free(t->call_names[id]);
    t->call_names[id] = name;
    return 0;
}

static void free_objects(cpt_trace *t)
{
    for (size_t i = 0; i < t->n_objects; i++) free(t->objects[i].path);
    free(t->objects);
    t->objects = NULL;
    t->n_objects = 0;
}

static void free_comms(cpt_trace *t)
{
    for (size_t i = 0; i < t->n_comms; i++) free(t->comms[i].world_ranks);
    free(t->comms);
    t->comms = NULL;
    t->n_comms = 0;
}

/* Parse one section; returns 0, or -1 with the error set. */
static int parse_section(cpt_trace *t, uint32_t type, const unsigned char *d, size_t len,
                         uint64_t off, int *objects_reset, int *comms_reset)
{
    switch (type) {
    case CPT_META_CLOCK: {
        if (len < 16) goto short_section;
        memcpy(&t->clock_offset_ns, d, 8);
        memcpy(&t->clock_rtt_ns, d + 8, 8);
        t->have_clock = 1;
        return 0;
    }
    case CPT_META_BINDING: {
        int32_t cpu; uint32_t nb;
        if (len < 8) goto short_section;
        memcpy(&cpu, d, 4);
        memcpy(&nb, d + 4, 4);
        if (nb > len - 8) { set_error(t, off, "binding mask of %u bytes overruns its section", nb); return -1; }
        unsigned char *m = malloc(nb ? nb : 1);
        if (!m) { set_error(t, off, "out of memory"); return -1; }
        memcpy(m, d + 8, nb);
        free(t->affinity);
        t->affinity = m;
        t->affinity_bytes = nb;
        t->cpu = cpu;
        return 0;
    }
    case CPT_META_HOST: {
        if (!memchr(d, 0, len)) { set_error(t, off, "hostname is not NUL-terminated"); return -1; }
        snprintf(t->hostname, sizeof t->hostname, "%s", (const char *)d);
        return 0;
    }
    case CPT_META_PID:
        if (len < 8) goto short_section;
        memcpy(&t->pid, d, 8);
        return 0;
    case CPT_META_OBJECT: {
        if (len < 25) goto short_section;
        char *path = dup_bounded_string(d + 24, len - 24);
        if (!path) { set_error(t, off, "object path is not NUL-terminated"); return -1; }
        if (!*objects_reset) { free_objects(t); *objects_reset = 1; }
        cpt_object *a = realloc(t->objects, (t->n_objects + 1) * sizeof *a);
        if (!a) { free(path); set_error(t, off, "out of memory"); return -1; }
        t->objects = a;
        cpt_object *o = &a[t->n_objects++];
        memcpy(&o->start, d, 8);
        memcpy(&o->end, d + 8, 8);
        memcpy(&o->file_offset, d + 16, 8);
        o->path = path;
        return 0;
    }
    case CPT_META_CALLNAME: {
        uint16_t id;
        if (len < 5) goto short_section;
        memcpy(&id, d, 2);
        char *name = dup_bounded_string(d + 4, len - 4);
        if (!name) { set_error(t, off, "call name is not NUL-terminated"); return -1; }
        if (add_call_name(t, id, name) != 0) { set_error(t, off, "out of memory"); return -1; }
        return 0;
    }
    case CPT_META_COMM: {
        uint32_t id; int32_t size, rsize;
        if (len < 12) goto short_section;
        memcpy(&id, d, 4);
        memcpy(&size, d + 4, 4);
        memcpy(&rsize, d + 8, 4);
        if (size < 0 || rsize < 0 || (uint64_t)size + (uint64_t)rsize > (len - 12) / 4) {
            set_error(t, off, "communicator %u claims %d+%d members but its section holds %zu bytes",
                      id, size, rsize, len);
            return -1;
        }
        if (!*comms_reset) { free_comms(t); *comms_reset = 1; }
        cpt_comm *a = realloc(t->comms, (t->n_comms + 1) * sizeof *a);
        if (!a) { set_error(t, off, "out of memory"); return -1; }
        t->comms = a;
        size_t n = (size_t)size + (size_t)rsize;
        int32_t *r = malloc(n ? n * 4 : 4);
        if (!r) { set_error(t, off, "out of memory"); return -1; }
        memcpy(r, d + 12, n * 4);
        cpt_comm *c = &a[t->n_comms++];
        c->id = id; c->size = size; c->remote_size = rsize; c->world_ranks = r;
        return 0;
    }
    case CPT_META_COUNTERS:
        if (len < 40) goto short_section;
        memcpy(&t->counters, d, 40);
        t->have_counters = 1;
        return 0;
    case CPT_META_RUN:
        if (len < 16) goto short_section;
        memcpy(&t->init_ns, d, 8);
        memcpy(&t->finalize_ns, d + 8, 8);
        t->have_run = 1;
        return 0;
    case CPT_META_PHASE: {
        uint32_t phase;
        if (len < 4) goto short_section;
        memcpy(&phase, d, 4);
        if (phase == CPT_PHASE_FINALIZE) t->have_final_meta = 1;
        return 0;
    }
    default:
        return 0; /* unknown sections are skipped: newer writers may add some */
    }
short_section:
    set_error(t, off, "metadata section of type %u is too short (%zu bytes)", type, len);
    return -1;
}

static int parse_meta(cpt_trace *t, const unsigned char *p, size_t len, uint32_t nsections,
                      uint64_t base)
{
    size_t pos = 0;
    int objects_reset = 0, comms_reset = 0; /* a later META block replaces these lists */
    for (uint32_t i = 0; i < nsections; i++) {
        if (len - pos < sizeof(cpt_meta_section)) {
            set_error(t, base + pos, "metadata block ends inside section %u of %u", i, nsections);
            return -1;
        }
        cpt_meta_section s;
        memcpy(&s, p + pos, sizeof s);
        size_t data = pos + sizeof s;
        if (s.length > len - data) {
            set_error(t, base + pos, "metadata section of %u bytes overruns its block", s.length);
            return -1;
        }
        if (parse_section(t, s.type, p + data, s.length, base + pos, &objects_reset, &comms_reset) != 0)
            return -1;
        size_t next = data + CPT_ALIGN8((size_t)s.length);
        pos = next > len ? len : next;
    }
    t->have_meta = 1;
    return 0;
}

/* Append count elements of elem bytes to a growing array; -1 with the error set. */
static int append(cpt_trace *t, void **arr, size_t *n, size_t elem, const unsigned char *p, uint32_t count,
                  uint64_t off)
{
    unsigned char *a = realloc(*arr, (*n + count) * elem);
    if (!a && count) { set_error(t, off, "out of memory for %u records", count); return -1; }
    *arr = a;
    if (count) memcpy(a + *n * elem, p, (size_t)count * elem);
    *n += count;
    return 0;
}

static int check_header(cpt_trace *t, const unsigned char *p, size_t size)
{
    if (size < CPT_FILE_HEADER_SIZE) {
        set_error(t, size, "file is %zu bytes, shorter than the %d-byte header (truncated or not a trace)",
                  size, CPT_FILE_HEADER_SIZE);
        return -1;
    }
    memcpy(&t->header, p, sizeof t->header);
    const cpt_file_header *h = &t->header;
    if (memcmp(h->magic, CPT_MAGIC, 4) != 0) {
        set_error(t, 0, "bad magic (not a coreprof trace file)");
        return -1;
    }
    if (h->endian_check != CPT_ENDIAN_CHECK) {
        set_error(t, 8, "written with a different byte order");
        return -1;
    }
    if (h->version < CPT_VERSION_MIN || h->version > CPT_VERSION) {
        set_error(t, 4, "format version %u, this reader knows %d to %d", h->version, CPT_VERSION_MIN, CPT_VERSION);
        return -1;
    }
    if (h->header_checksum != cpt_checksum(p, CPT_FILE_HEADER_SIZE - 4)) {
        set_error(t, CPT_FILE_HEADER_SIZE - 4, "file header checksum mismatch (corrupted)");
        return -1;
    }
    if (h->header_size != CPT_FILE_HEADER_SIZE || h->record_size != sizeof(cpt_event)) {
        set_error(t, 6, "unexpected header size %u or record size %u", h->header_size, h->record_size);
        return -1;
    }
    if (h->world_size <= 0 || h->rank < 0 || h->rank >= h->world_size) {
        set_error(t, 16, "rank %d / world size %d is impossible", h->rank, h->world_size);
        return -1;
    }
    if (h->version < 2) t->header.mode = CPT_MODE_TRACE;   /* a reserved field then */
    if (t->header.mode != CPT_MODE_TRACE && t->header.mode != CPT_MODE_SUMMARY) {
        set_error(t, 44, "unknown recording mode %u", t->header.mode);
        return -1;
    }
    t->header.impl_name[CPT_IMPL_NAME_MAX - 1] = 0;
    return 0;
}

/* ---- the block stream ------------------------------------------------- */

/* n bytes at the current offset: from memory, or read() into the stream's
 * buffer.  NULL if fewer than n are left (truncated file or shrinking file). */
static const unsigned char *fetch(cpt_stream *s, size_t n)
{
    if (s->size - s->off < n) return NULL;
    if (!s->mem) {
        if (n > s->cap) {
            size_t c = s->cap ? s->cap : 65536;
            while (c < n) c *= 2;
            unsigned char *b = realloc(s->buf, c);
            if (!b) return NULL;
            s->buf = b;
            s->cap = c;
        }
        size_t got = 0;
        while (got < n) {
            ssize_t r = read(s->fd, s->buf + got, n - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) { s->size = s->off + got; return NULL; }  /* shrank while reading */
            got += (size_t)r;
        }
        s->off += n;
        return s->buf;
    }
    const unsigned char *p = s->mem + s->off;
    s->off += n;
    return p;
}

static int stream_header(cpt_stream *s)
{
    cpt_trace *t = s->t;
    if (s->size < CPT_FILE_HEADER_SIZE) return check_header(t, NULL, (size_t)s->size);  /* says "too short" */
    const unsigned char *p = fetch(s, CPT_FILE_HEADER_SIZE);
    if (!p) return check_header(t, NULL, (size_t)s->size);   /* shrank meanwhile */
    if (check_header(t, p, CPT_FILE_HEADER_SIZE) != 0) return -1;
    s->off = CPT_FILE_HEADER_SIZE;
    return 0;
}

int cpt_stream_open_buffer(cpt_stream *s, const void *data, size_t size, const char *name, cpt_trace *t)
{
    memset(s, 0, sizeof *s);
    init_trace(t, name);
    s->t = t;
    s->fd = -1;
    s->mem = data;
    s->size = size;
    if (stream_header(s) != 0) { s->done = 1; return -1; }
    return 0;
}

int cpt_stream_open(cpt_stream *s, const char *path, cpt_trace *t)
{
    memset(s, 0, sizeof *s);
    init_trace(t, path);
    s->t = t;
    s->fd = -1;
    s->done = 1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(t->error, sizeof t->error, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(t->error, sizeof t->error, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    s->fd = fd;
    s->size = (uint64_t)st.st_size;
    if (stream_header(s) != 0) return -1;
    s->done = 0;
    return 0;
}

void cpt_stream_close(cpt_stream *s)
{
    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    s->fd = -1;
    s->buf = NULL;
    s->cap = 0;
}

int cpt_stream_next(cpt_stream *s, cpt_block *out)
{
    cpt_trace *t = s->t;
    while (!s->done) {
        uint64_t off = s->off;
        if (off == s->size) {
            set_error(t, off, "no end marker: the trace is incomplete (rank crashed or was killed?)");
            break;
        }
        if (s->size - off < sizeof(cpt_block_header)) {
            set_error(t, off, "truncated block header (%llu bytes left): the trace is incomplete",
                      (unsigned long long)(s->size - off));
            break;
        }
        cpt_block_header b;
        const unsigned char *hp = fetch(s, sizeof b);
        if (!hp) {
            set_error(t, off, "truncated block header: the trace is incomplete");
            break;
        }
        memcpy(&b, hp, sizeof b);
        if (b.magic != CPT_BLOCK_MAGIC) {
            set_error(t, off, "bad block magic 0x%08x (corrupted); keeping the %zu events before it",
                      b.magic, s->events_seen);
            break;
        }
        if (b.seq != s->expect_seq) {
            set_error(t, off, "block sequence %u, expected %u (corrupted)", b.seq, s->expect_seq);
            break;
        }
        if (b.payload_bytes > CPT_MAX_BLOCK_PAYLOAD || (b.payload_bytes & 7u)) {
            set_error(t, off, "impossible block payload size %u (corrupted)", b.payload_bytes);
            break;
        }
        uint64_t poff = off + sizeof b;
        if (b.payload_bytes > s->size - poff) {
            set_error(t, off, "block %u claims %u payload bytes but only %llu remain: truncated, the trace is incomplete",
                      b.seq, b.payload_bytes, (unsigned long long)(s->size - poff));
            break;
        }
        const unsigned char *payload = fetch(s, b.payload_bytes);
        if (!payload) {
            set_error(t, off, "block %u: the file ended while reading it: truncated, the trace is incomplete", b.seq);
            break;
        }
        if (cpt_checksum(payload, b.payload_bytes) != b.checksum) {
            set_error(t, off, "block %u checksum mismatch (corrupted); keeping the %zu events before it",
                      b.seq, s->events_seen);
            break;
        }
        s->expect_seq++;
        uint32_t thread = cpt_block_thread(b.kind);
        if (thread && cpt_block_kind(b.kind) != CPT_BLOCK_EVENTS) {
            set_error(t, off, "block %u: kind %u with a thread number (corrupted)", b.seq, b.kind);
            break;
        }
        b.kind = cpt_block_kind(b.kind);
        switch (b.kind) {
        case CPT_BLOCK_EVENTS:
        case CPT_BLOCK_SUMMARY: {
            int ev = b.kind == CPT_BLOCK_EVENTS;
            size_t rec = ev ? sizeof(cpt_event) : sizeof(cpt_summary_entry);
            if ((uint64_t)b.count * rec != b.payload_bytes) {
                set_error(t, off, "%s block %u: %u %s do not fill %u bytes", ev ? "event" : "summary", b.seq,
                          b.count, ev ? "records" : "entries", b.payload_bytes);
                s->done = 1;
                return 0;
            }
            if (ev) {
                s->events_seen += b.count;
                t->n_event_blocks++;
                if (thread >= t->n_threads) t->n_threads = thread + 1;
            }
            *out = (cpt_block){ b.kind, b.count, payload, off, thread };
            return 1;
        }
        case CPT_BLOCK_META:
            if (parse_meta(t, payload, b.payload_bytes, b.count, poff) != 0) { s->done = 1; return 0; }
            continue;
        case CPT_BLOCK_END:
            if (poff + b.payload_bytes != s->size) {
                set_error(t, poff + b.payload_bytes, "%llu stray bytes after the end marker",
                          (unsigned long long)(s->size - poff - b.payload_bytes));
                /* the data before it is whole: still usable, but say so */
                break;
            }
            t->complete = 1;
            t->error[0] = 0;
            break;
        default:
            set_error(t, off, "unknown block kind %u (corrupted)", b.kind);
            break;
        }
        break;
    }
    s->done = 1;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const cpt_event *x = *(const cpt_event *const *)a, *y = *(const cpt_event *const *)b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return x < y ? -1 : x > y;    /* file order breaks ties: stable */
}

static void merge_threads(cpt_trace *t)
{
    size_t n = t->n_events;
    const cpt_event **idx = malloc(n * sizeof *idx);
    cpt_event *out = malloc(n * sizeof *out);
    if (idx && out) {
        for (size_t i = 0; i < n; i++) idx[i] = &t->events[i];
        qsort(idx, n, sizeof *idx, by_start);
        for (size_t i = 0; i < n; i++) out[i] = *idx[i];
        free(t->events);
        t->events = out;
        out = NULL;
    }
    free(idx);
    free(out);
}

/* Whole-file reading on top of the stream: events and summary entries kept. */
static int read_all(cpt_stream *s, cpt_trace *t)
{
    cpt_block b;
    while (cpt_stream_next(s, &b)) {
        int rc = b.kind == CPT_BLOCK_EVENTS
               ? append(t, (void **)&t->events, &t->n_events, sizeof(cpt_event), b.payload, b.count, b.offset)
               : append(t, (void **)&t->summary, &t->n_summary, sizeof(cpt_summary_entry), b.payload, b.count,
                        b.offset);
        if (rc != 0) break;
    }
    /* several threads: their blocks interleave, so merge them into one
     * time order (stable: a thread's records keep their order at equal times) */
    if (t->n_threads > 1 && t->n_events > 1) merge_threads(t);
    return 0;
}

int cpt_read_buffer(const void *data, size_t size, const char *name, cpt_trace *t)
{
    cpt_stream s;
    if (cpt_stream_open_buffer(&s, data, size, name, t) != 0) return -1;
    read_all(&s, t);
    cpt_stream_close(&s);
    return 0;
}

int cpt_read_file(const char *path, cpt_trace *t)
{
    cpt_stream s;
    if (cpt_stream_open(&s, path, t) != 0) { cpt_stream_close(&s); return -1; }
    read_all(&s, t);
    cpt_stream_close(&s);
    return 0;
}

void cpt_trace_free(cpt_trace *t)
{
    free(t->events);
    free(t->summary);
    t->summary = NULL;
    t->n_summary = 0;
    free(t->affinity);
    free_objects(t);
    free_comms(t);
    for (size_t i = 0; i < t->n_call_names; i++) free(t->call_names[i]);
    free(t->call_names);
    t->events = NULL; t->n_events = 0;
    t->affinity = NULL; t->call_names = NULL; t->n_call_names = 0;
}

const char *cpt_call_name(const cpt_trace *t, unsigned call)
{
    static __thread char buf[32];
    if (call < t->n_call_names && t->call_names[call]) return t->call_names[call];
    if (call == CPT_CALL_FLUSH) return "flush";
    if (call == CPT_CALL_NONE) return "none";
    snprintf(buf, sizeof buf, "call#%u", call);
    return buf;
}

const cpt_comm *cpt_find_comm(const cpt_trace *t, uint32_t comm_id)
{
    for (size_t i = 0; i < t->n_comms; i++)
        if (t->comms[i].id == comm_id) return &t->comms[i];
    return NULL;
}

const cpt_object *cpt_find_object(const cpt_trace *t, uint64_t addr, uint64_t *rel)
{
    for (size_t i = 0; i < t->n_objects; i++) {
        const cpt_object *o = &t->objects[i];
        if (addr >= o->start && addr < o->end) {
            if (rel) *rel = addr - o->start + o->file_offset;
            return o;
        }
    }
    return NULL;
}

static int count_cpt_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".cpt") == 0) n++;
    }
    closedir(d);
    return n;
}

int cpt_read_dir(const char *dir, cpt_trace **traces, int *n, char *err, size_t errlen)
{
    *traces = NULL;
    *n = 0;
    int files = count_cpt_files(dir);
    if (files < 0) {
        snprintf(err, errlen, "%s: cannot open directory: %s", dir, strerror(errno));
        return -1;
    }
    if (files == 0) {
        snprintf(err, errlen, "%s: no .cpt files", dir);
        return -1;
    }
    /* world size from rank 0's file if readable, else the largest sane claim */
    char path[4096];
    int world = 0;
    for (int r = 0; r < files && world == 0; r++) {
        cpt_trace probe;
        snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
        if (cpt_read_file(path, &probe) == 0 && probe.header.world_size <= (uint32_t)files + 4096 /* far more ranks than files: corruption */)
            world = probe.header.world_size;
        cpt_trace_free(&probe);
    }
    if (world < files) world = files;
    cpt_trace *a = calloc((size_t)world, sizeof *a);
    if (!a) { snprintf(err, errlen, "out of memory"); return -1; }
    int ok = 0;
    for (int r = 0; r < world; r++) {
        snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
        if (cpt_read_file(path, &a[r]) == 0) {
            if (a[r].header.rank != r) {
                /* keep it but say so: a renamed file would mislabel a rank */
                char e2[sizeof a[r].error];
                snprintf(e2, sizeof e2, "%.400s: header says rank %d; %.700s", path, a[r].header.rank, a[r].error);
                memcpy(a[r].error, e2, sizeof e2);
                a[r].complete = 0;
            }
            ok++;
        }
    }
    *traces = a;
    *n = world;
    if (!ok) {
        snprintf(err, errlen, "%s: none of the %d trace files could be read (first: %s)", dir, world,
                 a[0].error);
        return -1;
    }
    return 0;
}

void cpt_free_dir(cpt_trace *traces, int n)
{
    for (int i = 0; i < n; i++) cpt_trace_free(&traces[i]);
    free(traces);
}
